"""Shifting Stones declared: card and grid constants, action codes, the state and
observation layouts, options and the deck tables of the parameter vector, the result
columns, and ``INFO`` (the package docstring draws the layouts).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from simcore.kernel_helpers import HALF
from simcore.layout import COMMON_COLUMNS, Column, Columns, Field, Layout
from simcore.options import Option, encode_options
from simcore.protocol import GameInfo
from simcore.games.shifting_stones_deck import DECK_SIZE, FACES, POINT_COUNTS, load_deck, placements

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
# seat regions are sized for MAX_PLAYERS seats; the package docstring's table is LAYOUT.table()
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
