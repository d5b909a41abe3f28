"""`playlab sweep`: the same games under each value of one or more rule options.

Every value (and the baseline, all defaults, always included) is one configuration of
the study, on the one seed and the same game indices, so game *i* starts from the same
chance stream under every value and each value is compared with the baseline deal by
deal.  Per value: seat advantage (seat 0's win rate against 1/n), win rate per bot when
the bots differ, game length (turns, decisions), score spread (winner minus runner-up)
and the truncated share; each paired against the baseline, tested (paired t-test on the
per-deal differences) and corrected for multiple comparisons (Holm).

The collector keeps, per configuration, one float32 value per game and metric, which is
what the paired comparison needs.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from experiments import stats
from simcore.games import load_game
from simcore.options import OptionError, players_text
from runtime.runner import RunConfig

from .fpa import first_vs_fair, win_shares
from .results import seat_matrix
from .study import Study, parse_assignments

BASE_METRICS = ("seat0_share", "turns", "decisions", "margin", "truncated")
METRIC_WORDS = {
    "seat0_share": "seat 0's win share (a shared win split among its winners; fair = 1/n)",
    "turns": "turns per decided game",
    "decisions": "decisions per decided game",
    "margin": "winner minus runner-up score (decided games)",
    "truncated": "share of games truncated",
}


def parse_vary(game: str, items: Sequence[str]) -> dict[str, list]:
    """``name=v1,v2,…`` per item; every name an option of the game, every value valid."""
    info = load_game(game).INFO
    by_name = {o.name: o for o in info.options}
    if not items:
        raise OptionError("sweep needs at least one --vary name=v1,v2,…")
    grid: dict[str, list] = {}
    for name, vals in parse_assignments(items, "--vary", OptionError).items():
        if name not in by_name:
            raise OptionError(f"--vary: unknown option {name!r} for {game} (options: {', '.join(by_name)})")
        parsed = []
        for v in vals:
            value = by_name[name].parse(v)
            if value in parsed:  # two spellings of one value (true and 1)
                raise OptionError(f"--vary {name + '=' + ','.join(vals)!r}: {v} is the same value as an earlier one")
            parsed.append(value)
        grid[name] = parsed
    return grid


def build(game: str, vary: Sequence[str], players: int | None, bots: str, games: int, seed: int,
          chunk: int | None = None) -> Study:
    grid = parse_vary(game, vary)
    base = RunConfig.build(game, players, bots, {}, seed)
    names = list(grid)
    configs = [base]
    points = [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]
    for point in points:
        config = RunConfig.build(game, base.players, bots, point, seed)
        if config.variant != base.variant and all(config.variant != c.variant for c in configs):
            configs.append(config)
    kw = {} if chunk is None else {"chunk": chunk}
    return Study("sweep", configs, games, seed,
                 meta={"vary": {n: [str(v) for v in grid[n]] for n in names}, "baseline_run": 0,
                       "players": base.players, "bots": base.bot_labels}, **kw)


def value_label(study: Study, run: int) -> str:
    names = list(study.meta["vary"])
    v = study.configs[run].variant
    text = ", ".join(f"{n}={_fmt(v[n])}" for n in names)
    return text + (" (baseline)" if run == study.meta["baseline_run"] else "")


def _fmt(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


class _Sums:
    """Count, sum, moments, extremes of a metric's values (NaN: no value) over chunks."""

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.moments = stats.Moments()
        self.lo = np.inf
        self.hi = -np.inf

    def add(self, x: np.ndarray) -> None:
        x = x[~np.isnan(x)]
        self.count += x.size
        self.total += float(x.sum())
        self.moments.add(x)
        if x.size:
            self.lo, self.hi = min(self.lo, float(x.min())), max(self.hi, float(x.max()))

    def mean(self) -> float:
        return self.total / self.count if self.count else float("nan")


class _Pair:
    """A metric of one setting against the baseline on the deals both give it a value."""

    def __init__(self):
        self.value, self.baseline = _Sums(), _Sums()
        self.a, self.b, self.d = stats.Moments(), stats.Moments(), stats.Moments()
        self.differ = False

    def add(self, a: np.ndarray, b: np.ndarray) -> None:
        self.value.add(a)
        self.baseline.add(b)
        ok = ~(np.isnan(a) | np.isnan(b))
        self.a.add(a[ok])
        self.b.add(b[ok])
        self.d.add(a[ok] - b[ok])
        self.differ = self.differ or bool((a[ok] != b[ok]).any())


class Collector:
    """Per-game metrics of each setting, folded chunk by chunk into sums and moments (the
    summary and the paired tests need nothing else).  The settings of one range of deals
    are paired deal by deal, so a range is held until every setting of it has arrived
    (``Study.tasks`` is chunk-major: one range at a time, locally)."""

    def __init__(self, study: Study):
        self.study = study
        labels = study.configs[0].bot_labels
        self.bot_names = sorted(set(labels)) if len(set(labels)) > 1 else []
        self.base = study.meta["baseline_run"]
        runs = range(len(study.configs))
        self.games = {r: 0 for r in runs}
        self.sums = {r: {m: _Sums() for m in ("seat0_win", *self.metrics())} for r in runs}
        self.pairs = {(r, m): _Pair() for r in runs if r != self.base for m in self.metrics()}
        self.pending: dict[int, dict[int, pd.DataFrame]] = {}

    def metrics(self) -> list[str]:
        return list(BASE_METRICS) + [f"win:{b}" for b in self.bot_names]

    def __call__(self, task, frame: pd.DataFrame) -> None:
        n = task.config.players
        trunc = frame["truncated"].astype(bool).to_numpy()
        nan_if_trunc = np.where(trunc, np.nan, 1.0)
        wins = seat_matrix(frame, "win", n).astype(np.float32)
        scores = np.sort(seat_matrix(frame, "score", n), axis=1)
        cols = {
            "index": frame["index"].to_numpy(np.int64),
            "seat0_win": wins[:, 0] * nan_if_trunc,
            "seat0_share": win_shares(wins)[:, 0] * nan_if_trunc,
            "turns": frame["turns"].to_numpy(np.float64) * nan_if_trunc,
            "decisions": frame["decisions"].to_numpy(np.float64) * nan_if_trunc,
            "margin": (scores[:, -1] - scores[:, -2]) * nan_if_trunc,
            "truncated": trunc.astype(np.float64),
        }
        labels = task.config.bot_labels
        for b in self.bot_names:
            seats = [s for s, label in enumerate(labels) if label == b]
            cols[f"win:{b}"] = wins[:, seats].mean(axis=1) * nan_if_trunc
        part = pd.DataFrame(cols)
        for c in part.columns[1:]:
            part[c] = part[c].astype(np.float32)
        part = part.sort_values("index").reset_index(drop=True)
        self.games[task.run] += len(part)
        for m, s in self.sums[task.run].items():
            s.add(part[m].to_numpy(np.float64))
        waiting = self.pending.setdefault(task.start, {})
        waiting[task.run] = part
        if len(waiting) == len(self.study.configs):
            self._pair(self.pending.pop(task.start))

    def _pair(self, parts: dict[int, pd.DataFrame]) -> None:
        base = parts[self.base]
        for r, f in parts.items():
            if r == self.base:
                continue
            assert (f["index"].to_numpy() == base["index"].to_numpy()).all(), "sweep values must share the deals"
            for m in self.metrics():
                self.pairs[(r, m)].add(f[m].to_numpy(np.float64), base[m].to_numpy(np.float64))

    def finish(self) -> None:
        if self.pending:
            raise ValueError("a sweep summary needs every setting of every range of deals")


def _first_vs_fair(s: _Sums, n: int) -> float:
    """``first_vs_fair`` of the seat-0 shares from their moments."""
    m = s.moments
    if m.n < 2 or s.lo == s.hi:
        return float("nan")
    return float(2 * sps.t.sf(abs((m.mean - 1.0 / n) / m.sem()), m.n - 1))


def summarize(study: Study, collector: Collector) -> dict[str, pd.DataFrame]:
    collector.finish()
    names = list(study.meta["vary"])
    n = study.configs[0].players
    rows = []
    for r, config in enumerate(study.configs):
        s = collector.sums[r]
        decided = s["seat0_win"].count
        wins0 = int(round(s["seat0_win"].total))
        lo, hi = stats.wilson_interval(wins0, decided)
        row = {"run": r, **{k: config.variant[k] for k in names}, "baseline": r == study.meta["baseline_run"],
               "games": collector.games[r], "decided": decided, "seat0_win_rate": wins0 / decided if decided else np.nan,
               "ci_low": lo, "ci_high": hi, "fair": 1.0 / n,
               "seat0_share": s["seat0_share"].mean() if decided else np.nan}
        row["seat_advantage"] = row["seat0_share"] - 1.0 / n
        row["p_seat0_fair"] = _first_vs_fair(s["seat0_share"], n)
        for m in ("turns", "decisions", "margin"):
            row[f"mean_{m}"] = s[m].mean() if decided else np.nan
        row["truncated_share"] = s["truncated"].mean()
        for b in collector.bot_names:
            row[f"win_rate:{b}"] = s[f"win:{b}"].mean() if decided else np.nan
        rows.append(row)
    summary = pd.DataFrame(rows)

    tests = []
    for r in range(len(study.configs)):
        if r == study.meta["baseline_run"]:
            continue
        for m in collector.metrics():
            pair = collector.pairs[(r, m)]
            test = {"run": r, **{k: study.configs[r].variant[k] for k in names}, "metric": m,
                    "value": pair.value.mean(), "baseline_value": pair.baseline.mean(), "pairs": pair.d.n}
            if pair.d.n >= 2:
                se_paired = pair.d.sem()
                test.update(diff=pair.d.mean, se_paired=se_paired,
                            se_unpaired=float(np.sqrt(pair.a.sem() ** 2 + pair.b.sem() ** 2)))
                if not pair.differ:
                    test["p"] = 1.0  # the very same games: nothing differs
                elif se_paired == 0:
                    test["p"] = 0.0  # every deal moved by the same amount
                else:
                    test["p"] = float(2 * sps.t.sf(abs(pair.d.mean / se_paired), pair.d.n - 1))
            else:
                test.update(diff=np.nan, se_paired=np.nan, se_unpaired=np.nan, p=np.nan)
            tests.append(test)
    tests_df = pd.DataFrame(tests)
    if len(tests_df):
        reject, adjusted = stats.adjust_pvalues(tests_df["p"].to_numpy(), method="holm")
        tests_df["p_holm"] = adjusted
        tests_df["differs"] = reject
    return {"sweep": summary, "sweep_tests": tests_df}


def format_tables(study: Study, collector: Collector, tables: dict[str, pd.DataFrame]) -> str:
    c0 = study.configs[0]
    names = list(study.meta["vary"])
    lines = [f"{c0.info.title} sweep of {', '.join(names)}: {players_text(c0.players)}, bots "
             f"{','.join(c0.bot_labels)}, the same {study.games} games (seed {study.seed}) under each of "
             f"{len(study.configs)} settings; baseline = all defaults"]
    s = tables["sweep"].copy()
    s.insert(0, "setting", [value_label(study, r) for r in s["run"]])
    s["seat0 95% CI"] = [f"[{a:.4f}, {b:.4f}]" for a, b in zip(s["ci_low"], s["ci_high"])]
    cols = ["setting", "decided", "seat0_win_rate", "seat0 95% CI", "seat0_share", "seat_advantage", "mean_turns",
            "mean_decisions", "mean_margin", "truncated_share"] + [c for c in s.columns if c.startswith("win_rate:")]
    lines.append(s[cols].to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    lines.append(f"seat0_win_rate counts a shared win for every sharer; seat0_share splits it among them, and "
                 f"seat_advantage = seat0_share - 1/{c0.players}; length, margin (winner minus runner-up score) and "
                 "win rates are over decided games; truncated games are left out of them")
    t = tables["sweep_tests"]
    if len(t):
        flagged = t[t["differs"]]
        lines.append("")
        lines.append(f"against the baseline on the same deals (paired t-test, Holm over {len(t)} comparisons): "
                     f"{len(flagged)} differ at 5%")
        show = flagged if len(flagged) else t.head(0)
        if len(show):
            view = show.copy()
            view.insert(0, "setting", [value_label(study, r) for r in view["run"]])
            lines.append(view[["setting", "metric", "value", "baseline_value", "diff", "se_paired", "se_unpaired",
                               "p_holm"]].to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        lines.append("se_paired: standard error of the difference from the paired deals; se_unpaired: what "
                     "independent deals would give (full table in sweep_tests.csv / --json)")
        same = [r for r, g in t.groupby("run") if (g["diff"].fillna(0) == 0).all() and (g["se_paired"].fillna(0) == 0).all()]
        for r in same:
            lines.append(f"{value_label(study, r)} played exactly the baseline's games (the same rules at "
                         f"{players_text(c0.players)})")
    return "\n".join(lines)
