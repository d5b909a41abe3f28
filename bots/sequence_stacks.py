"""Bots for Sequence Stacks.

``policy`` is the compiled dispatcher the generic engine calls for every non-random
seat (kind 0, ``random``, is served by the game's own ``random_action`` fast path, but
the dispatcher handles it too so that search code can call it uniformly).  Bots receive
every decision of their seat, including the out-of-turn block decision (``current_player``
returns the seat being offered the block).

``greedy``
==========
A rule-based player that scores the few candidate moves of a position directly from the
state (no enumeration of the legal list, no allocation), best first:

1. **complete** a pile at 4 (a natural 5 before a wild), the winning colour first, then the
   colour it still needs;
2. **steal-chip** from the leader (the opponent fewest chips from winning), taking the
   colour that helps it most / hurts the victim most; held while no steal helps;
3. **chains**: a pile it can finish this turn with the cards it holds (naturals first,
   wilds for the gaps), the colour it needs and the pile closest to completion first;
4. **steal-card** an opponent's discard top when it can use it (it fits a pile, completes
   one, or is a useful action card) or when that card would let its owner complete a pile;
5. **reverse** / **skip** against the leader (two players: skip is always an extra turn);
6. every other natural card that fits a pile, except (in games of fewer than
   ``leave_four_from`` players) one that leaves a pile it cannot finish at 4: that is a
   completion handed to the next player.  With hands under ``GUARD_HAND`` cards it never
   holds back (two players waiting for each other bury the completers in their discard
   piles and the game stalls).  Wilds only complete (also in a chain) or go on a pile at
   ``wild_reserve`` or more;
7. end the turn discarding the card it is least likely to need (by how far the piles are
   from wanting it; wilds, a block and steal-chip are kept).

Out of turn it **blocks** a completion that would win, and one that brings the completer
closer to winning with at least ``block_threshold`` chips; otherwise it passes (also when
the colour's supply is empty: that completion earns nothing).

Cards on the own discard top are used like hand cards (played from there first when both
hold the card), which keeps the personal piles short.  The bot reads only what its seat
may see: its own hand, its discard top, the piles, chips, supply, discard tops of the
others and the turn order; never another hand or the draw pile.  It draws no random
numbers (ties go to the first candidate found), so it is deterministic.

The defaults are the best of ``playlab tune sequence-stacks --bot greedy --against greedy``
grids at 2, 3 and 4 players (3000-4000 games per seat): blocking every completion that
helps beat higher thresholds by 1-2 points of win rate; wilds spent on piles below 4 lose
2-7 points; holding back a 4th card is worth about a point with two players and costs 1-2
with three or more.  Default rules: no greedy-vs-greedy game was truncated in 100,000 per
player count (2-6).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from bots.registry import BotParam, BotSpec, register_alias, register_bot, set_bot_defaults
from simcore.games.sequence_stacks import (A_BLOCK, A_DISCARD, A_END, A_PASS, A_REVERSE, A_SKIP,
                                           A_STEAL_CARD, A_STEAL_CHIP, BLOCK_CARD, CHIPS, DIR, HAND,
                                           HAND_MASK, HAND_N, MAX_PILES, NCARD,
                                           NUMBER_TYPES, P_CHIPS_TO_WIN, P_HAND, P_MIN_EACH, P_PILES,
                                           PILE_TOP, PLAYERS, PLAYS, REVERSE_CARD, SKIP_CARD,
                                           STEAL_CARD_CARD, STEAL_CHIP_CARD, SUPPLY, TURN,
                                           TURN_PLAY_CAP, WINDOW, WINDOW_SLOT, discard_top,
                                           random_action)
from simcore.rng import lowest_bit_index, popcount

# bot parameter slots (bot_params[seat, i])
P_BLOCK_THRESHOLD = 0
P_WILD_RESERVE = 1
P_LEAVE_FOUR_FROM = 2

GREEDY_PARAMS = (
    BotParam("block_threshold", 1, 1, 40,
             "besides every winning completion, block one that brings the completer closer to "
             "winning when it then holds at least this many chips", integer=True),
    BotParam("wild_reserve", 4, 0, 4,
             "keep wilds for completions (also in a chain it finishes this turn) unless the pile "
             "is at least this high (4 = only completions)", integer=True),
    BotParam("leave_four_from", 3, 2, 7,
             "with at least this many players it plays every fitting card, even one that leaves "
             "a pile it cannot finish at 4; with fewer it holds that card back (7 = always; "
             "never with hands under 4 cards)",
             integer=True),
)

GREEDY_SPEC = BotSpec("greedy",
                 "completes piles (needed colour first), keeps wilds for completions, blocks winning "
                 "completions, steal-chip/skip against the leader, steals useful discards, discards "
                 "the card it is least likely to need", GREEDY_PARAMS)


# scores of the number/wild plays (the action cards are tried in between, see the
# module docstring)
S_COMPLETE = 100000
S_STEAL_CHIP = 90000  # plays scored below this wait for a steal-chip
S_CHAIN = 80000
S_STEAL_CARD = 70000  # plays scored below this wait for a steal-card, reverse and skip
S_PLAY = 50000
S_WILD = 40000
STEAL_CARD_MIN = 3  # value (``_steal_card_value``) of a discard top worth a steal-card
GUARD_HAND = 4  # with smaller hands a 4th card is never held back


# ============================================================================ helpers
@njit(cache=True, inline="always")
def distance(r, b, params):
    """Chips still needed to win holding ``r`` red and ``b`` blue (0 = won)."""
    m = params[P_MIN_EACH]
    nr = m - r if m > r else 0
    nb = m - b if m > b else 0
    d = params[P_CHIPS_TO_WIN] - r - b
    if nr + nb > d:
        d = nr + nb
    return d if d > 0 else 0


@njit(cache=True)
def leader(state, params, seat):
    """The opponent closest to winning (ties: more chips, then the earlier to play)."""
    n = state[PLAYERS]
    d = state[DIR]
    best = -1
    best_d = 1 << 30
    best_c = -1
    x = seat
    for _ in range(n - 1):
        x += d
        if x < 0:
            x += n
        elif x >= n:
            x -= n
        r = state[CHIPS + 2 * x]
        b = state[CHIPS + 2 * x + 1]
        dd = distance(r, b, params)
        if dd < best_d or (dd == best_d and r + b > best_c):
            best = x
            best_d = dd
            best_c = r + b
    return best


@njit(cache=True, inline="always")
def _is_leader(state, params, x, lead):
    """Whether seat ``x`` is as close to winning as the leader."""
    return (distance(state[CHIPS + 2 * x], state[CHIPS + 2 * x + 1], params)
            == distance(state[CHIPS + 2 * lead], state[CHIPS + 2 * lead + 1], params))


@njit(cache=True)
def block_decision(state, params, seat, threshold):
    """Block the completion being resolved when it would win, or when it brings the
    completer closer to winning with at least ``threshold`` chips."""
    s = state[TURN]
    col = state[WINDOW_SLOT] // MAX_PILES
    if state[SUPPLY + col] <= 0:
        return A_PASS  # the completion earns nothing
    r = state[CHIPS + 2 * s]
    b = state[CHIPS + 2 * s + 1]
    d0 = distance(r, b, params)
    if col == 0:
        r += 1
    else:
        b += 1
    d1 = distance(r, b, params)
    if d1 == 0 or (d1 < d0 and r + b >= threshold):
        return A_BLOCK
    return A_PASS


@njit(cache=True)
def card_value(state, params, seat, c, copies):
    """How much the seat wants to keep card type ``c`` when it holds ``copies`` of it
    (higher = keep; the end-of-turn discard is the lowest)."""
    if c < NUMBER_TYPES:
        col = 1 if c >= 6 else 0
        num = c - 6 * col + 1
        if num == 6:  # wild
            return 120 - (10 if copies > 1 else 0)
        ppc = params[P_PILES]
        best = 99
        for k in range(ppc):
            t = state[PILE_TOP + col * MAX_PILES + k]
            if t < num:
                d = num - 1 - t
            else:
                d = 5 - t + num - 1
            if d < best:
                best = d
        v = 100 - 10 * best
        # the colour it still needs is worth more
        m = params[P_MIN_EACH]
        if state[CHIPS + 2 * seat + col] < m:
            v += 3
        if copies > 1:
            v -= 15
        return v
    if c == BLOCK_CARD:
        return 110 if copies == 1 else 60
    if c == STEAL_CHIP_CARD:
        return 105 if copies == 1 else 80
    if c == SKIP_CARD:
        return 90 if copies == 1 else 70
    if c == STEAL_CARD_CARD:
        return 70
    return 40  # reverse


@njit(cache=True)
def discard_choice(state, params, seat):
    """End the turn: discard the held card it is least likely to need."""
    hb = HAND + seat * NCARD
    if state[HAND_N + seat] == 0:
        return A_END
    best = -1
    best_v = 1 << 30
    m = state[HAND_MASK + seat]
    while m != 0:
        c = lowest_bit_index(m)
        m &= m - 1
        v = card_value(state, params, seat, c, state[hb + c])
        if v < best_v:
            best_v = v
            best = c
    return A_DISCARD + best


@njit(cache=True)
def _steal_card_value(state, tc, ppc):
    """What taking ``tc`` (the top of an opponent's discard pile) is worth: its use to the
    seat, plus denial when its owner could complete a pile with it from there."""
    if tc < 0:
        return -1
    if tc >= NUMBER_TYPES:
        if tc == STEAL_CHIP_CARD or tc == BLOCK_CARD:
            return 3
        if tc == SKIP_CARD:
            return 2
        return 1
    col = 1 if tc >= 6 else 0
    num = tc - 6 * col + 1
    v = 0
    for k in range(ppc):
        t = state[PILE_TOP + col * MAX_PILES + k]
        if t == 4 and (num == 5 or num == 6):
            v = max(v, 8)  # completes for the seat and denies the owner a completion
        elif num == t + 1:
            v = max(v, 3)
        elif num == 6:
            v = max(v, 2)
    return v


@njit(cache=True)
def turn_decision(state, params, seat, wild_reserve, max_leave):
    """The seat's next move in its own turn (see the module docstring for the order)."""
    if state[PLAYS] >= TURN_PLAY_CAP:
        return discard_choice(state, params, seat)
    hb = HAND + seat * NCARD
    top = discard_top(state, seat)
    ppc = params[P_PILES]
    n = state[PLAYERS]
    r = state[CHIPS + 2 * seat]
    b = state[CHIPS + 2 * seat + 1]
    d0 = distance(r, b, params)
    hm = state[HAND_MASK + seat]
    avail = hm | ((np.int64(1) << top) if top >= 0 else 0)  # card types it can play
    best = -1
    best_s = 0
    # ---- number and wild plays: completions, chains, other fitting cards
    for col in range(2):
        cb = col * 6
        have = (avail >> cb) & 0x3F  # bit i: number i + 1 (bit 5: wild)
        if have == 0:
            continue
        cv = 0  # what a chip of this colour is worth now
        if state[SUPPLY + col] > 0:
            d1 = distance(r + 1 - col, b + col, params)
            if d1 == 0:
                cv = 5000
            elif d1 < d0:
                cv = 200
            else:
                cv = 100
            if state[CHIPS + 2 * seat + col] < params[P_MIN_EACH]:
                cv += 50  # a colour it still needs
        wc = cb + 5
        w_av = 0
        if have & 32:
            w_av = state[hb + wc] + (1 if top == wc else 0)
        for k in range(ppc):
            t = state[PILE_TOP + col * MAX_PILES + k]
            nat_av = (have >> t) & 1  # the natural next card (number t + 1)
            if t == 4:
                if nat_av:
                    card = cb + 4
                    s = S_COMPLETE + cv + 20
                elif w_av > 0:
                    card = wc
                    s = S_COMPLETE + cv
                else:
                    continue
            else:
                missing = popcount(0x1F & ~((np.int64(1) << t) - 1) & ~have)
                if missing <= w_av:  # a chain it can finish this turn
                    if nat_av:
                        card = cb + t
                        s = S_CHAIN + cv + 10 * t + 5
                    else:
                        card = wc
                        s = S_CHAIN + cv + 10 * t
                elif t + 1 > max_leave:
                    continue
                elif nat_av:
                    card = cb + t
                    s = S_PLAY + 10 * t + cv // 100
                elif w_av > 0 and t >= wild_reserve:
                    card = wc
                    s = S_WILD + 10 * t
                else:
                    continue
            src = 1 if top == card else 0
            s += src
            if s > best_s:
                best_s = s
                best = (src * NUMBER_TYPES + card) * MAX_PILES + k
    if best_s >= S_STEAL_CHIP:
        return best
    if (avail >> SKIP_CARD) == 0 or (avail >> SKIP_CARD) == (np.int64(1) << (BLOCK_CARD - SKIP_CARD)):
        # no action card it could play now (a block waits for the window)
        if best >= 0:
            return best
        return discard_choice(state, params, seat)
    lead = leader(state, params, seat)
    # ---- steal-chip: from the leader, the colour that helps most
    sc_src = 1 if top == STEAL_CHIP_CARD else (0 if (hm >> STEAL_CHIP_CARD) & 1 else -1)
    if sc_src >= 0:
        sbest = -1
        sbest_v = 0
        for v in range(n):
            if v == seat:
                continue
            vr = state[CHIPS + 2 * v]
            vb = state[CHIPS + 2 * v + 1]
            vd = distance(vr, vb, params)
            for col in range(2):
                if state[CHIPS + 2 * v + col] == 0:
                    continue
                d1 = distance(r + 1 - col, b + col, params)
                if d1 == 0:
                    continue  # illegal: the stolen chip would win
                gain = 2 * (d0 - d1) + (distance(vr - 1 + col, vb - col, params) - vd)
                if gain <= 0:
                    continue
                val = gain * 10 + (100 if v == lead else 0) - vd
                if val > sbest_v:
                    sbest_v = val
                    sbest = A_STEAL_CHIP + (sc_src * 6 + v) * 2 + col
        if sbest >= 0:
            return sbest
    if best_s >= S_STEAL_CARD:
        return best
    # ---- steal-card: a useful discard top (or one that would complete for its owner)
    st_src = 1 if top == STEAL_CARD_CARD else (0 if (hm >> STEAL_CARD_CARD) & 1 else -1)
    if st_src >= 0:
        sbest = -1
        sbest_v = 2 * STEAL_CARD_MIN - 1
        for v in range(n):
            if v == seat:
                continue
            val = 2 * _steal_card_value(state, discard_top(state, v), ppc)
            if v == lead:
                val += 1
            if val > sbest_v:
                sbest_v = val
                sbest = A_STEAL_CARD + st_src * 6 + v
        if sbest >= 0:
            return sbest
    # ---- reverse / skip against the leader
    d = state[DIR]
    nxt = seat + d
    if nxt < 0:
        nxt += n
    elif nxt >= n:
        nxt -= n
    prv = seat - d
    if prv < 0:
        prv += n
    elif prv >= n:
        prv -= n
    sk_src = 1 if top == SKIP_CARD else (0 if (hm >> SKIP_CARD) & 1 else -1)
    rv_src = 1 if top == REVERSE_CARD else (0 if (hm >> REVERSE_CARD) & 1 else -1)
    nxt_lead = _is_leader(state, params, nxt, lead)
    if rv_src >= 0 and n > 2:
        prv_lead = _is_leader(state, params, prv, lead)
        if sk_src >= 0:
            if prv_lead and not nxt_lead:  # turn round, then skip the leader
                return A_REVERSE + rv_src
        elif nxt_lead and not prv_lead:  # the leader plays later
            return A_REVERSE + rv_src
    if sk_src >= 0 and (n == 2 or nxt_lead):
        return A_SKIP + sk_src
    if best >= 0:
        return best
    return discard_choice(state, params, seat)


@njit(cache=True)
def greedy(bot_params, state, params, seat):
    if state[WINDOW] >= 0:
        return block_decision(state, params, seat, bot_params[seat, P_BLOCK_THRESHOLD])
    max_leave = 3
    if (state[PLAYERS] >= bot_params[seat, P_LEAVE_FOUR_FROM]
            or params[P_HAND] < GUARD_HAND):
        max_leave = 4
    return turn_decision(state, params, seat, bot_params[seat, P_WILD_RESERVE], max_leave)


def greedy_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    """``greedy`` on the state (it reads only its seat's part: registered below with
    ``sees="state"``).  It keeps no working memory."""
    return greedy(bot_params, view, params, seat)


# it finds its own moves, and reads the state itself: handing it the view (a copy of the
# 1,071-word state, discard piles included) made it 1.5-2.1x slower (README, "Bring your own
# bot"); `playlab check` holds it to its seat's part under resampling, as any such bot
register_bot(GREEDY_SPEC, greedy_policy, games=("sequence-stacks",), legal=False, sees="state")
# mcts searches flat: UCB over the root's actions with greedy rollouts.  Opponents' hands
# decide their replies, and a tree node below the root holds the reply that was best in the
# world that expanded it; flat search beat every tree measured (README, MCTS).
set_bot_defaults("sequence-stacks", "mcts", tree_depth=1)
# the strongest bot measured here (README, MCTS: 0.637 of 2-player games against greedy)
register_alias("sequence-stacks", "expert", "mcts")
