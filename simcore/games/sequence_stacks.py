"""Sequence Stacks: shared 1→5 runs per colour, chips, action cards and the out-of-turn
block (rules: ``shared/rules/sequence_stacks.md``; trace events: ``shared/spec/trace.md``).

Cards
=====
17 card types, coded 0…16 (a hand is a count vector over them)::

    0 r1   1 r2   2 r3   3 r4   4 r5   5 rw        colour = code // 6 (0 red, 1 blue)
    6 b1   7 b2   8 b3   9 b4  10 b5  11 bw        number index = code % 6 (5 = wild)
   12 skip  13 reverse  14 steal-card  15 block  16 steal-chip   (action kind = code - 12)

Pile slots: slot = colour * MAX_PILES + k (k < piles_per_colour ≤ MAX_PILES = 4), named
``red.k`` / ``blue.k``.  A pile is its top number (0 = empty) and a bitmask of the
positions (bit n-1 = number n) filled by a wild; that is enough to put its exact cards on
the completed stack.

Action encoding (NUM_ACTIONS = 156, legal lists ascending)
==========================================================
::

      0 …  95  play a number/wild:  ((src * 12 + card) * MAX_PILES + k)
                 src 0 = hand, 1 = top of the own discard pile; card 0…11; the pile is
                 slot k of the card's colour; the number it stands for is top + 1
     96 …  97  skip        96 + src
     98 …  99  reverse     98 + src
    100 … 111  steal-card  100 + src * 6 + victim
    112 … 135  steal-chip  112 + (src * 6 + victim) * 2 + colour
    136 … 152  end the turn discarding card type c from hand: 136 + c
    153        end the turn without a discard (only with an empty hand)
    154        block (out of turn, in the block window)
    155        pass  (decline to block)

State layout (1-D int64, STATE_SIZE slots, the same for every player count; ``LAYOUT``)
===================================================================================
::

    PLAYERS          [0]         player count
    OVER             [1]         1 once the game has ended
    WINNER           [2]         the winning seat, -1 none
    TRUNCATED        [3]         1 if the round cap ended the game
    TURN             [4]         seat on turn
    DIR              [5]         +1 clockwise / -1 anticlockwise
    TURNS            [6]         turns begun (turns lost to skips not counted)
    PLAYS            [7]         in-turn plays this turn
    WINDOW           [8]         seat asked to block, -1 = no block window open
    WINDOW_SLOT      [9]         pile slot of the completion being resolved, -1
    PENDING_DRAW     [10]        the completing play emptied the hand: draw after the window
    DRAW_POS         [11]        draw pile = DRAW[DRAW_POS:DRAW_LEN], top first
    DRAW_LEN         [12]        end of the draw pile in DRAW
    COMPLETED_N      [13]        cards on the completed stack
    RESHUFFLES       [14]        times the completed stack became the draw pile
    RNG              [15]        chance stream (simcore.rng)
    SUPPLY           [16:18]     chips left in the supply, per colour
    SPECIAL          [18:23]     played action cards (out of the game), per kind
    COMPLETED        [23:35]     completed stack as counts of the 12 number/wild types
    PILE_TOP         [35:43]     top number of each pile slot (0 = empty)
    PILE_WILD        [43:51]     wild-position bitmask of each slot
    HAND_N           [51:57]     hand sizes (public)
    HAND_MASK        [57:63]     bit c set when the hand holds card type c
    DISC_N           [63:69]     personal discard pile sizes
    SKIPS            [69:75]     turns each seat still has to lose to skips
    CHIPS            [75:87]     seat * 2 + colour
    STAT_COMPLETED   [87:93]     piles completed (blocked ones included)
    STAT_BLOCKED     [93:99]     own completions blocked
    STAT_BLOCKS      [99:105]    blocks played
    STAT_SKIP        [105:111]   skips played
    STAT_REVERSE     [111:117]   reverses played
    STAT_STEAL_CARD  [117:123]   steal-cards played
    STAT_STEAL_CHIP  [123:129]   steal-chips played
    HAND             [129:231]   seat * 17 + card type: counts
    DISC             [231:951]   seat * 120 + i: personal discard stacks (i = 0 bottom)
    DRAW             [951:1071]  the draw pile array (after a reshuffle it starts at 0)

STATS = STAT_COMPLETED: counter kind ``ST_*`` of seat s is ``STATS + kind * MAX_PLAYERS + s``.

Observation (``observation``: OBS_SIZE float64 for every player count; ``OBS``)
===============================================================================
Seats are relative to the observer (0 = itself, 1 = the next seat clockwise, ...); rows
of relative seats >= players stay 0.  "/ copies" divides a count by that card type's
copies in the deck for the player count (0 for a type the deck lacks)::

    O_PLAYERS       [0:5]       one-hot player count 2..6
    O_RULES         [5:11]      the options in table order but round_cap, each / its maximum
    O_PHASE         [11:15]     one-hot: my in-turn play, my block decision, another seat decides, over
    O_TURN          [15:21]     one-hot relative seat on turn
    O_ASKED         [21:27]     one-hot relative seat asked to block (all 0: no window)
    O_WINDOW_PILE   [27:35]     one-hot pile slot whose completion is resolved
    O_PENDING_DRAW  [35]        the completer draws hand_size after the window
    O_DIR           [36]        1 clockwise, 0 anticlockwise
    O_PLAYS         [37]        plays this turn / TURN_PLAY_CAP
    O_PROGRESS      [38]        turns / (round_cap x players): nearness of truncation
    O_HAND          [39:56]     own hand: count of each card type / copies
    O_HAND_N        [56:62]     hand size / hand_size, per relative seat
    O_CHIPS         [62:74]     relative seat * 2 + colour: chips / chips_to_win
    O_SUPPLY        [74:76]     chips left in the supply / chip_supply, per colour
    O_SKIPS         [76:82]     turns still to lose to skips / 3, per relative seat
    O_PILE_TOP      [82:130]    slot * 6 + top: one-hot top 0..5 of each slot in use
    O_PILE_WILD     [130:170]   slot * 5 + i: number i + 1 of the pile is a wild
    O_DISC_TOP      [170:272]   relative seat * 17 + card: one-hot discard top
    O_DISC_NEXT     [272:374]   the same for the card under the top
    O_DISC          [374:476]   relative seat * 17 + card: discard pile counts / copies
    O_COMPLETED     [476:488]   completed stack counts / copies
    O_SPECIAL       [488:493]   action cards out of the game, per kind / copies
    O_UNSEEN        [493:510]   cards in other hands or the draw pile / copies
    O_DRAW_N        [510]       draw pile size / 120

Decisions and safeguards
========================
* The block window is offered after every completion (also when that colour's chip
  supply is empty); opponents holding a ``block`` are asked in turn order starting with
  the next seat in the current direction; the first block cancels it.
* With ``refill_each_turn`` off, a turn that begins with an empty hand draws
  ``hand_size`` (the empty-hand draw), so a player is never stuck without cards.
* A turn lost to a skip is not a turn played: it counts neither in ``turns`` nor
  towards the round cap.  Skips accumulate per seat (two skips cost two turns).
* A steal-card played as the last card of the hand does not empty it (the stolen card
  arrives), so it causes no draw; any other last card played from hand does.
* Truncation: a game ends as truncated when a turn ends and ``round_cap × players``
  turns have been played.  Simulation safeguard: at most TURN_PLAY_CAP plays in one
  turn (then only the end-of-turn discard is legal), so every game is finite and
  ``max_decisions`` is a true bound.
"""
from __future__ import annotations

# a short summary for `playlab human` (`?`); the full rules: shared/rules/sequence_stacks.md
RULES_SUMMARY = """\
Sequence Stacks: build shared runs 1-5 in red or blue (two piles per colour; a wild of the
colour stands for the next number). Completing a pile earns a chip of its colour unless an
opponent blocks it with a block card. On your turn refill to 5, play cards from your hand
or the top of your own discard pile onto piles, play action cards (skip, reverse,
steal-card, steal-chip), then end by discarding one card. First to 5 chips with at least
2 red and 2 blue wins."""

import numpy as np
from numba import njit

from simcore.kernel_helpers import (mask_to_actions, next_seat, pile_pop, pile_refill, shuffle_range,
                                    win_share_returns)
from simcore.layout import COMMON_COLUMNS, Column, Columns, Field, Layout, copy_columns
from simcore.options import Option
from simcore.protocol import HIDDEN, GameInfo
from simcore.trace import parse_event
from simcore.rng import GOLDEN, below, kth_set_bit, lowest_bit_index, next_u64, popcount

# ---------------------------------------------------------------------------- cards
NCARD = 17
NUMBER_TYPES = 12
SKIP_CARD = 12
REVERSE_CARD = 13
STEAL_CARD_CARD = 14
BLOCK_CARD = 15
STEAL_CHIP_CARD = 16
CARD_NAMES = ("r1", "r2", "r3", "r4", "r5", "rw", "b1", "b2", "b3", "b4", "b5", "bw",
              "skip", "reverse", "steal-card", "block", "steal-chip")
CARD_CODES = {name: i for i, name in enumerate(CARD_NAMES)}
COLOUR_NAMES = ("red", "blue")
SOURCE_NAMES = ("hand", "discard")
# card counts of the full deck (3+ players) and the two-player deck
DECK_FULL = (9, 9, 9, 9, 9, 7, 9, 9, 9, 9, 9, 7, 3, 3, 3, 3, 4)
DECK_TWO = (9, 9, 9, 9, 9, 7, 9, 9, 9, 9, 9, 7, 2, 0, 2, 2, 2)
DECK_MAX = 120

MAX_PLAYERS = 6
MAX_PILES = 4  # piles per colour the state has room for (option high bound)
TURN_PLAY_CAP = 100  # safeguard: plays in one turn before only the discard is legal

# --------------------------------------------------------------------------- params
P_REFILL = 0
P_HAND = 1
P_PILES = 2
P_CHIPS_TO_WIN = 3
P_MIN_EACH = 4
P_SUPPLY = 5
P_ROUND_CAP = 6
ROUND_CAP_MAX = 2000
HAND_SIZE_MAX = 10

OPTIONS = (
    Option("refill_each_turn", "bool", True, "draw up to hand_size at the start of each turn"),
    Option("hand_size", "int", 5, "cards dealt, refilled to, and drawn when the hand empties mid-turn",
           1, HAND_SIZE_MAX),
    Option("piles_per_colour", "int", 2, "sequence piles that may be in progress per colour",
           1, MAX_PILES),
    Option("chips_to_win", "int", 5, "chips needed to win", 1, 40),
    Option("min_each_colour", "int", 2, "of which at least this many red and this many blue", 0, 20),
    Option("chip_supply", "int", 20, "chips of each colour in the supply", 0, 40),
    Option("round_cap", "int", 500, "turns per player after which an unfinished game is truncated",
           1, ROUND_CAP_MAX),
)

# ---------------------------------------------------------------------------- actions
A_PLAY = 0
A_SKIP = 96
A_REVERSE = 98
A_STEAL_CARD = 100
A_STEAL_CHIP = 112
A_DISCARD = 136
A_END = 153
A_BLOCK = 154
A_PASS = 155
NUM_ACTIONS = 156
PLAYS_PER_SOURCE = NUMBER_TYPES * MAX_PILES  # 48

# ---------------------------------------------------------------------------- state
ST_COMPLETED = 0
ST_BLOCKED = 1
ST_BLOCKS = 2
ST_SKIP = 3
ST_REVERSE = 4
ST_STEAL_CARD = 5
ST_STEAL_CHIP = 6
N_STATS = 7
DISC_CAP = DECK_MAX

LAYOUT = Layout(
    Field("PLAYERS", 1, "player count"),
    Field("OVER", 1, "1 once the game has ended"),
    Field("WINNER", 1, "the winning seat, -1 none"),
    Field("TRUNCATED", 1, "1 if the round cap ended the game"),
    Field("TURN", 1, "seat on turn"),
    Field("DIR", 1, "+1 clockwise / -1 anticlockwise"),
    Field("TURNS", 1, "turns begun (turns lost to skips not counted)"),
    Field("PLAYS", 1, "in-turn plays this turn"),
    Field("WINDOW", 1, "seat asked to block, -1 = no block window open"),
    Field("WINDOW_SLOT", 1, "pile slot of the completion being resolved, -1"),
    Field("PENDING_DRAW", 1, "the completing play emptied the hand: draw after the window"),
    Field("DRAW_POS", 1, "draw pile = DRAW[DRAW_POS:DRAW_LEN], top first"),
    Field("DRAW_LEN", 1, "end of the draw pile in DRAW"),
    Field("COMPLETED_N", 1, "cards on the completed stack"),
    Field("RESHUFFLES", 1, "times the completed stack became the draw pile"),
    Field("RNG", 1, "chance stream (simcore.rng)"),
    Field("SUPPLY", 2, "chips left in the supply, per colour"),
    Field("SPECIAL", 5, "played action cards (out of the game), per kind"),
    Field("COMPLETED", NUMBER_TYPES, "completed stack as counts of the 12 number/wild types"),
    Field("PILE_TOP", 2 * MAX_PILES, "top number of each pile slot (0 = empty)"),
    Field("PILE_WILD", 2 * MAX_PILES, "wild-position bitmask of each slot"),
    Field("HAND_N", MAX_PLAYERS, "hand sizes (public)"),
    Field("HAND_MASK", MAX_PLAYERS, "bit c set when the hand holds card type c"),
    Field("DISC_N", MAX_PLAYERS, "personal discard pile sizes"),
    Field("SKIPS", MAX_PLAYERS, "turns each seat still has to lose to skips"),
    Field("CHIPS", 2 * MAX_PLAYERS, "seat * 2 + colour"),
    # the per-seat counters, kind ST_* at STATS + kind * MAX_PLAYERS (consecutive)
    Field("STAT_COMPLETED", MAX_PLAYERS, "piles completed (blocked ones included)"),
    Field("STAT_BLOCKED", MAX_PLAYERS, "own completions blocked"),
    Field("STAT_BLOCKS", MAX_PLAYERS, "blocks played"),
    Field("STAT_SKIP", MAX_PLAYERS, "skips played"),
    Field("STAT_REVERSE", MAX_PLAYERS, "reverses played"),
    Field("STAT_STEAL_CARD", MAX_PLAYERS, "steal-cards played"),
    Field("STAT_STEAL_CHIP", MAX_PLAYERS, "steal-chips played"),
    Field("HAND", NCARD * MAX_PLAYERS, "seat * 17 + card type: counts"),
    Field("DISC", DISC_CAP * MAX_PLAYERS, "seat * 120 + i: personal discard stacks (i = 0 bottom)"),
    Field("DRAW", DECK_MAX, "the draw pile array (after a reshuffle it starts at 0)"),
)
LAYOUT.export(globals())
STATS = STAT_COMPLETED  # noqa: F821 (exported by LAYOUT)
assert [LAYOUT.offsets[f"STAT_{k}"] for k in ("COMPLETED", "BLOCKED", "BLOCKS", "SKIP", "REVERSE",
                                             "STEAL_CARD", "STEAL_CHIP")] == \
    [STATS + k * MAX_PLAYERS for k in range(N_STATS)]

# result columns (a column with a field is copied from it by ``copy_columns``)
_score, _win, _truncated, _turns = COMMON_COLUMNS
COLUMNS = Columns(
    LAYOUT,
    Column("red", "red chips the seat holds at the end", per_seat=True, field="CHIPS", stride=2),
    # blue sits one slot into CHIPS, which a Column cannot say: summarize writes it
    Column("blue", "blue chips the seat holds at the end", per_seat=True),
    Column("completed", "piles the seat completed by playing their 5th card, blocked ones "
           "included", per_seat=True, field="STAT_COMPLETED"),
    Column("blocked", "of the seat's completions, those an opponent's block cancelled (no chip)",
           per_seat=True, field="STAT_BLOCKED"),
    Column("blocks", "block cards the seat played out of turn against others' completions",
           per_seat=True, field="STAT_BLOCKS"),
    Column("skip", "skip cards the seat played", per_seat=True, field="STAT_SKIP"),
    Column("reverse", "reverse cards the seat played", per_seat=True, field="STAT_REVERSE"),
    Column("steal_card", "steal-card cards the seat played", per_seat=True, field="STAT_STEAL_CARD"),
    Column("steal_chip", "steal-chip cards the seat played", per_seat=True, field="STAT_STEAL_CHIP"),
    Column("reshuffles", "times the draw pile ran out and the completed stack was shuffled "
           "into a new one", field="RESHUFFLES"),
    common=(
        Column(_score.name, "chips the seat holds at the end (red + blue)", per_seat=True),
        _win,
        Column(_truncated.name, "1 if the round cap ended the game (round_cap x players turns "
               "played) before anyone won", field="TRUNCATED"),
        Column(_turns.name, "turns begun by all seats together, the one the game ended in "
               "included; turns lost to skips are not counted", field="TURNS"),
    ),
)
# observation vector (float64, OBS_SIZE for every player count; seats relative to the
# observer: r = 0 is the observer, r = 1 the next seat clockwise, ...; rows r >= players
# stay 0).  "/ copies" = divided by that card type's copies in the deck for the count.
# Every entry is 0/1 or a fraction of its cap (Field low/high, simcore.layout) but two: a
# hand has no limit (steals and draws on an emptied hand add to it; at most the deck), and
# a seat may hold every chip of a colour's supply (chips only leave the supply, a steal
# moves them between seats), which may be more than chips_to_win.
OBS = Layout(
    Field("O_PLAYERS", MAX_PLAYERS - 1, "one-hot player count 2..6"),
    Field("O_RULES", 6, "the options in table order but round_cap, each / its maximum"),
    Field("O_PHASE", 4, "one-hot: my in-turn play, my block decision, another seat decides, over"),
    Field("O_TURN", MAX_PLAYERS, "one-hot relative seat on turn"),
    Field("O_ASKED", MAX_PLAYERS, "one-hot relative seat asked to block (all 0: no window)"),
    Field("O_WINDOW_PILE", 2 * MAX_PILES, "one-hot pile slot whose completion is resolved"),
    Field("O_PENDING_DRAW", 1, "the completer draws hand_size after the window"),
    Field("O_DIR", 1, "1 clockwise, 0 anticlockwise"),
    Field("O_PLAYS", 1, "plays this turn / TURN_PLAY_CAP"),
    Field("O_PROGRESS", 1, "turns / (round_cap x players): nearness of truncation"),
    Field("O_HAND", NCARD, "own hand: count of each card type / copies"),
    Field("O_HAND_N", MAX_PLAYERS, "hand size / hand_size, per relative seat",
          high=lambda v, n: sum(DECK_TWO if n == 2 else DECK_FULL) / v["hand_size"]),
    Field("O_CHIPS", 2 * MAX_PLAYERS, "relative seat * 2 + colour: chips / chips_to_win",
          high=lambda v, n: max(v["chip_supply"], 1) / v["chips_to_win"]),
    Field("O_SUPPLY", 2, "chips left in the supply / chip_supply, per colour"),
    Field("O_SKIPS", MAX_PLAYERS, "turns still to lose to skips / 3, per relative seat"),
    Field("O_PILE_TOP", 2 * MAX_PILES * 6, "slot * 6 + top: one-hot top 0..5 of each slot in use"),
    Field("O_PILE_WILD", 2 * MAX_PILES * 5, "slot * 5 + i: number i + 1 of the pile is a wild"),
    Field("O_DISC_TOP", MAX_PLAYERS * NCARD, "relative seat * 17 + card: one-hot discard top"),
    Field("O_DISC_NEXT", MAX_PLAYERS * NCARD, "the same for the card under the top"),
    Field("O_DISC", MAX_PLAYERS * NCARD, "relative seat * 17 + card: discard pile counts / copies"),
    Field("O_COMPLETED", NUMBER_TYPES, "completed stack counts / copies"),
    Field("O_SPECIAL", 5, "action cards out of the game, per kind / copies"),
    Field("O_UNSEEN", NCARD, "cards in other hands or the draw pile / copies"),
    Field("O_DRAW_N", 1, "draw pile size / 120"),
    size_name="OBS_SIZE",
)
OBS.export(globals())
SKIP_SCALE = 3.0  # a seat can owe at most the deck's three skips


# 1 / copies in the deck per player count, 0 for a type the deck lacks (two players: reverse)
INV_COPIES = np.array([[1.0 / k if k else 0.0 for k in (DECK_TWO if n == 2 else DECK_FULL)]
                       for n in range(MAX_PLAYERS + 1)])

PLANS = COLUMNS.plans(MAX_PLAYERS)
# row positions of the computed columns, per player count
SCORE_AT = np.array([COLUMNS.index("score", n) for n in range(MAX_PLAYERS + 1)], np.int64)
WIN_AT = np.array([COLUMNS.index("win", n) for n in range(MAX_PLAYERS + 1)], np.int64)
BLUE_AT = np.array([COLUMNS.index("blue", n) for n in range(MAX_PLAYERS + 1)], np.int64)


# ============================================================================ helpers
@njit(cache=True, inline="always")
def _hand_add(state, s, c):
    state[HAND + s * NCARD + c] += 1
    state[HAND_N + s] += 1
    state[HAND_MASK + s] |= np.int64(1) << c


@njit(cache=True, inline="always")
def _hand_remove(state, s, c):
    i = HAND + s * NCARD + c
    state[i] -= 1
    state[HAND_N + s] -= 1
    if state[i] == 0:
        state[HAND_MASK + s] &= ~(np.int64(1) << c)


@njit(cache=True, inline="always")
def discard_top(state, s):
    """The top card of seat ``s``'s personal discard pile, -1 when empty (public)."""
    n = state[DISC_N + s]
    if n == 0:
        return -1
    return state[DISC + s * DISC_CAP + n - 1]


@njit(cache=True, inline="always")
def _disc_pop(state, s):
    n = state[DISC_N + s] - 1
    state[DISC_N + s] = n
    return state[DISC + s * DISC_CAP + n]


@njit(cache=True, inline="always")
def _take(state, s, src, c):
    """Remove card ``c`` from seat ``s``'s hand (src 0) or discard top (src 1)."""
    if src == 0:
        _hand_remove(state, s, c)
    else:
        _disc_pop(state, s)


@njit(cache=True, inline="always")
def _rel(s, seat, n):
    """Seat ``s`` counted clockwise from ``seat`` (0 = ``seat`` itself)."""
    r = s - seat
    return r + n if r < 0 else r


@njit(cache=True, inline="always")
def _wins(r, b, params):
    m = params[P_MIN_EACH]
    return r + b >= params[P_CHIPS_TO_WIN] and r >= m and b >= m


@njit(cache=True, inline="always")
def _deck_count(players, c):
    """Copies of card type ``c`` in the deck for ``players`` (112 cards for two)."""
    if c < NUMBER_TYPES:
        return 7 if c % 6 == 5 else 9
    if players == 2:
        return 0 if c == REVERSE_CARD else 2
    return 4 if c == STEAL_CHIP_CARD else 3


@njit(cache=True)
def _reshuffle(state):
    n = 0
    for t in range(NUMBER_TYPES):
        for _ in range(state[COMPLETED + t]):
            state[DRAW + n] = t
            n += 1
        state[COMPLETED + t] = 0
    state[COMPLETED_N] = 0
    pile_refill(state, RNG, DRAW, n, DRAW_POS, DRAW_LEN)
    state[RESHUFFLES] += 1


@njit(cache=True, inline="always")
def _draw(state, s, count):
    for _ in range(count):
        c = pile_pop(state, DRAW, DRAW_POS, DRAW_LEN)
        if c < 0:
            if state[COMPLETED_N] == 0:
                return
            _reshuffle(state)
            c = pile_pop(state, DRAW, DRAW_POS, DRAW_LEN)
        _hand_add(state, s, c)


@njit(cache=True, inline="always")
def _begin_turn(state, params, t):
    state[TURN] = t
    state[TURNS] += 1
    state[PLAYS] = 0
    if state[DRAW_POS] == state[DRAW_LEN] and state[COMPLETED_N] == 0:
        return  # nothing to draw (the call would return at once): the stalled phase
    hs = params[P_HAND]
    hn = state[HAND_N + t]
    if params[P_REFILL] != 0:
        if hn < hs:
            _draw(state, t, hs - hn)
    elif hn == 0:
        _draw(state, t, hs)


@njit(cache=True, inline="always")
def _end_turn(state, params):
    n = state[PLAYERS]
    if state[TURNS] >= params[P_ROUND_CAP] * n:
        state[OVER] = 1
        state[TRUNCATED] = 1
        return
    d = state[DIR]
    x = state[TURN]
    while True:
        x = next_seat(x, d, n)
        if state[SKIPS + x] > 0:
            state[SKIPS + x] -= 1
        else:
            break
    _begin_turn(state, params, x)


@njit(cache=True)
def _next_holder(state, after, completer, n, d):
    """The next seat after ``after`` (in direction d, stopping at the completer) that
    holds a block in hand, or -1."""
    x = after
    while True:
        x = next_seat(x, d, n)
        if x == completer:
            return -1
        if state[HAND + x * NCARD + BLOCK_CARD] > 0:
            return x


@njit(cache=True)
def _resolve(state, params, blocker):
    """Close the completion of pile WINDOW_SLOT: chip (unless ``blocker`` >= 0 blocked
    it), pile to the completed stack, win check, then the draw owed for a hand emptied
    by the play.  (Seats are passed as runtime values, never literals, so that Numba
    compiles one specialisation.)"""
    slot = state[WINDOW_SLOT]
    s = state[TURN]
    col = slot // MAX_PILES
    wild = state[PILE_WILD + slot]
    base = COMPLETED + col * 6
    for i in range(5):
        if (wild >> i) & 1:
            state[base + 5] += 1
        else:
            state[base + i] += 1
    state[COMPLETED_N] += 5
    state[PILE_TOP + slot] = 0
    state[PILE_WILD + slot] = 0
    state[WINDOW] = -1
    state[WINDOW_SLOT] = -1
    if blocker >= 0:
        state[STATS + ST_BLOCKED * MAX_PLAYERS + s] += 1
    elif state[SUPPLY + col] > 0:
        state[SUPPLY + col] -= 1
        state[CHIPS + 2 * s + col] += 1
        if _wins(state[CHIPS + 2 * s], state[CHIPS + 2 * s + 1], params):
            state[OVER] = 1
            state[WINNER] = s
            state[PENDING_DRAW] = 0
            return
    if state[PENDING_DRAW] != 0:
        state[PENDING_DRAW] = 0
        _draw(state, s, params[P_HAND])


# ============================================================================ protocol
@njit(cache=True)
def init(state, params, players, chance_key):
    for i in range(DISC):
        state[i] = 0
    state[PLAYERS] = players
    state[WINNER] = -1
    state[DIR] = 1
    state[WINDOW] = -1
    state[WINDOW_SLOT] = -1
    state[RNG] = chance_key
    state[SUPPLY] = params[P_SUPPLY]
    state[SUPPLY + 1] = params[P_SUPPLY]
    n = 0
    for c in range(NCARD):
        for _ in range(_deck_count(players, c)):
            state[DRAW + n] = c
            n += 1
    pile_refill(state, RNG, DRAW, n, DRAW_POS, DRAW_LEN)
    hs = params[P_HAND]
    for s in range(players):
        for _ in range(hs):
            _hand_add(state, s, pile_pop(state, DRAW, DRAW_POS, DRAW_LEN))
    _begin_turn(state, params, state[TURN])  # seat 0 (not a literal: one specialisation)


@njit(cache=True, inline="always")
def current_player(state):
    if state[OVER] != 0:
        return -1
    w = state[WINDOW]
    if w >= 0:
        return w
    return state[TURN]


@njit(cache=True, inline="always")
def is_terminal(state):
    return state[OVER] != 0


@njit(cache=True)
def _scan(state, params, out, k):
    """Enumerate the legal actions in ascending order.  k < 0: write them to ``out`` and
    return their number; k >= 0: return the k-th (or the number if there are fewer).

    One loop walks the action groups in id order (plays from hand, plays from the
    discard top, skip, reverse, steal-card, steal-chip, end of turn) with a single
    emission point, which keeps the compiled code small."""
    if state[OVER] != 0:
        return 0
    if state[WINDOW] >= 0:
        if k < 0:
            out[0] = A_BLOCK
            out[1] = A_PASS
            return 2
        return A_BLOCK + k if k < 2 else 2
    s = state[TURN]
    n = state[PLAYERS]
    hm = state[HAND_MASK + s]
    top = discard_top(state, s)
    ppc = params[P_PILES]
    r = state[CHIPS + 2 * s]
    b = state[CHIPS + 2 * s + 1]
    red_ok = not _wins(r + 1, b, params)
    blue_ok = not _wins(r, b + 1, params)
    idx = 0
    group = 0 if state[PLAYS] < TURN_PLAY_CAP else 8
    while group < 10:
        # the candidate ids of this group: a bitmask ``cand`` over ``width`` ids
        cand = np.int64(0)
        base = 0
        if group < 2:  # plays from hand (0) / the discard top (1): per card type
            src = group
            cards = hm & 0xFFF if src == 0 else (np.int64(1) << top if 0 <= top < 12 else 0)
            while cards != 0:
                c = lowest_bit_index(cards)
                cards &= cards - 1
                col = 1 if c >= 6 else 0
                num = c - 6 * col
                pb = PILE_TOP + col * MAX_PILES
                for kk in range(ppc):
                    if num == 5 or state[pb + kk] == num:
                        a = (src * NUMBER_TYPES + c) * MAX_PILES + kk
                        if k < 0:
                            out[idx] = a
                        elif idx == k:
                            return a
                        idx += 1
            group += 1
            continue
        if group < 6:  # skip, reverse, steal-card, steal-chip: card from hand / discard top
            card = SKIP_CARD + group - 2
            if card == REVERSE_CARD + 1:
                card = STEAL_CARD_CARD
            elif card == REVERSE_CARD + 2:
                card = STEAL_CHIP_CARD
            srcs = ((hm >> card) & 1) | ((2 if top == card else 0))
            if srcs != 0:
                if card <= REVERSE_CARD:
                    base = A_SKIP + (card - SKIP_CARD) * 2
                    cand = srcs
                elif card == STEAL_CARD_CARD:
                    base = A_STEAL_CARD
                    for v in range(n):
                        if v != s and state[DISC_N + v] > 0:
                            for src in range(2):
                                if (srcs >> src) & 1:
                                    cand |= np.int64(1) << (src * 6 + v)
                else:
                    base = A_STEAL_CHIP
                    for v in range(n):
                        if v == s:
                            continue
                        for src in range(2):
                            if (srcs >> src) & 1:
                                if red_ok and state[CHIPS + 2 * v] > 0:
                                    cand |= np.int64(1) << ((src * 6 + v) * 2)
                                if blue_ok and state[CHIPS + 2 * v + 1] > 0:
                                    cand |= np.int64(1) << ((src * 6 + v) * 2 + 1)
            group += 1
        else:  # end of turn
            if hm == 0:
                base = A_END
                cand = 1
            else:
                base = A_DISCARD
                cand = hm
            group = 10
        if k < 0:
            idx = mask_to_actions(cand, base, out, idx)
        else:
            m = popcount(cand)
            if k < idx + m:
                return base + kth_set_bit(cand, k - idx)
            idx += m
    return idx


@njit(cache=True)
def legal_actions(state, params, out):
    return _scan(state, params, out, -1)


@njit(cache=True, inline="always")
def _steal_chip_targets(state, params, s):
    """The (opponent, colour) pairs a steal-chip of seat ``s`` may take: a chip the
    victim holds, of a colour that does not make ``s`` win by stealing."""
    r = state[CHIPS + 2 * s]
    b = state[CHIPS + 2 * s + 1]
    red_ok = not _wins(r + 1, b, params)
    blue_ok = not _wins(r, b + 1, params)
    cnt = 0
    for v in range(state[PLAYERS]):
        if v != s:
            if red_ok and state[CHIPS + 2 * v] > 0:
                cnt += 1
            if blue_ok and state[CHIPS + 2 * v + 1] > 0:
                cnt += 1
    return cnt


@njit(cache=True, inline="always")
def _count_in_turn(state, params, s, hm):
    """Number of legal in-turn plays (all actions but the end of the turn), counted
    without enumerating them (the fast path of ``random_action``)."""
    ppc = params[P_PILES]
    top = discard_top(state, s)
    cnt = 0
    for col in range(2):
        base = PILE_TOP + col * MAX_PILES
        cb = col * 6
        for kk in range(ppc):
            need = cb + state[base + kk]
            cnt += (hm >> need) & 1
            if top == need:
                cnt += 1
        cnt += ((hm >> (cb + 5)) & 1) * ppc
        if top == cb + 5:
            cnt += ppc
    if (hm >> SKIP_CARD) == 0 and top < SKIP_CARD:
        return cnt
    cnt += (hm >> SKIP_CARD) & 1
    cnt += (hm >> REVERSE_CARD) & 1
    if top == SKIP_CARD or top == REVERSE_CARD:
        cnt += 1
    n = state[PLAYERS]
    srcs = ((hm >> STEAL_CARD_CARD) & 1) + (1 if top == STEAL_CARD_CARD else 0)
    if srcs:
        for v in range(n):
            if v != s and state[DISC_N + v] > 0:
                cnt += srcs
    srcs = ((hm >> STEAL_CHIP_CARD) & 1) + (1 if top == STEAL_CHIP_CARD else 0)
    if srcs:
        cnt += srcs * _steal_chip_targets(state, params, s)
    return cnt


@njit(cache=True, inline="always")
def _count_top(state, params, s, top):
    """``_count_in_turn`` of an empty hand: the legal plays of the discard top ``top``
    alone (the stalled phase of a game: every hand empty, nothing left to draw)."""
    if top < 0 or top == BLOCK_CARD:
        return 0
    if top < NUMBER_TYPES:
        col = 1 if top >= 6 else 0
        num = top - 6 * col
        ppc = params[P_PILES]
        if num == 5:
            return ppc
        base = PILE_TOP + col * MAX_PILES
        cnt = 0
        for kk in range(ppc):
            if state[base + kk] == num:
                cnt += 1
        return cnt
    if top <= REVERSE_CARD:
        return 1
    n = state[PLAYERS]
    cnt = 0
    if top == STEAL_CARD_CARD:
        for v in range(n):
            if v != s and state[DISC_N + v] > 0:
                cnt += 1
        return cnt
    return _steal_chip_targets(state, params, s)


@njit(cache=True)
def random_action(state, params, rng, slot):
    """Uniform over ``legal_actions`` (the same choice as ``legal[below(rng, slot, n)]``):
    the plays are counted cheaply, the end-of-turn discards picked by bit position, and
    only a chosen play is found by enumeration."""
    if state[WINDOW] >= 0:
        return A_BLOCK + below(rng, slot, 2)
    s = state[TURN]
    hm = state[HAND_MASK + s]
    n_end = popcount(hm) if hm != 0 else 1
    n_in = _count_in_turn(state, params, s, hm) if state[PLAYS] < TURN_PLAY_CAP else 0
    r = below(rng, slot, n_in + n_end)
    if r >= n_in:
        if hm == 0:
            return A_END
        return A_DISCARD + kth_set_bit(hm, r - n_in)
    return _scan(state, params, state, r)


@njit(cache=True)
def apply(state, params, action):
    if action >= A_BLOCK:  # the block window
        w = state[WINDOW]
        if action == A_BLOCK:
            _hand_remove(state, w, BLOCK_CARD)
            state[SPECIAL + BLOCK_CARD - SKIP_CARD] += 1
            state[STATS + ST_BLOCKS * MAX_PLAYERS + w] += 1
            _resolve(state, params, w)
        else:
            nw = _next_holder(state, w, state[TURN], state[PLAYERS], state[DIR])
            if nw >= 0:
                state[WINDOW] = nw
            else:
                _resolve(state, params, nw)
        return
    s = state[TURN]
    if action >= A_DISCARD:  # end of turn (with or without a discard)
        if action < A_END:
            c = action - A_DISCARD
            _hand_remove(state, s, c)
            state[DISC + s * DISC_CAP + state[DISC_N + s]] = c
            state[DISC_N + s] += 1
        _end_turn(state, params)
        return
    # a card played from hand or the discard top: decode card, source and target
    kk = 0
    v = 0
    col = 0
    if action < A_SKIP:
        src = action // PLAYS_PER_SOURCE
        rem = action - src * PLAYS_PER_SOURCE
        c = rem // MAX_PILES
        kk = rem - c * MAX_PILES
    elif action < A_STEAL_CARD:
        r = action - A_SKIP
        src = r & 1
        c = SKIP_CARD + (r >> 1)
    elif action < A_STEAL_CHIP:
        r = action - A_STEAL_CARD
        src = r // 6
        v = r - 6 * src
        c = STEAL_CARD_CARD
    else:
        r = action - A_STEAL_CHIP
        col = r & 1
        r >>= 1
        src = r // 6
        v = r - 6 * src
        c = STEAL_CHIP_CARD
    _take(state, s, src, c)
    state[PLAYS] += 1
    if c < NUMBER_TYPES:
        emptied = src == 0 and state[HAND_N + s] == 0
        col = 1 if c >= 6 else 0
        slot = col * MAX_PILES + kk
        num = state[PILE_TOP + slot] + 1
        state[PILE_TOP + slot] = num
        if c - 6 * col == 5:
            state[PILE_WILD + slot] |= np.int64(1) << (num - 1)
        if num == 5:
            state[STATS + ST_COMPLETED * MAX_PLAYERS + s] += 1
            state[WINDOW_SLOT] = slot
            state[PENDING_DRAW] = 1 if emptied else 0
            w = _next_holder(state, s, s, state[PLAYERS], state[DIR])
            if w >= 0:
                state[WINDOW] = w  # the draw owed waits for the window
            else:
                _resolve(state, params, w)
            return
    else:
        state[SPECIAL + c - SKIP_CARD] += 1
        stat = ST_STEAL_CHIP if c == STEAL_CHIP_CARD else ST_SKIP + c - SKIP_CARD
        state[STATS + stat * MAX_PLAYERS + s] += 1
        if c == SKIP_CARD:
            state[SKIPS + next_seat(s, state[DIR], state[PLAYERS])] += 1
        elif c == REVERSE_CARD:
            state[DIR] = -state[DIR]
        elif c == STEAL_CARD_CARD:
            _hand_add(state, s, _disc_pop(state, v))
        else:
            state[CHIPS + 2 * v + col] -= 1
            state[CHIPS + 2 * s + col] += 1
        # (a steal-card played as the last card brings the stolen card: not emptied)
        emptied = src == 0 and state[HAND_N + s] == 0
    if emptied:
        _draw(state, s, params[P_HAND])


@njit(cache=True)
def random_run(state, params, rng):
    """Fast path for seats that all play at random: play the game to its end exactly as
    ``random_action`` + ``apply`` would, decision for decision and with the same draws
    from each seat's stream.  Returns the decisions taken."""
    n = 0
    while state[OVER] == 0:
        w = state[WINDOW]
        if w >= 0:
            apply(state, params, A_BLOCK + below(rng, w, 2))
            n += 1
            continue
        s = state[TURN]
        hm = state[HAND_MASK + s]
        n += 1
        if hm == 0:
            k = _count_top(state, params, s, discard_top(state, s)) if state[PLAYS] < TURN_PLAY_CAP else 0
            if k == 0:
                rng[s] = np.int64(np.uint64(rng[s]) + GOLDEN)  # below(rng, s, 1) = 0
                _end_turn(state, params)
                continue
            r = below(rng, s, k + 1)
            if r == k:
                _end_turn(state, params)
            else:
                apply(state, params, _scan(state, params, state, r))
            continue
        # random_action, with the end of the turn (the likeliest pick) applied here
        n_in = _count_in_turn(state, params, s, hm) if state[PLAYS] < TURN_PLAY_CAP else 0
        r = below(rng, s, n_in + popcount(hm))
        if r < n_in:
            apply(state, params, _scan(state, params, state, r))
            continue
        c = kth_set_bit(hm, r - n_in)
        _hand_remove(state, s, c)
        state[DISC + s * DISC_CAP + state[DISC_N + s]] = c
        state[DISC_N + s] += 1
        _end_turn(state, params)
    return n


@njit(cache=True)
def summarize(state, params, players, row):
    copy_columns(state, players, row, PLANS[players])
    w = state[WINNER]
    score = SCORE_AT[players]
    win = WIN_AT[players]
    blue = BLUE_AT[players]
    for s in range(players):
        r = state[CHIPS + 2 * s]
        b = state[CHIPS + 2 * s + 1]
        row[score + s] = r + b
        row[win + s] = 1 if w == s else 0
        row[blue + s] = b


@njit(cache=True)
def returns(state, params, players, out):
    """A single winner (chips are never shared)."""
    w = state[WINNER]
    win_share_returns(out, players, state[OVER] != 0, state[TRUNCATED],
                      (np.int64(1) << w) if w >= 0 else 0)


@njit(cache=True)
def observe(state, player, out):
    for i in range(STATE_SIZE):
        out[i] = state[i]
    n = state[PLAYERS]
    for s in range(n):
        if s != player:
            out[HAND_MASK + s] = HIDDEN
            for c in range(NCARD):
                out[HAND + s * NCARD + c] = HIDDEN
    for i in range(DRAW, DRAW + DECK_MAX):
        out[i] = HIDDEN
    out[RNG] = HIDDEN


@njit(cache=True)
def determinize(view, params, player, rng, slot, out):
    for i in range(STATE_SIZE):
        out[i] = view[i]
    n = view[PLAYERS]
    # unseen cards = deck - own hand - discards - piles - completed stack - special
    # pile, counted in the hand row of another seat (all other hands are rebuilt below)
    cnt = HAND + next_seat(player, 1, n) * NCARD
    for c in range(NCARD):
        out[cnt + c] = _deck_count(n, c) - view[HAND + player * NCARD + c]
    for c in range(NUMBER_TYPES):
        out[cnt + c] -= view[COMPLETED + c]
    for c in range(SKIP_CARD, NCARD):
        out[cnt + c] -= view[SPECIAL + c - SKIP_CARD]
    for s in range(n):
        for i in range(view[DISC_N + s]):
            out[cnt + view[DISC + s * DISC_CAP + i]] -= 1
    for sl in range(2 * MAX_PILES):
        top = view[PILE_TOP + sl]
        base = (sl // MAX_PILES) * 6
        wild = view[PILE_WILD + sl]
        for i in range(top):
            if (wild >> i) & 1:
                out[cnt + base + 5] -= 1
            else:
                out[cnt + base + i] -= 1
    # lay the unseen cards out (in card order) from DRAW, then shuffle them
    u = 0
    for c in range(NCARD):
        k = out[cnt + c]
        for _ in range(k):
            out[DRAW + u] = c
            u += 1
    shuffle_range(rng, slot, out, DRAW, u)
    # the other hands take cards from the end, the rest is the draw pile
    end = u
    for s in range(n):
        if s == player:
            continue
        out[HAND_MASK + s] = 0
        for c in range(NCARD):
            out[HAND + s * NCARD + c] = 0
        for _ in range(view[HAND_N + s]):
            end -= 1
            c = out[DRAW + end]
            out[HAND + s * NCARD + c] += 1
            out[HAND_MASK + s] |= np.int64(1) << c
    # draw pile: out[DRAW:DRAW+end] -> out[DRAW+pos : DRAW+pos+end] (copy backwards)
    pos = view[DRAW_POS]
    for i in range(end - 1, -1, -1):
        out[DRAW + pos + i] = out[DRAW + i]
    for i in range(pos):
        out[DRAW + i] = HIDDEN
    out[RNG] = np.int64(next_u64(rng, slot))


@njit(cache=True)
def observation(view, params, seat, out):
    """The ``OBS`` vector of ``seat`` from its view (never a hidden slot)."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    n = view[PLAYERS]
    inv = INV_COPIES[n]
    out[O_PLAYERS + n - 2] = 1.0
    out[O_RULES] = params[P_REFILL]
    out[O_RULES + 1] = params[P_HAND] / HAND_SIZE_MAX
    out[O_RULES + 2] = params[P_PILES] / MAX_PILES
    out[O_RULES + 3] = params[P_CHIPS_TO_WIN] / 40.0
    out[O_RULES + 4] = params[P_MIN_EACH] / 20.0
    out[O_RULES + 5] = params[P_SUPPLY] / 40.0
    t = view[TURN]
    w = view[WINDOW]
    if view[OVER] != 0:
        out[O_PHASE + 3] = 1.0
    elif w >= 0:
        out[O_PHASE + (1 if w == seat else 2)] = 1.0
        out[O_ASKED + _rel(w, seat, n)] = 1.0
        out[O_WINDOW_PILE + view[WINDOW_SLOT]] = 1.0
        out[O_PENDING_DRAW] = view[PENDING_DRAW]
    else:
        out[O_PHASE + (0 if t == seat else 2)] = 1.0
    out[O_TURN + _rel(t, seat, n)] = 1.0
    out[O_DIR] = 1.0 if view[DIR] == 1 else 0.0
    out[O_PLAYS] = view[PLAYS] / TURN_PLAY_CAP
    out[O_PROGRESS] = view[TURNS] / (params[P_ROUND_CAP] * n)
    for c in range(NCARD):
        out[O_HAND + c] = view[HAND + seat * NCARD + c] * inv[c]
    # unseen = deck - everything visible, counted up in O_UNSEEN and scaled at the end
    for c in range(NCARD):
        out[O_UNSEEN + c] = _deck_count(n, c) - view[HAND + seat * NCARD + c]
    for c in range(NUMBER_TYPES):
        k = view[COMPLETED + c]
        out[O_COMPLETED + c] = k * inv[c]
        out[O_UNSEEN + c] -= k
    for j in range(5):
        k = view[SPECIAL + j]
        out[O_SPECIAL + j] = k * inv[SKIP_CARD + j]
        out[O_UNSEEN + SKIP_CARD + j] -= k
    hs = params[P_HAND]
    ctw = params[P_CHIPS_TO_WIN]
    for s in range(n):
        r = _rel(s, seat, n)
        out[O_HAND_N + r] = view[HAND_N + s] / hs
        out[O_CHIPS + 2 * r] = view[CHIPS + 2 * s] / ctw
        out[O_CHIPS + 2 * r + 1] = view[CHIPS + 2 * s + 1] / ctw
        out[O_SKIPS + r] = view[SKIPS + s] / SKIP_SCALE
        dn = view[DISC_N + s]
        base = DISC + s * DISC_CAP
        for i in range(dn):
            c = view[base + i]
            out[O_DISC + r * NCARD + c] += inv[c]
            out[O_UNSEEN + c] -= 1
        if dn > 0:
            out[O_DISC_TOP + r * NCARD + view[base + dn - 1]] = 1.0
        if dn > 1:
            out[O_DISC_NEXT + r * NCARD + view[base + dn - 2]] = 1.0
    if params[P_SUPPLY] > 0:
        out[O_SUPPLY] = view[SUPPLY] / params[P_SUPPLY]
        out[O_SUPPLY + 1] = view[SUPPLY + 1] / params[P_SUPPLY]
    ppc = params[P_PILES]
    for sl in range(2 * MAX_PILES):
        if sl % MAX_PILES >= ppc:
            continue
        top = view[PILE_TOP + sl]
        wild = view[PILE_WILD + sl]
        out[O_PILE_TOP + sl * 6 + top] = 1.0
        cb = (sl // MAX_PILES) * 6
        for i in range(top):
            if (wild >> i) & 1:
                out[O_PILE_WILD + sl * 5 + i] = 1.0
                out[O_UNSEEN + cb + 5] -= 1
            else:
                out[O_UNSEEN + cb + i] -= 1
    for c in range(NCARD):
        out[O_UNSEEN + c] *= inv[c]
    out[O_DRAW_N] = (view[DRAW_LEN] - view[DRAW_POS]) / DECK_MAX


# ============================================================================ python side
def _max_decisions(players: int) -> int:
    # per turn: the plays, a window decision per opponent for every completion (a turn
    # completes at most (plays + cards already on the piles) / 5 piles), the discard
    completions = (TURN_PLAY_CAP + 4 * 2 * MAX_PILES) // 5 + 1
    per_turn = TURN_PLAY_CAP + completions * (players - 1) + 1
    return ROUND_CAP_MAX * players * per_turn


def _impossible(variant, players: int) -> str | None:
    """Why no player can ever win with these chip options (None: a win is possible)."""
    supply, need, each = variant["chip_supply"], variant["chips_to_win"], variant["min_each_colour"]
    if supply == 0:
        return "chip_supply=0: no chip can ever be earned, so nobody can win"
    if each > supply:
        return f"min_each_colour={each} is more chips of a colour than chip_supply={supply} holds"
    total = max(need, 2 * each)
    if total > 2 * supply:
        return f"a win needs {total} chips but the supply holds {2 * supply} (2 x chip_supply={supply})"
    if total == 2 * supply:
        # a steal may not make the stealer win, so the last chip comes from a completion with
        # every other chip already in the winner's hand: possible on paper, never in play
        return (f"a win needs all {total} chips of the supply (chips_to_win={need}, min_each_colour={each}, "
                f"chip_supply={supply}) in one hand")
    return None


INFO = GameInfo(
    name="sequence-stacks",
    title="Sequence Stacks",
    min_players=2,
    max_players=MAX_PLAYERS,
    options=OPTIONS,
    num_actions=NUM_ACTIONS,
    state_size=lambda players: STATE_SIZE,
    extra_columns=COLUMNS.extra_names,
    column_docs=tuple(COLUMNS.docs()),
    max_decisions=_max_decisions,
    rate_columns=("turns",),
    description=("Card game: build shared 1-5 runs per colour, earn chips of that colour, "
                 "first to 5 chips with at least 2 of each colour wins; skip, reverse, "
                 "steal-card, steal-chip and the out-of-turn block."),
    truncation_option="round_cap",
    observation_size=lambda players: OBS_SIZE,
    impossible=_impossible,
)


# `playlab show`: events that start a new block of the printed log
SECTION_EVENTS = ("hand", "deck", "turn", "skipped")


def pile_name(slot: int) -> str:
    return f"{COLOUR_NAMES[slot // MAX_PILES]}.{slot % MAX_PILES}"


def decode(action: int) -> tuple:
    """Action id -> (kind, fields...).  Kinds: ("play", src, card, k), ("skip", src),
    ("reverse", src), ("steal-card", src, victim), ("steal-chip", src, victim, colour),
    ("discard", card), ("end",), ("block",), ("pass",)."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"no sequence-stacks action {action}")
    if a < A_SKIP:
        src, rem = divmod(a, PLAYS_PER_SOURCE)
        card, k = divmod(rem, MAX_PILES)
        return ("play", src, card, k)
    if a < A_REVERSE:
        return ("skip", a - A_SKIP)
    if a < A_STEAL_CARD:
        return ("reverse", a - A_REVERSE)
    if a < A_STEAL_CHIP:
        src, v = divmod(a - A_STEAL_CARD, 6)
        return ("steal-card", src, v)
    if a < A_DISCARD:
        r, col = divmod(a - A_STEAL_CHIP, 2)
        src, v = divmod(r, 6)
        return ("steal-chip", src, v, col)
    if a < A_END:
        return ("discard", a - A_DISCARD)
    return (("end",), ("block",), ("pass",))[a - A_END]


def action_name(action: int) -> str:
    d = decode(action)
    kind = d[0]
    if kind == "play":
        _, src, card, k = d
        return f"play {CARD_NAMES[card]} from {SOURCE_NAMES[src]} on {pile_name((card // 6) * MAX_PILES + k)}"
    if kind in ("skip", "reverse"):
        return f"{kind} from {SOURCE_NAMES[d[1]]}"
    if kind == "steal-card":
        return f"steal-card from {SOURCE_NAMES[d[1]]}: top of seat {d[2]}'s discard pile"
    if kind == "steal-chip":
        return f"steal-chip from {SOURCE_NAMES[d[1]]}: a {COLOUR_NAMES[d[3]]} chip of seat {d[2]}"
    if kind == "discard":
        return f"discard {CARD_NAMES[d[1]]}"
    if kind == "end":
        return "end the turn (empty hand)"
    return kind


def _cards(seq) -> str:
    return " ".join(CARD_NAMES[int(c)] for c in seq)


def _draw_events(before, after, seat: int) -> list[str]:
    """The draw (and reshuffle) events between two states: at most one draw per action."""
    b_pos, b_len = int(before[DRAW_POS]), int(before[DRAW_LEN])
    a_pos, a_len = int(after[DRAW_POS]), int(after[DRAW_LEN])
    ev: list[str] = []
    if int(after[RESHUFFLES]) == int(before[RESHUFFLES]):
        if a_pos > b_pos:
            ev.append(f"draw {seat} " + _cards(before[DRAW + b_pos:DRAW + a_pos]))
        return ev
    if b_len > b_pos:
        ev.append(f"draw {seat} " + _cards(before[DRAW + b_pos:DRAW + b_len]))
    ev.append("reshuffle " + _cards(after[DRAW:DRAW + a_len]))
    if a_pos > 0:
        ev.append(f"draw {seat} " + _cards(after[DRAW:DRAW + a_pos]))
    return ev


def _completion_events(before, after, seat: int, slot: int) -> list[str]:
    """Chip (if any) and the owed draw after a completion resolved unblocked."""
    ev = []
    col = slot // MAX_PILES
    if int(after[CHIPS + 2 * seat + col]) > int(before[CHIPS + 2 * seat + col]):
        ev.append(f"chip {seat} {COLOUR_NAMES[col]}")
    return ev + _draw_events(before, after, seat)


def trace_start(state, params, players) -> list[str]:
    hs = int(params[P_HAND])
    ev = [f"hand {s} " + _cards(state[DRAW + s * hs:DRAW + (s + 1) * hs]) for s in range(players)]
    dealt = players * hs
    ev.append("deck " + _cards(state[DRAW + dealt:DRAW + int(state[DRAW_LEN])]))
    ev.append(f"turn {int(state[TURN])}")
    if int(state[DRAW_POS]) > dealt:
        ev.append(f"draw {int(state[TURN])} " + _cards(state[DRAW + dealt:DRAW + int(state[DRAW_POS])]))
    return ev


def trace_step(before, action, after, params, players) -> list[str]:
    d = decode(action)
    kind = d[0]
    turn = int(before[TURN])
    if kind in ("block", "pass"):
        w = int(before[WINDOW])
        slot = int(before[WINDOW_SLOT])
        if kind == "block":
            return [f"block {w}"] + _draw_events(before, after, turn)
        if int(after[WINDOW]) >= 0:
            return []  # passes are not recorded; the next holder is asked
        return _completion_events(before, after, turn, slot)
    s = turn
    if kind == "play":
        _, src, card, k = d
        slot = (card // 6) * MAX_PILES + k
        num = int(before[PILE_TOP + slot]) + 1
        ev = [f"play {s} {CARD_NAMES[card]} {SOURCE_NAMES[src]} {pile_name(slot)} {num}"]
        if num == 5:
            ev.append(f"complete {s} {pile_name(slot)}")
            if int(after[WINDOW]) >= 0:
                return ev
            return ev + _completion_events(before, after, s, slot)
        return ev + _draw_events(before, after, s)
    if kind in ("skip", "reverse"):
        return [f"{kind} {s} {SOURCE_NAMES[d[1]]}"] + _draw_events(before, after, s)
    if kind == "steal-card":
        _, src, v = d
        taken = int(before[DISC + v * DISC_CAP + int(before[DISC_N + v]) - 1])
        return [f"steal-card {s} {SOURCE_NAMES[src]} {v} {CARD_NAMES[taken]}"]
    if kind == "steal-chip":
        _, src, v, col = d
        return ([f"steal-chip {s} {SOURCE_NAMES[src]} {v} {COLOUR_NAMES[col]}"]
                + _draw_events(before, after, s))
    # end of turn: discard (or nothing with an empty hand), skipped seats, next turn
    ev = [f"discard {s} {CARD_NAMES[d[1]]}"] if kind == "discard" else []
    if int(after[OVER]):
        return ev
    n = players
    t = int(after[TURN])
    dirn = int(after[DIR])
    x = (s + dirn) % n
    while x != t:
        ev.append(f"skipped {x}")
        x = (x + dirn) % n
    ev.append(f"turn {t}")
    return ev + _draw_events(before, after, t)


def trace_result(values: dict, players: int) -> dict:
    return {}


# ============================================================================ show, render
# field names of the tokens after each event kind (shared/spec/trace.md); a last name in the
# plural takes the remaining tokens as a list
EVENT_FIELDS = {
    "hand": ("seat", "cards*"),
    "deck": ("cards*",),
    "turn": ("seat",),
    "draw": ("seat", "cards*"),
    "play": ("seat", "card", "source", "pile", "number"),
    "complete": ("seat", "pile"),
    "block": ("seat",),
    "chip": ("seat", "colour"),
    "skip": ("seat", "source"),
    "reverse": ("seat", "source"),
    "skipped": ("seat",),
    "steal-card": ("seat", "source", "victim", "card"),
    "steal-chip": ("seat", "source", "victim", "colour"),
    "discard": ("seat", "card"),
    "reshuffle": ("cards*",),
}


def _direction(d: int) -> str:
    return "clockwise" if int(d) == 1 else "anticlockwise"


def _pile_cards(slot: int, top: int, wild: int) -> str:
    col = COLOUR_NAMES[slot // MAX_PILES][0]
    return " ".join(f"{col}w={i + 1}" if (wild >> i) & 1 else f"{col}{i + 1}" for i in range(top))


def _pile_line(state, slot: int) -> str:
    top = int(state[PILE_TOP + slot])
    if top == 0:
        return f"{pile_name(slot)}: empty"
    return f"{pile_name(slot)}: top {top} ({_pile_cards(slot, top, int(state[PILE_WILD + slot]))})"


def _chips_needed(r: int, b: int, params) -> int:
    need, m = int(params[P_CHIPS_TO_WIN]), int(params[P_MIN_EACH])
    return max(need - r - b, max(m - r, 0) + max(m - b, 0))


def _chip_totals(state, players: int) -> str:
    return "chips: " + ", ".join(
        f"seat {s} {int(state[CHIPS + 2 * s])} red + {int(state[CHIPS + 2 * s + 1])} blue"
        for s in range(players))


def _pile_tops(state, params) -> str:
    ppc = int(params[P_PILES])
    return "piles: " + ", ".join(
        f"{pile_name(sl)} {int(state[PILE_TOP + sl]) or '-'}"
        for col in range(2) for sl in range(col * MAX_PILES, col * MAX_PILES + ppc))


def _hand_words(counts) -> str:
    parts = [CARD_NAMES[c] + (f" x{int(k)}" if k > 1 else "") for c, k in enumerate(counts) if k > 0]
    return ", ".join(parts) if parts else "(empty)"


def render(view, seat, params, players) -> str:
    """``seat``'s view in words: whose turn and what is to decide, the piles, then every
    seat's chips, hand (the others' as sizes), discard pile and skips owed."""
    v = [int(x) for x in view]
    n = int(players)
    seat = int(seat)
    t, w = v[TURN], v[WINDOW]
    ctw, m = int(params[P_CHIPS_TO_WIN]), int(params[P_MIN_EACH])

    def you(s: int) -> str:
        return f"seat {s}" + (" (you)" if s == seat else "")

    order = [t]
    for _ in range(n - 1):
        order.append((order[-1] + v[DIR]) % n)
    lines = [f"Sequence Stacks, {n} players: seat {seat}'s view"]
    if v[OVER]:
        if v[TRUNCATED]:
            lines.append(f"Game over after {v[TURNS]} turns: truncated by the round cap, no winner")
        else:
            lines.append(f"Game over after {v[TURNS]} turns: {you(v[WINNER])} won")
    else:
        lines.append(f"Turn {v[TURNS]}: {you(t)} is on turn, {v[PLAYS]} play(s) so far; "
                     f"play goes {_direction(v[DIR])} ({' -> '.join(map(str, order))})")
        if w >= 0:
            lines.append(f"Block window: {you(t)} completed {pile_name(v[WINDOW_SLOT])}; "
                         f"{you(w)} is asked: block (cancels the chip) or pass")
        elif v[PLAYS] >= TURN_PLAY_CAP:
            lines.append(f"{you(t)} to decide: the play cap is reached, only a discard ends the turn")
        elif v[HAND_N + t] == 0:
            lines.append(f"{you(t)} to decide: play from the discard pile or end the turn (empty hand)")
        else:
            lines.append(f"{you(t)} to decide: play a card or end the turn with a discard")
    lines.append("Piles:")
    ppc = int(params[P_PILES])
    for col in range(2):
        lines.append("  " + "   ".join(_pile_line(v, col * MAX_PILES + k) for k in range(ppc)))
    lines.append(f"Chips: {ctw} to win, at least {m} red and {m} blue; "
                 f"supply {v[SUPPLY]} red, {v[SUPPLY + 1]} blue")
    for s in range(n):
        r, b = v[CHIPS + 2 * s], v[CHIPS + 2 * s + 1]
        need = _chips_needed(r, b, params)
        if s == seat:
            hand = f"hand ({v[HAND_N + s]}): " + _hand_words(v[HAND + s * NCARD:HAND + (s + 1) * NCARD])
        else:
            hand = f"hand: {v[HAND_N + s]} card{'s' if v[HAND_N + s] != 1 else ''} (hidden)"
        dn = v[DISC_N + s]
        disc = (f"discard pile {dn}, top {CARD_NAMES[v[DISC + s * DISC_CAP + dn - 1]]}" if dn
                else "discard pile empty")
        line = (f"  {you(s)}: {r} red + {b} blue" + (f" (needs {need} more)" if need else "")
                + f"; {hand}; {disc}")
        if v[SKIPS + s]:
            line += f"; skips pending: loses {v[SKIPS + s]} turn{'s' if v[SKIPS + s] > 1 else ''}"
        lines.append(line)
    special = ", ".join(f"{CARD_NAMES[SKIP_CARD + j]} {v[SPECIAL + j]}" for j in range(5) if v[SPECIAL + j])
    lines.append(f"Draw pile {v[DRAW_LEN] - v[DRAW_POS]} cards; completed stack {v[COMPLETED_N]} cards "
                 f"(reshuffled {v[RESHUFFLES]}x); out of the game: {special or 'nothing'}")
    return "\n".join(lines)


def describe_step(before, action, after, params, players) -> list[str]:
    """What one action changed, in words (from its trace events): the pile tops after a
    play, the chip totals after a chip changes hands, completions and blocks, turn order."""
    n = int(players)
    lines: list[str] = []
    kind = decode(action)[0]
    completer = int(before[TURN])
    if kind == "pass":
        lines.append(f"seat {int(before[WINDOW])} does not block")
    completed = int(before[WINDOW_SLOT])  # the pile being resolved, -1 none
    blocked = chips_moved = played = False
    for e in trace_step(before, action, after, params, n):
        f = parse_event(EVENT_FIELDS, e)
        ev, s = f["event"], f.get("seat")
        if ev == "play":
            lines.append(f"seat {s} plays {f['card']} from {f['source']} on {f['pile']} as {f['number']}")
            played = True
        elif ev == "complete":
            lines.append(f"seat {s} completes {f['pile']}")
            colour, k = f["pile"].split(".")
            completed = COLOUR_NAMES.index(colour) * MAX_PILES + int(k)
        elif ev == "block":
            lines.append(f"seat {s} blocks seat {completer}'s completion of {pile_name(completed)}: "
                         "no chip, the pile goes to the completed stack")
            blocked = True
        elif ev == "chip":
            lines.append(f"seat {s} takes a {f['colour']} chip for {pile_name(completed)}")
            chips_moved = True
        elif ev == "skip":
            lines.append(f"seat {s} plays skip: seat {(s + int(before[DIR])) % n} loses its next turn")
        elif ev == "reverse":
            lines.append(f"seat {s} plays reverse: play now goes {_direction(after[DIR])}")
        elif ev == "skipped":
            lines.append(f"seat {s} loses this turn to a skip")
        elif ev == "steal-card":
            lines.append(f"seat {s} takes {f['card']} from the top of seat {f['victim']}'s discard pile")
        elif ev == "steal-chip":
            lines.append(f"seat {s} takes a {f['colour']} chip from seat {f['victim']}")
            chips_moved = True
        elif ev == "discard":
            lines.append(f"seat {s} discards {f['card']} and ends the turn")
        elif ev == "turn":
            lines.append(f"seat {s}'s turn")
        elif ev == "draw":
            k = len(f["cards"])
            lines.append(f"seat {s} draws {k} card{'s' if k != 1 else ''}: {' '.join(f['cards'])}")
        elif ev == "reshuffle":
            lines.append(f"the completed stack ({len(f['cards'])} cards) becomes the new draw pile")
    if completed >= 0:
        if int(after[WINDOW]) >= 0:
            lines.append(f"block window on {pile_name(completed)}: seat {int(after[WINDOW])} "
                         "is asked whether to block")
        elif not blocked and not chips_moved:
            lines.append(f"no chip for {pile_name(completed)}: the "
                         f"{COLOUR_NAMES[completed // MAX_PILES]} supply is empty")
    if played or blocked or (completed >= 0 and int(after[WINDOW]) < 0):
        lines.append(_pile_tops(after, params))
    if chips_moved:
        lines.append(_chip_totals(after, n))
    if int(after[OVER]) and not int(before[OVER]):
        if int(after[TRUNCATED]):
            lines.append(f"the game is truncated: round cap reached after {int(after[TURNS])} turns")
        else:
            wn = int(after[WINNER])
            lines.append(f"seat {wn} wins with {int(after[CHIPS + 2 * wn])} red and "
                         f"{int(after[CHIPS + 2 * wn + 1])} blue chips")
    return lines


# ---- search evaluation (protocol ``evaluate``) -------------------------------------------------
EVAL_TEMPERATURE = 1.0  # chips still needed


@njit(cache=True)
def evaluate(state, params, players, out):
    """A soft win probability: softmax of minus the chips each seat still needs (at least
    ``min_each`` of each colour and ``chips_to_win`` in all), temperature
    ``EVAL_TEMPERATURE``."""
    m = params[P_MIN_EACH]
    best = 1e18
    for s in range(players):
        r = state[CHIPS + 2 * s]
        b = state[CHIPS + 2 * s + 1]
        need = max(max(m - r, 0) + max(m - b, 0), params[P_CHIPS_TO_WIN] - r - b)
        out[s] = need
        best = min(best, need)
    total = 0.0
    for s in range(players):
        out[s] = np.exp(-(out[s] - best) / EVAL_TEMPERATURE)
        total += out[s]
    for s in range(players):
        out[s] /= total
