"""A plugin for measuring what hidden information is worth to the expert's search, given
what its seat cannot know: in Shifting Stones ``mcts-learned`` (the same compiled ISMCTS
over the learned policy, the same defaults), in Sequence Stacks ``mcts`` (its defaults:
flat, over greedy).

    playlab --plugin tools/peek.py tune shifting-stones --bot peek-hands --grid depth=6 \\
        --against greedy --games 150 --seed 406

- ``peek-hands`` samples its worlds with every other hand as it really is; only the draw
  pile's order stays unknown (dealt at random from the unseen cards, as ``determinize``
  does; in Sequence Stacks the real draw pile reshuffled).  In solo Shifting Stones, with
  no other hand, it sees what the fair search sees.
- ``peek-kept`` (2 players) sees only the cards the other hand kept through its last turn,
  not the ones it drew at its end: the most that inference from its moves could learn.
  At other player counts it sees what the fair search sees.
- ``peek-all`` searches the real state itself: the other hands, the draw order and the
  chance stream (every reshuffle) included, so its rollouts see the real future draws.

These bots break the rule every other bot keeps (they read the real state, ``sees="state"``,
and ``playlab check`` refuses them), so they are not built-in: they exist only under
``--plugin``, for this one measurement.  Against the fair search on the same deals they
show how much of its remaining gap to a stronger opponent is what it cannot know
(docs/expert-play.md).
"""
import numpy as np
from numba import njit

import bots.generic.mcts as mcts
from bots.learned_search import LINK
from simcore.games import sequence_stacks as stacks
from simcore.games import shifting_stones as stones
from simcore.kernel_helpers import set_has, set_with, set_without, shuffle_range
from simcore.rng import next_u64

GAME = "shifting-stones"


@njit(cache=True)
def see_all(view, params, player, rng, slot, out):
    """The world is the real state (the engine hands this bot the state as its view)."""
    for i in range(view.shape[0]):
        out[i] = view[i]


@njit(cache=True)
def unseen_shuffled(view, seen_lo, seen_hi, rng, slot, out):
    """Copy the real state into ``out`` and lay the cards outside (seen_lo, seen_hi) and
    every score into DECK, shuffled (as ``determinize`` does); their count."""
    for i in range(view.shape[0]):
        out[i] = view[i]
    for c in range(stones.NUM_CARDS):
        if view[stones.SCORED_BY + c] >= 0:
            seen_lo, seen_hi = set_with(seen_lo, seen_hi, c)
    w = 0
    for c in range(stones.NUM_CARDS):
        if not set_has(seen_lo, seen_hi, c):
            out[stones.DECK + w] = c
            w += 1
    shuffle_range(rng, slot, out, stones.DECK, w)
    return w


@njit(cache=True)
def close_draw_pile(w, rng, slot, out):
    """DECK[0:w] is the new draw pile; a fresh chance stream, independent of the real one."""
    for i in range(w, stones.NUM_CARDS):
        out[stones.DECK + i] = -1
    out[stones.DRAW_TOP] = 0
    out[stones.DRAW_END] = w
    out[stones.RNG] = np.int64(next_u64(rng, slot))


@njit(cache=True)
def see_hands(view, params, player, rng, slot, out):
    """The real state with the draw pile dealt at random from the cards no hand, discard
    or score holds (as ``determinize`` deals it) and a fresh chance stream.  Solo has no
    other hand and its pile is a chosen 16 of the unseen cards: there it samples as the fair
    search does."""
    if view[stones.PLAYERS] == 1:
        stones.determinize(view, params, player, rng, slot, out)
        return
    seen_lo = view[stones.DISCARD_LO]
    seen_hi = view[stones.DISCARD_HI]
    for s in range(view[stones.PLAYERS]):
        seen_lo |= view[stones.HAND_LO + s]
        seen_hi |= view[stones.HAND_HI + s]
    close_draw_pile(unseen_shuffled(view, seen_lo, seen_hi, rng, slot, out), rng, slot, out)


@njit(cache=True)
def kept_cards(view, other):
    """(lo, hi, drawn): the cards of ``other``'s hand that it kept through its last turn,
    and how many it drew at that turn's end.  The drawn cards are the run just below the
    draw pile's top that its hand holds (the seat to move has not drawn since).  A refill
    that straddled a reshuffle counts its cards from before the reshuffle as kept: a small
    overstatement, in the direction of an upper bound."""
    olo = view[stones.HAND_LO + other]
    ohi = view[stones.HAND_HI + other]
    klo = olo
    khi = ohi
    drawn = 0
    i = view[stones.DRAW_TOP] - 1
    while i >= 0 and set_has(olo, ohi, view[stones.DECK + i]):
        klo, khi = set_without(klo, khi, view[stones.DECK + i])
        drawn += 1
        i -= 1
    return klo, khi, drawn


@njit(cache=True)
def see_kept(view, params, player, rng, slot, out):
    """Two players: the other hand's cards it kept through its last turn as they really
    are, the cards it drew at that turn's end dealt at random from the unseen ones (with the
    draw pile, as ``determinize`` deals it).  What a perfect inference from the other's
    moves could know at most: the draws that end its turn follow no move of its own.
    At other player counts it samples as the fair search does (``determinize``): the walk
    below the pile's top finds only the last seat's draws, so there is no one other hand."""
    if view[stones.PLAYERS] != 2:
        stones.determinize(view, params, player, rng, slot, out)
        return
    other = 1 - player
    klo, khi, drawn = kept_cards(view, other)
    w = unseen_shuffled(view, view[stones.DISCARD_LO] | view[stones.HAND_LO + player] | klo,
                        view[stones.DISCARD_HI] | view[stones.HAND_HI + player] | khi, rng, slot, out)
    for _ in range(drawn):
        w -= 1
        klo, khi = set_with(klo, khi, out[stones.DECK + w])
    out[stones.HAND_LO + other] = klo
    out[stones.HAND_HI + other] = khi
    close_draw_pile(w, rng, slot, out)


@njit(cache=True)
def see_stacks_hands(view, params, player, rng, slot, out):
    """Sequence Stacks: the real state with its draw pile (exactly the cards no hand, pile
    or discard holds) in a fresh random order, and a fresh chance stream (reshuffles)."""
    for i in range(view.shape[0]):
        out[i] = view[i]
    pos = view[stacks.DRAW_POS]
    shuffle_range(rng, slot, out, stacks.DRAW + pos, view[stacks.DRAW_LEN] - pos)
    out[stacks.RNG] = np.int64(next_u64(rng, slot))


def _register(name, sampler, what, game=GAME, link=LINK, base="mcts-learned"):
    """Register ``base``'s search in ``game`` once more, over ``sampler``'s worlds, with
    ``base``'s defaults in that game (read from the catalogue, not restated here)."""
    from bots.registry import bot_entry

    defaults = {p.name: p.default for p in bot_entry(game, base).spec.params}
    mcts.register_search(name, link, f"{base} that {what} (an experiment: it reads the real state)",
                         games=(game,), defaults={game: defaults}, sampler=sampler, sees="state")

_register("peek-hands", see_hands, "sees the other hands")
_register("peek-all", see_all, "sees the other hands, the draw order and every reshuffle")
_register("peek-kept", see_kept, "sees the cards the other hand kept through its last turn (2 players)")
# Sequence Stacks' expert is the plain mcts over greedy (its defaults): the same search over
# the real state bounds what any fair search of that kind could gain from information
_register("peek-all", see_all, "sees the other hands, the draw order and every reshuffle",
          game="sequence-stacks", link=mcts.POLICY_LINK, base="mcts")
_register("peek-hands", see_stacks_hands, "sees the other hands", game="sequence-stacks", link=mcts.POLICY_LINK,
          base="mcts")
