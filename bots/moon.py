"""Three-Player Moon bots (run inside the Numba kernels).

``greedy`` and ``bidder`` share one card-play policy; ``bidder`` exposes the bidding
policy's knobs so bid strategies can be studied, and ``greedy`` is ``bidder`` with its
defaults.  The defaults are two rounds of best response, starting from
aggression 1.0 / moon_threshold 6.5 / offsuit_weight 0.7 / trump_rule 0::

    playlab tune moon --bot bidder --grid aggression=0.9,1.0,1.1,1.2 \
        --grid moon_threshold=6,6.5,7 --grid offsuit_weight=0.5,0.7,0.9 --grid trump_rule=0,1,2 \
        --against bidder:aggression=1:moon_threshold=6.5:offsuit_weight=0.7:trump_rule=0 --games 2000 --seed 7
    playlab tune moon --bot bidder --grid aggression=1.1,1.2,1.3,1.4 \
        --grid moon_threshold=6.5,7,7.5,8 --grid offsuit_weight=0.8,0.9,1.0 --grid trump_rule=0,1,2 \
        --against bidder:aggression=1.2:moon_threshold=7:offsuit_weight=0.9:trump_rule=2 --games 2000 --seed 8

Iterating further escalates: against its own field the best response keeps raising
aggression until every hand with 2-3 likely tricks shoots the moon (a made 21 wins at
once, so a failed one costs nothing that matters).  That is a finding about the
``moon_instant_win`` rule, and the reason ``greedy`` stops at a sensible bidder.

Bots read only what their seat may know: their own hand, the public table (tiles played,
the trick, bids, trump, who bid) and, for the bidder, the discard.

Hand evaluation: for a trump choice, a tile is a *sure winner* when every tile that could
beat it when it is led is already in the hand or out of play.  The trick estimate counts
sure trump winners from the top, half a trick for each further trump beyond the
opponents' share, and ``offsuit_weight`` per sure winner outside trumps.
"""
import numpy as np
from numba import njit

from bots.registry import BotParam, BotSpec, register_bot, set_bot_defaults
from simcore.games.moon import (ACTOR, BID_BASE, BID_MOON_ACTION, BIDDER, DISCARD_BASE, DISCARDED,
                                FOLLOW_MASK, HAND, HIGH_BID, IN_TRICK, LED, LED_SUIT, MAX_BID, NUM_LED,
                                NUM_TILES, NUM_TRUMPS, OPT_ALL_PASS, OPT_DOUBLES_TRUMP, OPT_MIN_BID,
                                PASS, PHASE, PHASE_BID, PHASE_DISCARD, PHASE_PLAY, PLAY_BASE, PLAYED,
                                PLAYERS, POWER, SPOKEN, TRUMP, TRUMP_BASE, TRUMP_DOUBLES,
                                TRUMP_MASK, TRUMP_NONE, ALL_PASS_FORCE, LED_TRUMPS, WIDOW_TAKEN,
                                legal_plays, trick_leader)
from simcore.rng import lowest_bit_index, popcount

# bot parameter slots (bot_params[seat, i])
P_AGGRESSION = 0
P_MOON_THRESHOLD = 1
P_TRUMP_RULE = 2
P_OFFSUIT_WEIGHT = 3

TRUMP_RULE_TRICKS = 0  # the trump with the best trick estimate
TRUMP_RULE_LENGTH = 1  # the longest trump suit (ties: stronger)
TRUMP_RULE_HIGH = 2  # the highest total trump rank

BIDDER_PARAMS = (
    BotParam("aggression", 1.4, 0.3, 3.0, "multiplies the trick estimate before bidding"),
    BotParam("moon_threshold", 7.0, 3.0, 9.0, "estimated tricks (after aggression) to shoot the moon"),
    BotParam("trump_rule", 2, 0, 2, "trump evaluation: 0 best trick estimate, 1 longest suit, 2 highest ranks",
             integer=True),
    BotParam("offsuit_weight", 0.9, 0.0, 1.0, "tricks counted per sure winner outside trumps"),
)

GREEDY_SPEC = BotSpec("greedy",
                 "bids its estimated tricks under its best trump, draws trumps as bidder, wins tricks "
                 "as cheaply as possible, throws its least useful tile")
BIDDER_SPEC = BotSpec("bidder", "greedy card play with a parameterised bidding policy", BIDDER_PARAMS)

# greedy plays the bidder's defaults
GREEDY_AGGRESSION = BIDDER_PARAMS[P_AGGRESSION].default
GREEDY_MOON_THRESHOLD = BIDDER_PARAMS[P_MOON_THRESHOLD].default
GREEDY_TRUMP_RULE = BIDDER_PARAMS[P_TRUMP_RULE].default
GREEDY_OFFSUIT_WEIGHT = BIDDER_PARAMS[P_OFFSUIT_WEIGHT].default


def _suit_order():
    """SUIT_ORDER[trump, led, k]: the tiles of a led suit, strongest first (-1 padded)."""
    order = np.full((NUM_TRUMPS, NUM_LED, NUM_TILES), -1, dtype=np.int64)
    for tr in range(NUM_TRUMPS):
        for led in range(NUM_LED):
            members = [t for t in range(NUM_TILES) if (FOLLOW_MASK[tr, led] >> t) & 1]
            members.sort(key=lambda t: -POWER[tr, led, t])
            order[tr, led, :len(members)] = members
    return order


SUIT_ORDER = _suit_order()


@njit(cache=True)
def sure_winners(hand, gone, trump, led):
    """Tiles of ``hand`` in suit ``led`` that win when led: every stronger tile of the suit
    is held or gone, counted down from the top (as a mask)."""
    out = 0
    for k in range(NUM_TILES):
        t = SUIT_ORDER[trump, led, k]
        if t < 0:
            break
        bit = 1 << t
        if hand & bit:
            out |= bit
        elif not gone & bit:
            break
    return out


@njit(cache=True)
def estimate_tricks(hand, gone, trump, offsuit_weight):
    """Tricks ``hand`` should take with ``trump`` (``gone``: tiles out of play)."""
    est = 0.0
    trumps = hand & TRUMP_MASK[trump]
    if trump != TRUMP_NONE:
        top = sure_winners(hand, gone, trump, LED_TRUMPS)
        n_top = popcount(top)
        n_trumps = popcount(trumps)
        outstanding = popcount(TRUMP_MASK[trump] & ~hand & ~gone)
        est += n_top
        # trumps beyond the sure ones win once the opponents' trumps are drawn
        spare = n_trumps - n_top - (outstanding + 1) // 2
        if spare > 0:
            est += 0.5 * spare
    plain = hand & ~trumps
    counted = 0
    for led in range(7):
        m = sure_winners(plain, gone, trump, led) & ~counted
        counted |= m
        est += offsuit_weight * popcount(m)
    return est


@njit(cache=True)
def trump_score(hand, gone, trump, rule, offsuit_weight):
    if rule == TRUMP_RULE_LENGTH:
        return popcount(hand & TRUMP_MASK[trump]) + 0.01 * estimate_tricks(hand, gone, trump, offsuit_weight)
    if rule == TRUMP_RULE_HIGH:
        s = 0.0
        m = hand & TRUMP_MASK[trump]
        while m:
            t = lowest_bit_index(m)
            m &= m - 1
            s += POWER[trump, LED_TRUMPS, t] - 15
        return s
    return estimate_tricks(hand, gone, trump, offsuit_weight)


@njit(cache=True)
def best_trump(hand, gone, doubles_allowed, rule, offsuit_weight):
    best = TRUMP_NONE
    best_score = -1.0
    for tr in range(NUM_TRUMPS):
        if tr == TRUMP_DOUBLES and not doubles_allowed:
            continue
        sc = trump_score(hand, gone, tr, rule, offsuit_weight)
        if sc > best_score + 1e-9:
            best_score = sc
            best = tr
    return best


@njit(cache=True)
def _bid(state, params, seat, aggression, moon_threshold, rule, w):
    hand = state[HAND + seat]
    doubles = params[OPT_DOUBLES_TRUMP] != 0
    tr = best_trump(hand, 0, doubles, rule, w)
    est = estimate_tricks(hand, 0, tr, w) * aggression
    lowest = max(params[OPT_MIN_BID], state[HIGH_BID] + 1)
    must_bid = (params[OPT_ALL_PASS] == ALL_PASS_FORCE and state[SPOKEN] == PLAYERS - 1
                and state[HIGH_BID] == 0)
    if est >= moon_threshold:
        return BID_MOON_ACTION
    want = min(np.int64(est), MAX_BID)
    if want >= lowest:
        return BID_BASE + want
    if must_bid:
        return BID_BASE + lowest if lowest <= MAX_BID else BID_MOON_ACTION
    return PASS


@njit(cache=True)
def least_missed_tile(hand, trump, w):
    """The tile of ``hand`` whose loss the trick estimate under ``trump`` misses least
    (greedy's discard; pimc discards so in its sampled deals too)."""
    best_t = lowest_bit_index(hand)
    best = -1e9
    m = hand
    while m:
        t = lowest_bit_index(m)
        m &= m - 1
        sc = estimate_tricks(hand & ~(1 << t), 1 << t, trump, w)
        if sc > best + 1e-9:
            best = sc
            best_t = t
    return best_t


@njit(cache=True)
def _discard(state, params, seat, rule, w):
    """Discard the tile whose loss costs the least under the trump the 8-tile hand likes
    best (or the trump already named when trump comes before the widow)."""
    hand = state[HAND + seat]
    tr = state[TRUMP]
    if tr < 0:
        tr = best_trump(hand, 0, params[OPT_DOUBLES_TRUMP] != 0, rule, w)
    return DISCARD_BASE + least_missed_tile(hand, tr, w)


@njit(cache=True)
def _name_trump(state, params, seat, rule, w):
    hand = state[HAND + seat]
    gone = 0
    if state[WIDOW_TAKEN] == 1 and state[DISCARDED] >= 0:
        gone = 1 << state[DISCARDED]
    tr = best_trump(hand, gone, params[OPT_DOUBLES_TRUMP] != 0, rule, w)
    return TRUMP_BASE + tr


@njit(cache=True)
def _usefulness(t, trump):
    """How much a tile is worth keeping: trumps above plain tiles, then by rank."""
    if (TRUMP_MASK[trump] >> t) & 1:
        return 100 + POWER[trump, LED_TRUMPS, t]
    return POWER[trump, LED_SUIT[trump, t], t]


@njit(cache=True)
def _most_useful(mask, trump, sign):
    """The tile of ``mask`` with the highest ``sign`` × usefulness (the lowest index on
    ties): sign 1 the strongest tile, sign -1 the cheapest."""
    best_t = lowest_bit_index(mask)
    best = -(1 << 30)
    m = mask
    while m:
        t = lowest_bit_index(m)
        m &= m - 1
        u = sign * _usefulness(t, trump)
        if u > best:
            best = u
            best_t = t
    return best_t


@njit(cache=True, inline="always")
def _cheapest(mask, trump):
    return _most_useful(mask, trump, -1)


@njit(cache=True, inline="always")
def _strongest(mask, trump):
    return _most_useful(mask, trump, 1)


@njit(cache=True)
def _play(state, params, seat):
    hand = state[HAND + seat]
    trump = state[TRUMP]
    gone = state[PLAYED]
    if seat == state[BIDDER] and state[DISCARDED] >= 0:
        gone |= 1 << state[DISCARDED]
    legal = legal_plays(state)
    bidder = state[BIDDER]
    if state[IN_TRICK] == 0:
        # lead: the bidder draws trumps with a sure top trump; anyone cashes a sure winner;
        # otherwise lead the least useful tile
        if trump != TRUMP_NONE:
            outstanding = TRUMP_MASK[trump] & ~hand & ~gone
            top = sure_winners(hand, gone, trump, LED_TRUMPS)
            if seat == bidder and outstanding and top:
                return PLAY_BASE + _strongest(top, trump)
        # a plain winner only holds when no opponent can trump it
        if trump == TRUMP_NONE or not (TRUMP_MASK[trump] & ~hand & ~gone):
            plain = hand & ~TRUMP_MASK[trump]
            for led in range(7):
                m = sure_winners(plain, gone, trump, led) & plain
                if m:
                    return PLAY_BASE + _strongest(m, trump)
        return PLAY_BASE + _cheapest(legal, trump)
    led = state[LED]
    _, best_p = trick_leader(state, trump, led)
    beats = 0
    m = legal
    while m:
        t = lowest_bit_index(m)
        m &= m - 1
        if POWER[trump, led, t] > best_p:
            beats |= 1 << t
    last = state[IN_TRICK] == PLAYERS - 1
    if beats:
        if not last and seat != bidder and (state[ACTOR] + 1) % PLAYERS == bidder:
            # the bidder plays after me: take the trick with my strongest winning tile
            return PLAY_BASE + _strongest(beats, trump)
        return PLAY_BASE + _cheapest_winner(beats, trump, led)
    return PLAY_BASE + _cheapest(legal, trump)


@njit(cache=True)
def _cheapest_winner(mask, trump, led):
    best_t = lowest_bit_index(mask)
    best = 1 << 30
    m = mask
    while m:
        t = lowest_bit_index(m)
        m &= m - 1
        u = POWER[trump, led, t]
        if u < best:
            best = u
            best_t = t
    return best_t


@njit(cache=True)
def decide(view, params, seat, aggression, moon_threshold, rule, w):
    """The shared policy of both bots on the seat's view."""
    phase = view[PHASE]
    if phase == PHASE_PLAY:
        return _play(view, params, seat)
    if phase == PHASE_BID:
        return _bid(view, params, seat, aggression, moon_threshold, rule, w)
    if phase == PHASE_DISCARD:
        return _discard(view, params, seat, rule, w)
    return _name_trump(view, params, seat, rule, w)


def greedy_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    """``greedy``: the bidder with its defaults.  It keeps no working memory."""
    return decide(view, params, seat, GREEDY_AGGRESSION, GREEDY_MOON_THRESHOLD, GREEDY_TRUMP_RULE,
                  GREEDY_OFFSUIT_WEIGHT)


def bidder_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    """``bidder``: its parameters in ``bot_params[seat]``."""
    return decide(view, params, seat, bot_params[seat, P_AGGRESSION], bot_params[seat, P_MOON_THRESHOLD],
                  np.int64(bot_params[seat, P_TRUMP_RULE]), bot_params[seat, P_OFFSUIT_WEIGHT])


register_bot(GREEDY_SPEC, greedy_policy, games=("moon",), legal=False)  # it finds its own moves
register_bot(BIDDER_SPEC, bidder_policy, games=("moon",), legal=False)

# the generic bots' defaults here.  mcts: decisions whose lowest legal action is a discard, a
# bid or a trump go to greedy and the search plays the tiles (searched bidding almost never
# bid: issue 11).  Rollouts stop after 8 decisions, where evaluate counts the hand's settled
# points: as strong as 30 and twice the iterations/s (the settings measured, flat search
# among them, are in the README's MCTS section); and at the hand's end (``new_deal``), where
# the 8 were the next hand's bidding: 400 wins of the same 900 deals against 401, at about
# 1.5 times the iterations/s.  The tree stops growing 4 decisions below
# the root (the rollout takes over): with progressive widening an unlimited tree grew about 14
# deep and narrow, and the walk down it was most of an iteration.  Same strength on the same
# 900 deals against two greedy (401 wins against 399 unlimited) at 0.62-0.68 M iterations/s
# against 0.38-0.51 M.
set_bot_defaults("moon", "mcts", delegate=DISCARD_BASE, depth=8, tree_depth=4)
