"""The plain search of the greedy bot: every sequence of 1..depth moves tried grid by
grid (the last move from each placement's completions).  It plays depth 1 and 3 and hands
too large for the list in scratch, and it is the oracle the list search is tested
against (``tests/test_shifting_stones_bots.py``): keep it simple.
"""
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.games.shifting_stones import HALF, MOVES, P_POINTS

from .grid import ALL_MOVES, EPS, MATCHED, NO_VALUE, NONE, completions, do_move, kernel
from .scratch import ACC

@kernel
def hand_pass(params, grid, lo, hi, acc):
    """One pass over the hand (lo, hi) at ``grid``: returns (points, count, mlo, mhi, moves)
    of the cards that match now, and adds (points << 8) + 1 of every other card to acc[m]
    for each move m that would complete it (``moves``: the moves touched; ``take_best_last_move``
    clears them)."""
    pts = np.int64(0)
    n = np.int64(0)
    mlo = np.int64(0)
    mhi = np.int64(0)
    touched = np.int64(0)
    for word in range(2):
        m = lo if word == 0 else hi
        base = 0 if word == 0 else HALF
        while m:
            c = base + trailing_zeros(m)
            m &= m - 1
            comp = completions(params, grid, c)
            p = params[P_POINTS + c]
            if comp == MATCHED:
                pts += p
                n += 1
                if word == 0:
                    mlo |= np.int64(1) << (c - base)
                else:
                    mhi |= np.int64(1) << (c - base)
            else:
                touched |= comp
                add = (p << 8) | 1
                while comp:
                    acc[ACC + trailing_zeros(comp)] += add
                    comp &= comp - 1
    return pts, n, mlo, mhi, touched


@kernel
def take_best_last_move(acc, touched, limit, cost):
    """The best last move among ``touched`` (points - cost, completing at most ``limit``
    cards; ties: lowest move) and clear the accumulators.  (NO_VALUE, -1) if none."""
    best = NO_VALUE
    best_m = -1
    while touched:
        m = trailing_zeros(touched)
        touched &= touched - 1
        a = acc[ACC + m]
        acc[ACC + m] = 0
        if a & 255 <= limit:
            v = (a >> 8) - cost
            if v > best + EPS:
                best = v
                best_m = m
    return best, best_m


@kernel
def _level1(params, grid, lo, hi, spare, cost, acc):
    """Best single move from ``grid`` (value, move): the points it completes minus ``cost``;
    ``spare``: cards that may still leave the hand, the move's own card included.  If no
    move completes anything: (-cost, the lowest move that completes nothing)."""
    _, _, _, _, touched = hand_pass(params, grid, lo, hi, acc)
    best, best_m = take_best_last_move(acc, touched, spare - 1, cost)
    if best_m < 0:
        idle = ~touched & ALL_MOVES
        return -cost, trailing_zeros(idle) if idle else 0
    return best, best_m


@kernel
def _level2(params, grid, lo, hi, spare, cost, cv, acc):
    """Best sequence of one or two moves (value, first move); the first costs ``cost``,
    the second ``cv``."""
    best = NO_VALUE
    best_m = -1
    for m1 in range(MOVES):
        g1 = do_move(grid, m1)
        pts, n, _, _, touched = hand_pass(params, g1, lo, hi, acc)
        left = spare - 1 - n  # cards left that may pay for or be scored by the second move
        tail, _ = take_best_last_move(acc, touched, left - 1, cv)
        if left < 0:
            continue
        v = pts - cost
        if tail > 0.0:
            v += tail
        if v > best + EPS:
            best = v
            best_m = m1
    return best, best_m


@kernel
def _level3(params, grid, lo, hi, spare, cost, cv, acc):
    best = NO_VALUE
    best_m = -1
    for m1 in range(MOVES):
        g1 = do_move(grid, m1)
        pts, n, mlo, mhi, touched = hand_pass(params, g1, lo, hi, acc)
        take_best_last_move(acc, touched, NONE, 0.0)  # only clears
        left = spare - 1 - n
        if left < 0:
            continue
        v = pts - cost
        if left > 1:
            tail, _ = _level2(params, g1, lo & ~mlo, hi & ~mhi, left, cv, cv, acc)
            if tail > 0.0:
                v += tail
        if v > best + EPS:
            best = v
            best_m = m1
    return best, best_m


@kernel
def search(params, grid, lo, hi, spare, depth, cost, cv, acc):
    """Best sequence of 1..depth moves from ``grid`` with hand (lo, hi): (value, first
    move).  The first move costs ``cost``, later ones ``cv``; a plan may spend or score at
    most ``spare`` cards in all (its moves' cards included).  A plan of k moves scores
    nothing unless spare > k, so the depth is cut to spare - 1 (same result, less work)."""
    for m in range(MOVES):  # the accumulators (the list search overwrites them)
        acc[ACC + m] = 0
    depth = max(1, min(depth, spare - 1))
    if depth == 1:
        return _level1(params, grid, lo, hi, spare, cost, acc)
    if depth == 2:
        return _level2(params, grid, lo, hi, spare, cost, cv, acc)
    return _level3(params, grid, lo, hi, spare, cost, cv, acc)


