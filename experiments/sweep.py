"""`playlab sweep`: the same games under each value of one or more rule options.

Every value (and the baseline, all defaults, always included) is one configuration of
the study, on the one seed and the same game indices, so game *i* starts from the same
chance stream under every value and each value is compared with the baseline deal by
deal.  Per setting (every row labelled with all its varied options): every seat's win share
with its 95% Wilson interval (``experiments.tables.seat_table``, the function the report
uses) and a test of equal seats (chi-square on the games one seat won alone, exactly
multinomial under equal seats, the shared games counted apart; Holm over the settings);
win share and win rate per bot when the bots differ; game length (turns, decisions), score
spread (winner minus runner-up) and the truncated share, with their intervals.  Each metric
is paired against the baseline (paired t-test on the per-deal differences), Holm-corrected
over the metrics and settings tested; a comparison with nothing to test (the same value on
every deal under both settings, e.g. no game truncated under either) is reported as not
tested and kept out of the family, where a p of 1 would only weaken the other tests.

The collector keeps, per configuration, one float32 value per game and metric for the
range of deals being paired, and sums and moments for the rest.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from experiments import stats, tables
from simcore.games import load_game
from simcore.options import OptionError, players_text
from runtime.runner import RunConfig

from .fpa import win_shares
from .results import seat_matrix
from .study import Study, parse_assignments

BASE_METRICS = ("turns", "decisions", "margin", "truncated")
METRIC_WORDS = {
    "seat<k>_share": "seat k's win share (a shared win split among its winners; fair = 1/n), every seat",
    "win:<bot>": "a bot's win share per seat it holds (shared wins split; when the bots differ)",
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


#: what `sweep --metrics` may name: the comparisons with the baseline that form the Holm family
METRIC_GROUPS = {"seats": "every seat's win share", "turns": METRIC_WORDS["turns"],
                 "decisions": METRIC_WORDS["decisions"], "margin": METRIC_WORDS["margin"],
                 "truncated": METRIC_WORDS["truncated"], "bots": METRIC_WORDS["win:<bot>"]}


def parse_metrics(text: str | Sequence[str] | None) -> list[str]:
    """``seats,turns`` (or a list): the metric groups the designer asks about, each once; every
    group when None.  Only these are tested against the baseline and Holm-corrected together."""
    if text is None:
        return list(METRIC_GROUPS)
    items = [t.strip() for t in (text.split(",") if isinstance(text, str) else text)]
    if not items or any(not t for t in items):
        raise OptionError(f"--metrics {text!r}: an empty name (choose from {', '.join(METRIC_GROUPS)})")
    for t in items:
        if t not in METRIC_GROUPS:
            raise OptionError(f"--metrics: unknown metric {t!r} (choose from {', '.join(METRIC_GROUPS)})")
        if items.count(t) > 1:
            raise OptionError(f"--metrics: {t} listed twice")
    return items


def build(game: str, vary: Sequence[str], players: int | None, bots: str, games: int, seed: int,
          chunk: int | None = None, metrics: str | Sequence[str] | None = None) -> Study:
    grid = parse_vary(game, vary)
    tested = parse_metrics(metrics)
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
                       "players": base.players, "bots": base.bot_labels, "metrics": tested}, **kw)


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
        self.players = study.configs[0].players
        self.games = {r: 0 for r in runs}
        self.sums = {r: {m: _Sums() for m in self.all_metrics()} for r in runs}
        # the seat table's and the bot table's tallies (experiments.tables), as the report counts them
        self.patterns = {r: np.zeros(1 << self.players, np.int64) for r in runs}
        self.bot_sums: dict[int, dict[str, np.ndarray]] = {r: {} for r in runs}
        self.pairs = {(r, m): _Pair() for r in runs if r != self.base for m in self.metrics()}
        self.pending: dict[int, dict[int, pd.DataFrame]] = {}

    def all_metrics(self) -> list[str]:
        """Every per-game metric: each seat's win share, then length, margin, truncation and
        each bot's win share per seat."""
        return ([f"seat{k}_share" for k in range(self.players)] + list(BASE_METRICS)
                + [f"win:{b}" for b in self.bot_names])

    def metrics(self) -> list[str]:
        """The metrics compared with the baseline: those of the groups asked for (``--metrics``,
        all by default)."""
        groups = self.study.meta.get("metrics", list(METRIC_GROUPS))
        group = {m: ("seats" if m.startswith("seat") else "bots" if m.startswith("win:") else m)
                 for m in self.all_metrics()}
        return [m for m in self.all_metrics() if group[m] in groups]

    def __call__(self, task, frame: pd.DataFrame) -> None:
        n = task.config.players
        trunc = frame["truncated"].astype(bool).to_numpy()
        nan_if_trunc = np.where(trunc, np.nan, 1.0)
        wins = seat_matrix(frame, "win", n).astype(np.float32)
        scores = np.sort(seat_matrix(frame, "score", n), axis=1)
        shares = win_shares(wins)
        cols = {"index": frame["index"].to_numpy(np.int64)}
        for k in range(n):
            cols[f"seat{k}_share"] = shares[:, k] * nan_if_trunc
        cols.update({
            "turns": frame["turns"].to_numpy(np.float64) * nan_if_trunc,
            "decisions": frame["decisions"].to_numpy(np.float64) * nan_if_trunc,
            # solo has no runner-up: no margin (its tests say so: nothing to test)
            "margin": ((scores[:, -1] - scores[:, -2]) * nan_if_trunc if n > 1
                       else np.full(len(frame), np.nan)),
            "truncated": trunc.astype(np.float64),
        })
        self.patterns[task.run] += tables.win_pattern_counts(wins[~trunc])
        bots = np.broadcast_to(np.asarray(task.config.bot_labels, dtype=object), wins.shape)[~trunc]
        for b, v in tables.bot_share_sums(wins[~trunc], bots).items():
            acc = self.bot_sums[task.run]
            acc[b] = acc.get(b, 0) + v
        labels = task.config.bot_labels
        for b in self.bot_names:
            seats = [s for s, label in enumerate(labels) if label == b]
            # its win share per seat held: the figure the table prints as win_share:<bot>
            cols[f"win:{b}"] = shares[:, seats].mean(axis=1) * nan_if_trunc
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


def _interval(s: _Sums) -> tuple[float, float, float]:
    return tables.mean_interval(s.moments)


def summarize(study: Study, collector: Collector) -> dict[str, pd.DataFrame]:
    """``sweep``: one row per setting (``setting`` names every varied option); ``sweep_tests``:
    one row per setting and metric against the baseline (``tested`` False, with the reason in
    ``untested``, where there is nothing to test; those rows stay out of the Holm family)."""
    collector.finish()
    names = list(study.meta["vary"])
    n = study.configs[0].players
    rows, equal_p = [], []
    for r, config in enumerate(study.configs):
        s = collector.sums[r]
        seat = tables.seat_table(collector.patterns[r], n)
        decided = int(seat["games"].iloc[0])
        row = {"run": r, "setting": value_label(study, r), **{k: config.variant[k] for k in names},
               "baseline": r == study.meta["baseline_run"], "games": collector.games[r], "decided": decided,
               "seat0_win_rate": seat["win_rate"].iloc[0], "ci_low": seat["ci_low"].iloc[0],
               "ci_high": seat["ci_high"].iloc[0], "fair": 1.0 / n, "seat0_share": seat["win_share"].iloc[0]}
        row["seat_advantage"] = row["seat0_share"] - 1.0 / n
        for k in range(n):
            row[f"seat{k}_share"] = seat["win_share"].iloc[k]
            row[f"seat{k}_share_low"] = seat["share_low"].iloc[k]
            row[f"seat{k}_share_high"] = seat["share_high"].iloc[k]
        adv = (seat["win_share"] - 1.0 / n).abs()
        row["max_seat_advantage"] = float(adv.max()) if decided else np.nan
        sole, shared = tables.seat_sole_wins(collector.patterns[r], n)
        row["sole_wins"], row["shared_games"] = int(sole.sum()), shared
        p = tables.equal_seats_p(collector.patterns[r], n)
        row["p_equal_seats"] = p
        equal_p.append(p)
        for m in ("turns", "decisions", "margin"):
            row[f"mean_{m}"], row[f"{m}_low"], row[f"{m}_high"] = _interval(s[m])
        t = tables.wilson(s["truncated"].total, s["truncated"].count)
        row["truncated_share"], row["trunc_low"], row["trunc_high"] = (float(v) for v in t)
        bot = tables.bot_table(collector.bot_sums[r], n) if collector.bot_sums[r] else None
        for b in collector.bot_names:
            hit = bot[bot["bot"] == b] if bot is not None else bot
            if hit is None or not len(hit):
                row[f"win_rate:{b}"] = row[f"win_rate:{b}:low"] = row[f"win_rate:{b}:high"] = \
                    row[f"win_share:{b}"] = row[f"win_share:{b}:low"] = row[f"win_share:{b}:high"] = np.nan
                continue
            h = hit.iloc[0]
            # a shared win counted for every sharer, with its Wilson interval as the share's
            row[f"win_rate:{b}"], row[f"win_rate:{b}:low"], row[f"win_rate:{b}:high"] = \
                h["win_rate_per_seat"], h["rate_low"], h["rate_high"]
            row[f"win_share:{b}"], row[f"win_share:{b}:low"], row[f"win_share:{b}:high"] = \
                h["win_share_per_seat"], h["ci_low"], h["ci_high"]
        rows.append(row)
    summary = pd.DataFrame(rows)
    reject, adjusted = stats.adjust_pvalues(np.asarray(equal_p, float), method="holm")
    summary["p_equal_seats_holm"] = adjusted
    summary["unequal_seats"] = reject

    tests = []
    for r in range(len(study.configs)):
        if r == study.meta["baseline_run"]:
            continue
        for m in collector.metrics():
            tests.append({"run": r, "setting": value_label(study, r),
                          **{k: study.configs[r].variant[k] for k in names}, "metric": m,
                          **_paired_test(collector.pairs[(r, m)])})
    tests_df = pd.DataFrame(tests)
    if len(tests_df):
        reject, adjusted = stats.adjust_pvalues(tests_df["p"].to_numpy(), method="holm")
        tests_df["p_holm"] = adjusted
        tests_df["differs"] = reject
    return {"sweep": summary, "sweep_tests": tests_df}


def _paired_test(pair: _Pair) -> dict:
    """One setting's metric against the baseline on the deals both give a value: the paired
    t-test of the per-deal differences, or why there is nothing to test (p nan, kept out of
    the Holm family)."""
    test = {"value": pair.value.mean(), "baseline_value": pair.baseline.mean(), "pairs": pair.d.n,
            "diff": np.nan, "se_paired": np.nan, "se_unpaired": np.nan, "p": np.nan, "tested": False,
            "untested": ""}
    if pair.d.n < 2:
        test["untested"] = "fewer than 2 deals with a value under both settings"
        return test
    se_paired = pair.d.sem()
    test.update(diff=pair.d.mean, se_paired=se_paired,
                se_unpaired=float(np.sqrt(pair.a.sem() ** 2 + pair.b.sem() ** 2)))
    if not pair.differ:
        # the same value on every deal (the same games, or e.g. no game truncated under either)
        test["untested"] = "the same on every deal under both settings"
    elif se_paired == 0:
        # every deal moved by the same amount
        test.update(p=stats.alike_on_every_deal(pair.d.n), tested=True)
    else:
        test.update(p=float(2 * sps.t.sf(abs(pair.d.mean / se_paired), pair.d.n - 1)), tested=True)
    return test


def format_tables(study: Study, collector: Collector, tables: dict[str, pd.DataFrame]) -> str:
    c0 = study.configs[0]
    n = c0.players
    lines = [f"{c0.info.title} sweep of {', '.join(study.meta['vary'])}: {players_text(n)}, bots "
             f"{','.join(c0.bot_labels)}, the same {study.games} games (seed {study.seed}) under each of "
             f"{len(study.configs)} settings; baseline = all defaults"]
    s = tables["sweep"].copy()

    def ci(lo, hi):
        return [f"[{a:.4f}, {b:.4f}]" for a, b in zip(lo, hi)]

    seats = s[["setting", "decided"]].copy()
    for k in range(n):
        seats[f"seat {k} share"] = s[f"seat{k}_share"]
        seats[f"seat {k} 95% CI"] = ci(s[f"seat{k}_share_low"], s[f"seat{k}_share_high"])
    seats["p_equal_seats"] = s["p_equal_seats"]
    seats["p_holm"] = s["p_equal_seats_holm"]
    lines.append(f"every seat's win share (a shared win split among its winners; fair = 1/{n}) with its 95% Wilson "
                 "interval; equal seats tested per setting (chi-square on the games one seat won alone, the games "
                 "with a shared win left out; Holm over the settings):")
    lines.append(seats.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    if collector.bot_names:
        lines.append("the seats hold different bots, so a seat's share here is that seat and its bot together")
    lines.append("")
    other = s[["setting"]].copy()
    # solo: no runner-up, so no margin column (sweep.csv keeps it, empty)
    for m in ("turns", "decisions", "margin")[:3 if n > 1 else 2]:
        other[f"mean_{m}"] = s[f"mean_{m}"]
        other[f"{m} 95% CI"] = [f"[{a:.2f}, {b:.2f}]" for a, b in zip(s[f"{m}_low"], s[f"{m}_high"])]
    other["truncated_share"] = s["truncated_share"]
    other["truncated 95% CI"] = ci(s["trunc_low"], s["trunc_high"])
    for b in collector.bot_names:
        other[f"win_share:{b}"] = s[f"win_share:{b}"]
        other[f"{b} 95% CI"] = ci(s[f"win_share:{b}:low"], s[f"win_share:{b}:high"])
    lines.append(other.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    lines.append(("length, margin (winner minus runner-up score) and win shares" if n > 1 else
                  "length and the win rate") + " are over decided games (truncated "
                 "ones left out); seat0_win_rate in sweep.csv counts a shared win for every sharer")
    t = tables["sweep_tests"]
    if len(t):
        tested = t[t["tested"]]
        flagged = t[t["differs"]]
        lines.append("")
        lines.append(f"against the baseline on the same deals ({', '.join(study.meta.get('metrics', METRIC_GROUPS))}; "
                     f"paired t-test, Holm over the {len(tested)} comparisons "
                     f"with something to test; {len(t) - len(tested)} without, not in the family): "
                     f"{len(flagged)} differ at 5%")
        if len(flagged):
            lines.append(flagged[["setting", "metric", "value", "baseline_value", "diff", "se_paired", "se_unpaired",
                                  "p_holm"]].to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        lines.append("se_paired: standard error of the difference from the paired deals; se_unpaired: what "
                     "independent deals would give (full table in sweep_tests.csv / --json)")
        same = [r for r, g in t.groupby("run") if (g["diff"].fillna(0) == 0).all() and (g["se_paired"].fillna(0) == 0).all()]
        for r in same:
            lines.append(f"{value_label(study, r)} played exactly the baseline's games (the same rules at "
                         f"{players_text(n)})")
    return "\n".join(lines)
