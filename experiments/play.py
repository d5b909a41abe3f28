"""Playing one configuration (`playlab play`): a one-configuration study, its storage and
the seat summary."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments import tables
from runtime.runner import RunConfig

from .store import DEFAULT_CHUNK
from .study import Study, execute_study

# a progress bar appears by default when a run is long enough to wonder about
PROGRESS_MIN_GAMES = 200_000
# games per task without --out: big enough to keep threads busy, small enough for the
# progress bar to move
EXEC_CHUNK = 50_000

@dataclass
class RunOutcome:
    summary: "PlaySummary"
    seconds: float  # time spent simulating in this invocation
    simulated: int  # games simulated in this invocation (resumed ones excluded)
    frame: pd.DataFrame | None = None  # every game (only with keep_frame)
    note: str | None = None  # what was done with a store of more or fewer games


def execute(config: RunConfig, games: int, threads: int | None = None, out: str | None = None,
            progress: bool | None = None, chunk: int = DEFAULT_CHUNK, executor=None,
            keep_frame: bool = True) -> RunOutcome:
    """Games [0, games) of one configuration, through the study layer.  The summary is
    counted chunk by chunk; ``keep_frame=False`` keeps memory flat in the number of games."""
    import sys

    study = Study("play", [config], games, config.seed, chunk if out else min(chunk, EXEC_CHUNK))
    if progress is None:
        progress = games >= PROGRESS_MIN_GAMES and sys.stderr.isatty()
    summary = PlaySummary(config)
    outcome = execute_study(study, executor=executor, store=out, progress=progress, threads=threads,
                            on_chunk=lambda task, frame: summary.add(frame), keep_frame=keep_frame)
    return RunOutcome(summary, outcome.seconds, outcome.simulated, outcome.frame, outcome.note)


PLAY_COLUMNS = ["seat", "bot", "games", "wins", "shared_wins", "win_rate", "ci_low", "ci_high", "win_share",
                "share_low", "share_high", "mean_score"]


class PlaySummary:
    """Per-seat counts and sums over the games seen so far (any number of chunks)."""

    def __init__(self, config: RunConfig):
        self.config = config
        n = config.players
        self.games = 0
        self.decided = 0
        # decided games by win pattern (experiments.tables): the seat table the report computes
        # from the stored rows with the same function
        self.patterns = np.zeros(1 << n, np.int64)
        # a game that draws its first player (Moon's first bidder): the same tally by position
        # from the first player, the report's seat advantage for it
        self.first_col = getattr(config.info, "first_player_column", None)
        self.position_patterns = np.zeros(1 << n, np.int64)
        self.scores = np.zeros(n, np.int64)
        self.truncated = 0
        self.truncated_scores = np.zeros(n, np.int64)

    def add(self, frame: pd.DataFrame) -> "PlaySummary":
        from .results import seat_matrix

        n = self.config.players
        cut = frame["truncated"].to_numpy().astype(bool)
        decided = frame[~cut]
        self.games += len(frame)
        self.decided += len(decided)
        wins = seat_matrix(decided, "win", n)
        self.patterns += tables.win_pattern_counts(wins)
        if self.first_col is not None and self.first_col in decided.columns:
            from .fpa import by_position, positions_of

            self.position_patterns += tables.win_pattern_counts(
                by_position(wins, positions_of(decided, n, self.first_col)))
        self.scores += seat_matrix(decided, "score", n).sum(axis=0)
        self.truncated += int(cut.sum())
        self.truncated_scores += seat_matrix(frame[cut], "score", n).sum(axis=0)
        return self

    def table(self) -> pd.DataFrame:
        """Per seat: bot, wins (shared ones included) and shared wins, win rate over decided
        games with a 95% Wilson interval, win share (shared wins split) with its Wilson
        interval, mean score over decided games (``experiments.tables.seat_table``)."""
        seats = tables.seat_table(self.patterns, self.config.players)
        seats.insert(1, "bot", list(self.config.bot_labels))
        n = self.decided
        seats["mean_score"] = self.scores / n if n else np.nan
        return seats[PLAY_COLUMNS]

    def position_table(self) -> pd.DataFrame | None:
        """The seat table by position from the game's first player (None for a game whose
        seat 0 always plays first: then positions are seats)."""
        if self.first_col is None:
            return None
        t = tables.seat_table(self.position_patterns, self.config.players)
        return t.rename(columns={"seat": "position"})[["position"] + PLAY_COLUMNS[2:-1]]

    def truncation(self) -> dict:
        from .results import truncation_option

        config = self.config
        option = truncation_option(config.info)
        record = {"games": self.truncated, "share": self.truncated / self.games if self.games else 0.0,
                  "cap_option": option, "cap": config.variant.get(option) if option else None}
        if self.truncated:
            record["mean_scores"] = [float(v / self.truncated) for v in self.truncated_scores]
        return record


def seat_summary(config: RunConfig, frame: pd.DataFrame) -> pd.DataFrame:
    return PlaySummary(config).add(frame).table()


def summary_record(config: RunConfig, outcome: RunOutcome) -> dict:
    """The summary as JSON-able data (`play --json`)."""
    summary = outcome.summary
    return {"game": config.game, "players": config.players, "seed": config.seed,
            "bots": config.bot_labels, "variant": dict(config.variant), "games": summary.games,
            "seats": summary.table().to_dict(orient="records"),
            **({"positions": pos.to_dict(orient="records")} if (pos := summary.position_table()) is not None else {}),
            "truncated": summary.truncation(), "note": outcome.note,
            "simulated": outcome.simulated, "seconds": outcome.seconds}


def format_summary(config: RunConfig, outcome: RunOutcome) -> str:
    from .results import format_truncation, shared_wins_note

    table = outcome.summary.table()
    games = outcome.summary.games
    from simcore.options import format_value, players_text

    lines = [f"{config.info.title}: {games} games, {players_text(config.players)}, seed {config.seed}"]
    changed = {k: v for k, v in config.variant.items()
               if v != next(o.default for o in config.info.options if o.name == k)}
    if changed:
        lines.append("variant: " + ", ".join(f"{k}={format_value(v)}" for k, v in changed.items()))
    w = max([24] + [len(b) for b in table["bot"]])  # the bot column as wide as its longest name
    lines.append(f"{'seat':>4}  {'bot':<{w}} {'wins':>8} {'shared':>7}  {'win rate':>8}  {'95% CI':>17}  "
                 f"{'win share':>9}  {'95% CI':>17}  {'mean score':>10}")

    def ci(lo, hi):
        return f"[{lo:.4f}, {hi:.4f}]" if lo == lo else "n/a"

    def num(x):
        return f"{x:.4f}" if x == x else "n/a"

    for r in table.itertuples():
        lines.append(f"{r.seat:>4}  {r.bot:<{w}} {r.wins:>8} {r.shared_wins:>7}  {num(r.win_rate):>8}  "
                     f"{ci(r.ci_low, r.ci_high):>17}  {num(r.win_share):>9}  {ci(r.share_low, r.share_high):>17}  "
                     f"{r.mean_score:>10.2f}")
    pos = outcome.summary.position_table()
    if pos is not None:
        lines.append(f"by position from the first player ({outcome.summary.first_col}, drawn by the game; 0 = first):")
        for r in pos.itertuples():
            lines.append(f"{r.position:>4}  {'':<{w}} {r.wins:>8} {r.shared_wins:>7}  {num(r.win_rate):>8}  "
                         f"{ci(r.ci_low, r.ci_high):>17}  {num(r.win_share):>9}  "
                         f"{ci(r.share_low, r.share_high):>17}")
    note = shared_wins_note(int(table["shared_wins"].sum()))
    if note:
        lines.append(note)
    lines.append(format_truncation(outcome.summary.truncation(), games))
    if outcome.simulated:
        rate = outcome.simulated / outcome.seconds if outcome.seconds > 0 else float("inf")
        lines.append(f"simulated {outcome.simulated} games in {outcome.seconds:.2f} s: {rate:,.0f} games/s")
    else:
        lines.append("all games were already stored; nothing simulated")
    return "\n".join(lines)
