"""Shifting Stones' rules as compiled kernels: helpers, setup, queries, moves, results
(``init`` … ``returns``) and ``evaluate``.
"""
from __future__ import annotations


import numpy as np
from numba import njit

from simcore.kernel_helpers import (next_seat, pile_pop, pile_refill, set_has, set_kth, set_list, set_with,
                                    set_without, shuffle_range, win_share_returns)
from simcore.layout import copy_columns
from simcore.rng import below, next_u64
from .declaration import (BONUS_COL, CARDS, CARD_CODE_SEATS, CARD_COL, CUR, DECK, DISCARD_BASE, DISCARD_HI,
                          DISCARD_LO, DISCARD_N, DRAW_END, DRAW_TOP, END, FLIP_BASE, GAME_HI, GAME_LO, GRID,
                          HAND_HI, HAND_LO, HAND_N, MOVES, NCARDS, NUM_CARDS, ONES, OPT_BONUS_IF_NO_ONES,
                          OPT_BONUS_POINTS, OPT_END_TRIGGER, OPT_HAND_SIZE, OPT_RANDOM_FACES, OPT_ROUND_CAP,
                          OPT_SKIP_DRAW, OPT_SKIP_IS_STRIKE, OPT_SOLO_STRIKES, OVER, PAIR_A, PAIR_B, PENDING,
                          PLANS, PLAYERS, POINTS, P_BY_VALUE, P_PL_BITHI, P_PL_BITLO, P_PL_MASK, P_PL_START,
                          P_PL_VALUE, P_POINTS, RESHUFFLES, RNG, ROUND, SCORED_BY, SCORED_ROUND, SCORED_TOTAL,
                          SCORE_BASE, SCORE_COL, SKIP, SKIPPED, SKIPS_TAKEN, SOLO_COUNTS, STRIKES, TILE_KINDS,
                          TRIGGER_BY_PLAYERS, TRIGGER_SEAT, TRUNCATED, TURNS, TURN_ACTIONS, TURN_SCORED,
                          VALUE_COUNT, VALUE_START, WIN_COL)

# ---- small helpers -------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _hand_add(state, s, c):
    state[HAND_LO + s], state[HAND_HI + s] = set_with(state[HAND_LO + s], state[HAND_HI + s], c)
    state[HAND_N + s] += 1


@njit(cache=True, inline="always")
def _hand_remove(state, s, c):
    state[HAND_LO + s], state[HAND_HI + s] = set_without(state[HAND_LO + s], state[HAND_HI + s], c)
    state[HAND_N + s] -= 1


@njit(cache=True, inline="always")
def _discard_add(state, c):
    state[DISCARD_LO], state[DISCARD_HI] = set_with(state[DISCARD_LO], state[DISCARD_HI], c)
    state[DISCARD_N] += 1


@njit(cache=True, inline="always")
def _kth_in_hand(state, s, k):
    return set_kth(state[HAND_LO + s], state[HAND_HI + s], k)


@njit(cache=True, inline="always")
def card_matches(params, grid, c):
    """Whether card ``c`` matches ``grid`` at some offset."""
    for i in range(params[P_PL_START + c], params[P_PL_START + c + 1]):
        if grid & params[P_PL_MASK + i] == params[P_PL_VALUE + i]:
            return True
    return False


@njit(cache=True)
def matching_cards(params, grid):
    """(LO, HI) sets of all deck cards that match ``grid`` (branch-free over placements)."""
    lo = np.int64(0)
    hi = np.int64(0)
    for i in range(params[P_PL_START + NUM_CARDS]):
        hit = -np.int64((grid & params[P_PL_MASK + i]) == params[P_PL_VALUE + i])
        lo |= params[P_PL_BITLO + i] & hit
        hi |= params[P_PL_BITHI + i] & hit
    return lo, hi


@njit(cache=True, inline="always")
def swap_cells(grid, a, b):
    fa = (grid >> (3 * a)) & 7
    fb = (grid >> (3 * b)) & 7
    d = fa ^ fb
    return grid ^ ((d << (3 * a)) | (d << (3 * b)))


@njit(cache=True, inline="always")
def flip_cell(grid, x):
    return grid ^ (np.int64(1) << (3 * x))


@njit(cache=True, inline="always")
def end_trigger(params, players):
    t = params[OPT_END_TRIGGER]
    if t > 0:
        return t
    return TRIGGER_BY_PLAYERS[players]


@njit(cache=True, inline="always")
def may_skip(state, s):
    return state[TURN_ACTIONS] == 0 and state[SKIPPED + s] == 0 and state[HAND_N + s] > 0


# ---- setup -----------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def choose_from_value(params, v, skip_lo, skip_hi, need, rng, slot, out, w):
    """Write ``need`` cards of value class ``v`` not in the skip set, chosen uniformly,
    to ``out[w:w+need]`` (``out[w:]`` is scratch; it must hold the class)."""
    n = 0
    for i in range(VALUE_COUNT[v]):
        c = params[P_BY_VALUE + VALUE_START[v] + i]
        if not set_has(skip_lo, skip_hi, c):
            out[w + n] = c
            n += 1
    for i in range(need):  # partial Fisher-Yates: the chosen cards end up in front
        j = i + below(rng, slot, n - i)
        t = out[w + i]
        out[w + i] = out[w + j]
        out[w + j] = t
    return w + need


@njit(cache=True)
def _choose_solo_deck(state, params):
    """DECK[0:16] = 8 one-, 4 two-, 3 three- and 1 five-point card, each chosen uniformly
    within its value (then shuffled by the caller)."""
    w = DECK
    for v in range(VALUE_COUNT.shape[0]):
        w = choose_from_value(params, v, 0, 0, SOLO_COUNTS[v], state, RNG, state, w)
    for i in range(w, DECK + NUM_CARDS):
        state[i] = -1
    return w - DECK


@njit(cache=True)
def init(state, params, players, chance_key):
    state[:] = 0
    state[RNG] = chance_key
    state[PLAYERS] = players
    state[TRIGGER_SEAT] = -1
    state[PENDING] = -1
    for c in range(NUM_CARDS):
        state[SCORED_BY + c] = -1
        state[SCORED_ROUND + c] = -1
    # the grid: shuffle the 9 tiles into the cells (DECK is scratch here), then faces
    for i in range(9):
        state[DECK + i] = TILE_KINDS[i]
    shuffle_range(state, RNG, state, DECK, 9)
    grid = np.int64(0)
    up = np.int64(0)  # bit x: cell x shows face B
    if params[OPT_RANDOM_FACES] != 0:
        up = np.int64(next_u64(state, RNG) >> np.uint64(55))
    for cell in range(9):
        grid |= (2 * state[DECK + cell] + ((up >> cell) & 1)) << (3 * cell)
    state[GRID] = grid
    # the deck
    if players == 1:
        n = _choose_solo_deck(state, params)
    else:
        n = NUM_CARDS
        for c in range(NUM_CARDS):
            state[DECK + c] = c
    shuffle_range(state, RNG, state, DECK, n)
    state[NCARDS] = n
    lo = hi = np.int64(0)
    for i in range(n):
        lo, hi = set_with(lo, hi, state[DECK + i])
    state[GAME_LO] = lo
    state[GAME_HI] = hi
    state[DRAW_END] = n
    # the deal: seat s gets the next hand_size cards of the shuffled deck
    top = 0
    for s in range(players):
        for j in range(params[OPT_HAND_SIZE]):
            if top < n:
                _hand_add(state, s, state[DECK + top])
                top += 1
    state[DRAW_TOP] = top
    state[CUR] = 0


# ---- queries ---------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def current_player(state):
    return state[CUR]


@njit(cache=True, inline="always")
def is_terminal(state):
    return state[OVER] != 0


@njit(cache=True)
def legal_actions(state, params, out):
    if state[OVER] != 0:
        return 0
    if state[PENDING] >= 0:
        for m in range(MOVES):
            out[m] = m
        return MOVES
    s = state[CUR]
    h = set_list(state[HAND_LO + s], state[HAND_HI + s], DISCARD_BASE, out, 0)
    n = h
    for i in range(h):
        c = out[i] - DISCARD_BASE
        if card_matches(params, state[GRID], c):
            out[n] = SCORE_BASE + c
            n += 1
    out[n] = END
    n += 1
    if may_skip(state, s):
        out[n] = SKIP
        n += 1
    return n


@njit(cache=True)
def random_action(state, params, rng, slot):
    """Uniform over the legal actions.  A draw over discard-or-score for every hand card
    (+ end, + skip) that lands on the score of a card that does not match is rejected and
    drawn again: uniform over the legal actions while testing one card's match a draw."""
    if state[PENDING] >= 0:
        return below(rng, slot, MOVES)
    s = state[CUR]
    h = state[HAND_N + s]
    if h == 0:
        return END
    n = 2 * h + 1
    if may_skip(state, s):
        n += 1
    while True:
        k = below(rng, slot, n)
        if k < h:
            return DISCARD_BASE + _kth_in_hand(state, s, k)
        k -= h
        if k < h:
            c = _kth_in_hand(state, s, k)
            if card_matches(params, state[GRID], c):
                return SCORE_BASE + c
            continue
        if k == h:
            return END
        return SKIP


# ---- moves -------------------------------------------------------------------------------------
@njit(cache=True)
def _reshuffle(state):
    """The discard pile becomes the draw pile (cards in id order, then shuffled)."""
    n = set_list(state[DISCARD_LO], state[DISCARD_HI], 0, state, DECK) - DECK
    pile_refill(state, RNG, DECK, n, DRAW_TOP, DRAW_END)
    state[DISCARD_LO] = 0
    state[DISCARD_HI] = 0
    state[DISCARD_N] = 0
    state[RESHUFFLES] += 1


@njit(cache=True)
def _draw(state, s, k):
    for _ in range(k):
        c = pile_pop(state, DECK, DRAW_TOP, DRAW_END)
        if c < 0:
            if state[DISCARD_N] == 0:
                return
            _reshuffle(state)
            c = pile_pop(state, DECK, DRAW_TOP, DRAW_END)
        _hand_add(state, s, c)


@njit(cache=True)
def _finish_turn(state, params):
    state[TURNS] += 1
    state[TURN_ACTIONS] = 0
    state[TURN_SCORED] = 0
    players = state[PLAYERS]
    s = state[CUR]
    if players == 1:
        state[ROUND] += 1
        if state[STRIKES] >= params[OPT_SOLO_STRIKES] or state[SCORED_TOTAL] == state[NCARDS]:
            state[OVER] = 1
        elif state[ROUND] >= params[OPT_ROUND_CAP]:
            state[OVER] = 1
            state[TRUNCATED] = 1
    elif next_seat(s, 1, players) != 0:
        state[CUR] = next_seat(s, 1, players)
        return
    else:
        state[ROUND] += 1
        if state[TRIGGER_SEAT] >= 0:
            state[OVER] = 1
        elif state[ROUND] >= params[OPT_ROUND_CAP]:
            state[OVER] = 1
            state[TRUNCATED] = 1
        else:
            state[CUR] = 0
    if state[OVER] != 0:
        state[CUR] = -1


@njit(cache=True)
def apply(state, params, action):
    s = state[CUR]
    if action < MOVES:
        if action < FLIP_BASE:
            state[GRID] = swap_cells(state[GRID], PAIR_A[action], PAIR_B[action])
        else:
            state[GRID] = flip_cell(state[GRID], action - FLIP_BASE)
        state[PENDING] = -1
        return
    if action < SCORE_BASE:
        c = action - DISCARD_BASE
        _hand_remove(state, s, c)
        _discard_add(state, c)
        state[PENDING] = c
        state[TURN_ACTIONS] += 1
        return
    if action < END:
        c = action - SCORE_BASE
        _hand_remove(state, s, c)
        pts = params[P_POINTS + c]
        state[SCORED_BY + c] = s
        state[SCORED_ROUND + c] = state[ROUND]
        state[CARDS + s] += 1
        state[POINTS + s] += pts
        if pts == 1:
            state[ONES + s] += 1
        state[SCORED_TOTAL] += 1
        state[TURN_SCORED] += 1
        state[TURN_ACTIONS] += 1
        players = state[PLAYERS]
        if players > 1 and state[TRIGGER_SEAT] < 0 and state[CARDS + s] >= end_trigger(params, players):
            state[TRIGGER_SEAT] = s
        return
    solo = state[PLAYERS] == 1
    if action == SKIP:
        state[SKIPPED + s] = 1
        state[SKIPS_TAKEN + s] += 1
        if solo and params[OPT_SKIP_IS_STRIKE] != 0:
            state[STRIKES] += 1
        _draw(state, s, params[OPT_SKIP_DRAW])
    else:
        state[SKIPPED + s] = 0
        if solo and state[TURN_SCORED] == 0:
            state[STRIKES] += 1
        need = params[OPT_HAND_SIZE] - state[HAND_N + s]
        if need > 0:
            _draw(state, s, need)
    _finish_turn(state, params)


# ---- results -------------------------------------------------------------------------------------
@njit(cache=True)
def bonus_seats(state, params, players):
    """Bit s set if seat s gets the bonus for the most 1-point cards (never in solo)."""
    if players < 2:
        return 0
    best = 0
    for s in range(players):
        best = max(best, state[ONES + s])
    if best == 0 and params[OPT_BONUS_IF_NO_ONES] == 0:
        return 0
    m = 0
    for s in range(players):
        if state[ONES + s] == best:
            m |= 1 << s
    return m


@njit(cache=True, inline="always")
def _final_score(state, params, s, bonus):
    return state[POINTS + s] + ((bonus >> s) & 1) * params[OPT_BONUS_POINTS]


@njit(cache=True)
def summarize(state, params, players, row):
    n = players
    copy_columns(state, players, row, PLANS[players])
    bonus = bonus_seats(state, params, players)
    top = -1
    for s in range(n):
        score = _final_score(state, params, s, bonus)
        row[SCORE_COL[n] + s] = score
        top = max(top, score)
    truncated = state[TRUNCATED]
    for s in range(n):
        if truncated:
            win = 0
        elif n == 1:
            win = 1 if state[SCORED_TOTAL] == state[NCARDS] else 0
        else:
            win = 1 if row[SCORE_COL[n] + s] == top else 0
        row[WIN_COL[n] + s] = win
        row[BONUS_COL[n] + s] = (bonus >> s) & 1
    for c in range(NUM_CARDS):
        by = state[SCORED_BY + c]
        row[CARD_COL[n] + c] = -1 if by < 0 else state[SCORED_ROUND + c] * CARD_CODE_SEATS + by


@njit(cache=True)
def returns(state, params, players, out):
    """A win is worth 1, shared equally among tied winners; a truncated game 1/players each
    (solo: a win 1, a loss 0); 0 for everyone before the end."""
    winners = 0
    if state[OVER] != 0 and state[TRUNCATED] == 0:
        if players == 1:
            winners = 1 if state[SCORED_TOTAL] == state[NCARDS] else 0
        else:
            bonus = bonus_seats(state, params, players)
            top = -1
            for s in range(players):
                score = _final_score(state, params, s, bonus)
                if score > top:
                    top = score
                    winners = 0
                if score == top:
                    winners |= np.int64(1) << s
    win_share_returns(out, players, state[OVER] != 0, state[TRUNCATED], winners)


# ---- search evaluation (protocol ``evaluate``) -------------------------------------------------
EVAL_TEMPERATURE = 3.0  # points


@njit(cache=True)
def soft_win(state, params, players, out, temperature):
    """Solo: the share of the game's cards scored so far.  Otherwise a soft win
    probability: softmax of the points (with the 1-point bonus as it stands) at
    ``temperature`` points (a search that values a cut-off otherwise passes its own)."""
    if players == 1:
        out[0] = state[SCORED_TOTAL] / max(1, state[NCARDS])
        return
    bonus = bonus_seats(state, params, players)
    top = -1e18
    for s in range(players):
        top = max(top, np.float64(_final_score(state, params, s, bonus)))
    total = 0.0
    for s in range(players):
        out[s] = np.exp((_final_score(state, params, s, bonus) - top) / temperature)
        total += out[s]
    for s in range(players):
        out[s] /= total


@njit(cache=True)
def evaluate(state, params, players, out):
    """``soft_win`` at ``EVAL_TEMPERATURE``."""
    soft_win(state, params, players, out, EVAL_TEMPERATURE)
