"""Shifting Stones bots (run inside the Numba kernels).

``random`` is kind 0 (the game's own ``random_action``, which the engine calls directly).

``greedy`` (kind 1) plays one turn at a time:

1. it scores every card of its hand that matches the grid, one decision each;
2. it searches the sequences of 1..``depth`` moves (shifts and flips, each paid with a
   card) for the one worth most: the points of the hand cards that would match on the way
   (each scored as soon as it matches) minus ``card_value`` per card spent.  A plan must
   keep enough cards to pay for its moves: the cards it scores cannot be spent;
3. if the best plan is worth more than nothing (and, when a skip is legal, more than
   ``skip_threshold``) it discards a card the plan does not score and makes the plan's
   first move; otherwise it skips when a skip is legal (two more cards beat ending the
   turn on the same hand) and ends the turn when not.

It plans again at every decision, so a turn runs on as long as a step pays.  With
``replan=0`` (the default), after the turn's first move it first looks one move ahead and
takes the best single move if that pays, searching the full depth only when none does
(measured about as strong, and much cheaper); ``replan=1`` searches the full depth at
every step.  Ties go to the lowest move index; ``card_value`` carries a tiny extra cost
per move, so of two plans that score as much the shorter wins.

A shift or flip is two decisions (the discard, then the move).  At a discard the bot
leaves in ``scratch`` the move it plans, which cards will match after it and, for a
two-move plan, the second move (the best single move there); each is used only in the
state it was worked out for, as what a search there finds again, so it only saves work.
The planned move is played whenever the state is the one it was planned for (always, in
a game); a search from the move decision (with the card spent, the move free) finds it
too, except in rare positions (about 1 in 1000 moves) where one move would complete more
cards than the hand could keep while paying for it, which the search rules out.

Defaults (``playlab tune``, greedy against greedy): ``card_value`` 0.25 (every value
below 0.5 plays alike at depth 2, and wins about 60% against 0.5), ``skip_threshold`` 0
(1 and more lose), ``depth`` 2 (depth 1 loses about 85-15; depth 3 is stronger still but
many times slower).

Cost (``playlab bench shifting-stones --bots greedy --threads 1``, against the loop
compiled without reference counting): a greedy decision costs about 4.4-4.9 random
decisions in the same positions at 1-5 players (``x same``; three runs of all five
counts gave 4.38-4.94, mean 4.66; 4.7-5.3 before the three changes below, 5.3-5.5 before the tighter bound, the table-driven ``analyse`` and the
solo memo, measured side by side on a shared 2-core machine, where one run's figure
moves by 5-10%).  Measured by ``playlab bench`` alternating the old and new trees in
separate processes (2 players, three runs each: 5.00 / 5.00 / 4.67 -> 4.57-4.87; 5
players: 5.33 / 5.10 / 5.11 -> 4.48-4.69), same play:

- the second card of a two-move plan is chosen with the plan (``_fodder2``: the payer's
  second choice at the same grid is what the second decision would pick), so that
  decision no longer works it out again: the payer was about 8% of the bot's time;
- ``_compress`` is one BMI2 ``pext`` where the machine runs it in one instruction
  (``FAST_PEXT``): first decisions about 5% faster in the replay;
- ``popcount`` is LLVM's ``ctpop``: in ``_far`` the bit-twiddling form stayed a dozen
  instructions (LLVM had simplified it around known-zero bits before recognising it).

About 75% of the cost is the first decision of a turn that goes on to move (~3000-4000
cycles); a sampled profile of the bot's own games (2 players, after these changes) puts
``_rows_best`` at 34% of the run, ``build_list`` 31%, ``greedy`` itself 8% (half of it
the look for a matching card), the payer 5%, the engine 15%.  Measured by doubling one
piece at a time (same play, so the extra time is that piece's cost; recorded decisions
replayed in one process, new against old): of a decision, ``build_list`` with its rows
about 32% (the rows half of it), ``_row`` about 18% (half of that its ``analyse``
calls), ``_best_last`` about 4%, the payer about 6%, the quick look after a move about
8%.  The single loop over the placements in ``build_list``, the key max in
``_best_last`` and the tighter may-lose rows of a one-wrong-cell placement together
took 1-3% off the greedy time in that replay (not visible in ``x same``'s noise).

Which card pays: among the cards the plan does not score, the one farthest from matching
the grid the plan leads to (most wrong cells in its best placement), then the one worth
most points (the hardest to score), then the lowest id.

The search is exact (``tests/test_shifting_stones_bots.py`` checks it against the plain
search).  The last move of a sequence is never tried grid by grid: for each placement of
each card, the moves that complete it in one step follow from its wrong cells (one wrong
cell can be flipped, or swapped with a neighbour outside the footprint that shows the
wanted face; two must be neighbours holding each other's faces; three or more need more
than one move), see ``analyse``.  So depth 1 is one pass over the hand's placements.
Depth 2 (``plan``) lists the placements once and works out for each the first moves
after which it could gain a completion and those after which it could lose one
(``build_list``), then tries only the first moves after which something can gain,
best bound first, analysing again only the placements those moves can change
(``_level2_list``); any other first move is worth less than the best single move.  Hands
too large for ``scratch`` (and depth 3, for studies) use the plain search, which tries
the 21 first moves (and pairs) one by one.

A turn's first search that finds nothing paying is remembered with its state (FIRST):
in the solo game a turn that ended without acting is followed by one from the same grid
and hand (about 20% of solo first decisions), and the answer is the same.

Measured as not worth it (so not done): making ``_row``'s re-analysis branch-free
(analysing every placement of a changed card: about 20% slower), skipping the quick
look after a first move whose plan had no paying second move (it provably fails then,
but that happens in about 1.5% of decisions), and trying the first moves in full bound
order rather than the best bound first (5.5 -> 5.4 of 9 rows tried).  The bound
(``_rows_best``) has the first moves tried at about 4.5 of 9 rows (5.5 before a card
that the move completes or that may gain stopped counting in R too); an exact bound would
try 1.  Timing pieces with repeated short runs misleads here: the branch predictor learns
the repeated positions and the gain looks three times what the bench then shows.
Also measured, no gain: ``_row`` iterating only the placements of the changed cards
through one bit mask (one loop, not one per card; 0-1% slower), the R0 accumulation as a
branch-free pass over the 21 moves (slower), the first moves in full bound order again
(4.43 rows tried per search against 4.61: about 27% of the rows tried after the first
improve the best, so the bound, not the order, decides; its mean excess is 1.4 points).
A tighter bound, move by move, measured slower (so not done): a card that may gain
after the first move must be finished by the second, which touches every wrong cell of
its gaining placement that the first move left alone (or, when it moved all of them, one
of the footprint cells it moved); so the second move is worth at most what it completes
from the grid plus the gaining cards it can finish, and any other at most R.  Computed
only for the moves the cheap bound lets through (and only when the gaining cards are
what lets them through), it is admissible and plays the same (every decision equal on
97,000 replayed positions) and cuts the first moves tried per search from 4.11 / 4.34 /
4.43 to 3.40 / 3.23 / 3.36 (1 / 2 / 5 players; mean excess 1.07 -> 0.67 points), but
the bound costs about as much as the rows it saves: 4-9% slower in the replay (the code
in ``_rows_best`` alone, never run, 3-5%; wrong cells and footprint kept in the list,
bit-sliced per-move counts: no better).  A row tried costs only about 1-2% of a greedy
decision (doubling ``_row`` and ``_best_last``: +5% at 2 players, +9% at 5), so no
bound can take more than a few percent off.
A sampled profile (``perf`` with the cpu-clock event over 3,800 recorded first decisions
that go on to move, 2 players; no hardware counters on the machine) splits such a decision:
``_rows_best`` about 45% (in it the re-analysis of ``_row`` about a third, ``_best_last``
a fifth, the GAIN table and bounds the rest), ``build_list`` about 37% (its loop over the
placements, ``analyse`` and the rows, nearly half of it), the payer with ``_far`` and
``_fodder`` about 7%; no instruction holds more than 3%.  A hand there has about 4 cards
and 16 placements (2 wrong cells in 65% of them, 1 in 26%, 3-4 in 7%).  Measured the same
way and not done: the placements bucketed by wrong-cell count, each kind in a loop of its
own (first decisions 14% slower); indexing without Numba's negative-index wrap (no change:
LLVM drops it already); ``NUMBA_OPT=2`` (no change); ``_best_last``'s path for more than
three changed cards as a call of its own (no change); the move-by-move bound above, again
over three processes (first decisions 7-13% slower).  Timing in one process moves by up to
4% with where the code lands in memory, so a smaller change needs several processes.
In the solo game 93% of first decisions see the grid of the seat's previous decision
(at 2 and 5 players 4% and 0%), so a per-card cache of the list would pay in the solo
game only.
Also measured and not done (first decisions replayed, or ``playlab bench`` alternating
trees): ``analyse`` indexing its tables by 3x to drop the cell lookup from its chain (no
change); each placement's cells, wanted kinds and touching moves precomputed (no change);
the GAIN table and ``_best_last``'s maximum as fixed 21-move loops that LLVM vectorises
(no gain; the second slower); the list's own scan for a matching card in place of
``card_matches`` (the headers are built for every card first: 3% slower); and the quick
look at a turn's first decision as well (taking a paying single move without the depth-2
search): much cheaper but much weaker, it won 43% of 2-player games against the default's
64% (40,000 games in each seating).

Information: the bot reads its own hand, the grid, PENDING, TURN_ACTIONS and whether it
may skip; never another hand or the draw pile.  It draws no random numbers (ties go to
the lowest index), so it is deterministic for a seed whatever the seat's RNG stream.
"""
import functools

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.cpython.unsafe.numbers import trailing_zeros

from bots.registry import BotParam, BotSpec, register_alias, register_bot
from simcore.games.shifting_stones import (DISCARD_BASE, END, FLIP_BASE, GRID, HALF, HAND_HI, HAND_LO,
                                           HAND_N, MOVES, P_PL_MASK, P_PL_START, P_PL_VALUE, P_POINTS,
                                           PAIR_A, PAIR_B, PAIRS, PENDING, SCORE_BASE, SKIP, TURN_ACTIONS,
                                           card_matches, flip_cell, may_skip, random_action, swap_cells)
from simcore.rng import popcount

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

# ---- scratch layout --------------------------------------------------------------------------
# scratch[PLAN:PLAN+6]  the move planned at the last discard and the state it is for
# scratch[MEMO:MEMO+5]  a grid, some cards, and which of them match it (known after a move)
# scratch[MEMO+5:+13]   after a two-move plan's first move: the state expected, the second
#                       move (the best single move there), the cards it completes and the
#                       card that will pay for it
# scratch[FIRST:FIRST+6] a turn's first decision that found nothing paying, and the state
#                       it was for (solo: the next turn may start from the same one)
# scratch[ACC:ACC+21]   plain search: per move (points << 8) + count of the cards it completes
# The depth-2 list (``build_list``; PU overlaps ACC):
# scratch[PU:PU+80]     per cell z (and a dummy cell 9) and face f (8 z + f), the moves
#                       after which z shows f and did not before
# scratch[R0:R0+21]     per move: (points << 5) + count of the cards it completes from the
#                       search's grid
# scratch[U0]           the moves completing some card from the search's grid
# scratch[GAIN:GAIN+21] per first move: the points of the cards that may gain after it,
#                       and << GAIN_SHIFT those of the cards with completions from the
#                       search's grid that it completes or after which they may gain
# scratch[BASE:]        per card k (CARD_W slots): card | points << 8 | first placement << 16
#                       | end of its placements << 24; its completions at the search's grid;
#                       its completions after the first move tried (when they may have
#                       changed); the first moves after which a placement of it may gain
#                       completions | those after which one may gain or lose some << 21.
#                       Then per placement e: its completions at the search's grid | its
#                       index in params << 21 | k << 40; the first moves after which it may
#                       gain or lose completions (what ``_row`` asks of it)
PLAN = 0
PLAN_SEAT, PLAN_GRID, PLAN_CARD, PLAN_LO, PLAN_HI, PLAN_MOVE = range(PLAN, PLAN + 6)
MEMO = PLAN + 6
MC_GRID, MC_KNOWN_LO, MC_KNOWN_HI, MC_MATCH_LO, MC_MATCH_HI = range(MEMO, MEMO + 5)
NX_SEAT, NX_GRID, NX_LO, NX_HI, NX_MOVE, NX_KEEP_LO, NX_KEEP_HI, NX_PAY = range(MEMO + 5, MEMO + 13)
FIRST = MEMO + 13
FC_SEAT, FC_GRID, FC_LO, FC_HI, FC_BOT, FC_CV = range(FIRST, FIRST + 6)
ACC = FIRST + 6
PU = ACC
PU_SIZE = 8 * 10
R0 = PU + PU_SIZE
U0 = R0 + MOVES
GAIN = U0 + 1
GAIN_SHIFT = 16  # GAIN's high part: the points of the cards with a completion whose R share is void
GAIN_LOW = (1 << GAIN_SHIFT) - 1
BASE = GAIN + MOVES
CARD_W = 4
# after the search PU holds the best first move's changed cards, second move and their
# completions (for the payer)
BEST_CHANGED = PU
BEST_M2 = PU + 1
BEST_COMPS = PU + 2
BEST_ROOM = 28
MAX_LIST = 64  # placements in the list (bits of a word)
MAX_CARDS = 60  # cards in the list (bits of a word)
FILL = 6  # build_list: list entries written per card at once (most cards have at most 6 placements)
# scratch the bot needs (the runner allocates at least this): the list of a hand of 12
# cards with MAX_LIST placements
SCRATCH_SIZE = BASE + CARD_W * 12 + 2 * MAX_LIST
MATCHED = np.int64(1) << 62


@intrinsic
def _float_bits(typingctx, x):
    """The bits of a float64 as an int64 (to key a memo on a bot parameter exactly)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@kernel
def do_move(grid, m):
    """The grid after move ``m`` (shift pair m < 12, else flip cell m - 12)."""
    if m < FLIP_BASE:
        return swap_cells(grid, PAIR_A[m], PAIR_B[m])
    return flip_cell(grid, m - FLIP_BASE)


@kernel
def _without(lo, hi, c):
    if c < HALF:
        return lo & ~(np.int64(1) << c), hi
    return lo, hi & ~(np.int64(1) << (c - HALF))


LOW_BITS = 0x09249249  # bits 0, 3, ..., 27: the lowest bit of each cell and of the dummy cell


def fast_pext() -> bool:
    """Whether the machine the kernels are compiled for extracts bits in one instruction
    (BMI2 ``pext``: Intel since Haswell, AMD since Zen 3).  AMD's earlier cores with BMI2
    run it as microcode, tens of cycles, slower than the shifts; a target named through
    NUMBA_CPU_NAME or NUMBA_CPU_FEATURES (a cache for other machines) keeps the shifts."""
    from llvmlite import binding as ll
    from numba.core import config
    if config.CPU_NAME or config.CPU_FEATURES:
        return False
    return bool(ll.get_host_cpu_features().get("bmi2")) and \
        ll.get_host_cpu_name() not in ("bdver4", "znver1", "znver2")


FAST_PEXT = fast_pext()


@intrinsic
def _pext(typingctx, v, mask):
    """BMI2 ``pext``: the bits of v under mask, packed low (only where FAST_PEXT)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pext.64"),
                            args)
    return types.int64(types.int64, types.int64), codegen


@kernel
def _compress_shifts(v):
    """Bits 0, 3, 6, ..., 27 of v as bits 0..9."""
    v &= LOW_BITS
    v = (v ^ (v >> 2)) & 0x030C30C3
    v = (v ^ (v >> 4)) & 0x0300F00F
    v = (v ^ (v >> 8)) & 0xFF0000FF
    return (v ^ (v >> 16)) & 0x3FF


@kernel
def _compress_pext(v):
    return _pext(v, np.int64(LOW_BITS))


# one instruction instead of eight shifts and masks: a first decision about 5% faster
# (analyse and the rows of build_list call it for every placement)
_compress = _compress_pext if FAST_PEXT else _compress_shifts


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
    comp1 = (np.int64((x_bits >> sx) == 1) << (FLIP_BASE + x)) | (SHIFTS_OF[x] & MOVES_TOUCHING[_compress(shows)])
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


# ---- the plain search (depth 1 and 3, and hands too large for the depth-2 list) -------------
@kernel
def hand_pass(params, grid, lo, hi, acc):
    """One pass over the hand (lo, hi) at ``grid``: returns (points, count, mlo, mhi, moves)
    of the cards that match now, and adds (points << 8) + 1 of every other card to acc[m]
    for each move m that would complete it (``moves``: the moves touched; ``_take_best``
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
def _take_best(acc, touched, limit, cost):
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
    best, best_m = _take_best(acc, touched, spare - 1, cost)
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
        tail, _ = _take_best(acc, touched, left - 1, cv)
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
        _take_best(acc, touched, NONE, 0.0)  # only clears
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


# ---- the depth-2 search over a placement list -------------------------------------------------
@kernel
def _face(grid, x):
    return (grid >> (3 * x)) & 7


@kernel
def _puts(s, z, f):
    """The moves after which cell ``z`` shows face ``f`` and did not before (0 for the
    dummy cell 9)."""
    return s[PU + 8 * z + f]


@kernel
def _set_puts(s, z, f, bits):
    s[PU + 8 * z + f] |= bits


@kernel
def _new_rows(s, grid, cells, wrong, value):
    """The first moves after which a placement (cells, wrong cells: 9-bit sets; wanted
    faces) could match or gain a completion: a superset, as the second move has to fix
    what is wrong after the first, so the first must bring a wanted face to a cell
    without spoiling another:
    one wrong cell x (wants w): x gets w; x gets w's flip side from outside the
    footprint; a neighbour outside gets w without a cell of the footprint moving (to be
    swapped in); a neighbour in it that x's face would fix gets w (they then cross);
    two wrong a, b: one is fixed while the other can be fixed by one move from outside
    or shows a face of a kind the fixing move may bring it, or one gets the other's
    face while the other shows its (they then cross);
    three or four: a fix by a move that also touches another wrong cell (two fixes at
    once) or, with three, while the other two already hold each other's faces."""
    x = trailing_zeros(wrong | 512)
    rest = wrong & (wrong - 1)
    if rest == 0:
        w = (value >> (3 * x)) & 7
        fx = _face(grid, x)
        inside = MOVES_TOUCHING[cells]
        new = _puts(s, x, w) | (_puts(s, x, w ^ 1) & ~MOVES_TOUCHING[cells & ~(np.int64(1) << x)])
        for k in range(4):  # branch-free: inside (and fixed by fx) or outside
            y = NB[x, k]
            iny = (cells >> y) & 1
            sel = (~inside & (iny - 1)) | -(iny & np.int64(fx == (value >> (3 * y)) & 7))
            new |= _puts(s, y, w) & sel
        return new
    if rest & (rest - 1) == 0:
        y = trailing_zeros(rest)
        wx = (value >> (3 * x)) & 7
        wy = (value >> (3 * y)) & 7
        fx = _face(grid, x)
        fy = _face(grid, y)
        px = _puts(s, x, wx)
        py = _puts(s, y, wy)
        fix_y = np.int64(((py & ~MOVES_TOUCHING[cells & ~(np.int64(1) << y)]) != 0) | (fx >> 1 == wy >> 1))
        fix_x = np.int64(((px & ~MOVES_TOUCHING[cells & ~(np.int64(1) << x)]) != 0) | (fy >> 1 == wx >> 1))
        new = (px & -fix_y) | (py & -fix_x)
        adj = (NEIGH9[x] >> y) & 1
        new |= (_puts(s, x, wy) & -(adj & np.int64(fy == wx))) | (_puts(s, y, wx) & -(adj & np.int64(fx == wy)))
        return new
    nw = popcount(wrong)
    new = np.int64(0)
    if nw > 4:  # a move fixes at most two cells, and one move must be left for the rest
        return new
    ww = wrong
    while ww:
        x = trailing_zeros(ww)
        ww &= ww - 1
        others = wrong & ~(np.int64(1) << x)
        fix = _puts(s, x, (value >> (3 * x)) & 7)
        crossed = False
        if nw == 3:
            a = trailing_zeros(others)
            b = trailing_zeros(others & (others - 1))
            crossed = ((NEIGH9[a] >> b) & 1) == 1 and _face(grid, a) == (value >> (3 * b)) & 7 \
                and _face(grid, b) == (value >> (3 * a)) & 7
        if not crossed:
            fix &= MOVES_TOUCHING[others]
        new |= fix
    return new


@kernel
def build_list(params, grid, lo, hi, s, with_new, reuse):
    """Write the hand's placements at ``grid`` to scratch (layout above): per card its
    completions, per placement its completions, per move the points and count of the
    cards it completes.  With ``with_new``, also for each placement the first moves
    after which it may gain completions (or match), ``_new_rows``, and those after which
    it may lose some: if it has some, the moves that touch its cells or, when one cell
    x is wrong, the neighbours its swap completions use (and x itself only when a flip
    of x completes it), and move a face of a kind its cells want.  Every
    other placement keeps its completions.
    With ``reuse``, the list was just built for the same grid and hand (without the
    rows): the completions are read back instead of worked out again.
    Returns (the number of cards, or -1 when the hand does not fit: then the plain
    search runs; the first moves worth trying: a first move in no placement's new rows
    completes nothing and leaves no more completions than ``grid`` has, so it is worth
    less than the best single move, see ``_level2_list``)."""
    ncards = popcount(lo) + popcount(hi)
    pl = BASE + CARD_W * ncards
    cap = min(MAX_LIST, (s.shape[0] - pl) // 2)
    if ncards > MAX_CARDS:
        return -1, np.int64(0)
    for m in range(MOVES):
        s[R0 + m] = 0
    k0 = k1 = k2 = k3 = np.int64(0)
    if with_new:
        k0, k1, k2, k3 = _build_puts(grid, s)
    # first the cards (headers, and which card and placement each list entry is), then
    # one loop over every placement: a loop per card has an exit that is hard to predict
    k = 0
    e = 0
    for word in range(2):
        m = lo if word == 0 else hi
        base = 0 if word == 0 else HALF
        while m:
            c = base + trailing_zeros(m)
            m &= m - 1
            start = params[P_PL_START + c]
            end = params[P_PL_START + c + 1]
            if e + end - start > cap:
                return -1, np.int64(0)
            s[BASE + CARD_W * k] = c | (params[P_POINTS + c] << 8) | (e << 16) | ((e + end - start) << 24)
            s[BASE + CARD_W * k + 1] = 0
            s[BASE + CARD_W * k + 3] = 0
            if not reuse:
                tag = (np.int64(k) << 40) | (start << MOVES)
                if end - start <= FILL and e + FILL <= cap:
                    for j in range(FILL):  # a fixed count (the entries past the card are overwritten)
                        s[pl + 2 * (e + j)] = tag + (np.int64(j) << MOVES)
                else:
                    for j in range(end - start):
                        s[pl + 2 * (e + j)] = tag + (np.int64(j) << MOVES)
            e += end - start
            k += 1
    rows = np.int64(0)
    for x in range(e):
        w = s[pl + 2 * x]
        i = (w >> MOVES) & 0x7FFFF
        hdr = BASE + CARD_W * ((w >> 40) & 63)
        mask = params[P_PL_MASK + i]
        value = params[P_PL_VALUE + i]
        if reuse:
            comp = w & (ALL_MOVES | MATCHED)
        else:
            comp = analyse(grid, mask, value)
            s[pl + 2 * x] = comp | w
        s[hdr + 1] |= comp
        if with_new:
            new, lose = _placement_rows(s, grid, mask, value, comp & ALL_MOVES, k0, k1, k2, k3)
            rows |= new
            s[pl + 2 * x + 1] = new | lose
            s[hdr + 3] |= new | ((new | lose) << MOVES)
    union = np.int64(0)
    for j in range(k):
        card_comp = s[BASE + CARD_W * j + 1]
        union |= card_comp
        add = (((s[BASE + CARD_W * j] >> 8) & 255) << 5) | 1
        while card_comp:  # the points and count each move completes from grid
            s[R0 + trailing_zeros(card_comp)] += add
            card_comp &= card_comp - 1
    s[U0] = union
    return k, rows


@kernel
def _best_single(s, spare, cost):
    """From ``build_list``: the best single move (value, move; ties: lowest move), as
    ``_level1``."""
    best = NO_VALUE
    best_m = -1
    t = s[U0] & ALL_MOVES
    while t:
        m = trailing_zeros(t)
        t &= t - 1
        a = _root_acc(s, m)
        if a & 31 <= spare - 1:
            v = (a >> 5) - cost
            if v > best + EPS:
                best = v
                best_m = m
    if best_m < 0:
        idle = ~s[U0] & ALL_MOVES
        return -cost, trailing_zeros(idle) if idle else np.int64(0)
    return best, best_m


@kernel
def _build_puts(grid, s):
    """Which moves put which face where (PU); returns the moves that change a face of
    each tile kind (k0..k3)."""
    for i in range(PU_SIZE):
        s[PU + i] = 0
    k0 = np.int64(0)
    k1 = np.int64(0)
    k2 = np.int64(0)
    k3 = np.int64(0)
    for x in range(9):
        f = _face(grid, x)
        bit = np.int64(1) << (FLIP_BASE + x)
        _set_puts(s, x, f ^ 1, bit)
        kind = f >> 1
        k0 |= bit & -np.int64(kind == 0)
        k1 |= bit & -np.int64(kind == 1)
        k2 |= bit & -np.int64(kind == 2)
        k3 |= bit & -np.int64(kind == 3)
    for p in range(FLIP_BASE):
        a = PAIR_A[p]
        b = PAIR_B[p]
        fa = _face(grid, a)
        fb = _face(grid, b)
        bit = (np.int64(1) << p) & (np.int64(fa == fb) - 1)
        _set_puts(s, a, fb, bit)
        _set_puts(s, b, fa, bit)
        kinds = (np.int64(1) << (fa >> 1)) | (np.int64(1) << (fb >> 1))
        k0 |= bit & -(kinds & 1)
        k1 |= bit & -((kinds >> 1) & 1)
        k2 |= bit & -((kinds >> 2) & 1)
        k3 |= bit & -((kinds >> 3) & 1)
    return k0, k1, k2, k3


@kernel
def _placement_rows(s, grid, mask, value, comp, k0, k1, k2, k3):
    """(new, lose) of one placement (see ``build_list``)."""
    x_bits = (grid ^ value) & mask
    wrong = _compress(x_bits | (x_bits >> 1) | (x_bits >> 2))
    cb = mask & CELLBITS
    cells = _compress(cb)
    new = _new_rows(s, grid, cells, wrong, value)
    lose = np.int64(0)
    if comp:
        z1 = value ^ REP[2]
        z2 = value ^ REP[4]
        z3 = value ^ REP[6]
        km = ((k0 & -np.int64((~((value >> 1) | (value >> 2)) & cb) != 0))
              | (k1 & -np.int64((~((z1 >> 1) | (z1 >> 2)) & cb) != 0))
              | (k2 & -np.int64((~((z2 >> 1) | (z2 >> 2)) & cb) != 0))
              | (k3 & -np.int64((~((z3 >> 1) | (z3 >> 2)) & cb) != 0)))
        touch = MOVES_TOUCHING[cells]
        if wrong & (wrong - 1) == 0:
            # one wrong cell x: a swap completion is lost only if its neighbour moves; a
            # move touching x and no other cell of the footprint (a flip of x, a swap with a
            # neighbour outside) leaves every swap completion (x takes the neighbour's
            # face whatever it shows) and loses only the flip completion
            x = trailing_zeros(wrong | 512)
            xb = np.int64(1) << x
            used = np.int64(0)
            for k in range(4):
                used |= ((comp >> NB_PAIR[x, k]) & 1) << NB[x, k]
            touch = (MOVES_TOUCHING[(cells & ~xb) | used]
                     | (MOVES_TOUCHING[xb] & -((comp >> (FLIP_BASE + x)) & 1)))
        lose = touch & km
    return new, lose


@kernel
def _root_acc(s, m):
    """(points << 5) + count of the cards move m completes from the search's grid."""
    return s[R0 + m]


@kernel
def _most_points(s):
    """The most points one move completes from the search's grid (only the moves in U0
    complete anything)."""
    r = np.int64(0)
    t = s[U0] & ALL_MOVES
    while t:
        r = max(r, _root_acc(s, trailing_zeros(t)) >> 5)
        t &= t - 1
    return r


@kernel
def _row(params, grid, m1, slots, s):
    """The cards after first move ``m1`` (the list built for ``grid``, where m1 is one of
    the moves worth trying): returns (points, count) of the cards that match and
    the cards (bit k) whose completions may have changed; for those it leaves the new
    completions (MATCHED if it matches) in their third slot; the others keep the second."""
    pl = BASE + CARD_W * slots
    g1 = do_move(grid, m1)
    changed = np.int64(0)
    for k in range(slots):  # (gathered here: cheaper than a table per move in build_list)
        changed |= ((s[BASE + CARD_W * k + 3] >> (MOVES + m1)) & 1) << k
    pts = np.int64(0)
    n = np.int64(0)
    ch = changed
    while ch:
        k = trailing_zeros(ch)
        ch &= ch - 1
        hdr = s[BASE + CARD_W * k]
        comp = np.int64(0)
        for e in range((hdr >> 16) & 255, (hdr >> 24) & 255):
            w = s[pl + 2 * e]
            nl = s[pl + 2 * e + 1]
            if (nl >> m1) & 1:
                i = (w >> MOVES) & 0x7FFFF
                comp |= analyse(g1, params[P_PL_MASK + i], params[P_PL_VALUE + i])
            else:
                comp |= w & ALL_MOVES
        if comp & MATCHED:
            comp = MATCHED
            pts += (hdr >> 8) & 255
            n += 1
        s[BASE + CARD_W * k + 2] = comp
    return pts, n, changed


@kernel
def _changed_card(s, ch):
    """For the lowest card of the set ``ch`` (none: a void card 0): (its points and count
    as in R0, its completions at the search's grid, after the first move), the rest of ch."""
    valid = -np.int64(ch != 0)
    k = trailing_zeros(ch | (np.int64(1) << 62)) & valid
    add = ((((s[BASE + CARD_W * k] >> 8) & 255) << 5) | 1) & valid
    return add, s[BASE + CARD_W * k + 1] & valid, s[BASE + CARD_W * k + 2] & valid, ch & (ch - 1)


@kernel
def _best_last(s, changed, limit, cost):
    """Best second move after ``_row``: (points completed - cost, move, whether a move was
    ruled out for completing more than ``limit`` cards); ties: lowest move; (NO_VALUE, -1,
    ...) if none.  The points and counts from the search's grid are corrected for the
    cards that changed (up to three, the usual case, without a loop per move: its exit
    is hard to predict)."""
    best = NO_VALUE
    best_m = -1
    over = False
    if popcount(changed) <= 3:
        add_a, old_a, new_a, ch = _changed_card(s, changed)
        add_b, old_b, new_b, ch = _changed_card(s, ch)
        add_c, old_c, new_c, ch = _changed_card(s, ch)
        union = (s[U0] | new_a | new_b | new_c) & ALL_MOVES
        # the best as a key, points << 5 | 31 - m (the cost is the same for every move, so
        # the most points win, then the lowest move): a max with no branch to mispredict
        key = np.int64(-1)
        out = np.int64(0)
        while union:
            m = trailing_zeros(union)
            union &= union - 1
            a = (_root_acc(s, m) + add_a * (((new_a >> m) & 1) - ((old_a >> m) & 1))
                 + add_b * (((new_b >> m) & 1) - ((old_b >> m) & 1))
                 + add_c * (((new_c >> m) & 1) - ((old_c >> m) & 1)))
            ov = np.int64(a & 31 > limit)
            out |= ov
            key = max(key, (((a >> 5) << 5) | (31 - m)) | -(ov | np.int64(a <= 0)))
        if key < 0:
            return best, best_m, out != 0
        return (key >> 5) - cost, 31 - (key & 31), out != 0
    union = s[U0]
    ch = changed
    while ch:
        k = trailing_zeros(ch)
        ch &= ch - 1
        union |= s[BASE + CARD_W * k + 2]
    union &= ALL_MOVES
    while union:
        m = trailing_zeros(union)
        union &= union - 1
        a = _root_acc(s, m)
        ch = changed
        while ch:
            k = trailing_zeros(ch)
            ch &= ch - 1
            add = ((s[BASE + CARD_W * k] >> 8) & 255) << 5 | 1
            a += add * (((s[BASE + CARD_W * k + 2] >> m) & 1) - ((s[BASE + CARD_W * k + 1] >> m) & 1))
        if a & 31 > limit:
            over = True
        elif a > 0:
            v = (a >> 5) - cost
            if v > best + EPS:
                best = v
                best_m = m
    return best, best_m, over


@kernel
def _bound(s, m, r, reach, cost, cv):
    """What first move m is worth at most (see ``_rows_best``)."""
    a = s[GAIN + m]
    rest = min(r, reach - (a >> GAIN_SHIFT))
    return (_root_acc(s, m) >> 5) - cost + max(0.0, rest + (a & GAIN_LOW) - cv)


@kernel
def _rows_best(params, grid, slots, rows, spare, cost, cv, s):
    """The best of the first moves in ``rows`` (value, move; ties: lowest move),
    (NO_VALUE, -1) if none.  A move is worth at most pts1 - cost + max(0, R + G - cv): the
    points it completes at once, G the points of the cards that may gain completions
    after it (the others keep theirs or lose some; a card the move completes is not
    counted in G, as it is scored at once), R the most one move completes from ``grid``,
    and at most the points of the cards with completions there that are neither
    completed by the move nor counted in G (what the other cards can still bring).
    The move with the highest bound is tried first, then the others in order;
    a move whose bound falls short of the best found cannot win and is not tried.
    The best move's changed cards and second move are left in scratch for the payer."""
    r = _most_points(s)
    t = rows
    while t:
        s[GAIN + trailing_zeros(t)] = 0
        t &= t - 1
    reach = np.int64(0)  # the points of the cards some move completes from grid
    for k in range(slots):
        p = (s[BASE + CARD_W * k] >> 8) & 255
        comp = s[BASE + CARD_W * k + 1] & ALL_MOVES
        new = s[BASE + CARD_W * k + 3] & ALL_MOVES
        # a card the first move completes is scored then, not by the second move
        g = new & rows & ~comp
        while g:
            s[GAIN + trailing_zeros(g)] += p
            g &= g - 1
        if comp:
            reach += p
            # ... and one that may gain is counted in G: neither is left for R
            g = (new | comp) & rows
            while g:
                s[GAIN + trailing_zeros(g)] += p << GAIN_SHIFT
                g &= g - 1
    first = -1
    top = NO_VALUE
    t = rows
    while t:
        m = trailing_zeros(t)
        t &= t - 1
        ub = _bound(s, m, r, reach, cost, cv)
        if ub > top + EPS:
            top = ub
            first = m
    best = NO_VALUE
    best_m = MOVES
    s[BEST_CHANGED] = 0
    t = rows
    while first >= 0 or t:
        if first >= 0:
            pick = first
            first = -1
            t &= ~(np.int64(1) << pick)
        else:
            pick = trailing_zeros(t)
            t &= t - 1
            ub = _bound(s, pick, r, reach, cost, cv)
            if ub < best - EPS or (ub <= best + EPS and pick > best_m):
                continue
        pts, n, changed = _row(params, grid, pick, slots, s)
        left = spare - 1 - n
        if left < 0:
            continue
        v = pts - cost
        tail, m2, over = _best_last(s, changed, left - 1, cv)
        if tail > 0.0:
            v += tail
        else:
            m2 = -1
        if v > best + EPS or (v >= best - EPS and pick < best_m):
            best = v
            best_m = pick
            # for the payer: the cards that changed, their completions, the second move
            if popcount(changed) <= BEST_ROOM:
                s[BEST_CHANGED] = changed
                s[BEST_M2] = m2 | (np.int64(over) << 8)
                j = 0
                ch = changed
                while ch:
                    s[BEST_COMPS + j] = s[BASE + CARD_W * trailing_zeros(ch) + 2]
                    ch &= ch - 1
                    j += 1
            else:
                s[BEST_CHANGED] = -1
    if best_m == MOVES:
        best_m = -1
    return best, best_m


@kernel
def _level2_list(params, grid, slots, rows, spare, cost, cv, s):
    """``_level2`` over the list built for ``grid`` (no card matches there),
    trying only the first moves in ``rows``.  Any other first move completes nothing and
    leaves no more completions than ``grid`` has, so it is worth at most
    -cost + max(0, R - cv) (R: the most points one move completes from ``grid``), less than
    the best single move when R > 0.  If the moves tried do not beat that bound (rare:
    e.g. the best single move would leave no card to pay), all 21 are tried."""
    best, best_m = _rows_best(params, grid, slots, rows, spare, cost, cv, s)
    r = _most_points(s)
    bound = -cost + max(0.0, r - cv)
    if best > bound + EPS:
        return best, best_m
    if bound <= 0.0 and best <= 0.0:
        # nothing pays: the value is what matters, not the move
        if best >= bound:
            return best, best_m
        return bound, np.int64(0)
    return _rows_best(params, grid, slots, ALL_MOVES, spare, cost, cv, s)


@kernel
def plan(params, grid, lo, hi, spare, depth, cost, cv, s):
    """``search`` from a decision's grid (no hand card matches there): (value, first move,
    list size).  Depth 2 runs over the placement list when it fits in scratch; the list
    size is -1 when it did not run."""
    if max(1, min(depth, spare - 1)) == 2:
        slots, rows = build_list(params, grid, lo, hi, s, YES, NO)
        if slots >= 0:
            v, m = _level2_list(params, grid, slots, rows, spare, cost, cv, s)
            return v, m, slots
    v, m = search(params, grid, lo, hi, spare, depth, cost, cv, s)
    return v, m, np.int64(-1)


@kernel
def _payer_list(params, grid, lo, hi, m1, slots, spare, cv, s):
    """``_payer`` for a depth-2 plan found over the list (which is still in scratch, with
    the best move's changed cards and second move)."""
    changed = s[BEST_CHANGED]
    if changed < 0:  # too many to keep: work them out again
        _, n, changed = _row(params, grid, m1, slots, s)
        tail, m2, over = _best_last(s, changed, spare - 2 - n, cv)
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
def _payer_single(params, grid, lo, hi, m1, slots, s):
    """``_payer`` for a single move found from ``build_list``'s list."""
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
def _payer(params, grid, lo, hi, m1, depth, cv, s):
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
        _take_best(s, touched, NONE, 0.0)  # only clears
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


# ---- the bot ----------------------------------------------------------------------------------------
@kernel
def _remember(s, seat, grid, lo, hi, c, m1, m2, known):
    """Discard card c to play m1 next.  Keeps the move for the decision that follows
    (PLAN); when ``known``, which cards match after the move (the payer left them in
    MC_MATCH_*); and when the plan has a second move m2, the state expected then (NX_*;
    the payer left the cards m2 completes in NX_KEEP_*).  Each is what a search at that
    state would find again (m2 is the best single move there: the cards the plan scores
    are gone and every other move can only have lost value), and depends only on the
    bot's own hand and the grid."""
    lo2, hi2 = _without(lo, hi, c)
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
    """The greedy action of ``seat`` (see the module docstring)."""
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
        c = scratch[NX_PAY]  # chosen with the plan (see _payer_list)
        scratch[MC_MATCH_LO] = scratch[NX_KEEP_LO]
        scratch[MC_MATCH_HI] = scratch[NX_KEEP_HI]
        scratch[NX_SEAT] = -1
        return _remember(scratch, seat, grid, lo, hi, c, m1, np.int64(-1), YES)
    first = state[TURN_ACTIONS] == 0 and d >= 1
    bot = h | (depth << 8)
    cv_bits = _float_bits(card_value)
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
            best, m1 = _best_single(scratch, h, cv)
            mode = 1
            if best <= EPS:  # the same list, now with the rows
                slots, rows = build_list(params, grid, lo, hi, scratch, YES, YES)
        if mode == 0 or best <= EPS:
            best, m1 = _level2_list(params, grid, slots, rows, h, cv, cv, scratch)
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
            c = _payer_single(params, grid, lo, hi, m1, slots, scratch)
        elif mode == 2:
            c, m2 = _payer_list(params, grid, lo, hi, m1, slots, h, cv, scratch)
        else:
            c = _payer(params, grid, lo, hi, m1, d, cv, scratch)
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


# the policy is a call of ``greedy``: inlined into the engine's link (one compiled copy less);
# it finds its own moves
register_bot(GREEDY_SPEC, greedy_policy, games=("shifting-stones",), legal=False,
             jit_options={"greedy_policy": {"inline": "always", "_nrt": False}})
# the strongest bot measured here (README, MCTS: 0.667 of 2-player games against greedy)
register_alias("shifting-stones", "expert", "mcts")
