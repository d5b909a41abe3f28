"""Studies under several bots (`fpa`/`sweep` with --bots repeated or --ladder) and the
measured skill ladder behind `playlab bots GAME` levels."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bots import ladder as L
from experiments import by_skill
from playlab.cli import cli


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return result


def _fpa_tables(n_games: int, first_wins: int, n: int = 2) -> dict[str, pd.DataFrame]:
    """fpa tables of a 2-player study where seat 0 won ``first_wins`` of ``n_games`` alone."""
    wins = [first_wins, n_games - first_wins]
    fpa = pd.DataFrame({"players": n, "seat": [0, 1], "games": n_games, "wins": wins, "shared_wins": 0,
                        "win_rate": [w / n_games for w in wins], "ci_low": 0.0, "ci_high": 1.0,
                        "win_share": [w / n_games for w in wins], "fair": 1 / n})
    return {"fpa": fpa, "fpa_tests": pd.DataFrame({"players": [n], "p_holm": [0.5]})}


def test_fpa_by_bot_detects_a_first_player_advantage_that_depends_on_the_bot():
    differ = by_skill.fpa_by_bot({"a": _fpa_tables(2000, 1400), "b": _fpa_tables(2000, 1000)}, {})
    same = by_skill.fpa_by_bot({"a": _fpa_tables(2000, 1010), "b": _fpa_tables(2000, 1000)}, {})
    t = differ[by_skill.FPA_BY_BOT_TESTS].iloc[0]
    assert bool(t["changes_with_skill"]) and t["p"] < 1e-10
    assert t["first_share_spread"] == pytest.approx(0.2)
    assert not bool(same[by_skill.FPA_BY_BOT_TESTS].iloc[0]["changes_with_skill"])


def test_a_bot_without_a_sole_win_is_left_out_of_the_homogeneity_test():
    """A bot whose every game was truncated (no decided game, so no win): the test runs over
    the others instead of stopping the command with scipy's "expected frequencies has a
    zero element"; with one bot left there is nothing to compare."""
    empty = _fpa_tables(1, 0)
    empty["fpa"] = empty["fpa"].assign(games=0, wins=0, win_rate=np.nan, win_share=np.nan)
    two = by_skill.fpa_by_bot({"a": _fpa_tables(2000, 1400), "b": _fpa_tables(2000, 1000), "none": empty}, {})
    t = two[by_skill.FPA_BY_BOT_TESTS].iloc[0]
    assert t["bots"] == 2 and t["p"] < 1e-10 and t["first_share_spread"] == pytest.approx(0.2)
    one = by_skill.fpa_by_bot({"a": _fpa_tables(2000, 1400), "none": empty}, {})[by_skill.FPA_BY_BOT_TESTS].iloc[0]
    assert one["bots"] == 1 and np.isnan(one["p"]) and one["first_share_spread"] == 0


def test_sweep_by_bot_tests_heterogeneity_of_the_paired_effects():
    def tables(diff, se):
        return {"sweep_tests": pd.DataFrame({"run": [1, 1], "bonus_points": [0, 0], "metric": ["margin", "turns"],
                                             "value": 0.0, "baseline_value": 0.0, "pairs": 500,
                                             "diff": [diff, 0.0], "se_paired": [se, 0.0], "se_unpaired": 0.1,
                                             "p": 0.5, "p_holm": 0.5, "differs": False})}

    out = by_skill.sweep_by_bot({"greedy": tables(-0.6, 0.1), "mcts": tables(0.3, 0.1)}, {"greedy": "intermediate"})
    tests = out[by_skill.SWEEP_BY_BOT_TESTS].set_index("metric")
    assert bool(tests.loc["margin", "changes_with_skill"])
    # a metric no bot moves has no test and no place in the Holm family
    assert np.isnan(tests.loc["turns", "p"]) and not bool(tests.loc["turns", "changes_with_skill"])
    rows = out[by_skill.SWEEP_BY_BOT]
    assert list(rows["bot"].unique()) == ["greedy", "mcts"] and rows.loc[0, "level"] == "intermediate"


def test_folder_names_are_safe_and_distinct():
    assert by_skill.folder_name("mcts:iterations=400") == "mcts_iterations=400"
    assert by_skill.folder_name("py:/x/y.py:Agent") == "py_x_y.py_Agent"
    with pytest.raises(ValueError):
        by_skill.folder_names(["greedy", "greedy"])


def test_fpa_under_two_bots_writes_each_study_and_the_comparison(tmp_path):
    out = tmp_path / "fpa"
    r = run("fpa", "sequence-stacks", "--bots", "greedy", "--bots", "random", "--players", "2-3",
            "--games", 200, "--seed", 3, "--out", out, "--no-progress")
    assert r.exit_code == 0, r.output
    assert "the answer by bot" in r.output
    rows = pd.read_csv(out / "fpa_by_bot.csv")
    assert sorted(rows["bot"].unique()) == ["greedy", "random"]
    for bot in ("greedy", "random"):
        own = pd.read_csv(out / bot / "fpa.csv")
        first = own[own["seat"] == 0].set_index("players")
        mine = rows[rows["bot"] == bot].set_index("players")
        assert np.allclose(mine["first_win_rate"], first["win_rate"])
        assert np.allclose(mine["ci_low"], first["ci_low"]) and np.allclose(mine["ci_high"], first["ci_high"])
    tests = pd.read_csv(out / "fpa_by_bot_tests.csv")
    assert list(tests["players"]) == [2, 3] and tests["p"].between(0, 1).all()
    # each bot's study is an ordinary, resumable one: a rerun simulates nothing
    again = run("fpa", "sequence-stacks", "--bots", "greedy", "--bots", "random", "--players", "2-3",
                "--games", 200, "--seed", 3, "--out", out, "--no-progress")
    assert again.output.count("all games were already stored") == 2


def test_sweep_under_two_bots_as_json(tmp_path):
    r = run("sweep", "shifting-stones", "--vary", "bonus_points=0", "--bots", "greedy,greedy", "--bots",
            "random,random", "--games", 150, "--seed", 2, "--json", "--no-progress")
    assert r.exit_code == 0, r.output
    record = json.loads(r.output.strip().splitlines()[-1])
    assert record["study"] == "sweep_by_bot" and len(record["studies"]) == 2
    rows = pd.DataFrame(record["tables"][by_skill.SWEEP_BY_BOT])
    assert set(rows["bot"]) == {"greedy,greedy", "random,random"}


def test_a_bot_with_other_parameters_has_no_ladder_level(tmp_path):
    """The ladder measured each bot at its defaults: greedy searching one move (mcts with 8
    iterations, which greedy beats, was labelled "strong") is not the ladder's greedy; the
    default values written out are."""
    out = tmp_path / "fpa"
    r = run("fpa", "shifting-stones", "--bots", "greedy:depth=1", "--bots", "greedy:replan=0",
            "--bots", "random", "--players", "2", "--games", 4, "--seed", 3, "--out", out, "--no-progress")
    assert r.exit_code == 0, r.output
    rows = pd.read_csv(out / "fpa_by_bot.csv", keep_default_na=False).set_index("bot")
    assert L.level("shifting-stones", "greedy") == "intermediate"
    assert rows.loc["greedy:depth=1", "level"] == ""
    # greedy's default replan, given: the ladder's greedy (labelled as the bare name)
    assert rows.loc["greedy", "level"] == "intermediate"
    assert rows.loc["random", "level"] == "novice"


def test_ladder_and_bots_together_is_an_error():
    r = CliRunner().invoke(cli, ["fpa", "sequence-stacks", "--bots", "greedy", "--ladder"])
    assert r.exit_code != 0 and "not both" in r.output


def test_levels_against_greedy(tmp_path, monkeypatch):
    frame = pd.DataFrame({"bot": ["random", "greedy", "fastbot", "slowbot", "peer"],
                          "rating": [-600, 0, 150, 300, 10], "ci_low": [-700, -40, 60, 200, -30],
                          "ci_high": [-500, 40, 240, 400, 50], "games": 100,
                          "games_per_s": [30000, 20000, 5000, 2, 9000], "measured": "2026-12-03",
                          "command": "playlab tournament x", "speed_command": "playlab bench x"})
    monkeypatch.setattr(L, "LADDER_DIR", tmp_path)
    frame.to_csv(tmp_path / "sequence-stacks.csv", index=False)
    try:
        assert [r.bot for r in L.ladder("sequence-stacks")] == ["slowbot", "fastbot", "peer", "greedy", "random"]
        assert L.level("sequence-stacks", "random") == "novice"
        assert L.level("sequence-stacks", "peer") == "intermediate"
        assert L.level("sequence-stacks", "slowbot") == "strong"
        assert L.level("sequence-stacks", "nobody") is None
        # per level the strongest bot fast enough for a study (slowbot plays 2 games/s)
        assert L.study_bots("sequence-stacks") == ["random", "peer", "fastbot"]
        out = run("bots", "sequence-stacks").output
        assert "skill: intermediate (rating 0 [-40, 40]" in out and "skill: not on the ladder" in out
    finally:
        monkeypatch.undo()
    # the shipped ladder is read again once the folder is restored, not the test's cached one
    assert L.level("sequence-stacks", "fastbot") is None
    assert L.chance_table("sequence-stacks") is not None


def test_a_game_without_a_ladder_has_no_levels_and_refuses_ladder(tmp_path, monkeypatch):
    monkeypatch.setattr(L, "LADDER_DIR", tmp_path)
    assert L.study_bots("moon") == [] and L.level("moon", "greedy") is None
    assert L.chance_table("moon") is None
    r = CliRunner().invoke(cli, ["fpa", "moon", "--ladder", "--games", "10"])
    assert r.exit_code != 0 and "no measured skill ladder" in r.output
    monkeypatch.undo()
    assert L.chance_table("moon") is not None and L.level("moon", "greedy") == "intermediate"


@pytest.mark.parametrize("game", ["moon", "shifting-stones", "sequence-stacks"])
def test_every_built_in_game_ships_a_ladder_with_greedy_intermediate(game):
    rungs = L.ladder(game)
    assert rungs, f"bots/ladders/{game}.csv missing (tools/ladder.py {game})"
    assert L.level(game, "greedy") == "intermediate"
    assert L.level(game, "random") == "novice"
    assert L.level(game, "expert") == "strong"


def test_skill_chance_on_known_tallies():
    from experiments.skill_chance import sentence, skill_chance

    # a finished ahead of b in 75 games, behind in 25: p = 0.75, a coin decides X = 0.5
    rng = np.random.default_rng(0)
    tallies = {"bots": np.array(["a", "b"], dtype=object), "codes": np.array([[0, 1], [1, 0]]),
               "ranks": np.array([[0, 1], [0, 1]]), "counts": np.array([75.0, 25.0]),
               "boot_counts": rng.poisson([75.0, 25.0], size=(300, 2)).astype(float)}
    # one bot per seat: each game is one sub-game, so the game counts are the counts
    tallies.update(game_counts=tallies["counts"], game_boot_counts=tallies["boot_counts"])
    table = skill_chance(tallies)
    pair, overall = table.iloc[0], table.iloc[-1]
    assert pair["stronger"] == "a" and pair["coin_flip"] == pytest.approx(0.5)
    assert overall["coin_flip"] == pytest.approx(0.5)
    # the bootstrap spread of 100 games: about +-0.17 around 0.5
    assert 0.25 < overall["ci_low"] < 0.45 and 0.55 < overall["ci_high"] < 0.75
    assert "coin flip 50% of the time" in sentence("Test", table)


def test_tournament_reports_skill_against_chance(tmp_path):
    out = tmp_path / "t"
    r = run("tournament", "sequence-stacks", "--bots", "random,greedy,learned", "--games", 200, "--seed", 4,
            "--out", out, "--no-progress")
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out / "skill_chance.csv").set_index("pair")
    # greedy beats random about 9 times in 10 (a coin decides about a sixth of their games);
    # learned and greedy are close (a coin decides most of theirs)
    assert table.loc["greedy v random", "coin_flip"] < 0.3
    assert table.loc["greedy v learned", "coin_flip"] > 0.7
    row = table.loc["(all pairs)"]
    assert row["ci_low"] < row["coin_flip"] < row["ci_high"]
    assert "plays like a game decided by a coin flip" in r.output
