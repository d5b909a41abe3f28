"""What a seat of Moon may know: its view (``observe``), deals consistent with it
(``determinize``) and its observation vector (``observation``).
"""
from __future__ import annotations

from numba import njit

from simcore.kernel_helpers import mask_to_actions, shuffle_range
from simcore.protocol import HIDDEN
from .declaration import (ACTOR, ALL_TILES, BIDDER, DECK, DISCARDED, DISCARD_DONE, FIRST_BIDDER, FOLLOW_MASK,
                          HAND, HAND_NO, HIGH_BID, IN_TRICK, LEADER, LED, MAX_BID, MOON_BID, NOT_SAID,
                          NUM_LED, NUM_TILES, OBS_BIDDER, OBS_CONTRACT, OBS_DISCARD, OBS_DISCARD_DONE,
                          OBS_FIRST_BIDDER, OBS_HAND, OBS_HAND_NO, OBS_HAND_SIZES, OBS_LEADER, OBS_LED,
                          OBS_PHASE, OBS_PLAYED, OBS_SAID, OBS_SCORE, OBS_SIZE, OBS_TABLE, OBS_TO_ACT,
                          OBS_TRICKS, OBS_TRICK_NO, OBS_TRUMP, OBS_VOID, OBS_WIDOW, OBS_WIDOW_TAKEN,
                          OPT_HAND_CAP, OPT_TARGET_SCORE, PHASE, PHASE_OVER, PHASE_PLAY, PLAYED, PLAYERS, RNG,
                          SAID, SAID_CODES, SCORE, TABLE, TILES_PER_HAND, TRICKS, TRICKS_PER_HAND, TRICK_NO,
                          TRUMP, VOID, WIDOW, WIDOW_TAKEN)
from .rules import counted_from

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
def tiles_in_hand(view, s):
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
            size = tiles_in_hand(view, s)
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
        out[OBS_TO_ACT + counted_from(view[ACTOR], seat)] = 1.0
    out[OBS_FIRST_BIDDER + counted_from(view[FIRST_BIDDER], seat)] = 1.0
    hand = view[HAND + seat]
    for t in range(NUM_TILES):
        if (hand >> t) & 1:
            out[OBS_HAND + t] = 1.0
    bidder = view[BIDDER]
    table_mask = 0
    for s in range(PLAYERS):
        r = counted_from(s, seat)
        out[OBS_HAND_SIZES + r] = tiles_in_hand(view, s) / 8.0
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
        out[OBS_BIDDER + counted_from(bidder, seat)] = 1.0
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
        out[OBS_LEADER + counted_from(view[LEADER], seat)] = 1.0
        if view[IN_TRICK] > 0:
            out[OBS_LED + view[LED]] = 1.0
    out[OBS_TRICK_NO] = view[TRICK_NO] / TRICKS_PER_HAND
    out[OBS_HAND_NO] = view[HAND_NO] / params[OPT_HAND_CAP]
