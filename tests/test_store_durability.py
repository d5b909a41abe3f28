"""The results store cannot mix runs or lose games: data files by content, chunks checked
against their names, --games against a larger or smaller store, a missing manifest, which
setting differs, one writer at a time, and Ctrl-C / SIGTERM with an exact resume."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from playlab.cli import cli
from experiments.play import execute
from experiments.store import MANIFEST, ResultsError, StudyStore, file_digest, load_results
from experiments.study import Study
from runtime.runner import RunConfig

PLAYLAB = [sys.executable, "-m", "playlab.cli"]


def moon(seed=3, bots="random", **variant):
    return RunConfig.build("moon", 3, bots, variant, seed)


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return result


# ---- data files by content --------------------------------------------------------------------
def packaged_deck():
    from simcore.games.shifting_stones_deck import PACKAGED_DECK

    return json.loads(Path(PACKAGED_DECK).read_text())


def edited_deck(data):
    """A still valid deck with two cards' layouts exchanged (points stay with the ids)."""
    cards = data["cards"]
    a = next(c for c in cards if c["points"] == 1)
    b = next(c for c in cards if c["points"] == 5)
    a["rows"], b["rows"] = b["rows"], a["rows"]
    return data


def stones(deck_path):
    return RunConfig.build("shifting-stones", 2, "random", {"deck": str(deck_path)}, 1)


def test_an_edited_deck_file_at_the_same_path_is_a_different_study(tmp_path):
    deck = tmp_path / "deck.json"
    deck.write_text(json.dumps(packaged_deck()))
    out = tmp_path / "r"
    execute(stones(deck), 40, out=str(out), chunk=20)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["study"]["runs"][0]["variant"]["deck"].startswith("sha256:")
    deck.write_text(json.dumps(edited_deck(packaged_deck())))
    with pytest.raises(ResultsError, match=r"different study: variant deck=sha256:\w+ there, sha256:\w+ here"):
        execute(stones(deck), 40, out=str(out), chunk=20)


def test_the_same_deck_by_another_relative_path_resumes(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "deck.json").write_text(json.dumps(packaged_deck()))
    monkeypatch.chdir(tmp_path / "a")
    first = execute(stones("deck.json"), 40, out=str(tmp_path / "r"), chunk=20)
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "b")
    again = execute(stones("../a/deck.json"), 60, out=str(tmp_path / "r"), chunk=20)
    assert again.simulated == 20  # games 0-39 were reused
    assert (again.frame.drop(columns="deck").iloc[:40].reset_index(drop=True)
            .equals(first.frame.drop(columns="deck")))


# ---- chunks checked against their names ---------------------------------------------------------
def test_a_chunk_copied_over_another_is_refused_by_the_reader_and_recomputed(tmp_path):
    out = tmp_path / "r"
    whole = execute(moon(), 300, out=str(out), chunk=100).frame
    parts = sorted(out.glob("part-*.parquet"))
    parts[1].write_bytes(parts[0].read_bytes())  # games 0-99 now also under the name of 100-199
    with pytest.raises(ResultsError, match="part-0000-000000000100.parquet: its bytes do not match the checksum"):
        load_results(out)
    again = execute(moon(), 300, out=str(out), chunk=100)
    assert again.simulated == 100 and "part-0000-000000000100.parquet" in again.note
    pd.testing.assert_frame_equal(load_results(out), whole)


def test_a_chunk_of_another_configuration_is_recomputed(tmp_path):
    study = Study("test", [moon(), moon(bots="greedy")], games=50, seed=3, chunk=50)
    from experiments.study import execute_study

    out = tmp_path / "s"
    execute_study(study, store=str(out), progress=False)
    a, b = sorted(out.glob("part-*.parquet"))
    b.write_bytes(a.read_bytes())
    with pytest.raises(ResultsError, match="part-0001-000000000000.parquet: its bytes do not match"):
        load_results(out)
    again = execute_study(study, store=str(out), progress=False)
    assert again.simulated == 50 and "part-0001-000000000000.parquet" in again.note


# ---- --games against a store of more or fewer games --------------------------------------------
def test_games_against_a_larger_or_smaller_store_says_what_it_does(tmp_path):
    out = tmp_path / "r"
    base = ["play", "moon", "--seed", "3", "--out", out, "--chunk", 100, "--no-progress"]
    invoke(*base, "--games", 300)
    fewer = invoke(*base, "--games", 120)
    assert f"{out} holds 300 games; using the first 120 (--games 120); --games 300 uses them all" in fewer.output
    assert "Three-Player Moon: 120 games" in fewer.output
    assert "all games were already stored" in fewer.output
    as_json = json.loads(invoke(*base, "--games", 120, "--json").output)
    assert as_json["games"] == 120 and "using the first 120" in as_json["note"]
    assert as_json["seats"] == json.loads(invoke("play", "moon", "--seed", 3, "--games", 120, "--json").output)["seats"]
    more = invoke(*base, "--games", 450)
    assert f"{out} holds 300 games; extending to 450 (150 more)" in more.output
    assert "Three-Player Moon: 450 games" in more.output and "simulated 150 games" in more.output
    assert list(load_results(out)["index"]) == list(range(450))


# ---- foreign, orphaned and different directories ----------------------------------------------
def test_chunks_without_a_manifest_are_named_as_such(tmp_path):
    out = tmp_path / "r"
    execute(moon(), 200, out=str(out), chunk=100)
    (out / MANIFEST).unlink()
    with pytest.raises(ResultsError, match=r"holds 2 playlab result chunk\(s\) but its manifest _study.json is missing"):
        execute(moon(), 200, out=str(out), chunk=100)
    with pytest.raises(ResultsError, match="manifest _study.json is missing"):
        load_results(out)


@pytest.mark.parametrize("other, says", [
    (moon(seed=4), "seed 3 there, 4 here"),
    (moon(min_bid=5), "variant min_bid=4 there, 5 here"),
    (moon(bots="random,greedy,random"), "bots random,random,random there, random,greedy,random here"),
])
def test_a_different_run_says_which_setting_differs(tmp_path, other, says):
    out = tmp_path / "r"
    execute(moon(), 50, out=str(out))
    with pytest.raises(ResultsError, match=f"holds results of a different study: {says}; use another --out"):
        execute(other, 50, out=str(out))


# ---- one writer at a time -----------------------------------------------------------------------
HOLD = """
import sys, time
from experiments.store import StudyStore
store = StudyStore.open(sys.argv[1], {"seed": 0, "runs": []}, 10)
print("holding", flush=True)
time.sleep(120)
"""


def test_a_second_writer_is_refused_and_a_killed_one_does_not_block(tmp_path):
    out = tmp_path / "r"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(ResultsError, match=rf"being written by another playlab process \(pid {holder.pid}\)"):
            StudyStore.open(out, {"seed": 0, "runs": []}, 10)
    finally:
        holder.kill()  # SIGKILL: no cleanup runs, the kernel drops the lock
        holder.wait()
    with StudyStore.open(out, {"seed": 0, "runs": []}, 10) as store:
        assert store.chunk == 10


def test_the_lock_is_released_after_a_run_in_the_same_process(tmp_path):
    out = tmp_path / "r"
    execute(moon(), 20, out=str(out))
    execute(moon(), 20, out=str(out))  # would be refused if the first run kept the lock


# ---- interruption ------------------------------------------------------------------------------
def play_cmd(out, games):
    return PLAYLAB + ["play", "sequence-stacks", "--bots", "greedy", "--games", str(games), "--seed", "7",
                      "--chunk", "1000", "--threads", "1", "--out", str(out), "--json", "--no-progress"]


def summary(stdout):
    record = json.loads(stdout)
    return {k: record[k] for k in ("games", "seats", "truncated")}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_keeps_its_chunks_and_resumes_to_the_same_result(tmp_path, sig):
    games = 60_000
    whole = subprocess.run(play_cmd(tmp_path / "whole", games), capture_output=True, text=True, timeout=300)
    assert whole.returncode == 0, whole.stderr
    out = tmp_path / "cut"
    run = subprocess.Popen(play_cmd(out, games), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while len(list(out.glob("part-*.parquet"))) < 3 and time.time() < deadline and run.poll() is None:
        time.sleep(0.02)
    assert run.poll() is None, "the run ended before it could be interrupted"
    run.send_signal(sig)
    t0 = time.time()
    stdout, stderr = run.communicate(timeout=30)
    stopped_in = time.time() - t0
    assert run.returncode == 130, stderr
    assert stopped_in < 5
    kept = len(list(out.glob("part-*.parquet"))) * 1000
    assert 3000 <= kept < games
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert lines == [f"error: interrupted during simulation: {kept} of {games} games are stored in {out}; "
                     "rerun the same command to resume"]
    assert not list(out.glob(".*.tmp"))  # no half-written chunk left behind
    resumed = subprocess.run(play_cmd(out, games), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["simulated"] == games - kept
    assert summary(resumed.stdout) == summary(whole.stdout)
    pd.testing.assert_frame_equal(load_results(out), load_results(tmp_path / "whole"))


# ---- traces ----------------------------------------------------------------------------------
def test_trace_defaults_to_the_first_100_games_and_all_keeps_every_game(tmp_path):
    from simcore.trace import read_traces

    t = tmp_path / "t.jsonl"
    out = invoke("play", "moon", "--games", 130, "--trace", t)
    assert "wrote 100 traces" in out.output
    assert [r["index"] for r in read_traces(t)] == list(range(100))
    out = invoke("play", "moon", "--games", 130, "--trace", t, "--trace-games", "all")
    assert "wrote 130 traces" in out.output and len(list(read_traces(t))) == 130
    out = invoke("play", "moon", "--games", 130, "--trace", t, "--trace-games", 7)
    assert "wrote 7 traces" in out.output


def test_a_bad_trace_path_fails_before_any_game_is_played(tmp_path):
    out = tmp_path / "r"
    cmd = PLAYLAB + ["play", "moon", "--games", "50", "--out", str(out), "--trace", str(tmp_path / "no" / "t.jsonl")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"error: Invalid value for --trace: directory {tmp_path / 'no'} does not exist"]
    assert not out.exists()  # nothing was simulated or stored
    bad = subprocess.run(PLAYLAB + ["play", "moon", "--games", "5", "--trace", str(tmp_path / "t"), "--trace-games", "x"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--trace-games" in bad.stderr and "'x'" in bad.stderr


# ---- without dask ---------------------------------------------------------------------------
def test_cluster_without_dask_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    from experiments.cluster import ClusterError, DaskExecutor

    with pytest.raises(ClusterError, match=r"pip install 'playlab\[cluster\]'"):
        DaskExecutor("tcp://127.0.0.1:8786")


def test_a_failed_write_keeps_the_old_file_whole_and_leaves_no_temporary(tmp_path):
    from experiments.store import write_atomically

    path = tmp_path / "study.json"
    write_atomically(path, lambda tmp: tmp.write_text('{"games": 10}\n'))
    assert path.read_text() == '{"games": 10}\n'

    def half_then_fail(tmp):
        tmp.write_text('{"gam')  # a crash (or Ctrl-C) in the middle of writing
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, half_then_fail)
    assert path.read_text() == '{"games": 10}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["study.json"]


def test_a_study_command_writes_whole_files_only(tmp_path):
    out = tmp_path / "fpa"
    result = CliRunner().invoke(cli, ["fpa", "moon", "--games", "30", "--out", str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "study.json").read_text())
    assert record["results"] == "results"
    assert not [p.name for p in out.rglob(".*.tmp")]
    csvs = sorted(p.name for p in out.glob("*.csv"))
    assert csvs and all(pd.read_csv(out / c).shape[0] > 0 for c in csvs)


def test_a_model_file_replaced_at_the_same_path_is_a_different_study(tmp_path):
    """``learned:model=PATH``: the games of one model and of another written at the same path
    are not one study (they were once summarised together, resumed without a word)."""
    from bots.learned import load_model, save_model

    model = load_model("shifting-stones")
    path = tmp_path / "m.npz"
    save_model(model, str(path))
    config = lambda: RunConfig.build("shifting-stones", 2, [f"learned:model={path}", "greedy"], None, 3)  # noqa: E731
    out = tmp_path / "r"
    execute(config(), 20, out=str(out), chunk=10)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["study"]["runs"][0]["bot_files"] == [[["model", file_digest(path)]], []]
    # the same model again resumes
    assert execute(config(), 30, out=str(out), chunk=10).simulated == 10
    model.greedy_bonus = model.greedy_bonus + 1.0
    save_model(model, str(path))
    with pytest.raises(ResultsError, match=r"different study: the files the bots are given \(a model\) differ: "
                                           r"seat 0 model=sha256:\w+… there, seat 0 model=sha256:\w+… here"):
        execute(config(), 40, out=str(out), chunk=10)
    assert len(load_results(out)) == 30  # nothing computed is lost


def test_an_edited_plugin_or_agent_is_a_different_study(tmp_path):
    """The plugins and Python agents a study plays are part of its identity by content: an
    edit between two runs into the same --out was once resumed without a word, and the old
    code's games summarised with the new code's."""
    root = Path(__file__).resolve().parents[1]
    plugin = tmp_path / "bot.py"
    plugin.write_text((root / "examples/plugins/first_legal_bot.py").read_text())
    agent = tmp_path / "agent.py"
    agent.write_text((root / "examples/agents/first_legal.py").read_text())
    cases = (("first-legal", ["--plugin", str(plugin)], plugin, "return legal[0]", "return legal[n - 1]", "plugin"),
             (f"py:{agent}:FirstLegal", [], agent, "legal_actions[0]", "legal_actions[-1]", "agent"))
    for seat0, options, edited, old, new, kind in cases:
        out = tmp_path / f"r-{kind}"

        def run(games):
            return subprocess.run(PLAYLAB + options + ["play", "moon", "--bots", f"{seat0},greedy,greedy",
                                                       "--games", str(games), "--seed", "1", "--out", str(out)],
                                  capture_output=True, text=True, cwd=root)

        assert run(10).returncode == 0
        assert run(20).returncode == 0  # the same code resumes
        assert old in edited.read_text()
        edited.write_text(edited.read_text().replace(old, new))
        refused = run(30)
        assert refused.returncode != 0
        assert refused.stderr.strip().splitlines() == [
            f"error: {out} holds results of a different study: the code it plays differs: "
            f"{kind} {edited.resolve()} (edited?); use another --out directory"]
        assert len(load_results(out)) == 20  # nothing computed is lost


def test_the_resume_note_gives_the_range_when_an_interrupt_left_configurations_apart():
    """A run stopped in the middle of a round leaves some configurations a chunk ahead: the
    note reads every configuration's count, not the first one's."""
    from types import SimpleNamespace

    from experiments.study import store_note

    def note(held, games, active=None):
        store = SimpleNamespace(path="r", stored_games=lambda i: held[i])
        return store_note(store, SimpleNamespace(configs=list(held), active=active, games=games))

    assert note([200, 100, 100], 300) == "r holds 100 to 200 games per configuration; 500 more to play, so that each has 300"
    assert note([100, 200], 150) == "r holds 100 to 200 games per configuration; 50 more to play, so that each has 150"
    assert note([200, 100], 100) == ("r holds 100 to 200 games per configuration; using the first 100 (--games 100); "
                                     "--games 200 uses them all")
    assert note([100, 100], 150) == "r holds 100 games per configuration; extending to 150 (50 more per configuration)"
    assert note([0, 100, 0], 100, active=[0, 2]) is None  # only the active ones count
    assert note([100, 100], 100) is None
