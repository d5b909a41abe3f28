"""Sequence Stacks, foundation v2: declared layouts and columns, returns, the observation
vector, render, EVENT_FIELDS and describe_step."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

import simcore.games.sequence_stacks as G
from simcore.layout import COMMON_COLUMNS
from simcore.trace import parse_event

from test_sequence_stacks import make_state, params, play_action, slot

C = G.CARD_CODES


# ----------------------------------------------------------------------------- helpers
def run_random_game(players, seed, variant=None, on_step=None):
    """A random game stepped from Python; ``on_step(before, action, after)`` after each."""
    p = params(**(variant or {}))
    st = np.zeros(G.STATE_SIZE, np.int64)
    G.init(st, p, players, seed)
    rng = np.arange(players, dtype=np.int64) * 7919 + seed
    while not G.is_terminal(st):
        a = G.random_action(st, p, rng, G.current_player(st))
        before = st.copy()
        G.apply(st, p, a)
        if on_step is not None:
            on_step(before, a, st, p)
    return st, p


def obs_of(state, p, seat):
    view = np.zeros(G.STATE_SIZE, np.int64)
    G.observe(state, seat, view)
    out = np.full(G.INFO.observation_size(int(state[G.PLAYERS])), np.nan)
    G.observation(view, p, seat, out)
    return out


def parse(event):
    return parse_event(G.EVENT_FIELDS, event)


# ----------------------------------------------------------------------------- declarations
def test_header_tables_are_the_declared_layouts():
    assert G.LAYOUT.table() in G.__doc__
    assert G.OBS.table() in G.__doc__
    assert G.STATE_SIZE == G.LAYOUT.size == 1071
    assert G.OBS_SIZE == G.OBS.size
    # the slots the bots and replayers import stay where they were
    assert (G.TURN, G.WINDOW, G.CHIPS, G.STATS, G.HAND, G.DISC, G.DRAW) == (4, 8, 75, 87, 129, 231, 951)
    assert G.STATS + G.ST_STEAL_CHIP * G.MAX_PLAYERS == G.STAT_STEAL_CHIP


def test_column_docs_explain_every_column():
    docs = dict(G.INFO.column_docs)
    names = G.INFO.result_columns(4)
    for name in names:
        pattern = name.rsplit("_", 1)[0] + "_S" if name[-1].isdigit() else name
        assert pattern in docs and docs[pattern], name
    assert "skip" in docs["turns"]  # turns lost to skips are not counted
    assert "block" in docs["blocked_S"] and "block" in docs["blocks_S"]
    assert "completed stack" in docs["reshuffles"]
    assert [c.name for c in COMMON_COLUMNS] == [n.rsplit("_", 1)[0] for n in
                                                 ("score_S", "win_S", "truncated", "turns")]


def test_summarize_on_a_hand_built_end():
    st, p = make_state(players=3, chips={0: (1, 2), 1: (3, 0), 2: (0, 4)})
    st[G.OVER] = 1
    st[G.WINNER] = 2
    st[G.TURNS] = 17
    st[G.RESHUFFLES] = 2
    st[G.STATS + G.ST_BLOCKED * G.MAX_PLAYERS + 1] = 3
    st[G.STATS + G.ST_BLOCKS * G.MAX_PLAYERS + 2] = 5
    st[G.STATS + G.ST_STEAL_CHIP * G.MAX_PLAYERS + 0] = 4
    row = np.full(len(G.INFO.result_columns(3)), -99, np.int64)
    G.summarize(st, p, 3, row)
    got = dict(zip(G.INFO.result_columns(3), row.tolist()))
    assert [got[f"score_{s}"] for s in range(3)] == [3, 3, 4]
    assert [got[f"win_{s}"] for s in range(3)] == [0, 0, 1]
    assert [got[f"red_{s}"] for s in range(3)] == [1, 3, 0]
    assert [got[f"blue_{s}"] for s in range(3)] == [2, 0, 4]
    assert got["turns"] == 17 and got["truncated"] == 0 and got["reshuffles"] == 2
    assert got["blocked_1"] == 3 and got["blocks_2"] == 5 and got["steal_chip_0"] == 4
    assert -99 not in row


# ----------------------------------------------------------------------------- returns
def test_returns_win_truncation_and_before_the_end():
    st, p = make_state(players=4)
    out = np.full(4, 9.0)
    G.returns(st, p, 4, out)
    assert out.tolist() == [0.0] * 4
    st[G.OVER] = 1
    st[G.WINNER] = 2
    G.returns(st, p, 4, out)
    assert out.tolist() == [0.0, 0.0, 1.0, 0.0]
    st[G.WINNER] = -1
    st[G.TRUNCATED] = 1
    G.returns(st, p, 4, out)
    assert out.tolist() == [0.25] * 4


def test_returns_of_played_games_sum_to_one():
    for seed in range(3):
        st, p = run_random_game(2, seed, {"chips_to_win": 2, "min_each_colour": 1})
        out = np.zeros(2)
        G.returns(st, p, 2, out)
        assert out.sum() == pytest.approx(1.0)
        assert out[int(st[G.WINNER])] == 1.0 if st[G.WINNER] >= 0 else out.tolist() == [0.5, 0.5]


# ----------------------------------------------------------------------------- observation
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st_.integers(2, 6), seed=st_.integers(0, 2**31))
def test_observation_is_the_same_for_every_determinization(players, seed):
    """Only what the seat may know: a determinized state (other hands and the draw pile
    resampled) gives the seat exactly the same vector, at many positions of a game."""
    rng = np.array([seed + 1], np.int64)
    size = G.INFO.observation_size(players)
    checked = [0]

    def check(before, action, st, p):
        if G.is_terminal(st) or int(st[G.TURNS]) % 7 != 0:
            return
        for seat in (G.current_player(st), int(st[G.TURN] + 1) % players):
            view = np.zeros(G.STATE_SIZE, np.int64)
            G.observe(st, seat, view)
            a = np.full(size, np.nan)
            G.observation(view, p, seat, a)
            det = np.zeros(G.STATE_SIZE, np.int64)
            G.determinize(view, p, seat, rng, 0, det)
            b = np.full(size, np.nan)
            G.observation(det, p, seat, b)
            assert a.shape == (G.OBS_SIZE,) and np.isfinite(a).all()
            assert np.array_equal(a, b)
            assert a.min() >= 0.0
            checked[0] += 1

    run_random_game(players, seed, {"round_cap": 12}, check)
    assert checked[0] > 0


def test_observation_changes_with_what_the_seat_sees():
    hands = {0: ["r1", "r1", "block"], 1: ["b2", "b3"], 2: ["skip"]}
    st, p = make_state(players=3, hands=hands, piles={"red.0": ["r1", "rw"]},
                       discards={1: ["r4", "b5"]}, chips={1: (1, 0)})
    base = obs_of(st, p, 0)
    # another seat's hidden hand changes (same size): seat 0 sees nothing new
    other = st.copy()
    other[G.HAND + 1 * G.NCARD + C["b2"]] -= 1
    other[G.HAND + 1 * G.NCARD + C["steal-chip"]] += 1
    assert np.array_equal(obs_of(other, p, 0), base)
    assert not np.array_equal(obs_of(other, p, 1), obs_of(st, p, 1))

    def changed(edit):
        s2 = st.copy()
        edit(s2)
        return not np.array_equal(obs_of(s2, p, 0), base)

    assert changed(lambda s: s.__setitem__(G.HAND + C["r1"], 1))                    # own hand
    assert changed(lambda s: s.__setitem__(G.DISC + G.DISC_CAP + 1, C["b4"]))      # a discard top
    assert changed(lambda s: s.__setitem__(G.CHIPS + 2 * 2 + 1, 1))                # chips
    assert changed(lambda s: s.__setitem__(G.PILE_WILD + slot("red.0"), 0))        # wild position
    assert changed(lambda s: s.__setitem__(G.PILE_TOP + slot("blue.1"), 1))        # a pile
    assert changed(lambda s: s.__setitem__(G.DIR, -1))                              # direction
    assert changed(lambda s: s.__setitem__(G.SKIPS + 1, 1))                         # a skip owed
    assert changed(lambda s: s.__setitem__(G.HAND_N + 2, 4))                        # a hand size
    # seats are relative: seat 1 sees seat 1's chips in the first chip row
    o1 = obs_of(st, p, 1)
    assert o1[G.O_CHIPS] == pytest.approx(1 / 5) and base[G.O_CHIPS + 2] == pytest.approx(1 / 5)
    assert base[G.O_PHASE] == 1.0 and o1[G.O_PHASE + 2] == 1.0
    assert base[G.O_PILE_TOP + slot("red.0") * 6 + 2] == 1.0
    assert base[G.O_PILE_WILD + slot("red.0") * 5 + 1] == 1.0
    assert base[G.O_DISC_TOP + 1 * G.NCARD + C["b5"]] == 1.0
    assert base[G.O_DISC_NEXT + 1 * G.NCARD + C["r4"]] == 1.0
    assert base[G.O_HAND + C["r1"]] == pytest.approx(2 / 9)


def test_observation_in_the_block_window():
    hands = {0: ["r5", "b1"], 1: ["block"], 2: ["block"]}
    st, p = make_state(players=3, hands=hands, piles={"red.1": ["r1", "r2", "r3", "r4"]})
    G.apply(st, p, play_action("r5", "red.1"))
    o = obs_of(st, p, 1)
    assert o[G.O_PHASE + 1] == 1.0 and o[G.O_ASKED] == 1.0          # seat 1 is asked
    assert o[G.O_WINDOW_PILE + slot("red.1")] == 1.0 and o[G.O_TURN + 2] == 1.0
    o2 = obs_of(st, p, 2)
    assert o2[G.O_PHASE + 2] == 1.0 and o2[G.O_ASKED + 2] == 1.0


# ----------------------------------------------------------------------------- render
def test_render_a_hand_built_block_window():
    hands = {0: ["r1", "r1", "b3", "block"], 1: ["r5", "steal-chip"], 2: ["block", "b2", "b2"]}
    st, p = make_state(players=3, hands=hands, piles={"red.0": ["r1", "rw", "r3", "r4"],
                                                      "blue.1": ["b1"]},
                       discards={0: ["b4"], 2: ["r2", "skip"]}, chips={0: (2, 1), 2: (0, 3)},
                       supply=(18, 16), turn=1, direction=-1, draw=["r1"] * 9)
    st[G.SKIPS + 2] = 1
    G.apply(st, p, play_action("r5", "red.0"))  # seat 1 completes red.0; seat 0 is asked first
    view = np.zeros(G.STATE_SIZE, np.int64)
    G.observe(st, 0, view)
    text = G.render(view, 0, p, 3)
    assert "seat 1 is on turn" in text and "anticlockwise (1 -> 0 -> 2)" in text
    assert "Block window: seat 1 completed red.0; seat 0 (you) is asked" in text
    assert "red.0: top 5 (r1 rw=2 r3 r4 r5)" in text and "blue.1: top 1 (b1)" in text
    assert "red.1: empty" in text and "blue.0: empty" in text
    assert "5 to win, at least 2 red and 2 blue; supply 18 red, 16 blue" in text
    assert "seat 0 (you): 2 red + 1 blue (needs 2 more); hand (4): r1 x2, b3, block" in text
    assert "seat 1: 0 red + 0 blue (needs 5 more); hand: 1 card (hidden); discard pile empty" in text
    assert "seat 2: 0 red + 3 blue (needs 2 more); hand: 3 cards (hidden); discard pile 2, top skip" in text
    assert "skips pending: loses 1 turn" in text and "discard pile 1, top b4" in text
    assert "steal-chip" not in text  # seat 1's hidden card
    assert "Draw pile 9 cards" in text
    # seat 2 sees its own hand, not seat 0's
    G.observe(st, 2, view)
    text2 = G.render(view, 2, p, 3)
    assert "hand (3): b2 x2, block" in text2 and "seat 0: 2 red + 1 blue (needs 2 more); hand: 4 cards" in text2
    assert "seat 0 is asked" in text2


def test_render_game_over():
    st, p = run_random_game(2, 4, {"chips_to_win": 1, "min_each_colour": 0})
    view = np.zeros(G.STATE_SIZE, np.int64)
    G.observe(st, 1, view)
    assert f"seat {int(st[G.WINNER])}" in G.render(view, 1, p, 2).splitlines()[1]
    assert "Game over" in G.render(view, 1, p, 2)


# ----------------------------------------------------------------------------- show
@pytest.mark.parametrize("players, seed, variant", [
    (2, 1, {"chips_to_win": 3, "min_each_colour": 1}),
    (4, 2, {"round_cap": 60}),
    (6, 3, {"round_cap": 40, "chip_supply": 1}),
])
def test_every_trace_event_parses_and_every_step_is_described(players, seed, variant):
    kinds = set()
    said = []

    def check(before, action, after, p):
        for e in G.trace_step(before, action, after, p, players):
            f = parse(e)
            kinds.add(e.split(" ", 1)[0])
            assert all(isinstance(f[k], int) for k in ("seat", "victim", "number") if k in f)
        lines = G.describe_step(before, action, after, p, players)
        assert isinstance(lines, list) and all(isinstance(x, str) and x for x in lines)
        said.extend(lines)

    p = params(**variant)
    st = np.zeros(G.STATE_SIZE, np.int64)
    G.init(st, p, players, seed)
    for e in G.trace_start(st, p, players):
        parse(e)
        kinds.add(e.split(" ", 1)[0])
    run_random_game(players, seed, variant, check)
    assert {"hand", "deck", "turn", "draw", "play", "discard"} <= kinds <= set(G.EVENT_FIELDS)
    assert any(x.startswith("piles: ") for x in said)


def test_event_fields_name_the_tokens():
    assert parse("play 0 rw hand red.1 4") == {"event": "play", "seat": 0, "card": "rw", "source": "hand",
                                               "pile": "red.1", "number": 4}
    assert parse("draw 2 b1 skip")["cards"] == ["b1", "skip"]
    assert parse("steal-chip 1 discard 3 blue") == {"event": "steal-chip", "seat": 1, "source": "discard", "victim": 3,
                                                    "colour": "blue"}
    with pytest.raises(ValueError):
        parse("chip 0")


def test_describe_a_completion_a_block_and_a_chip():
    hands = {0: ["r5", "b5"], 1: ["block"], 2: []}
    st, p = make_state(players=3, hands=hands, piles={"red.0": ["r1", "r2", "r3", "r4"],
                                                      "blue.0": ["b1", "b2", "b3", "bw"]},
                       chips={0: (1, 1)}, draw=["r1"] * 10)
    before = st.copy()
    G.apply(st, p, play_action("r5", "red.0"))
    lines = G.describe_step(before, play_action("r5", "red.0"), st, p, 3)
    assert lines[:2] == ["seat 0 plays r5 from hand on red.0 as 5", "seat 0 completes red.0"]
    assert "block window on red.0: seat 1 is asked whether to block" in lines
    before = st.copy()
    G.apply(st, p, G.A_BLOCK)
    lines = G.describe_step(before, G.A_BLOCK, st, p, 3)
    assert lines[0] == ("seat 1 blocks seat 0's completion of red.0: no chip, the pile goes to "
                        "the completed stack")
    assert "piles: red.0 -, red.1 -, blue.0 4, blue.1 -" in lines
    before = st.copy()
    G.apply(st, p, play_action("b5", "blue.0"))  # nobody holds a block now: chip at once
    lines = G.describe_step(before, play_action("b5", "blue.0"), st, p, 3)
    assert "seat 0 takes a blue chip for blue.0" in lines
    assert "chips: seat 0 1 red + 2 blue, seat 1 0 red + 0 blue, seat 2 0 red + 0 blue" in lines
    assert lines[-1].startswith("seat 0 draws 5 cards") or "piles: " in lines[-2]


def test_describe_a_win_and_a_pass_with_no_chip_left():
    st, p = make_state(players=2, hands={0: ["r5", "r1"], 1: ["block"]},
                       piles={"red.0": ["r1", "r2", "r3", "r4"]}, chips={0: (2, 2)})
    G.apply(st, p, play_action("r5", "red.0"))
    mid = st.copy()
    G.apply(st, p, G.A_PASS)
    lines = G.describe_step(mid, G.A_PASS, st, p, 2)
    assert lines[0] == "seat 1 does not block" and lines[-1] == "seat 0 wins with 3 red and 2 blue chips"
    assert "chips: seat 0 3 red + 2 blue, seat 1 0 red + 0 blue" in lines
    st, p = make_state(players=2, hands={0: ["r5", "r1"], 1: ["block"]},
                       piles={"red.0": ["r1", "r2", "r3", "r4"]}, supply=(0, 5))
    G.apply(st, p, play_action("r5", "red.0"))
    mid = st.copy()
    G.apply(st, p, G.A_PASS)
    lines = G.describe_step(mid, G.A_PASS, st, p, 2)
    assert "no chip for red.0: the red supply is empty" in lines
