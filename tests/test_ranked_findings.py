"""The report's ranked findings come from the commands' own tests."""
from __future__ import annotations

import numpy as np
import pandas as pd
from click.testing import CliRunner

from playlab.cli import cli


def test_a_sweeps_findings_carry_the_p_values_the_command_printed(tmp_path):
    from reports.ranked import ranked
    from reports.recomputed import sweep_tests
    from reports.report import discover
    from simcore.games import load_game

    out = tmp_path / "sw"
    r = CliRunner().invoke(cli, ["sweep", "shifting-stones", "--vary", "bonus_points=0,2", "--bots", "greedy,greedy",
                                 "--games", "300", "--seed", "1", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    st = discover(out)[0]
    mine = sweep_tests(st)
    cli_tests = pd.read_csv(out / "sweep_tests.csv")
    assert list(mine["metric"]) == list(cli_tests["metric"])
    assert np.allclose(mine["p"].to_numpy(float), cli_tests["p"].to_numpy(float), equal_nan=True)
    result = ranked([st], {st.game: load_game(st.game).INFO})
    rows = result.table()
    # every tested comparison of the sweep and every setting's seat finding, once each
    tested = int(cli_tests["tested"].sum())
    assert (rows["test"] == "paired t-test against the baseline on the same deals").sum() == tested
    assert (rows["test"] == "chi-square of equal seats on sole wins").sum() == 3
    # the winner's margin moves with the bonus (p < 1e-3 in the command's table): it is on top
    assert rows.iloc[0]["holds"] and "margin" in rows.iloc[0]["text"]
    assert len(result.top) <= 10


def test_the_report_puts_at_most_ten_ranked_findings_on_top_and_folds_the_rest(tmp_path):
    from reports.report import build_report

    out = tmp_path / "sw"
    r = CliRunner().invoke(cli, ["sweep", "shifting-stones", "--vary", "bonus_points=0,1,2,4", "--bots",
                                 "greedy,greedy", "--games", "300", "--seed", "1", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    page = build_report(out)
    summary = page[page.index('<section id="summary">'):page.index("</section>", page.index('<section id="summary">'))]
    top = summary[:summary.index("<details>")]
    assert 1 <= top.count("<li>") <= 10
    assert "Holm-adjusted p" in top and "margin" in top
    assert summary[summary.index("<details>"):].count("<li>") > 0
