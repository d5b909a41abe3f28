"""Tuning a bot's parameters by simulation (`playlab tune`).

Each candidate setting plays every seat in turn against a fixed field of opponents, with
the same seed for every candidate (common random numbers: candidates meet the same deals,
so differences between them are not deal luck).  The table ranks candidates by win rate
over decided games, with 95% Wilson intervals.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import pandas as pd

from bots.registry import BotError
from reports.stats import wilson_interval
from simcore.runner import Batch, RunConfig, set_threads


def parse_grid(items: Sequence[str]) -> dict[str, list[str]]:
    grid: dict[str, list[str]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not name.strip() or not vals:
            raise BotError(f"malformed --grid {item!r}: expected name=v1,v2,…")
        grid[name.strip()] = vals
    return grid


def tune(game: str, bot: str, grid: dict[str, list[str]], against: str, players: int | None,
         games: int, seed: int, variant: dict | None = None, threads: int | None = None) -> pd.DataFrame:
    set_threads(threads)
    names = list(grid)
    rows = []
    for values in itertools.product(*(grid[n] for n in names)):
        spec = ":".join([bot] + [f"{n}={v}" for n, v in zip(names, values)])
        probe = RunConfig.build(game, players, against, variant, seed)
        n = probe.players
        wins = decided = 0
        for seat in range(n):
            specs = [against] * n
            specs[seat] = spec
            config = RunConfig.build(game, n, specs, variant, seed)
            frame_rows = Batch(config).run(0, games)
            cols = config.columns()
            ok = frame_rows[:, cols.index("truncated")] == 0
            decided += int(ok.sum())
            wins += int(frame_rows[ok, cols.index(f"win_{seat}")].sum())
        lo, hi = wilson_interval(wins, decided)
        rows.append({**dict(zip(names, values)), "bot": spec, "games": games * n, "decided": decided,
                     "wins": wins, "win_rate": wins / decided if decided else float("nan"),
                     "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows).sort_values("win_rate", ascending=False, kind="stable").reset_index(drop=True)
