"""Shifting Stones, foundation v2: the declared layouts and columns, returns, the observation,
render, describe_step and the trace event fields.

Hand-built positions come from ``test_shifting_stones.build``; whole games are played with
the compiled random policy (``random_action``) or recorded through the runner.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.games import shifting_stones as g
from simcore.games.shifting_stones_deck import load_deck
from runtime.runner import Batch, RunConfig
from simcore.trace import build_trace, parse_event
from test_shifting_stones import FLIP, PARAMS, SCORE, SHIFT, act, build, discard_for, make_params, summary

DECK = load_deck()


# ---- helpers ------------------------------------------------------------------------------------
def random_positions(players, key, every=7, params=PARAMS):
    """States along one random game (every ``every``-th decision, and the last)."""
    state = np.zeros(g.STATE_SIZE, dtype=np.int64)
    g.init(state, params, players, key)
    rng = np.array([key * 7919 + 1], dtype=np.int64)
    n = 0
    while not g.is_terminal(state):
        if n % every == 0:
            yield state.copy()
        g.apply(state, params, g.random_action(state, params, rng, 0))
        n += 1
    yield state.copy()


def view_of(state, seat):
    out = np.zeros_like(state)
    g.observe(state, seat, out)
    return out


def obs(view, seat, params=PARAMS):
    out = np.full(g.INFO.observation_size(int(view[g.PLAYERS])), np.nan)
    g.observation(view, params, seat, out)
    return out


def rets(state, params=PARAMS):
    players = int(state[g.PLAYERS])
    out = np.full(players, np.nan)
    g.returns(state, params, players, out)
    return list(out)


def finish_round(state, params=PARAMS):
    """End every remaining turn of the round without an action."""
    while not g.is_terminal(state):
        act(state, g.END, params=params)


# ---- declarations -------------------------------------------------------------------------------
def test_header_tables_are_the_declarations():
    assert g.LAYOUT.table() in g.__doc__
    assert g.OBS_LAYOUT.table() in g.__doc__
    assert f"STATE_SIZE = {g.STATE_SIZE}" in g.__doc__ and f"OBS_SIZE = {g.OBS_SIZE}" in g.__doc__


def test_slots_keep_their_v1_numbers():
    # the replay engines, bots and stored states read these
    v1 = dict(RNG=0, PLAYERS=1, CUR=2, GRID=3, OVER=4, TRUNCATED=5, ROUND=6, TURNS=7, TURN_ACTIONS=8,
              TURN_SCORED=9, TRIGGER_SEAT=10, STRIKES=11, SCORED_TOTAL=12, DRAW_TOP=13, DRAW_END=14,
              DISCARD_LO=15, DISCARD_HI=16, DISCARD_N=17, GAME_LO=18, GAME_HI=19, NCARDS=20, RESHUFFLES=21,
              PENDING=22, HAND_LO=23, HAND_HI=28, HAND_N=33, SKIPPED=38, CARDS=43, POINTS=48, ONES=53,
              DECK=58, SCORED_BY=130, SCORED_ROUND=202, SKIPS_TAKEN=274, STATE_SIZE=279)
    assert {k: getattr(g, k) for k in v1} == v1
    assert g.INFO.state_size(3) == g.STATE_SIZE


def test_every_name_the_bots_and_tests_import_still_exists():
    import bots.shifting_stones  # noqa: F401  (fails at import if a name is gone)
    for name in ("HALF", "card_matches", "matching_cards", "flip_cell", "swap_cells", "may_skip",
                 "grid_code", "grid_letters", "bonus_seats", "end_trigger", "deck_tables", "build_params"):
        assert hasattr(g, name), name
    assert g.HALF == 36


def test_column_docs_cover_every_column_at_every_count():
    documented = {name.removesuffix("_S") for name, _ in g.INFO.column_docs}
    for players in range(1, 6):
        for col in g.INFO.result_columns(players):
            base = col.rsplit("_", 1)[0] if col[-1].isdigit() else col
            assert base in documented, col
    assert "strikes" in g.INFO.result_columns(1) and "strikes" not in g.INFO.result_columns(2)
    assert "trigger_seat" in g.INFO.result_columns(4) and "trigger_seat" not in g.INFO.result_columns(1)
    assert all(doc for _, doc in g.INFO.column_docs)
    assert g.INFO.observation_size(3) == g.OBS_SIZE and g.INFO.truncation_option == "round_cap"


def test_summarize_fills_the_added_columns_on_a_built_game():
    # 2 players, trigger 10: seat 0 has 9 cards and scores card 1 (bird in the centre) as
    # its 10th; it has 4 one-point cards against seat 1's 2, so it gets the bonus too
    state = build(2, "SFHOBOETE", [[1], [5]], scored_ids=[[2, 3, 4, 29, 30, 31, 32, 33, 34], [6, 7]])
    state[g.RESHUFFLES] = 3
    act(state, SCORE(1))
    assert state[g.TRIGGER_SEAT] == 0
    finish_round(state)
    r = summary(state)
    assert (r["ones_0"], r["ones_1"]) == (4, 2)
    assert r["reshuffles"] == 3 and r["trigger_seat"] == 0
    assert r["bonus_0"] == 1 and r["score_0"] == r["points_0"] + 3 and r["win_0"] == 1 and r["win_1"] == 0
    assert r["cards_0"] == 10 and r["turns"] == 2 and r["rounds"] == 1 and r["truncated"] == 0


# ---- returns ------------------------------------------------------------------------------------
def test_returns_before_the_end_are_zero():
    state = build(3, "SFHOBOETE", [[1], [5], [6]])
    assert rets(state) == [0.0, 0.0, 0.0]


def test_returns_single_winner_and_shared_win():
    win = build(2, "SFHOBOETE", [[1], [5]], scored_ids=[[2, 3, 4, 29, 30, 31, 32, 33, 34], [6, 7]])
    act(win, SCORE(1))
    finish_round(win)
    assert rets(win) == [1.0, 0.0]
    # give seat 1 (no bonus: fewer one-point cards) exactly seat 0's final score
    s0 = summary(win)["score_0"]
    tie = build(2, "SFHOBOETE", [[1], [5]], scored_ids=[[2, 3, 4, 29, 30, 31, 32, 33, 34], [6, 7]])
    act(tie, SCORE(1))
    finish_round(tie)
    tie[g.POINTS + 1] = s0  # seat 1 has no bonus (fewer ones), so its score is its points
    assert summary(tie)["win_1"] == 1 and summary(tie)["win_0"] == 1
    assert rets(tie) == [0.5, 0.5]


def test_returns_truncated_and_solo():
    state = build(3, "SFHOBOETE", [[1], [5], [6]], params=make_params(round_cap=1))
    finish_round(state, make_params(round_cap=1))
    assert state[g.TRUNCATED] == 1
    assert rets(state, make_params(round_cap=1)) == pytest.approx([1 / 3] * 3)
    solo = build(1, "SFHOBOETE", [[1]], pile_ids=[], discard_ids=[])
    act(solo, SCORE(1), g.END)  # the only card in the game: scored, a win
    assert solo[g.OVER] == 1 and rets(solo) == [1.0]
    lost = build(1, "SFHOBOETE", [[5]], pile_ids=[], params=make_params(solo_strikes=1))
    act(lost, g.END, params=make_params(solo_strikes=1))
    assert lost[g.OVER] == 1 and rets(lost, make_params(solo_strikes=1)) == [0.0]


@settings(max_examples=12, deadline=None)
@given(players=st.integers(1, 5), key=st.integers(1, 2**40))
def test_returns_follow_the_win_flags(players, key):
    *_, final = random_positions(players, key, every=10**9)
    r = summary(final)
    out = rets(final)
    assert sum(out) == pytest.approx(1.0 if players > 1 or r["win_0"] or r["truncated"] else 0.0)
    if r["truncated"]:
        assert out == pytest.approx([1 / players] * players)
    else:
        wins = [r[f"win_{s}"] for s in range(players)]
        k = sum(wins)
        assert out == pytest.approx([w / k if k else 0.0 for w in wins])


# ---- observation --------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_observation_is_the_same_from_state_view_and_determinization(players):
    rng = np.zeros(1, dtype=np.int64)
    det = np.zeros(g.STATE_SIZE, dtype=np.int64)
    checked = 0
    for key in (3, 11) if players > 1 else (3, 11, 17, 23, 29):  # solo random games are short
        for state in random_positions(players, key, every=7 if players > 1 else 2):
            for seat in range(players):
                view = view_of(state, seat)
                o = obs(view, seat)
                assert o.shape == (g.OBS_SIZE,) and np.isfinite(o).all()
                assert np.array_equal(o, obs(state, seat))
                for k in range(2):
                    rng[0] = key * 31 + k
                    g.determinize(view, PARAMS, seat, rng, 0, det)
                    assert np.array_equal(o, obs(det, seat))
                    assert np.array_equal(o, obs(view_of(det, seat), seat))
                checked += 1
    assert checked > 20


def test_observation_entries_on_a_built_position():
    # seat 1 observes a 3-player game at seat 2's turn; card 1 (B centre) matches, card 5 not
    state = build(3, "SFHOBOETE", [[10, 11], [1, 5], [6, 7, 8]], discard_ids=[20, 21], cur=2,
                  scored_ids=[[2], [], [3, 40]])
    o = obs(view_of(state, 1), 1)
    grid = o[g.OBS_GRID:g.OBS_GRID + 72].reshape(9, 8)
    assert (grid.sum(axis=1) == 1).all() and grid[0, 0] == 1 and grid[1, 2] == 1 and grid[8, 6] == 1
    hand = np.flatnonzero(o[g.OBS_HAND:g.OBS_HAND + 72]) + 1
    assert list(hand) == [1, 5]
    assert list(np.flatnonzero(o[g.OBS_MATCH:g.OBS_MATCH + 72]) + 1) == [1]
    assert list(np.flatnonzero(o[g.OBS_DISCARD:g.OBS_DISCARD + 72]) + 1) == [20, 21]
    assert list(np.flatnonzero(o[g.OBS_SCORED:g.OBS_SCORED + 72]) + 1) == [2, 3, 40]
    # relative seats: [0] = seat 1 (self), [1] = seat 2 (on turn), [2] = seat 0
    assert list(o[g.OBS_ON_TURN:g.OBS_ON_TURN + 5]) == [0, 1, 0, 0, 0]
    assert list(o[g.OBS_PRESENT:g.OBS_PRESENT + 5]) == [1, 1, 1, 0, 0]
    assert list(o[g.OBS_HAND_N:g.OBS_HAND_N + 3]) == [2 / 4, 3 / 4, 2 / 4]
    assert list(o[g.OBS_CARDS:g.OBS_CARDS + 3]) == [0, 2 / 9, 1 / 9]
    assert list(o[g.OBS_PLAYERS:g.OBS_PLAYERS + 5]) == [0, 0, 1, 0, 0]
    assert o[g.OBS_PHASE + 3] == 1  # seat 2 may skip: no action yet, did not skip before
    assert o[g.OBS_PILES + 1] == pytest.approx(2 / 72)


def test_observation_changes_when_something_visible_changes():
    state = build(2, "SFHOBOETE", [[1, 5, 9], [6, 7]])
    base = obs(view_of(state, 0), 0)
    act(state, *FLIP(4, 9))  # bird to fish in the centre; card 9 goes to the discard pile
    after = obs(view_of(state, 0), 0)
    changed = set(np.flatnonzero(base != after))
    assert g.OBS_GRID + 8 * 4 + 3 in changed and g.OBS_GRID + 8 * 4 + 2 in changed
    assert g.OBS_MATCH + 0 in changed  # card 1 wanted the bird
    assert g.OBS_HAND + 8 in changed and g.OBS_DISCARD + 8 in changed
    assert g.OBS_PHASE + 1 in changed  # an action this turn; no skip any more
    # the other seat's hand size is visible, its cards are not
    seen_by_1 = obs(view_of(state, 1), 1)
    state[g.HAND_N + 0] += 1
    assert not np.array_equal(seen_by_1, obs(view_of(state, 1), 1))
    other = state.copy()
    other[g.HAND_LO + 0], other[g.HAND_HI + 0] = 0b110, 1  # same size, other hidden cards
    assert np.array_equal(obs(view_of(state, 1), 1), obs(view_of(other, 1), 1))


# ---- words --------------------------------------------------------------------------------------
def test_card_rows_rebuilds_every_packaged_pattern():
    assert [g.card_rows(PARAMS, c) for c in range(72)] == [c.rows for c in DECK]


def test_grid_lines_show_both_faces():
    lines = g.grid_lines(g.grid_code("SFHBOETHM"))
    assert lines[1].startswith("| S/m | F/b | H/o |") and lines[3].startswith("| B/f | O/h | E/t |")
    assert lines[5].startswith("| T/e | H/o | M/s |") and lines[5].endswith("6 7 8")


def test_render_a_built_position():
    # seat 0 to play, card 17 pending; seat 1 holds hidden cards 6, 7, 8
    state = build(2, "SFHOBOETE", [[1, 5, 17], [6, 7, 8]], discard_ids=[20], scored_ids=[[2], [3, 40]])
    act(state, discard_for(17))
    text = g.render(view_of(state, 0), 0, PARAMS, 2)
    assert "| S/m | F/b | H/o |" in text
    assert "#1 (1p)" in text and "#5 (1p)" in text and "#17 (" in text
    assert "pending: #17" in text and "choose the shift or flip" in text
    assert "scorable now: #1" in text
    assert "Seat 1: 3 cards in hand (hidden)" in text
    assert "#6 " not in text and "#7 " not in text and "#8 " not in text  # hidden cards stay hidden
    assert "Draw pile: " + str(72 - 3 - 3 - 1 - 3) + " cards; discard pile: 2 cards" in text
    assert "scored: #3 (1p) #40 (2p)" in text
    assert "Bonus race (+3 for the most 1-point cards): seats 0, 1 with 1" in text
    assert "End: triggered at 10 scored cards; most so far 2" in text
    # card 1 is a bird in the centre of a 3x3 footprint, drawn under its label
    hand_lines = text.split("Your hand")[1].splitlines()
    assert hand_lines[1].split() == ["#1", "(1p)", "#5", "(1p)"]
    assert [x.split()[0] for x in hand_lines[2:5]] == ["...", ".B.", "..."]
    assert hand_lines[2].split()[1] == "OH"


def test_render_solo_and_finished_game():
    solo = build(1, "SFHOBOETE", [[5]], pile_ids=[9, 10], params=make_params(solo_strikes=2))
    act(solo, g.END, params=make_params(solo_strikes=2))
    text = g.render(view_of(solo, 0), 0, make_params(solo_strikes=2), 1)
    assert "Solo: 0 of 3 cards scored; strikes 1 of 2" in text and "Round 2: you to play" in text
    act(solo, g.END, params=make_params(solo_strikes=2))
    text = g.render(view_of(solo, 0), 0, make_params(solo_strikes=2), 1)
    assert "Game over after 2 rounds: scores [0]; lost: 2 strikes" in text


def test_describe_step_draws_the_grid_and_the_scored_card():
    state = build(2, "SFHOBOETE", [[1, 5, 9], [6, 7]])
    d, m = SHIFT(0, 1, 9)
    before = state.copy()
    act(state, d)
    assert g.describe_step(before, d, state, PARAMS, 2) == ["seat 0 discards #9 (1p) to pay for a shift or flip"]
    before = state.copy()
    act(state, m)
    lines = g.describe_step(before, m, state, PARAMS, 2)
    assert lines[0] == "seat 0 swaps cells 0 and 1 (paid with #9 (1p)):"
    assert lines[1:] == ["  " + x for x in g.grid_lines(state[g.GRID])] and "| F/b | S/m |" in lines[2]
    # back, then score card 1 (bird in the centre)
    act(state, *SHIFT(0, 1, 5))
    before = state.copy()
    act(state, SCORE(1))
    lines = g.describe_step(before, SCORE(1), state, PARAMS, 2)
    assert lines[0] == "seat 0 scores #1, 1 point: now 1 card, 1 point"
    assert lines[1:] == ["  " + r.replace("*", g.GREY) for r in DECK[0].rows]
    before = state.copy()
    act(state, g.END)
    lines = g.describe_step(before, g.END, state, PARAMS, 2)
    assert lines[0] == "seat 0 ends the turn" and lines[-1] == "seat 1 to play"
    assert any(x.startswith("seat 0 draws ") and "(hand 4;" in x for x in lines)


def _recorded(players, bots, games, seed=5):
    config = RunConfig.build("shifting-stones", players, bots, None, seed)
    batch = Batch(config)
    return config, batch, [build_trace(batch, i) for i in range(games)]


@pytest.mark.parametrize("players,bots", [(1, "random"), (2, "greedy"), (4, "random")])
def test_every_traced_event_parses(players, bots):
    _, _, traces = _recorded(players, bots, 3)
    kinds = set()
    for trace in traces:
        for event in trace["log"]:
            e = parse_event(g.EVENT_FIELDS, event)
            kinds.add(e["event"])
            fields = g.EVENT_FIELDS[e["event"]]
            assert set(e) == {"event"} | {f.rstrip("*") for f in fields}
            if "seat" in e:
                assert 0 <= e["seat"] < players
            for key in ("card", "cards"):
                for c in np.atleast_1d(e.get(key, [])):
                    assert 1 <= c <= 72
    assert {"grid", "hand", "deck", "end", "draw"} <= kinds <= set(g.EVENT_FIELDS)
    with pytest.raises(ValueError):
        parse_event(g.EVENT_FIELDS, "score 0")
    with pytest.raises(ValueError):
        parse_event(g.EVENT_FIELDS, "end 0 1")


@pytest.mark.parametrize("players,bots", [(1, "random"), (3, "greedy")])
def test_describe_step_across_whole_games(players, bots):
    config, batch, _ = _recorded(players, bots, 0)
    from simcore.rng import CHANCE_STREAM, stream_key
    params = batch.params
    for index in range(2):
        actions, _ = batch.record(index)
        state = np.zeros(batch.state_size, dtype=np.int64)
        g.init(state, params, players, stream_key(config.seed, index, CHANCE_STREAM))
        seen = 0
        for a in actions:
            before = state.copy()
            g.apply(state, params, int(a))
            lines = g.describe_step(before, int(a), state, params, players)
            assert lines and all(isinstance(x, str) and x for x in lines)
            seen += 1
        assert lines[-1].startswith("game over: scores [")
        assert g.render(view_of(state, 0), 0, params, players).startswith("Shifting Stones")
        assert seen == len(actions)
