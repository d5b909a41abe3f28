"""`playlab report` and `playlab verify` on studies rerun into the same --out folder, and on
balance searches.  A rerun with fewer --games (or a balance search with a smaller --budget)
uses the first games of a store holding more, and writes its CSV tables and study.json from
those: the report shows exactly those games, not every stored one.  A balance search has no
baseline, lists every variant it ran, and a variant the race stopped early is not an
interrupted study (only a store lacking games its race played is)."""
import html as html_mod
import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from experiments.store import open_results
from experiments.verify import games_used, verify
from playlab.cli import main
from reports import balance as B
from reports import blocks as H
from reports import study as S

# both sides come from the same integer tallies (tests/test_figures_agree.py)
ATOL = 1e-9


def cli(capsys, *args):
    """The command's output, stdout then stderr (where a store's note goes)."""
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert exc.value.code == 0, err
    return out + err


def load(path):
    """The study as `playlab report` reads it: its record and its store, every chunk verified."""
    record = json.loads((path / "study.json").read_text())
    return B.load_study(path.name, path, open_results(path / "results", warn=False), record)


def page_text(capsys, path) -> str:
    """The report of ``path`` as plain text (tags, figures and scripts dropped)."""
    out = path.parent / f"{path.name}.html"
    cli(capsys, "report", path, "--out", out)
    t = out.read_text()
    t = re.sub(r"<(svg|style|script)\b.*?</\1>", " ", t, flags=re.S)
    return re.sub(r"\s+", " ", html_mod.unescape(re.sub(r"<[^>]+>", " ", t)))


def same(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), atol=ATOL, rtol=0, equal_nan=True)


def rerun(capsys, out, args, more, fewer):
    """``args`` with --games ``more``, then again into the same folder with ``fewer``."""
    cli(capsys, *args, "--games", more, "--seed", 1, "--threads", 1, "--no-progress", "--out", out)
    text = cli(capsys, *args, "--games", fewer, "--seed", 1, "--threads", 1, "--no-progress", "--out", out)
    assert f"holds {more} games" in text and f"using the first {fewer}" in text
    record = json.loads((out / "study.json").read_text())
    assert record["games_per_run"] == fewer
    return record


def check_games(st, record):
    """Every configuration shows the study's games_per_run, the first ones of the store."""
    per_run = st.frame.groupby("run")["index"].agg(["count", "max"])
    assert per_run["count"].tolist() == [record["games_per_run"]] * len(record["runs"])
    assert per_run["max"].tolist() == [record["games_per_run"] - 1] * len(record["runs"])


def test_an_fpa_rerun_with_fewer_games_is_reported_as_its_tables_say(capsys, tmp_path):
    out = tmp_path / "f1"
    record = rerun(capsys, out, ["fpa", "shifting-stones", "--bots", "greedy", "--players", "2-3"], 200, 100)
    st = load(out)
    check_games(st, record)
    fpa = pd.read_csv(out / "fpa.csv")
    adv = B.seat_advantage(st, None)
    assert adv[["players", "position"]].values.tolist() == fpa[["players", "seat"]].values.tolist()
    for mine, theirs in (("games", "games"), ("wins", "wins"), ("win_share", "win_share"), ("ci_low", "share_low"),
                         ("ci_high", "share_high"), ("win_rate", "win_rate"), ("rate_low", "ci_low")):
        same(adv[mine], fpa[theirs])
    # the per-card columns (read chunk by chunk apart from the frame) cover the same games
    assert sum(len(t) for *_, t in B.read_wide(st, "card_")) == len(st.frame)
    # the page: what was run, and the study's largest seat deviation as fpa.csv gives it
    text = page_text(capsys, out)
    total = record["games_per_run"] * len(record["runs"])
    assert f"{total:,} ({H.runs_text(len(record['runs']))})" in text
    worst = fpa.loc[(fpa["win_share"] - fpa["fair"]).abs().idxmax()]
    share = B.ci_text((worst.win_share, worst.share_low, worst.share_high))
    assert f"seat {int(worst.seat)} at {int(worst.players)} players takes a win share of {share}" in text


def test_a_sweep_rerun_with_fewer_games_is_reported_as_its_tables_say(capsys, tmp_path):
    out = tmp_path / "s1"
    record = rerun(capsys, out, ["sweep", "moon", "--vary", "target_score=7,13", "--bots", "greedy"], 100, 50)
    st = load(out)
    check_games(st, record)
    sw = pd.read_csv(out / "sweep.csv").set_index("setting")
    adv = B.seat_advantage(st, "first_bidder" if "first_bidder" in st.frame else None)
    ln = B.lengths(st).set_index("setting")
    assert sorted(ln.index) == sorted(sw.index)
    for setting, row in sw.iterrows():
        same([ln.loc[setting, c] for c in ("games", "mean_turns", "turns_low", "turns_high", "truncated_share")],
             [row["games"], row["mean_turns"], row["turns_low"], row["turns_high"], row["truncated_share"]])
        assert adv[adv["setting"] == setting]["games"].iloc[0] == row["decided"]


def test_a_tournament_rerun_with_fewer_games_is_reported_as_its_tables_say(capsys, tmp_path):
    out = tmp_path / "t1"
    record = rerun(capsys, out, ["tournament", "shifting-stones", "--bots", "random,greedy", "--boot", 0], 60, 30)
    st = load(out)
    check_games(st, record)
    win = pd.read_csv(out / "win_rates.csv")
    rep = B.bot_win_rates(st)
    assert list(rep["bot"]) == list(win["bot"])
    for col in ("games", "win_share_per_seat", "ci_low", "ci_high", "win_rate_per_seat"):
        same(rep[col], win[col])


def test_a_play_store_is_reported_with_the_games_its_last_play_printed(capsys, tmp_path):
    """A bare store (``play --out``) has no study.json: its manifest records the games the
    last ``play`` into it used, and the report shows those (it once showed every stored
    game, 1,000 where the command printed 300).  A store written before that field: all."""
    from experiments.store import read_manifest
    from reports.report import discover

    out = tmp_path / "p"
    cli(capsys, "play", "moon", "--bots", "random", "--games", 120, "--seed", 1, "--chunk", 60, "--out", out)
    text = cli(capsys, "play", "moon", "--bots", "random", "--games", 60, "--seed", 1, "--chunk", 60, "--out", out)
    assert read_manifest(out)["games_used"] == 60
    (st,) = discover(out)
    assert len(st.frame) == 60 and st.frame["index"].max() == 59
    printed = int(re.search(r"Three-Player Moon: (\d+) games", text).group(1))
    assert printed == 60
    page = page_text(capsys, out)
    assert "60 games in 1 run" in page
    cli(capsys, "play", "moon", "--bots", "random", "--games", 120, "--seed", 1, "--chunk", 60, "--out", out)
    assert len(discover(out)[0].frame) == 120
    # a store whose manifest has no games_used: every stored game, as before
    results = open_results(out, warn=False)
    record = {"kind": "play", "seed": 1, "runs": results.runs}
    assert games_used(record, results) is None
    assert len(B.load_study("p", out, results, record).frame) == 120


def test_a_sweeps_game_section_is_per_setting_and_its_findings_name_it(capsys, tmp_path):
    """The game's own section runs once per rule setting, each block headed and each finding
    named by it; pooled, a finding quoted one setting's figure as the study's, and labelled
    two settings at 2 players as "at 2 players and … at 2"."""
    out = tmp_path / "sw"
    cli(capsys, "sweep", "sequence-stacks", "--bots", "greedy,random", "--vary", "hand_size=3,7", "--games", 150,
        "--seed", 17, "--threads", 1, "--no-progress", "--out", out)
    page = page_text(capsys, out)
    for setting in ("hand_size=5 (baseline)", "hand_size=3", "hand_size=7"):
        assert f"Sequence Stacks: chips by colour ({setting})" in page
        assert f"Sequence Stacks (sw, {setting}): seats that play" in page
    assert not re.search(r"at 2 players and [0-9.]+ \[[0-9., ]+\] at 2\b", page)
    # the generic findings about one row of a per-setting table name its setting too
    assert re.search(r"Sequence Stacks \(sw, hand_size=[^)]*\)\)?: seat \d at 2 players takes a win share", page)


# ---- balance ----------------------------------------------------------------------------------
VALUES = ["7", "13", "21", "61"]  # Moon's default target_score (21) among them
BALANCE = ["balance", "moon", "--vary", f"target_score={','.join(VALUES)}", "--target", "turns<=130",
           "--first-round", 100, "--bots", "greedy", "--seed", 1, "--threads", 1, "--no-progress"]
# rounds of 100, 200, 400, 800 games (4 variants in round 1, then only the close call, 13,
# plays on): 400, 500, 700, 1100 games spent after each
BIG, SMALL = 1100, 500


@pytest.fixture(scope="module")
def searches(tmp_path_factory):
    """A search with the larger budget, and the same search rerun into it with the smaller one."""
    root = tmp_path_factory.mktemp("balance")
    for name, budgets in (("big", [BIG]), ("rerun", [BIG, SMALL])):
        for budget in budgets:
            with pytest.raises(SystemExit) as exc:
                main([str(a) for a in BALANCE] + ["--budget", str(budget), "--out", str(root / name)])
            assert exc.value.code == 0
    return root


def balance_csv(path):
    return pd.read_csv(path / "balance.csv", dtype={"meets": str, "target_score": str}).set_index("target_score")


def test_a_balance_search_names_every_variant_and_no_baseline(searches, capsys):
    st = load(searches / "big")
    labels = [f"target_score={v}" for v in VALUES]
    assert sorted(st.frame["setting"].unique()) == sorted(labels)  # no "(baseline)"
    assert S.options_text(st) == f"{len(VALUES)} settings: " + "; ".join(labels)
    text = page_text(capsys, searches / "big")
    assert "(baseline)" not in text and "; ".join(labels) in text


def test_a_sweep_still_marks_its_baseline():
    record = {"kind": "sweep", "vary": {"target_score": ["7"]}, "baseline_run": 0}
    runs = [{"variant": {"target_score": 21}}, {"variant": {"target_score": 7}}]
    assert list(B.setting_labels(record, runs, np.array([0, 1]))) == ["target_score=21 (baseline)", "target_score=7"]


@pytest.mark.parametrize("name", ["big", "rerun"])
def test_a_balance_report_uses_the_games_the_race_gave_each_variant(searches, name):
    out = searches / name
    record = json.loads((out / "study.json").read_text())
    table = balance_csv(out)
    st = load(out)
    variant = st.frame.groupby("target_score")["index"].count()
    assert {str(v): int(n) for v, n in variant.items()} == table["games"].to_dict()
    assert len(st.frame) == record["games_spent"] == table["games"].sum()
    # the variants were given different numbers of games: the test can tell them apart
    assert table["games"].nunique() > 1
    if name == "rerun":  # the store holds the larger search's games too
        assert len(open_results(out / "results", warn=False).frame(columns=["run"])) > len(st.frame)


@pytest.mark.parametrize("name", ["big", "rerun"])
def test_verify_does_not_call_a_finished_balance_search_interrupted(searches, name):
    (verdict,) = verify(searches / name)
    assert verdict.ok and verdict.notes == [], verdict.lines()


def test_verify_names_the_games_an_unfinished_balance_search_lacks(searches, capsys, tmp_path):
    """The search of the smaller budget with the record of the larger one: its store lacks the
    games the larger search's next round played (as a search stopped before its end does)."""
    out = tmp_path / "short"
    cli(capsys, *BALANCE, "--budget", SMALL, "--out", out)
    small, big = balance_csv(out), balance_csv(searches / "big")
    shutil.copy(searches / "big" / "study.json", out / "study.json")
    (verdict,) = verify(out)
    lacking = [v for v in VALUES if big.loc[v, "games"] > small.loc[v, "games"]]
    assert lacking and verdict.ok
    # each round doubles the games of the variants still undecided
    assert len(verdict.notes) == len(lacking)
    for v, note in zip(lacking, verdict.notes):
        held = small.loc[v, "games"]
        assert note.startswith(f"configuration {VALUES.index(v)} holds {held} of the {2 * held} games round ")
        assert note.endswith("(an interrupted study; a rerun completes it)")
