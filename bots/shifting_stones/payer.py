"""The payer: which card pays for the move a plan makes first.  Among the cards the plan does not score, the one farthest from matching
the grid the plan leads to (most wrong cells in its best placement), then the one worth
most points (the hardest to score), then the lowest id.

``paying_card_over_list`` and ``paying_card_single`` read what the list search left in scratch (the plan's
changed cards and second move); ``paying_card`` follows a plain-search plan move by move.
"""
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.games.shifting_stones import HALF, MOVES, P_PL_MASK, P_PL_START, P_PL_VALUE, P_POINTS, card_matches
from simcore.rng import popcount

from .grid import CELLBITS, MATCHED, NONE, do_move, kernel
from .listsearch import best_second_move, cards_after_move
from .plain import take_best_last_move, hand_pass, search
from .scratch import (ACC, BASE, BEST_CHANGED, BEST_COMPS, BEST_M2, CARD_W, MC_MATCH_HI, MC_MATCH_LO,
                      NX_KEEP_HI, NX_KEEP_LO, NX_PAY)


@kernel
def paying_card_over_list(params, grid, lo, hi, m1, slots, spare, cv, s):
    """``paying_card`` for a depth-2 plan found over the list (which is still in scratch, with
    the best move's changed cards and second move)."""
    changed = s[BEST_CHANGED]
    if changed < 0:  # too many to keep: work them out again
        _, n, changed = cards_after_move(params, grid, m1, slots, s)
        tail, m2, over = best_second_move(s, changed, spare - 2 - n, cv)
        if tail <= 0.0:
            m2 = -1
    else:
        m2 = s[BEST_M2] & 255
        over = s[BEST_M2] > 255
        if m2 == 255:
            m2 = -1
        j = 0
        ch = changed
        while ch:
            s[BASE + CARD_W * trailing_zeros(ch) + 2] = s[BEST_COMPS + j]
            ch &= ch - 1
            j += 1
    g = do_move(grid, m1)
    # the cards matching after m1, and those m2 then completes (kept in the memo)
    match_lo = np.int64(0)
    match_hi = np.int64(0)
    next_lo = np.int64(0)
    next_hi = np.int64(0)
    for k in range(slots):
        c = s[BASE + CARD_W * k] & 255
        comp = s[BASE + CARD_W * k + 2] if (changed >> k) & 1 else s[BASE + CARD_W * k + 1]
        bit = np.int64(1) << (c if c < HALF else c - HALF)
        if comp == MATCHED:
            if c < HALF:
                match_lo |= bit
            else:
                match_hi |= bit
        elif m2 >= 0 and (comp >> m2) & 1:
            if c < HALF:
                next_lo |= bit
            else:
                next_hi |= bit
    s[MC_MATCH_LO] = match_lo
    s[MC_MATCH_HI] = match_hi
    s[NX_KEEP_LO] = next_lo
    s[NX_KEEP_HI] = next_hi
    keep_lo = match_lo | next_lo
    keep_hi = match_hi | next_hi
    if m2 >= 0:
        g = do_move(g, m2)
    # m2 is the best single move after m1 unless a move was ruled out for completing too
    # many cards (without the payer it may not be)
    if over:
        m2 = -1
    pay, pay2 = _fodder2(params, g, lo & ~keep_lo, hi & ~keep_hi)
    if m2 >= 0:
        # the card to pay for m2 (NX_*): then _fodder looks at the same grid and the same
        # cards less the one paying now, so it picks the second choice now
        s[NX_PAY] = pay2
    return pay, m2


@kernel
def paying_card_single(params, grid, lo, hi, m1, slots, s):
    """``paying_card`` for a single move found from ``build_list``'s list."""
    keep_lo = np.int64(0)
    keep_hi = np.int64(0)
    for k in range(slots):
        if (s[BASE + CARD_W * k + 1] >> m1) & 1:
            c = s[BASE + CARD_W * k] & 255
            if c < HALF:
                keep_lo |= np.int64(1) << c
            else:
                keep_hi |= np.int64(1) << (c - HALF)
    s[MC_MATCH_LO] = keep_lo
    s[MC_MATCH_HI] = keep_hi
    return _fodder(params, do_move(grid, m1), lo & ~keep_lo, hi & ~keep_hi)


# ---- which card pays ------------------------------------------------------------------------------
@kernel  # called per card: the call cost about as much as its loop
def _far(params, grid, c):
    """Wrong cells of card c's best placement at ``grid``."""
    best = 9
    for i in range(params[P_PL_START + c], params[P_PL_START + c + 1]):
        x_bits = (grid ^ params[P_PL_VALUE + i]) & params[P_PL_MASK + i]
        w = popcount((x_bits | (x_bits >> 1) | (x_bits >> 2)) & CELLBITS)
        if w < best:
            best = w
    return best


@kernel
def _fodder2(params, grid, lo, hi):
    """``_fodder``'s first and second choices (-1 where there is none): in one pass over
    the cards in id order, a key must beat the best (then the second) strictly, so ties
    go to the lowest id."""
    pay = -1
    best = -1
    pay2 = -1
    best2 = -1
    for word in range(2):
        m = lo if word == 0 else hi
        base = 0 if word == 0 else HALF
        while m:
            c = base + trailing_zeros(m)
            m &= m - 1
            key = _far(params, grid, c) * 16 + params[P_POINTS + c]
            if key > best:
                best2 = best
                pay2 = pay
                best = key
                pay = c
            elif key > best2:
                best2 = key
                pay2 = c
    return pay, pay2


@kernel
def _fodder(params, grid, lo, hi):
    """Among the cards (lo, hi): the farthest from matching ``grid``, then the one worth
    most points (the hardest to score), then the lowest id."""
    return _fodder2(params, grid, lo, hi)[0]


@kernel
def paying_card(params, grid, lo, hi, m1, depth, cv, s):
    """The card that pays for ``m1``, the first move of the best plan from ``grid``: follow
    the plan, then pick among the cards it does not score."""
    g = do_move(grid, m1)
    if depth <= 1 or popcount(lo) + popcount(hi) <= 2:
        # one move: keep what it completes
        keep_lo = np.int64(0)
        keep_hi = np.int64(0)
        for word in range(2):
            m = lo if word == 0 else hi
            base = 0 if word == 0 else HALF
            while m:
                c = base + trailing_zeros(m)
                m &= m - 1
                if card_matches(params, g, c):
                    if word == 0:
                        keep_lo |= np.int64(1) << c
                    else:
                        keep_hi |= np.int64(1) << (c - HALF)
        return _fodder(params, g, lo & ~keep_lo, hi & ~keep_hi)
    for m in range(MOVES):
        s[ACC + m] = 0
    spare = popcount(lo) + popcount(hi)
    keep_lo = np.int64(0)
    keep_hi = np.int64(0)
    rest_lo = lo
    rest_hi = hi
    left = depth
    while True:
        _, n, mlo, mhi, touched = hand_pass(params, g, rest_lo, rest_hi, s)
        take_best_last_move(s, touched, NONE, 0.0)  # only clears
        keep_lo |= mlo
        keep_hi |= mhi
        rest_lo &= ~mlo
        rest_hi &= ~mhi
        spare -= 1 + n
        left -= 1
        if left <= 0 or spare <= 1:
            break
        v, m = search(params, g, rest_lo, rest_hi, spare, left, cv, cv, s)
        if v <= 0.0:
            break
        g = do_move(g, m)
    return _fodder(params, g, lo & ~keep_lo, hi & ~keep_hi)


