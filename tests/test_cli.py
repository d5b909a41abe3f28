"""The command line: outputs, files, and one error line for every kind of bad input."""
import json

import pandas as pd
import pytest

from playlab.cli import main


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.mark.parametrize("args, message", [
    (["play", "chess"], "unknown game 'chess'"),
    (["play", "moon", "--players", "4"], "moon is played by exactly 3 players, not 4"),
    (["play", "moon", "--bots", "wizard"], "unknown bot 'wizard'"),
    (["play", "moon", "--bots", "random,random"], "moon is played by exactly 3 players, not 2"),
    (["play", "moon", "--players", "3", "--bots", "random,random"], "2 bot specs given for 3 players"),
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
    (["sweep", "shifting-stones", "--vary", "colour=red,blue"], "unknown option 'colour'"),
    (["sweep", "shifting-stones", "--vary", "end_trigger=6,99"], "option end_trigger must be in 0..72, not 99"),
    (["sweep", "shifting-stones", "--vary", "end_trigger"], "malformed --vary 'end_trigger'"),
    (["tournament", "moon", "--bots", "greedy"], "at least two different bots"),
    (["tournament", "moon", "--bots", "greedy,random,greedy"], "listed twice"),
    (["fpa", "moon", "--players", "2-5"], "exactly 3 players, not 2"),
    (["fpa", "shifting-stones", "--players", "1-3"], "take 2-5 players, not 1"),
    (["fpa", "sequence-stacks", "--players", "2-9"], "not 7"),
    (["fpa", "shifting-stones", "--ci-width", "0.7"], "--ci-width"),
    (["fpa", "shifting-stones", "--ci-width", "0"], "between 0 and 0.5"),
    (["sweep", "moon", "--vary", "min_bid=5", "--ci-width", "-0.1"], "between 0 and 0.5"),
    (["tournament", "moon", "--bots", "random,greedy", "--ci-width", "0.5"], "between 0 and 0.5"),
    (["fpa", "moon", "--games", "10", "--ci-width", "0.1"], "not both"),
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


def test_the_play_table_stays_aligned_with_a_long_bot_name(capsys):
    long = "bidder:aggression=0.75:moon_threshold=8.5"
    # beside random: the bidder's chain alone, which `tune` compiles anyway
    code, out, err = run(capsys, "play", "moon", "--games", "6", "--bots", f"random,{long},random")
    assert code == 0, err
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("seat  bot"))
    rows = [line for line in lines if line[:4].strip().isdigit()]
    assert len(rows) == 6 and any(long in r for r in rows)  # 3 seats and 3 positions
    # every number column ends where its heading does
    for heading in ("wins", "shared", "win rate", "win share"):
        end = header.index(heading) + len(heading)
        assert all(r[end - 1] != " " and (len(r) == end or r[end] == " ") for r in rows), heading


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


def test_play_json_and_players_from_bots(capsys):
    code, out, err = run(capsys, "play", "sequence-stacks", "--bots", "random,greedy,random", "--games", "60",
                         "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["players"] == 3 and r["bots"] == ["random", "greedy", "random"] and r["games"] == 60
    assert [s["seat"] for s in r["seats"]] == [0, 1, 2]
    for s in r["seats"]:
        assert {"wins", "shared_wins", "win_rate", "ci_low", "ci_high", "mean_score"} <= set(s)
    assert r["truncated"]["cap_option"] == "round_cap"


def test_tune_prints_its_setting_and_json(capsys):
    args = ["tune", "moon", "--bot", "bidder", "--grid", "aggression=0.8,1.2", "--games", "40", "--seed", "3"]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    head = out.splitlines()[0]
    assert "Three-Player Moon" in head and "against random" in head and "seed 3" in head and "1/3 = 0.3333" in head
    code, out, _ = run(capsys, *args, "--json")
    r = json.loads(out)
    assert r["chance"] == pytest.approx(1 / 3) and len(r["table"]) == 2 and r["seed"] == 3


def test_tune_labels_each_row_by_the_grid_not_the_bots_own_parameters(capsys):
    """A bot given with its own parameter (`bidder:moon_threshold=7`) and a grid of another:
    the grid's column holds the grid's values (it once showed the bot's own parameter's)."""
    code, out, err = run(capsys, "tune", "moon", "--bot", "bidder:moon_threshold=7", "--grid",
                         "aggression=0.8,1.2", "--games", "10", "--seed", "3", "--json")
    assert code == 0, err
    table = json.loads(out)["table"]
    assert sorted(row["aggression"] for row in table) == ["0.8", "1.2"]
    assert sorted(row["bot"] for row in table) == ["bidder:moon_threshold=7:aggression=0.8",
                                                   "bidder:moon_threshold=7:aggression=1.2"]


def test_tournament_writes_its_files(capsys, tmp_path):
    out_dir = tmp_path / "t"
    code, out, err = run(capsys, "tournament", "moon", "--bots", "random,greedy", "--games", "40", "--seed", "2",
                         "--boot", "20", "--out", str(out_dir))
    assert code == 0, err
    assert "6 seatings x 40 games" in out and "ratings" in out and "se_paired" in out
    for name in ("ratings.csv", "pairwise.csv", "ratings.png", "pairwise.png", "study.json"):
        assert (out_dir / name).exists(), name
    ratings = pd.read_csv(out_dir / "ratings.csv")
    assert list(ratings.columns) == ["bot", "rating", "ci_low", "ci_high", "games"]
    assert set(ratings["bot"]) == {"random", "greedy"}
    pairwise = pd.read_csv(out_dir / "pairwise.csv")
    for col in ("bot_a", "bot_b", "games", "wins_a", "wins_b", "shared", "win_rate_a", "ci_low", "ci_high"):
        assert col in pairwise.columns
    results = pd.read_parquet(out_dir / "results")
    assert len(results) == 240 and results["run"].nunique() == 6
    study = json.loads((out_dir / "study.json").read_text())
    assert study["kind"] == "tournament" and len(study["runs"]) == 6 and study["playlab_version"]
    # rerunning reads everything back
    code, out, _ = run(capsys, "tournament", "moon", "--bots", "random,greedy", "--games", "40", "--seed", "2",
                       "--boot", "20", "--out", str(out_dir))
    assert code == 0 and "nothing simulated" in out


def test_tournament_json(capsys):
    code, out, err = run(capsys, "tournament", "sequence-stacks", "--bots", "random,greedy", "--games", "30",
                         "--boot", "10", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["study"] == "tournament" and r["runs"] == 2
    assert {t["bot"] for t in r["tables"]["ratings"]} == {"random", "greedy"}


def test_fpa_writes_its_files(capsys, tmp_path):
    out_dir = tmp_path / "f"
    code, out, err = run(capsys, "fpa", "shifting-stones", "--bots", "random", "--players", "2-3", "--games", "40",
                         "--out", str(out_dir))
    assert code == 0, err
    assert "seat 0 plays first" in out
    fpa = pd.read_csv(out_dir / "fpa.csv")
    assert list(fpa.columns[:8]) == ["players", "seat", "games", "wins", "shared_wins", "win_rate", "ci_low",
                                     "ci_high"]
    assert fpa[["players", "seat"]].values.tolist() == [[2, 0], [2, 1], [3, 0], [3, 1], [3, 2]]
    tests = pd.read_csv(out_dir / "fpa_tests.csv")
    assert tests["players"].tolist() == [2, 3] and "p_equal_seats" in tests.columns
    assert (out_dir / "fpa.png").exists() and (out_dir / "study.json").exists()


def test_fpa_ci_width_chooses_the_games_in_advance(capsys):
    code, out, err = run(capsys, "fpa", "moon", "--ci-width", "0.2", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["games_per_run"] == 25 and "0.2" in r["chosen_games"]  # 1.96^2 / (4 * 0.2^2) = 24.01
    code, out, err = run(capsys, "fpa", "moon", "--ci-width", "0.2")
    assert out.splitlines()[0].startswith("--ci-width 0.2: 25 games per player count")


def test_sweep_writes_its_files(capsys, tmp_path):
    out_dir = tmp_path / "s"
    code, out, err = run(capsys, "sweep", "sequence-stacks", "--vary", "chips_to_win=4,6", "--games", "40",
                         "--out", str(out_dir))
    assert code == 0, err
    assert "chips_to_win=5 (baseline)" in out
    table = pd.read_csv(out_dir / "sweep.csv")
    assert table["chips_to_win"].tolist() == [5, 4, 6] and table["baseline"].tolist() == [True, False, False]
    tests = pd.read_csv(out_dir / "sweep_tests.csv")
    assert {"metric", "diff", "se_paired", "se_unpaired", "p", "p_holm", "differs"} <= set(tests.columns)
    assert (out_dir / "sweep.png").exists()
    results = pd.read_parquet(out_dir / "results")
    assert sorted(results["chips_to_win"].unique()) == [4, 5, 6]


def test_a_solo_sweep_has_win_rates_and_no_margin(capsys, tmp_path):
    """Solo has no runner-up: the sweep (which crashed on the margin) reports the win rate and
    length per setting, its margin column empty and left out of the printed table and tests."""
    out = tmp_path / "solo"
    # greedy (which wins no solo game) rather than the planner: its kernels are compiled for
    # other tests already, the planner's cost two minutes here
    code, text, err = run(capsys, "sweep", "shifting-stones", "--players", "1", "--vary", "hand_size=5", "--bots",
                          "greedy", "--games", "30", "--seed", "2", "--threads", "1", "--out", str(out))
    assert code == 0, err
    assert "1 player" in text and "mean_margin" not in text and "mean_turns" in text
    table = pd.read_csv(out / "sweep.csv")
    assert list(table["setting"]) == ["hand_size=4 (baseline)", "hand_size=5"]
    assert table["mean_margin"].isna().all() and (table["mean_turns"] > 0).all()
    assert table["seat0_share"].between(0, 1).all()
    assert table["p_equal_seats"].isna().all()  # one seat: nothing to compare
    tests = pd.read_csv(out / "sweep_tests.csv")
    assert not tests.loc[tests["metric"] == "margin", "tested"].any()
    assert tests.loc[tests["metric"] == "turns", "tested"].all()


def test_a_solo_tune_names_no_chance_level(capsys):
    code, text, err = run(capsys, "tune", "shifting-stones", "--players", "1", "--bot", "greedy", "--grid",
                          "depth=1,2", "--games", "6", "--threads", "1")
    assert code == 0, err
    assert "solo: greedy alone, 6 games" in text and "chance" not in text
    code, text, err = run(capsys, "tune", "shifting-stones", "--players", "1", "--bot", "greedy", "--grid",
                          "depth=1,2", "--games", "6", "--threads", "1", "--json")
    assert code == 0 and json.loads(text)["chance"] is None


def test_sweep_grid_json(capsys):
    code, out, err = run(capsys, "sweep", "shifting-stones", "--vary", "end_trigger=6,8", "--vary",
                         "bonus_points=0,3", "--bots", "random,greedy", "--games", "20", "--json")
    assert code == 0, err
    r = json.loads(out)
    settings = [(t["end_trigger"], t["bonus_points"]) for t in r["tables"]["sweep"]]
    assert settings[0] == (0, 3) and len(settings) == 5  # baseline, then (6,0) (6,3) (8,0) (8,3)
    assert "win_rate:greedy" in r["tables"]["sweep"][0]


def test_a_study_draws_one_progress_bar_over_all_its_games(capsys):
    code, out, err = run(capsys, "fpa", "sequence-stacks", "--players", "2-3", "--games", "30", "--progress")
    assert code == 0
    assert "%|" in err and "/60.0 " in err  # one bar over both player counts' 30 games
    assert "%|" not in out
