"""Policy-based inference for Moon's ``pimc`` (Rebstock et al. 2019, with the greedy bot as
the model of the opponents): worlds are drawn from the seat's view weighted by how likely the
opponents' moves this hand are in them.

A sampled world (``determinize``: hidden tiles dealt at random, voids shown in play respected)
is given a weight by replaying the hand in it from the deal: at every move an opponent made
this hand — its bid or pass, the bidder's discard and trump, every tile it played (the view's
``SAID`` and ``PLAY_LOG``, public) — the greedy bot's move in that world is compared with the
move made; each move greedy would not have made multiplies the weight by ``1 - inference``
(``inference`` 1: such worlds are ruled out; 0: no inference, every world weighs 1).  The
greedy bot is deterministic, so this is the likelihood of the opponents' moves under a model
"plays as greedy with probability ``inference``, else something else".

``draw_world`` draws ``candidates`` worlds, weighs each and keeps one in proportion to its
weight (sampling-importance-resampling): every world the solver then sees is a draw from the
weighted posterior, so the rest of ``pimc`` is unchanged.  A candidate is not stored: its
stream state is, and the kept one is dealt again from it.

What the replay cannot know exactly: an opponent bidder's hand before the widow (its widow is
one of the eight tiles it held, hidden): its bid's likelihood is the mean over the eight
choices.  Under ``trump_before_widow`` the bidder's trump is named before the widow and is
not weighed.

Working memory: ``replay[S]`` (the replayed world), ``seats[SEAT_SLOTS]`` (who made each
play this hand, found once a decision by ``play_seats``, then each seat's tiles at the first
lead), ``saved[candidates]`` (each candidate's stream state) and ``weights[candidates]``
(float64).
"""
import numpy as np

from bots.moon import (GREEDY_AGGRESSION, GREEDY_MOON_THRESHOLD, GREEDY_OFFSUIT_WEIGHT, GREEDY_TRUMP_RULE,
                       decide)
from simcore.games.moon import (ACTOR, BID_BASE, BID_MOON_ACTION, BIDDER, DISCARD_BASE, DISCARD_DONE,
                                DISCARDED, FIRST_BIDDER, HAND, HIGH_BID, LED, MOON_BID,
                                NOT_SAID, OPT_TRUMP_BEFORE_WIDOW, PASS, PHASE, PHASE_BID, PHASE_DISCARD,
                                PHASE_TRUMP, PLAY_BASE, PLAY_LOG, PLAYED, PLAYERS, SAID, SPOKEN,
                                TABLE, TRICK_NO, TRICKS, TRICKS_PER_HAND, TRUMP, TRUMP_BASE, VOID, WIDOW,
                                WIDOW_TAKEN, apply, determinize)
from simcore.games.moon.rules import start_play
from simcore.protocol import HIDDEN
from simcore.rng import lowest_bit_index, uniform

MAX_PLAYS = PLAYERS * TRICKS_PER_HAND
AT_LEAD = MAX_PLAYS  # seats[AT_LEAD + s]: seat s's tiles at the first lead (likelihood's scratch)
SEAT_SLOTS = MAX_PLAYS + PLAYERS


def _greedy(state, params, seat):
    return decide(state, params, seat, GREEDY_AGGRESSION, GREEDY_MOON_THRESHOLD, GREEDY_TRUMP_RULE,
                  GREEDY_OFFSUIT_WEIGHT)


def _to_play_start(state):
    """``state`` as at the first lead of the hand (hands untouched): the game's own start of
    the play, and the trick fields a replay from the middle of the hand has to reset."""
    start_play(state)
    state[TRICK_NO] = 0
    state[LED] = -1
    state[PLAYED] = 0
    for s in range(PLAYERS):
        state[TABLE + s] = -1
        state[VOID + s] = 0
        state[TRICKS + s] = 0


def play_seats(view, params, replay, seats):
    """Who made each play this hand (``seats[k]`` for the view's ``PLAY_LOG[k]``): the plays
    replayed by the rules from the first lead; returns how many plays there were."""
    n = 0
    while n < MAX_PLAYS and view[PLAY_LOG + n] >= 0:
        n += 1
    if n == 0:
        return 0
    for i in range(view.shape[0]):
        replay[i] = view[i]
    _to_play_start(replay)
    for k in range(n):
        seats[k] = replay[ACTOR]
        apply(replay, params, PLAY_BASE + view[PLAY_LOG + k])
    return n


def _said_action(said):
    if said == 0:
        return PASS
    if said == MOON_BID:
        return BID_MOON_ACTION
    return BID_BASE + said


def _factor(matched, miss):
    """A move's likelihood ratio: 1 when greedy makes it, ``miss`` when not; ``matched`` may be
    the share of the unknowns under which it does."""
    return matched + (1.0 - matched) * miss


def likelihood(world, view, params, observer, seats, n, replay, miss):
    """The weight of ``world``: the product over the opponents' moves this hand of
    ``_factor`` (module docstring)."""
    w = 1.0
    bidder = view[BIDDER]
    # each seat's tiles before its first play: what it holds now and what it played
    for i in range(world.shape[0]):
        replay[i] = world[i]
    for k in range(n):
        replay[HAND + seats[k]] |= np.int64(1) << view[PLAY_LOG + k]
    before_widow = params[OPT_TRUMP_BEFORE_WIDOW] != 0
    # the bidder's eight tiles (after the widow, before the discard), when it has discarded
    eight = 0
    if bidder >= 0 and world[DISCARD_DONE] == 1:
        eight = replay[HAND + bidder] | (np.int64(1) << world[DISCARDED])
    elif bidder >= 0 and world[WIDOW_TAKEN] == 1:
        eight = replay[HAND + bidder]

    # ---- the bidding, from the deal (each seat's tiles at the first lead kept aside)
    first = view[FIRST_BIDDER]
    at_lead = seats[AT_LEAD:AT_LEAD + PLAYERS]
    for s in range(PLAYERS):
        at_lead[s] = replay[HAND + s]
    replay[PHASE] = PHASE_BID
    replay[HIGH_BID] = 0
    replay[SPOKEN] = 0
    replay[BIDDER] = -1
    replay[TRUMP] = -1
    replay[WIDOW_TAKEN] = 0
    replay[DISCARD_DONE] = 0
    replay[DISCARDED] = -1
    widow_known = world[WIDOW] != HIDDEN
    for i in range(PLAYERS):
        s = (first + i) % PLAYERS
        said = view[SAID + s]
        if said == NOT_SAID:
            break
        if s != observer:
            made = _said_action(said)
            replay[ACTOR] = s
            if s == bidder and eight != 0 and not widow_known:
                # the widow is one of the eight: the mean over them
                hits = 0
                count = 0
                m = eight
                while m:
                    x = lowest_bit_index(m)
                    m &= m - 1
                    replay[HAND + s] = eight & ~(np.int64(1) << x)
                    count += 1
                    if _greedy(replay, params, s) == made:
                        hits += 1
                w *= _factor(hits / count, miss)
            else:
                if s == bidder and eight != 0:
                    replay[HAND + s] = eight & ~(np.int64(1) << world[WIDOW])
                w *= _factor(1.0 if _greedy(replay, params, s) == made else 0.0, miss)
        if said != 0:
            replay[HIGH_BID] = said
            replay[BIDDER] = s
        replay[SPOKEN] += 1
    for s in range(PLAYERS):
        replay[HAND + s] = at_lead[s]
    replay[HIGH_BID] = view[HIGH_BID]
    replay[BIDDER] = bidder
    replay[SPOKEN] = view[SPOKEN]

    # ---- an opponent bidder's discard and trump (the usual order: widow, discard, trump)
    if bidder >= 0 and bidder != observer and world[DISCARD_DONE] == 1 and not before_widow:
        replay[ACTOR] = bidder
        replay[PHASE] = PHASE_DISCARD
        replay[HAND + bidder] = eight
        replay[WIDOW_TAKEN] = 1
        replay[TRUMP] = -1
        w *= _factor(1.0 if _greedy(replay, params, bidder) == DISCARD_BASE + world[DISCARDED] else 0.0, miss)
        if view[TRUMP] >= 0:
            replay[PHASE] = PHASE_TRUMP
            replay[HAND + bidder] = at_lead[bidder]
            replay[DISCARDED] = world[DISCARDED]
            replay[DISCARD_DONE] = 1
            w *= _factor(1.0 if _greedy(replay, params, bidder) == TRUMP_BASE + view[TRUMP] else 0.0, miss)

    # ---- the plays, from the first lead
    if n > 0:
        for s in range(PLAYERS):
            replay[HAND + s] = at_lead[s]
        replay[TRUMP] = view[TRUMP]
        replay[WIDOW_TAKEN] = world[WIDOW_TAKEN]
        replay[DISCARD_DONE] = world[DISCARD_DONE]
        replay[DISCARDED] = world[DISCARDED]
        _to_play_start(replay)
        for k in range(n):
            s = seats[k]
            t = view[PLAY_LOG + k]
            if s != observer:
                w *= _factor(1.0 if _greedy(replay, params, s) == PLAY_BASE + t else 0.0, miss)
            apply(replay, params, PLAY_BASE + t)
    return w


def draw_world(view, params, seat, rng, out, inference, replay, seats, n, saved, weights):
    """One world from ``seat``'s view into ``out``: with ``inference`` > 0, the one kept of
    ``saved.shape[0]`` candidates in proportion to its ``likelihood`` (module docstring;
    ``seats[:n]`` from ``play_seats``); without, ``determinize`` alone (the same draws as a
    pimc without inference)."""
    candidates = saved.shape[0]
    if inference <= 0.0 or candidates <= 1:
        determinize(view, params, seat, rng, seat, out)
        return
    miss = 1.0 - inference
    total = 0.0
    for c in range(candidates):
        saved[c] = rng[seat]
        determinize(view, params, seat, rng, seat, out)
        weights[c] = likelihood(out, view, params, seat, seats, n, replay, miss)
        total += weights[c]
    u = uniform(rng, seat)
    pick = candidates - 1
    if total > 0.0:
        acc = 0.0
        for c in range(candidates):
            acc += weights[c]
            if u * total < acc:
                pick = c
                break
    else:
        # every candidate ruled out: any of them
        pick = min(candidates - 1, np.int64(u * candidates))
    end = rng[seat]
    rng[seat] = saved[pick]
    determinize(view, params, seat, rng, seat, out)
    rng[seat] = end


HELPERS = (_greedy, _to_play_start, play_seats, _said_action, _factor, likelihood, draw_world)
