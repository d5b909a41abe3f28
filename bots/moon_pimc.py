"""``pimc`` for Three-Player Moon: perfect-information Monte Carlo over the exact play-phase
solver (``bots.moon_solver``), also registered as Moon's ``expert``.

Every decision samples ``worlds`` full deals from the seat's view with the game's
``determinize`` (its own hand and everything public fixed, the hidden tiles dealt at
random among the places they could be, voids shown in play respected) and solves each
exactly.

- Card play: every legal tile is valued in every world by the solver (the bidder's tricks
  in the hand after it, everyone then playing perfectly with all hands open); the tile with
  the best summed utility is played (ties: the lowest tile).  The bidder's utility is 1 for
  a made contract plus ``TIE_BREAK`` × its tricks / 7; a defender's is 1 for a set contract
  plus ``TIE_BREAK`` × the defenders' tricks / 7 (the two defenders as one side).
- Bidding: in each world the seat takes the widow it would find there, and for every trump
  discards the tile the greedy bidder's estimate misses least; the solver gives the tricks
  it then takes leading the first trick.  The make rate of a level k is the share of worlds
  with at least k tricks under the trump that makes k most often.  It bids 21 when all 7
  tricks come in at least ``moon_risk`` of the worlds, else the highest legal level made in
  at least ``risk`` of them, else passes.
- Widow and trump: with the widow in hand, the discard and trump are chosen together:
  for each of the ``SHORTLIST`` trumps the greedy estimate likes best and each of the
  ``SHORTLIST`` discards it likes best under that trump, the make rate of the contract over
  the worlds (ties: mean tricks); the trump so chosen is kept for the trump decision that
  follows.  Trump named before the widow (variant ``trump_before_widow``): each trump
  valued as in bidding, the widow sampled.

With ``inference`` > 0 every world is drawn from the view weighted by how likely the
opponents' moves this hand are in it under the greedy bot (``bots.moon_inference``: of
``candidates`` sampled worlds one is kept in proportion to that likelihood); with 0 worlds
are ``determinize``'s alone (the figures of both are in the README).

It reads only the view (the solver sees determinized samples only); every draw comes from
its own stream ``rng[seat]``.

Working memory (its seat's row)::

    int64  tt[TT_SLOTS << TT_BITS] moves[..] frames[..] hands[3] stats[2]
           view[S] sample[S] play[S] values[22] chosen[2] (hand number, trump)
           candidates[1] plays[1] replay[S] seats[24] saved[candidates]   (inference: bots.moon_inference)
    float64 scores[22]  tricks[NUM_TRUMPS * 9]   (per trump: worlds with >= k tricks)
           inference[1] weights[candidates]
"""
import numpy as np

from bots.moon import GREEDY_OFFSUIT_WEIGHT, best_trump, estimate_tricks, least_missed_tile
from bots.moon_inference import HELPERS as INFERENCE_HELPERS
from bots.moon_inference import SEAT_SLOTS, draw_world, play_seats
from bots.moon_solver import (FRAME_SLOTS, MAX_MOVES, MAX_PLIES, STAT_SLOTS, TT_SLOTS, solve_moves,
                              solve_value)
from bots.registry import BotParam, BotSpec, register_alias, register_bot
from simcore.games.moon import (ACTOR, BID_BASE, BID_MOON_ACTION, BIDDER, DISCARD_BASE, DISCARD_DONE,
                                DISCARDED, HAND, HAND_NO, HIGH_BID, IN_TRICK, LEADER, LED, MAX_BID,
                                MOON_BID, NUM_TILES, NUM_TRUMPS, OPT_DOUBLES_TRUMP, PASS, PHASE,
                                PHASE_BID, PHASE_DISCARD, PHASE_PLAY, PLAYED, PLAYERS, STATE_SIZE,
                                TABLE, TRICK_NO, TRICKS, TRICKS_PER_HAND, TRUMP, TRUMP_BASE,
                                TRUMP_DOUBLES, WIDOW, WIDOW_TAKEN)
from simcore.rng import lowest_bit_index, popcount

P_WORLDS = 0
P_RISK = 1
P_MOON_RISK = 2
P_INFERENCE = 3
P_CANDIDATES = 4

TT_BITS = 15
TIE_BREAK = 0.05
SHORTLIST = 3
LEVELS = TRICKS_PER_HAND + 2  # counts of worlds with >= k tricks, k = 0..8

# int64 row offsets
O_TT = 0
O_MOVES = O_TT + (TT_SLOTS << TT_BITS)
O_FRAMES = O_MOVES + MAX_PLIES * MAX_MOVES
O_HANDS = O_FRAMES + FRAME_SLOTS
O_STATS = O_HANDS + PLAYERS
O_VIEW = O_STATS + STAT_SLOTS
O_SAMPLE = O_VIEW + STATE_SIZE
O_PLAY = O_SAMPLE + STATE_SIZE
O_VALUES = O_PLAY + STATE_SIZE
O_CHOSEN = O_VALUES + NUM_TILES
O_CANDIDATES = O_CHOSEN + 2  # the decision's candidates (the seat's parameter)
O_PLAYS = O_CANDIDATES + 1  # with inference: the plays of the hand so far (their seats in seats[])
O_REPLAY = O_PLAYS + 1
O_SEATS = O_REPLAY + STATE_SIZE
O_SAVED = O_SEATS + SEAT_SLOTS
INTS = O_SAVED  # + candidates
# float64 row offsets
F_SCORES = 0
F_TRICKS = F_SCORES + NUM_TILES
F_INFERENCE = F_TRICKS + NUM_TRUMPS * LEVELS  # the decision's inference (the seat's parameter)
F_WEIGHTS = F_INFERENCE + 1
FLOATS = F_WEIGHTS  # + candidates

PARAMS = (
    BotParam("worlds", 16, 1, 10_000, "deals sampled from its view per decision, each solved exactly",
             integer=True),
    BotParam("risk", 0.5, 0.0, 1.0, "bid the highest level the solver makes in at least this share "
             "of the sampled deals"),
    BotParam("moon_risk", 0.6, 0.0, 1.01, "bid 21 when all 7 tricks come in at least this share of "
             "the sampled deals (above 1: never)"),
    BotParam("inference", 0.0, 0.0, 1.0, "weigh sampled deals by the opponents' moves this hand: "
             "each move the greedy bot would not have made there multiplies a deal's weight by "
             "1 - inference (0: off; 1: such deals are ruled out)"),
    BotParam("candidates", 8, 1, 256, "with inference: deals sampled per deal kept (one kept in "
             "proportion to its weight)", integer=True),
)
SPEC = BotSpec(
    "pimc",
    "perfect-information Monte Carlo: plays, bids, discards and names trump by an exact "
    "solver of the play over deals sampled from its own view",
    PARAMS,
    memory=lambda info, players, values: (INTS + int(values[P_CANDIDATES]), FLOATS + int(values[P_CANDIDATES])),
)


def _need(bid):
    return TRICKS_PER_HAND if bid == MOON_BID else bid


def _utility(tricks, need, as_bidder):
    if as_bidder:
        return (1.0 if tricks >= need else 0.0) + TIE_BREAK * tricks / TRICKS_PER_HAND
    return (1.0 if tricks < need else 0.0) + TIE_BREAK * (TRICKS_PER_HAND - tricks) / TRICKS_PER_HAND


def _world(view, params, seat, rng, row, frow, out):
    """One world from the view into ``out``: ``draw_world`` with the decision's inference
    and candidates (set by ``pimc_policy``)."""
    candidates = row[O_CANDIDATES]
    draw_world(view, params, seat, rng, out, frow[F_INFERENCE], row[O_REPLAY:O_SEATS],
               row[O_SEATS:O_SAVED], row[O_PLAYS], row[O_SAVED:O_SAVED + candidates],
               frow[F_WEIGHTS:F_WEIGHTS + candidates])


def _solve_from(play, row, values, lo, hi):
    tt = row[O_TT:O_MOVES]
    return solve_moves(play, tt, row[O_MOVES:O_FRAMES], row[O_FRAMES:O_HANDS], row[O_HANDS:O_STATS],
                       row[O_STATS:O_VIEW], values, lo, hi)


def _value_of(play, row):
    return solve_value(play, row[O_TT:O_MOVES], row[O_MOVES:O_FRAMES], row[O_FRAMES:O_HANDS],
                       row[O_HANDS:O_STATS], row[O_STATS:O_VIEW])


def play_tile(view, params, seat, worlds, rng, row, frow):
    sample = row[O_SAMPLE:O_PLAY]
    values = row[O_VALUES:O_CHOSEN]
    scores = frow[F_SCORES:F_SCORES + NUM_TILES]
    for t in range(NUM_TILES):
        scores[t] = 0.0
    need = _need(view[HIGH_BID])
    as_bidder = seat == view[BIDDER]
    legal = 0
    for _ in range(worlds):
        _world(view, params, seat, rng, row, frow, sample)
        legal = _solve_from(sample, row, values, 0, TRICKS_PER_HAND)
        m = legal
        while m:
            t = lowest_bit_index(m)
            m &= m - 1
            scores[t] += _utility(values[t], need, as_bidder)
    best = lowest_bit_index(legal)
    m = legal
    while m:
        t = lowest_bit_index(m)
        m &= m - 1
        if scores[t] > scores[best]:
            best = t
    return best


def _contract(world, play, seat, hand, trump, discard):
    """``play`` = the play phase of ``world`` with ``seat`` as bidder holding ``hand`` less
    ``discard``, ``trump`` named, ``seat`` to lead the first trick."""
    for i in range(world.shape[0]):
        play[i] = world[i]
    if discard >= 0:
        play[HAND + seat] = hand & ~(np.int64(1) << discard)
        play[DISCARDED] = discard
    play[BIDDER] = seat
    play[TRUMP] = trump
    play[PHASE] = PHASE_PLAY
    play[LEADER] = seat
    play[ACTOR] = seat
    play[IN_TRICK] = 0
    play[TRICK_NO] = 0
    play[LED] = -1
    play[PLAYED] = 0
    play[WIDOW_TAKEN] = 1
    play[DISCARD_DONE] = 1
    for s in range(PLAYERS):
        play[TRICKS + s] = 0
        play[TABLE + s] = -1


def trump_tricks(view, params, seat, worlds, rng, row, frow, fixed):
    """``frow[F_TRICKS + LEVELS * tr + k]`` = worlds in which ``seat``, as bidder under trump
    ``tr`` (every trump, or only ``fixed`` >= 0), takes at least k tricks (widow sampled)."""
    sample = row[O_SAMPLE:O_PLAY]
    play = row[O_PLAY:O_VALUES]
    counts = frow[F_TRICKS:F_TRICKS + NUM_TRUMPS * LEVELS]
    for i in range(counts.shape[0]):
        counts[i] = 0.0
    doubles = params[OPT_DOUBLES_TRUMP] != 0
    for _ in range(worlds):
        _world(view, params, seat, rng, row, frow, sample)
        hand = sample[HAND + seat]
        if sample[WIDOW_TAKEN] == 0:
            hand |= np.int64(1) << sample[WIDOW]
        for tr in range(NUM_TRUMPS):
            if (fixed >= 0 and tr != fixed) or (tr == TRUMP_DOUBLES and not doubles):
                continue
            d = -1 if sample[DISCARD_DONE] == 1 else least_missed_tile(hand, tr, GREEDY_OFFSUIT_WEIGHT)
            _contract(sample, play, seat, hand, tr, d)
            v = _value_of(play, row)
            for k in range(v + 1):
                counts[LEVELS * tr + k] += 1.0


def make_rate(frow, level, worlds):
    """The best make rate over trumps of ``level`` tricks (after ``trump_tricks``)."""
    best = 0.0
    best_tr = 0
    for tr in range(NUM_TRUMPS):
        r = frow[F_TRICKS + LEVELS * tr + level]
        if r > best:
            best = r
            best_tr = tr
    return best / worlds, best_tr


def bid(view, legal, n, params, seat, worlds, risk, moon_risk, rng, row, frow):
    trump_tricks(view, params, seat, worlds, rng, row, frow, -1)
    may_pass = legal[0] == PASS
    rate7, _ = make_rate(frow, TRICKS_PER_HAND, worlds)
    if rate7 >= moon_risk:
        return BID_MOON_ACTION
    for i in range(n - 1, -1, -1):
        a = legal[i]
        if a == PASS or a == BID_MOON_ACTION:
            continue
        r, _ = make_rate(frow, a - BID_BASE, worlds)
        if r >= risk:
            return a
    if may_pass:
        return PASS
    return legal[0]  # forced to bid: the lowest


def _shortlist_trumps(hand, doubles, out):
    """The ``SHORTLIST`` trumps with the best greedy estimate for ``hand`` into ``out``."""
    k = 0
    taken = 0
    while k < SHORTLIST:
        best = -1
        best_sc = -1e9
        for tr in range(NUM_TRUMPS):
            if (taken >> tr) & 1 or (tr == TRUMP_DOUBLES and not doubles):
                continue
            sc = estimate_tricks(hand, 0, tr, GREEDY_OFFSUIT_WEIGHT)
            if sc > best_sc + 1e-9:
                best_sc = sc
                best = tr
        taken |= 1 << best
        out[k] = best
        k += 1


def discard_and_trump(view, params, seat, worlds, rng, row, frow, fixed):
    """(discard, trump) for the bidder holding the widow: the pair of the shortlists with the
    best make rate over the worlds (ties: mean tricks); ``fixed`` >= 0: trump already named."""
    sample = row[O_SAMPLE:O_PLAY]
    play = row[O_PLAY:O_VALUES]
    cand = row[O_VALUES:O_VALUES + SHORTLIST]  # values[] is free outside card play
    scores = frow[F_SCORES:F_SCORES + NUM_TILES]
    hand = view[HAND + seat]
    need = _need(view[HIGH_BID])
    doubles = params[OPT_DOUBLES_TRUMP] != 0
    ntr = 1
    if fixed >= 0:
        cand[0] = fixed
    else:
        _shortlist_trumps(hand, doubles, cand)
        ntr = SHORTLIST
    best_score = -1.0
    best_d = lowest_bit_index(hand)
    best_tr = cand[0]
    for j in range(ntr):
        tr = cand[j]
        # the discards the greedy estimate likes best under this trump
        for t in range(NUM_TILES):
            scores[t] = -1e9
        m = hand
        while m:
            t = lowest_bit_index(m)
            m &= m - 1
            scores[t] = estimate_tricks(hand & ~(np.int64(1) << t), np.int64(1) << t, tr,
                                        GREEDY_OFFSUIT_WEIGHT)
        for _ in range(SHORTLIST):
            d = 0
            for t in range(NUM_TILES):
                if scores[t] > scores[d]:
                    d = t
            if scores[d] <= -1e8:
                break
            scores[d] = -1e9
            made = 0.0
            total = 0.0
            for _w in range(worlds):
                _world(view, params, seat, rng, row, frow, sample)
                _contract(sample, play, seat, hand, tr, d)
                v = _value_of(play, row)
                total += v
                if v >= need:
                    made += 1.0
            sc = made + TIE_BREAK * total / TRICKS_PER_HAND
            if sc > best_score:
                best_score = sc
                best_d = d
                best_tr = tr
    return best_d, best_tr


def pimc_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    if n == 1:
        return legal[0]
    row = imem[seat]
    frow = fmem[seat]
    worlds = max(1, np.int64(bot_params[seat, P_WORLDS]))
    row[O_CANDIDATES] = np.int64(bot_params[seat, P_CANDIDATES])
    frow[F_INFERENCE] = bot_params[seat, P_INFERENCE]
    # who made each play of the hand so far depends on the view only: found once a decision
    row[O_PLAYS] = (play_seats(view, params, row[O_REPLAY:O_SEATS], row[O_SEATS:O_SAVED])
                    if frow[F_INFERENCE] > 0.0 else 0)
    mine = row[O_VIEW:O_SAMPLE]
    for i in range(STATE_SIZE):
        mine[i] = view[i]
    phase = mine[PHASE]
    if phase == PHASE_PLAY:
        return play_tile(mine, params, seat, worlds, rng, row, frow)
    if phase == PHASE_BID:
        return bid(mine, legal, n, params, seat, worlds, bot_params[seat, P_RISK],
                   bot_params[seat, P_MOON_RISK], rng, row, frow)
    if phase == PHASE_DISCARD:
        d, tr = discard_and_trump(mine, params, seat, worlds, rng, row, frow, mine[TRUMP])
        row[O_CHOSEN] = mine[HAND_NO]
        row[O_CHOSEN + 1] = tr
        return DISCARD_BASE + d
    # naming trump
    if mine[WIDOW_TAKEN] == 1 and row[O_CHOSEN] == mine[HAND_NO]:
        return TRUMP_BASE + row[O_CHOSEN + 1]
    # trump before the widow: the trump that makes the contract most often
    trump_tricks(mine, params, seat, worlds, rng, row, frow, -1)
    _, tr = make_rate(frow, _need(mine[HIGH_BID]), worlds)
    if tr == TRUMP_DOUBLES and params[OPT_DOUBLES_TRUMP] == 0:
        tr = best_trump(mine[HAND + seat], 0, False, 0, GREEDY_OFFSUIT_WEIGHT)
    return TRUMP_BASE + tr


HELPERS = (*INFERENCE_HELPERS, _need, _utility, _world, _solve_from, _value_of, play_tile, _contract, trump_tricks,
           make_rate, bid, _shortlist_trumps, discard_and_trump)
# determinize copies the view with ``out[:] = view``: reference counting on (as flatmc)
JIT_OPTIONS = {"pimc_policy": {"_nrt": True}}

register_bot(SPEC, pimc_policy, games=("moon",), helpers=HELPERS, jit_options=JIT_OPTIONS)
register_alias("moon", "expert", "pimc")
