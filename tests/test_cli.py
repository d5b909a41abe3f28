"""The command line: outputs, files, and one error line for every kind of bad input."""
import json

import pandas as pd
import pytest

from experiments.cli import main


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.mark.parametrize("args, message", [
    (["play", "chess"], "unknown game 'chess'"),
    (["play", "moon", "--players", "4"], "moon is played by exactly 3 players, not 4"),
    (["play", "moon", "--bots", "wizard"], "unknown bot 'wizard'"),
    (["play", "moon", "--bots", "random,random"], "2 bot specs given for 3 players"),
    (["play", "moon", "--bots", "random:depth=3"], "unknown parameter 'depth'"),
    (["play", "moon", "--variant", "min_bid=9"], "option min_bid must be in 1..7, not 9"),
    (["play", "moon", "--variant", "doubles_trump=maybe"], "option doubles_trump takes true or false"),
    (["play", "moon", "--variant", "all_pass=sometimes"], "option all_pass takes one of redeal|force"),
    (["play", "moon", "--variant", "colour=red"], "unknown option 'colour'"),
    (["play", "moon", "--variant", "min_bid"], "malformed --variant 'min_bid'"),
    (["play", "moon", "--games", "0"], "--games"),
    (["play", "moon", "--seed", "-1"], "--seed"),
    (["show", "moon", "--players", "2"], "exactly 3 players"),
    (["bench", "moon", "--players", "5"], "exactly 3 players"),
    (["bots", "checkers"], "unknown game 'checkers'"),
    (["frobnicate"], "No such command"),
])
def test_bad_input_is_one_error_line(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert message in lines[0]
    assert "Traceback" not in err


def test_games_lists_options(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0
    assert "moon" in out and "doubles_trump" in out and "hand_cap" in out and "3 players" in out


def test_bots_lists_random(capsys):
    code, out, _ = run(capsys, "bots", "moon")
    assert code == 0 and "random" in out


def test_play_summary_parquet_and_traces(capsys, tmp_path):
    out_dir = tmp_path / "res"
    trace = tmp_path / "t.jsonl.gz"
    code, out, err = run(capsys, "play", "moon", "--games", "300", "--seed", "4", "--out", str(out_dir),
                         "--trace", str(trace), "--trace-games", "5", "--threads", "2")
    assert code == 0, err
    assert "95% CI" in out and "truncated games" in out and "games/s" in out
    df = pd.read_parquet(out_dir)
    assert len(df) == 300 and sorted(df["index"]) == list(range(300))
    for col in ("players", "bot_0", "score_2", "win_1", "truncated", "turns", "decisions", "hands",
                "bids_made_0", "bids_failed_2", "moon_attempts_1"):
        assert col in df.columns
    decided = df[~df["truncated"]]
    assert (decided[["win_0", "win_1", "win_2"]].sum(axis=1) == 1).all()
    # the summary's win counts are the frame's
    for s in range(3):
        assert f" {int(decided[f'win_{s}'].sum())} " in out
    from simcore.trace import read_traces

    traces = list(read_traces(trace))
    assert [t["index"] for t in traces] == [0, 1, 2, 3, 4]
    for t in traces:
        row = df[df["index"] == t["index"]].iloc[0]
        assert t["result"]["scores"] == [int(row[f"score_{s}"]) for s in range(3)]


def test_show_prints_a_readable_game(capsys):
    code, out, _ = run(capsys, "show", "moon", "--seed", "2", "--index", "3")
    assert code == 0
    assert out.splitlines()[0].startswith("Three-Player Moon: seed 2, game 3")
    assert "\nhand 1 first " in out and "  widow " in out and "result: scores" in out


def test_show_json_is_a_trace(capsys):
    code, out, _ = run(capsys, "show", "moon", "--seed", "2", "--index", "3", "--json")
    t = json.loads(out)
    assert t["trace"] == 1 and t["index"] == 3 and t["seed"] == 2 and len(t["variant"]) == 8


def test_bench_json_records(capsys):
    code, out, _ = run(capsys, "bench", "moon", "--games", "200", "--threads", "1", "--json")
    assert code == 0
    records = json.loads(out)
    assert len(records) == 1
    r = records[0]
    for key in ("game", "players", "bots", "threads", "games", "seconds", "games_per_s",
                "decisions_per_s", "hands_per_s"):
        assert key in r
    assert r["game"] == "moon" and r["threads"] == 1 and r["games"] == 200 and r["hands_per_s"] > 0


def test_progress_bar_on_request_goes_to_stderr(capsys):
    code, out, err = run(capsys, "play", "moon", "--games", "120", "--progress")
    assert code == 0
    assert "game" in err and "%" in err  # tqdm's bar
    assert "%|" not in out
