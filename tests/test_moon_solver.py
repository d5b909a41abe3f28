"""The Moon play-phase solver against brute force (plain minimax over the game's own
``apply``) on small endgames: hand-built ones and random ones from hypothesis."""
import numpy as np
from hypothesis import given, settings, strategies as st

from bots import moon_solver as ms
from simcore.games import moon as m

from moon_helpers import DEFAULT_PARAMS, legal, play, play_position


def after(state, a):
    """The bidder's tricks once the hand is over, else the state after ``a``."""
    nxt = state.copy()
    m.apply(nxt, DEFAULT_PARAMS, a)
    if state[m.TRICK_NO] == m.TRICKS_PER_HAND - 1 and state[m.IN_TRICK] == m.PLAYERS - 1:
        b = state[m.BIDDER]
        return int(state[m.TRICKS + b] + (nxt[m.LAST_TRICK_WINNER] == b))  # the next hand is dealt
    return brute(nxt)


def brute(state):
    """The bidder's tricks in the hand under perfect play: minimax over every legal tile,
    the bidder maximising, the defenders minimising, by the game's apply."""
    seat = int(state[m.ACTOR])
    vals = [after(state, a) for a in legal(state)]
    return max(vals) if seat == state[m.BIDDER] else min(vals)


def brute_moves(state):
    out = {}
    for a in legal(state):
        out[a - m.PLAY_BASE] = after(state, a)
    return out


def solved(state, lo=0, hi=7, tt=None):
    tt = ms.new_table(10) if tt is None else tt
    moves, frames, h, stats = ms.new_scratch()
    values = np.zeros(m.NUM_TILES, np.int64)
    mask = ms.solve_moves(state, tt, moves, frames, h, stats, values, lo, hi)
    value = ms.solve_value(state, tt, moves, frames, h, stats)
    return {t: int(values[t]) for t in range(m.NUM_TILES) if mask >> t & 1}, int(value)


def test_a_hand_built_endgame():
    # trump 6s, two tricks left, seat 0 (bidder) leads holding 6-6 and 5-1.  Seat 1 holds the
    # 6-5 and 5-5, seat 2 the 6-4 and 4-1.  Leading 6-6 draws both trumps and the 5-1 then
    # loses to 5-5: 1 trick.  Leading 5-1 first: seat 1 plays 5-5 and wins, seat 2 keeps
    # its trump... the bidder still takes the 6-6 trick: 1 trick either way, 2 never.
    s = play_position({0: ["6-6", "5-1"], 1: ["6-5", "5-5"], 2: ["6-4", "4-1"]}, trump=6,
                      leader=0, bidder=0, trick_no=5)
    values, value = solved(s)
    assert values == brute_moves(s) == {m.TILE_BY_NAME["6-6"]: 1, m.TILE_BY_NAME["5-1"]: 1}
    assert value == 1


def test_equivalent_trumps_get_the_same_value_and_the_defence_matters():
    # trump 3s; the bidder (seat 1) holds 3-3 and 3-2 (adjacent once 3-1 is the only other
    # trump), mid-trick: seat 0 led 5-4, so seat 1 is void in fives and trumps.
    s = play_position({0: ["5-4", "2-1", "6-1"], 1: ["3-3", "3-2", "6-6"], 2: ["3-1", "5-2", "6-2"]},
                      trump=3, leader=0, bidder=1, trick_no=4, tricks=(2, 2, 0))
    play(s, "5-4")
    values, value = solved(s)
    assert values == brute_moves(s)
    assert values[m.TILE_BY_NAME["3-3"]] == values[m.TILE_BY_NAME["3-2"]]
    assert value == max(values.values())


def test_the_window_bounds_values_outside_it():
    s = play_position({0: ["6-6", "5-1", "4-4"], 1: ["6-5", "5-5", "2-1"], 2: ["6-4", "4-1", "2-2"]},
                      trump=6, leader=0, bidder=0, trick_no=4, tricks=(3, 1, 0))
    exact = brute_moves(s)
    for lo, hi in ((4, 4), (5, 5), (3, 4)):
        values, _ = solved(s, lo, hi)
        for t, v in exact.items():
            if v < lo:
                assert values[t] <= lo - 1
            elif v > hi:
                assert values[t] >= hi + 1
            else:
                assert values[t] == v


@st.composite
def endgames(draw):
    """A random play-phase position with 1-3 tricks left, maybe mid-trick."""
    left = draw(st.integers(1, 3))
    tiles = draw(st.permutations(range(m.NUM_TILES)))
    trump = draw(st.integers(0, m.NUM_TRUMPS - 1))
    bidder = draw(st.integers(0, 2))
    leader = draw(st.integers(0, 2))
    done = m.TRICKS_PER_HAND - left
    taken = draw(st.integers(0, done))
    s = play_position({}, trump=trump, leader=leader, bidder=bidder, trick_no=done,
                      tricks=tuple(taken if i == bidder else 0 for i in range(3)))
    s[m.TRICKS + (bidder + 1) % 3] = done - taken
    for seat in range(3):
        for t in tiles[seat * left:(seat + 1) * left]:
            s[m.HAND + seat] |= 1 << t
    for _ in range(draw(st.integers(0, 2))):
        options = legal(s)
        m.apply(s, DEFAULT_PARAMS, options[draw(st.integers(0, len(options) - 1))])
    return s


TT = ms.new_table(12)  # shared across examples: entries of other deals must never mislead


@settings(max_examples=150, deadline=None)
@given(endgames(), st.integers(0, 7), st.integers(0, 3))
def test_random_endgames_match_brute_force(s, lo, width):
    exact = brute_moves(s)
    values, value = solved(s, tt=TT)
    assert values == exact
    best = max(exact.values()) if s[m.ACTOR] == s[m.BIDDER] else min(exact.values())
    assert value == best == brute(s)
    hi = min(7, lo + width)
    narrow, _ = solved(s, lo, hi, tt=TT)
    for t, v in exact.items():
        assert (narrow[t] <= lo - 1) if v < lo else (narrow[t] >= hi + 1) if v > hi else narrow[t] == v
