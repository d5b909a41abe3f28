"""Playing one configuration (`playlab play`): a one-configuration study, its storage and
the seat summary."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from reports.stats import wilson_interval
from simcore.runner import RunConfig

from .store import DEFAULT_CHUNK
from .study import Study, execute_study

# a progress bar appears by default when a run is long enough to wonder about
PROGRESS_MIN_GAMES = 200_000
# games per task without --out: big enough to keep threads busy, small enough for the
# progress bar to move
EXEC_CHUNK = 50_000

@dataclass
class RunOutcome:
    frame: pd.DataFrame
    seconds: float  # time spent simulating in this invocation
    simulated: int  # games simulated in this invocation (resumed ones excluded)


def execute(config: RunConfig, games: int, threads: int | None = None, out: str | None = None,
            progress: bool | None = None, chunk: int = DEFAULT_CHUNK, executor=None) -> RunOutcome:
    """Games [0, games) of one configuration, through the study layer."""
    import sys

    study = Study("play", [config], games, config.seed, chunk if out else min(chunk, EXEC_CHUNK))
    if progress is None:
        progress = games >= PROGRESS_MIN_GAMES and sys.stderr.isatty()
    outcome = execute_study(study, executor=executor, store=out, progress=progress, threads=threads)
    return RunOutcome(outcome.frame, outcome.seconds, outcome.simulated)


def seat_summary(config: RunConfig, frame: pd.DataFrame) -> pd.DataFrame:
    """Per seat: bot, wins (shared ones included) and shared wins, win rate over decided
    games with a 95% Wilson interval, mean score over decided games."""
    from .results import shared_win_mask

    decided = frame[~frame["truncated"]]
    n = len(decided)
    shared = shared_win_mask(decided, config.players)
    rows = []
    for s in range(config.players):
        win = decided[f"win_{s}"].to_numpy() > 0
        wins = int(win.sum())
        lo, hi = wilson_interval(wins, n)
        rows.append({
            "seat": s,
            "bot": config.bot_labels[s],
            "games": n,
            "wins": wins,
            "shared_wins": int((win & shared).sum()),
            "win_rate": wins / n if n else float("nan"),
            "ci_low": lo,
            "ci_high": hi,
            "mean_score": float(decided[f"score_{s}"].mean()) if n else float("nan"),
        })
    return pd.DataFrame(rows)


def summary_record(config: RunConfig, outcome: RunOutcome) -> dict:
    """The summary as JSON-able data (`play --json`)."""
    from .results import truncation_record

    frame = outcome.frame
    return {"game": config.game, "players": config.players, "seed": config.seed,
            "bots": config.bot_labels, "variant": dict(config.variant), "games": len(frame),
            "seats": seat_summary(config, frame).to_dict(orient="records"),
            "truncated": truncation_record(config, frame),
            "simulated": outcome.simulated, "seconds": outcome.seconds}


def format_summary(config: RunConfig, outcome: RunOutcome) -> str:
    from .results import shared_wins_note, truncation_note

    frame = outcome.frame
    table = seat_summary(config, frame)
    games = len(frame)
    lines = [f"{config.info.title}: {games} games, {config.players} players, seed {config.seed}"]
    changed = {k: v for k, v in config.variant.items()
               if v != next(o.default for o in config.info.options if o.name == k)}
    if changed:
        lines.append("variant: " + ", ".join(f"{k}={v}" for k, v in changed.items()))
    lines.append(f"{'seat':>4}  {'bot':<24} {'wins':>8} {'shared':>7}  {'win rate':>8}  {'95% CI':>17}  {'mean score':>10}")
    for r in table.itertuples():
        ci = f"[{r.ci_low:.4f}, {r.ci_high:.4f}]" if r.ci_low == r.ci_low else "n/a"
        rate = f"{r.win_rate:.4f}" if r.win_rate == r.win_rate else "n/a"
        lines.append(f"{r.seat:>4}  {r.bot:<24} {r.wins:>8} {r.shared_wins:>7}  {rate:>8}  {ci:>17}  {r.mean_score:>10.2f}")
    note = shared_wins_note(int(table["shared_wins"].sum()))
    if note:
        lines.append(note)
    lines.append(truncation_note(config, frame))
    if outcome.simulated:
        rate = outcome.simulated / outcome.seconds if outcome.seconds > 0 else float("inf")
        lines.append(f"simulated {outcome.simulated} games in {outcome.seconds:.2f} s: {rate:,.0f} games/s")
    else:
        lines.append("all games were already stored; nothing simulated")
    return "\n".join(lines)
