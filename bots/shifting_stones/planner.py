"""``planner``: the solo Shifting Stones bot that plans the end of the game exactly.

Solo only (at 2-5 players, and with a hand size above 4, it plays ``greedy``):

- It remembers the cards it has seen this game (its hands, the discard pile, the scored
  cards: all from its view), so once all of the game's ``NCARDS`` have been seen it knows
  which cards are still to score and which of them are in the draw pile (not their order).
- At the start of a turn with at most ``exact`` cards left to score, all of them known, it
  runs the exact endgame search (``endgame.value``: every turn as a path of moves with the
  cards scored along it, the payers and the refill, the draw averaged over the pile's
  unknown order) and plays the turn that wins most often, decision by decision (discards
  before moves, scores as soon as a planned card matches).  It searches with 0, 1, ...
  strikes allowed in turn (each search far smaller than the next) and stops at a sure win;
  the last allows every strike left.  With ``budget`` (millions of
  paths) exhausted it plays the best turn found so far; when it finds no chance at all it
  plays greedy.
- Otherwise it plays ``greedy`` with its default parameters.

It reads only its view (and its memory of earlier views); it draws no random numbers.

Working memory, int64 row: the greedy scratch [0:SCRATCH_SIZE], then the slots below,
the search's work array, its position table's keys and its path table; float64 row: the
position table's values.  The tables are cleared when the set of cards to score is not
within the one they were filled for (once or twice a game).
"""
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from bots.registry import BotParam, BotSpec
from simcore.games.shifting_stones import (DISCARD_BASE, DISCARD_HI, DISCARD_LO, END, GRID, HALF, HAND_HI,
                                           HAND_LO, NCARDS, NUM_CARDS, OPT_HAND_SIZE, OPT_SOLO_STRIKES,
                                           PENDING, PLAYERS, SCORE_BASE, SCORED_BY, SCORED_TOTAL, STRIKES,
                                           TURN_ACTIONS, TURNS, card_matches)
from simcore.rng import popcount

from .endgame import MAXD, PLAN_D, PLAN_DSET, PLAN_MOVES, PLAN_S, PLAN_SIZE, UMAX, WORK_SIZE, solve
from .grid import do_move
from .policy import greedy
from .scratch import SCRATCH_SIZE

P_EXACT = 0
P_BUDGET = 1

PARAMS = (
    BotParam("exact", 5, 0, UMAX, "cards left to score at which the exact endgame search takes over "
             "(0: never, plain greedy)", integer=True),
    BotParam("budget", 5, 0, 10_000, "millions of paths one exact search may try (0: no limit; 20 wins more, about 5x slower)"),
)

TT_BITS = 20  # position table entries (keys in imem, values in fmem)
SEEN_BITS = 13  # path table entries (key, stamp pairs; small: it stays in cache, about 2.5x faster than 2^18)

# int64 slots after the greedy scratch
O_SEEN_LO = SCRATCH_SIZE  # cards seen this game
O_SEEN_HI = O_SEEN_LO + 1
O_ACTIVE = O_SEEN_HI + 1  # 1 while a planned turn is being played
O_TURN = O_ACTIVE + 1  # TURNS when it was planned
O_STEP = O_TURN + 1  # moves made of it
O_GRID = O_STEP + 1  # the grid expected now
O_NMOVES = O_GRID + 1
O_S_LO = O_NMOVES + 1  # the cards it scores
O_S_HI = O_S_LO + 1
O_D_LO = O_S_HI + 1  # the cards that pay for its moves
O_D_HI = O_D_LO + 1
O_MOVES = O_D_HI + 1  # its moves
O_UNIV_N = O_MOVES + MAXD  # the cards the tables were filled for: count, then the cards
O_UNIV = O_UNIV_N + 1
O_WORK = O_UNIV + UMAX
O_TK = O_WORK + WORK_SIZE + PLAN_SIZE
O_SEENT = O_TK + (1 << TT_BITS)
INTS = O_SEENT + (2 << SEEN_BITS)
FLOATS = 1 << TT_BITS


def planner_memory(info, players, values):
    if players != 1:
        return SCRATCH_SIZE, 0
    return INTS, FLOATS


SPEC = BotSpec("planner",
               "solo: greedy until `exact` cards are left to score and all are known, then an "
               "exact search of the endgame (the draw averaged over the unknown pile order) "
               "plays the turn that wins most often; at 2-5 players plain greedy",
               PARAMS, memory=planner_memory)


def _greedy(view, params, seat, row):
    return greedy(view, params, seat, np.int64(2), 0.25, 0.0, np.int64(0), row)


def _local(lo, hi, univ, n):
    """The local mask (bit i: univ[i]) of the global set (lo, hi)."""
    m = np.int64(0)
    for i in range(n):
        c = univ[i]
        if c < HALF:
            if (lo >> c) & 1:
                m |= np.int64(1) << i
        elif (hi >> (c - HALF)) & 1:
            m |= np.int64(1) << i
    return m


def _global(m, univ):
    lo = np.int64(0)
    hi = np.int64(0)
    while m:
        i = trailing_zeros(m)
        m &= m - 1
        c = univ[i]
        if c < HALF:
            lo |= np.int64(1) << c
        else:
            hi |= np.int64(1) << (c - HALF)
    return lo, hi


def _plan_turn(view, params, seat, row, frow, exact, budget):
    """At a turn's start: run the exact search when it applies and leave the turn in the
    row (O_ACTIVE = 1); returns whether it did."""
    left = view[NCARDS] - view[SCORED_TOTAL]
    if left > exact or left <= 0:
        return False
    slo = row[O_SEEN_LO]
    shi = row[O_SEEN_HI]
    if popcount(slo) + popcount(shi) != view[NCARDS]:
        return False  # some card of the game was never seen: its identity is unknown
    # the cards still to score
    rlo = slo
    rhi = shi
    for c in range(NUM_CARDS):
        if view[SCORED_BY + c] >= 0:
            if c < HALF:
                rlo &= ~(np.int64(1) << c)
            else:
                rhi &= ~(np.int64(1) << (c - HALF))
    n = popcount(rlo) + popcount(rhi)
    if n > UMAX:
        return False
    univ = row[O_UNIV:O_UNIV + UMAX]
    un = row[O_UNIV_N]
    # the tables stay valid while the cards to score are within the universe they were filled for
    inside = un > 0 and popcount(_local(rlo, rhi, univ, un)) == n
    tk = row[O_TK:O_SEENT]
    seent = row[O_SEENT:INTS]
    if not inside:
        un = 0
        for c in range(NUM_CARDS):
            if c < HALF:
                has = (rlo >> c) & 1
            else:
                has = (rhi >> (c - HALF)) & 1
            if has:
                univ[un] = c
                un += 1
        for i in range(un, UMAX):
            univ[i] = 0
        row[O_UNIV_N] = un
        for i in range(tk.shape[0]):
            tk[i] = 0
        for i in range(seent.shape[0]):
            seent[i] = 0
    H = _local(view[HAND_LO + seat], view[HAND_HI + seat], univ, un)
    X = _local(view[DISCARD_LO], view[DISCARD_HI], univ, un)
    R = _local(rlo, rhi, univ, un)
    P = R & ~H & ~X
    if popcount(H) > MAXD:
        return False
    sl = params[OPT_SOLO_STRIKES] - view[STRIKES]
    work = row[O_WORK:O_TK]
    # with fewer strikes allowed the search is far smaller, and a sure win there is one here:
    # allow 0, 1, ... strikes in turn until a sure win (the last search allows them all)
    v = 0.0
    for s in range(1, sl + 1):
        v = solve(params, univ, params[OPT_HAND_SIZE], view[GRID], H, P, X, np.int64(s), np.int64(MAXD), tk, frow,
                  seent, work, np.int64(budget))
        if v >= 1.0 - 1e-9:
            break
    d = work[WORK_SIZE + PLAN_D]
    if v <= 0.0 or d < 0:
        return False
    row[O_ACTIVE] = 1
    row[O_TURN] = view[TURNS]
    row[O_STEP] = 0
    row[O_GRID] = view[GRID]
    row[O_NMOVES] = d
    row[O_S_LO], row[O_S_HI] = _global(work[WORK_SIZE + PLAN_S], univ)
    row[O_D_LO], row[O_D_HI] = _global(work[WORK_SIZE + PLAN_DSET], univ)
    for i in range(d):
        row[O_MOVES + i] = work[WORK_SIZE + PLAN_MOVES + i]
    return True


def _play_plan(view, params, seat, row):
    """The planned turn's next decision (-1 if the state is not the one it planned for)."""
    if row[O_TURN] != view[TURNS] or row[O_GRID] != view[GRID]:
        return np.int64(-1)
    step = row[O_STEP]
    if view[PENDING] >= 0:
        if step >= row[O_NMOVES]:
            return np.int64(-1)
        m = row[O_MOVES + step]
        row[O_STEP] = step + 1
        row[O_GRID] = do_move(view[GRID], m)
        return m
    lo = view[HAND_LO + seat]
    hi = view[HAND_HI + seat]
    # a planned card that matches now is scored
    s = lo & row[O_S_LO]
    while s:
        c = trailing_zeros(s)
        s &= s - 1
        if card_matches(params, view[GRID], c):
            return SCORE_BASE + c
    s = hi & row[O_S_HI]
    while s:
        c = HALF + trailing_zeros(s)
        s &= s - 1
        if card_matches(params, view[GRID], c):
            return SCORE_BASE + c
    if step < row[O_NMOVES]:
        p = lo & row[O_D_LO]
        if p:
            return DISCARD_BASE + trailing_zeros(p)
        p = hi & row[O_D_HI]
        if p:
            return DISCARD_BASE + HALF + trailing_zeros(p)
        return np.int64(-1)
    row[O_ACTIVE] = 0
    return np.int64(END)


def planner_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    row = imem[seat]
    if view[PLAYERS] != 1 or params[OPT_HAND_SIZE] > 4:
        return _greedy(view, params, seat, row)
    frow = fmem[seat]
    exact = np.int64(bot_params[seat, P_EXACT])
    budget = np.int64(bot_params[seat, P_BUDGET] * 1e6)
    if view[TURNS] == 0 and view[TURN_ACTIONS] == 0 and view[PENDING] < 0:
        # a new game: forget the last one's cards and plan
        row[O_SEEN_LO] = 0
        row[O_SEEN_HI] = 0
        row[O_ACTIVE] = 0
        row[O_UNIV_N] = 0
    # the cards seen: the hand, the discard pile, the scored cards
    slo = row[O_SEEN_LO] | view[HAND_LO + seat] | view[DISCARD_LO]
    shi = row[O_SEEN_HI] | view[HAND_HI + seat] | view[DISCARD_HI]
    for c in range(NUM_CARDS):
        if view[SCORED_BY + c] >= 0:
            if c < HALF:
                slo |= np.int64(1) << c
            else:
                shi |= np.int64(1) << (c - HALF)
    row[O_SEEN_LO] = slo
    row[O_SEEN_HI] = shi
    if row[O_ACTIVE] == 1:
        a = _play_plan(view, params, seat, row)
        if a >= 0:
            return a
        row[O_ACTIVE] = 0
    if view[PENDING] < 0 and view[TURN_ACTIONS] == 0 and exact > 0:
        if _plan_turn(view, params, seat, row, frow, exact, budget):
            a = _play_plan(view, params, seat, row)
            if a >= 0:
                return a
            row[O_ACTIVE] = 0
    return _greedy(view, params, seat, row)


HELPERS = (_greedy, _local, _global, _plan_turn, _play_plan)
JIT_OPTIONS = {"planner_policy": {"_nrt": True}}
