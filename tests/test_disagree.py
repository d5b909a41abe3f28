"""tools/disagree.py: it replays the run's own games, and tallies exactly where the asked
bot would have moved differently."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from runtime.runner import Batch, RunConfig
from simcore.engine import COL_DECISIONS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import disagree  # noqa: E402


def test_it_plays_the_runs_own_games():
    # solo: the seat takes every decision, so its count per run is the runner's
    table, pairs, _ = disagree.disagreements("shifting-stones", "greedy", "greedy", games=4, seed=3)
    rows = Batch(RunConfig.build("shifting-stones", 1, "greedy", {}, 3)).run(0, 4)
    assert table["decisions"].sum() == rows[:, COL_DECISIONS].sum()
    # the bot asked about its own moves never differs
    assert table["differ"].sum() == 0 and not pairs


def test_it_counts_where_the_asked_bot_differs():
    table, pairs, shown = disagree.disagreements("sequence-stacks", "greedy,greedy", "random", seat=1,
                                                 games=3, seed=5, show=2)
    assert table["differ"].sum() == sum(pairs.values()) > 0
    assert (table["differ"] <= table["decisions"]).all()
    assert np.all((table["ci_low"] <= table["rate"]) & (table["rate"] <= table["ci_high"]))
    assert len(shown) == 2 and shown[0].startswith("game ")
    # asking changes nothing: the seat's decisions are the same whichever bot is asked
    same, _, _ = disagree.disagreements("sequence-stacks", "greedy,greedy", "greedy", seat=1, games=3, seed=5)
    assert same["decisions"].sum() == table["decisions"].sum() and same["differ"].sum() == 0


def test_bad_seat_is_one_error_line(capsys):
    assert disagree.main(["sequence-stacks", "--bots", "greedy,greedy", "--ask", "random", "--seat", "2"]) == 2
    assert capsys.readouterr().err.strip() == "error: --seat must be in 0..1"
