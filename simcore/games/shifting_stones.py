"""Shifting Stones: rearrange a 3x3 grid of two-faced stones to match pattern cards; 1-5 players.

Rules: shared/rules/shifting_stones.md (every [decision] there is an option below, plus
``deck``: a corrected deck file, see ``shifting_stones_deck``).

Faces are coded S=0 M=1 F=2 B=3 H=4 O=5 E=6 T=7: the two faces of a tile differ only in
the lowest bit (kind = code >> 1), so a flip is ``grid ^ (1 << 3*cell)``.  The grid is one
27-bit integer, 3 bits a cell, cell 0 (top-left) in the lowest bits.  Cards are indexed
0..71 (index = id - 1).  Sets of cards are two 36-bit words (LO: cards 0..35, HI: 36..71)
so no sign bit is ever touched.

A card matches the grid when one of its placements satisfies ``grid & mask == value``.
The placements (every offset of the footprint inside the grid; grey cells have mask 0)
are built from the deck in Python and travel in ``params`` after the option values,
because the deck is a runtime input (``--variant deck=PATH``):

    params: OPTIONS[10]   option values in table order (deck: 0)
            POINTS[72]    points of each card
            PL_START[73]  card c's placements are PL_START[c] .. PL_START[c+1]-1
            PL_MASK[648]  PL_VALUE[648]   placement i matches when grid & mask == value
            PL_BITLO[648] PL_BITHI[648]   the bit of placement i's card in the LO/HI word
            BY_VALUE[72]  card indices by point value: 28 ones, 26 twos, 13 threes, 5 fives

State (one int64 vector, STATE_SIZE = 279 slots; seat regions are sized for 5 seats;
this table is ``LAYOUT.table()``)::

    RNG           [0]         chance stream (simcore.rng)
    PLAYERS       [1]         seats in this game
    CUR           [2]         seat on turn; -1 once over
    GRID          [3]         27-bit grid, 3 bits a cell, cell 0 lowest
    OVER          [4]         1 once the game has ended
    TRUNCATED     [5]         1 if the round cap ended it
    ROUND         [6]         rounds completed (solo: turns)
    TURNS         [7]         player turns completed
    TURN_ACTIONS  [8]         discards and scores this turn
    TURN_SCORED   [9]         cards scored this turn
    TRIGGER_SEAT  [10]        seat whose score triggered the end; -1 not yet (2-5 players)
    STRIKES       [11]        solo strikes
    SCORED_TOTAL  [12]        cards scored by anyone
    DRAW_TOP      [13]        the draw pile is DECK[DRAW_TOP:DRAW_END], top card first
    DRAW_END      [14]
    DISCARD_LO    [15]        discard pile (set, two words)
    DISCARD_HI    [16]
    DISCARD_N     [17]        its size
    GAME_LO       [18]        the cards in this game (all 72; solo: the 16 chosen)
    GAME_HI       [19]
    NCARDS        [20]        their count
    RESHUFFLES    [21]        discard piles reshuffled so far
    PENDING       [22]        card just discarded for a shift/flip still to choose; -1
    HAND_LO       [23:28]     each seat's hand (set), LO word
    HAND_HI       [28:33]     HI word
    HAND_N        [33:38]     hand sizes (public)
    SKIPPED       [38:43]     1 if the seat's last turn was a skip
    CARDS         [43:48]     cards scored
    POINTS        [48:53]     their points
    ONES          [53:58]     1-point cards among them
    DECK          [58:130]    the shuffled deck (seat s dealt DECK[s*h:(s+1)*h]); after a reshuffle the pile
    SCORED_BY     [130:202]   seat that scored each card; -1
    SCORED_ROUND  [202:274]   round each card was scored in; -1
    SKIPS_TAKEN   [274:279]   skips each seat took

Actions (NUM_ACTIONS = 167; c = card index 0..71).  A shift or a flip takes two decisions:
first the card to discard, then the move it pays for::

    0   .. 11    shift pair p (only right after a discard)
    12  .. 20    flip cell x = action - 12 (only right after a discard)
    21  .. 92    discard c to shift or flip (c leaves the hand at once; PENDING = c)
    93  .. 164   score c (it must match the grid now)
    165          end turn
    166          skip

The 12 orthogonal pairs, in order: 0-1 0-3 1-2 1-4 2-5 3-4 3-6 4-5 4-7 5-8 6-7 7-8.

Why two decisions: a flat "move x card" encoding offers 21 discards per card in hand
against one end turn, so the uniformly random bot almost never scores or ends a turn
early (measured: 99.8% of 2-player random games hit the 200-round cap).  Split, the
random bot picks among cards, scores and end turn, which plays like the game.  Actions
name cards rather than hand slots, so the hand (which has no limit: a skip adds cards)
needs no cap: it can hold any of the 72 cards and every id stays valid.

Observation (``observation``: OBS_SIZE = 420 float64 entries, the same at every player
count; seat blocks are relative to the observer, absent seats 0; everything in it is
public or the observer's own; this table is ``OBS_LAYOUT.table()``)::

    OBS_GRID      [0:72]      face up in each cell, one-hot [8*cell + face] (S M F B H O E T); beneath: face ^ 1
    OBS_HAND      [72:144]    own hand, multi-hot by card index (id - 1)
    OBS_MATCH     [144:216]   own hand cards that match the grid now (may be scored)
    OBS_DISCARD   [216:288]   discard pile, multi-hot (returns at a reshuffle)
    OBS_SCORED    [288:360]   cards scored by anyone, multi-hot (gone for good)
    OBS_PHASE     [360:364]   a discard awaits its shift/flip; the turn has an action; it scored; its seat may skip
    OBS_ON_TURN   [364:369]   seat on turn, one-hot; seat blocks: [k] is seat (seat + k) % players
    OBS_PRESENT   [369:374]   1 for the relative seats in the game
    OBS_HAND_N    [374:379]   hand sizes / hand_size (above 1 after a skip)
    OBS_CARDS     [379:384]   cards scored / end trigger (solo: / cards in the game)
    OBS_POINTS    [384:389]   points of the scored cards / 30
    OBS_ONES      [389:394]   1-point cards scored / 10 (the bonus race)
    OBS_BONUS     [394:399]   1 if the seat would get the bonus if the game ended now
    OBS_SKIPPED   [399:404]   1 if the seat's last turn was a skip (it may not skip next)
    OBS_TRIGGER   [404:409]   the seat that triggered the end, one-hot
    OBS_PILES     [409:411]   draw pile and discard pile sizes / cards in the game
    OBS_PROGRESS  [411:414]   rounds / round_cap; 1 once the end is triggered; solo strikes / solo_strikes
    OBS_PLAYERS   [414:419]   player count, one-hot at [players - 1]
    OBS_OVER      [419]       1 once the game is over
"""
from __future__ import annotations

# a short summary for `playlab human` (`?`); the full rules: shared/rules/shifting_stones.md
RULES_SUMMARY = """\
Shifting Stones: a 3x3 grid of two-faced stones (S/M sun-moon, F/B fish-bird, H/O
horse-boat, E/T seed-tree). On your turn either skip (draw 2; not twice running) or take
actions, then end the turn and refill your hand to 4. Actions: pay with a card from your
hand to swap two adjacent stones or flip one stone; or score a card whose pattern (grey =
any stone) appears on the grid now, for its points. The end is triggered when someone has
scored enough cards (10/9/8/7 cards at 2/3/4/5 players); the round is finished, and the
most points wins (a bonus for the most 1-point cards). Solo: score all 16 before the
strikes run out."""

from functools import lru_cache

import numpy as np
from numba import njit

from simcore.kernel_helpers import (HALF, next_seat, pile_pop, pile_refill, set_has, set_kth, set_list,
                                    set_with, set_without, shuffle_range, win_share_returns)
from simcore.layout import COMMON_COLUMNS, Column, Columns, Field, Layout, copy_columns
from simcore.options import Option, encode_options
from simcore.protocol import HIDDEN, GameInfo
from simcore.rng import below, next_u64
from .shifting_stones_deck import DECK_SIZE, FACES, POINT_COUNTS, load_deck, placements

NUM_CARDS = DECK_SIZE
MAX_PLAYERS = 5
MAX_PLACE = 9  # a 1x1 footprint has 9 offsets; the real deck needs at most 6
PL_CAP = NUM_CARDS * MAX_PLACE
# tiles: kinds 0..3 (S/M, F/B, H/O, E/T) with 1, 2, 3, 3 copies
TILE_KINDS = np.array([0, 1, 1, 2, 2, 2, 3, 3, 3], dtype=np.int64)
# the end trigger by player count (index = players)
TRIGGER_BY_PLAYERS = np.array([0, 0, 10, 9, 8, 7], dtype=np.int64)
# point values; a deck has VALUE_COUNT cards of each (validated), listed in params
# (BY_VALUE) from VALUE_START on; the solo deck takes SOLO_COUNTS of each at random
VALUE_COUNT = np.array([POINT_COUNTS[v] for v in sorted(POINT_COUNTS)], dtype=np.int64)
VALUE_START = np.concatenate(([0], np.cumsum(VALUE_COUNT)[:-1])).astype(np.int64)
SOLO_COUNTS = np.array([8, 4, 3, 1], dtype=np.int64)

PAIRS = ((0, 1), (0, 3), (1, 2), (1, 4), (2, 5), (3, 4), (3, 6), (4, 5), (4, 7), (5, 8), (6, 7), (7, 8))
NUM_PAIRS = len(PAIRS)
PAIR_A = np.array([a for a, _ in PAIRS], dtype=np.int64)
PAIR_B = np.array([b for _, b in PAIRS], dtype=np.int64)

# ---- actions ------------------------------------------------------------------------------
SHIFT_BASE = 0  # + pair
FLIP_BASE = NUM_PAIRS  # + cell (12)
MOVES = NUM_PAIRS + 9  # the 21 moves a discard pays for
DISCARD_BASE = MOVES  # + card (21)
SCORE_BASE = DISCARD_BASE + NUM_CARDS  # + card (93)
END = SCORE_BASE + NUM_CARDS  # 165
SKIP = END + 1  # 166
NUM_ACTIONS = SKIP + 1  # 167

# ---- state ----------------------------------------------------------------------------------
# seat regions are sized for MAX_PLAYERS seats; the header's table is LAYOUT.table()
LAYOUT = Layout(
    Field("RNG", 1, "chance stream (simcore.rng)"),
    Field("PLAYERS", 1, "seats in this game"),
    Field("CUR", 1, "seat on turn; -1 once over"),
    Field("GRID", 1, "27-bit grid, 3 bits a cell, cell 0 lowest"),
    Field("OVER", 1, "1 once the game has ended"),
    Field("TRUNCATED", 1, "1 if the round cap ended it"),
    Field("ROUND", 1, "rounds completed (solo: turns)"),
    Field("TURNS", 1, "player turns completed"),
    Field("TURN_ACTIONS", 1, "discards and scores this turn"),
    Field("TURN_SCORED", 1, "cards scored this turn"),
    Field("TRIGGER_SEAT", 1, "seat whose score triggered the end; -1 not yet (2-5 players)"),
    Field("STRIKES", 1, "solo strikes"),
    Field("SCORED_TOTAL", 1, "cards scored by anyone"),
    Field("DRAW_TOP", 1, "the draw pile is DECK[DRAW_TOP:DRAW_END], top card first"),
    Field("DRAW_END", 1),
    Field("DISCARD_LO", 1, "discard pile (set, two words)"),
    Field("DISCARD_HI", 1),
    Field("DISCARD_N", 1, "its size"),
    Field("GAME_LO", 1, "the cards in this game (all 72; solo: the 16 chosen)"),
    Field("GAME_HI", 1),
    Field("NCARDS", 1, "their count"),
    Field("RESHUFFLES", 1, "discard piles reshuffled so far"),
    Field("PENDING", 1, "card just discarded for a shift/flip still to choose; -1"),
    Field("HAND_LO", MAX_PLAYERS, "each seat's hand (set), LO word"),
    Field("HAND_HI", MAX_PLAYERS, "HI word"),
    Field("HAND_N", MAX_PLAYERS, "hand sizes (public)"),
    Field("SKIPPED", MAX_PLAYERS, "1 if the seat's last turn was a skip"),
    Field("CARDS", MAX_PLAYERS, "cards scored"),
    Field("POINTS", MAX_PLAYERS, "their points"),
    Field("ONES", MAX_PLAYERS, "1-point cards among them"),
    Field("DECK", NUM_CARDS, "the shuffled deck (seat s dealt DECK[s*h:(s+1)*h]); after a reshuffle the pile"),
    Field("SCORED_BY", NUM_CARDS, "seat that scored each card; -1"),
    Field("SCORED_ROUND", NUM_CARDS, "round each card was scored in; -1"),
    Field("SKIPS_TAKEN", MAX_PLAYERS, "skips each seat took"),
)
LAYOUT.export(globals())

# ---- options (order = rules table, then deck) = slots of the parameter vector -------------
OPTIONS = (
    Option("random_faces", "bool", True, "each tile starts on a random face (off: face A up)"),
    Option("hand_size", "int", 4, "cards dealt, and refilled to at the end of a turn", low=1, high=10),
    Option("skip_draw", "int", 2, "cards drawn by a skip", low=0, high=10),
    Option("end_trigger", "int", 0,
           "scored cards that trigger the end; 0 means by player count (10/9/8/7)", low=0, high=72),
    Option("bonus_points", "int", 3, "bonus for the most 1-point cards", low=0, high=100),
    Option("bonus_if_no_ones", "bool", False, "award the bonus even when nobody has a 1-point card"),
    Option("skip_is_strike", "bool", True, "solo: a skip counts as a strike"),
    Option("solo_strikes", "int", 4, "solo: strikes that lose the game", low=1, high=100),
    Option("round_cap", "int", 200, "rounds after which an unfinished game is truncated",
           low=1, high=1000),
    Option("deck", "path", "", "a deck file of the packaged format (default: the packaged deck)"),
)
(OPT_RANDOM_FACES, OPT_HAND_SIZE, OPT_SKIP_DRAW, OPT_END_TRIGGER, OPT_BONUS_POINTS,
 OPT_BONUS_IF_NO_ONES, OPT_SKIP_IS_STRIKE, OPT_SOLO_STRIKES, OPT_ROUND_CAP, OPT_DECK) = range(len(OPTIONS))

P_POINTS = len(OPTIONS)
P_PL_START = P_POINTS + NUM_CARDS
P_PL_MASK = P_PL_START + NUM_CARDS + 1
P_PL_VALUE = P_PL_MASK + PL_CAP
P_PL_BITLO = P_PL_VALUE + PL_CAP
P_PL_BITHI = P_PL_BITLO + PL_CAP
P_BY_VALUE = P_PL_BITHI + PL_CAP
PARAMS_SIZE = P_BY_VALUE + NUM_CARDS


# ---- deck tables ---------------------------------------------------------------------------
def deck_tables(cards) -> np.ndarray:
    """The data part of ``params`` (from P_POINTS on) for a validated deck sorted by id."""
    t = np.zeros(PARAMS_SIZE, dtype=np.int64)
    i = 0
    for c, card in enumerate(cards):
        t[P_POINTS + c] = card.points
        t[P_PL_START + c] = i
        for cells in placements(card):
            for cell, face in cells.items():
                t[P_PL_MASK + i] |= 7 << (3 * cell)
                t[P_PL_VALUE + i] |= FACES.index(face) << (3 * cell)
            if c < HALF:
                t[P_PL_BITLO + i] = 1 << c
            else:
                t[P_PL_BITHI + i] = 1 << (c - HALF)
            i += 1
    t[P_PL_START + NUM_CARDS] = i
    t[P_BY_VALUE:P_BY_VALUE + NUM_CARDS] = sorted(range(NUM_CARDS), key=lambda c: (cards[c].points, c))
    return t[P_POINTS:]


@lru_cache(maxsize=16)
def _tables_for(cards) -> np.ndarray:
    t = deck_tables(cards)
    t.flags.writeable = False
    return t


def build_params(info: GameInfo, variant) -> np.ndarray:
    """Option values, then the match tables of the variant's deck (validated on load)."""
    opts = encode_options(info.options, variant)
    return np.concatenate([opts, _tables_for(load_deck(variant.get("deck") or None))])


def grid_code(letters: str) -> int:
    """'SMFBHOETS' (cell 0 first) as the 27-bit grid."""
    g = 0
    for cell, ch in enumerate(letters):
        g |= FACES.index(ch) << (3 * cell)
    return g


def grid_letters(grid: int) -> str:
    return "".join(FACES[(int(grid) >> (3 * cell)) & 7] for cell in range(9))


# ---- small helpers -------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _hand_add(state, s, c):
    state[HAND_LO + s], state[HAND_HI + s] = set_with(state[HAND_LO + s], state[HAND_HI + s], c)
    state[HAND_N + s] += 1


@njit(cache=True, inline="always")
def _hand_remove(state, s, c):
    state[HAND_LO + s], state[HAND_HI + s] = set_without(state[HAND_LO + s], state[HAND_HI + s], c)
    state[HAND_N + s] -= 1


@njit(cache=True, inline="always")
def _discard_add(state, c):
    state[DISCARD_LO], state[DISCARD_HI] = set_with(state[DISCARD_LO], state[DISCARD_HI], c)
    state[DISCARD_N] += 1


@njit(cache=True, inline="always")
def _kth_in_hand(state, s, k):
    return set_kth(state[HAND_LO + s], state[HAND_HI + s], k)


@njit(cache=True, inline="always")
def card_matches(params, grid, c):
    """Whether card ``c`` matches ``grid`` at some offset."""
    for i in range(params[P_PL_START + c], params[P_PL_START + c + 1]):
        if grid & params[P_PL_MASK + i] == params[P_PL_VALUE + i]:
            return True
    return False


@njit(cache=True)
def matching_cards(params, grid):
    """(LO, HI) sets of all deck cards that match ``grid`` (branch-free over placements)."""
    lo = np.int64(0)
    hi = np.int64(0)
    for i in range(params[P_PL_START + NUM_CARDS]):
        hit = -np.int64((grid & params[P_PL_MASK + i]) == params[P_PL_VALUE + i])
        lo |= params[P_PL_BITLO + i] & hit
        hi |= params[P_PL_BITHI + i] & hit
    return lo, hi


@njit(cache=True, inline="always")
def swap_cells(grid, a, b):
    fa = (grid >> (3 * a)) & 7
    fb = (grid >> (3 * b)) & 7
    d = fa ^ fb
    return grid ^ ((d << (3 * a)) | (d << (3 * b)))


@njit(cache=True, inline="always")
def flip_cell(grid, x):
    return grid ^ (np.int64(1) << (3 * x))


@njit(cache=True, inline="always")
def end_trigger(params, players):
    t = params[OPT_END_TRIGGER]
    if t > 0:
        return t
    return TRIGGER_BY_PLAYERS[players]


@njit(cache=True, inline="always")
def may_skip(state, s):
    return state[TURN_ACTIONS] == 0 and state[SKIPPED + s] == 0 and state[HAND_N + s] > 0


# ---- setup -----------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _choose_from_value(params, v, skip_lo, skip_hi, need, rng, slot, out, w):
    """Write ``need`` cards of value class ``v`` not in the skip set, chosen uniformly,
    to ``out[w:w+need]`` (``out[w:]`` is scratch; it must hold the class)."""
    n = 0
    for i in range(VALUE_COUNT[v]):
        c = params[P_BY_VALUE + VALUE_START[v] + i]
        if not set_has(skip_lo, skip_hi, c):
            out[w + n] = c
            n += 1
    for i in range(need):  # partial Fisher-Yates: the chosen cards end up in front
        j = i + below(rng, slot, n - i)
        t = out[w + i]
        out[w + i] = out[w + j]
        out[w + j] = t
    return w + need


@njit(cache=True)
def _choose_solo_deck(state, params):
    """DECK[0:16] = 8 one-, 4 two-, 3 three- and 1 five-point card, each chosen uniformly
    within its value (then shuffled by the caller)."""
    w = DECK
    for v in range(VALUE_COUNT.shape[0]):
        w = _choose_from_value(params, v, 0, 0, SOLO_COUNTS[v], state, RNG, state, w)
    for i in range(w, DECK + NUM_CARDS):
        state[i] = -1
    return w - DECK


@njit(cache=True)
def init(state, params, players, chance_key):
    state[:] = 0
    state[RNG] = chance_key
    state[PLAYERS] = players
    state[TRIGGER_SEAT] = -1
    state[PENDING] = -1
    for c in range(NUM_CARDS):
        state[SCORED_BY + c] = -1
        state[SCORED_ROUND + c] = -1
    # the grid: shuffle the 9 tiles into the cells (DECK is scratch here), then faces
    for i in range(9):
        state[DECK + i] = TILE_KINDS[i]
    shuffle_range(state, RNG, state, DECK, 9)
    grid = np.int64(0)
    up = np.int64(0)  # bit x: cell x shows face B
    if params[OPT_RANDOM_FACES] != 0:
        up = np.int64(next_u64(state, RNG) >> np.uint64(55))
    for cell in range(9):
        grid |= (2 * state[DECK + cell] + ((up >> cell) & 1)) << (3 * cell)
    state[GRID] = grid
    # the deck
    if players == 1:
        n = _choose_solo_deck(state, params)
    else:
        n = NUM_CARDS
        for c in range(NUM_CARDS):
            state[DECK + c] = c
    shuffle_range(state, RNG, state, DECK, n)
    state[NCARDS] = n
    lo = hi = np.int64(0)
    for i in range(n):
        lo, hi = set_with(lo, hi, state[DECK + i])
    state[GAME_LO] = lo
    state[GAME_HI] = hi
    state[DRAW_END] = n
    # the deal: seat s gets the next hand_size cards of the shuffled deck
    top = 0
    for s in range(players):
        for j in range(params[OPT_HAND_SIZE]):
            if top < n:
                _hand_add(state, s, state[DECK + top])
                top += 1
    state[DRAW_TOP] = top
    state[CUR] = 0


# ---- queries ---------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def current_player(state):
    return state[CUR]


@njit(cache=True, inline="always")
def is_terminal(state):
    return state[OVER] != 0


@njit(cache=True)
def legal_actions(state, params, out):
    if state[OVER] != 0:
        return 0
    if state[PENDING] >= 0:
        for m in range(MOVES):
            out[m] = m
        return MOVES
    s = state[CUR]
    h = set_list(state[HAND_LO + s], state[HAND_HI + s], DISCARD_BASE, out, 0)
    n = h
    for i in range(h):
        c = out[i] - DISCARD_BASE
        if card_matches(params, state[GRID], c):
            out[n] = SCORE_BASE + c
            n += 1
    out[n] = END
    n += 1
    if may_skip(state, s):
        out[n] = SKIP
        n += 1
    return n


@njit(cache=True)
def random_action(state, params, rng, slot):
    """Uniform over the legal actions.  A draw over discard-or-score for every hand card
    (+ end, + skip) that lands on the score of a card that does not match is rejected and
    drawn again: uniform over the legal actions while testing one card's match a draw."""
    if state[PENDING] >= 0:
        return below(rng, slot, MOVES)
    s = state[CUR]
    h = state[HAND_N + s]
    if h == 0:
        return END
    n = 2 * h + 1
    if may_skip(state, s):
        n += 1
    while True:
        k = below(rng, slot, n)
        if k < h:
            return DISCARD_BASE + _kth_in_hand(state, s, k)
        k -= h
        if k < h:
            c = _kth_in_hand(state, s, k)
            if card_matches(params, state[GRID], c):
                return SCORE_BASE + c
            continue
        if k == h:
            return END
        return SKIP


# ---- moves -------------------------------------------------------------------------------------
@njit(cache=True)
def _reshuffle(state):
    """The discard pile becomes the draw pile (cards in id order, then shuffled)."""
    n = set_list(state[DISCARD_LO], state[DISCARD_HI], 0, state, DECK) - DECK
    pile_refill(state, RNG, DECK, n, DRAW_TOP, DRAW_END)
    state[DISCARD_LO] = 0
    state[DISCARD_HI] = 0
    state[DISCARD_N] = 0
    state[RESHUFFLES] += 1


@njit(cache=True)
def _draw(state, s, k):
    for _ in range(k):
        c = pile_pop(state, DECK, DRAW_TOP, DRAW_END)
        if c < 0:
            if state[DISCARD_N] == 0:
                return
            _reshuffle(state)
            c = pile_pop(state, DECK, DRAW_TOP, DRAW_END)
        _hand_add(state, s, c)


@njit(cache=True)
def _finish_turn(state, params):
    state[TURNS] += 1
    state[TURN_ACTIONS] = 0
    state[TURN_SCORED] = 0
    players = state[PLAYERS]
    s = state[CUR]
    if players == 1:
        state[ROUND] += 1
        if state[STRIKES] >= params[OPT_SOLO_STRIKES] or state[SCORED_TOTAL] == state[NCARDS]:
            state[OVER] = 1
        elif state[ROUND] >= params[OPT_ROUND_CAP]:
            state[OVER] = 1
            state[TRUNCATED] = 1
    elif next_seat(s, 1, players) != 0:
        state[CUR] = next_seat(s, 1, players)
        return
    else:
        state[ROUND] += 1
        if state[TRIGGER_SEAT] >= 0:
            state[OVER] = 1
        elif state[ROUND] >= params[OPT_ROUND_CAP]:
            state[OVER] = 1
            state[TRUNCATED] = 1
        else:
            state[CUR] = 0
    if state[OVER] != 0:
        state[CUR] = -1


@njit(cache=True)
def apply(state, params, action):
    s = state[CUR]
    if action < MOVES:
        if action < FLIP_BASE:
            state[GRID] = swap_cells(state[GRID], PAIR_A[action], PAIR_B[action])
        else:
            state[GRID] = flip_cell(state[GRID], action - FLIP_BASE)
        state[PENDING] = -1
        return
    if action < SCORE_BASE:
        c = action - DISCARD_BASE
        _hand_remove(state, s, c)
        _discard_add(state, c)
        state[PENDING] = c
        state[TURN_ACTIONS] += 1
        return
    if action < END:
        c = action - SCORE_BASE
        _hand_remove(state, s, c)
        pts = params[P_POINTS + c]
        state[SCORED_BY + c] = s
        state[SCORED_ROUND + c] = state[ROUND]
        state[CARDS + s] += 1
        state[POINTS + s] += pts
        if pts == 1:
            state[ONES + s] += 1
        state[SCORED_TOTAL] += 1
        state[TURN_SCORED] += 1
        state[TURN_ACTIONS] += 1
        players = state[PLAYERS]
        if players > 1 and state[TRIGGER_SEAT] < 0 and state[CARDS + s] >= end_trigger(params, players):
            state[TRIGGER_SEAT] = s
        return
    solo = state[PLAYERS] == 1
    if action == SKIP:
        state[SKIPPED + s] = 1
        state[SKIPS_TAKEN + s] += 1
        if solo and params[OPT_SKIP_IS_STRIKE] != 0:
            state[STRIKES] += 1
        _draw(state, s, params[OPT_SKIP_DRAW])
    else:
        state[SKIPPED + s] = 0
        if solo and state[TURN_SCORED] == 0:
            state[STRIKES] += 1
        need = params[OPT_HAND_SIZE] - state[HAND_N + s]
        if need > 0:
            _draw(state, s, need)
    _finish_turn(state, params)


# ---- results -------------------------------------------------------------------------------------
@njit(cache=True)
def bonus_seats(state, params, players):
    """Bit s set if seat s gets the bonus for the most 1-point cards (never in solo)."""
    if players < 2:
        return 0
    best = 0
    for s in range(players):
        best = max(best, state[ONES + s])
    if best == 0 and params[OPT_BONUS_IF_NO_ONES] == 0:
        return 0
    m = 0
    for s in range(players):
        if state[ONES + s] == best:
            m |= 1 << s
    return m


@njit(cache=True, inline="always")
def _final_score(state, params, s, bonus):
    return state[POINTS + s] + ((bonus >> s) & 1) * params[OPT_BONUS_POINTS]


@njit(cache=True)
def summarize(state, params, players, row):
    n = players
    copy_columns(state, players, row, PLANS[players])
    bonus = bonus_seats(state, params, players)
    top = -1
    for s in range(n):
        score = _final_score(state, params, s, bonus)
        row[SCORE_COL[n] + s] = score
        top = max(top, score)
    truncated = state[TRUNCATED]
    for s in range(n):
        if truncated:
            win = 0
        elif n == 1:
            win = 1 if state[SCORED_TOTAL] == state[NCARDS] else 0
        else:
            win = 1 if row[SCORE_COL[n] + s] == top else 0
        row[WIN_COL[n] + s] = win
        row[BONUS_COL[n] + s] = (bonus >> s) & 1
    for c in range(NUM_CARDS):
        by = state[SCORED_BY + c]
        row[CARD_COL[n] + c] = -1 if by < 0 else state[SCORED_ROUND + c] * CARD_CODE_SEATS + by


@njit(cache=True)
def returns(state, params, players, out):
    """A win is worth 1, shared equally among tied winners; a truncated game 1/players each
    (solo: a win 1, a loss 0); 0 for everyone before the end."""
    winners = 0
    if state[OVER] != 0 and state[TRUNCATED] == 0:
        if players == 1:
            winners = 1 if state[SCORED_TOTAL] == state[NCARDS] else 0
        else:
            bonus = bonus_seats(state, params, players)
            top = -1
            for s in range(players):
                score = _final_score(state, params, s, bonus)
                if score > top:
                    top = score
                    winners = 0
                if score == top:
                    winners |= np.int64(1) << s
    win_share_returns(out, players, state[OVER] != 0, state[TRUNCATED], winners)


# ---- information sets ------------------------------------------------------------------------------
@njit(cache=True)
def observe(state, player, out):
    """Hide other hands (their sizes stay), the draw pile's order (the deck array, whose
    dealt part would also reveal hands), the chance stream and, solo, which 16 cards were
    chosen (the unseen cards are everything not in hand, discarded or scored)."""
    for i in range(state.shape[0]):  # no slice copy: the engine calls this without reference counting
        out[i] = state[i]
    out[RNG] = HIDDEN
    for s in range(state[PLAYERS]):
        if s != player:
            out[HAND_LO + s] = HIDDEN
            out[HAND_HI + s] = HIDDEN
    for i in range(NUM_CARDS):
        out[DECK + i] = HIDDEN
    # only the pile's size is public; where it sits in DECK is bookkeeping, shown in the
    # canonical place determinize deals it to
    out[DRAW_TOP] = 0
    out[DRAW_END] = state[DRAW_END] - state[DRAW_TOP]
    if state[PLAYERS] == 1:
        out[GAME_LO] = HIDDEN
        out[GAME_HI] = HIDDEN


@njit(cache=True)
def determinize(view, params, player, rng, slot, out):
    """Deal the unseen cards at random: into the other hands (sizes kept) and the draw pile;
    solo, choose the draw pile among the unseen cards so that the game holds 8/4/3/1 cards
    of each value.  The new pile is DECK[0:size] with DRAW_TOP = 0."""
    out[:] = view
    players = view[PLAYERS]
    seen_lo = view[HAND_LO + player] | view[DISCARD_LO]
    seen_hi = view[HAND_HI + player] | view[DISCARD_HI]
    for c in range(NUM_CARDS):
        if view[SCORED_BY + c] >= 0:
            seen_lo, seen_hi = set_with(seen_lo, seen_hi, c)
    if players == 1:
        w = DECK
        for v in range(VALUE_COUNT.shape[0]):
            need = SOLO_COUNTS[v]
            for i in range(VALUE_COUNT[v]):
                if set_has(seen_lo, seen_hi, params[P_BY_VALUE + VALUE_START[v] + i]):
                    need -= 1
            w = _choose_from_value(params, v, seen_lo, seen_hi, need, rng, slot, out, w)
        w -= DECK
        shuffle_range(rng, slot, out, DECK, w)
        glo = seen_lo
        ghi = seen_hi
        for i in range(w):
            glo, ghi = set_with(glo, ghi, out[DECK + i])
        out[GAME_LO] = glo
        out[GAME_HI] = ghi
    else:
        w = 0
        for c in range(NUM_CARDS):
            if not set_has(seen_lo, seen_hi, c):
                out[DECK + w] = c
                w += 1
        shuffle_range(rng, slot, out, DECK, w)
        k = w
        for s in range(players):
            if s == player:
                continue
            lo = hi = np.int64(0)
            for _ in range(view[HAND_N + s]):
                k -= 1
                lo, hi = set_with(lo, hi, out[DECK + k])
            out[HAND_LO + s] = lo
            out[HAND_HI + s] = hi
        w = k
    for i in range(w, NUM_CARDS):
        out[DECK + i] = -1
    out[DRAW_TOP] = 0
    out[DRAW_END] = w
    out[RNG] = np.int64(next_u64(rng, slot))  # a fresh future, independent of the real one


# ---- observation ------------------------------------------------------------------------------------
# what a seat may know, as floats for learning; seat blocks are relative to the observer.
# Every entry is 0/1 or a fraction of its cap, except the four counts bounded by the deck
# (Field low/high, simcore.layout): there is no hand limit (a hand may hold every card in
# the game), a seat may score past the end trigger in its last turns, and the points and
# 1-point cards it can score are the deck's.
OBS_POINTS_SCALE = 30.0  # about a winning score
OBS_ONES_SCALE = 10.0


def _deck_counts(players):
    """Cards of each point value (1, 2, 3, 5) in a game for the player count."""
    return SOLO_COUNTS if players == 1 else VALUE_COUNT


def _deck_cards(players):
    return int(_deck_counts(players).sum())


def _deck_points(players):
    return int(np.dot(_deck_counts(players), sorted(POINT_COUNTS)))


OBS_LAYOUT = Layout(
    Field("OBS_GRID", 9 * 8, "face up in each cell, one-hot [8*cell + face] (S M F B H O E T); beneath: face ^ 1"),
    Field("OBS_HAND", NUM_CARDS, "own hand, multi-hot by card index (id - 1)"),
    Field("OBS_MATCH", NUM_CARDS, "own hand cards that match the grid now (may be scored)"),
    Field("OBS_DISCARD", NUM_CARDS, "discard pile, multi-hot (returns at a reshuffle)"),
    Field("OBS_SCORED", NUM_CARDS, "cards scored by anyone, multi-hot (gone for good)"),
    Field("OBS_PHASE", 4, "a discard awaits its shift/flip; the turn has an action; it scored; its seat may skip"),
    Field("OBS_ON_TURN", MAX_PLAYERS, "seat on turn, one-hot; seat blocks: [k] is seat (seat + k) % players"),
    Field("OBS_PRESENT", MAX_PLAYERS, "1 for the relative seats in the game"),
    Field("OBS_HAND_N", MAX_PLAYERS, "hand sizes / hand_size (above 1 after a skip)",
          high=lambda v, n: _deck_cards(n) / v["hand_size"]),
    Field("OBS_CARDS", MAX_PLAYERS, "cards scored / end trigger (solo: / cards in the game)",
          high=lambda v, n: 1.0 if n == 1 else NUM_CARDS / (v["end_trigger"] or int(TRIGGER_BY_PLAYERS[n]))),
    Field("OBS_POINTS", MAX_PLAYERS, "points of the scored cards / 30",
          high=lambda v, n: _deck_points(n) / OBS_POINTS_SCALE),
    Field("OBS_ONES", MAX_PLAYERS, "1-point cards scored / 10 (the bonus race)",
          high=lambda v, n: _deck_counts(n)[0] / OBS_ONES_SCALE),
    Field("OBS_BONUS", MAX_PLAYERS, "1 if the seat would get the bonus if the game ended now"),
    Field("OBS_SKIPPED", MAX_PLAYERS, "1 if the seat's last turn was a skip (it may not skip next)"),
    Field("OBS_TRIGGER", MAX_PLAYERS, "the seat that triggered the end, one-hot"),
    Field("OBS_PILES", 2, "draw pile and discard pile sizes / cards in the game"),
    Field("OBS_PROGRESS", 3, "rounds / round_cap; 1 once the end is triggered; solo strikes / solo_strikes"),
    Field("OBS_PLAYERS", MAX_PLAYERS, "player count, one-hot at [players - 1]"),
    Field("OBS_OVER", 1, "1 once the game is over"),
    size_name="OBS_SIZE",
)
OBS_LAYOUT.export(globals())


@njit(cache=True)
def observation(view, params, seat, out):
    """The observation of ``seat`` from its view (every slot read here is public or the
    seat's own: hands of others, the pile order and the stream are never touched)."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    players = view[PLAYERS]
    grid = view[GRID]
    for cell in range(9):
        out[OBS_GRID + 8 * cell + ((grid >> (3 * cell)) & 7)] = 1.0
    lo = view[HAND_LO + seat]
    hi = view[HAND_HI + seat]
    mlo, mhi = matching_cards(params, grid)
    dlo = view[DISCARD_LO]
    dhi = view[DISCARD_HI]
    for c in range(NUM_CARDS):
        if set_has(lo, hi, c):
            out[OBS_HAND + c] = 1.0
            if set_has(mlo, mhi, c):
                out[OBS_MATCH + c] = 1.0
        if set_has(dlo, dhi, c):
            out[OBS_DISCARD + c] = 1.0
        if view[SCORED_BY + c] >= 0:
            out[OBS_SCORED + c] = 1.0
    cur = view[CUR]
    over = view[OVER] != 0
    if view[PENDING] >= 0:
        out[OBS_PHASE] = 1.0
    if view[TURN_ACTIONS] > 0:
        out[OBS_PHASE + 1] = 1.0
    if view[TURN_SCORED] > 0:
        out[OBS_PHASE + 2] = 1.0
    if not over and cur >= 0 and may_skip(view, cur):
        out[OBS_PHASE + 3] = 1.0
    ncards = max(view[NCARDS], 1)
    goal = end_trigger(params, players) if players > 1 else ncards
    bonus = bonus_seats(view, params, players)
    s = seat
    for k in range(players):
        out[OBS_PRESENT + k] = 1.0
        if s == cur:
            out[OBS_ON_TURN + k] = 1.0
        out[OBS_HAND_N + k] = view[HAND_N + s] / params[OPT_HAND_SIZE]
        out[OBS_CARDS + k] = view[CARDS + s] / goal
        out[OBS_POINTS + k] = view[POINTS + s] / OBS_POINTS_SCALE
        out[OBS_ONES + k] = view[ONES + s] / OBS_ONES_SCALE
        out[OBS_BONUS + k] = (bonus >> s) & 1
        out[OBS_SKIPPED + k] = view[SKIPPED + s]
        if view[TRIGGER_SEAT] == s:
            out[OBS_TRIGGER + k] = 1.0
        s = next_seat(s, 1, players)
    out[OBS_PILES] = (view[DRAW_END] - view[DRAW_TOP]) / ncards
    out[OBS_PILES + 1] = view[DISCARD_N] / ncards
    out[OBS_PROGRESS] = view[ROUND] / params[OPT_ROUND_CAP]
    if view[TRIGGER_SEAT] >= 0:
        out[OBS_PROGRESS + 1] = 1.0
    if players == 1:
        out[OBS_PROGRESS + 2] = view[STRIKES] / params[OPT_SOLO_STRIKES]
    out[OBS_PLAYERS + players - 1] = 1.0
    if over:
        out[OBS_OVER] = 1.0


# ---- declaration -------------------------------------------------------------------------------------
CARD_CODE_SEATS = 8  # a card column holds round * 8 + seat (seats < 5)
# the common columns, with the two this game copies straight from the state
_COMMON = {c.name: c for c in COMMON_COLUMNS}
COLUMNS = Columns(
    LAYOUT,
    Column("cards", "cards the seat scored", per_seat=True, field="CARDS"),
    Column("points", "points of the seat's scored cards (the score without the bonus)",
           per_seat=True, field="POINTS"),
    Column("bonus", "1 if the seat got the bonus for the most 1-point cards", per_seat=True),
    Column("rounds", "rounds completed: every seat had a turn (solo: turns; a truncated game: the cap)",
           field="ROUND"),
    Column("strikes", "turns ended without scoring a card (a skip counts unless skip_is_strike=false)",
           field="STRIKES"),
    Column("ones", "1-point cards the seat scored (the bonus race)", per_seat=True, field="ONES"),
    Column("reshuffles", "times the discard pile was shuffled into a new draw pile", field="RESHUFFLES"),
    Column("trigger_seat", "seat whose score reached the end trigger first (-1: nobody, i.e. truncated)",
           field="TRIGGER_SEAT"),
    Column("skips", "skips the seat took", per_seat=True, field="SKIPS_TAKEN"),
    # one column per card (id = index + 1), read back into a per-card table by
    # reports.balance; computed by summarize from SCORED_BY and SCORED_ROUND
    *[Column(f"card_{c + 1}_scored", f"card {c + 1}: -1 if nobody scored it, else "
             f"{CARD_CODE_SEATS} x the round it was scored in + the seat that scored it")
      for c in range(NUM_CARDS)],
    common=(
        Column("score", "final score: points of the scored cards plus the bonus (solo: the points)",
               per_seat=True),
        Column("win", "1 for every seat with the top score (a tie is a shared win; solo: all 16 "
               "cards scored); all 0 when truncated", per_seat=True),
        Column("truncated", _COMMON["truncated"].doc, field="TRUNCATED"),
        Column("turns", "player turns completed: each end turn or skip is one", field="TURNS"),
    ),
    only_for={"strikes": (1,), "trigger_seat": (2, 3, 4, 5)},
)
PLANS = COLUMNS.plans(MAX_PLAYERS)
# row positions (after the runner's prefix) by player count; 0 where a count is impossible
SCORE_COL, WIN_COL, BONUS_COL, CARD_COL = (
    np.array([COLUMNS.index(name, n) if n else 0 for n in range(MAX_PLAYERS + 1)], dtype=np.int64)
    for name in ("score", "win", "bonus", "card_1_scored"))


def _max_decisions(players: int) -> int:
    # a turn is at most two decisions per card in hand (a discard and its move; a score
    # or a skip is one) plus its end, and a hand holds at most the whole deck
    return OPTIONS[OPT_ROUND_CAP].high * players * (2 * NUM_CARDS + 1)


def _impossible(variant, players: int) -> str | None:
    """Why the end of a 2-5 player game is never reached with these options (None: it can be)."""
    trigger = variant["end_trigger"]
    if players < 2 or trigger == 0:
        return None  # solo ends by strikes or the last card; the default triggers are reachable
    others = (players - 1) * variant["hand_size"]
    if trigger > NUM_CARDS - others:
        # the others refill to hand_size from the one deck, so one player reaching the trigger
        # needs the others' hands emptied by an exhausted deck: possible on paper, never in play
        return (f"end_trigger={trigger} needs one player to score {trigger} of the {NUM_CARDS} cards while the "
                f"other {players - 1} refill to hand_size={variant['hand_size']}: the end is practically never "
                f"triggered (at most {NUM_CARDS - others} leaves room for their hands)")
    return None


INFO = GameInfo(
    name="shifting-stones",
    title="Shifting Stones",
    min_players=1,
    max_players=MAX_PLAYERS,
    options=OPTIONS,
    num_actions=NUM_ACTIONS,
    state_size=lambda players: STATE_SIZE,
    extra_columns=COLUMNS.extra_names,
    column_docs=tuple(COLUMNS.docs()),
    observation_size=lambda players: OBS_SIZE,
    max_decisions=_max_decisions,
    params_builder=build_params,
    chance="deal and reshuffles resolved inside apply from the in-state stream",
    information="imperfect (hidden hands and draw order)",
    utility="points (cards + bonus) per seat; shared wins; solo: win/loss",
    description="shift, flip and score pattern cards on a 3x3 grid of two-faced stones",
    truncation_option="round_cap",
    impossible=_impossible,
)


# ---- words ------------------------------------------------------------------------------------------
def action_name(action: int) -> str:
    action = int(action)
    if 0 <= action < FLIP_BASE:
        a, b = PAIRS[action]
        return f"shift {a}-{b}"
    if FLIP_BASE <= action < MOVES:
        return f"flip {action - FLIP_BASE}"
    if DISCARD_BASE <= action < SCORE_BASE:
        return f"discard {action - DISCARD_BASE + 1} to shift or flip"
    if SCORE_BASE <= action < END:
        return f"score {action - SCORE_BASE + 1}"
    if action == END:
        return "end turn"
    if action == SKIP:
        return "skip"
    raise ValueError(f"no Shifting Stones action {action}")


def _ids(cards) -> str:
    return " ".join(str(int(c) + 1) for c in cards)


def trace_start(state, params, players) -> list[str]:
    h = int(params[OPT_HAND_SIZE])
    deck = [int(c) for c in state[DECK:DECK + int(state[DRAW_END])]]
    events = [f"grid {grid_letters(state[GRID])}"]
    for s in range(players):
        events.append(f"hand {s} {_ids(deck[s * h:(s + 1) * h])}".rstrip())
    events.append(f"deck {_ids(deck[int(state[DRAW_TOP]):])}".rstrip())
    return events


def trace_step(before, action, after, params, players) -> list[str]:
    s = int(before[CUR])
    action = int(action)
    if action < MOVES:
        c = int(before[PENDING]) + 1
        if action < FLIP_BASE:
            return [f"shift {s} {PAIRS[action][0]} {PAIRS[action][1]} {c}"]
        return [f"flip {s} {action - FLIP_BASE} {c}"]
    if action < SCORE_BASE:
        return []  # the discard is written with the move it pays for
    if action < END:
        return [f"score {s} {action - SCORE_BASE + 1}"]
    events = [f"{'end' if action == END else 'skip'} {s}"]
    if after[STRIKES] > before[STRIKES]:
        events.append(f"strike {s}")
    k = int(after[HAND_N + s] - before[HAND_N + s])
    top, end = int(before[DRAW_TOP]), int(before[DRAW_END])
    if after[RESHUFFLES] == before[RESHUFFLES]:
        first, rest = before[DECK + top:DECK + top + k], []
    else:
        first = before[DECK + top:DECK + end]
        rest = after[DECK:DECK + int(after[DRAW_TOP])]
    if len(first):
        events.append(f"draw {s} {_ids(first)}")
    if after[RESHUFFLES] != before[RESHUFFLES]:
        events.append(f"reshuffle {_ids(after[DECK:DECK + int(after[DRAW_END])])}")
        if len(rest):
            events.append(f"draw {s} {_ids(rest)}")
    return events


def trace_result(values: dict, players: int) -> dict:
    if players != 1:
        return {}
    return {"win": bool(values["win_0"]), "cards": values["cards_0"], "points": values["points_0"],
            "strikes": values["strikes"], "turns": values["turns"]}


# ---- for `playlab show` and humans --------------------------------------------------------------------
# fields of every trace event (shared/spec/trace.md); a name starting with "*" takes the
# remaining tokens as a list
EVENT_FIELDS = {
    "grid": ("faces",),
    "hand": ("seat", "cards*"),
    "deck": ("cards*",),
    "shift": ("seat", "a", "b", "card"),
    "flip": ("seat", "cell", "card"),
    "score": ("seat", "card"),
    "end": ("seat",),
    "skip": ("seat",),
    "draw": ("seat", "cards*"),
    "reshuffle": ("cards*",),
    "strike": ("seat",),
}


FACE_NAMES = dict(zip(FACES, ("sun", "moon", "fish", "bird", "horse", "boat", "seed", "tree")))
GREY = "."  # a grey "any stone" cell of a card, as drawn here


def card_rows(params, c: int) -> tuple[str, ...]:
    """Card ``c``'s footprint (top row first, ``*`` grey) rebuilt from its placements in
    ``params``, so the drawing is of the deck the game really uses.  Placements run over
    offsets row by row, so the second is one cell right of the first unless the footprint
    is 3 wide; the count of placements is (4 - height) * (4 - width)."""
    start, stop = int(params[P_PL_START + c]), int(params[P_PL_START + c + 1])
    n = stop - start
    m0, v0 = int(params[P_PL_MASK + start]), int(params[P_PL_VALUE + start])
    cols = 1
    if n > 1 and int(params[P_PL_MASK + start + 1]) == m0 << 3:
        cols = 2
        if n > 2 and int(params[P_PL_MASK + start + 2]) == m0 << 6:
            cols = 3
    height, width = 4 - n // cols, 4 - cols
    return tuple("".join(FACES[(v0 >> (3 * (3 * i + j))) & 7] if (m0 >> (3 * (3 * i + j))) & 7 else "*"
                         for j in range(width)) for i in range(height))


def _points_word(p: int) -> str:
    return f"{p} point" + ("" if p == 1 else "s")


def _card_label(params, c: int) -> str:
    return f"#{c + 1} ({int(params[P_POINTS + c])}p)"


def _cards_block(params, cards, per_line: int = 8) -> list[str]:
    """Cards side by side: the label, then the pattern (grey cells as ``GREY``)."""
    lines: list[str] = []
    cards = list(cards)
    for k in range(0, len(cards), per_line):
        chunk = cards[k:k + per_line]
        labels = [_card_label(params, c) for c in chunk]
        pats = [[r.replace("*", GREY) for r in card_rows(params, c)] for c in chunk]
        widths = [max(len(lab), 3) + 2 for lab in labels]
        lines.append("".join(lab.ljust(w) for lab, w in zip(labels, widths)).rstrip())
        for i in range(max(len(p) for p in pats)):
            lines.append("".join((p[i] if i < len(p) else "").ljust(w) for p, w in zip(pats, widths)).rstrip())
    return lines


def grid_lines(grid: int) -> list[str]:
    """The grid as a board: each cell ``S/m`` (face up capital, the face beneath lower-case),
    with the cell numbers alongside."""
    grid = int(grid)
    sep = "+-----+-----+-----+"
    lines = [sep]
    for r in range(3):
        cells = []
        for col in range(3):
            f = (grid >> (3 * (3 * r + col))) & 7
            cells.append(f" {FACES[f]}/{FACES[f ^ 1].lower()} ")
        lines.append("|" + "|".join(cells) + f"|   {3 * r} {3 * r + 1} {3 * r + 2}")
        lines.append(sep)
    return lines


def _set_cards(lo: int, hi: int) -> list[int]:
    lo, hi = int(lo), int(hi)
    return [c for c in range(HALF) if lo >> c & 1] + [HALF + c for c in range(HALF) if hi >> c & 1]


def _scored_cards(state, s: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if int(state[SCORED_BY + c]) == s]


def _trigger_of(params, players: int) -> int:
    t = int(params[OPT_END_TRIGGER])
    return t if t > 0 else int(TRIGGER_BY_PLAYERS[players])


def _result_words(state, params, players) -> str:
    """The final scores (bonus included), who got the bonus and who won."""
    row = np.zeros(len(INFO.result_columns(players)), dtype=np.int64)
    summarize(np.asarray(state, dtype=np.int64), np.asarray(params), players, row)
    scores = [int(row[SCORE_COL[players] + k]) for k in range(players)]
    wins = [k for k in range(players) if row[WIN_COL[players] + k]]
    bonus = [k for k in range(players) if row[BONUS_COL[players] + k]]
    if state[TRUNCATED]:
        verdict = "truncated at the round cap (no result)"
    elif players == 1:
        verdict = "won: every card scored" if wins else f"lost: {int(state[STRIKES])} strikes"
    else:
        verdict = "winner" + ("s " if len(wins) > 1 else " ") + ", ".join(map(str, wins))
    extra = f"; bonus to seat{'s' if len(bonus) > 1 else ''} {', '.join(map(str, bonus))}" if bonus else ""
    return f"scores {scores}{extra}; {verdict}"


def render(view, seat, params, players) -> str:
    """Seat ``seat``'s view in words: the grid with both faces, its hand with the cards'
    patterns, the other hands as counts, the piles, scores, bonus race, whose turn and what
    is pending, and how close the end is.  Reads only what the seat may know."""
    v = [int(x) for x in view]
    seat = int(seat)
    cur = v[CUR]
    out = [f"Shifting Stones, {players} player{'s' if players > 1 else ''}: seat {seat}'s view"]
    if v[OVER]:
        out.append(f"Game over after {v[ROUND]} rounds: " + _result_words(np.asarray(view), params, players))
    else:
        who = "you" if cur == seat else f"seat {cur}"
        out.append(f"Round {v[ROUND] + 1}: {who} to play")
        if v[PENDING] >= 0:
            out.append(f"  pending: {_card_label(params, v[PENDING])} was discarded; "
                       "choose the shift or flip it pays for")
        else:
            doing = f"{v[TURN_ACTIONS]} action(s) this turn, {v[TURN_SCORED]} card(s) scored"
            skip = "may skip" if may_skip(np.asarray(view), cur) else "may not skip"
            out.append(f"  {doing}; {skip}")
    out.append("")
    out.append("Grid (capital: face up, lower-case: the face beneath):")
    out += ["  " + line for line in grid_lines(v[GRID])]
    out.append("  " + ", ".join(f"{f} {name}" for f, name in FACE_NAMES.items()))
    out.append("")
    hand = _set_cards(v[HAND_LO + seat], v[HAND_HI + seat])
    out.append(f"Your hand (seat {seat}): {len(hand)} card{'s' if len(hand) != 1 else ''}"
               + (f"  ({GREY} = any stone)" if hand else ""))
    out += ["  " + line for line in _cards_block(params, hand)]
    scorable = [c for c in hand if card_matches(params, v[GRID], c)]
    if hand:
        out.append("  scorable now: " + (" ".join(f"#{c + 1}" for c in scorable) if scorable else "none"))
    out.append("")
    for s in range(players):
        sc = _scored_cards(v, s)
        held = "you" if s == seat else f"{v[HAND_N + s]} cards in hand (hidden)"
        flags = ", skipped last turn" if v[SKIPPED + s] else ""
        out.append(f"Seat {s}: {held}; scored {v[CARDS + s]} card(s), {v[POINTS + s]} points, "
                   f"{v[ONES + s]} one-point card(s){flags}")
        if sc:
            out.append("  scored: " + " ".join(_card_label(params, c) for c in sc))
    out.append("")
    out.append(f"Draw pile: {v[DRAW_END] - v[DRAW_TOP]} cards; discard pile: {v[DISCARD_N]} cards"
               f" (reshuffled {v[RESHUFFLES]} time{'s' if v[RESHUFFLES] != 1 else ''})")
    if players == 1:
        out.append(f"Solo: {v[CARDS]} of {v[NCARDS]} cards scored; strikes {v[STRIKES]} of "
                   f"{int(params[OPT_SOLO_STRIKES])}")
    else:
        best = max(v[ONES + s] for s in range(players))
        leaders = [s for s in range(players) if v[ONES + s] == best]
        if best == 0 and not params[OPT_BONUS_IF_NO_ONES]:
            out.append(f"Bonus race (+{int(params[OPT_BONUS_POINTS])} for the most 1-point cards): nobody has one yet")
        else:
            out.append(f"Bonus race (+{int(params[OPT_BONUS_POINTS])} for the most 1-point cards): "
                       f"seat{'s' if len(leaders) > 1 else ''} {', '.join(map(str, leaders))} with {best}")
        goal = _trigger_of(params, players)
        if v[TRIGGER_SEAT] >= 0:
            left = [] if v[OVER] else list(range(cur, players))
            rest = f"; still to play: seat{'s' if len(left) > 1 else ''} {', '.join(map(str, left))}" if left else ""
            out.append(f"End triggered by seat {v[TRIGGER_SEAT]} ({goal} cards): the round is finished{rest}")
        else:
            most = max(v[CARDS + s] for s in range(players))
            out.append(f"End: triggered at {goal} scored cards; most so far {most}")
    return "\n".join(out)


def describe_step(before, action, after, params, players) -> list[str]:
    """What one action changed, in words: the grid after every shift and flip, a scored card
    with its points and pattern, draws, reshuffles, strikes, the end trigger and the result."""
    b = [int(x) for x in before]
    a = [int(x) for x in after]
    s = b[CUR]
    action = int(action)
    lines: list[str] = []
    if action < MOVES:
        paid = _card_label(params, b[PENDING])
        if action < FLIP_BASE:
            x, y = PAIRS[action]
            lines.append(f"seat {s} swaps cells {x} and {y} (paid with {paid}):")
        else:
            x = action - FLIP_BASE
            was, now = FACES[(b[GRID] >> (3 * x)) & 7], FACES[(a[GRID] >> (3 * x)) & 7]
            lines.append(f"seat {s} flips cell {x}, {FACE_NAMES[was]} to {FACE_NAMES[now]} (paid with {paid}):")
        lines += ["  " + line for line in grid_lines(a[GRID])]
        return lines
    if action < SCORE_BASE:
        c = action - DISCARD_BASE
        return [f"seat {s} discards {_card_label(params, c)} to pay for a shift or flip"]
    if action < END:
        c = action - SCORE_BASE
        pts = int(params[P_POINTS + c])
        n = a[CARDS + s]
        lines.append(f"seat {s} scores #{c + 1}, {_points_word(pts)}: now {n} card{'s' if n != 1 else ''}, "
                     f"{_points_word(a[POINTS + s])}")
        lines += ["  " + r.replace("*", GREY) for r in card_rows(params, c)]
        if a[TRIGGER_SEAT] >= 0 and b[TRIGGER_SEAT] < 0:
            lines.append(f"seat {s} reached {a[CARDS + s]} cards: the end is triggered, the round is finished")
        return lines
    if action == SKIP:
        lines.append(f"seat {s} skips")
    else:
        lines.append(f"seat {s} ends the turn" + ("" if b[TURN_ACTIONS] else " without an action"))
    if a[STRIKES] > b[STRIKES]:
        lines.append(f"strike {a[STRIKES]} of {int(params[OPT_SOLO_STRIKES])}")
    if a[RESHUFFLES] > b[RESHUFFLES]:
        lines.append(f"the discard pile ({b[DISCARD_N]} cards) is shuffled into a new draw pile")
    drawn = sorted(set(_set_cards(a[HAND_LO + s], a[HAND_HI + s])) - set(_set_cards(b[HAND_LO + s], b[HAND_HI + s])))
    if drawn:
        lines.append(f"seat {s} draws {' '.join(f'#{c + 1}' for c in drawn)} (hand {a[HAND_N + s]}; "
                     f"draw pile {a[DRAW_END] - a[DRAW_TOP]})")
    if a[OVER]:
        lines.append("game over: " + _result_words(after, params, players))
    else:
        lines.append(f"seat {a[CUR]} to play")
    return lines


# ---- search evaluation (protocol ``evaluate``) -------------------------------------------------
EVAL_TEMPERATURE = 3.0  # points


@njit(cache=True)
def evaluate(state, params, players, out):
    """Solo: the share of the game's cards scored so far.  Otherwise a soft win
    probability: softmax of the points (with the 1-point bonus as it stands) at
    temperature ``EVAL_TEMPERATURE``."""
    if players == 1:
        out[0] = state[SCORED_TOTAL] / max(1, state[NCARDS])
        return
    bonus = bonus_seats(state, params, players)
    top = -1e18
    for s in range(players):
        top = max(top, np.float64(_final_score(state, params, s, bonus)))
    total = 0.0
    for s in range(players):
        out[s] = np.exp((_final_score(state, params, s, bonus) - top) / EVAL_TEMPERATURE)
        total += out[s]
    for s in range(players):
        out[s] /= total
