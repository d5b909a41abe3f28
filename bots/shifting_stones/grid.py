"""The grid layer of the Shifting Stones bots: move tables, a move applied to a grid, and
which single moves complete a placement (``analyse``), the kernel every search builds on.

Cells are 3-bit fields of the grid (cell 0 lowest); a move m < 12 swaps pair m, else
flips cell m - 12.  ``kernel`` is how every kernel of the package is compiled.
"""
import functools

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.bits import compress3
from simcore.games.shifting_stones import FLIP_BASE, HALF, MOVES, P_PL_MASK, P_PL_START, P_PL_VALUE, PAIR_A, PAIR_B, PAIRS, flip_cell, swap_cells

# The bot never allocates, so it is compiled without Numba's reference counting: each call
# between its kernels then passes the arrays without atomic increments and decrements
# (measured: about 7% of a greedy decision).
kernel = functools.partial(njit, cache=True, _nrt=False)
# Constants passed between the kernels go as typed values, never as literals: Numba compiles a
# separate copy of a callee for each literal argument (``f(x, True)`` and ``f(x, flag)`` are
# two compilations), which tripled the cold compile of ``build_list``.
YES = np.bool_(True)
NO = np.bool_(False)
ONE = np.int64(1)
NONE = np.int64(-1)

EPS = 1e-9
TIE = 1e-6  # added to card_value: a longer plan must score more, not as much
NO_VALUE = -1e18

# ---- grid tables ---------------------------------------------------------------------------
# Cells are 3-bit fields of the grid; "cell sets" are 9-bit (bit x) unless named *27 (bit 3x).
# Index 9 is a dummy cell with no neighbours (what a lookup of "no cell" lands on).
ALL_MOVES = np.int64((1 << MOVES) - 1)
CELLBITS = np.int64(sum(1 << (3 * x) for x in range(9)))  # the lowest bit of every cell
BIT27 = np.int64(1 << 27)
CELL_OF_BIT = np.array([b // 3 for b in range(27)] + [9], dtype=np.int64)  # bit 27: no cell
REP = np.array([sum(f << (3 * x) for x in range(9)) for f in range(8)], dtype=np.int64)
PAD = 61  # a bit above every move, masked off


def _neighbour_tables():
    nb3 = np.full((10, 4), 60, dtype=np.int64)  # 3 * neighbour (60: a bit that is never set)
    pair = np.full((10, 4), PAD, dtype=np.int64)  # the pair (move) of the cell and that neighbour
    pair_of = np.full((10, 10), PAD, dtype=np.int64)
    neigh27 = np.zeros(10, dtype=np.int64)
    neigh9 = np.zeros(10, dtype=np.int64)
    n = [0] * 10
    for p, (a, b) in enumerate(PAIRS):
        for x, y in ((a, b), (b, a)):
            nb3[x, n[x]] = 3 * y
            pair[x, n[x]] = p
            n[x] += 1
            pair_of[x, y] = p
            neigh27[x] |= 1 << (3 * y)
            neigh9[x] |= 1 << y
    return nb3, pair, pair_of, neigh27, neigh9


NB3, NB_PAIR, PAIR_OF, NEIGH27, NEIGH9 = _neighbour_tables()
# the neighbours of each cell, padded with the dummy cell 9
NB = np.where(NB3 == 60, 9, NB3 // 3).astype(np.int64)
# the shifts (pairs) of each cell, none for the dummy cell 9
SHIFTS_OF = np.array([sum(1 << p for p, (a, b) in enumerate(PAIRS) if x in (a, b)) for x in range(10)],
                     dtype=np.int64)
# the moves touching any cell of a 9-bit set
MOVES_TOUCHING = np.array(
    [sum(1 << p for p, (a, b) in enumerate(PAIRS) if (cells >> a) & 1 or (cells >> b) & 1)
     | sum(1 << (FLIP_BASE + x) for x in range(9) if (cells >> x) & 1)
     for cells in range(512)], dtype=np.int64)

MATCHED = np.int64(1) << 62
@kernel
def do_move(grid, m):
    """The grid after move ``m`` (shift pair m < 12, else flip cell m - 12)."""
    if m < FLIP_BASE:
        return swap_cells(grid, PAIR_A[m], PAIR_B[m])
    return flip_cell(grid, m - FLIP_BASE)


@kernel
def without(lo, hi, c):
    if c < HALF:
        return lo & ~(np.int64(1) << c), hi
    return lo, hi & ~(np.int64(1) << (c - HALF))

@kernel
def analyse(grid, mask, value):
    """One placement at ``grid``: MATCHED if it matches, else the set (bit m) of the moves
    after which it would.  Branch-free (the cases are selected by masks).

    One wrong cell x: flip it if its other face is wanted, or swap in a neighbour outside
    the footprint that shows the wanted face (a neighbour inside is right, so it shows
    x's wanted face only if x were right too).  Two wrong cells: a swap of the two when
    they are neighbours holding each other's wanted faces.  More: no single move."""
    x_bits = (grid ^ value) & mask
    wrong = (x_bits | (x_bits >> 1) | (x_bits >> 2)) & CELLBITS
    rest = wrong & (wrong - 1)
    one = np.int64((wrong != 0) & (rest == 0))
    two = np.int64((rest != 0) & ((rest & (rest - 1)) == 0))
    x = CELL_OF_BIT[trailing_zeros(wrong | BIT27)]
    y = CELL_OF_BIT[trailing_zeros(rest | BIT27)]
    sx = 3 * x
    sy = 3 * y
    want = (value >> sx) & 7
    same = ~(grid ^ REP[want])
    shows = same & (same >> 1) & (same >> 2) & NEIGH27[x] & ~mask  # neighbours showing `want`
    # the shifts of x with a neighbour in `shows` (x itself is not in it)
    comp1 = (np.int64((x_bits >> sx) == 1) << (FLIP_BASE + x)) | (SHIFTS_OF[x] & MOVES_TOUCHING[compress3(shows)])
    crossed = (((grid >> sx) & 7) == ((value >> sy) & 7)) & (((grid >> sy) & 7) == want)
    comp2 = np.int64(crossed) << PAIR_OF[x, y]
    comp = ((comp1 & -one) | (comp2 & -two)) & ALL_MOVES
    return comp | (np.int64(x_bits == 0) << 62)


@kernel
def completions(params, grid, c):
    """MATCHED if card ``c`` matches ``grid``, else the moves after which it would."""
    comp = np.int64(0)
    for i in range(params[P_PL_START + c], params[P_PL_START + c + 1]):
        comp |= analyse(grid, params[P_PL_MASK + i], params[P_PL_VALUE + i])
    if comp & MATCHED:
        return MATCHED
    return comp


