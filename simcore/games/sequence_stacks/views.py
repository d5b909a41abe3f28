"""What a seat of Sequence Stacks may know: its view of the state (``observe``), worlds
consistent with it (``determinize``) and its observation vector (``observation``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.kernel_helpers import next_seat, shuffle_range
from simcore.protocol import HIDDEN
from simcore.rng import next_u64
from .declaration import (CHIPS, COMPLETED, DECK_MAX, DIR, DISC, DISC_CAP, DISC_N, DRAW, DRAW_LEN, DRAW_POS,
                          HAND, HAND_MASK, HAND_N, HAND_SIZE_MAX, INV_COPIES, MAX_PILES, NCARD, NUMBER_TYPES,
                          OBS_SIZE, OVER, O_ASKED, O_CHIPS, O_COMPLETED, O_DIR, O_DISC, O_DISC_NEXT,
                          O_DISC_TOP, O_DRAW_N, O_HAND, O_HAND_N, O_PENDING_DRAW, O_PHASE, O_PILE_TOP,
                          O_PILE_WILD, O_PLAYERS, O_PLAYS, O_PROGRESS, O_RULES, O_SKIPS, O_SPECIAL, O_SUPPLY,
                          O_TURN, O_UNSEEN, O_WINDOW_PILE, PENDING_DRAW, PILE_TOP, PILE_WILD, PLAYERS, PLAYS,
                          P_CHIPS_TO_WIN, P_HAND, P_MIN_EACH, P_PILES, P_REFILL, P_ROUND_CAP, P_SUPPLY, RNG,
                          SKIPS, SKIP_CARD, SKIP_SCALE, SPECIAL, STATE_SIZE, SUPPLY, TURN, TURNS,
                          TURN_PLAY_CAP, WINDOW, WINDOW_SLOT)
from .rules import clockwise_from, deck_copies

@njit(cache=True)
def observe(state, player, out):
    for i in range(STATE_SIZE):
        out[i] = state[i]
    n = state[PLAYERS]
    for s in range(n):
        if s != player:
            out[HAND_MASK + s] = HIDDEN
            for c in range(NCARD):
                out[HAND + s * NCARD + c] = HIDDEN
    for i in range(DRAW, DRAW + DECK_MAX):
        out[i] = HIDDEN
    out[RNG] = HIDDEN


@njit(cache=True)
def determinize(view, params, player, rng, slot, out):
    for i in range(STATE_SIZE):
        out[i] = view[i]
    n = view[PLAYERS]
    # unseen cards = deck - own hand - discards - piles - completed stack - special
    # pile, counted in the hand row of another seat (all other hands are rebuilt below)
    cnt = HAND + next_seat(player, 1, n) * NCARD
    for c in range(NCARD):
        out[cnt + c] = deck_copies(n, c) - view[HAND + player * NCARD + c]
    for c in range(NUMBER_TYPES):
        out[cnt + c] -= view[COMPLETED + c]
    for c in range(SKIP_CARD, NCARD):
        out[cnt + c] -= view[SPECIAL + c - SKIP_CARD]
    for s in range(n):
        for i in range(view[DISC_N + s]):
            out[cnt + view[DISC + s * DISC_CAP + i]] -= 1
    for sl in range(2 * MAX_PILES):
        top = view[PILE_TOP + sl]
        base = (sl // MAX_PILES) * 6
        wild = view[PILE_WILD + sl]
        for i in range(top):
            if (wild >> i) & 1:
                out[cnt + base + 5] -= 1
            else:
                out[cnt + base + i] -= 1
    # lay the unseen cards out (in card order) from DRAW, then shuffle them
    u = 0
    for c in range(NCARD):
        k = out[cnt + c]
        for _ in range(k):
            out[DRAW + u] = c
            u += 1
    shuffle_range(rng, slot, out, DRAW, u)
    # the other hands take cards from the end, the rest is the draw pile
    end = u
    for s in range(n):
        if s == player:
            continue
        out[HAND_MASK + s] = 0
        for c in range(NCARD):
            out[HAND + s * NCARD + c] = 0
        for _ in range(view[HAND_N + s]):
            end -= 1
            c = out[DRAW + end]
            out[HAND + s * NCARD + c] += 1
            out[HAND_MASK + s] |= np.int64(1) << c
    # draw pile: out[DRAW:DRAW+end] -> out[DRAW+pos : DRAW+pos+end] (copy backwards)
    pos = view[DRAW_POS]
    for i in range(end - 1, -1, -1):
        out[DRAW + pos + i] = out[DRAW + i]
    for i in range(pos):
        out[DRAW + i] = HIDDEN
    out[RNG] = np.int64(next_u64(rng, slot))


@njit(cache=True)
def observation(view, params, seat, out):
    """The ``OBS`` vector of ``seat`` from its view (never a hidden slot)."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    n = view[PLAYERS]
    inv = INV_COPIES[n]
    out[O_PLAYERS + n - 2] = 1.0
    out[O_RULES] = params[P_REFILL]
    out[O_RULES + 1] = params[P_HAND] / HAND_SIZE_MAX
    out[O_RULES + 2] = params[P_PILES] / MAX_PILES
    out[O_RULES + 3] = params[P_CHIPS_TO_WIN] / 40.0
    out[O_RULES + 4] = params[P_MIN_EACH] / 20.0
    out[O_RULES + 5] = params[P_SUPPLY] / 40.0
    t = view[TURN]
    w = view[WINDOW]
    if view[OVER] != 0:
        out[O_PHASE + 3] = 1.0
    elif w >= 0:
        out[O_PHASE + (1 if w == seat else 2)] = 1.0
        out[O_ASKED + clockwise_from(w, seat, n)] = 1.0
        out[O_WINDOW_PILE + view[WINDOW_SLOT]] = 1.0
        out[O_PENDING_DRAW] = view[PENDING_DRAW]
    else:
        out[O_PHASE + (0 if t == seat else 2)] = 1.0
    out[O_TURN + clockwise_from(t, seat, n)] = 1.0
    out[O_DIR] = 1.0 if view[DIR] == 1 else 0.0
    out[O_PLAYS] = view[PLAYS] / TURN_PLAY_CAP
    out[O_PROGRESS] = view[TURNS] / (params[P_ROUND_CAP] * n)
    for c in range(NCARD):
        out[O_HAND + c] = view[HAND + seat * NCARD + c] * inv[c]
    # unseen = deck - everything visible, counted up in O_UNSEEN and scaled at the end
    for c in range(NCARD):
        out[O_UNSEEN + c] = deck_copies(n, c) - view[HAND + seat * NCARD + c]
    for c in range(NUMBER_TYPES):
        k = view[COMPLETED + c]
        out[O_COMPLETED + c] = k * inv[c]
        out[O_UNSEEN + c] -= k
    for j in range(5):
        k = view[SPECIAL + j]
        out[O_SPECIAL + j] = k * inv[SKIP_CARD + j]
        out[O_UNSEEN + SKIP_CARD + j] -= k
    hs = params[P_HAND]
    ctw = params[P_CHIPS_TO_WIN]
    for s in range(n):
        r = clockwise_from(s, seat, n)
        out[O_HAND_N + r] = view[HAND_N + s] / hs
        out[O_CHIPS + 2 * r] = view[CHIPS + 2 * s] / ctw
        out[O_CHIPS + 2 * r + 1] = view[CHIPS + 2 * s + 1] / ctw
        out[O_SKIPS + r] = view[SKIPS + s] / SKIP_SCALE
        dn = view[DISC_N + s]
        base = DISC + s * DISC_CAP
        for i in range(dn):
            c = view[base + i]
            out[O_DISC + r * NCARD + c] += inv[c]
            out[O_UNSEEN + c] -= 1
        if dn > 0:
            out[O_DISC_TOP + r * NCARD + view[base + dn - 1]] = 1.0
        if dn > 1:
            out[O_DISC_NEXT + r * NCARD + view[base + dn - 2]] = 1.0
    if params[P_SUPPLY] > 0:
        out[O_SUPPLY] = view[SUPPLY] / params[P_SUPPLY]
        out[O_SUPPLY + 1] = view[SUPPLY + 1] / params[P_SUPPLY]
    ppc = params[P_PILES]
    for sl in range(2 * MAX_PILES):
        if sl % MAX_PILES >= ppc:
            continue
        top = view[PILE_TOP + sl]
        wild = view[PILE_WILD + sl]
        out[O_PILE_TOP + sl * 6 + top] = 1.0
        cb = (sl // MAX_PILES) * 6
        for i in range(top):
            if (wild >> i) & 1:
                out[O_PILE_WILD + sl * 5 + i] = 1.0
                out[O_UNSEEN + cb + 5] -= 1
            else:
                out[O_UNSEEN + cb + i] -= 1
    for c in range(NCARD):
        out[O_UNSEEN + c] *= inv[c]
    out[O_DRAW_N] = (view[DRAW_LEN] - view[DRAW_POS]) / DECK_MAX
