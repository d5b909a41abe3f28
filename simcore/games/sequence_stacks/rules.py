"""Sequence Stacks' rules as compiled kernels: the helpers every move uses, the protocol's
init / legal_actions / apply / random_run / summarize / returns, and ``evaluate``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.kernel_helpers import mask_to_actions, next_seat, pile_pop, pile_refill, win_share_returns
from simcore.layout import copy_columns
from simcore.rng import GOLDEN, below, kth_set_bit, lowest_bit_index, popcount
from .declaration import (A_BLOCK, A_DISCARD, A_END, A_PASS, A_SKIP, A_STEAL_CARD, A_STEAL_CHIP, BLOCK_CARD,
                          BLUE_AT, CHIPS, COMPLETED, COMPLETED_N, DIR, DISC, DISC_CAP, DISC_N, DRAW, DRAW_LEN,
                          DRAW_POS, HAND, HAND_MASK, HAND_N, MAX_PILES, MAX_PLAYERS, NCARD, NUMBER_TYPES,
                          OVER, PENDING_DRAW, PILE_TOP, PILE_WILD, PLANS, PLAYERS, PLAYS, PLAYS_PER_SOURCE,
                          P_CHIPS_TO_WIN, P_HAND, P_MIN_EACH, P_PILES, P_REFILL, P_ROUND_CAP, P_SUPPLY,
                          RESHUFFLES, REVERSE_CARD, RNG, SCORE_AT, SKIPS, SKIP_CARD, SPECIAL, STATS,
                          STEAL_CARD_CARD, STEAL_CHIP_CARD, ST_BLOCKED, ST_BLOCKS, ST_COMPLETED, ST_SKIP,
                          ST_STEAL_CHIP, SUPPLY, TRUNCATED, TURN, TURNS, TURN_PLAY_CAP, WINDOW, WINDOW_SLOT,
                          WINNER, WIN_AT)

# ============================================================================ helpers
@njit(cache=True, inline="always")
def _hand_add(state, s, c):
    state[HAND + s * NCARD + c] += 1
    state[HAND_N + s] += 1
    state[HAND_MASK + s] |= np.int64(1) << c


@njit(cache=True, inline="always")
def _hand_remove(state, s, c):
    i = HAND + s * NCARD + c
    state[i] -= 1
    state[HAND_N + s] -= 1
    if state[i] == 0:
        state[HAND_MASK + s] &= ~(np.int64(1) << c)


@njit(cache=True, inline="always")
def discard_top(state, s):
    """The top card of seat ``s``'s personal discard pile, -1 when empty (public)."""
    n = state[DISC_N + s]
    if n == 0:
        return -1
    return state[DISC + s * DISC_CAP + n - 1]


@njit(cache=True, inline="always")
def _disc_pop(state, s):
    n = state[DISC_N + s] - 1
    state[DISC_N + s] = n
    return state[DISC + s * DISC_CAP + n]


@njit(cache=True, inline="always")
def _take(state, s, src, c):
    """Remove card ``c`` from seat ``s``'s hand (src 0) or discard top (src 1)."""
    if src == 0:
        _hand_remove(state, s, c)
    else:
        _disc_pop(state, s)


@njit(cache=True, inline="always")
def clockwise_from(s, seat, n):
    """Seat ``s`` counted clockwise from ``seat`` (0 = ``seat`` itself)."""
    r = s - seat
    return r + n if r < 0 else r


@njit(cache=True, inline="always")
def _wins(r, b, params):
    m = params[P_MIN_EACH]
    return r + b >= params[P_CHIPS_TO_WIN] and r >= m and b >= m


@njit(cache=True, inline="always")
def deck_copies(players, c):
    """Copies of card type ``c`` in the deck for ``players`` (112 cards for two)."""
    if c < NUMBER_TYPES:
        return 7 if c % 6 == 5 else 9
    if players == 2:
        return 0 if c == REVERSE_CARD else 2
    return 4 if c == STEAL_CHIP_CARD else 3


@njit(cache=True)
def _reshuffle(state):
    n = 0
    for t in range(NUMBER_TYPES):
        for _ in range(state[COMPLETED + t]):
            state[DRAW + n] = t
            n += 1
        state[COMPLETED + t] = 0
    state[COMPLETED_N] = 0
    pile_refill(state, RNG, DRAW, n, DRAW_POS, DRAW_LEN)
    state[RESHUFFLES] += 1


@njit(cache=True, inline="always")
def _draw(state, s, count):
    for _ in range(count):
        c = pile_pop(state, DRAW, DRAW_POS, DRAW_LEN)
        if c < 0:
            if state[COMPLETED_N] == 0:
                return
            _reshuffle(state)
            c = pile_pop(state, DRAW, DRAW_POS, DRAW_LEN)
        _hand_add(state, s, c)


@njit(cache=True, inline="always")
def _begin_turn(state, params, t):
    state[TURN] = t
    state[TURNS] += 1
    state[PLAYS] = 0
    if state[DRAW_POS] == state[DRAW_LEN] and state[COMPLETED_N] == 0:
        return  # nothing to draw (the call would return at once): the stalled phase
    hs = params[P_HAND]
    hn = state[HAND_N + t]
    if params[P_REFILL] != 0:
        if hn < hs:
            _draw(state, t, hs - hn)
    elif hn == 0:
        _draw(state, t, hs)


@njit(cache=True, inline="always")
def _end_turn(state, params):
    n = state[PLAYERS]
    if state[TURNS] >= params[P_ROUND_CAP] * n:
        state[OVER] = 1
        state[TRUNCATED] = 1
        return
    d = state[DIR]
    x = state[TURN]
    while True:
        x = next_seat(x, d, n)
        if state[SKIPS + x] > 0:
            state[SKIPS + x] -= 1
        else:
            break
    _begin_turn(state, params, x)


@njit(cache=True)
def _next_holder(state, after, completer, n, d):
    """The next seat after ``after`` (in direction d, stopping at the completer) that
    holds a block in hand, or -1."""
    x = after
    while True:
        x = next_seat(x, d, n)
        if x == completer:
            return -1
        if state[HAND + x * NCARD + BLOCK_CARD] > 0:
            return x


@njit(cache=True)
def _resolve(state, params, blocker):
    """Close the completion of pile WINDOW_SLOT: chip (unless ``blocker`` >= 0 blocked
    it), pile to the completed stack, win check, then the draw owed for a hand emptied
    by the play.  (Seats are passed as runtime values, never literals, so that Numba
    compiles one specialisation.)"""
    slot = state[WINDOW_SLOT]
    s = state[TURN]
    col = slot // MAX_PILES
    wild = state[PILE_WILD + slot]
    base = COMPLETED + col * 6
    for i in range(5):
        if (wild >> i) & 1:
            state[base + 5] += 1
        else:
            state[base + i] += 1
    state[COMPLETED_N] += 5
    state[PILE_TOP + slot] = 0
    state[PILE_WILD + slot] = 0
    state[WINDOW] = -1
    state[WINDOW_SLOT] = -1
    if blocker >= 0:
        state[STATS + ST_BLOCKED * MAX_PLAYERS + s] += 1
    elif state[SUPPLY + col] > 0:
        state[SUPPLY + col] -= 1
        state[CHIPS + 2 * s + col] += 1
        if _wins(state[CHIPS + 2 * s], state[CHIPS + 2 * s + 1], params):
            state[OVER] = 1
            state[WINNER] = s
            state[PENDING_DRAW] = 0
            return
    if state[PENDING_DRAW] != 0:
        state[PENDING_DRAW] = 0
        _draw(state, s, params[P_HAND])


# ============================================================================ protocol
@njit(cache=True)
def init(state, params, players, chance_key):
    # every word, the piles' unused slots too: observe copies them into a bot's view, and the
    # engine reuses the buffer from game to game (a word left unset held the last game's)
    state[:] = 0
    state[PLAYERS] = players
    state[WINNER] = -1
    state[DIR] = 1
    state[WINDOW] = -1
    state[WINDOW_SLOT] = -1
    state[RNG] = chance_key
    state[SUPPLY] = params[P_SUPPLY]
    state[SUPPLY + 1] = params[P_SUPPLY]
    n = 0
    for c in range(NCARD):
        for _ in range(deck_copies(players, c)):
            state[DRAW + n] = c
            n += 1
    pile_refill(state, RNG, DRAW, n, DRAW_POS, DRAW_LEN)
    hs = params[P_HAND]
    for s in range(players):
        for _ in range(hs):
            _hand_add(state, s, pile_pop(state, DRAW, DRAW_POS, DRAW_LEN))
    _begin_turn(state, params, state[TURN])  # seat 0 (not a literal: one specialisation)


@njit(cache=True, inline="always")
def current_player(state):
    if state[OVER] != 0:
        return -1
    w = state[WINDOW]
    if w >= 0:
        return w
    return state[TURN]


@njit(cache=True, inline="always")
def is_terminal(state):
    return state[OVER] != 0


@njit(cache=True)
def _scan(state, params, out, k):
    """Enumerate the legal actions in ascending order.  k < 0: write them to ``out`` and
    return their number; k >= 0: return the k-th (or the number if there are fewer).

    One loop walks the action groups in id order (plays from hand, plays from the
    discard top, skip, reverse, steal-card, steal-chip, end of turn) with a single
    emission point, which keeps the compiled code small."""
    if state[OVER] != 0:
        return 0
    if state[WINDOW] >= 0:
        if k < 0:
            out[0] = A_BLOCK
            out[1] = A_PASS
            return 2
        return A_BLOCK + k if k < 2 else 2
    s = state[TURN]
    n = state[PLAYERS]
    hm = state[HAND_MASK + s]
    top = discard_top(state, s)
    ppc = params[P_PILES]
    r = state[CHIPS + 2 * s]
    b = state[CHIPS + 2 * s + 1]
    red_ok = not _wins(r + 1, b, params)
    blue_ok = not _wins(r, b + 1, params)
    idx = 0
    group = 0 if state[PLAYS] < TURN_PLAY_CAP else 8
    while group < 10:
        # the candidate ids of this group: a bitmask ``cand`` over ``width`` ids
        cand = np.int64(0)
        base = 0
        if group < 2:  # plays from hand (0) / the discard top (1): per card type
            src = group
            cards = hm & 0xFFF if src == 0 else (np.int64(1) << top if 0 <= top < 12 else 0)
            while cards != 0:
                c = lowest_bit_index(cards)
                cards &= cards - 1
                col = 1 if c >= 6 else 0
                num = c - 6 * col
                pb = PILE_TOP + col * MAX_PILES
                for kk in range(ppc):
                    if num == 5 or state[pb + kk] == num:
                        a = (src * NUMBER_TYPES + c) * MAX_PILES + kk
                        if k < 0:
                            out[idx] = a
                        elif idx == k:
                            return a
                        idx += 1
            group += 1
            continue
        if group < 6:  # skip, reverse, steal-card, steal-chip: card from hand / discard top
            card = SKIP_CARD + group - 2
            if card == REVERSE_CARD + 1:
                card = STEAL_CARD_CARD
            elif card == REVERSE_CARD + 2:
                card = STEAL_CHIP_CARD
            srcs = ((hm >> card) & 1) | ((2 if top == card else 0))
            if srcs != 0:
                if card <= REVERSE_CARD:
                    base = A_SKIP + (card - SKIP_CARD) * 2
                    cand = srcs
                elif card == STEAL_CARD_CARD:
                    base = A_STEAL_CARD
                    for v in range(n):
                        if v != s and state[DISC_N + v] > 0:
                            for src in range(2):
                                if (srcs >> src) & 1:
                                    cand |= np.int64(1) << (src * 6 + v)
                else:
                    base = A_STEAL_CHIP
                    for v in range(n):
                        if v == s:
                            continue
                        for src in range(2):
                            if (srcs >> src) & 1:
                                if red_ok and state[CHIPS + 2 * v] > 0:
                                    cand |= np.int64(1) << ((src * 6 + v) * 2)
                                if blue_ok and state[CHIPS + 2 * v + 1] > 0:
                                    cand |= np.int64(1) << ((src * 6 + v) * 2 + 1)
            group += 1
        else:  # end of turn
            if hm == 0:
                base = A_END
                cand = 1
            else:
                base = A_DISCARD
                cand = hm
            group = 10
        if k < 0:
            idx = mask_to_actions(cand, base, out, idx)
        else:
            m = popcount(cand)
            if k < idx + m:
                return base + kth_set_bit(cand, k - idx)
            idx += m
    return idx


@njit(cache=True)
def legal_actions(state, params, out):
    return _scan(state, params, out, -1)


@njit(cache=True, inline="always")
def _steal_chip_targets(state, params, s):
    """The (opponent, colour) pairs a steal-chip of seat ``s`` may take: a chip the
    victim holds, of a colour that does not make ``s`` win by stealing."""
    r = state[CHIPS + 2 * s]
    b = state[CHIPS + 2 * s + 1]
    red_ok = not _wins(r + 1, b, params)
    blue_ok = not _wins(r, b + 1, params)
    cnt = 0
    for v in range(state[PLAYERS]):
        if v != s:
            if red_ok and state[CHIPS + 2 * v] > 0:
                cnt += 1
            if blue_ok and state[CHIPS + 2 * v + 1] > 0:
                cnt += 1
    return cnt


@njit(cache=True, inline="always")
def _count_in_turn(state, params, s, hm):
    """Number of legal in-turn plays (all actions but the end of the turn), counted
    without enumerating them (the fast path of ``random_action``)."""
    ppc = params[P_PILES]
    top = discard_top(state, s)
    cnt = 0
    for col in range(2):
        base = PILE_TOP + col * MAX_PILES
        cb = col * 6
        for kk in range(ppc):
            need = cb + state[base + kk]
            cnt += (hm >> need) & 1
            if top == need:
                cnt += 1
        cnt += ((hm >> (cb + 5)) & 1) * ppc
        if top == cb + 5:
            cnt += ppc
    if (hm >> SKIP_CARD) == 0 and top < SKIP_CARD:
        return cnt
    cnt += (hm >> SKIP_CARD) & 1
    cnt += (hm >> REVERSE_CARD) & 1
    if top == SKIP_CARD or top == REVERSE_CARD:
        cnt += 1
    n = state[PLAYERS]
    srcs = ((hm >> STEAL_CARD_CARD) & 1) + (1 if top == STEAL_CARD_CARD else 0)
    if srcs:
        for v in range(n):
            if v != s and state[DISC_N + v] > 0:
                cnt += srcs
    srcs = ((hm >> STEAL_CHIP_CARD) & 1) + (1 if top == STEAL_CHIP_CARD else 0)
    if srcs:
        cnt += srcs * _steal_chip_targets(state, params, s)
    return cnt


@njit(cache=True, inline="always")
def _count_top(state, params, s, top):
    """``_count_in_turn`` of an empty hand: the legal plays of the discard top ``top``
    alone (the stalled phase of a game: every hand empty, nothing left to draw)."""
    if top < 0 or top == BLOCK_CARD:
        return 0
    if top < NUMBER_TYPES:
        col = 1 if top >= 6 else 0
        num = top - 6 * col
        ppc = params[P_PILES]
        if num == 5:
            return ppc
        base = PILE_TOP + col * MAX_PILES
        cnt = 0
        for kk in range(ppc):
            if state[base + kk] == num:
                cnt += 1
        return cnt
    if top <= REVERSE_CARD:
        return 1
    n = state[PLAYERS]
    cnt = 0
    if top == STEAL_CARD_CARD:
        for v in range(n):
            if v != s and state[DISC_N + v] > 0:
                cnt += 1
        return cnt
    return _steal_chip_targets(state, params, s)


@njit(cache=True)
def random_action(state, params, rng, slot):
    """Uniform over ``legal_actions`` (the same choice as ``legal[below(rng, slot, n)]``):
    the plays are counted cheaply, the end-of-turn discards picked by bit position, and
    only a chosen play is found by enumeration."""
    if state[WINDOW] >= 0:
        return A_BLOCK + below(rng, slot, 2)
    s = state[TURN]
    hm = state[HAND_MASK + s]
    n_end = popcount(hm) if hm != 0 else 1
    n_in = _count_in_turn(state, params, s, hm) if state[PLAYS] < TURN_PLAY_CAP else 0
    r = below(rng, slot, n_in + n_end)
    if r >= n_in:
        if hm == 0:
            return A_END
        return A_DISCARD + kth_set_bit(hm, r - n_in)
    return _scan(state, params, state, r)


@njit(cache=True)
def apply(state, params, action):
    if action >= A_BLOCK:  # the block window
        w = state[WINDOW]
        if action == A_BLOCK:
            _hand_remove(state, w, BLOCK_CARD)
            state[SPECIAL + BLOCK_CARD - SKIP_CARD] += 1
            state[STATS + ST_BLOCKS * MAX_PLAYERS + w] += 1
            _resolve(state, params, w)
        else:
            nw = _next_holder(state, w, state[TURN], state[PLAYERS], state[DIR])
            if nw >= 0:
                state[WINDOW] = nw
            else:
                _resolve(state, params, nw)
        return
    s = state[TURN]
    if action >= A_DISCARD:  # end of turn (with or without a discard)
        if action < A_END:
            c = action - A_DISCARD
            _hand_remove(state, s, c)
            state[DISC + s * DISC_CAP + state[DISC_N + s]] = c
            state[DISC_N + s] += 1
        _end_turn(state, params)
        return
    # a card played from hand or the discard top: decode card, source and target
    kk = 0
    v = 0
    col = 0
    if action < A_SKIP:
        src = action // PLAYS_PER_SOURCE
        rem = action - src * PLAYS_PER_SOURCE
        c = rem // MAX_PILES
        kk = rem - c * MAX_PILES
    elif action < A_STEAL_CARD:
        r = action - A_SKIP
        src = r & 1
        c = SKIP_CARD + (r >> 1)
    elif action < A_STEAL_CHIP:
        r = action - A_STEAL_CARD
        src = r // 6
        v = r - 6 * src
        c = STEAL_CARD_CARD
    else:
        r = action - A_STEAL_CHIP
        col = r & 1
        r >>= 1
        src = r // 6
        v = r - 6 * src
        c = STEAL_CHIP_CARD
    _take(state, s, src, c)
    state[PLAYS] += 1
    if c < NUMBER_TYPES:
        emptied = src == 0 and state[HAND_N + s] == 0
        col = 1 if c >= 6 else 0
        slot = col * MAX_PILES + kk
        num = state[PILE_TOP + slot] + 1
        state[PILE_TOP + slot] = num
        if c - 6 * col == 5:
            state[PILE_WILD + slot] |= np.int64(1) << (num - 1)
        if num == 5:
            state[STATS + ST_COMPLETED * MAX_PLAYERS + s] += 1
            state[WINDOW_SLOT] = slot
            state[PENDING_DRAW] = 1 if emptied else 0
            w = _next_holder(state, s, s, state[PLAYERS], state[DIR])
            if w >= 0:
                state[WINDOW] = w  # the draw owed waits for the window
            else:
                _resolve(state, params, w)
            return
    else:
        state[SPECIAL + c - SKIP_CARD] += 1
        stat = ST_STEAL_CHIP if c == STEAL_CHIP_CARD else ST_SKIP + c - SKIP_CARD
        state[STATS + stat * MAX_PLAYERS + s] += 1
        if c == SKIP_CARD:
            state[SKIPS + next_seat(s, state[DIR], state[PLAYERS])] += 1
        elif c == REVERSE_CARD:
            state[DIR] = -state[DIR]
        elif c == STEAL_CARD_CARD:
            _hand_add(state, s, _disc_pop(state, v))
        else:
            state[CHIPS + 2 * v + col] -= 1
            state[CHIPS + 2 * s + col] += 1
        # (a steal-card played as the last card brings the stolen card: not emptied)
        emptied = src == 0 and state[HAND_N + s] == 0
    if emptied:
        _draw(state, s, params[P_HAND])


@njit(cache=True)
def random_run(state, params, rng):
    """Fast path for seats that all play at random: play the game to its end exactly as
    ``random_action`` + ``apply`` would, decision for decision and with the same draws
    from each seat's stream.  Returns the decisions taken."""
    n = 0
    while state[OVER] == 0:
        w = state[WINDOW]
        if w >= 0:
            apply(state, params, A_BLOCK + below(rng, w, 2))
            n += 1
            continue
        s = state[TURN]
        hm = state[HAND_MASK + s]
        n += 1
        if hm == 0:
            k = _count_top(state, params, s, discard_top(state, s)) if state[PLAYS] < TURN_PLAY_CAP else 0
            if k == 0:
                rng[s] = np.int64(np.uint64(rng[s]) + GOLDEN)  # below(rng, s, 1) = 0
                _end_turn(state, params)
                continue
            r = below(rng, s, k + 1)
            if r == k:
                _end_turn(state, params)
            else:
                apply(state, params, _scan(state, params, state, r))
            continue
        # random_action, with the end of the turn (the likeliest pick) applied here
        n_in = _count_in_turn(state, params, s, hm) if state[PLAYS] < TURN_PLAY_CAP else 0
        r = below(rng, s, n_in + popcount(hm))
        if r < n_in:
            apply(state, params, _scan(state, params, state, r))
            continue
        c = kth_set_bit(hm, r - n_in)
        _hand_remove(state, s, c)
        state[DISC + s * DISC_CAP + state[DISC_N + s]] = c
        state[DISC_N + s] += 1
        _end_turn(state, params)
    return n


@njit(cache=True)
def summarize(state, params, players, row):
    copy_columns(state, players, row, PLANS[players])
    w = state[WINNER]
    score = SCORE_AT[players]
    win = WIN_AT[players]
    blue = BLUE_AT[players]
    for s in range(players):
        r = state[CHIPS + 2 * s]
        b = state[CHIPS + 2 * s + 1]
        row[score + s] = r + b
        row[win + s] = 1 if w == s else 0
        row[blue + s] = b


@njit(cache=True)
def returns(state, params, players, out):
    """A single winner (chips are never shared)."""
    w = state[WINNER]
    win_share_returns(out, players, state[OVER] != 0, state[TRUNCATED],
                      (np.int64(1) << w) if w >= 0 else 0)


# ---- search evaluation (protocol ``evaluate``) -------------------------------------------------
EVAL_TEMPERATURE = 1.0  # chips still needed


@njit(cache=True)
def evaluate(state, params, players, out):
    """A soft win probability: softmax of minus the chips each seat still needs (at least
    ``min_each`` of each colour and ``chips_to_win`` in all), temperature
    ``EVAL_TEMPERATURE``."""
    m = params[P_MIN_EACH]
    best = 1e18
    for s in range(players):
        r = state[CHIPS + 2 * s]
        b = state[CHIPS + 2 * s + 1]
        need = max(max(m - r, 0) + max(m - b, 0), params[P_CHIPS_TO_WIN] - r - b)
        out[s] = need
        best = min(best, need)
    total = 0.0
    for s in range(players):
        out[s] = np.exp(-(out[s] - best) / EVAL_TEMPERATURE)
        total += out[s]
    for s in range(players):
        out[s] /= total
