"""The greedy bot's decision (``greedy``), its parameters and its memos in scratch.

A turn's first search that finds nothing paying is remembered with its state (FC_*):
in the solo game a turn that ended without acting is followed by one from the same grid
and hand (about 20% of solo first decisions), and the answer is the same.

Information: the bot reads its own hand, the grid, PENDING, TURN_ACTIONS and whether it
may skip; never another hand or the draw pile.  It draws no random numbers (ties go to
the lowest index), so it is deterministic for a seed whatever the seat's RNG stream.
"""
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from bots.registry import BotParam, BotSpec
from simcore.bits import float_bits
from simcore.games.shifting_stones import (DISCARD_BASE, END, GRID, HALF, HAND_HI, HAND_LO, HAND_N, PENDING,
                                           SCORE_BASE, SKIP, TURN_ACTIONS, card_matches, may_skip)

from .grid import EPS, NO, ONE, TIE, YES, do_move, kernel, without
from .listsearch import best_single_move, level2_over_list, build_list, plan
from .payer import paying_card, paying_card_over_list, paying_card_single
from .plain import search
from .scratch import (FC_BOT, FC_CV, FC_GRID, FC_HI, FC_LO, FC_SEAT, MC_GRID, MC_KNOWN_HI, MC_KNOWN_LO,
                      MC_MATCH_HI, MC_MATCH_LO, NX_GRID, NX_HI, NX_KEEP_HI, NX_KEEP_LO, NX_LO, NX_MOVE,
                      NX_PAY, NX_SEAT, PLAN_CARD, PLAN_GRID, PLAN_HI, PLAN_LO, PLAN_MOVE, PLAN_SEAT,
                      SCRATCH_SIZE)


# bot parameter slots (bot_params[seat, i])
P_DEPTH = 0
P_CARD_VALUE = 1
P_SKIP_THRESHOLD = 2
P_REPLAN = 3

GREEDY_PARAMS = (
    BotParam("depth", 2, 0, 3, "moves searched ahead (0: only scores, never shifts or flips)", integer=True),
    BotParam("card_value", 0.25, 0.0, 3.0,
             "points a card in hand is worth when spent on a move (below 0.5, depth 2 plays the "
             "same: points first, then fewer cards)"),
    BotParam("skip_threshold", 0.0, 0.0, 10.0,
             "skip (when legal) unless the best plan is worth more than this many points"),
    BotParam("replan", 0, 0, 1,
             "after the turn's first move: 0 takes a single move that pays without searching "
             "deeper, 1 searches the full depth at every step", integer=True),
)


def greedy_memory(info, players, values):
    return SCRATCH_SIZE, 0


GREEDY_SPEC = BotSpec("greedy",
                 "scores every matching card, then plays the first move of the sequence of up to "
                 "`depth` shifts/flips that scores most (points minus card_value per card spent); "
                 "skips when nothing pays and a skip is legal", GREEDY_PARAMS, memory=greedy_memory)


@kernel
def _remember(s, seat, grid, lo, hi, c, m1, m2, known):
    """Discard card c to play m1 next.  Keeps the move for the decision that follows
    (PLAN); when ``known``, which cards match after the move (the payer left them in
    MC_MATCH_*); and when the plan has a second move m2, the state expected then (NX_*;
    the payer left the cards m2 completes in NX_KEEP_*).  Each is what a search at that
    state would find again (m2 is the best single move there: the cards the plan scores
    are gone and every other move can only have lost value), and depends only on the
    bot's own hand and the grid."""
    lo2, hi2 = without(lo, hi, c)
    s[PLAN_SEAT] = seat
    s[PLAN_GRID] = grid
    s[PLAN_CARD] = c
    s[PLAN_LO] = lo2
    s[PLAN_HI] = hi2
    s[PLAN_MOVE] = m1
    g1 = do_move(grid, m1)
    s[MC_GRID] = g1 if known else -1
    s[MC_KNOWN_LO] = lo2
    s[MC_KNOWN_HI] = hi2
    if m2 >= 0:
        s[NX_SEAT] = seat
        s[NX_GRID] = g1
        s[NX_LO] = lo2 & ~s[MC_MATCH_LO]
        s[NX_HI] = hi2 & ~s[MC_MATCH_HI]
        s[NX_MOVE] = m2
    return DISCARD_BASE + c


@kernel
def greedy(state, params, seat, depth, card_value, skip_threshold, replan, scratch):
    """The greedy action of ``seat`` (see the package docstring)."""
    cv = card_value + TIE  # every move costs a little: of two plans scoring as much, the shorter
    grid = state[GRID]
    lo = state[HAND_LO + seat]
    hi = state[HAND_HI + seat]
    pending = state[PENDING]
    if pending >= 0:
        # the card is spent: make the planned move (remembered, or searched again)
        if (scratch[PLAN_SEAT] == seat and scratch[PLAN_GRID] == grid and scratch[PLAN_CARD] == pending
                and scratch[PLAN_LO] == lo and scratch[PLAN_HI] == hi):
            return scratch[PLAN_MOVE]
        spare = state[HAND_N + seat] + 1
        if replan == 0 and state[TURN_ACTIONS] > 1 and min(depth, spare - 1) >= 2:
            # as the discard was decided: a single move that pays first
            v, m = search(params, grid, lo, hi, spare, ONE, 0.0, cv, scratch)
            if v > EPS:
                return m
        _, m, _ = plan(params, grid, lo, hi, spare, depth, 0.0, cv, scratch)
        return m
    # score whatever matches (after its own move the bot knows which cards do)
    if (scratch[MC_GRID] == grid and lo & ~scratch[MC_KNOWN_LO] == 0
            and hi & ~scratch[MC_KNOWN_HI] == 0):
        m = lo & scratch[MC_MATCH_LO]
        if m:
            return SCORE_BASE + trailing_zeros(m)
        m = hi & scratch[MC_MATCH_HI]
        if m:
            return SCORE_BASE + HALF + trailing_zeros(m)
    else:
        for word in range(2):
            m = lo if word == 0 else hi
            base = 0 if word == 0 else HALF
            while m:
                c = base + trailing_zeros(m)
                m &= m - 1
                if card_matches(params, grid, c):
                    return SCORE_BASE + c
    h = state[HAND_N + seat]
    can_skip = may_skip(state, seat)
    best = 0.0
    m1 = -1
    mode = 0  # how the plan was found: 0 plain search (depth d), 1 single move, 2 depth-2 list
    d = min(depth, h - 1)  # a plan of k moves scores nothing unless a card is left after them
    quick = d >= 2 and replan == 0 and state[TURN_ACTIONS] > 0
    if ((quick or d == 1) and scratch[NX_SEAT] == seat and scratch[NX_GRID] == grid
            and scratch[NX_LO] == lo and scratch[NX_HI] == hi):
        # the second move of the plan found at the last discard: it is the best single
        # move here (see _remember)
        m1 = scratch[NX_MOVE]
        c = scratch[NX_PAY]  # chosen with the plan (see paying_card_over_list)
        scratch[MC_MATCH_LO] = scratch[NX_KEEP_LO]
        scratch[MC_MATCH_HI] = scratch[NX_KEEP_HI]
        scratch[NX_SEAT] = -1
        return _remember(scratch, seat, grid, lo, hi, c, m1, np.int64(-1), YES)
    first = state[TURN_ACTIONS] == 0 and d >= 1
    bot = h | (depth << 8)
    cv_bits = float_bits(card_value)
    if (first and scratch[FC_SEAT] == seat and scratch[FC_GRID] == grid and scratch[FC_LO] == lo
            and scratch[FC_HI] == hi and scratch[FC_BOT] == bot and scratch[FC_CV] == cv_bits):
        # the search of this state found nothing paying (solo: a turn after one that ended
        # without acting starts from the same grid and hand)
        return SKIP if can_skip else END
    slots = -1
    rows = np.int64(0)
    if d == 2:
        # the quick look needs only the completions; the full search the new rows too
        slots, rows = build_list(params, grid, lo, hi, scratch, not quick, NO)
    if slots >= 0:
        if quick:
            best, m1 = best_single_move(scratch, h, cv)
            mode = 1
            if best <= EPS:  # the same list, now with the rows
                slots, rows = build_list(params, grid, lo, hi, scratch, YES, YES)
        if mode == 0 or best <= EPS:
            best, m1 = level2_over_list(params, grid, slots, rows, h, cv, cv, scratch)
            mode = 2
    elif d >= 1:
        if quick:
            best, m1 = search(params, grid, lo, hi, h, ONE, cv, cv, scratch)
            if best > EPS:
                d = 1
        if not quick or d > 1:
            best, m1 = search(params, grid, lo, hi, h, d, cv, cv, scratch)
    if m1 >= 0 and best > EPS and not (can_skip and best <= skip_threshold + EPS):
        m2 = np.int64(-1)
        if mode == 1:
            c = paying_card_single(params, grid, lo, hi, m1, slots, scratch)
        elif mode == 2:
            c, m2 = paying_card_over_list(params, grid, lo, hi, m1, slots, h, cv, scratch)
        else:
            c = paying_card(params, grid, lo, hi, m1, d, cv, scratch)
        return _remember(scratch, seat, grid, lo, hi, c, m1, m2, mode != 0)
    if first and not (m1 >= 0 and best > EPS):
        scratch[FC_SEAT] = seat
        scratch[FC_GRID] = grid
        scratch[FC_LO] = lo
        scratch[FC_HI] = hi
        scratch[FC_BOT] = bot
        scratch[FC_CV] = cv_bits
    if can_skip:
        return SKIP
    return END


def greedy_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    """``greedy`` on the seat's view.  Its scratch is its seat's row of ``imem`` (its plans
    are its own; compiled without reference counting, the row view costs nothing)."""
    return greedy(view, params, seat, np.int64(bot_params[seat, P_DEPTH]), bot_params[seat, P_CARD_VALUE],
                  bot_params[seat, P_SKIP_THRESHOLD], np.int64(bot_params[seat, P_REPLAN]), imem[seat])
