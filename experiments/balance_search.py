"""`playlab balance`: search rule variants for those that meet every target, by racing.

A *variant* is one combination of the ``--vary`` values; it is played at every player
count of the study.  Every variant plays the same deals (one seed, game indices
0, 1, 2, …), so variants are compared on paired deals, and the study is one store whose
configurations (variant × player count) are all declared up front: a rerun resumes it.

Racing (successive halving with early stopping, as in Maron & Moore's Hoeffding races,
here on 95% intervals): round *r* plays games [0, n0·2^r) of every variant still
undecided.  After each round, at every player count and for every target, the metric's
95% interval decides:
- *meets*: the interval lies inside the target;
- *fails*: the interval lies wholly outside it;
- otherwise *undecided*.
A variant fails as soon as one of its (target, player count) pairs fails and stops
spending games; it meets when all of them meet; the undecided ones go on until the
``--budget`` (games over all configurations) would be exceeded.  A variant none of whose
games ended at some player count (every one hit the game's cap), where a target's metric
over decided games has no value, stops too, undecided, its ``undecided_because`` saying so:
more games would be capped as well, and capped games are the slowest there are.  The intervals are
per-look 95% intervals (shared/spec/cli.md: "a variant meets a target when the 95%
interval of its metric lies inside the target"); repeated looks at a variant are not
corrected for, which ``balance.csv`` states in its ``looks`` column.

Metrics (``--target METRIC<=X``, ``METRIC>=X``, ``METRIC=A..B``):
- ``fpa``: the largest |win share − 1/n| over the positions from the first player (a
  shared win split among its winners); its interval takes each position's t-interval of
  the mean share at level 1 − 0.05/n (Bonferroni over the positions) and maps it through
  |· − 1/n|, so the maximum's interval holds for all positions at once;
- ``turns``: the median of the game's own turns over decided games, with the exact
  order-statistic interval (``scipy.stats.quantile_test``);
- ``margin``: the mean winner-minus-runner-up score of decided games (t-interval,
  statsmodels ``DescrStatsW``);
- ``truncated``: the share of games stopped by a cap (Wilson).
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from experiments import stats
from runtime.runner import RunConfig
from simcore.games import load_game
from simcore.options import OptionError

from .fpa import first_player_column, parse_players, positions_of, by_position, win_shares
from .results import seat_matrix
from .study import Study
from .sweep import parse_vary

METRICS = {
    "fpa": "the largest |win share - 1/n| over the positions from the first player",
    "turns": "the median number of the game's own turns (decided games)",
    "margin": "the mean winner-minus-runner-up score (decided games)",
    "truncated": "the share of games stopped by a cap",
}
MEETS, FAILS, UNDECIDED = "true", "false", "undecided"
# why a variant stayed undecided (``undecided_because``): the budget ran out, or no game of it
# ended at some player counts, written after this prefix ("no game ended at 2p, 3p")
BUDGET, NO_GAME_ENDED = "budget", "no game ended at "
FIRST_ROUND = 1000   # games per configuration in the first round (then doubled each round)
DEFAULT_BUDGET = 400_000


@dataclass(frozen=True)
class Target:
    metric: str
    low: float   # -inf when only an upper bound is given
    high: float  # +inf when only a lower bound is given
    text: str

    def decide(self, lo: float, hi: float) -> str:
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return UNDECIDED
        if lo >= self.low and hi <= self.high:
            return MEETS
        if hi < self.low or lo > self.high:
            return FAILS
        return UNDECIDED


_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def game_metrics(game: str) -> dict:
    """The game's own metrics, ``{name: (help, fn(frame, config) -> (value, low, high))}``,
    from its registration entry (``experiments.balance_metrics`` for the built-in games)."""
    from simcore.games import entry

    make = entry(game).resolve("balance_metrics")
    return dict(make()) if make is not None else {}


def parse_target(text: str, game: str | None = None) -> Target:
    """``METRIC<=X``, ``METRIC>=X`` or ``METRIC=A..B``."""
    known = {**METRICS, **({k: h for k, (h, _) in game_metrics(game).items()} if game else {})}
    t = text.replace(" ", "")
    m = re.fullmatch(rf"([a-z_][a-z0-9_]*)(<=|>=)({_NUMBER})", t)
    if m:
        name, op, x = m.group(1), m.group(2), float(m.group(3))
        low, high = (-math.inf, x) if op == "<=" else (x, math.inf)
    else:
        m = re.fullmatch(rf"([a-z_][a-z0-9_]*)=({_NUMBER})\.\.({_NUMBER})", t)
        if not m:
            raise OptionError(f"--target {text!r}: write METRIC<=X, METRIC>=X or METRIC=A..B "
                              f"(metrics: {', '.join(known)})")
        name, low, high = m.group(1), float(m.group(2)), float(m.group(3))
        if low > high:
            raise OptionError(f"--target {text!r}: the range {low:g}..{high:g} is empty")
    if name not in known:
        raise OptionError(f"--target {text!r}: unknown metric {name!r} (metrics: {', '.join(known)})")
    return Target(name, low, high, t)


# ---- the metrics of one configuration --------------------------------------------------------
def _mean_interval(x: np.ndarray, alpha: float) -> tuple[float, float, float]:
    from statsmodels.stats.weightstats import DescrStatsW

    if len(x) < 2:
        return (float(x.mean()) if len(x) else math.nan), math.nan, math.nan
    if np.all(x == x[0]):  # no spread: the t-interval degenerates to the point
        return float(x[0]), float(x[0]), float(x[0])
    lo, hi = DescrStatsW(x).tconfint_mean(alpha=alpha)
    return float(x.mean()), float(lo), float(hi)


def fpa_metric(shares: np.ndarray) -> tuple[float, float, float]:
    """(value, low, high) of max over positions |mean share - 1/n| (module docstring)."""
    games, n = shares.shape
    if games < 2:
        return math.nan, math.nan, math.nan
    fair = 1.0 / n
    value, lo_all, hi_all = 0.0, 0.0, 0.0
    for k in range(n):
        mean, lo, hi = _mean_interval(shares[:, k], 0.05 / n)
        value = max(value, abs(mean - fair))
        near = 0.0 if lo <= fair <= hi else min(abs(lo - fair), abs(hi - fair))
        lo_all = max(lo_all, near)
        hi_all = max(hi_all, abs(lo - fair), abs(hi - fair))
    return value, lo_all, hi_all


def median_metric(x: np.ndarray) -> tuple[float, float, float]:
    from scipy.stats import quantile_test

    if len(x) < 2:
        return math.nan, math.nan, math.nan
    med = float(np.median(x))
    ci = quantile_test(x, q=med, p=0.5).confidence_interval(0.95)
    lo = float(ci.low) if np.isfinite(ci.low) else float(x.min())
    hi = float(ci.high) if np.isfinite(ci.high) else float(x.max())
    return med, lo, hi


def compact(frame: pd.DataFrame) -> pd.DataFrame:
    """A chunk's rows held for the race with each integer column in the smallest integer type
    its values fit (results columns are int64, most hold small counts and card codes): a round
    of a race keeps every active configuration's games, and Shifting Stones rows carry a
    column per card (about 1 kB a row as stored, a fifth of that compacted)."""
    out = frame.copy(deep=False)
    for col in out.columns:
        if out[col].dtype == np.int64:
            out[col] = pd.to_numeric(out[col], downcast="integer")
    return out


def config_metrics(frame: pd.DataFrame, config: RunConfig, wanted: Sequence[str] = ()
                   ) -> dict[str, tuple[float, float, float]]:
    """Every general metric of one configuration's games, and the game's own ones named in
    ``wanted``: name -> (value, 95% low, 95% high)."""
    own = game_metrics(config.game)
    n = config.players
    trunc = frame["truncated"].astype(bool).to_numpy()
    decided = frame[~trunc]
    out = {}
    k = int(trunc.sum())
    lo, hi = stats.wilson_interval(k, len(frame))
    out["truncated"] = (k / len(frame) if len(frame) else math.nan, lo, hi)
    out["turns"] = median_metric(decided["turns"].to_numpy(np.float64))
    scores = np.sort(seat_matrix(decided, "score", n), axis=1) if n > 1 else np.zeros((len(decided), 2))
    out["margin"] = _mean_interval((scores[:, -1] - scores[:, -2]).astype(np.float64), 0.05)
    if n > 1:
        seats_at = positions_of(decided, n, first_player_column(config.info))
        shares = win_shares(by_position(seat_matrix(decided, "win", n), seats_at))
        out["fpa"] = fpa_metric(shares)
    else:
        out["fpa"] = (math.nan, math.nan, math.nan)  # solo: no seats to compare
    for name in wanted:
        if name in own:
            out[name] = own[name][1](frame, config)
    return out


# ---- the study --------------------------------------------------------------------------------
@dataclass
class Search:
    study: Study
    variants: list[dict]          # one dict of option values per variant
    runs: list[list[int]]         # runs[v]: the study's configuration numbers of variant v, per player count
    counts: list[int]             # the player counts
    targets: list[Target]
    budget: int
    first_round: int


def build(game: str, vary: Sequence[str], targets: Sequence[str], players: str | None, bots: str, seed: int,
          budget: int, first_round: int = FIRST_ROUND) -> Search:
    if not targets:
        raise OptionError("balance needs at least one --target (e.g. fpa<=0.01)")
    parsed = [parse_target(t, game) for t in targets]
    grid = parse_vary(game, vary)
    info = load_game(game).INFO
    counts = parse_players(players, info, "balance searches")
    if "," in bots:
        raise OptionError("balance puts the same bot in every seat: give one spec in --bots")
    names = list(grid)
    variants = [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]
    configs, runs = [], []
    for v in variants:
        runs.append([])
        for n in counts:
            runs[-1].append(len(configs))
            configs.append(RunConfig.build(game, n, bots, v, seed))
    if budget < first_round * len(configs):
        raise OptionError(f"--budget {budget}: the first round alone plays {first_round} games of each of "
                          f"{len(configs)} configurations ({first_round * len(configs)} games)")
    study = Study("balance", configs, first_round, seed, chunk=first_round,
                  meta={"vary": {n: [str(x) for x in grid[n]] for n in names}, "players": counts,
                        "bots": configs[0].bot_labels[0], "targets": [t.text for t in parsed], "budget": budget,
                        # the rounds' sizes: not the store's chunk, which a folder keeps from its first run
                        "first_round": first_round})
    return Search(study, variants, runs, counts, parsed, budget, first_round)


def variant_label(variant: dict) -> str:
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in variant.items())


def race(search: Search, play: Callable[[Study], pd.DataFrame], log: Callable[[str], None] = lambda s: None
         ) -> pd.DataFrame:
    """Run the race; ``play(study)`` plays the study's active configurations for games
    [0, study.games) and returns their rows (stored ones read back).  One row per variant."""
    study = search.study
    alive = list(range(len(search.variants)))
    verdict = {v: UNDECIDED for v in alive}
    # why a variant left the race undecided: the budget, or player counts none of whose
    # games ended (every one hit the game's cap), where a metric over decided games has no
    # value and more games, capped as well, would give it none: such a variant stops then
    # instead of spending the rest of the budget on the slowest games there are
    no_game_ends: dict[int, list[int]] = {}
    results: dict[int, dict] = {}
    games_of = {v: 0 for v in alive}
    spent, games, looks = 0, search.first_round, 0
    while alive:
        active = sorted(r for v in alive for r in search.runs[v])
        new = sum(games - games_of[v] for v in alive) * len(search.counts)
        if spent + new > search.budget:
            break
        study.games, study.active = games, tuple(active)
        frame = play(study)
        spent += new
        looks += 1
        for v in list(alive):
            games_of[v] = games
            row, states, capped = {}, [], []
            for n, r in zip(search.counts, search.runs[v]):
                part = frame[frame["run"] == r]
                m = config_metrics(part, study.configs[r], [t.metric for t in search.targets])
                every_game_capped = len(part) > 0 and bool(part["truncated"].astype(bool).all())
                for t in search.targets:
                    value, lo, hi = m[t.metric]
                    state = t.decide(lo, hi)
                    if every_game_capped and not np.isfinite(lo) and n not in capped:
                        capped.append(n)
                    states.append(state)
                    key = f"{t.text}@{n}p"
                    row.update({f"{key}:value": value, f"{key}:ci_low": lo, f"{key}:ci_high": hi, f"{key}:meets": state})
            results[v] = row
            if FAILS in states:
                verdict[v] = FAILS
            elif all(s == MEETS for s in states):
                verdict[v] = MEETS
            elif capped:
                no_game_ends[v] = capped
            if verdict[v] != UNDECIDED or capped:
                alive.remove(v)
        decided = sum(1 for x in verdict.values() if x != UNDECIDED)
        log(f"round {looks}: {games} games per configuration, {decided} of {len(verdict)} variants decided, "
            f"{spent} games spent")
        games *= 2
    rows = []
    for v, variant in enumerate(search.variants):
        why = ("" if verdict[v] != UNDECIDED else
               NO_GAME_ENDED + ", ".join(f"{n}p" for n in no_game_ends[v]) if v in no_game_ends else BUDGET)
        rows.append({"variant": variant_label(variant), **variant, "games": games_of[v] * len(search.counts),
                     "games_per_players": games_of[v], "meets": verdict[v], "undecided_because": why,
                     **results.get(v, {})})
    table = pd.DataFrame(rows)
    table.attrs["spent"] = spent
    table.attrs["looks"] = looks
    return table


def undecided_by_reason(table: pd.DataFrame) -> dict[str, list[str]]:
    """The undecided variants of a race table by why: ``BUDGET`` or ``NO_GAME_ENDED`` (either
    key only when it has variants)."""
    out: dict[str, list[str]] = {}
    for _, row in table[table["meets"] == UNDECIDED].iterrows():
        reason = NO_GAME_ENDED if str(row["undecided_because"]).startswith(NO_GAME_ENDED) else BUDGET
        out.setdefault(reason, []).append(row["variant"])
    return out


def undecided_text(table: pd.DataFrame, budget) -> str:
    """How many variants stayed undecided, and why: "3 undecided (2: their next round would
    pass the budget of 400000 games; 1: no game of theirs ended at some player count …)"."""
    groups = undecided_by_reason(table)
    parts = [f"{len(groups[BUDGET])}: their next round would pass the budget of {budget} games"] if BUDGET in groups else []
    if NO_GAME_ENDED in groups:
        parts.append(f"{len(groups[NO_GAME_ENDED])}: no game of theirs ended at some player count (every one hit "
                     "the cap), so they were not played further")
    total = sum(map(len, groups.values()))
    return f"{total} undecided" + (f" ({'; '.join(parts)})" if parts else "")


def format_table(search: Search, table: pd.DataFrame) -> str:
    c0 = search.study.configs[0]
    lines = [f"{c0.info.title} balance search: {len(search.variants)} variants of "
             f"{', '.join(search.study.meta['vary'])} at {', '.join(map(str, search.counts))} players, "
             f"{search.study.meta['bots']} in every seat, seed {search.study.seed}; targets "
             f"{'; '.join(t.text for t in search.targets)} (95% intervals, at every player count)"]
    def g(x: float) -> str:
        return "0" if abs(x) < 1e-9 else f"{x:.4g}"  # a Wilson bound at 0 comes back as 1e-19

    order = {MEETS: 0, UNDECIDED: 1, FAILS: 2}
    shown = table.assign(_o=table["meets"].map(order)).sort_values(["_o", "variant"], kind="stable")
    for _, row in shown.iterrows():
        lines.append(f"  {row['meets']:9s}  {row['variant']}  ({int(row['games'])} games)")
        for t in search.targets:
            cells = []
            for n in search.counts:
                key = f"{t.text}@{n}p"
                if f"{key}:value" in row and not pd.isna(row[f"{key}:value"]):
                    cells.append(f"{n}p {g(row[f'{key}:value'])} [{g(row[f'{key}:ci_low'])}, "
                                 f"{g(row[f'{key}:ci_high'])}] {row[f'{key}:meets']}")
                elif str(row["undecided_because"]).startswith(NO_GAME_ENDED) and \
                        f"{n}p" in row["undecided_because"].removeprefix(NO_GAME_ENDED).split(", "):
                    cells.append(f"{n}p no game ended: every one hit the cap, so not played further")
                else:  # a metric no game measured (a bid nobody made): why it stays undecided
                    cells.append(f"{n}p not measured in any of its games")
            lines.append(f"             {t.metric}: " + "; ".join(cells))
    met = int((table["meets"] == MEETS).sum())
    lines.append(f"{met} variant(s) meet every target; {int((table['meets'] == FAILS).sum())} fail one; "
                 + undecided_text(table, search.budget) +
                 f"; {table.attrs.get('spent', 0)} games used over {table.attrs.get('looks', 0)} rounds "
                 "(played now or read from the results folder)")
    lines.append("meets: every target's 95% interval inside it at every player count; fails: one interval wholly "
                 "outside; intervals are per look (not corrected for the rounds)")
    return "\n".join(lines)
