"""An exact solver of Three-Player Moon's play phase (perfect information).

Given a full deal in the play phase (every hand known: a determinized sample, or the real
state in tests), ``solve_moves`` gives, for every legal tile of the seat to play, the number
of tricks the bidder takes in the whole hand when everyone plays perfectly from then on,
the bidder maximising its tricks and the two defenders, as one side, minimising them.
That two-sided value is what "does the bidder make the contract" turns on; the defenders'
split of their tricks is not searched.

Search: fail-soft alpha-beta over single tile plays, values in tricks.
- Transposition table at trick boundaries: a position there is the three hands and the
  leader (trump and bidder fixed per hand, and part of the key, so entries stay valid
  across the sampled worlds of one hand); each entry keeps a lower and an upper bound of
  the bidder's tricks from there.  Always-replace, keys checked in full.
- Equivalent tiles: a seat's trumps that are adjacent in rank among the tiles still in
  play (nothing another seat holds, or already on the table, in between) win and lose the
  same tricks; only the strongest of each such run is searched.  (A plain tile belongs to
  two suits, so two plain tiles are never interchangeable in every suit; trumps belong to
  the trump suit alone.)
- Move ordering: leads strongest first; a follower whose side already wins the trick plays
  low first, otherwise its cheapest winning tile first, then its losers low first.
- Fast exits at a trick boundary: nothing left; the window already outside [0, tricks left].

Everything runs on caller-owned arrays (``new_table``/``TT_SLOTS``, ``moves``, ``hands``,
``stats``), so a bot gives it a slice of its working memory and nothing is allocated while
searching.  The recursion is at most 21 plies deep.

Measured figures (nodes/s, µs per solved deal): README, "Expert play (Moon)".
"""
import numpy as np
from numba import njit

from simcore.games.moon import (ACTOR, BIDDER, IN_TRICK, LED, LED_SUIT, LED_TRUMPS, FOLLOW_MASK,
                                HAND, NUM_TILES, NUM_TRUMPS, PLAYERS, POWER, TABLE, TRICKS,
                                TRUMP, TRUMP_MASK, TRUMP_NONE)
from simcore.rng import lowest_bit_index, mix64, popcount

# transposition table: 3 int64 slots per entry (key of hands 0 and 1, key of hand 2 plus
# leader/trump/bidder, bounds)
TT_SLOTS = 3
DEFAULT_TT_BITS = 16
MAX_MOVES = 8  # a seat holds at most 8 tiles
MAX_PLIES = 3 * 8 + 1
STAT_NODES = 0
STAT_TT_HITS = 1
STAT_SLOTS = 2

HAND_BITS = 22
TT_VALID = np.int64(1) << 40


def _trump_order():
    """TRUMP_ORDER[trump, k]: the trump tiles strongest first (-1 padded)."""
    order = np.full((NUM_TRUMPS, NUM_TILES), -1, dtype=np.int64)
    for tr in range(NUM_TRUMPS):
        members = [t for t in range(NUM_TILES) if (TRUMP_MASK[tr] >> t) & 1]
        members.sort(key=lambda t: -POWER[tr, LED_TRUMPS, t])
        order[tr, :len(members)] = members
    return order


TRUMP_ORDER = _trump_order()


def new_table(bits=DEFAULT_TT_BITS):
    """A transposition table of 2**bits entries (for tests and measurements; a bot uses a
    slice of its working memory)."""
    return np.zeros((1 << bits) * TT_SLOTS, dtype=np.int64)


def new_scratch():
    """(moves, frames, hands, stats) scratch arrays for ``solve_moves``."""
    return (np.zeros(MAX_PLIES * MAX_MOVES, np.int64), np.zeros(FRAME_SLOTS, np.int64),
            np.zeros(PLAYERS, np.int64), np.zeros(STAT_SLOTS, np.int64))


@njit(cache=True)
def clear_table(tt):
    for i in range(tt.shape[0]):
        tt[i] = 0


@njit(cache=True, inline="always")
def _representatives(legal, others, trump):
    """``legal`` without the trumps that are equivalent to a stronger one searched first."""
    if trump == TRUMP_NONE:
        return legal
    trumps = legal & TRUMP_MASK[trump]
    if popcount(trumps) < 2:
        return legal
    out = legal & ~trumps
    run = False
    for k in range(NUM_TILES):
        t = TRUMP_ORDER[trump, k]
        if t < 0:
            break
        bit = np.int64(1) << t
        if trumps & bit:
            if not run:
                out |= bit
            run = True
        elif others & bit:
            run = False
    return out


@njit(cache=True, inline="always")
def _team(seat, bidder):
    return 1 if seat == bidder else 0


@njit(cache=True)
def _order(reps, trump, led, k, seat, bidder, wseat, wpow, buf, base, first):
    """Write ``reps`` into ``buf[base:]`` in search order (``first``, the best tile found
    here before, if any, ahead of all); returns how many."""
    n = 0
    m = reps
    while m:
        t = lowest_bit_index(m)
        m &= m - 1
        if k == 0:
            score = POWER[trump, LED_SUIT[trump, t], t]
        else:
            p = POWER[trump, led, t]
            if _team(wseat, bidder) == _team(seat, bidder):
                score = -p  # partner (or self) winning: low first
            elif p > wpow:
                score = 100 - p  # cheapest winner first
            else:
                score = -p - 100  # then losers, low first
        if t == first:
            score = 1000
        # insertion by score, descending (scores packed with the tile)
        key = score * 64 + t
        j = n
        while j > 0 and buf[base + j - 1] < key:
            buf[base + j] = buf[base + j - 1]
            j -= 1
        buf[base + j] = key
        n += 1
    for i in range(n):
        buf[base + i] = buf[base + i] & 63
    return n


@njit(cache=True, inline="always")
def _tt_index(k1, k2, mask):
    return np.int64(mix64(np.uint64(k1) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(k2)) & np.uint64(mask))


# fields of a search frame (one per ply, in ``frames``)
F_SEAT, F_K, F_LED, F_WSEAT, F_WPOW, F_ONBOARD, F_ALPHA, F_BETA, F_A0, F_B0, F_BEST, F_IDX, \
    F_K1, F_K2, F_N, F_I, F_HAND, F_WON, F_BEST_TILE = range(19)
NF = 19
FRAME_SLOTS = MAX_PLIES * NF

ENTER = 0
RESUME = 1
RETURN = 2


@njit(cache=True)
def search(h, trump, bidder, seat, k, led, wseat, wpow, onboard, alpha, beta, tt, moves, frames, stats):
    """Bidder's tricks from the current trick (included) to the end of the hand.  ``h``: the
    three hands (restored on return); ``k`` tiles on the table, ``led`` its suit, ``wseat``/
    ``wpow`` the seat winning it and its tile's power, ``onboard`` the tiles on it.

    Iterative (an explicit stack of frames, one per ply): Numba's on-disk cache does not
    reload recursive functions safely."""
    mask = tt.shape[0] // TT_SLOTS - 1
    d = 0
    fr = frames
    fr[F_SEAT] = seat
    fr[F_K] = k
    fr[F_LED] = led
    fr[F_WSEAT] = wseat
    fr[F_WPOW] = wpow
    fr[F_ONBOARD] = onboard
    fr[F_ALPHA] = alpha
    fr[F_BETA] = beta
    mode = ENTER
    v = 0
    while True:
        f = d * NF
        if mode == ENTER:
            stats[STAT_NODES] += 1
            seat = fr[f + F_SEAT]
            k = fr[f + F_K]
            alpha = fr[f + F_ALPHA]
            beta = fr[f + F_BETA]
            fr[f + F_IDX] = -1
            first = -1
            if k == 0:
                left = popcount(h[0] | h[1] | h[2]) // PLAYERS
                if left == 0 or beta <= 0:
                    v = 0
                    mode = RETURN
                    continue
                if alpha >= left:
                    v = left
                    mode = RETURN
                    continue
                k1 = h[0] | (h[1] << HAND_BITS)
                k2 = h[2] | (seat << 22) | (trump << 24) | (bidder << 28) | TT_VALID
                idx = _tt_index(k1, k2, mask) * TT_SLOTS
                fr[f + F_IDX] = idx
                fr[f + F_K1] = k1
                fr[f + F_K2] = k2
                if tt[idx] == k1 and tt[idx + 1] == k2:
                    stats[STAT_TT_HITS] += 1
                    lo = tt[idx + 2] & 255
                    hi = (tt[idx + 2] >> 8) & 255
                    first = (tt[idx + 2] >> 16) - 1
                    if lo >= beta or lo == hi:
                        v = lo
                        mode = RETURN
                        continue
                    if hi <= alpha:
                        v = hi
                        mode = RETURN
                        continue
                    if lo > alpha:
                        alpha = lo
                    if hi < beta:
                        beta = hi
                    fr[f + F_ALPHA] = alpha
                    fr[f + F_BETA] = beta
            fr[f + F_A0] = alpha
            fr[f + F_B0] = beta
            hand = h[seat]
            fr[f + F_HAND] = hand
            led = fr[f + F_LED]
            if k == 0:
                legal = hand
            else:
                legal = hand & FOLLOW_MASK[trump, led]
                if legal == 0:
                    legal = hand
            others = fr[f + F_ONBOARD]
            for s in range(PLAYERS):
                if s != seat:
                    others |= h[s]
            reps = _representatives(legal, others, trump)
            fr[f + F_N] = _order(reps, trump, led, k, seat, bidder, fr[f + F_WSEAT], fr[f + F_WPOW],
                                 moves, d * MAX_MOVES, first)
            fr[f + F_I] = 0
            fr[f + F_BEST_TILE] = -1
            fr[f + F_BEST] = -1 if seat == bidder else 99
        elif mode == RESUME:
            seat = fr[f + F_SEAT]
            h[seat] = fr[f + F_HAND]
            v += fr[f + F_WON]
            best = fr[f + F_BEST]
            alpha = fr[f + F_ALPHA]
            beta = fr[f + F_BETA]
            if seat == bidder:
                if v > best:
                    best = v
                    fr[f + F_BEST_TILE] = moves[d * MAX_MOVES + fr[f + F_I] - 1]
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                fr[f + F_BEST_TILE] = moves[d * MAX_MOVES + fr[f + F_I] - 1]
                if v < beta:
                    beta = v
            fr[f + F_BEST] = best
            fr[f + F_ALPHA] = alpha
            fr[f + F_BETA] = beta
        else:  # RETURN: hand v to the parent
            if d == 0:
                return v
            d -= 1
            mode = RESUME
            continue
        # the next child, or this node's value
        i = fr[f + F_I]
        if fr[f + F_ALPHA] >= fr[f + F_BETA] or i == fr[f + F_N]:
            best = fr[f + F_BEST]
            idx = fr[f + F_IDX]
            if idx >= 0:
                k1 = fr[f + F_K1]
                k2 = fr[f + F_K2]
                lo = 0
                hi = 99
                if tt[idx] == k1 and tt[idx + 1] == k2:
                    lo = tt[idx + 2] & 255
                    hi = (tt[idx + 2] >> 8) & 255
                if best <= fr[f + F_A0]:
                    hi = min(hi, best)  # failed low: an upper bound
                elif best >= fr[f + F_B0]:
                    lo = max(lo, best)  # failed high: a lower bound
                else:
                    lo = best
                    hi = best
                tt[idx] = k1
                tt[idx + 1] = k2
                tt[idx + 2] = lo | (hi << 8) | ((fr[f + F_BEST_TILE] + 1) << 16)
            v = best
            mode = RETURN
            continue
        fr[f + F_I] = i + 1
        seat = fr[f + F_SEAT]
        k = fr[f + F_K]
        led = fr[f + F_LED]
        t = moves[d * MAX_MOVES + i]
        bit = np.int64(1) << t
        h[seat] = fr[f + F_HAND] & ~bit
        nxt = seat + 1 if seat + 1 < PLAYERS else 0
        alpha = fr[f + F_ALPHA]
        beta = fr[f + F_BETA]
        c = f + NF
        won = 0
        if k == 0:
            nled = LED_SUIT[trump, t]
            fr[c + F_SEAT] = nxt
            fr[c + F_K] = 1
            fr[c + F_LED] = nled
            fr[c + F_WSEAT] = seat
            fr[c + F_WPOW] = POWER[trump, nled, t]
            fr[c + F_ONBOARD] = bit
        else:
            p = POWER[trump, led, t]
            ws = fr[f + F_WSEAT]
            wp = fr[f + F_WPOW]
            if p > wp:
                ws = seat
                wp = p
            if k == PLAYERS - 1:
                won = 1 if ws == bidder else 0
                fr[c + F_SEAT] = ws
                fr[c + F_K] = 0
                fr[c + F_LED] = -1
                fr[c + F_WSEAT] = -1
                fr[c + F_WPOW] = -1
                fr[c + F_ONBOARD] = 0
            else:
                fr[c + F_SEAT] = nxt
                fr[c + F_K] = k + 1
                fr[c + F_LED] = led
                fr[c + F_WSEAT] = ws
                fr[c + F_WPOW] = wp
                fr[c + F_ONBOARD] = fr[f + F_ONBOARD] | bit
        fr[f + F_WON] = won
        fr[c + F_ALPHA] = alpha - won
        fr[c + F_BETA] = beta - won
        d += 1
        mode = ENTER


@njit(cache=True)
def _trick_state(state):
    """(winning seat, its power, tiles on the table) of the current trick."""
    trump = state[TRUMP]
    led = state[LED]
    wseat = -1
    wpow = -1
    onboard = 0
    for s in range(PLAYERS):
        t = state[TABLE + s]
        if t >= 0:
            onboard |= np.int64(1) << t
            pw = POWER[trump, led, t]
            if pw > wpow:
                wpow = pw
                wseat = s
    return wseat, wpow, onboard


@njit(cache=True)
def solve_moves(state, tt, moves, frames, h, stats, values, lo, hi):
    """For every tile of the seat to play (a full-information play-phase ``state``),
    ``values[t]`` = the bidder's tricks in the whole hand after playing ``t`` (the tricks
    already taken included); -1 for tiles it may not play.  Exact where the value lies in
    ``lo..hi``; below it a value <= lo - 1, above it a value >= hi + 1 (a narrow window is
    cheaper: ``lo = hi = need`` answers only "made or not").  Returns the legal tile mask."""
    trump = state[TRUMP]
    bidder = state[BIDDER]
    seat = state[ACTOR]
    k = state[IN_TRICK]
    led = state[LED]
    for s in range(PLAYERS):
        h[s] = state[HAND + s]
    wseat, wpow, onboard = _trick_state(state)
    hand = h[seat]
    legal = hand
    if k > 0:
        legal = hand & FOLLOW_MASK[trump, led]
        if legal == 0:
            legal = hand
    left = popcount(h[0] | h[1] | h[2] | onboard) // PLAYERS
    taken = state[TRICKS + bidder]
    nxt = seat + 1 if seat + 1 < PLAYERS else 0
    alpha = lo - 1 - taken
    beta = hi + 1 - taken
    for t in range(NUM_TILES):
        values[t] = -1
    m = legal
    while m:
        t = lowest_bit_index(m)
        m &= m - 1
        bit = np.int64(1) << t
        h[seat] = hand & ~bit
        if k == 0:
            nled = LED_SUIT[trump, t]
            v = search(h, trump, bidder, nxt, 1, nled, seat, POWER[trump, nled, t], bit,
                       alpha, beta, tt, moves, frames, stats)
        else:
            p = POWER[trump, led, t]
            ws = wseat
            wp = wpow
            if p > wpow:
                ws = seat
                wp = p
            if k == PLAYERS - 1:
                won = 1 if ws == bidder else 0
                v = won + search(h, trump, bidder, ws, 0, -1, -1, -1, 0,
                                 alpha - won, beta - won, tt, moves, frames, stats)
            else:
                v = search(h, trump, bidder, nxt, k + 1, led, ws, wp, onboard | bit,
                           alpha, beta, tt, moves, frames, stats)
        h[seat] = hand
        values[t] = taken + v
    return legal


@njit(cache=True)
def solve_value(state, tt, moves, frames, h, stats):
    """The bidder's tricks in the whole hand under perfect play from ``state``."""
    trump = state[TRUMP]
    bidder = state[BIDDER]
    for s in range(PLAYERS):
        h[s] = state[HAND + s]
    wseat, wpow, onboard = _trick_state(state)
    left = popcount(h[0] | h[1] | h[2] | onboard) // PLAYERS
    return state[TRICKS + bidder] + search(h, trump, bidder, state[ACTOR], state[IN_TRICK], state[LED],
                                           wseat, wpow, onboard, -1, left + 1, tt, moves, frames, stats)


def sample_deals(count, seed=1):
    """``count`` full deals at the start of play: games dealt from ``seed``, bid, discarded
    and trumped by the greedy bidder (for measurements and tests)."""
    from bots.moon import (GREEDY_AGGRESSION, GREEDY_MOON_THRESHOLD, GREEDY_OFFSUIT_WEIGHT,
                           GREEDY_TRUMP_RULE, decide)
    from simcore.games import moon as m
    from simcore.rng import stream_key

    params = m.INFO.make_params(m.INFO.resolve_variant({}))
    out = []
    i = 0
    while len(out) < count:
        s = np.zeros(m.STATE_SIZE, np.int64)
        m.init(s, params, PLAYERS, stream_key(seed, i, 0))
        i += 1
        while s[m.PHASE] not in (m.PHASE_PLAY, m.PHASE_OVER):
            m.apply(s, params, decide(s, params, int(s[m.ACTOR]), GREEDY_AGGRESSION, GREEDY_MOON_THRESHOLD,
                                      GREEDY_TRUMP_RULE, GREEDY_OFFSUIT_WEIGHT))
        if s[m.PHASE] == m.PHASE_PLAY:
            out.append(s)
    return out


def measure(count=200, seed=1, tt_bits=15):
    """Solve ``count`` full deals (7 tricks, first lead) twice: the value of the deal and the
    value of every opening lead.  Returns {what: (µs per deal, nodes per deal, M nodes/s)}
    (compile time excluded; the table persists across deals as it does in a bot).  Timed in
    process CPU time, so a shared machine slows it less than it does the wall clock."""
    import time

    deals = sample_deals(count, seed)
    tt = new_table(tt_bits)
    moves, frames, h, stats = new_scratch()
    values = np.zeros(NUM_TILES, np.int64)
    solve_value(deals[0], tt, moves, frames, h, stats)
    solve_moves(deals[0], tt, moves, frames, h, stats, values, 0, 7)
    clear_table(tt)
    out = {}
    for what in ("value", "moves"):
        stats[:] = 0
        t0 = time.process_time()
        for d in deals:
            if what == "value":
                solve_value(d, tt, moves, frames, h, stats)
            else:
                solve_moves(d, tt, moves, frames, h, stats, values, 0, 7)
        dt = time.process_time() - t0
        out[what] = (dt / count * 1e6, stats[STAT_NODES] / count, stats[STAT_NODES] / dt / 1e6)
    return out
