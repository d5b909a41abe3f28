"""Three-Player Moon bots (run inside the Numba kernels)."""
from numba import njit

from bots.registry import RANDOM

BOTS = [RANDOM]


@njit(cache=True)
def policy(kind, bot_params, state, params, rng, seat, scratch):
    """Dispatch on the bot kind (``bot_params[seat]`` holds its parameters); kind 0
    (random) never reaches here."""
    return -1
