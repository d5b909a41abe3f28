"""Three-Player Moon declared: tiles, bids, trumps, action codes and phases, the state and
observation layouts, options, the trick lookup tables precomputed from the rules, the
result columns, and ``INFO`` (the package docstring draws the layouts).
"""
from __future__ import annotations

import numpy as np

from simcore.layout import Column, Columns, Field, Layout
from simcore.options import Option
from simcore.protocol import GameInfo

PLAYERS = 3
NUM_TILES = 22
TILES_PER_HAND = 7
TRICKS_PER_HAND = 7
ALL_TILES = (1 << NUM_TILES) - 1
MOON_BID = 21
MAX_BID = 7
NUM_BID_LEVELS = MAX_BID + 1  # 1..7 and 21 (the moon)

TRUMP_DOUBLES = 7
TRUMP_NONE = 8
NUM_TRUMPS = 9
LED_TRUMPS = 7
NUM_LED = 8

# ---- actions --------------------------------------------------------------------------
PLAY_BASE = 0
DISCARD_BASE = 22
PASS = 44
BID_BASE = 44  # bid k (1..7) is BID_BASE + k
BID_MOON_ACTION = 52
TRUMP_BASE = 53
NUM_ACTIONS = 62

# ---- phases -----------------------------------------------------------------------------
PHASE_BID = 0
PHASE_DISCARD = 1
PHASE_TRUMP = 2
PHASE_PLAY = 3
PHASE_OVER = 4

# ---- state layout (declared once; the package docstring's table is LAYOUT.table())
LAYOUT = Layout(
    Field("HAND", 3, "tiles in each seat's hand (mask)"),
    Field("WIDOW", 1, "widow tile (id)"),
    Field("DISCARDED", 1, "the bidder's discard (id), -1 before it"),
    Field("SCORE", 3, "running totals"),
    Field("TRICKS", 3, "tricks each seat took this hand"),
    Field("PHASE", 1, "BID / DISCARD / TRUMP / PLAY / OVER"),
    Field("ACTOR", 1, "seat to decide"),
    Field("FIRST_BIDDER", 1, "this hand's first bidder"),
    Field("HIGH_BID", 1, "0 until someone bids"),
    Field("BIDDER", 1, "high bidder, -1"),
    Field("SPOKEN", 1, "players who have bid or passed this hand"),
    Field("TRUMP", 1, "trump code, -1 before it is named"),
    Field("LEADER", 1, "leader of the current trick"),
    Field("TRICK_NO", 1, "tricks completed this hand"),
    Field("IN_TRICK", 1, "tiles on the table"),
    Field("LED", 1, "led-suit code of the trick, -1"),
    Field("TABLE", 3, "tile each seat played to the current trick, -1"),
    Field("PLAYED", 1, "tiles played this hand, the table's included (mask)"),
    Field("VOID", 3, "led-suit codes each seat failed to follow this hand (public, bit per code)"),
    Field("HAND_NO", 1, "hands begun, redeals included"),
    Field("RNG", 1, "chance stream (simcore.rng)"),
    Field("WINNER", 1, "winning seat, -1"),
    Field("TRUNCATED", 1, "1 if the hand cap ended the game"),
    Field("TURNS", 1, "bids and passes + discards + plays (naming trump is not counted)"),
    Field("REDEALS", 1, "hands redealt because all passed"),
    Field("BIDS_MADE", 3, "contracts each seat made"),
    Field("BIDS_FAILED", 3, "contracts each seat failed"),
    Field("MOON_TRIES", 3, "21 bids each seat won the bidding with"),
    Field("MOONS_MADE", 3, "21 bids each seat made"),
    Field("WIDOW_TAKEN", 1, "1 once the bidder holds the widow"),
    Field("DISCARD_DONE", 1, "1 once the bidder has discarded (public)"),
    Field("HAND_POINTS", 3, "the last completed hand's points"),
    Field("LAST_TRICK_WINNER", 1, "winner of the last completed trick, -1"),
    Field("GAME_FIRST_BIDDER", 1, "first bidder of hand 1 (chosen at random)"),
    Field("SAID", 3, "what each seat said this hand: -1 not yet, 0 pass, else its bid (public)"),
    Field("PLAY_LOG", PLAYERS * TRICKS_PER_HAND,
          "tiles played this hand in order (trick k's j-th at 3k + j), -1 after them (public)"),
    Field("HAND_POINTS_POS", 3, "points of completed hands by bidding position k (0 = bid first)"),
    Field("CONTRACTS_POS", 3, "contracts won by the bidder at position k"),
    Field("MADE_POS", 3, "of those, contracts made"),
    Field("DECK", NUM_TILES, "this hand's deal order: seat s got DECK[7s..7s+6], widow DECK[21]"),
    # balance counters over the game's played hands (the reports' make rates)
    Field("CONTRACTS_BID", NUM_BID_LEVELS, "contracts won at each bid level: 1..7, then 21"),
    Field("MADE_BID", NUM_BID_LEVELS, "of those, contracts made"),
    Field("CONTRACTS_TRUMP", NUM_TRUMPS, "contracts played under each trump: 0..6, doubles, no-trump"),
    Field("MADE_TRUMP", NUM_TRUMPS, "of those, contracts made"),
    Field("CONTRACTS_WIDOW", 2, "contracts by the bidder's use of the widow: 0 discarded it, 1 kept it"),
    Field("MADE_WIDOW", 2, "of those, contracts made"),
)
LAYOUT.export(globals())
NOT_SAID = -1

# ---- options (order = rules/moon.md table = slots of the parameter vector) --------------
ALL_PASS_CHOICES = ("redeal", "force")
ALL_PASS_REDEAL = 0
ALL_PASS_FORCE = 1
OPTIONS = (
    Option("doubles_trump", "bool", True, "doubles may be named as trump"),
    Option("trump_before_widow", "bool", False, "trump is named before the widow is taken"),
    Option("all_pass", "choice", "redeal", "redeal, or force: the last to speak may not pass",
           choices=ALL_PASS_CHOICES),
    Option("moon_instant_win", "bool", True, "a made 21 wins the game at once (off: it scores 21)"),
    Option("bidder_goes_out", "bool", False,
           "when the bidder and another player both reach the target in one hand and the "
           "bidder made the bid, the bidder wins"),
    Option("min_bid", "int", 4, "lowest bid (bids are min_bid..7 and 21)", low=1, high=7),
    Option("target_score", "int", 21, "points needed to win", low=1, high=1000),
    Option("hand_cap", "int", 300, "hands (redeals included) after which a game is truncated",
           low=1, high=10000),
)
(OPT_DOUBLES_TRUMP, OPT_TRUMP_BEFORE_WIDOW, OPT_ALL_PASS, OPT_MOON_INSTANT_WIN,
 OPT_BIDDER_GOES_OUT, OPT_MIN_BID, OPT_TARGET_SCORE, OPT_HAND_CAP) = range(len(OPTIONS))

# a hand takes at most 3 bids, a widow step of 2 decisions and 21 plays
MAX_DECISIONS_PER_HAND = 3 + 2 + 3 * TRICKS_PER_HAND


# ---- tiles and lookup tables (precomputed once, from the rules) ---------------------------
def _tile_list():
    tiles = [(0, 0)]
    for hi in range(1, 7):
        for lo in range(1, hi + 1):
            tiles.append((hi, lo))
    return tiles


TILES = _tile_list()
TILE_HI = np.array([t[0] for t in TILES], dtype=np.int64)
TILE_LO = np.array([t[1] for t in TILES], dtype=np.int64)
TILE_NAMES = tuple(f"{hi}-{lo}" for hi, lo in TILES)
TILE_BY_NAME = {name: i for i, name in enumerate(TILE_NAMES)}
TRUMP_NAMES = ("0", "1", "2", "3", "4", "5", "6", "doubles", "none")


def _is_trump(trump, tile):
    hi, lo = TILES[tile]
    if trump == TRUMP_NONE:
        return False
    if trump == TRUMP_DOUBLES:
        return hi == lo
    return hi == trump or lo == trump


def _build_tables():
    trumps = np.zeros(NUM_TRUMPS, dtype=np.int64)
    follow = np.zeros((NUM_TRUMPS, NUM_LED), dtype=np.int64)
    led = np.zeros((NUM_TRUMPS, NUM_TILES), dtype=np.int64)
    power = np.zeros((NUM_TRUMPS, NUM_LED, NUM_TILES), dtype=np.int64)
    for tr in range(NUM_TRUMPS):
        for t, (hi, lo) in enumerate(TILES):
            if _is_trump(tr, t):
                trumps[tr] |= 1 << t
                led[tr, t] = LED_TRUMPS
            else:
                led[tr, t] = hi  # a plain lead is the higher end (a double: its number)
        follow[tr, LED_TRUMPS] = trumps[tr]
        for s in range(7):
            for t, (hi, lo) in enumerate(TILES):
                if not _is_trump(tr, t) and (hi == s or lo == s):
                    follow[tr, s] |= 1 << t
        for lead_code in range(NUM_LED):
            for t, (hi, lo) in enumerate(TILES):
                if _is_trump(tr, t):
                    if tr == TRUMP_DOUBLES:
                        rank = hi
                    else:
                        rank = 7 if hi == lo else (lo if hi == tr else hi)
                    power[tr, lead_code, t] = 16 + rank
                elif lead_code != LED_TRUMPS and (follow[tr, lead_code] >> t) & 1:
                    # within a plain suit the double ranks highest, then by the other end
                    power[tr, lead_code, t] = 8 if hi == lo else (lo if hi == lead_code else hi)
    return trumps, follow, led, power


TRUMP_MASK, FOLLOW_MASK, LED_SUIT, POWER = _build_tables()


# ---- result columns (declared once; summarize copies the state-backed ones) ----------------
BID_LEVEL_NAMES = tuple(str(b) for b in range(1, MAX_BID + 1)) + (str(MOON_BID),)
EXTRA_STATS = ("bids_made", "bids_failed", "moon_attempts", "moons_made")
STAT_SLOTS = (BIDS_MADE, BIDS_FAILED, MOON_TRIES, MOONS_MADE)

COLUMNS = Columns(
    LAYOUT,
    Column("hands", "hands dealt, redeals included", field="HAND_NO"),
    Column("redeals", "hands redealt because all three passed", field="REDEALS"),
    Column("bids_made", "contracts the seat won and made", per_seat=True, field="BIDS_MADE"),
    Column("bids_failed", "contracts the seat won and failed", per_seat=True, field="BIDS_FAILED"),
    Column("moon_attempts", "contracts the seat won with a 21 bid", per_seat=True, field="MOON_TRIES"),
    Column("moons_made", "21 contracts the seat made", per_seat=True, field="MOONS_MADE"),
    Column("hands_played", "hands bid and played out (hands - redeals)"),
    Column("first_bidder", "the seat that bid first in hand 1 (chosen at random; it moves on "
           "one seat every hand)", field="GAME_FIRST_BIDDER"),
    # per bidding position k, not per seat: one column for each k = 0, 1, 2
    Column("hand_points_pos", "_S is a bidding position k (0 bid first in the hand): points "
           "scored in played hands by the seat at position k, summed", per_seat=True,
           field="HAND_POINTS_POS"),
    Column("contracts_pos", "_S is a bidding position k: contracts won by the bidder at k",
           per_seat=True, field="CONTRACTS_POS"),
    Column("made_pos", "_S is a bidding position k: of those, contracts made", per_seat=True,
           field="MADE_POS"),
    # balance counters, computed by summarize from the state's arrays of the same names
    *[Column(f"bid_{level}_{stem}", f"contracts won with a bid of {level}{what}")
      for stem, what in (("contracts", ""), ("made", ", made")) for level in BID_LEVEL_NAMES],
    *[Column(f"trump_{name}_{stem}", f"contracts played with trump {name}{what}")
      for stem, what in (("contracts", ""), ("made", ", made")) for name in TRUMP_NAMES],
    *[Column(f"widow_{use}_{stem}", f"contracts whose bidder {use} the widow tile (kept: "
             f"discarded another tile){what}")
      for stem, what in (("contracts", ""), ("made", ", made")) for use in ("discarded", "kept")],
    common=(
        Column("score", "final total of the seat's hand points", per_seat=True, field="SCORE"),
        Column("win", "1 for the game's winner (a single winner); all 0 when truncated",
               per_seat=True),
        Column("truncated", "1 if the hand cap ended the game before anyone won",
               field="TRUNCATED"),
        Column("turns", "decisions that count as turns: bids and passes, the bidder's discard, "
               "tile plays (naming trump is not counted)", field="TURNS"),
    ),
)
PLANS = COLUMNS.plans(PLAYERS)
COL_WIN = COLUMNS.index("win", PLAYERS)
COL_HANDS_PLAYED = COLUMNS.index("hands_played", PLAYERS)
# the balance columns follow the state arrays CONTRACTS_BID … MADE_WIDOW slot for slot
COL_BALANCE = COLUMNS.index("bid_1_contracts", PLAYERS)
BALANCE_SLOTS = MADE_WIDOW + 2 - CONTRACTS_BID


# ---- observation (declared once; the package docstring's table is OBS_LAYOUT.table())
# Seats are relative to the observer: r = 0 the observer, 1 the next seat in play order, 2 the
# one after.  Blocks "by r" hold r = 0, 1, 2 in turn.  Tiles are indexed by tile id.
SAID_CODES = 10  # not yet, pass, bid 1..7, bid 21


def _score_reach(variant):
    """The most a running total can be from 0, over target_score (the OBS_SCORE bound): a
    scored hand moves a total by at most MOON_BID (a made or failed 21) and at most
    hand_cap hands are scored.  Nothing tighter holds: a tie at the top plays on, and a
    bidder may fail every hand.  Every other entry is 0/1 or a fraction of its cap."""
    return MOON_BID * variant["hand_cap"] / variant["target_score"]


OBS_LAYOUT = Layout(
    Field("OBS_PHASE", 5, "one-hot phase: bid, discard, trump, play, over"),
    Field("OBS_TO_ACT", 3, "one-hot r of the seat to decide (all 0 when over)"),
    Field("OBS_FIRST_BIDDER", 3, "one-hot r of this hand's first bidder"),
    Field("OBS_HAND", NUM_TILES, "the observer's tiles (multi-hot)"),
    Field("OBS_HAND_SIZES", 3, "tiles held by r, / 8"),
    Field("OBS_SAID", PLAYERS * SAID_CODES,
          "by r, one-hot of what r said this hand: not yet, pass, bid 1..7, bid 21"),
    Field("OBS_BIDDER", 3, "one-hot r of the high bidder (all 0 before a bid)"),
    Field("OBS_CONTRACT", 8, "one-hot high bid: 1..7, 21 (all 0 before a bid)"),
    Field("OBS_TRUMP", NUM_TRUMPS, "one-hot trump: 0..6, doubles, no-trump (all 0 before named)"),
    Field("OBS_WIDOW_TAKEN", 1, "1 once the bidder holds the widow"),
    Field("OBS_DISCARD_DONE", 1, "1 once the bidder has discarded"),
    Field("OBS_WIDOW", NUM_TILES, "one-hot widow tile, for the bidder who took it only"),
    Field("OBS_DISCARD", NUM_TILES, "one-hot discard, for the bidder only"),
    Field("OBS_PLAYED", NUM_TILES, "tiles played to completed tricks this hand (multi-hot)"),
    Field("OBS_TABLE", PLAYERS * NUM_TILES, "by r, one-hot tile r played to the current trick"),
    Field("OBS_LEADER", 3, "one-hot r of the current trick's leader (play phase only)"),
    Field("OBS_LED", NUM_LED, "one-hot led suit of the current trick: 0..6, trumps (0 if empty)"),
    Field("OBS_VOID", PLAYERS * NUM_LED, "by r, led suits r failed to follow this hand"),
    Field("OBS_TRICKS", 3, "tricks taken this hand by r, / 7"),
    Field("OBS_TRICK_NO", 1, "tricks completed this hand, / 7"),
    Field("OBS_SCORE", 3, "running totals by r, / target_score (may be negative)",
          low=lambda v, n: -_score_reach(v), high=lambda v, n: _score_reach(v)),
    Field("OBS_HAND_NO", 1, "hands begun, / hand_cap"),
    size_name="OBS_SIZE",
)
OBS_LAYOUT.export(globals())


# ---- declaration ----------------------------------------------------------------------------
INFO = GameInfo(
    name="moon",
    title="Three-Player Moon",
    min_players=3,
    max_players=3,
    options=OPTIONS,
    num_actions=NUM_ACTIONS,
    state_size=lambda players: STATE_SIZE,
    extra_columns=COLUMNS.extra_names,
    max_decisions=lambda players: MAX_DECISIONS_PER_HAND * OPTIONS[OPT_HAND_CAP].high,
    chance="deals resolved inside apply from the in-state stream",
    information="imperfect (hidden hands, widow and discard)",
    utility="points per hand; one winner per game",
    description="trick-taking dominoes: bid, take the widow, name trump, 7 tricks; first to 21",
    rate_columns=("hands",),
    column_docs=tuple(COLUMNS.docs()),
    observation_size=lambda players: OBS_SIZE,
    first_player_column="first_bidder",
    truncation_option="hand_cap",
)


# events that open a section of `playlab show`
SECTION_EVENTS = ("hand",)
