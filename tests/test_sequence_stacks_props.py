"""Sequence Stacks: invariants over many seeded games (hypothesis), engine-written traces
replayed by the independent replayer, the shared sample traces, reproducibility."""
from __future__ import annotations

import copy
import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

import simcore.games.sequence_stacks as G
from simcore.games.sequence_stacks.rules import _count_in_turn, _count_top
import runtime.runner as R
from simcore.replay import ReplayError, replay
from simcore.rng import below, stream_key
from simcore.trace import build_trace

from shared_paths import EXAMPLES

SAMPLES = EXAMPLES / "sequence-stacks.jsonl"


def deck(players):
    return np.array(G.DECK_TWO if players == 2 else G.DECK_FULL, np.int64)


BITS = 1 << np.arange(G.NCARD, dtype=np.int64)


def card_census(st, players):
    """Count of every card type over all the places a card can be."""
    hands = st[G.HAND:G.HAND + players * G.NCARD].reshape(players, G.NCARD)
    total = hands.sum(axis=0)
    for s in range(players):
        lo = G.DISC + s * G.DISC_CAP
        total = total + np.bincount(st[lo:lo + st[G.DISC_N + s]], minlength=G.NCARD)
    for sl in range(2 * G.MAX_PILES):
        base = (sl // G.MAX_PILES) * 6
        for i in range(st[G.PILE_TOP + sl]):
            total[base + (5 if (st[G.PILE_WILD + sl] >> i) & 1 else i)] += 1
    total[:G.NUMBER_TYPES] += st[G.COMPLETED:G.COMPLETED + G.NUMBER_TYPES]
    total[G.SKIP_CARD:] += st[G.SPECIAL:G.SPECIAL + 5]
    total += np.bincount(st[G.DRAW + st[G.DRAW_POS]:G.DRAW + st[G.DRAW_LEN]], minlength=G.NCARD)
    return total


def check_invariants(st, p, players, out):
    variant_supply = p[G.P_SUPPLY]
    assert np.array_equal(card_census(st, players), deck(players))
    assert st[G.COMPLETED_N] == st[G.COMPLETED:G.COMPLETED + 12].sum()
    for col in range(2):
        chips = sum(int(st[G.CHIPS + 2 * s + col]) for s in range(players))
        assert chips + st[G.SUPPLY + col] == variant_supply
        assert st[G.SUPPLY + col] >= 0
    hands = st[G.HAND:G.HAND + players * G.NCARD].reshape(players, G.NCARD)
    assert (hands >= 0).all()
    assert np.array_equal(hands.sum(axis=1), st[G.HAND_N:G.HAND_N + players])
    assert np.array_equal((hands > 0) @ BITS, st[G.HAND_MASK:G.HAND_MASK + players])
    assert (st[G.CHIPS:G.CHIPS + 2 * players] >= 0).all()
    for col in range(2):
        for k in range(p[G.P_PILES], G.MAX_PILES):
            assert st[G.PILE_TOP + col * G.MAX_PILES + k] == 0
    n = G.legal_actions(st, p, out)
    acts = out[:n]
    cur = G.current_player(st)
    if G.is_terminal(st):
        assert cur == -1 and n == 0
        return
    # exactly one seat decides: the turn seat, or the one opponent asked to block
    assert 0 <= cur < players and n >= 1
    assert (np.diff(acts) > 0).all()
    if st[G.WINDOW] >= 0:
        assert cur == st[G.WINDOW] != st[G.TURN]
        assert st[G.HAND + cur * G.NCARD + G.BLOCK_CARD] > 0
        assert list(acts) == [G.A_BLOCK, G.A_PASS]
        assert st[G.PILE_TOP + st[G.WINDOW_SLOT]] == 5
    else:
        assert cur == st[G.TURN]
        assert ((acts < G.A_BLOCK)).all()
        assert (st[G.PILE_TOP:G.PILE_TOP + 2 * G.MAX_PILES] < 5).all()
        ends = acts[acts >= G.A_DISCARD]
        assert len(ends) >= 1  # the turn can always end
        if st[G.HAND_N + cur] == 0:
            assert list(ends) == [G.A_END]


VARIANTS = st_.fixed_dictionaries({
    "refill_each_turn": st_.booleans(),
    "hand_size": st_.integers(1, G.HAND_SIZE_MAX),
    "piles_per_colour": st_.integers(1, G.MAX_PILES),
    "chips_to_win": st_.integers(1, 8),
    "min_each_colour": st_.integers(0, 3),
    "chip_supply": st_.integers(0, 12),
    "round_cap": st_.integers(1, 40),
})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st_.integers(2, 6), seed=st_.integers(0, 2**31), variant=VARIANTS)
def test_invariants_over_random_games(players, seed, variant):
    p = G.INFO.make_params(G.INFO.resolve_variant(variant))
    st = np.zeros(G.STATE_SIZE, np.int64)
    out = np.zeros(G.NUM_ACTIONS, np.int64)
    G.init(st, p, players, stream_key(seed, 0, 0))
    rng = np.array([stream_key(seed, 0, s + 1) for s in range(players)], np.int64)
    twin = rng.copy()
    decisions = 0
    while not G.is_terminal(st):
        check_invariants(st, p, players, out)
        cur = G.current_player(st)
        a = G.random_action(st, p, rng, cur)
        n = G.legal_actions(st, p, out)
        # the fast path picks exactly legal[below(n)] with the same stream
        assert a == out[below(twin, cur, n)]
        G.apply(st, p, a)
        decisions += 1
        assert decisions <= G.INFO.max_decisions(players)
    check_invariants(st, p, players, out)
    cap = variant["round_cap"] * players
    assert st[G.TURNS] <= cap
    if st[G.TRUNCATED]:
        assert st[G.WINNER] == -1 and st[G.TURNS] == cap
    else:
        w = st[G.WINNER]
        r, b = st[G.CHIPS + 2 * w], st[G.CHIPS + 2 * w + 1]
        assert r + b >= variant["chips_to_win"]
        assert min(r, b) >= variant["min_each_colour"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st_.integers(2, 6), seed=st_.integers(0, 2**31), variant=VARIANTS,
       start=st_.integers(0, 400))
def test_random_run_leaves_the_state_stepping_leaves(players, seed, variant, start):
    """From a position ``start`` random decisions into a game, ``random_run`` ends in the
    very state (every slot) and bot streams that stepping ``random_action`` + ``apply``
    reaches, after as many decisions; on the way (outside block windows, where neither is
    used), an empty hand's top-only count is the full count with no hand."""
    p = G.INFO.make_params(G.INFO.resolve_variant(variant))
    st = np.zeros(G.STATE_SIZE, np.int64)
    G.init(st, p, players, stream_key(seed, 0, 0))
    rng = np.array([stream_key(seed, 0, s + 1) for s in range(players)], np.int64)
    for _ in range(start):
        if G.is_terminal(st):
            break
        G.apply(st, p, G.random_action(st, p, rng, G.current_player(st)))
    fast, fast_rng = st.copy(), rng.copy()
    n_fast = G.random_run(fast, p, fast_rng)
    n = 0
    while not G.is_terminal(st):
        for s in range(players if st[G.WINDOW] < 0 else 0):  # (a window's full pile counts twice)
            assert _count_top(st, p, s, G.discard_top(st, s)) == _count_in_turn(st, p, s, 0)
        G.apply(st, p, G.random_action(st, p, rng, G.current_player(st)))
        n += 1
    assert n_fast == n
    assert np.array_equal(fast, st)
    assert np.array_equal(fast_rng, rng)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_batch_rows_are_consistent(players):
    R.set_threads(1)
    config = R.RunConfig.build("sequence-stacks", players, "random", {"round_cap": 60}, 5)
    rows = R.Batch(config).run(0, 200)
    df = R.to_frame(config, rows)
    seats = range(players)
    for s in seats:
        assert (df[f"score_{s}"] == df[f"red_{s}"] + df[f"blue_{s}"]).all()
        assert (df[f"completed_{s}"] >= 0).all()
    wins = df[[f"win_{s}" for s in seats]].sum(axis=1)
    assert ((wins == 1) != df["truncated"]).all()
    assert (df.loc[df["truncated"], "turns"] == 60 * players).all()
    assert (df["turns"] <= 60 * players).all()
    assert df["decisions"].min() > 0
    # blocks played equal completions blocked; chips never exceed completions + steals
    assert df[[f"blocks_{s}" for s in seats]].sum(axis=1).equals(
        df[[f"blocked_{s}" for s in seats]].sum(axis=1))
    if players == 2:
        assert df[[f"reverse_{s}" for s in seats]].to_numpy().sum() == 0
    # over 200 games every action kind occurs
    for kind in ("blocks", "skip", "steal_card", "steal_chip") + (() if players == 2 else ("reverse",)):
        assert df[[f"{kind}_{s}" for s in seats]].to_numpy().sum() > 0, kind
    assert df["reshuffles"].sum() > 0


def test_truncation_with_default_cap_and_random_bots():
    R.set_threads(1)
    config = R.RunConfig.build("sequence-stacks", 4, "random", {}, 3)
    df = R.to_frame(config, R.Batch(config).run(0, 300))
    trunc = df["truncated"]
    # random players often stall (every card ends up under other discards): the cap works
    assert 0 < trunc.mean() < 1
    assert (df.loc[trunc, "turns"] == 500 * 4).all()
    assert (df.loc[~trunc, "turns"] < 500 * 4).all()


# ----------------------------------------------------------------------------- traces
TRACE_CASES = [
    (2, {}), (3, {}), (4, {}), (5, {}), (6, {}),
    (3, {"refill_each_turn": False, "hand_size": 3}),
    (4, {"piles_per_colour": 1, "chip_supply": 3, "round_cap": 40}),
    (5, {"piles_per_colour": 4, "hand_size": 8, "chips_to_win": 3, "min_each_colour": 0}),
    (6, {"round_cap": 5}),
]


@pytest.mark.parametrize("players,variant", TRACE_CASES)
def test_engine_traces_replay_to_the_same_result(players, variant):
    R.set_threads(1)
    config = R.RunConfig.build("sequence-stacks", players, "random", variant, 2026)
    batch = R.Batch(config)
    rows = batch.run(0, 12)
    kinds = Counter()
    for i in range(12):
        trace = build_trace(batch, i)
        assert trace["game"] == "sequence-stacks" and trace["variant"] == config.variant
        json.loads(json.dumps(trace))
        got = replay(trace)
        assert got == trace["result"]
        vals = dict(zip(config.columns(), rows[i].tolist()))
        assert got["scores"] == [vals[f"score_{s}"] for s in range(players)]
        assert got["truncated"] == bool(vals["truncated"])
        kinds.update(e.split()[0] for e in trace["log"])
        turns = sum(1 for e in trace["log"] if e.startswith("turn "))
        assert turns == vals["turns"]
    assert kinds["complete"] > 0 and kinds["turn"] > 0


def test_shared_sample_traces_replay():
    lines = [ln for ln in SAMPLES.read_text().splitlines() if ln.strip()]
    assert len(lines) >= 2
    for line in lines:
        trace = json.loads(line)
        assert replay(trace) == trace["result"]


def _a_trace(players=3, seed=4, **variant):
    config = R.RunConfig.build("sequence-stacks", players, "random", variant, seed)
    batch = R.Batch(config)
    for i in range(50):
        t = build_trace(batch, i)
        kinds = {e.split()[0] for e in t["log"]}
        if {"complete", "reshuffle", "skip", "steal-card"} <= kinds and not t["result"]["truncated"]:
            return t
    raise AssertionError("no suitable trace found")


@pytest.fixture(scope="module")
def good_trace():
    return _a_trace()


def _tampered(trace, fn):
    t = copy.deepcopy(trace)
    fn(t["log"])
    return t


def _index(log, prefix, nth=0):
    hits = [i for i, e in enumerate(log) if e.startswith(prefix)]
    return hits[nth]


def test_replay_rejects_inconsistent_events(good_trace):
    t = good_trace
    assert replay(t) == t["result"]

    def swap_card(log):  # a play of a card the player does not hold
        i = _index(log, "play ")
        tok = log[i].split()
        tok[2] = "b5" if tok[2] != "b5" else "r5"
        log[i] = " ".join(tok)

    def drop_draw(log):
        del log[_index(log, "draw ")]

    def wrong_chip(log):
        i = _index(log, "chip ")
        log[i] = log[i].replace("red", "X").replace("blue", "red").replace("X", "blue")

    def skip_turn(log):
        i = _index(log, "turn ", 2)
        tok = log[i].split()
        tok[1] = str((int(tok[1]) + 1) % 3)
        log[i] = " ".join(tok)

    def extra_event(log):
        log.append("turn 0")

    def bad_reshuffle(log):
        i = _index(log, "reshuffle ")
        tok = log[i].split()
        tok[1] = "skip"
        log[i] = " ".join(tok)

    def truncate_log(log):
        del log[len(log) // 2:]

    def fake_block(log):
        i = _index(log, "complete ")
        seat = int(log[i].split()[1])
        log.insert(i + 1, f"block {seat}")

    def drop_discard(log):
        del log[_index(log, "discard ", 3)]

    for fn in (swap_card, drop_draw, wrong_chip, skip_turn, extra_event, bad_reshuffle,
               truncate_log, fake_block, drop_discard):
        with pytest.raises(ReplayError):
            replay(_tampered(t, fn))
    with pytest.raises(ReplayError):
        replay({**t, "variant": {**t["variant"], "no_such_option": 1}})
    with pytest.raises(ReplayError):
        replay({**t, "players": 3, "log": t["log"][1:]})


def test_replay_computes_its_own_result(good_trace):
    t = copy.deepcopy(good_trace)
    t["result"] = {"scores": [9, 9, 9], "winners": [2], "truncated": True}
    got = replay(t)
    assert got == good_trace["result"] != t["result"]


def _handmade_trace(players, hands, deck_top, events, **variant):
    """A trace from hand-chosen hands, the top of the deck (the rest of the deck below it
    in card order) and events."""
    pool = Counter({G.CARD_NAMES[c]: k for c, k in enumerate(G.DECK_TWO if players == 2 else G.DECK_FULL)})
    for h in hands:
        pool.subtract(h)
    pool.subtract(deck_top)
    assert min(pool.values()) >= 0
    log = [f"hand {s} " + " ".join(h) for s, h in enumerate(hands)]
    log.append("deck " + " ".join(list(deck_top) + sorted(pool.elements())))
    return {"trace": 1, "game": "sequence-stacks", "players": players, "seed": 0, "index": 0,
            "variant": dict(G.INFO.resolve_variant(variant)), "bots": ["random"] * players,
            "log": log + events, "result": {}}


def test_replay_rejects_a_winning_steal_chip():
    hands = [["r1", "r2", "r3", "r4", "r5"], ["b1", "b2", "b3", "b4", "b5"]]
    top = ["r1"] * 5 + ["steal-chip", "b1", "b1", "b1", "b1"]
    events = ["turn 0"] + [f"play 0 r{n} hand red.0 {n}" for n in range(1, 6)] + [
        "complete 0 red.0", "chip 0 red", "draw 0 r1 r1 r1 r1 r1", "discard 0 r1", "turn 1"] + [
        f"play 1 b{n} hand blue.0 {n}" for n in range(1, 6)] + [
        "complete 1 blue.0", "chip 1 blue", "draw 1 steal-chip b1 b1 b1 b1"]
    steal = ["steal-chip 1 hand 0 red"]
    # with 2 chips to win (any colours) the stolen chip would be seat 1's second: illegal
    with pytest.raises(ReplayError, match="may not give the stealer the win"):
        replay(_handmade_trace(2, hands, top, events + steal, chips_to_win=2, min_each_colour=0))
    # with 3 chips to win the same steal is legal (the log then ends mid-game)
    t = _handmade_trace(2, hands, top, events + steal, chips_to_win=3, min_each_colour=0)
    with pytest.raises(ReplayError, match="log ends before the game does"):
        replay(t)


# ----------------------------------------------------------------------------- reproducibility
def test_games_are_identical_across_batches_offsets_and_threads():
    config = R.RunConfig.build("sequence-stacks", 4, "random", {"round_cap": 80}, 77)
    batch = R.Batch(config)
    R.set_threads(1)
    whole = batch.run(0, 64)
    part = batch.run(21, 30)
    assert np.array_equal(whole[21:51], part)
    single = batch.run(40, 1)
    assert np.array_equal(whole[40:41], single)
    import numba
    R.set_threads(2)
    try:
        if numba.config.NUMBA_NUM_THREADS >= 2:
            assert numba.get_num_threads() == 2
        two = batch.run(0, 64)
    finally:
        R.set_threads(1)
    assert np.array_equal(whole, two)
    actions, row = batch.record(40)
    assert np.array_equal(row, whole[40]) and len(actions) == whole[40, 1]
    other = R.Batch(R.RunConfig.build("sequence-stacks", 4, "random", {"round_cap": 80}, 78)).run(0, 64)
    assert not np.array_equal(whole[:, 2:], other[:, 2:])
