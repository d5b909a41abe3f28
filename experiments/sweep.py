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


class Collector:
    def __init__(self, study: Study):
        self.study = study
        labels = study.configs[0].bot_labels
        self.bot_names = sorted(set(labels)) if len(set(labels)) > 1 else []
        self.parts: dict[int, list[pd.DataFrame]] = {}

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
        self.parts.setdefault(task.run, []).append(part)

    def run_frame(self, run: int) -> pd.DataFrame:
        return pd.concat(self.parts[run], ignore_index=True).sort_values("index").reset_index(drop=True)


def _mean_of_decided(values: np.ndarray) -> float:
    """The mean over the games that give the metric a value (NaN, without numpy's warning,
    when none does: every game truncated)."""
    decided = values[~np.isnan(values)]
    return float(decided.mean()) if decided.size else float("nan")


def summarize(study: Study, collector: Collector) -> dict[str, pd.DataFrame]:
    names = list(study.meta["vary"])
    n = study.configs[0].players
    frames = {r: collector.run_frame(r) for r in range(len(study.configs))}
    rows = []
    for r, config in enumerate(study.configs):
        f = frames[r]
        decided = int((f["truncated"] == 0).sum())
        wins0 = int(np.nansum(f["seat0_win"]))
        lo, hi = stats.wilson_interval(wins0, decided)
        row = {"run": r, **{k: config.variant[k] for k in names}, "baseline": r == study.meta["baseline_run"],
               "games": len(f), "decided": decided, "seat0_win_rate": wins0 / decided if decided else np.nan,
               "ci_low": lo, "ci_high": hi, "fair": 1.0 / n,
               "seat0_share": float(np.nanmean(f["seat0_share"])) if decided else np.nan}
        row["seat_advantage"] = row["seat0_share"] - 1.0 / n
        row["p_seat0_fair"] = first_vs_fair(f["seat0_share"].dropna().to_numpy(np.float64), n)
        for m in ("turns", "decisions", "margin"):
            row[f"mean_{m}"] = float(np.nanmean(f[m])) if decided else np.nan
        row["truncated_share"] = float(f["truncated"].mean())
        for b in collector.bot_names:
            row[f"win_rate:{b}"] = float(np.nanmean(f[f"win:{b}"])) if decided else np.nan
        rows.append(row)
    summary = pd.DataFrame(rows)

    base = frames[study.meta["baseline_run"]]
    tests = []
    for r in range(len(study.configs)):
        if r == study.meta["baseline_run"]:
            continue
        f = frames[r]
        assert (f["index"].to_numpy() == base["index"].to_numpy()).all(), "sweep values must share the deals"
        for m in collector.metrics():
            a = f[m].to_numpy(np.float64)
            b = base[m].to_numpy(np.float64)
            ok = ~(np.isnan(a) | np.isnan(b))
            test = {"run": r, **{k: study.configs[r].variant[k] for k in names}, "metric": m,
                    "value": _mean_of_decided(a), "baseline_value": _mean_of_decided(b), "pairs": int(ok.sum())}
            if ok.sum() >= 2:
                d = stats.paired_difference(a[ok], b[ok])
                test.update(diff=d["mean_diff"], se_paired=d["se_paired"], se_unpaired=d["se_unpaired"])
                if np.all(a[ok] == b[ok]):
                    test["p"] = 1.0  # the very same games: nothing differs
                else:
                    test["p"] = float(sps.ttest_rel(a[ok], b[ok]).pvalue)
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
