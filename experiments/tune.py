"""Tuning a bot's parameters by simulation (`playlab tune`).

Each candidate setting plays every seat in turn against a fixed field of opponents, with
the same seed for every candidate (common random numbers: candidates meet the same deals,
so differences between them are not deal luck).  The table ranks candidates by win rate
over decided games, with 95% Wilson intervals.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import pandas as pd

from bots.registry import BotError
from experiments.stats import wilson_interval
from runtime.runner import RunConfig

from .study import Study, parse_assignments, run_study


def parse_grid(items: Sequence[str]) -> dict[str, list[str]]:
    """``--grid name=v1,v2,…`` items (the bot checks the names and values)."""
    return parse_assignments(items, "--grid", BotError)


def build(game: str, bot: str, grid: dict[str, list[str]], against: str, players: int | None,
          games: int, seed: int, variant: dict | None = None) -> Study:
    """One configuration per (candidate, seat): the candidate in that seat, ``against`` in
    the others, all on the same seed (candidates meet the same deals)."""
    names = list(grid)
    n = RunConfig.build(game, players, against, variant, seed).players
    configs, candidates = [], []
    for values in itertools.product(*(grid[k] for k in names)):
        spec = ":".join([bot] + [f"{k}={v}" for k, v in zip(names, values)])
        candidates.append((dict(zip(names, values)), spec))
        for seat in range(n):
            specs = [against] * n
            specs[seat] = spec
            configs.append(RunConfig.build(game, n, specs, variant, seed))
    return Study("tune", configs, games, seed, meta={"bot": bot, "grid": grid, "against": against,
                                                     "players": n, "candidates": [c for _, c in candidates]})


class Collector:
    """Per configuration: decided games and the candidate's wins (its seat is known)."""

    def __init__(self, study: Study):
        self.n = study.meta["players"]
        self.decided = np.zeros(len(study.configs), np.int64)
        self.wins = np.zeros(len(study.configs), np.int64)
        self.games = np.zeros(len(study.configs), np.int64)

    def __call__(self, task, frame: pd.DataFrame) -> None:
        seat = task.run % self.n
        ok = ~frame["truncated"].astype(bool).to_numpy()
        self.games[task.run] += len(frame)
        self.decided[task.run] += int(ok.sum())
        self.wins[task.run] += int(frame[f"win_{seat}"].to_numpy()[ok].sum())


def summarize(study: Study, collector: Collector) -> pd.DataFrame:
    n = study.meta["players"]
    names = list(study.meta["grid"])
    rows = []
    for c, spec in enumerate(study.meta["candidates"]):
        runs = slice(c * n, (c + 1) * n)
        wins, decided = int(collector.wins[runs].sum()), int(collector.decided[runs].sum())
        lo, hi = wilson_interval(wins, decided)
        # the grid's values are the spec's last parts (build appends them): the bot's own
        # parameters (`learned:model=PATH`) come first and are no column of the grid
        parts = spec.split(":")
        values = parts[len(parts) - len(names):]
        rows.append({**{k: v.split("=", 1)[1] for k, v in zip(names, values)}, "bot": spec,
                     "games": int(collector.games[runs].sum()), "decided": decided, "wins": wins,
                     "win_rate": wins / decided if decided else float("nan"), "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows).sort_values("win_rate", ascending=False, kind="stable").reset_index(drop=True)


def tune(game: str, bot: str, grid: dict[str, list[str]], against: str, players: int | None,
         games: int, seed: int, variant: dict | None = None, threads: int | None = None,
         progress: bool | None = None) -> pd.DataFrame:
    study = build(game, bot, grid, against, players, games, seed, variant)
    collector = Collector(study)
    run_study(study, collector, progress=progress, threads=threads)
    return summarize(study, collector)
