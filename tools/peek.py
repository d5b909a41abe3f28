"""A plugin for measuring what hidden information is worth in Shifting Stones: the expert's
search (``mcts-learned``, the same compiled ISMCTS over the learned policy, the same
defaults) given what its seat cannot know.

    playlab --plugin tools/peek.py tune shifting-stones --bot peek-hands --grid depth=6 \\
        --against greedy --games 150 --seed 406

- ``peek-hands`` samples its worlds with every other hand as it really is; only the draw
  pile's order stays unknown (dealt at random from the unseen cards, as ``determinize``
  does).  For games of 2-5 players: solo has no other hand, and its draw pile is a chosen
  16 of the unseen cards, which this does not model.
- ``peek-all`` searches the real state itself: the other hands, the draw order and the
  chance stream (every reshuffle) included, so its rollouts see the real future draws.

These bots break the rule every other bot keeps (they read the real state, ``sees="state"``,
and ``playlab check`` refuses them), so they are not built-in: they exist only under
``--plugin``, for this one measurement.  Against the fair search on the same deals they
show how much of its remaining gap to a stronger opponent is what it cannot know (README,
*Expert play*).
"""
import numpy as np
from numba import njit

import bots.generic.mcts as mcts
from bots.learned import shipped_fingerprint
from bots.learned_search import GAMES, LINK
from bots.registry import BotSpec, register_bot
from simcore.games import shifting_stones as stones
from simcore.kernel_helpers import set_has, set_with, shuffle_range
from simcore.rng import next_u64

GAME = "shifting-stones"


@njit(cache=True)
def see_all(view, params, player, rng, slot, out):
    """The world is the real state (the engine hands this bot the state as its view)."""
    for i in range(view.shape[0]):
        out[i] = view[i]


@njit(cache=True)
def see_hands(view, params, player, rng, slot, out):
    """The real state with the draw pile dealt at random from the cards no hand, discard
    or score holds (as ``determinize`` deals it) and a fresh chance stream."""
    for i in range(view.shape[0]):
        out[i] = view[i]
    seen_lo = view[stones.DISCARD_LO]
    seen_hi = view[stones.DISCARD_HI]
    for s in range(view[stones.PLAYERS]):
        seen_lo |= view[stones.HAND_LO + s]
        seen_hi |= view[stones.HAND_HI + s]
    for c in range(stones.NUM_CARDS):
        if view[stones.SCORED_BY + c] >= 0:
            seen_lo, seen_hi = set_with(seen_lo, seen_hi, c)
    w = 0
    for c in range(stones.NUM_CARDS):
        if not set_has(seen_lo, seen_hi, c):
            out[stones.DECK + w] = c
            w += 1
    shuffle_range(rng, slot, out, stones.DECK, w)
    for i in range(w, stones.NUM_CARDS):
        out[stones.DECK + i] = -1
    out[stones.DRAW_TOP] = 0
    out[stones.DRAW_END] = w
    out[stones.RNG] = np.int64(next_u64(rng, slot))


def _register(name, sampler, what):
    def extra(game):
        return {**mcts.extra_for(LINK)(game), "determinize": sampler}

    spec = BotSpec(name, f"mcts-learned that {what} (an experiment: it reads the real state)", mcts.PARAMS,
                   memory=mcts.memory_for(LINK))
    register_bot(spec, mcts.choose, games=(GAME,), helpers=mcts.HELPERS, requires=mcts.REQUIRES, extra=extra,
                 jit_options=mcts.JIT_OPTIONS, sees="state", defaults={GAME: GAMES[GAME]},
                 fingerprint=shipped_fingerprint(GAME))


_register("peek-hands", see_hands, "sees the other hands")
_register("peek-all", see_all, "sees the other hands, the draw order and every reshuffle")
