"""The solo planner and the exact endgame search it and ``tools/solo_bound.py`` run
(``bots/shifting_stones/endgame.py``, ``planner.py``).

The search is checked against brute force over the game's own ``legal_actions`` and
``apply`` on small hand-built endgames (every card left in hand, so the rest of the game is
deterministic); the planner is checked to win such a position that greedy loses, to be
legal and deterministic, and the bound to be at least the player's value."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import simcore.games.shifting_stones as S
from bots.registry import allocate_memory
from bots.shifting_stones import endgame as E
from runtime.runner import Batch, RunConfig, choose
from simcore.kernel_helpers import HALF
from simcore.rng import stream_key

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import solo_bound  # noqa: E402

INFO = S.INFO
PARAMS = INFO.make_params(INFO.resolve_variant({}))


def endgame_state(seed: int, k: int, strikes_left: int) -> tuple[np.ndarray, list[int]]:
    """A solo deal whose first k cards are the hand and the other 12 are already scored
    (empty piles), ``strikes_left`` strikes from the loss."""
    st = np.zeros(S.STATE_SIZE, np.int64)
    S.init(st, PARAMS, 1, stream_key(seed, 0, 0))
    deck = [int(c) for c in st[S.DECK:S.DECK + 16]]
    hand, done = deck[:k], deck[k:]
    lo = hi = 0
    for c in hand:
        if c < HALF:
            lo |= 1 << c
        else:
            hi |= 1 << (c - HALF)
    st[S.HAND_LO], st[S.HAND_HI], st[S.HAND_N] = lo, hi, k
    st[S.DRAW_TOP] = st[S.DRAW_END]
    for c in done:
        st[S.SCORED_BY + c] = 0
        st[S.SCORED_ROUND + c] = 0
        st[S.POINTS] += int(PARAMS[S.P_POINTS + c])
        st[S.ONES] += int(PARAMS[S.P_POINTS + c] == 1)
    st[S.SCORED_TOTAL] = st[S.CARDS] = 16 - k
    st[S.STRIKES] = 4 - strikes_left
    return st, hand


def brute_force_win(st: np.ndarray) -> bool:
    """Whether some sequence of legal actions wins (every action tried; positions memoised)."""
    memo: dict[bytes, bool] = {}
    buf = np.zeros(S.NUM_ACTIONS + 1, np.int64)

    def win(s: np.ndarray) -> bool:
        if s[S.OVER]:
            return bool(s[S.SCORED_TOTAL] == s[S.NCARDS])
        key = s.tobytes()
        if key in memo:
            return memo[key]
        memo[key] = False
        n = S.legal_actions(s, PARAMS, buf)
        for a in list(buf[:n]):
            s2 = s.copy()
            S.apply(s2, PARAMS, int(a))
            if win(s2):
                memo[key] = True
                return True
        return False

    return win(st.copy())


def search_value(st: np.ndarray, mode: int = 0) -> float:
    v, _, aborted = solo_bound.bound_of_state(st, PARAMS, SEARCHER, 0, mode)
    assert not aborted
    return v


SEARCHER = solo_bound.Searcher()
# (cards in hand, strikes left, deals): small enough for the brute force in Python
CASES = [(2, 1, range(4)), (3, 1, range(8)), (2, 2, range(4))]


@pytest.mark.parametrize("k,sl,seeds", CASES)
def test_the_endgame_search_agrees_with_brute_force(k, sl, seeds):
    for seed in seeds:
        st, _ = endgame_state(seed, k, sl)
        v = search_value(st)
        assert v in (0.0, 1.0)  # everything in hand: no chance left
        assert (v == 1.0) == brute_force_win(st), f"deal {seed}, {k} cards, {sl} strikes left"
        assert search_value(st, mode=1) == v  # the bound is the same when nothing is drawn


def test_a_won_position_is_found_with_its_plan():
    found = 0
    for seed in range(12):
        st, _ = endgame_state(seed, 3, 1)
        if search_value(st) == 1.0:
            plan = SEARCHER.work[E.WORK_SIZE:E.WORK_SIZE + E.PLAN_SIZE]
            assert 0 <= plan[E.PLAN_D] <= 2 and plan[E.PLAN_S] != 0  # no strike left: it must score
            found += 1
    assert found >= 1


def test_the_bound_is_at_least_the_players_value_when_cards_are_drawn():
    """Five cards left, one of them in the draw pile: the player's value averages the
    draws, the bound chooses them (and may skip)."""
    checked = 0
    for seed in range(6):
        st, hand = endgame_state(seed, 5, 2)
        # the fifth card goes back to the draw pile
        c = hand[4]
        if c < HALF:
            st[S.HAND_LO] &= ~(1 << c)
        else:
            st[S.HAND_HI] &= ~(1 << (c - HALF))
        st[S.HAND_N] = 4
        st[S.DRAW_TOP] = st[S.DRAW_END] - 1
        st[S.DECK + st[S.DRAW_TOP]] = c
        v0, _, a0 = solo_bound.bound_of_state(st, PARAMS, SEARCHER, 2_000_000, 0)
        v1, _, a1 = solo_bound.bound_of_state(st, PARAMS, SEARCHER, 2_000_000, 1)
        if a0 or a1:
            continue
        assert 0.0 <= v0 <= v1 <= 1.0
        checked += 1
    assert checked >= 2


def play_from(st: np.ndarray, spec: str) -> bool:
    config = RunConfig.build("shifting-stones", 1, spec, {}, 1)
    imem, fmem = allocate_memory(config.bots, INFO, 1)
    rng = np.array([stream_key(1, 0, 1)], np.int64)
    s = st.copy()
    params = config.params()
    for _ in range(500):
        if S.is_terminal(s):
            break
        a = choose("shifting-stones", config.bots, s, params, rng, 0, imem, fmem)
        buf = np.zeros(S.NUM_ACTIONS + 1, np.int64)
        n = S.legal_actions(s, params, buf)
        assert a in buf[:n].tolist()
        S.apply(s, params, a)
    assert S.is_terminal(s)
    return bool(s[S.SCORED_TOTAL] == s[S.NCARDS])


def test_the_planner_wins_an_endgame_greedy_loses():
    for seed in range(40):
        st, _ = endgame_state(seed, 3, 1)
        if search_value(st) == 1.0 and not play_from(st, "greedy"):
            assert play_from(st, "planner")
            return
    pytest.fail("no won endgame that greedy loses among the deals tried")


def test_the_planner_never_loses_a_won_endgame():
    for seed in range(10):
        st, _ = endgame_state(seed, 3, 2)
        if search_value(st) == 1.0:
            assert play_from(st, "planner"), f"deal {seed}"


def test_planner_games_are_deterministic_and_legal_at_every_count():
    for players in (1, 2):
        config = RunConfig.build("shifting-stones", players, "planner:budget=0.5", {}, 5)
        batch = Batch(config)
        a = batch.run(0, 2)
        b = np.concatenate([batch.run(0, 1), batch.run(1, 1)])
        assert np.array_equal(a, b)
        assert np.all(a[:, config.columns().index("truncated")] == 0)
