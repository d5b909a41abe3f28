"""`playlab balance`: targets, the metrics' intervals, and the race on a planted answer
(Moon's game length grows with target_score, so a length target is met by the short
games only)."""
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from experiments import balance_search as bs
from playlab.cli import cli
from simcore.options import OptionError


@pytest.mark.parametrize("text,low,high", [("fpa<=0.01", -np.inf, 0.01), ("turns>=10", 10, np.inf),
                                           ("turns=10..14", 10, 14), ("margin = 1e-1..2", 0.1, 2)])
def test_targets_parse(text, low, high):
    t = bs.parse_target(text)
    assert (t.low, t.high) == (low, high)


@pytest.mark.parametrize("text,words", [("fpa<0.01", "write METRIC<=X"), ("speed<=3", "unknown metric 'speed'"),
                                        ("turns=14..10", "is empty")])
def test_bad_targets_say_why(text, words):
    with pytest.raises(OptionError, match=words):
        bs.parse_target(text)


def test_a_target_decides_only_when_the_interval_is_on_one_side():
    t = bs.parse_target("turns=10..14")
    assert t.decide(10.5, 13.9) == bs.MEETS
    assert t.decide(14.1, 20) == bs.FAILS and t.decide(2, 9.9) == bs.FAILS
    assert t.decide(9, 11) == bs.UNDECIDED and t.decide(np.nan, 1) == bs.UNDECIDED


def test_the_fpa_interval_covers_equal_seats_and_excludes_a_biased_one():
    rng = np.random.default_rng(3)
    winners = rng.integers(0, 3, 20000)
    fair = np.eye(3)[winners]
    value, lo, hi = bs.fpa_metric(fair)
    assert lo == 0.0 and value < hi < 0.02  # equal seats: the interval reaches 0
    biased = np.eye(3)[np.where(rng.random(20000) < 0.1, 0, winners)]  # seat 0 gets 0.4 of the wins
    value, lo, hi = bs.fpa_metric(biased)
    assert lo > 0.04 and lo < value < hi


def run(*args):
    result = CliRunner().invoke(cli, list(map(str, args)))
    return result.exit_code, result.output


def test_the_race_finds_the_planted_variants_and_drops_bad_ones_after_one_round(tmp_path):
    out = tmp_path / "b"
    args = ["balance", "moon", "--vary", "target_score=7,13,21,61", "--target", "turns<=130", "--first-round", 100,
            "--budget", 20000, "--seed", 1, "--no-progress", "--out", out, "--json"]
    code, text = run(*args)
    assert code == 0, text
    record = json.loads(text.splitlines()[-1])
    def read():
        return pd.read_csv(out / "balance.csv", dtype={"meets": str, "turns<=130@3p:meets": str})

    table = read().set_index("target_score")
    assert table.loc[7, "meets"] == "true" and table.loc[13, "meets"] == "true"
    assert table.loc[21, "meets"] == "false" and table.loc[61, "meets"] == "false"
    # the clearly long games stop after the first round; the close call is played on
    assert table.loc[21, "games"] == table.loc[61, "games"] == 100
    assert table.loc[13, "games"] > 4 * table.loc[7, "games"]
    assert table.loc[13, "turns<=130@3p:ci_high"] <= 130 < table.loc[21, "turns<=130@3p:ci_low"]
    assert record["spent"] == table["games"].sum() == record["simulated"]
    # resumed from the store: nothing is played again and the answer is the same
    code, again = run(*args)
    assert code == 0 and json.loads(again.splitlines()[-1])["simulated"] == 0
    pd.testing.assert_frame_equal(read().set_index("target_score"), table)
    # and the report shows the race as the command printed it, recomputed from the store
    # alone: balance.csv (which nothing checks) is not read
    from experiments.store import open_results
    from reports import balance as B, recomputed

    st = B.load_study("b", out, open_results(out / "results"), json.loads((out / "study.json").read_text()))
    again = recomputed.balance_table(st).set_index("target_score")
    for col in ("games", "meets", "turns<=130@3p:value", "turns<=130@3p:ci_low", "turns<=130@3p:ci_high"):
        assert list(again[col]) == list(table[col]), col
    (out / "balance.csv").write_text("variant,meets,games\nforged,true,1\n")
    code, _ = run("report", out)
    import html as html_mod

    html = html_mod.unescape((out / "report.html").read_text())
    assert code == 0 and "Rule variants against the targets" in html
    assert "The search's answer: 2 of 4 variants meet every target: target_score=7; target_score=13." in html
    assert "forged" not in html


def test_a_variant_none_of_whose_games_end_stops_after_one_round_and_says_why(tmp_path):
    """One hand cannot reach 30 points without an instant moon, so every game of hand_cap=1 is
    capped: no metric over decided games has a value, and more games would be capped too.
    The race stops playing it (it once spent the rest of the budget on it) and says why, in
    the table, balance.csv and the report."""
    out = tmp_path / "b"
    code, text = run("balance", "moon", "--vary", "hand_cap=1,300", "--vary", "target_score=30",
                     "--vary", "moon_instant_win=false", "--target", "turns<=1000", "--first-round", 50,
                     "--budget", 4000, "--seed", 1, "--no-progress", "--out", out)
    assert code == 0, text
    table = pd.read_csv(out / "balance.csv", dtype={"meets": str}, keep_default_na=False).set_index("hand_cap")
    assert table.loc[1, "meets"] == "undecided" and table.loc[1, "games"] == 50
    assert table.loc[1, "undecided_because"] == "no game ended at 3p"
    assert table.loc[300, "meets"] == "true" and table.loc[300, "undecided_because"] == ""
    assert "3p no game ended: every one hit the cap, so not played further" in text
    assert "1 undecided (1: no game of theirs ended at some player count" in text and "budget of" not in text
    code, _ = run("report", out)
    import html as html_mod

    page = html_mod.unescape((out / "report.html").read_text())
    assert code == 0 and "1 undecided (hand_cap=1, target_score=30, moon_instant_win=false), as no game of theirs " \
        "ended at some player count" in page and "would pass the budget" not in page


def test_a_rerun_with_another_first_round_is_replayed_as_it_ran(tmp_path):
    """The folder keeps the chunk size of its first run; the rounds of a rerun with another
    ``--first-round`` are its own, and the report and ``verify`` replay those (they once
    replayed rounds of the chunk's size: a different table and an "interrupted" note)."""
    from experiments.store import open_results
    from experiments.verify import verify
    from reports import balance as B, recomputed

    out = tmp_path / "b"
    def search(first):
        code, text = run("balance", "moon", "--vary", "target_score=7,13,21", "--target", "turns<=130",
                         "--first-round", first, "--budget", 4000, "--seed", 2, "--no-progress", "--out", out)
        assert code == 0, text
        return pd.read_csv(out / "balance.csv", dtype={"meets": str, "turns<=130@3p:meets": str})

    search(200)
    table = search(100).set_index("target_score")
    assert table.loc[21, "games"] == 100  # decided in the rerun's first round, of 100 games
    record = json.loads((out / "study.json").read_text())
    assert record["chunk"] == 200 and record["first_round"] == 100
    st = B.load_study("b", out, open_results(out / "results"), record)
    again = recomputed.balance_table(st).set_index("target_score")
    for col in ("games", "meets", "turns<=130@3p:value", "turns<=130@3p:ci_low", "turns<=130@3p:ci_high"):
        assert list(again[col]) == list(table[col]), col
    (verdict,) = verify(out)
    assert verdict.ok and verdict.notes == [], verdict.lines()


def test_bad_balance_input_is_one_error_line():
    for extra, words in ((["--target", "speed<=3"], "unknown metric"),
                         (["--target", "turns<=3", "--budget", "10"], "the first round alone")):
        p = subprocess.run([sys.executable, "-m", "playlab.cli", "balance", "moon", "--vary", "target_score=7,21",
                            *extra], capture_output=True, text=True, timeout=300)
        assert p.returncode != 0 and p.stderr.startswith("error:") and words in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1


def test_the_games_own_metrics_count_what_they_say():
    from runtime.runner import RunConfig
    from simcore.games.shifting_stones_deck import load_deck

    fives = [c.id for c in load_deck() if c.points == 5]
    rows = np.full((4, 72), -1, np.int64)
    rows[0, fives[0] - 1] = 3           # game 0: one 5-point card scored
    rows[1, [f - 1 for f in fives]] = 1  # game 1: all of them
    frame = pd.DataFrame(rows, columns=[f"card_{i + 1}_scored" for i in range(72)])
    frame["truncated"] = [0, 0, 0, 1]   # game 3 is left out
    config = RunConfig.build("shifting-stones", 2, "random", {}, 0)
    value, lo, hi = bs.game_metrics("shifting-stones")["card_value_5"][1](frame, config)
    assert value == pytest.approx(5 * (1 / len(fives) + 1) / 3) and lo < value < hi
    moon = pd.DataFrame({"bid_5_contracts": [3, 1], "bid_5_made": [2, 1]})
    value, lo, hi = bs.game_metrics("moon")["make_bid_5"][1](moon, RunConfig.build("moon", 3, "random", {}, 0))
    assert value == 0.75 and 0 < lo < 0.75 < hi < 1
    assert bs.game_metrics("sequence-stacks") == {}
    assert bs.parse_target("card_value_5>=3", "shifting-stones").metric == "card_value_5"
    with pytest.raises(OptionError, match="unknown metric"):
        bs.parse_target("card_value_5>=3", "moon")
