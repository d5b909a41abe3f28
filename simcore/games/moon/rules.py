"""Moon's rules as compiled kernels: dealing, bidding, the widow, trump and tricks, scoring
(``init`` … ``returns``) and ``evaluate``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.kernel_helpers import mask_to_actions, next_seat, shuffle_range, win_share_returns
from simcore.layout import copy_columns
from simcore.rng import below, random_set_bit
from .declaration import (ACTOR, ALL_PASS_FORCE, BALANCE_SLOTS, BIDDER, BIDS_FAILED, BIDS_MADE, BID_BASE,
                          BID_MOON_ACTION, COL_BALANCE, COL_HANDS_PLAYED, COL_WIN, CONTRACTS_BID,
                          CONTRACTS_POS, CONTRACTS_TRUMP, CONTRACTS_WIDOW, DECK, DISCARDED, DISCARD_BASE,
                          DISCARD_DONE, FIRST_BIDDER, FOLLOW_MASK, GAME_FIRST_BIDDER, HAND, HAND_NO,
                          HAND_POINTS, HAND_POINTS_POS, HIGH_BID, IN_TRICK, LAST_TRICK_WINNER, LEADER, LED,
                          LED_SUIT, MADE_BID, MADE_POS, MADE_TRUMP, MADE_WIDOW, MAX_BID, MOONS_MADE, MOON_BID,
                          MOON_TRIES, NOT_SAID, NUM_TILES, NUM_TRUMPS, OPT_ALL_PASS, OPT_BIDDER_GOES_OUT,
                          OPT_DOUBLES_TRUMP, OPT_HAND_CAP, OPT_MIN_BID, OPT_MOON_INSTANT_WIN,
                          OPT_TARGET_SCORE, OPT_TRUMP_BEFORE_WIDOW, PASS, PHASE, PHASE_BID, PHASE_DISCARD,
                          PHASE_OVER, PHASE_PLAY, PHASE_TRUMP, PLANS, PLAYED, PLAYERS, PLAY_BASE, PLAY_LOG,
                          POWER, REDEALS, RNG, SAID, SCORE, SPOKEN, TABLE, TILES_PER_HAND, TRICKS,
                          TRICKS_PER_HAND, TRICK_NO, TRUMP, TRUMP_BASE, TRUMP_DOUBLES, TRUMP_NONE, TRUNCATED,
                          TURNS, VOID, WIDOW, WIDOW_TAKEN, WINNER)

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
def new_deal(state):
    """A hand was just dealt (the game's start, after a scored hand or a redeal): nobody
    has bid yet (protocol ``new_deal``)."""
    return state[PHASE] == PHASE_BID and state[SPOKEN] == 0


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
def start_play(state):
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
def counted_from(seat, first):
    """``seat`` counted from ``first`` (0, 1, 2): its bidding position in a hand that ``first``
    bids first, or a seat as ``first`` sees it."""
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
        state[HAND_POINTS_POS + counted_from(s, first)] += state[HAND_POINTS + s]
    kb = counted_from(b, first)
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
            start_play(state)
        else:
            state[PHASE] = PHASE_TRUMP
        return
    # PHASE_TRUMP
    state[TRUMP] = action - TRUMP_BASE
    if params[OPT_TRUMP_BEFORE_WIDOW] != 0:
        _take_widow(state)
        state[PHASE] = PHASE_DISCARD
    else:
        start_play(state)


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
