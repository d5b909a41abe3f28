"""Playing a configured run: chunked execution, progress, storage and the seat summary."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reports.stats import wilson_interval
from simcore.runner import Batch, RunConfig, set_threads, to_frame

from .store import DEFAULT_CHUNK, ResultsStore

# a progress bar appears when a run is long enough to wonder about
PROGRESS_MIN_GAMES = 200_000
# games per kernel call without --out: big enough to keep threads busy, small enough
# for the progress bar to move
EXEC_CHUNK = 50_000


@dataclass
class RunOutcome:
    frame: pd.DataFrame
    seconds: float  # time spent simulating in this invocation
    simulated: int  # games simulated in this invocation (resumed ones excluded)


def execute(config: RunConfig, games: int, threads: int | None = None, out: str | None = None,
            progress: bool | None = None, chunk: int = DEFAULT_CHUNK) -> RunOutcome:
    set_threads(threads)
    batch = Batch(config)
    batch.run(0, min(games, 1))  # compile (or load from cache) before timing starts
    store = ResultsStore.open(out, config.describe(), chunk) if out else None
    if store is not None:
        todo = [c for c in store.chunks(games) if not store.has(*c)]
    else:
        todo = [(s, min(EXEC_CHUNK, games - s)) for s in range(0, games, EXEC_CHUNK)]
    if progress is None:
        progress = games >= PROGRESS_MIN_GAMES and sys.stderr.isatty()
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=sum(c for _, c in todo), unit="game", file=sys.stderr, leave=False,
                   desc=f"{config.game}", smoothing=0.1)
    frames = []
    seconds = 0.0
    try:
        for start, count in todo:
            t0 = time.perf_counter()
            rows = batch.run(start, count)
            seconds += time.perf_counter() - t0
            frame = to_frame(config, rows)
            if store is not None:
                store.write(start, frame)
            else:
                frames.append(frame)
            if bar is not None:
                bar.update(count)
    finally:
        if bar is not None:
            bar.close()
    if store is not None:
        frame = store.load(games)
    else:
        frame = pd.concat(frames, ignore_index=True) if frames else to_frame(config, np.zeros((0, len(config.columns())), np.int64))
    return RunOutcome(frame, seconds, sum(c for _, c in todo))


def seat_summary(config: RunConfig, frame: pd.DataFrame) -> pd.DataFrame:
    """Per seat: bot, wins, win rate over decided games with a 95% Wilson interval,
    mean score (all games)."""
    decided = frame[~frame["truncated"]]
    n = len(decided)
    rows = []
    for s in range(config.players):
        wins = int(decided[f"win_{s}"].sum())
        lo, hi = wilson_interval(wins, n)
        rows.append({
            "seat": s,
            "bot": config.bot_labels[s],
            "wins": wins,
            "win_rate": wins / n if n else float("nan"),
            "ci_low": lo,
            "ci_high": hi,
            "mean_score": float(frame[f"score_{s}"].mean()) if len(frame) else float("nan"),
        })
    return pd.DataFrame(rows)


def format_summary(config: RunConfig, outcome: RunOutcome) -> str:
    frame = outcome.frame
    table = seat_summary(config, frame)
    games = len(frame)
    truncated = int(frame["truncated"].sum())
    lines = [f"{config.info.title}: {games} games, {config.players} players, seed {config.seed}"]
    changed = {k: v for k, v in config.variant.items()
               if v != next(o.default for o in config.info.options if o.name == k)}
    if changed:
        lines.append("variant: " + ", ".join(f"{k}={v}" for k, v in changed.items()))
    lines.append(f"{'seat':>4}  {'bot':<24} {'wins':>8}  {'win rate':>8}  {'95% CI':>17}  {'mean score':>10}")
    for r in table.itertuples():
        ci = f"[{r.ci_low:.4f}, {r.ci_high:.4f}]" if r.ci_low == r.ci_low else "n/a"
        rate = f"{r.win_rate:.4f}" if r.win_rate == r.win_rate else "n/a"
        lines.append(f"{r.seat:>4}  {r.bot:<24} {r.wins:>8}  {rate:>8}  {ci:>17}  {r.mean_score:>10.2f}")
    pct = 100.0 * truncated / games if games else 0.0
    lines.append(f"truncated games: {truncated} ({pct:.1f}%); win rates are over the {games - truncated} decided games")
    if outcome.simulated:
        rate = outcome.simulated / outcome.seconds if outcome.seconds > 0 else float("inf")
        lines.append(f"simulated {outcome.simulated} games in {outcome.seconds:.2f} s: {rate:,.0f} games/s")
    else:
        lines.append("all games were already stored; nothing simulated")
    return "\n".join(lines)
