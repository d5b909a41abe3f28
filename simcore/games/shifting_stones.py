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

State (one int64 vector, STATE_SIZE slots; seat regions are sized for 5 seats)::

    RNG            chance stream (simcore.rng)      PLAYERS   seats in this game
    CUR            seat on turn; -1 once over       GRID      27-bit grid
    OVER           1 once the game has ended        TRUNCATED 1 if the round cap ended it
    ROUND          rounds completed                 TURNS     player turns completed
    TURN_ACTIONS   actions taken this turn          TURN_SCORED  cards scored this turn
    PENDING        card just discarded for a shift/flip still to choose, -1
    TRIGGER_SEAT   seat whose score triggered the end (-1: not yet; 2-5 players)
    STRIKES        solo strikes                     SCORED_TOTAL cards scored by anyone
    DRAW_TOP, DRAW_END   the draw pile is DECK[DRAW_TOP:DRAW_END], top card first
    DISCARD_LO/HI  discard pile (set)               DISCARD_N  its size
    GAME_LO/HI     the cards in this game (all 72; solo: the 16 chosen)   NCARDS  their count
    RESHUFFLES     discard piles reshuffled so far
    HAND_LO[5], HAND_HI[5]   each seat's hand (set)  HAND_N[5]  hand sizes (public)
    SKIPPED[5]     1 if the seat's last turn was a skip
    CARDS[5], POINTS[5], ONES[5]   cards scored, their points, 1-point cards among them
    DECK[72]       the shuffled deck; at the start seat s was dealt
                   DECK[s*hand_size:(s+1)*hand_size]; after a reshuffle the new pile
    SCORED_BY[72]  seat that scored each card (-1)   SCORED_ROUND[72]  round it was scored in (-1)

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
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.options import Option, encode_options
from simcore.protocol import HIDDEN, GameInfo
from simcore.rng import below, next_u64, popcount, shuffle
from .shifting_stones_deck import DECK_SIZE, FACES, POINT_COUNTS, load_deck, placements

NUM_CARDS = DECK_SIZE
HALF = 36  # cards per set word
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

# ---- state slots --------------------------------------------------------------------------
RNG = 0
PLAYERS = 1
CUR = 2
GRID = 3
OVER = 4
TRUNCATED = 5
ROUND = 6
TURNS = 7
TURN_ACTIONS = 8
TURN_SCORED = 9
TRIGGER_SEAT = 10
STRIKES = 11
SCORED_TOTAL = 12
DRAW_TOP = 13
DRAW_END = 14
DISCARD_LO = 15
DISCARD_HI = 16
DISCARD_N = 17
GAME_LO = 18
GAME_HI = 19
NCARDS = 20
RESHUFFLES = 21
PENDING = 22
HAND_LO = 23
HAND_HI = HAND_LO + MAX_PLAYERS
HAND_N = HAND_HI + MAX_PLAYERS
SKIPPED = HAND_N + MAX_PLAYERS
CARDS = SKIPPED + MAX_PLAYERS
POINTS = CARDS + MAX_PLAYERS
ONES = POINTS + MAX_PLAYERS
DECK = ONES + MAX_PLAYERS
SCORED_BY = DECK + NUM_CARDS
SCORED_ROUND = SCORED_BY + NUM_CARDS
STATE_SIZE = SCORED_ROUND + NUM_CARDS

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
def _bit_in(lo, hi, c):
    if c < HALF:
        return (lo >> c) & 1
    return (hi >> (c - HALF)) & 1


@njit(cache=True, inline="always")
def _with(lo, hi, c):
    """The set (lo, hi) with card c added."""
    if c < HALF:
        return lo | (np.int64(1) << c), hi
    return lo, hi | (np.int64(1) << (c - HALF))


@njit(cache=True, inline="always")
def _hand_add(state, s, c):
    state[HAND_LO + s], state[HAND_HI + s] = _with(state[HAND_LO + s], state[HAND_HI + s], c)
    state[HAND_N + s] += 1


@njit(cache=True, inline="always")
def _hand_remove(state, s, c):
    if c < HALF:
        state[HAND_LO + s] &= ~(np.int64(1) << c)
    else:
        state[HAND_HI + s] &= ~(np.int64(1) << (c - HALF))
    state[HAND_N + s] -= 1


@njit(cache=True, inline="always")
def _discard_add(state, c):
    state[DISCARD_LO], state[DISCARD_HI] = _with(state[DISCARD_LO], state[DISCARD_HI], c)
    state[DISCARD_N] += 1


@njit(cache=True, inline="always")
def _list_cards(lo, hi, base, out, n):
    """Write ``base + c`` for every card c of the set (lo, hi), ascending, to ``out[n:]``;
    return the new n."""
    m = lo
    while m:
        out[n] = base + trailing_zeros(m)
        n += 1
        m &= m - 1
    m = hi
    while m:
        out[n] = base + HALF + trailing_zeros(m)
        n += 1
        m &= m - 1
    return n


@njit(cache=True, inline="always")
def _kth_in_hand(state, s, k):
    m = state[HAND_LO + s]
    base = 0
    nlo = popcount(m)
    if k >= nlo:
        m = state[HAND_HI + s]
        base = HALF
        k -= nlo
    for _ in range(k):
        m &= m - 1
    return base + trailing_zeros(m)


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
        if not _bit_in(skip_lo, skip_hi, c):
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
    w = 0
    deck = state[DECK:DECK + NUM_CARDS]
    for v in range(VALUE_COUNT.shape[0]):
        w = _choose_from_value(params, v, 0, 0, SOLO_COUNTS[v], state, RNG, deck, w)
    for i in range(w, NUM_CARDS):
        deck[i] = -1
    return w


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
    shuffle(state, RNG, state[DECK:DECK + 9], 9)
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
    shuffle(state, RNG, state[DECK:DECK + n], n)
    state[NCARDS] = n
    lo = hi = np.int64(0)
    for i in range(n):
        lo, hi = _with(lo, hi, state[DECK + i])
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
    h = _list_cards(state[HAND_LO + s], state[HAND_HI + s], DISCARD_BASE, out, 0)
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
    n = _list_cards(state[DISCARD_LO], state[DISCARD_HI], 0, state[DECK:DECK + NUM_CARDS], 0)
    shuffle(state, RNG, state[DECK:DECK + n], n)
    state[DRAW_TOP] = 0
    state[DRAW_END] = n
    state[DISCARD_LO] = 0
    state[DISCARD_HI] = 0
    state[DISCARD_N] = 0
    state[RESHUFFLES] += 1


@njit(cache=True)
def _draw(state, s, k):
    for _ in range(k):
        if state[DRAW_TOP] == state[DRAW_END]:
            if state[DISCARD_N] == 0:
                return
            _reshuffle(state)
        _hand_add(state, s, state[DECK + state[DRAW_TOP]])
        state[DRAW_TOP] += 1


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
    elif s + 1 < players:
        state[CUR] = s + 1
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


@njit(cache=True)
def summarize(state, params, players, row):
    n = players
    bonus = bonus_seats(state, params, players)
    top = -1
    for s in range(n):
        score = state[POINTS + s] + ((bonus >> s) & 1) * params[OPT_BONUS_POINTS]
        row[s] = score
        top = max(top, score)
    truncated = state[TRUNCATED]
    for s in range(n):
        if truncated:
            row[n + s] = 0
        elif n == 1:
            row[n + s] = 1 if state[SCORED_TOTAL] == state[NCARDS] else 0
        else:
            row[n + s] = 1 if row[s] == top else 0
    row[2 * n] = truncated
    row[2 * n + 1] = state[TURNS]
    c = 2 * n + 2
    for s in range(n):
        row[c + s] = state[CARDS + s]
        row[c + n + s] = state[POINTS + s]
        row[c + 2 * n + s] = (bonus >> s) & 1
    c += 3 * n
    row[c] = state[ROUND]
    if n == 1:
        row[c + 1] = state[STRIKES]


# ---- information sets ------------------------------------------------------------------------------
@njit(cache=True)
def observe(state, player, out):
    """Hide other hands (their sizes stay), the draw pile's order (the deck array, whose
    dealt part would also reveal hands), the chance stream and, solo, which 16 cards were
    chosen (the unseen cards are everything not in hand, discarded or scored)."""
    out[:] = state
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
            seen_lo, seen_hi = _with(seen_lo, seen_hi, c)
    if players == 1:
        w = 0
        deck = out[DECK:DECK + NUM_CARDS]
        for v in range(VALUE_COUNT.shape[0]):
            need = SOLO_COUNTS[v]
            for i in range(VALUE_COUNT[v]):
                if _bit_in(seen_lo, seen_hi, params[P_BY_VALUE + VALUE_START[v] + i]):
                    need -= 1
            w = _choose_from_value(params, v, seen_lo, seen_hi, need, rng, slot, deck, w)
        shuffle(rng, slot, out[DECK:DECK + w], w)
        glo = seen_lo
        ghi = seen_hi
        for i in range(w):
            glo, ghi = _with(glo, ghi, out[DECK + i])
        out[GAME_LO] = glo
        out[GAME_HI] = ghi
    else:
        w = 0
        for c in range(NUM_CARDS):
            if not _bit_in(seen_lo, seen_hi, c):
                out[DECK + w] = c
                w += 1
        shuffle(rng, slot, out[DECK:DECK + w], w)
        k = w
        for s in range(players):
            if s == player:
                continue
            lo = hi = np.int64(0)
            for _ in range(view[HAND_N + s]):
                k -= 1
                lo, hi = _with(lo, hi, out[DECK + k])
            out[HAND_LO + s] = lo
            out[HAND_HI + s] = hi
        w = k
    for i in range(w, NUM_CARDS):
        out[DECK + i] = -1
    out[DRAW_TOP] = 0
    out[DRAW_END] = w
    out[RNG] = np.int64(next_u64(rng, slot))  # a fresh future, independent of the real one


# ---- declaration -------------------------------------------------------------------------------------
def _extra_columns(players: int) -> list[str]:
    seats = range(players)
    cols = [f"cards_{s}" for s in seats] + [f"points_{s}" for s in seats]
    cols += [f"bonus_{s}" for s in seats] + ["rounds"]
    if players == 1:
        cols.append("strikes")
    return cols


def _max_decisions(players: int) -> int:
    # a turn is at most two decisions per card in hand (a discard and its move; a score
    # or a skip is one) plus its end, and a hand holds at most the whole deck
    return OPTIONS[OPT_ROUND_CAP].high * players * (2 * NUM_CARDS + 1)


INFO = GameInfo(
    name="shifting-stones",
    title="Shifting Stones",
    min_players=1,
    max_players=MAX_PLAYERS,
    options=OPTIONS,
    num_actions=NUM_ACTIONS,
    state_size=lambda players: STATE_SIZE,
    extra_columns=_extra_columns,
    max_decisions=_max_decisions,
    scratch_size=NUM_ACTIONS,
    params_builder=build_params,
    chance="deal and reshuffles resolved inside apply from the in-state stream",
    information="imperfect (hidden hands and draw order)",
    utility="points (cards + bonus) per seat; shared wins; solo: win/loss",
    description="shift, flip and score pattern cards on a 3x3 grid of two-faced stones",
    truncation_option="round_cap",
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
