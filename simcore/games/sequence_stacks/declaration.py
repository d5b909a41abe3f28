"""Sequence Stacks declared: cards, options, action codes, the state and observation
layouts and the tables precomputed from them, the result columns, and ``INFO`` with its
decision bound and impossible options (the package docstring draws the layouts).
"""
from __future__ import annotations

import numpy as np

from simcore.layout import COMMON_COLUMNS, Column, Columns, Field, Layout
from simcore.options import Option
from simcore.protocol import GameInfo

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
