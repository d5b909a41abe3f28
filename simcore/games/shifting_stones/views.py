"""What a seat of Shifting Stones may know: its view (``observe``), worlds consistent with
it (``determinize``) and its observation vector (``observation``).
"""
from __future__ import annotations


import numpy as np
from numba import njit

from simcore.kernel_helpers import next_seat, set_has, set_with, shuffle_range
from simcore.protocol import HIDDEN
from simcore.rng import next_u64
from .declaration import (CARDS, CUR, DECK, DISCARD_HI, DISCARD_LO, DISCARD_N, DRAW_END, DRAW_TOP, GAME_HI,
                          GAME_LO, GRID, HAND_HI, HAND_LO, HAND_N, NCARDS, NUM_CARDS, OBS_BONUS, OBS_CARDS,
                          OBS_DISCARD, OBS_GRID, OBS_HAND, OBS_HAND_N, OBS_MATCH, OBS_ONES, OBS_ONES_SCALE,
                          OBS_ON_TURN, OBS_OVER, OBS_PHASE, OBS_PILES, OBS_PLAYERS, OBS_POINTS,
                          OBS_POINTS_SCALE, OBS_PRESENT, OBS_PROGRESS, OBS_SCORED, OBS_SIZE, OBS_SKIPPED,
                          OBS_TRIGGER, ONES, OPT_HAND_SIZE, OPT_ROUND_CAP, OPT_SOLO_STRIKES, OVER, PENDING,
                          PLAYERS, POINTS, P_BY_VALUE, RNG, ROUND, SCORED_BY, SKIPPED, SOLO_COUNTS, STRIKES,
                          TRIGGER_SEAT, TURN_ACTIONS, TURN_SCORED, VALUE_COUNT, VALUE_START)
from .rules import choose_from_value, bonus_seats, end_trigger, matching_cards, may_skip

# ---- information sets ------------------------------------------------------------------------------
@njit(cache=True)
def observe(state, player, out):
    """Hide other hands (their sizes stay), the draw pile's order (the deck array, whose
    dealt part would also reveal hands), the chance stream and, solo, which 16 cards were
    chosen (the unseen cards are everything not in hand, discarded or scored)."""
    for i in range(state.shape[0]):  # no slice copy: the engine calls this without reference counting
        out[i] = state[i]
    out[RNG] = HIDDEN
    for s in range(state[PLAYERS]):
        if s != player:
            out[HAND_LO + s] = HIDDEN
            out[HAND_HI + s] = HIDDEN
    for i in range(NUM_CARDS):
        out[DECK + i] = HIDDEN
    # only the pile's size is public; where it sits in DECK is bookkeeping, shown in the
    # canonical place determinize deals it to
    out[DRAW_TOP] = 0
    out[DRAW_END] = state[DRAW_END] - state[DRAW_TOP]
    if state[PLAYERS] == 1:
        out[GAME_LO] = HIDDEN
        out[GAME_HI] = HIDDEN


@njit(cache=True)
def determinize(view, params, player, rng, slot, out):
    """Deal the unseen cards at random: into the other hands (sizes kept) and the draw pile;
    solo, choose the draw pile among the unseen cards so that the game holds 8/4/3/1 cards
    of each value.  The new pile is DECK[0:size] with DRAW_TOP = 0."""
    out[:] = view
    players = view[PLAYERS]
    seen_lo = view[HAND_LO + player] | view[DISCARD_LO]
    seen_hi = view[HAND_HI + player] | view[DISCARD_HI]
    for c in range(NUM_CARDS):
        if view[SCORED_BY + c] >= 0:
            seen_lo, seen_hi = set_with(seen_lo, seen_hi, c)
    if players == 1:
        w = DECK
        for v in range(VALUE_COUNT.shape[0]):
            need = SOLO_COUNTS[v]
            for i in range(VALUE_COUNT[v]):
                if set_has(seen_lo, seen_hi, params[P_BY_VALUE + VALUE_START[v] + i]):
                    need -= 1
            w = choose_from_value(params, v, seen_lo, seen_hi, need, rng, slot, out, w)
        w -= DECK
        shuffle_range(rng, slot, out, DECK, w)
        glo = seen_lo
        ghi = seen_hi
        for i in range(w):
            glo, ghi = set_with(glo, ghi, out[DECK + i])
        out[GAME_LO] = glo
        out[GAME_HI] = ghi
    else:
        w = 0
        for c in range(NUM_CARDS):
            if not set_has(seen_lo, seen_hi, c):
                out[DECK + w] = c
                w += 1
        shuffle_range(rng, slot, out, DECK, w)
        k = w
        for s in range(players):
            if s == player:
                continue
            lo = hi = np.int64(0)
            for _ in range(view[HAND_N + s]):
                k -= 1
                lo, hi = set_with(lo, hi, out[DECK + k])
            out[HAND_LO + s] = lo
            out[HAND_HI + s] = hi
        w = k
    for i in range(w, NUM_CARDS):
        out[DECK + i] = -1
    out[DRAW_TOP] = 0
    out[DRAW_END] = w
    out[RNG] = np.int64(next_u64(rng, slot))  # a fresh future, independent of the real one


@njit(cache=True)
def observation(view, params, seat, out):
    """The observation of ``seat`` from its view (every slot read here is public or the
    seat's own: hands of others, the pile order and the stream are never touched)."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    players = view[PLAYERS]
    grid = view[GRID]
    for cell in range(9):
        out[OBS_GRID + 8 * cell + ((grid >> (3 * cell)) & 7)] = 1.0
    lo = view[HAND_LO + seat]
    hi = view[HAND_HI + seat]
    mlo, mhi = matching_cards(params, grid)
    dlo = view[DISCARD_LO]
    dhi = view[DISCARD_HI]
    for c in range(NUM_CARDS):
        if set_has(lo, hi, c):
            out[OBS_HAND + c] = 1.0
            if set_has(mlo, mhi, c):
                out[OBS_MATCH + c] = 1.0
        if set_has(dlo, dhi, c):
            out[OBS_DISCARD + c] = 1.0
        if view[SCORED_BY + c] >= 0:
            out[OBS_SCORED + c] = 1.0
    cur = view[CUR]
    over = view[OVER] != 0
    if view[PENDING] >= 0:
        out[OBS_PHASE] = 1.0
    if view[TURN_ACTIONS] > 0:
        out[OBS_PHASE + 1] = 1.0
    if view[TURN_SCORED] > 0:
        out[OBS_PHASE + 2] = 1.0
    if not over and cur >= 0 and may_skip(view, cur):
        out[OBS_PHASE + 3] = 1.0
    ncards = max(view[NCARDS], 1)
    goal = end_trigger(params, players) if players > 1 else ncards
    bonus = bonus_seats(view, params, players)
    s = seat
    for k in range(players):
        out[OBS_PRESENT + k] = 1.0
        if s == cur:
            out[OBS_ON_TURN + k] = 1.0
        out[OBS_HAND_N + k] = view[HAND_N + s] / params[OPT_HAND_SIZE]
        out[OBS_CARDS + k] = view[CARDS + s] / goal
        out[OBS_POINTS + k] = view[POINTS + s] / OBS_POINTS_SCALE
        out[OBS_ONES + k] = view[ONES + s] / OBS_ONES_SCALE
        out[OBS_BONUS + k] = (bonus >> s) & 1
        out[OBS_SKIPPED + k] = view[SKIPPED + s]
        if view[TRIGGER_SEAT] == s:
            out[OBS_TRIGGER + k] = 1.0
        s = next_seat(s, 1, players)
    out[OBS_PILES] = (view[DRAW_END] - view[DRAW_TOP]) / ncards
    out[OBS_PILES + 1] = view[DISCARD_N] / ncards
    out[OBS_PROGRESS] = view[ROUND] / params[OPT_ROUND_CAP]
    if view[TRIGGER_SEAT] >= 0:
        out[OBS_PROGRESS + 1] = 1.0
    if players == 1:
        out[OBS_PROGRESS + 2] = view[STRIKES] / params[OPT_SOLO_STRIKES]
    out[OBS_PLAYERS + players - 1] = 1.0
    if over:
        out[OBS_OVER] = 1.0
