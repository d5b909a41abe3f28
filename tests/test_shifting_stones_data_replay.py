"""Shifting Stones: the deck file and its validation, traces replayed by the independent
replayer, reproducibility of batches, and the runner's handling of bad input."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from simcore.games import shifting_stones as g
from simcore.games.shifting_stones_deck import PACKAGED_DECK, load_deck
from simcore.options import OptionError
from simcore.replay import ReplayError, replay
from runtime.runner import Batch, RunConfig, set_threads
from simcore.trace import build_trace, result_of


from shared_paths import EXAMPLES, SHARED

SAMPLES = EXAMPLES / "shifting-stones.jsonl"
RAW = json.loads(PACKAGED_DECK.read_text())


# ---- the deck --------------------------------------------------------------------------------
def test_packaged_deck_is_the_shared_deck_and_valid():
    # the package's copy of the shared data must not drift
    shared = SHARED / "data" / "shifting_stones_cards.json"
    assert json.loads(shared.read_text()) == RAW
    deck = load_deck()
    assert [c.id for c in deck] == list(range(1, 73))
    assert sorted(c.points for c in deck) == [1] * 28 + [2] * 26 + [3] * 13 + [5] * 5


def write_deck(tmp_path, mutate, name="deck.json"):
    data = copy.deepcopy(RAW)
    mutate(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def card(data, cid):
    return next(c for c in data["cards"] if c["id"] == cid)


def set_rows(cid, rows):
    def mutate(data):
        card(data, cid)["rows"] = rows
    return mutate


BROKEN = {
    "missing card": (lambda d: d["cards"].pop(), "has 71 cards"),
    "extra card": (lambda d: d["cards"].append({"id": 73, "points": 1, "rows": ["S*"]}), "outside 1..72"),
    "duplicate id": (lambda d: card(d, 2).update(id=1), "appears more than once"),
    "id not an integer": (lambda d: card(d, 2).update(id="2"), "non-integer id"),
    "bad points": (lambda d: card(d, 2).update(points=4), "points must be 1, 2, 3 or 5"),
    "wrong counts": (lambda d: card(d, 2).update(points=2), "point values are 27x1, 27x2"),
    "missing rows": (lambda d: card(d, 2).pop("rows"), "has no 'rows'"),
    "not rectangular": (set_rows(2, ["F*", "*"]), "not rectangular"),
    "four rows": (set_rows(2, ["F", "*", "*", "*"]), "4 rows"),
    "four wide": (set_rows(2, ["F***"]), "4 wide"),
    "empty rows": (set_rows(2, []), "non-empty list"),
    "unknown face": (set_rows(2, ["FX"]), "unknown face 'X'"),
    "lower case": (set_rows(2, ["f*"]), "unknown face 'f'"),
    "no stone": (set_rows(2, ["**"]), "has no stone"),
    "two suns": (set_rows(2, ["S*M"]), "needs 2 S/M stones but there is only 1 S/M tile"),
    "three fish": (set_rows(2, ["FBF"]), "needs 3 F/B stones but there are only 2 F/B tiles"),
    "four horses": (set_rows(2, ["HO", "OH"]), "needs 4 H/O stones but there are only 3"),
    "four seeds": (set_rows(2, ["ET", "TE"]), "needs 4 E/T stones but there are only 3"),
    "same layout": (set_rows(2, ["***", "*B*", "***"]), "same layout"),
    "no card list": (lambda d: d.pop("cards"), "'cards' list"),
    "card not an object": (lambda d: d["cards"].__setitem__(0, [1, 1]), "not an object"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_broken_deck_files_are_rejected_with_one_clear_message(tmp_path, kind):
    mutate, words = BROKEN[kind]
    path = write_deck(tmp_path, mutate)
    with pytest.raises(OptionError) as err:
        load_deck(path)
    msg = str(err.value)
    assert words in msg and "\n" not in msg and msg.startswith(f"deck file {path}")
    with pytest.raises(OptionError):  # the runner reports the same error
        RunConfig.build("shifting-stones", 2, "random", {"deck": path}, 0).params()


def test_unreadable_deck_files(tmp_path):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"cards": [')
    for path, words in [(bad_json, "not valid JSON"), (tmp_path / "missing.json", "cannot read"),
                        (tmp_path, "cannot read")]:
        with pytest.raises(OptionError, match=words):
            load_deck(str(path))
    with pytest.raises(OptionError):
        g.INFO.resolve_variant({"deck": ""})


def test_a_corrected_deck_file_changes_the_game(tmp_path):
    # card 2 becomes "sun in the centre" instead of "fish in the centre"
    path = write_deck(tmp_path, set_rows(2, ["***", "*S*", "***"]))
    variant = g.INFO.resolve_variant({"deck": path})
    params = g.INFO.make_params(variant)
    assert g.card_matches(params, g.grid_code("FBHHSOETT"), 1)
    assert not g.card_matches(g.INFO.make_params(g.INFO.resolve_variant({})), g.grid_code("FBHHSOETT"), 1)
    batch = Batch(RunConfig.build("shifting-stones", 2, "random", {"deck": path}, 3))
    for i in range(3):
        trace = build_trace(batch, i)
        assert trace["variant"]["deck"] == path
        assert replay(trace) == trace["result"]


# ---- traces ------------------------------------------------------------------------------------
def test_shared_sample_traces_replay():
    lines = [json.loads(line) for line in SAMPLES.read_text().splitlines() if line.strip()]
    assert {t["players"] for t in lines} == {1, 2, 4}
    for t in lines:
        assert replay(t) == t["result"]


VARIANTS = [{}, {"hand_size": 2, "skip_draw": 4, "random_faces": False},
            {"end_trigger": 3, "bonus_if_no_ones": True, "bonus_points": 7, "round_cap": 30},
            {"hand_size": 7, "skip_is_strike": False, "solo_strikes": 2}]


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_engine_traces_replay_to_the_same_result(players):
    seen = set()
    for v, variant in enumerate(VARIANTS):
        batch = Batch(RunConfig.build("shifting-stones", players, "random", variant, 11 + v))
        for i in range(4 if players > 1 else 12):
            trace = build_trace(batch, i)
            result = replay(trace)
            assert result == trace["result"], (variant, i)
            seen.update(e.split()[0] for e in trace["log"])
    assert {"grid", "hand", "deck", "shift", "flip", "score", "end", "draw"} <= seen
    if players == 1:
        assert "strike" in seen
    assert json.loads(json.dumps(trace)) == trace


def test_traces_cover_skips_reshuffles_and_triggered_ends():
    events = set()
    batch = Batch(RunConfig.build("shifting-stones", 4, "random", {}, 5))
    for i in range(3):
        trace = build_trace(batch, i)
        assert replay(trace) == trace["result"] and not trace["result"]["truncated"]
        events.update(e.split()[0] for e in trace["log"])
    assert {"skip", "reshuffle"} <= events


def drive(players, variant, key, seed):
    """A trace written by the kernel's trace functions for a game played by a greedy
    Python policy (score whenever possible, else use a random card, end when empty)."""
    config = RunConfig.build("shifting-stones", players, "random", variant, 0)
    params = config.params()
    state = np.zeros(g.STATE_SIZE, dtype=np.int64)
    g.init(state, params, players, key)
    log = g.trace_start(state, params, players)
    out = np.zeros(g.NUM_ACTIONS, dtype=np.int64)
    pick = np.random.default_rng(seed)
    n = 0
    while not g.is_terminal(state):
        acts = list(out[:g.legal_actions(state, params, out)])
        scores = [a for a in acts if g.SCORE_BASE <= a < g.END]
        if scores:
            a = scores[0]
        elif acts[0] < g.END:
            a = int(pick.choice([a for a in acts if a < g.SCORE_BASE]))
        else:
            a = g.END
        before = state.copy()
        g.apply(state, params, a)
        log += g.trace_step(before, a, state, params, players)
        n += 1
    row = np.zeros(len(config.columns()), dtype=np.int64)
    row[1] = n
    g.summarize(state, params, players, row[2:])
    return {"trace": 1, "game": "shifting-stones", "players": players, "seed": 0, "index": key,
            "variant": dict(config.variant), "bots": ["greedy"] * players, "log": log,
            "result": result_of(config, row)}


def easy_deck(tmp_path):
    """A valid deck of one-stone patterns (1x1, 1x2, 2x1 and 2x2 footprints), easy to score."""
    layouts = []
    for face in "SMFBHOET":
        layouts.append([face])
        layouts += [[face + "*"], ["*" + face], [face, "*"], ["*", face]]
        layouts += [[face + "*", "**"], ["*" + face, "**"], ["**", face + "*"], ["**", "*" + face]]
    points = [1] * 28 + [2] * 26 + [3] * 13 + [5] * 5
    data = {"cards": [{"id": i + 1, "points": p, "rows": r} for i, (p, r) in enumerate(zip(points, layouts))]}
    path = tmp_path / "easy.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_greedy_traces_replay_including_solo_wins(tmp_path):
    deck = easy_deck(tmp_path)
    assert len(load_deck(deck)) == 72
    wins = 0
    for key in range(6):
        trace = drive(1, {"solo_strikes": 100, "deck": deck}, key, key)
        assert replay(trace) == trace["result"]
        wins += trace["result"]["win"]
        assert trace["result"]["cards"] == 16 or not trace["result"]["win"]
    assert wins >= 3
    for players in (2, 5):
        for variant in ({}, {"deck": deck}):
            trace = drive(players, variant, 3, 3)
            assert replay(trace) == trace["result"] and trace["result"]["winners"]


def sample(players):
    for line in SAMPLES.read_text().splitlines():
        t = json.loads(line)
        if t["players"] == players:
            return t
    raise AssertionError(players)


def tampered(t, index, new=None):
    t = copy.deepcopy(t)
    if new is None:
        del t["log"][index]
    else:
        t["log"][index] = new
    return t


def test_replayer_rejects_illegal_or_inconsistent_events():
    two = sample(2)
    log = two["log"]
    assert log[4] == "score 0 2" and log[16] == "shift 0 3 0 56"
    bad = [
        tampered(two, 0, "grid SSTOFHTHB"),  # two suns
        tampered(two, 4, "score 0 70"),  # card 70 does not match
        tampered(two, 4, "score 0 55"),  # not in hand
        tampered(two, 4, "score 1 2"),  # not on turn
        tampered(two, 16, "shift 0 4 0 56"),  # diagonal
        tampered(two, 6, "draw 0 35"),  # not the top of the pile
        tampered(two, 6),  # a missing draw
        tampered(two, 5, "skip 0"),  # a skip after an action
        tampered(two, 7, "end 1"),  # then seat 1's draw of 2 follows an end that owes nothing
        tampered(two, 20, "launch 0"),  # unknown event
        dict(two, log=log[:-5]),  # the log ends before the game does
        dict(two, log=log + ["end 0"]),  # an event after the end
        dict(two, variant={**two["variant"], "colour": True}),
    ]
    for t in bad:
        with pytest.raises(ReplayError):
            replay(t)
    solo = sample(1)
    assert solo["log"][4] == "strike 0"
    for t in (tampered(solo, 4), tampered(solo, 7, "end 0")):  # a strike missing; an end before it
        with pytest.raises(ReplayError):
            replay(t)
    with pytest.raises(ReplayError):
        replay(tampered(solo, 3, "skip 0 extra"))


def test_skip_twice_running_is_rejected():
    solo = sample(1)
    # skip, strike, draw, then a second skip
    t = copy.deepcopy(solo)
    t["log"][6] = "skip 0"
    with pytest.raises(ReplayError, match="skipped its previous turn"):
        replay(t)


# ---- reproducibility and the runner ----------------------------------------------------------------
@pytest.mark.parametrize("players", [1, 3])
def test_game_i_is_the_same_in_any_batch_and_thread_count(players):
    config = RunConfig.build("shifting-stones", players, "random", {}, 42)
    batch = Batch(config)
    try:
        set_threads(1)
        whole = batch.run(0, 48)
        part = batch.run(17, 9)
        set_threads(2)
        two = batch.run(0, 48)
    finally:
        set_threads(None)
    assert (whole[17:26] == part).all()
    assert (whole == two).all()
    actions, row = batch.record(20)
    assert (row == whole[20]).all() and len(actions) == row[1]
    assert len({tuple(r[1:]) for r in whole}) > 12  # games differ from each other


def test_runner_rejects_bad_input():
    with pytest.raises(ValueError, match="1-5 players"):
        RunConfig.build("shifting-stones", 6, "random", {}, 0)
    with pytest.raises(ValueError, match="1-5 players"):
        RunConfig.build("shifting-stones", 0, "random", {}, 0)
    for variant, words in [({"hand_size": 0}, "hand_size must be in 1..10"),
                           ({"round_cap": "many"}, "round_cap takes an integer"),
                           ({"random_faces": "maybe"}, "random_faces takes true or false"),
                           ({"colours": 3}, "unknown option 'colours'")]:
        with pytest.raises(OptionError, match=words):
            RunConfig.build("shifting-stones", 2, "random", variant, 0)


def test_random_games_finish_and_fill_the_result_columns():
    config = RunConfig.build("shifting-stones", 3, "random", {}, 8)
    rows = Batch(config).run(0, 64)
    cols = config.columns()
    r = {c: rows[:, i] for i, c in enumerate(cols)}
    assert (r["truncated"] == 0).all() and (r["decisions"] > 0).all()
    assert (r["win_0"] + r["win_1"] + r["win_2"] >= 1).all()
    assert (r["turns"] == 3 * r["rounds"]).all()
    assert (np.maximum(np.maximum(r["cards_0"], r["cards_1"]), r["cards_2"]) >= 9).all()
    for s in range(3):
        assert (r[f"score_{s}"] == r[f"points_{s}"] + 3 * r[f"bonus_{s}"]).all()
