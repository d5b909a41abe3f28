"""Exact search of the solo Shifting Stones endgame over a small set of known cards.

The cards still to score (``R``, at most ``UMAX`` of them) are numbered locally 0..U-1
through ``cards`` (local -> global card index); every set here is a U-bit mask.  A
position at a turn's start is (grid ``g``, hand ``H``, draw pile ``P``, discard pile
``X``, strikes left ``sl``) with R = H | P | X; ``sl`` counts the strikes the player may
still take plus one (a strike with sl = 1 loses).

A turn is a path of moves g = g0 -> g1 -> ... -> gd (each move paid by a hand card) and a
set S of hand cards scored along it (each at a grid of the path where it matches; scoring
leaves the grid alone, so the order within the turn is free).  It is legal when the
payers D (d cards of H - S) exist: d <= |H| - |S|.  S empty is a strike.  The turn ends at
gd; the hand keeps K = H - S - D and refills to ``hs`` cards: first from P (a uniformly
random subset: the pile's order is unknown to the player), then, when P runs out, from
X | D reshuffled.  When |R - S| <= hs the refill draws every card left, so the rest of
the game is deterministic and depends on (gd, R - S, sl) only.

``value`` is the exact win probability of the best play from such a position (the
chance is the draw, averaged exactly; skips and the round cap are not considered: a skip
is a strike that moves nothing, and no endgame comes near 200 turns).  It memoises
positions in a direct-mapped table (``tk`` keys, ``tv`` values) and merges paths that
reach the same grid with the same moves spent and the same cards matched on the way
(``seen``, stamped per turn search).  ``node_budget`` bounds the paths tried in one call
(0: none); when it runs out the result is a lower bound and ``work[W_ABORT]`` is set.

At ``lvl`` 0 the best turn found is written to the plan (``work[WORK_SIZE:]``): moves, S
and D.  ``work[W_MODE]`` = 1 is the bound mode of ``tools/solo_bound.py``: every draw is
chosen rather than averaged and a skip (a strike drawing ``skip_draw`` cards) is tried
when cards are outside the hand, so its value is 1 whenever any play, even one knowing the
deck, can win.  ``work[W_SDEPTH]`` caps the moves of a strike turn (default: none).
"""
import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.games.shifting_stones import MOVES, OPT_SKIP_DRAW, card_matches
from simcore.rng import popcount

from .grid import do_move

UMAX = 8  # cards in a universe (bits of the local masks)
MAXD = 6  # moves in one turn's path (a hand of 6 after a skip)
LEVELS = 24  # turns deep (cards + strikes)
# work: per level, the path's grids, matched sets and next moves; then counters
W_LEVEL = 3 * (MAXD + 1)
W_STAMP = LEVELS * W_LEVEL
W_NODES = W_STAMP + 1
W_ABORT = W_NODES + 1
W_BUDGET = W_ABORT + 1
W_SDEPTH = W_BUDGET + 1  # moves in a strike turn's path (at most)
W_MODE = W_SDEPTH + 1  # 0: the draw averaged (a player); 1: the draw chosen, skips too (a bound)
WORK_SIZE = W_MODE + 1
# plan: [d, S, D, value * 1e6, moves...]
PLAN_D = 0
PLAN_S = 1
PLAN_DSET = 2
PLAN_VALUE = 3
PLAN_MOVES = 4
PLAN_SIZE = PLAN_MOVES + MAXD

kernel = njit(cache=True)


@kernel
def matchset(params, cards, g, hand):
    """The cards of ``hand`` (a local mask) that match ``g``."""
    out = np.int64(0)
    m = hand
    while m:
        i = trailing_zeros(m)
        m &= m - 1
        if card_matches(params, g, cards[i]):
            out |= np.int64(1) << i
    return out


@kernel
def _slot(key, mask):
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(40)) & mask


@kernel
def _choose_low(m, k):
    """The k lowest bits of m."""
    out = np.int64(0)
    for _ in range(k):
        b = m & -m
        out |= b
        m &= m - 1
    return out


@kernel
def _write_plan(d, S, D, v, work, path):
    work[WORK_SIZE + PLAN_D] = d
    work[WORK_SIZE + PLAN_S] = S
    work[WORK_SIZE + PLAN_DSET] = D
    work[WORK_SIZE + PLAN_VALUE] = np.int64(v * 1e6 + 0.5)
    for i in range(d):
        work[WORK_SIZE + PLAN_MOVES + i] = work[path + i]


@kernel
def value(params, cards, hs, g, H, P, X, sl, maxd, tk, tv, seen, work, lvl):
    """The win probability of the best play from the turn-start position (g, H, P, X, sl)
    (module docstring); at lvl 0 the best turn goes to the plan.  One self-recursive
    function (Numba links mutual recursion badly): the walk over the turn's paths, the
    leaves (S, then the payers D when they matter) and the refill's average."""
    R = H | P | X
    if R == 0:
        return 1.0
    if sl & 63 <= 0:
        return 0.0
    if popcount(R) <= hs:  # every card is drawn: the piles do not matter (a skip is a strike
        # that moves nothing: no better than ending the turn at once)
        sl = sl & 63
        H = R
        P = np.int64(0)
        X = np.int64(0)
    bound = work[W_MODE] == 1
    # a bound's position after a skip may not skip again (bit 62 of the key)
    noskip = sl >= 64
    sl = sl & 63
    key = (g | (H << 27) | (P << 35) | (X << 43) | (sl << 51) | (np.int64(noskip) << 62)) + 1
    tmask = tk.shape[0] - 1
    slot = _slot(key, tmask)
    if lvl > 0 and tk[slot] == key:
        return tv[slot]
    base = lvl * W_LEVEL
    grids = base
    ms = base + (MAXD + 1)
    mv = base + 2 * (MAXD + 1)
    nh = popcount(H)
    smask = (seen.shape[0] >> 1) - 1
    best = -1.0
    done = False
    # two walks: the turns that score (at most nh - 1 moves), then the strikes (nh moves,
    # allowed with sl >= 2), so that a win without a strike is found first
    for pas in range(2):
        if pas == 1 and (sl < 2 or done or work[W_ABORT] != 0):
            break
        depth = min(maxd, nh - 1) if pas == 0 else min(maxd, nh, work[W_SDEPTH])
        work[W_STAMP] += 1
        stamp = work[W_STAMP]
        d = 0
        work[grids] = g
        work[ms] = matchset(params, cards, g, H)
        work[mv] = -1  # the next move to try from node 0 (-1: the leaves first)
        while d >= 0 and not done:
            if work[mv + d] < 0:
                # the leaves at this node: end the turn here with S scored
                gd = work[grids + d]
                M = work[ms + d]
                work[W_NODES] += 1
                if work[W_BUDGET] > 0 and work[W_NODES] > work[W_BUDGET]:
                    work[W_ABORT] = 1
                sub = M if pas == 0 else np.int64(0)
                last = pas == 1  # the strike: S empty
                while sub or last:
                    S = sub
                    if sub == 0:
                        last = False
                    else:
                        sub = (sub - 1) & M
                    if S != 0 and d > nh - popcount(S):
                        continue
                    R2 = R & ~S
                    sl2 = sl if S != 0 else sl - 1
                    free = H & ~S
                    if R2 == 0 or popcount(R2) <= hs:
                        v = 1.0 if R2 == 0 else value(params, cards, hs, gd, R2, np.int64(0), np.int64(0), sl2, maxd,
                                                      tk, tv, seen, work, lvl + 1)
                        if v > best + 1e-12:
                            best = v
                            if lvl == 0:
                                _write_plan(d, S, _choose_low(free, d), v, work, mv)
                    else:
                        q = free
                        while True:  # the payers: every subset of the free cards of size d
                            if popcount(q) == d:
                                K = free & ~q
                                need = hs - popcount(K)
                                total = 0.0
                                count = 0
                                if need <= 0:
                                    total = value(params, cards, hs, gd, K, P, X | q, sl2, maxd, tk, tv, seen, work,
                                                  lvl + 1)
                                    count = 1
                                elif popcount(P) >= need:
                                    r = P
                                    while True:  # the draw: every subset of P of size need, equally likely
                                        if popcount(r) == need:
                                            total += value(params, cards, hs, gd, K | r, P & ~r, X | q, sl2, maxd, tk,
                                                           tv, seen, work, lvl + 1)
                                            count += 1
                                        if r == 0:
                                            break
                                        r = (r - 1) & P
                                else:  # the pile runs out: all of it, then from the reshuffled discard
                                    Y = X | q
                                    need2 = min(need - popcount(P), popcount(Y))
                                    r = Y
                                    while True:
                                        if popcount(r) == need2:
                                            total += value(params, cards, hs, gd, K | P | r, Y & ~r, np.int64(0), sl2,
                                                           maxd, tk, tv, seen, work, lvl + 1)
                                            count += 1
                                        if r == 0:
                                            break
                                        r = (r - 1) & Y
                                v = total / count
                                if v > best + 1e-12:
                                    best = v
                                    if lvl == 0:
                                        _write_plan(d, S, q, v, work, mv)
                                if best >= 1.0 - 1e-12:
                                    break
                            if q == 0:
                                break
                            q = (q - 1) & free
                    if best >= 1.0 - 1e-12:
                        done = True
                        break
                if done or work[W_ABORT] != 0:
                    break
                work[mv + d] = 0
            m = work[mv + d]
            if d >= depth or m >= MOVES:
                d -= 1
                if d >= 0:
                    work[mv + d] += 1
                continue
            if d > 0 and m == work[mv + d - 1]:
                work[mv + d] += 1  # a move undoing the last one (every move is its own inverse)
                continue
            g2 = do_move(work[grids + d], m)
            M2 = work[ms + d] | matchset(params, cards, g2, H)
            # a path to the same grid with the same moves spent and cards matched is the same
            k = (g2 | ((d + 1) << 27) | (M2 << 31) | (lvl << 40)) + 1
            s = _slot(k, smask)
            if seen[2 * s] == k and seen[2 * s + 1] == stamp:
                work[mv + d] += 1
                continue
            seen[2 * s] = k
            seen[2 * s + 1] = stamp
            work[grids + d + 1] = g2
            work[ms + d + 1] = M2
            work[mv + d + 1] = -1
            d += 1
    if bound and not noskip and not done and sl >= 2 and (P | X) != 0 and work[W_ABORT] == 0:
        # a skip: a strike that draws skip_draw (2) cards; chosen, not averaged
        need = params[OPT_SKIP_DRAW]
        if popcount(P) >= need:
            r = P
            while True:
                if popcount(r) == need:
                    best = max(best, value(params, cards, hs, g, H | r, P & ~r, X, (sl - 1) | 64, maxd, tk, tv,
                                           seen, work, lvl + 1))
                if r == 0 or best >= 1.0 - 1e-12:
                    break
                r = (r - 1) & P
        else:
            need2 = min(need - popcount(P), popcount(X))
            r = X
            while True:
                if popcount(r) == need2:
                    best = max(best, value(params, cards, hs, g, H | P | r, X & ~r, np.int64(0), (sl - 1) | 64,
                                           maxd, tk, tv, seen, work, lvl + 1))
                if r == 0 or best >= 1.0 - 1e-12:
                    break
                r = (r - 1) & X
    best = max(best, 0.0)
    if work[W_ABORT] == 0:
        tk[slot] = key
        tv[slot] = best
    return best


@kernel
def clear_tables(tk, seen):
    for i in range(tk.shape[0]):
        tk[i] = 0
    for i in range(seen.shape[0]):
        seen[i] = 0


@kernel
def solve(params, cards, hs, g, H, P, X, sl, maxd, tk, tv, seen, work, budget, sdepth=MAXD, mode=0):
    """``value`` at the root (lvl 0): the win probability, the plan in
    work[WORK_SIZE:WORK_SIZE + PLAN_SIZE] (plan[PLAN_D] = -1 if no turn was found)."""
    work[W_NODES] = 0
    work[W_ABORT] = 0
    work[W_BUDGET] = budget
    work[W_SDEPTH] = sdepth
    work[W_MODE] = mode
    work[WORK_SIZE + PLAN_D] = -1
    return value(params, cards, hs, g, H, P, X, sl, maxd, tk, tv, seen, work, np.int64(0))
