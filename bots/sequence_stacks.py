"""Bots for Sequence Stacks.

``policy`` is the compiled dispatcher the generic engine calls for every non-random
seat (kind 0, ``random``, is served by the game's own ``random_action`` fast path, but
the dispatcher handles it too so that search code can call it uniformly).  Bots receive
every decision of their seat, including the out-of-turn block decision (``current_player``
returns the seat being offered the block).  A later issue adds a greedy bot: give it a
new kind here, a ``BotSpec`` in ``BOTS`` and a branch in ``policy``.
"""
from __future__ import annotations

from numba import njit

from bots.registry import RANDOM, RANDOM_KIND
from simcore.games.sequence_stacks import random_action

BOTS = [RANDOM]


@njit(cache=True)
def policy(kind, bot_params, state, params, rng, seat, scratch):
    """The action of bot ``kind`` for ``seat`` (-1 for an unknown kind)."""
    if kind == RANDOM_KIND:
        return random_action(state, params, rng, seat)
    return -1
