"""Three-Player Moon: a trick-taking domino game for exactly 3 players, first to 21.

Rules: shared/rules/moon.md (every [decision] and [variant] there is an option below).

Tiles are numbered 0..21: tile 0 is 0-0, then 1-1, 2-1, 2-2, 3-1, 3-2, 3-3, … 6-6 (high end
first, every a-b with 1 <= b <= a <= 6).  Sets of tiles are 22-bit masks.  Trump codes:
0..6 a number, 7 doubles, 8 no-trump.  Led-suit codes: 0..6 a plain suit, 7 trumps.

State (one int64 vector, STATE_SIZE slots)::

    HAND[0..2]        tiles in each seat's hand (mask)
    WIDOW             widow tile (id)                DISCARDED   bidder's discard, -1
    SCORE[0..2]       running totals                 TRICKS[0..2] tricks this hand
    PHASE             BID / DISCARD / TRUMP / PLAY / OVER
    ACTOR             seat to decide                 FIRST_BIDDER this hand's first bidder
    HIGH_BID          0 until someone bids           BIDDER      high bidder, -1
    SPOKEN            players who have bid/passed    TRUMP       trump code, -1 before named
    LEADER            leader of the current trick    TRICK_NO    tricks completed
    IN_TRICK          tiles on the table             LED         led-suit code of the trick
    TABLE[0..2]       tile each seat played to the current trick, -1
    PLAYED            tiles played this hand (mask)  VOID[0..2]  led suits each seat failed
                                                                 to follow (public, bit per code)
    HAND_NO           hands begun, redeals included  RNG         chance stream (simcore.rng)
    WINNER            winning seat, -1               TRUNCATED   1 if the hand cap ended it
    TURNS             bids/passes + plays + one per widow step
    REDEALS, BIDS_MADE[3], BIDS_FAILED[3], MOON_TRIES[3], MOONS_MADE[3]   statistics
    WIDOW_TAKEN       1 once the bidder holds the widow
    DISCARD_DONE      1 once the bidder has discarded (public)
    HAND_POINTS[0..2] the last completed hand's points      LAST_TRICK_WINNER
    DECK[0..21]       the deal order of this hand: seat s got DECK[7s..7s+6], widow DECK[21]

Actions (NUM_ACTIONS = 62)::

    0..21   play tile t               22..43  discard tile t (bidder, after the widow)
    44      pass                      45..51  bid 1..7 (only min_bid..7 are legal)
    52      bid 21 (shoot the moon)   53..61  name trump 0..6, doubles, no-trump
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.options import Option
from simcore.protocol import HIDDEN, GameInfo
from simcore.rng import below, lowest_bit_index, random_set_bit, shuffle

PLAYERS = 3
NUM_TILES = 22
TILES_PER_HAND = 7
TRICKS_PER_HAND = 7
ALL_TILES = (1 << NUM_TILES) - 1
MOON_BID = 21
MAX_BID = 7

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

# ---- state slots ------------------------------------------------------------------------
HAND = 0
WIDOW = 3
DISCARDED = 4
SCORE = 5
TRICKS = 8
PHASE = 11
ACTOR = 12
FIRST_BIDDER = 13
HIGH_BID = 14
BIDDER = 15
SPOKEN = 16
TRUMP = 17
LEADER = 18
TRICK_NO = 19
IN_TRICK = 20
LED = 21
TABLE = 22
PLAYED = 25
VOID = 26
HAND_NO = 29
RNG = 30
WINNER = 31
TRUNCATED = 32
TURNS = 33
REDEALS = 34
BIDS_MADE = 35
BIDS_FAILED = 38
MOON_TRIES = 41
MOONS_MADE = 44
WIDOW_TAKEN = 47
DISCARD_DONE = 48
HAND_POINTS = 49
LAST_TRICK_WINNER = 52
DECK = 53
STATE_SIZE = DECK + NUM_TILES

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
    deck = state[DECK:DECK + NUM_TILES]
    shuffle(state, RNG, deck, NUM_TILES)
    for s in range(PLAYERS):
        m = 0
        for j in range(TILES_PER_HAND):
            m |= 1 << deck[TILES_PER_HAND * s + j]
        state[HAND + s] = m
        state[TRICKS + s] = 0
        state[TABLE + s] = -1
        state[VOID + s] = 0
    state[WIDOW] = deck[NUM_TILES - 1]
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
        m = legal_plays(state)
        while m:
            low = m & -m
            out[n] = PLAY_BASE + lowest_bit_index(low)
            n += 1
            m ^= low
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
        m = state[HAND + state[ACTOR]]
        while m:
            low = m & -m
            out[n] = DISCARD_BASE + lowest_bit_index(low)
            n += 1
            m ^= low
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
        _start_hand(state, params, (state[FIRST_BIDDER] + 1) % PLAYERS)


@njit(cache=True)
def _score_hand(state, params):
    b = state[BIDDER]
    bid = state[HIGH_BID]
    need = TRICKS_PER_HAND if bid == MOON_BID else bid
    made = state[TRICKS + b] >= need
    for s in range(PLAYERS):
        state[HAND_POINTS + s] = state[TRICKS + s]
    state[HAND_POINTS + b] = bid if made else -bid
    for s in range(PLAYERS):
        state[SCORE + s] += state[HAND_POINTS + s]
    if made:
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
        state[TURNS] += 1
        trump = state[TRUMP]
        if state[IN_TRICK] == 0:
            state[LED] = LED_SUIT[trump, t]
        elif not (FOLLOW_MASK[trump, state[LED]] >> t) & 1:
            state[VOID + p] |= 1 << state[LED]
        state[IN_TRICK] += 1
        if state[IN_TRICK] < PLAYERS:
            state[ACTOR] = (p + 1) % PLAYERS
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
        state[SPOKEN] += 1
        if state[HIGH_BID] != MOON_BID and state[SPOKEN] < PLAYERS:
            state[ACTOR] = (p + 1) % PLAYERS
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
        n += 1
        if in_trick == 0:
            led = LED_SUIT[trump, t]
        elif not (FOLLOW_MASK[trump, led] >> t) & 1:
            state[VOID + actor] |= 1 << led
        in_trick += 1
        if in_trick < PLAYERS:
            actor = actor + 1 if actor + 1 < PLAYERS else 0
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


EXTRA_STATS = ("bids_made", "bids_failed", "moon_attempts", "moons_made")
STAT_SLOTS = (BIDS_MADE, BIDS_FAILED, MOON_TRIES, MOONS_MADE)


@njit(cache=True)
def summarize(state, params, players, row):
    for s in range(PLAYERS):
        row[s] = state[SCORE + s]
        row[PLAYERS + s] = 1 if state[WINNER] == s else 0
    row[6] = state[TRUNCATED]
    row[7] = state[TURNS]
    row[8] = state[HAND_NO]
    row[9] = state[REDEALS]
    c = 10
    for base in (BIDS_MADE, BIDS_FAILED, MOON_TRIES, MOONS_MADE):
        for s in range(PLAYERS):
            row[c] = state[base + s]
            c += 1


@njit(cache=True)
def observe(state, player, out):
    out[:] = state
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
    pool = out[DECK:DECK + NUM_TILES]
    n = 0
    m = ALL_TILES & ~known
    while m:
        low = m & -m
        pool[n] = lowest_bit_index(low)
        n += 1
        m ^= low
    trump = view[TRUMP]
    for attempt in range(DETERMINIZE_TRIES):
        shuffle(rng, slot, pool, n)
        k = 0
        ok = True
        for s in range(PLAYERS):
            if s == player:
                continue
            size = _hand_size(view, s)
            h = 0
            for j in range(size):
                h |= 1 << pool[k]
                k += 1
            out[HAND + s] = h
            if trump >= 0 and view[VOID + s] != 0:
                for code in range(NUM_LED):
                    if (view[VOID + s] >> code) & 1 and h & FOLLOW_MASK[trump, code]:
                        ok = False
        if widow_open and not widow_in_hand:
            out[WIDOW] = pool[k]
            k += 1
        if discard_open:
            out[DISCARDED] = pool[k]
            k += 1
        if ok:
            break
    out[RNG] = rng[slot] ^ 0x5DEECE66D  # a fresh future, independent of the real deals
    for t in range(NUM_TILES):
        out[DECK + t] = t


# ---- declaration ----------------------------------------------------------------------------
def _extra_columns(players):
    cols = ["hands", "redeals"]
    for stat in EXTRA_STATS:
        cols += [f"{stat}_{s}" for s in range(players)]
    return cols


INFO = GameInfo(
    name="moon",
    title="Three-Player Moon",
    min_players=3,
    max_players=3,
    options=OPTIONS,
    num_actions=NUM_ACTIONS,
    state_size=lambda players: STATE_SIZE,
    extra_columns=_extra_columns,
    max_decisions=lambda players: MAX_DECISIONS_PER_HAND * OPTIONS[OPT_HAND_CAP].high,
    scratch_size=NUM_ACTIONS,
    chance="deals resolved inside apply from the in-state stream",
    information="imperfect (hidden hands, widow and discard)",
    utility="points per hand; one winner per game",
    description="trick-taking dominoes: bid, take the widow, name trump, 7 tricks; first to 21",
    rate_columns=("hands",),
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
