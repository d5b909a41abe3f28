"""Shifting Stones bots (run inside the Numba kernels).

Only ``random`` exists so far (kind 0, the game's own ``random_action``, which the engine
calls directly).  Later bots get a kind here, a ``BotSpec`` in ``BOTS`` and a branch in
``policy``; they may use ``scratch`` (at least ``NUM_ACTIONS`` slots) and the game's
helpers (``legal_actions``, ``matching_cards``, ``card_matches``).
"""
from numba import njit

from bots.registry import RANDOM, RANDOM_KIND
from simcore.games.shifting_stones import random_action

BOTS = [RANDOM]


@njit(cache=True)
def policy(kind, bot_params, state, params, rng, seat, scratch):
    """Dispatch on the bot kind; -1 for a kind this game does not know."""
    if kind == RANDOM_KIND:
        return random_action(state, params, rng, seat)
    return -1
