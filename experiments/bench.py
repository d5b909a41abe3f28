"""Throughput measurement (`playlab bench`): games/s and decisions/s per game and bots."""
from __future__ import annotations

import time
from typing import Sequence

from simcore.runner import Batch, RunConfig, set_threads

# a measurement keeps doubling its game count until one batch takes this long
MIN_SECONDS = 1.0
FIRST_GAMES = 1000


def measure(config: RunConfig, threads: int, games: int | None = None) -> dict:
    threads = set_threads(threads)
    batch = Batch(config)
    batch.run(0, 8)  # compile / load from cache outside the timing
    n = games or FIRST_GAMES
    while True:
        t0 = time.perf_counter()
        rows = batch.run(0, n)
        seconds = time.perf_counter() - t0
        if games is not None or seconds >= MIN_SECONDS:
            break
        n *= 2 if seconds > MIN_SECONDS / 8 else 8
    cols = config.columns()
    decisions = int(rows[:, cols.index("decisions")].sum())
    record = {
        "game": config.game,
        "players": config.players,
        "bots": config.bot_labels,
        "threads": threads,
        "games": n,
        "seconds": round(seconds, 4),
        "games_per_s": n / seconds,
        "decisions_per_s": decisions / seconds,
        "decisions_per_game": decisions / n,
        "truncated": int(rows[:, cols.index("truncated")].sum()),
    }
    for col in config.info.rate_columns:
        record[f"{col}_per_s"] = int(rows[:, cols.index(col)].sum()) / seconds
    return record


def run_bench(configs: Sequence[RunConfig], threads: Sequence[int], games: int | None = None) -> list[dict]:
    return [measure(c, t, games) for c in configs for t in threads]


def format_table(records: list[dict]) -> str:
    head = f"{'game':<16} {'players':>7} {'bots':<16} {'threads':>7} {'games':>9} {'games/s':>12} {'decisions/s':>14}  other"
    lines = [head]
    for r in records:
        bots = ",".join(sorted(set(r["bots"])))
        other = "  ".join(f"{k}={v:,.0f}" for k, v in r.items()
                          if k.endswith("_per_s") and k not in ("games_per_s", "decisions_per_s"))
        lines.append(f"{r['game']:<16} {r['players']:>7} {bots:<16} {r['threads']:>7} {r['games']:>9} "
                     f"{r['games_per_s']:>12,.0f} {r['decisions_per_s']:>14,.0f}  {other}")
    return "\n".join(lines)
