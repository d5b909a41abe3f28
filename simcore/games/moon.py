"""Three-Player Moon: a trick-taking domino game for exactly 3 players, first to 21.

Rules: shared/rules/moon.md (every [decision] and [variant] there is an option below).

Tiles are numbered 0..21: tile 0 is 0-0, then 1-1, 2-1, 2-2, 3-1, 3-2, 3-3, … 6-6 (high end
first, every a-b with 1 <= b <= a <= 6).  Sets of tiles are 22-bit masks.  Trump codes:
0..6 a number, 7 doubles, 8 no-trump.  Led-suit codes: 0..6 a plain suit, 7 trumps.

State (one int64 vector, STATE_SIZE = 147 slots; ``LAYOUT`` below, this table is its
``LAYOUT.table()``)::

    HAND               [0:3]       tiles in each seat's hand (mask)
    WIDOW              [3]         widow tile (id)
    DISCARDED          [4]         the bidder's discard (id), -1 before it
    SCORE              [5:8]       running totals
    TRICKS             [8:11]      tricks each seat took this hand
    PHASE              [11]        BID / DISCARD / TRUMP / PLAY / OVER
    ACTOR              [12]        seat to decide
    FIRST_BIDDER       [13]        this hand's first bidder
    HIGH_BID           [14]        0 until someone bids
    BIDDER             [15]        high bidder, -1
    SPOKEN             [16]        players who have bid or passed this hand
    TRUMP              [17]        trump code, -1 before it is named
    LEADER             [18]        leader of the current trick
    TRICK_NO           [19]        tricks completed this hand
    IN_TRICK           [20]        tiles on the table
    LED                [21]        led-suit code of the trick, -1
    TABLE              [22:25]     tile each seat played to the current trick, -1
    PLAYED             [25]        tiles played this hand, the table's included (mask)
    VOID               [26:29]     led-suit codes each seat failed to follow this hand (public, bit per code)
    HAND_NO            [29]        hands begun, redeals included
    RNG                [30]        chance stream (simcore.rng)
    WINNER             [31]        winning seat, -1
    TRUNCATED          [32]        1 if the hand cap ended the game
    TURNS              [33]        bids and passes + discards + plays (naming trump is not counted)
    REDEALS            [34]        hands redealt because all passed
    BIDS_MADE          [35:38]     contracts each seat made
    BIDS_FAILED        [38:41]     contracts each seat failed
    MOON_TRIES         [41:44]     21 bids each seat won the bidding with
    MOONS_MADE         [44:47]     21 bids each seat made
    WIDOW_TAKEN        [47]        1 once the bidder holds the widow
    DISCARD_DONE       [48]        1 once the bidder has discarded (public)
    HAND_POINTS        [49:52]     the last completed hand's points
    LAST_TRICK_WINNER  [52]        winner of the last completed trick, -1
    GAME_FIRST_BIDDER  [53]        first bidder of hand 1 (chosen at random)
    SAID               [54:57]     what each seat said this hand: -1 not yet, 0 pass, else its bid (public)
    PLAY_LOG           [57:78]     tiles played this hand in order (trick k's j-th at 3k + j), -1 after them (public)
    HAND_POINTS_POS    [78:81]     points of completed hands by bidding position k (0 = bid first)
    CONTRACTS_POS      [81:84]     contracts won by the bidder at position k
    MADE_POS           [84:87]     of those, contracts made
    DECK               [87:109]    this hand's deal order: seat s got DECK[7s..7s+6], widow DECK[21]
    CONTRACTS_BID      [109:117]   contracts won at each bid level: 1..7, then 21
    MADE_BID           [117:125]   of those, contracts made
    CONTRACTS_TRUMP    [125:134]   contracts played under each trump: 0..6, doubles, no-trump
    MADE_TRUMP         [134:143]   of those, contracts made
    CONTRACTS_WIDOW    [143:145]   contracts by the bidder's use of the widow: 0 discarded it, 1 kept it
    MADE_WIDOW         [145:147]   of those, contracts made

Observation (``observation``: OBS_SIZE = 263 float64, ``OBS_LAYOUT``).  r is a seat relative
to the observer (0 itself, 1 the next to play after it, 2 the one after); blocks "by r"
hold r = 0, 1, 2 in turn; tiles are indexed by tile id.  Only public slots and the
observer's own are read::

    OBS_PHASE         [0:5]       one-hot phase: bid, discard, trump, play, over
    OBS_TO_ACT        [5:8]       one-hot r of the seat to decide (all 0 when over)
    OBS_FIRST_BIDDER  [8:11]      one-hot r of this hand's first bidder
    OBS_HAND          [11:33]     the observer's tiles (multi-hot)
    OBS_HAND_SIZES    [33:36]     tiles held by r, / 8
    OBS_SAID          [36:66]     by r, one-hot of what r said this hand: not yet, pass, bid 1..7, bid 21
    OBS_BIDDER        [66:69]     one-hot r of the high bidder (all 0 before a bid)
    OBS_CONTRACT      [69:77]     one-hot high bid: 1..7, 21 (all 0 before a bid)
    OBS_TRUMP         [77:86]     one-hot trump: 0..6, doubles, no-trump (all 0 before named)
    OBS_WIDOW_TAKEN   [86]        1 once the bidder holds the widow
    OBS_DISCARD_DONE  [87]        1 once the bidder has discarded
    OBS_WIDOW         [88:110]    one-hot widow tile, for the bidder who took it only
    OBS_DISCARD       [110:132]   one-hot discard, for the bidder only
    OBS_PLAYED        [132:154]   tiles played to completed tricks this hand (multi-hot)
    OBS_TABLE         [154:220]   by r, one-hot tile r played to the current trick
    OBS_LEADER        [220:223]   one-hot r of the current trick's leader (play phase only)
    OBS_LED           [223:231]   one-hot led suit of the current trick: 0..6, trumps (0 if empty)
    OBS_VOID          [231:255]   by r, led suits r failed to follow this hand
    OBS_TRICKS        [255:258]   tricks taken this hand by r, / 7
    OBS_TRICK_NO      [258]       tricks completed this hand, / 7
    OBS_SCORE         [259:262]   running totals by r, / target_score (may be negative)
    OBS_HAND_NO       [262]       hands begun, / hand_cap

Actions (NUM_ACTIONS = 62)::

    0..21   play tile t               22..43  discard tile t (bidder, after the widow)
    44      pass                      45..51  bid 1..7 (only min_bid..7 are legal)
    52      bid 21 (shoot the moon)   53..61  name trump 0..6, doubles, no-trump
"""
from __future__ import annotations

# a short summary for `playlab human` (`?`); the full rules: shared/rules/moon.md
RULES_SUMMARY = """\
Three-Player Moon: 22 dominoes (double-six set without blanks but 0-0), 7 tiles each, one
face-down widow. Bid once each in turn: pass, or higher than the high bid (min_bid..7, or
21 to shoot the moon). The high bidder takes the widow, discards one tile face down and
names trump (a number, doubles or no-trump), then leads. Follow the led suit if you can;
the highest trump, else the highest of the led suit, wins the trick. The bidder scores the
bid on making at least that many of the 7 tricks (21: all 7), else loses it; the others
score one point per trick. First to target_score (default 21) wins."""

import numpy as np
from numba import njit

from simcore.kernel_helpers import mask_to_actions, next_seat, shuffle_range, win_share_returns
from simcore.layout import Column, Columns, Field, Layout, copy_columns
from simcore.options import Option
from simcore.protocol import HIDDEN, GameInfo
from simcore.rng import below, random_set_bit

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

# ---- state layout (declared once; the header's table is LAYOUT.table()) -----------------
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


# ---- kernels --------------------------------------------------------------------------------
@njit(cache=True)
def _start_hand(state, params, first):
    state[HAND_NO] += 1
    state[FIRST_BIDDER] = first
    shuffle_range(state, RNG, state, DECK, NUM_TILES)
    for s in range(PLAYERS):
        m = 0
        for j in range(TILES_PER_HAND):
            m |= 1 << state[DECK + TILES_PER_HAND * s + j]
        state[HAND + s] = m
        state[TRICKS + s] = 0
        state[TABLE + s] = -1
        state[VOID + s] = 0
        state[SAID + s] = NOT_SAID
    for i in range(PLAYERS * TRICKS_PER_HAND):
        state[PLAY_LOG + i] = -1
    state[WIDOW] = state[DECK + NUM_TILES - 1]
    state[DISCARDED] = -1
    state[HIGH_BID] = 0
    state[BIDDER] = -1
    state[SPOKEN] = 0
    state[TRUMP] = -1
    state[TRICK_NO] = 0
    state[IN_TRICK] = 0
    state[LED] = -1
    state[PLAYED] = 0
    state[WIDOW_TAKEN] = 0
    state[DISCARD_DONE] = 0
    state[PHASE] = PHASE_BID
    state[ACTOR] = first


@njit(cache=True)
def init(state, params, players, chance_key):
    state[:] = 0
    state[RNG] = chance_key
    state[WINNER] = -1
    state[LAST_TRICK_WINNER] = -1
    for t in range(NUM_TILES):
        state[DECK + t] = t
    first = below(state, RNG, PLAYERS)
    state[GAME_FIRST_BIDDER] = first
    _start_hand(state, params, first)


@njit(cache=True, inline="always")
def current_player(state):
    if state[PHASE] == PHASE_OVER:
        return -1
    return state[ACTOR]


@njit(cache=True, inline="always")
def is_terminal(state):
    return state[PHASE] == PHASE_OVER


@njit(cache=True, inline="always")
def _may_pass(state, params):
    # all_pass=force: the last to speak may not pass when nobody has bid
    return not (params[OPT_ALL_PASS] == ALL_PASS_FORCE and state[SPOKEN] == PLAYERS - 1
                and state[HIGH_BID] == 0)


@njit(cache=True, inline="always")
def _lowest_bid(state, params):
    return max(params[OPT_MIN_BID], state[HIGH_BID] + 1)


@njit(cache=True, inline="always")
def legal_plays(state):
    """Mask of the tiles the actor may play to the current trick."""
    hand = state[HAND + state[ACTOR]]
    if state[IN_TRICK] == 0:
        return hand
    follow = hand & FOLLOW_MASK[state[TRUMP], state[LED]]
    return follow if follow != 0 else hand


@njit(cache=True, inline="always")
def trick_leader(state, trump, led):
    """(seat, power) of the tile now winning the trick on the table; (-1, -1) if empty."""
    w = -1
    best = -1
    for s in range(PLAYERS):
        t = state[TABLE + s]
        if t >= 0:
            pw = POWER[trump, led, t]
            if pw > best:
                best = pw
                w = s
    return w, best


@njit(cache=True)
def legal_actions(state, params, out):
    phase = state[PHASE]
    n = 0
    if phase == PHASE_PLAY:
        n = mask_to_actions(legal_plays(state), PLAY_BASE, out, n)
    elif phase == PHASE_BID:
        if _may_pass(state, params):
            out[n] = PASS
            n += 1
        for k in range(_lowest_bid(state, params), MAX_BID + 1):
            out[n] = BID_BASE + k
            n += 1
        out[n] = BID_MOON_ACTION
        n += 1
    elif phase == PHASE_DISCARD:
        n = mask_to_actions(state[HAND + state[ACTOR]], DISCARD_BASE, out, n)
    elif phase == PHASE_TRUMP:
        for tr in range(NUM_TRUMPS):
            if tr == TRUMP_DOUBLES and params[OPT_DOUBLES_TRUMP] == 0:
                continue
            out[n] = TRUMP_BASE + tr
            n += 1
    return n


@njit(cache=True)
def random_action(state, params, rng, slot):
    phase = state[PHASE]
    if phase == PHASE_PLAY:
        return PLAY_BASE + random_set_bit(rng, slot, legal_plays(state))
    if phase == PHASE_BID:
        lo = _lowest_bid(state, params)
        may_pass = 1 if _may_pass(state, params) else 0
        nbids = max(0, MAX_BID - lo + 1)
        k = below(rng, slot, may_pass + nbids + 1)
        if k < may_pass:
            return PASS
        k -= may_pass
        if k < nbids:
            return BID_BASE + lo + k
        return BID_MOON_ACTION
    if phase == PHASE_DISCARD:
        return DISCARD_BASE + random_set_bit(rng, slot, state[HAND + state[ACTOR]])
    # PHASE_TRUMP
    if params[OPT_DOUBLES_TRUMP] != 0:
        return TRUMP_BASE + below(rng, slot, NUM_TRUMPS)
    k = below(rng, slot, NUM_TRUMPS - 1)
    return TRUMP_BASE + (k if k < TRUMP_DOUBLES else TRUMP_NONE)


@njit(cache=True)
def _take_widow(state):
    b = state[BIDDER]
    state[HAND + b] |= 1 << state[WIDOW]
    state[WIDOW_TAKEN] = 1


@njit(cache=True)
def _start_play(state):
    state[PHASE] = PHASE_PLAY
    state[LEADER] = state[BIDDER]
    state[ACTOR] = state[BIDDER]
    state[IN_TRICK] = 0


@njit(cache=True)
def _end_hand(state, params, winner):
    """After a scored hand or a redeal: decide the game, else deal the next hand."""
    if winner >= 0:
        state[WINNER] = winner
        state[PHASE] = PHASE_OVER
    elif state[HAND_NO] >= params[OPT_HAND_CAP]:
        state[TRUNCATED] = 1
        state[PHASE] = PHASE_OVER
    else:
        _start_hand(state, params, next_seat(state[FIRST_BIDDER], 1, PLAYERS))


@njit(cache=True, inline="always")
def _position(seat, first):
    """Bidding position of ``seat`` in a hand that ``first`` bids first (0, 1, 2)."""
    k = seat - first
    return k + PLAYERS if k < 0 else k


@njit(cache=True)
def _score_hand(state, params):
    b = state[BIDDER]
    bid = state[HIGH_BID]
    need = TRICKS_PER_HAND if bid == MOON_BID else bid
    made = state[TRICKS + b] >= need
    for s in range(PLAYERS):
        state[HAND_POINTS + s] = state[TRICKS + s]
    state[HAND_POINTS + b] = bid if made else -bid
    first = state[FIRST_BIDDER]
    for s in range(PLAYERS):
        state[SCORE + s] += state[HAND_POINTS + s]
        state[HAND_POINTS_POS + _position(s, first)] += state[HAND_POINTS + s]
    kb = _position(b, first)
    state[CONTRACTS_POS + kb] += 1
    level = MAX_BID if bid == MOON_BID else bid - 1
    kept = 0 if state[DISCARDED] == state[WIDOW] else 1
    state[CONTRACTS_BID + level] += 1
    state[CONTRACTS_TRUMP + state[TRUMP]] += 1
    state[CONTRACTS_WIDOW + kept] += 1
    if made:
        state[MADE_BID + level] += 1
        state[MADE_TRUMP + state[TRUMP]] += 1
        state[MADE_WIDOW + kept] += 1
        state[MADE_POS + kb] += 1
        state[BIDS_MADE + b] += 1
    else:
        state[BIDS_FAILED + b] += 1
    if bid == MOON_BID and made:
        state[MOONS_MADE + b] += 1
        if params[OPT_MOON_INSTANT_WIN] != 0:
            _end_hand(state, params, b)
            return
    target = params[OPT_TARGET_SCORE]
    winner = -1
    if params[OPT_BIDDER_GOES_OUT] != 0 and made and state[SCORE + b] >= target:
        for s in range(PLAYERS):
            if s != b and state[SCORE + s] >= target:
                winner = b
    if winner < 0:
        top = max(state[SCORE], max(state[SCORE + 1], state[SCORE + 2]))
        if top >= target:
            leaders = 0
            for s in range(PLAYERS):
                if state[SCORE + s] == top:
                    leaders += 1
                    winner = s
            if leaders > 1:
                winner = -1  # tied at the top: play on
    _end_hand(state, params, winner)


@njit(cache=True)
def apply(state, params, action):
    p = state[ACTOR]
    phase = state[PHASE]
    if phase == PHASE_PLAY:
        t = action - PLAY_BASE
        state[HAND + p] &= ~(1 << t)
        state[PLAYED] |= 1 << t
        state[TABLE + p] = t
        state[PLAY_LOG + PLAYERS * state[TRICK_NO] + state[IN_TRICK]] = t
        state[TURNS] += 1
        trump = state[TRUMP]
        if state[IN_TRICK] == 0:
            state[LED] = LED_SUIT[trump, t]
        elif not (FOLLOW_MASK[trump, state[LED]] >> t) & 1:
            state[VOID + p] |= 1 << state[LED]
        state[IN_TRICK] += 1
        if state[IN_TRICK] < PLAYERS:
            state[ACTOR] = next_seat(p, 1, PLAYERS)
            return
        w, _ = trick_leader(state, trump, state[LED])
        state[TRICKS + w] += 1
        state[TRICK_NO] += 1
        state[IN_TRICK] = 0
        state[LAST_TRICK_WINNER] = w
        for s in range(PLAYERS):
            state[TABLE + s] = -1
        state[LEADER] = w
        state[ACTOR] = w
        if state[TRICK_NO] == TRICKS_PER_HAND:
            _score_hand(state, params)
        return
    if phase == PHASE_BID:
        state[TURNS] += 1
        if action != PASS:
            bid = MOON_BID if action == BID_MOON_ACTION else action - BID_BASE
            state[HIGH_BID] = bid
            state[BIDDER] = p
            state[SAID + p] = bid
        else:
            state[SAID + p] = 0
        state[SPOKEN] += 1
        if state[HIGH_BID] != MOON_BID and state[SPOKEN] < PLAYERS:
            state[ACTOR] = next_seat(p, 1, PLAYERS)
            return
        if state[HIGH_BID] == 0:
            state[REDEALS] += 1
            _end_hand(state, params, -1)
            return
        b = state[BIDDER]
        if state[HIGH_BID] == MOON_BID:
            state[MOON_TRIES + b] += 1
        state[ACTOR] = b
        if params[OPT_TRUMP_BEFORE_WIDOW] != 0:
            state[PHASE] = PHASE_TRUMP
        else:
            _take_widow(state)
            state[PHASE] = PHASE_DISCARD
        return
    if phase == PHASE_DISCARD:
        t = action - DISCARD_BASE
        state[HAND + p] &= ~(1 << t)
        state[DISCARDED] = t
        state[DISCARD_DONE] = 1
        state[TURNS] += 1
        if params[OPT_TRUMP_BEFORE_WIDOW] != 0:
            _start_play(state)
        else:
            state[PHASE] = PHASE_TRUMP
        return
    # PHASE_TRUMP
    state[TRUMP] = action - TRUMP_BASE
    if params[OPT_TRUMP_BEFORE_WIDOW] != 0:
        _take_widow(state)
        state[PHASE] = PHASE_DISCARD
    else:
        _start_play(state)


@njit(cache=True)
def random_run(state, params, rng):
    """Fast path for seats that all play at random: play the game to its end exactly as
    ``random_action`` + ``apply`` would, decision for decision and with the same draws
    from each seat's stream, the tricks in one tight loop.  Returns the decisions taken.
    It is the hot path of random benchmarks and of search rollouts; tests check it
    against the step-by-step path."""
    n = 0
    while state[PHASE] != PHASE_OVER:
        if state[PHASE] == PHASE_PLAY:
            n += _random_tricks(state, params, rng)
        else:
            apply(state, params, random_action(state, params, rng, state[ACTOR]))
            n += 1
    return n


@njit(cache=True)
def _random_tricks(state, params, rng):
    """The rest of the hand's tricks with random plays; returns the plays made."""
    trump = state[TRUMP]
    actor = state[ACTOR]
    in_trick = state[IN_TRICK]
    led = state[LED]
    played = state[PLAYED]
    trick_no = state[TRICK_NO]
    n = 0
    while True:
        hand = state[HAND + actor]
        legal = hand
        if in_trick != 0:
            follow = hand & FOLLOW_MASK[trump, led]
            if follow != 0:
                legal = follow
        t = random_set_bit(rng, actor, legal)
        bit = 1 << t
        state[HAND + actor] = hand & ~bit
        played |= bit
        state[TABLE + actor] = t
        state[PLAY_LOG + PLAYERS * trick_no + in_trick] = t
        n += 1
        if in_trick == 0:
            led = LED_SUIT[trump, t]
        elif not (FOLLOW_MASK[trump, led] >> t) & 1:
            state[VOID + actor] |= 1 << led
        in_trick += 1
        if in_trick < PLAYERS:
            actor = next_seat(actor, 1, PLAYERS)
            continue
        w, _ = trick_leader(state, trump, led)
        for s in range(PLAYERS):
            state[TABLE + s] = -1
        state[TRICKS + w] += 1
        trick_no += 1
        in_trick = 0
        actor = w
        if trick_no == TRICKS_PER_HAND:
            break
    state[LAST_TRICK_WINNER] = actor
    state[LEADER] = actor
    state[ACTOR] = actor
    state[IN_TRICK] = 0
    state[LED] = led
    state[PLAYED] = played
    state[TRICK_NO] = trick_no
    state[TURNS] += n
    _score_hand(state, params)
    return n


# ---- result columns (declared once; summarize copies the state-backed ones) ----------------
BID_LEVEL_NAMES = tuple(str(b) for b in range(1, MAX_BID + 1)) + (str(MOON_BID),)
TRUMP_NAMES = tuple(str(k) for k in range(TRUMP_DOUBLES)) + ("doubles", "none")
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


@njit(cache=True)
def summarize(state, params, players, row):
    copy_columns(state, players, row, PLANS[players])
    for s in range(PLAYERS):
        row[COL_WIN + s] = 1 if state[WINNER] == s else 0
    row[COL_HANDS_PLAYED] = state[HAND_NO] - state[REDEALS]
    for k in range(BALANCE_SLOTS):
        row[COL_BALANCE + k] = state[CONTRACTS_BID + k]


@njit(cache=True)
def returns(state, params, players, out):
    """Moon has one winner (a tie at the top plays on)."""
    w = state[WINNER]
    win_share_returns(out, players, state[PHASE] == PHASE_OVER, state[TRUNCATED],
                      (np.int64(1) << w) if w >= 0 else 0)


@njit(cache=True)
def observe(state, player, out):
    for i in range(state.shape[0]):  # no slice copy: the engine calls this without reference counting
        out[i] = state[i]
    for s in range(PLAYERS):
        if s != player:
            out[HAND + s] = HIDDEN
    bidder_sees_widow = player == state[BIDDER] and state[WIDOW_TAKEN] == 1
    if not bidder_sees_widow:
        out[WIDOW] = HIDDEN
    if player != state[BIDDER]:
        out[DISCARDED] = HIDDEN
    out[RNG] = HIDDEN  # the chance stream would reveal every future deal
    for t in range(NUM_TILES):
        out[DECK + t] = HIDDEN


@njit(cache=True)
def _hand_size(view, s):
    n = TILES_PER_HAND - view[TRICK_NO]
    if view[TABLE + s] >= 0:
        n -= 1
    if s == view[BIDDER]:
        n += view[WIDOW_TAKEN] - view[DISCARD_DONE]
    return n


# tries at sampling hidden hands that respect every void shown in play before falling
# back to a sample that ignores voids (only possible voids make the constraint tight)
DETERMINIZE_TRIES = 32


@njit(cache=True)
def determinize(view, params, player, rng, slot, out):
    out[:] = view
    known = view[HAND + player] | view[PLAYED]
    for s in range(PLAYERS):
        if view[TABLE + s] >= 0:
            known |= 1 << view[TABLE + s]
    widow_open = view[WIDOW] == HIDDEN
    discard_open = view[DISCARD_DONE] == 1 and view[DISCARDED] == HIDDEN
    if not widow_open:
        known |= 1 << view[WIDOW]
    if view[DISCARD_DONE] == 1 and not discard_open:
        known |= 1 << view[DISCARDED]
    # once the bidder holds the widow it is one of the bidder's (hidden) tiles or the
    # discard; the WIDOW slot then stays HIDDEN since no rule reads it any more
    widow_in_hand = view[WIDOW_TAKEN] == 1 and widow_open
    # the unknown tiles are dealt from DECK, which the view hides anyway
    n = mask_to_actions(ALL_TILES & ~known, 0, out, DECK) - DECK
    trump = view[TRUMP]
    for attempt in range(DETERMINIZE_TRIES):
        shuffle_range(rng, slot, out, DECK, n)
        k = 0
        ok = True
        for s in range(PLAYERS):
            if s == player:
                continue
            size = _hand_size(view, s)
            h = 0
            for j in range(size):
                h |= 1 << out[DECK + k]
                k += 1
            out[HAND + s] = h
            if trump >= 0 and view[VOID + s] != 0:
                for code in range(NUM_LED):
                    if (view[VOID + s] >> code) & 1 and h & FOLLOW_MASK[trump, code]:
                        ok = False
        if widow_open and not widow_in_hand:
            out[WIDOW] = out[DECK + k]
            k += 1
        if discard_open:
            out[DISCARDED] = out[DECK + k]
            k += 1
        if ok:
            break
    out[RNG] = rng[slot] ^ 0x5DEECE66D  # a fresh future, independent of the real deals
    for t in range(NUM_TILES):
        out[DECK + t] = t


# ---- observation (declared once; the header's table is OBS_LAYOUT.table()) -----------------
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


@njit(cache=True, inline="always")
def _said_code(said):
    if said == NOT_SAID:
        return 0
    if said == 0:
        return 1
    return 9 if said == MOON_BID else 1 + said


@njit(cache=True)
def observation(view, params, seat, out):
    """Only public slots and ``seat``'s own ones are read, so a view and any state
    determinized from it give the same vector."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    phase = view[PHASE]
    out[OBS_PHASE + phase] = 1.0
    if phase != PHASE_OVER:
        out[OBS_TO_ACT + _position(view[ACTOR], seat)] = 1.0
    out[OBS_FIRST_BIDDER + _position(view[FIRST_BIDDER], seat)] = 1.0
    hand = view[HAND + seat]
    for t in range(NUM_TILES):
        if (hand >> t) & 1:
            out[OBS_HAND + t] = 1.0
    bidder = view[BIDDER]
    table_mask = 0
    for s in range(PLAYERS):
        r = _position(s, seat)
        out[OBS_HAND_SIZES + r] = _hand_size(view, s) / 8.0
        out[OBS_SAID + SAID_CODES * r + _said_code(view[SAID + s])] = 1.0
        t = view[TABLE + s]
        if t >= 0:
            out[OBS_TABLE + NUM_TILES * r + t] = 1.0
            table_mask |= 1 << t
        v = view[VOID + s]
        for code in range(NUM_LED):
            if (v >> code) & 1:
                out[OBS_VOID + NUM_LED * r + code] = 1.0
        out[OBS_TRICKS + r] = view[TRICKS + s] / TRICKS_PER_HAND
        out[OBS_SCORE + r] = view[SCORE + s] / params[OPT_TARGET_SCORE]
    if bidder >= 0:
        out[OBS_BIDDER + _position(bidder, seat)] = 1.0
        bid = view[HIGH_BID]
        out[OBS_CONTRACT + (MAX_BID if bid == MOON_BID else bid - 1)] = 1.0
    if view[TRUMP] >= 0:
        out[OBS_TRUMP + view[TRUMP]] = 1.0
    out[OBS_WIDOW_TAKEN] = view[WIDOW_TAKEN]
    out[OBS_DISCARD_DONE] = view[DISCARD_DONE]
    if seat == bidder:
        if view[WIDOW_TAKEN] == 1:
            out[OBS_WIDOW + view[WIDOW]] = 1.0
        if view[DISCARD_DONE] == 1:
            out[OBS_DISCARD + view[DISCARDED]] = 1.0
    done = view[PLAYED] & ~table_mask
    for t in range(NUM_TILES):
        if (done >> t) & 1:
            out[OBS_PLAYED + t] = 1.0
    if phase == PHASE_PLAY:
        out[OBS_LEADER + _position(view[LEADER], seat)] = 1.0
        if view[IN_TRICK] > 0:
            out[OBS_LED + view[LED]] = 1.0
    out[OBS_TRICK_NO] = view[TRICK_NO] / TRICKS_PER_HAND
    out[OBS_HAND_NO] = view[HAND_NO] / params[OPT_HAND_CAP]


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


# ---- words ------------------------------------------------------------------------------------
def action_name(action: int) -> str:
    if PLAY_BASE <= action < DISCARD_BASE:
        return f"play {TILE_NAMES[action - PLAY_BASE]}"
    if DISCARD_BASE <= action < PASS:
        return f"discard {TILE_NAMES[action - DISCARD_BASE]}"
    if action == PASS:
        return "pass"
    if BID_BASE < action < BID_MOON_ACTION:
        return f"bid {action - BID_BASE}"
    if action == BID_MOON_ACTION:
        return "bid 21"
    if TRUMP_BASE <= action < NUM_ACTIONS:
        return f"trump {TRUMP_NAMES[action - TRUMP_BASE]}"
    raise ValueError(f"no Moon action {action}")


def _hand_events(state) -> list[str]:
    deck = [int(t) for t in state[DECK:DECK + NUM_TILES]]
    events = [f"hand {int(state[HAND_NO])} first {int(state[FIRST_BIDDER])}"]
    for s in range(PLAYERS):
        tiles = deck[TILES_PER_HAND * s: TILES_PER_HAND * (s + 1)]
        events.append(f"deal {s} " + " ".join(TILE_NAMES[t] for t in tiles))
    events.append(f"widow {TILE_NAMES[deck[NUM_TILES - 1]]}")
    return events


def trace_start(state, params, players) -> list[str]:
    return _hand_events(state)


def _next_hand_events(after) -> list[str]:
    return [] if after[PHASE] == PHASE_OVER else _hand_events(after)


def trace_step(before, action, after, params, players) -> list[str]:
    p = int(before[ACTOR])
    phase = before[PHASE]
    tbw = params[OPT_TRUMP_BEFORE_WIDOW] != 0
    if phase == PHASE_BID:
        events = ["pass %d" % p if action == PASS else
                  "bid %d %d" % (p, MOON_BID if action == BID_MOON_ACTION else action - BID_BASE)]
        if after[HAND_NO] != before[HAND_NO] or (after[PHASE] == PHASE_OVER and after[BIDDER] < 0):
            events.append("redeal")
            events += _next_hand_events(after)
        elif after[PHASE] == PHASE_DISCARD:
            events.append(f"take {int(after[BIDDER])}")
        return events
    if phase == PHASE_DISCARD:
        return [f"discard {p} {TILE_NAMES[action - DISCARD_BASE]}"]
    if phase == PHASE_TRUMP:
        events = [f"trump {p} {TRUMP_NAMES[action - TRUMP_BASE]}"]
        if tbw:
            events.append(f"take {p}")
        return events
    events = [f"play {p} {TILE_NAMES[action - PLAY_BASE]}"]
    if before[IN_TRICK] == PLAYERS - 1:
        events.append(f"trick {int(after[LAST_TRICK_WINNER])}")
        if before[TRICK_NO] == TRICKS_PER_HAND - 1:
            events.append("score " + " ".join(str(int(x)) for x in after[HAND_POINTS:HAND_POINTS + 3]))
            events.append("total " + " ".join(str(int(x)) for x in after[SCORE:SCORE + 3]))
            events += _next_hand_events(after)
    return events


def trace_result(values: dict, players: int) -> dict:
    return {}


# ---- for `playlab show`: event fields, step descriptions, a seat's view in words ----------------
# Field names for the tokens after an event's kind, in order.  "=word" is a literal token
# (checked, not stored); a last name ending in "*" takes the remaining tokens as a list.
EVENT_FIELDS = {
    "hand": ("hand", "=first", "first"),
    "deal": ("seat", "tiles*"),
    "widow": ("tile",),
    "bid": ("seat", "bid"),
    "pass": ("seat",),
    "redeal": (),
    "take": ("seat",),
    "discard": ("seat", "tile"),
    "trump": ("seat", "trump"),
    "play": ("seat", "tile"),
    "trick": ("seat",),
    "score": ("points_0", "points_1", "points_2"),
    "total": ("total_0", "total_1", "total_2"),
}


PHASE_WORDS = ("bid", "discard", "trump", "play", "over")
LED_WORDS = ("0s", "1s", "2s", "3s", "4s", "5s", "6s", "trumps")


def _trump_words(code: int) -> str:
    if code < 0:
        return "not named yet"
    if code == TRUMP_DOUBLES:
        return "doubles"
    if code == TRUMP_NONE:
        return "no-trump (follow me)"
    return f"{code}s"


def _tiles_high_first(mask: int) -> str:
    # tile ids ascend with (high end, low end), so descending ids read 6-6 6-5 … 0-0
    tiles = [TILE_NAMES[t] for t in range(NUM_TILES - 1, -1, -1) if (mask >> t) & 1]
    return " ".join(tiles) if tiles else "(none)"


def _said_words(said: int) -> str:
    if said == NOT_SAID:
        return "-"
    return "pass" if said == 0 else f"bid {said}"


def _bid_order(first: int) -> list[int]:
    return [(first + k) % PLAYERS for k in range(PLAYERS)]


def render(view, seat, params, players) -> str:
    """``seat``'s view (from ``observe``) in words, for `playlab show` and human play."""
    v = [int(x) for x in view]
    phase = v[PHASE]
    target = int(params[OPT_TARGET_SCORE])
    you = lambda s: f"seat {s}" + (" (you)" if s == seat else "")  # noqa: E731
    lines = [f"Three-Player Moon: hand {v[HAND_NO]}, seen by seat {seat}"]
    lines.append("Totals (to " + str(target) + "): "
                 + "   ".join(f"{you(s)} {v[SCORE + s]}" for s in range(PLAYERS)))
    if phase == PHASE_OVER:
        if v[TRUNCATED]:
            lines.append(f"Game over: truncated at the hand cap ({v[HAND_NO]} hands)")
        else:
            lines.append(f"Game over: {you(v[WINNER])} wins")
        return "\n".join(lines)
    first = v[FIRST_BIDDER]
    lines.append("Bids (from seat %d): " % first
                 + ", ".join(f"seat {s} {_said_words(v[SAID + s])}" for s in _bid_order(first)))
    bidder = v[BIDDER]
    if bidder >= 0:
        need = "all 7 tricks" if v[HIGH_BID] == MOON_BID else f"{v[HIGH_BID]} tricks"
        lines.append(f"Contract: {you(bidder)} bid {v[HIGH_BID]} (needs {need}); "
                     f"trump: {_trump_words(v[TRUMP])}")
    if seat == bidder and v[WIDOW_TAKEN]:
        widow = f"{TILE_NAMES[v[WIDOW]]} (you took it)"
    elif v[WIDOW_TAKEN]:
        widow = f"taken by seat {bidder}, hidden"
    else:
        widow = "hidden, face down"
    lines.append(f"Widow: {widow}")
    if v[DISCARD_DONE]:
        if seat == bidder:
            lines.append(f"Discard: {TILE_NAMES[v[DISCARDED]]} (yours, face down)")
        else:
            lines.append(f"Discard: seat {bidder} discarded one tile face down")
    if phase == PHASE_PLAY or v[TRICK_NO] > 0:
        lines.append(f"Trick {v[TRICK_NO] + 1} of {TRICKS_PER_HAND}"
                     + (f", {LED_WORDS[v[LED]]} led by seat {v[LEADER]}:" if v[IN_TRICK] else ":"))
        leader = v[LEADER]
        order = [(leader + k) % PLAYERS for k in range(PLAYERS)]
        lines.append("  " + "   ".join(
            f"seat {s} " + (TILE_NAMES[v[TABLE + s]] if v[TABLE + s] >= 0 else "-") for s in order))
        lines.append("Tricks this hand: " + "   ".join(f"seat {s} {v[TRICKS + s]}" for s in range(PLAYERS))
                     + (f"   (last won by seat {v[LAST_TRICK_WINNER]})" if v[TRICK_NO] > 0 else ""))
    lines.append(f"Your hand (seat {seat}): {_tiles_high_first(v[HAND + seat])}")
    sizes = {s: int(_hand_size(view, s)) for s in range(PLAYERS)}
    others = [f"seat {s}: {sizes[s]} tile{'' if sizes[s] == 1 else 's'}" for s in range(PLAYERS) if s != seat]
    lines.append("Others: " + "   ".join(others))
    actor = v[ACTOR]
    doing = {PHASE_BID: "to bid or pass", PHASE_DISCARD: "to discard a tile",
             PHASE_TRUMP: "to name trump", PHASE_PLAY: "to play a tile"}[phase]
    lines.append(f"Phase: {PHASE_WORDS[phase]}. {you(actor)} {doing}.")
    return "\n".join(lines)


def describe_step(before, action, after, params, players) -> list[str]:
    """What ``action`` changed, in words, for a designer following a whole game (full
    states: discards and deals are named)."""
    p = int(before[ACTOR])
    phase = int(before[PHASE])
    lines: list[str] = []
    if phase == PHASE_BID:
        lines.append(f"seat {p} " + ("passes" if action == PASS else f"bids {action_name(action)[4:]}"))
        if after[HAND_NO] != before[HAND_NO] or (after[PHASE] == PHASE_OVER and after[BIDDER] < 0):
            lines.append("all three passed: the hand is redealt")
        elif after[PHASE] != PHASE_BID:
            b = int(after[BIDDER])
            lines.append(f"seat {b} wins the contract at {int(after[HIGH_BID])}"
                         + ("; the widow was " + TILE_NAMES[int(after[WIDOW])] if after[WIDOW_TAKEN] else ""))
    elif phase == PHASE_DISCARD:
        lines.append(f"seat {p} discards {TILE_NAMES[action - DISCARD_BASE]}; hand now "
                     + _tiles_high_first(int(after[HAND + p])))
    elif phase == PHASE_TRUMP:
        lines.append(f"seat {p} names trump: {_trump_words(action - TRUMP_BASE)}")
        if after[WIDOW_TAKEN] and not before[WIDOW_TAKEN]:
            lines.append(f"seat {p} takes the widow {TILE_NAMES[int(after[WIDOW])]}")
    else:
        t = action - PLAY_BASE
        lines.append(f"seat {p} plays {TILE_NAMES[t]}")
        if before[IN_TRICK] == PLAYERS - 1:
            w = int(after[LAST_TRICK_WINNER])
            leader = int(before[LEADER])
            table = [int(before[TABLE + s]) for s in range(PLAYERS)]
            table[p] = t
            order = [(leader + k) % PLAYERS for k in range(PLAYERS)]
            trick = ", ".join(f"{TILE_NAMES[table[s]]} (seat {s})" for s in order)
            tricks = [int(before[TRICKS + s]) + (1 if s == w else 0) for s in range(PLAYERS)]
            lines.append(f"trick {int(before[TRICK_NO]) + 1}: {trick}: seat {w} wins it; "
                         f"tricks {tricks[0]}-{tricks[1]}-{tricks[2]}")
            if before[TRICK_NO] == TRICKS_PER_HAND - 1:
                b = int(before[BIDDER])
                bid = int(before[HIGH_BID])
                points = [int(x) for x in after[HAND_POINTS:HAND_POINTS + PLAYERS]]
                made = points[b] > 0
                lines.append(f"hand {int(before[HAND_NO])}: seat {b} {'made' if made else 'failed'} "
                             f"{bid} with {tricks[b]} tricks; points "
                             + " ".join(f"{x:+d}" for x in points)
                             + "; totals " + " ".join(str(int(x)) for x in after[SCORE:SCORE + PLAYERS]))
    if after[PHASE] == PHASE_OVER:
        if after[TRUNCATED]:
            lines.append(f"the game is truncated at the hand cap ({int(after[HAND_NO])} hands)")
        else:
            w = int(after[WINNER])
            lines.append(f"seat {w} wins the game with {int(after[SCORE + w])}")
    elif after[HAND_NO] != before[HAND_NO]:
        lines.append(f"hand {int(after[HAND_NO])} dealt, seat {int(after[FIRST_BIDDER])} bids first: "
                     + "; ".join(f"seat {s} {_tiles_high_first(int(after[HAND + s]))}"
                                 for s in range(PLAYERS))
                     + f"; widow {TILE_NAMES[int(after[WIDOW])]}")
    return lines


# ---- search evaluation (protocol ``evaluate``) -------------------------------------------------
EVAL_TEMPERATURE = 4.0  # points: a lead this size is worth e times the odds


@njit(cache=True)
def evaluate(state, params, players, out):
    """A soft win probability from the running totals plus this hand's points as far as
    they are settled (tricks taken by the defenders; the contract once made or beyond
    reach), softmax with temperature ``EVAL_TEMPERATURE``; a made 21 wins outright."""
    b = state[BIDDER]
    pts = out  # the points first, then their softmax in place
    for s in range(PLAYERS):
        pts[s] = state[SCORE + s]
    if state[PHASE] != PHASE_OVER and state[PHASE] != PHASE_BID and b >= 0:
        bid = state[HIGH_BID]
        need = TRICKS_PER_HAND if bid == MOON_BID else bid
        left = TRICKS_PER_HAND - state[TRICK_NO]
        for s in range(PLAYERS):
            if s != b:
                pts[s] += state[TRICKS + s]
        if state[TRICKS + b] >= need:
            if bid == MOON_BID and params[OPT_MOON_INSTANT_WIN] != 0:
                for s in range(PLAYERS):
                    out[s] = 1.0 if s == b else 0.0
                return
            pts[b] += bid
        elif state[TRICKS + b] + left < need:
            pts[b] -= bid
    top = max(pts[0], max(pts[1], pts[2]))
    total = 0.0
    for s in range(PLAYERS):
        out[s] = np.exp((pts[s] - top) / EVAL_TEMPERATURE)
        total += out[s]
    for s in range(PLAYERS):
        out[s] /= total
