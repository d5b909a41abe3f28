"""Balance statistics of a study's results, computed from its Parquet chunks one file at a
time (a 100,000-game Shifting Stones chunk carries 72 card columns): seat advantage, win
rates per bot, score and length distributions, truncation, the per-game sections and the
luck-and-skill measures.  Every rate comes with a 95% interval (experiments.stats); each
function returns plain tables (pandas) that reports.report lays out.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats as sps

from experiments import stats, tables


def mean_ci(x) -> tuple[float, float, float]:
    """Mean with its 95% t interval over the values (nan ones dropped), as
    ``experiments.tables.mean_interval`` gives the commands' means."""
    x = np.asarray(x, dtype=np.float64)
    m = stats.Moments()
    m.add(x[~np.isnan(x)])
    return tables.mean_interval(m)


def ratio_ci(num, den) -> tuple[float, float, float]:
    """sum(num) / sum(den) over games, with the linearised (delta-method) 95% interval
    that treats the game as the unit: hands or cards within a game are not independent."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    total = den.sum()
    if total <= 0:
        return (np.nan, np.nan, np.nan)
    r = num.sum() / total
    if len(num) < 2:
        return (r, np.nan, np.nan)
    resid = num - r * den
    se = math.sqrt(len(num) / (len(num) - 1) * float((resid ** 2).sum())) / total
    if se == 0:
        return (r, r, r)
    lo, hi = sps.norm.interval(0.95, loc=r, scale=se)
    return (r, float(lo), float(hi))


def wilson(k, n) -> tuple[float, float, float]:
    """k / n with its 95% Wilson interval (``experiments.tables.wilson``)."""
    rate, lo, hi = tables.wilson(k, n)
    return (float(rate), float(lo), float(hi))


def diff_ci(a: tuple[int, int], b: tuple[int, int]) -> tuple[float, float, float]:
    """Difference of two independent proportions k/n with Newcombe's hybrid score interval
    (from the two Wilson intervals; statsmodels' ``confint_proportions_2indep``)."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    (ka, na), (kb, nb) = a, b
    if na <= 0 or nb <= 0:
        return (np.nan, np.nan, np.nan)
    lo, hi = confint_proportions_2indep(ka, na, kb, nb, method="newcomb", compare="diff")
    return (ka / na - kb / nb, float(lo), float(hi))


def ci_text(v: tuple[float, float, float], pct: bool = True, digits: int | None = None) -> str:
    m, lo, hi = v
    digits = (1 if pct else 2) if digits is None else digits
    if m != m:
        return "n/a"
    f = 100.0 if pct else 1.0
    unit = "%" if pct else ""
    if lo != lo:
        return f"{m * f:.{digits}f}{unit}"
    return f"{m * f:.{digits}f}{unit} [{lo * f:.{digits}f}, {hi * f:.{digits}f}]"


def ci_pp(v: tuple[float, float, float]) -> str:
    """A difference of two proportions in percentage points."""
    m, lo, hi = v
    if m != m:
        return "n/a"
    return f"{m * 100:+.1f} percentage points [{lo * 100:+.1f}, {hi * 100:+.1f}]"


# ---- reading a study ------------------------------------------------------------------------
@dataclass
class StudyData:
    """One study on disk: its record (study.json, or the store's manifest for `play
    --out`), its runs and the columns every section needs (the wide per-card columns
    are read separately, file by file)."""
    name: str
    path: Path            # the directory holding study.json, or the store itself
    store: Path           # the Parquet dataset
    record: dict
    runs: list[dict]
    frame: pd.DataFrame   # one row per game: configuration, seats, length, game columns
    files: list[Path] = field(default_factory=list)
    results: Any = None   # the store, opened for reading (experiments.store.Results)
    only_runs: frozenset | None = None  # a part of the study (split_settings): its runs; None = all
    # the games [0, n) of each configuration the study's command used (None: every stored
    # game): a store may hold more, left by an earlier run of more --games
    games: dict[int, int] | None = None
    # a balance search's race, replayed once from the store (reports.recomputed.balance_table)
    race_table: Any = None

    @property
    def kind(self) -> str:
        return self.record.get("kind", "play")

    @property
    def game(self) -> str:
        return self.runs[0]["game"]

    def decided(self) -> pd.DataFrame:
        return self.frame[~self.frame["truncated"].astype(bool)]

    def tournament_tables(self) -> dict[str, pd.DataFrame]:
        """A tournament's tables as its command computed them, from the stored rows (once)."""
        if getattr(self, "_tournament", None) is None:
            from reports.recomputed import tournament_tables

            self._tournament = tournament_tables(self)
        return self._tournament


WIDE_PREFIXES = ("card_",)


def load_study(name: str, path: Path, results, record: dict) -> StudyData:
    """The study's games (without the wide per-card columns) from ``results``, an
    :class:`experiments.store.Results`: every chunk verified as it is read.  Only the games
    the study's command used (``experiments.verify.games_used``): a rerun with fewer
    ``--games`` summarises, prints and writes the first ones of a store holding more, and so
    does the report."""
    from experiments.store import ResultsError
    from experiments.verify import games_used, replay_balance

    runs = results.runs
    balance = None
    if record.get("kind") == "balance":
        # the race replayed once here gives both the games each variant was given and the
        # section's table (reports.recomputed.balance_table)
        balance, games = replay_balance(record, results)
    else:
        games = games_used(record, results)
    parts = [df for _, _, df in results.iter_chunks(
        lambda names: [c for c in names if not c.startswith(WIDE_PREFIXES)], games)]
    if not parts:
        raise ResultsError(f"{results.path} holds no result chunks")
    frame = pd.concat(parts, ignore_index=True)  # chunks come in (run, index) order
    if games is not None:
        held = frame["run"].value_counts()
        short = [r for r, n in sorted(games.items()) if held.get(r, 0) < n]
        if short:  # study.json says more games were used than are stored: refuse rather than report fewer
            r = short[0]
            raise ResultsError(f"{results.path}: configuration {r} holds {int(held.get(r, 0))} of the {games[r]} "
                               f"games its study.json says were used; `playlab verify {results.path}` says more")
    frame["setting"] = setting_labels(record, runs, frame["run"].to_numpy())
    return StudyData(name, path, results.path, record, runs, frame, [c.file for c in results.chunks], results,
                     games=games, race_table=balance)


def setting_labels(record: dict, runs: list[dict], run: np.ndarray) -> np.ndarray:
    """A sweep's rule setting of each row (``name=value, …`` of the varied options, the
    baseline marked); empty for other studies, whose runs share their rules."""
    vary = record.get("vary") if record.get("kind") in ("sweep", "balance") else None
    if not vary:
        return np.full(len(run), "", dtype=object)
    labels = []
    for r, cfg in enumerate(runs):
        text = ", ".join(f"{k}={str(cfg['variant'].get(k)).lower()}" for k in vary)
        # a sweep's baseline (all defaults) is its run ``baseline_run``; a balance search has
        # none (its variants are raced against targets, not compared with one of them)
        labels.append(text + (" (baseline)" if r == record.get("baseline_run") else ""))
    return np.asarray(labels, dtype=object)[run]


def split_settings(study: StudyData):
    """``(setting, part)`` per rule setting of a sweep (``setting``: every varied option,
    "bonus=2, skip=1", the baseline marked), ``part`` the study restricted to that setting's
    runs (its frame and its wide columns): any per-game section run on each part shows the
    settings apart instead of pooling them.  One ``("", study)`` for a study without settings."""
    if not (study.frame["setting"] != "").any():
        yield "", study
        return
    for setting, frame in study.frame.groupby("setting", sort=False):
        runs = frozenset(int(r) for r in frame["run"].unique())
        yield str(setting), StudyData(study.name, study.path, study.store, study.record, study.runs, frame,
                                      study.files, study.results, runs, study.games)


def pooled_text(study: StudyData) -> str:
    """What a per-game section over the whole ``study`` pools, in words ("every game of the
    bots … together", "the N settings …"): the bots when more than one plays (a tournament's
    seatings), the settings of a sweep; "" when it pools nothing (one configuration, or one
    bot under one rule set per player count)."""
    frame = study.frame
    bot_cols = [c for c in frame.columns if c.startswith("bot_")]
    bots = sorted({str(b) for c in bot_cols for b in frame[c].dropna().unique() if str(b) not in ("", "nan", "<NA>")})
    settings = [s for s in frame["setting"].unique() if s]
    parts = []
    if len(bots) > 1:
        parts.append(f"every game of the bots {', '.join(bots)} together")
    if len(settings) > 1:
        parts.append(f"the {len(settings)} settings {'; '.join(settings)}")
    return " and ".join(parts)


def read_wide(study: StudyData, prefix: str):
    """(run, players, truncated, columns, frame) per chunk, for the columns starting with
    ``prefix`` (each chunk verified by the store as it is read)."""
    for _run, _start, t in study.results.iter_chunks(
            lambda names: ["players", "truncated"] + [c for c in names if c.startswith(prefix)], study.games):
        cols = [c for c in t.columns if c.startswith(prefix)]
        if not cols or not len(t) or (study.only_runs is not None and int(t["run"].iloc[0]) not in study.only_runs):
            continue
        yield int(t["run"].iloc[0]), int(t["players"].iloc[0]), t["truncated"].to_numpy(bool), cols, t[cols]


def seat_cols(prefix: str, n: int) -> list[str]:
    return [f"{prefix}_{s}" for s in range(n)]


def by_players(study: StudyData):
    """(players, frame of those runs) in ascending player count (a sweep: per setting too,
    its rows carrying their ``setting``)."""
    for (n, _setting), part in study.frame.groupby(["players", "setting"], sort=False):
        yield int(n), part


def changed_options(info, variant: dict) -> list[str]:
    """``name=value`` of each option of ``variant`` away from the game's default, in the
    game's order."""
    from simcore.options import format_value

    return [f"{o.name}={format_value(variant[o.name])}" for o in info.options
            if o.name in variant and variant[o.name] != o.default]


def rules_text(info, variant: dict) -> str:
    """The rules a configuration played, in words: its options away from the defaults."""
    return ", ".join(changed_options(info, variant)) or "the rules as written"


def fixed_rules(study: StudyData, info) -> str:
    """The options every configuration of ``study`` set alike away from the defaults (a
    sweep's varied options are its settings, named apart), in words."""
    shared = {k: v for k, v in study.runs[0]["variant"].items()
              if all(r["variant"].get(k) == v for r in study.runs)}
    return rules_text(info, shared) if shared else "the rules as written"


def setting_of(part: pd.DataFrame) -> dict:
    s = part["setting"].iloc[0] if len(part) else ""
    return {"setting": s} if s else {}


def win_share(part: pd.DataFrame, n: int) -> np.ndarray:
    w = part[seat_cols("win", n)].to_numpy(np.float64)
    tot = w.sum(axis=1, keepdims=True)
    return np.divide(w, tot, out=np.zeros_like(w), where=tot > 0)


def position_seats(part: pd.DataFrame, n: int, first_col: str | None) -> np.ndarray:
    k = np.arange(n)
    if first_col is None or first_col not in part:
        return np.broadcast_to(k, (len(part), n))
    first = part[first_col].to_numpy(np.int64)
    return (first[:, None] + k[None, :]) % n


# ---- every report --------------------------------------------------------------------------
def seat_advantage(study: StudyData, first_col: str | None) -> pd.DataFrame:
    """Win share by position (shared wins split) against 1/n, per player count (and sweep
    setting), over the decided games of every run (a tournament's seatings put each bot in
    each seat, so its rows pool the bots).  The figures are ``experiments.tables.seat_table``
    on the win-pattern tally of the stored rows, the function ``fpa`` and ``play`` print and
    write: ``win_share`` with its Wilson interval ``ci_low``/``ci_high`` (= ``share_low``/
    ``share_high`` of fpa.csv), ``win_rate`` (shared wins counted for every sharer) with
    ``rate_low``/``rate_high`` (= ``ci_low``/``ci_high`` of fpa.csv and of ``play``),
    ``advantage`` = win_share - 1/n with ``adv_low``/``adv_high``; ``bots``: the bots of these
    games (what the rows pool); ``p_equal_seats``: the chi-square of equal seats on sole wins,
    as fpa_tests.csv and sweep.csv give it (unadjusted), named in ``test``.  Where a deal was
    played several times (a tournament's seatings) its games are not independent, and each
    deal counts once (``tables.seat_table_by_deal``: Wilson intervals from the spread over
    deals and Hotelling's T² over deals, ``deals`` beside ``games``)."""
    memo = study.__dict__.setdefault("_seat_advantage", {})  # the study's section and its findings both ask
    if first_col not in memo:
        memo[first_col] = _seat_advantage(study, first_col)
    return memo[first_col].copy()  # callers add columns of their own


def _seat_advantage(study: StudyData, first_col: str | None) -> pd.DataFrame:
    rows = []
    for n, part in by_players(study):
        part = part[~part["truncated"].astype(bool)]
        if n < 2 or not len(part):
            continue
        wins = np.take_along_axis(part[seat_cols("win", n)].to_numpy(np.int64), position_seats(part, n, first_col),
                                  axis=1)
        deals = pd.MultiIndex.from_arrays([part["seed"], part["index"]])  # game i of a seed: one deal
        if deals.duplicated().any():
            # a deal played several times (a tournament's seatings): one deal, one observation
            t = tables.seat_table_by_deal(wins, pd.factorize(deals)[0], n)
            test = tables.SEAT_TEST_BY_DEAL
        else:
            counts = tables.win_pattern_counts(wins)
            t = tables.seat_table(counts, n)
            t["p_equal_seats"] = tables.equal_seats_p(counts, n)
            test = tables.SEAT_TEST
        t = t.rename(columns={"seat": "position", "ci_low": "rate_low", "ci_high": "rate_high"})
        t = t.rename(columns={"share_low": "ci_low", "share_high": "ci_high"})
        t.insert(0, "players", n)
        for k, v in reversed(setting_of(part).items()):
            t.insert(1, k, v)
        # what the rows pool: the bots seated in these games
        t["bots"] = ", ".join(sorted(map(str, pd.unique(part[seat_cols("bot", n)].to_numpy().ravel()))))
        t["test"] = test
        rows.append(t)
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def bot_win_rates(study: StudyData) -> pd.DataFrame:
    """Win share per bot and player count (and sweep setting) per seat it held, with its
    Wilson interval (``experiments.tables.bot_table``, as ``sweep`` prints it as
    ``win_share:<bot>``); ``win_rate_per_seat`` counts a shared win for every sharer.  A
    tournament's is the command's ``win_rates`` table (each deal's seatings averaged and the
    interval from the spread over deals: they replay the same cards)."""
    if study.kind == "tournament":
        win = study.tournament_tables().get("win_rates")
        return win.copy() if win is not None else pd.DataFrame()
    rows = []
    for n, part in by_players(study):
        part = part[~part["truncated"].astype(bool)]
        if n < 2 or not len(part):
            continue
        sums = tables.bot_share_sums(part[seat_cols("win", n)].to_numpy(np.int64),
                                     part[seat_cols("bot", n)].to_numpy().astype(str))
        t = tables.bot_table(sums, n)
        t.insert(0, "players", n)
        for k, v in reversed(setting_of(part).items()):
            t.insert(1, k, v)
        rows.append(t)
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def lengths(study: StudyData) -> pd.DataFrame:
    """Per player count (and sweep setting): mean turns over decided games with its t
    interval and the truncated share with its Wilson interval
    (``experiments.tables``: the figures ``sweep`` prints)."""
    rows = []
    for n, part in by_players(study):
        trunc = part["truncated"].astype(bool).to_numpy()
        d = part[~trunc]
        t = tables.wilson(trunc.sum(), len(part))
        mom = stats.Moments()
        mom.add(d["turns"].to_numpy(np.float64))
        m = tables.mean_interval(mom)
        rows.append({"players": n, **setting_of(part), "games": len(part), "decided": len(d), "mean_turns": m[0],
                     "turns_low": m[1], "turns_high": m[2],
                     "median_turns": float(d["turns"].median()) if len(d) else np.nan,
                     "truncated": int(trunc.sum()), "truncated_share": float(t[0]), "trunc_low": float(t[1]),
                     "trunc_high": float(t[2])})
    return pd.DataFrame(rows)


# ---- luck and skill ------------------------------------------------------------------------
def deal_spread(study: StudyData) -> pd.DataFrame | None:
    """Per deal of a tournament (the same deal under every seating): each bot's share of
    the seatings *it sat in* that it won (a bot that sits out some seatings, with more bots
    than seats, is not counted as losing them), the span (best minus worst bot) and the
    entropy (bits) of which bot won.  Entropy near log2(bots) with a span near 0: the seat
    dealt, not the bot, decides the deal; entropy 0 and span 1: the same bot wins every
    seating it plays."""
    if study.kind != "tournament" or study.frame["run"].nunique() < 2:
        return None
    d = study.decided()
    if not len(d):  # every game truncated
        return None
    n = int(d["players"].iloc[0])
    share = win_share(d, n)
    bots = d[seat_cols("bot", n)].to_numpy().astype(str)
    names = sorted(set(bots.ravel()))
    per, sat = {}, {}
    for b in names:
        mask = bots == b
        per[b] = (share * mask).sum(axis=1)  # its share of the game's win, over all its seats
        sat["sat:" + b] = mask.any(axis=1).astype(np.float64)
    wins = pd.DataFrame({"deal": d["index"].to_numpy(), **per, **sat})
    g = wins.groupby("deal")
    seatings = g.size()
    full = seatings == seatings.max()  # deals truncated in some seating are left out
    sums = g.sum()[full]
    won = pd.DataFrame({b: sums[b] / sums["sat:" + b] for b in names})
    p = won.to_numpy()
    span = np.nanmax(p, axis=1) - np.nanmin(p, axis=1)
    # the entropy of the deal's winner over its seatings, shared wins split
    w = sums[names].to_numpy() / seatings[full].to_numpy()[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.nansum(np.where(w > 0, w * np.log2(w), 0.0), axis=1)
    return pd.DataFrame({"deal": won.index, "span": span, "entropy": ent,
                         "max_entropy": math.log2(len(names)), "seatings": int(seatings.max())})


def weaker_wins(study: StudyData) -> pd.DataFrame | None:
    """For each pair of bots of a tournament: how often the weaker (lower overall win
    share) finished ahead of the stronger in the games both played (ties half).
    ``told_apart``: whether their games tell which is weaker at all (the command's interval
    of the difference of their win rates over the deals both played, ``diff_low`` /
    ``diff_high``, leaves out 0); a pair that is not (two bots that play alike) is listed in
    the table's order, not as weaker and stronger."""
    if study.kind != "tournament":
        return None
    pw = study.tournament_tables().get("pairwise")  # the command's table, from the stored rows
    if pw is None:  # every game truncated
        return None
    rows = []
    for r in pw.itertuples():
        apart = bool(r.diff_low > 0 or r.diff_high < 0)
        a_weaker = apart and r.win_rate_a < 0.5
        weak, strong = (r.bot_a, r.bot_b) if a_weaker or not apart else (r.bot_b, r.bot_a)
        rate = r.win_rate_a if weak == r.bot_a else 1 - r.win_rate_a
        lo, hi = (r.ci_low, r.ci_high) if weak == r.bot_a else (1 - r.ci_high, 1 - r.ci_low)
        rows.append({"weaker": weak, "stronger": strong, "games": r.games, "weaker_ahead": rate,
                     "ci_low": lo, "ci_high": hi, "told_apart": apart})
    return pd.DataFrame(rows)


# ---- Moon ------------------------------------------------------------------------------------
def moon_tables(study: StudyData) -> dict[str, pd.DataFrame]:
    """Moon's balance tables over every game of ``study`` (``pooled_text`` says what that
    pools; ``split_settings`` gives a sweep's settings apart): make rate by bid, trump and widow
    use (every level listed, never-won ones with 0 contracts), moons, points by bidding
    position (fpa's table), and ``by_bot``: each bot's contracts and make rate from its own
    seats, so a tournament's bots are told apart."""
    from simcore.games.moon import BID_LEVEL_NAMES, TRUMP_NAMES

    f = study.frame
    out = {}
    if "bids_made_0" in f:
        out["by_bot"] = moon_bot_table(f)
    if "bid_1_contracts" in f:
        out["by_bid"] = _make_rates(f, "bid", BID_LEVEL_NAMES, "bid")
        out["by_trump"] = _make_rates(f, "trump", TRUMP_NAMES, "trump")
        out["widow"] = _make_rates(f, "widow", ("kept", "discarded"), "widow")
    hands = f["hands_played"].to_numpy(np.float64)
    tries = f[seat_cols("moon_attempts", 3)].to_numpy(np.int64).sum(axis=1)
    made = f[seat_cols("moons_made", 3)].to_numpy(np.int64).sum(axis=1)
    per100 = ratio_ci(tries * 100.0, hands)
    succ = wilson(made.sum(), tries.sum())
    out["moon"] = pd.DataFrame([{"hands": int(hands.sum()), "attempts": int(tries.sum()), "made": int(made.sum()),
                                 "attempts_per_100_hands": per100[0], "per100_low": per100[1],
                                 "per100_high": per100[2], "success_rate": succ[0], "ci_low": succ[1],
                                 "ci_high": succ[2]}])
    # the table `fpa` writes (fpa_moon_positions.csv), from the same sums, with the interval of
    # the points per hand over games added
    from experiments.fpa import moon_position_sums, moon_position_table

    pos = moon_position_table(moon_position_sums(f))
    if pos is not None:
        pos = pos.rename(columns={"bid_position": "position"})
        pts = [ratio_ci(f[f"hand_points_pos_{k}"], hands) for k in pos["position"]]
        pos.insert(3, "pts_low", [p[1] for p in pts])
        pos.insert(4, "pts_high", [p[2] for p in pts])
        pos.insert(6, "contract_share", pos["contracts"] / max(hands.sum(), 1))
        out["positions"] = pos
    return out


def moon_bot_table(f: pd.DataFrame) -> pd.DataFrame:
    """Per bot (and sweep setting): contracts it won, made, its make rate (Wilson) and its moon
    contracts (21 bids) and their make rate, summed over the seats it held (truncated games
    too: their played hands count)."""
    rows = []
    for setting, part in f.groupby("setting", sort=False):
        bots = part[seat_cols("bot", 3)].to_numpy().astype(str)
        made = part[seat_cols("bids_made", 3)].to_numpy(np.int64)
        failed = part[seat_cols("bids_failed", 3)].to_numpy(np.int64)
        tries = part[seat_cols("moon_attempts", 3)].to_numpy(np.int64)
        moons = part[seat_cols("moons_made", 3)].to_numpy(np.int64)
        for b in sorted(set(bots.ravel())):
            m = bots == b
            c, k = int((made + failed)[m].sum()), int(made[m].sum())
            rate, lo, hi = wilson(k, c)
            mrate, mlo, mhi = wilson(int(moons[m].sum()), int(tries[m].sum()))
            rows.append({**({"setting": setting} if setting else {}), "bot": b, "seat_games": int(m.sum()),
                         "contracts": c, "made": k, "make_rate": rate, "ci_low": lo, "ci_high": hi,
                         "moon_contracts": int(tries[m].sum()), "moons_made": int(moons[m].sum()),
                         "moon_rate": mrate, "moon_low": mlo, "moon_high": mhi})
    return pd.DataFrame(rows)


def _make_rates(f: pd.DataFrame, what: str, names, label: str) -> pd.DataFrame:
    """Contracts and make rate per bid (trump, widow use), every one listed: one never won
    stays with 0 contracts and ``never`` True (``experiments.tables.rate_table``)."""
    return tables.rate_table(label, names, [int(f[f"{what}_{n}_made"].sum()) for n in names],
                             [int(f[f"{what}_{n}_contracts"].sum()) for n in names], "contracts", "made",
                             "make_rate")


# ---- Shifting Stones -------------------------------------------------------------------------
VALUES = (1, 2, 3, 5)  # Shifting Stones card values


def stones_tables(study: StudyData) -> dict[str, pd.DataFrame]:
    """Shifting Stones: ``cards`` and ``classes`` per player count (pooling a sweep's settings:
    the per-card columns are read chunk by chunk; run it on each part of ``split_settings`` to
    keep them apart, its rows then carry their ``setting``), ``bonus`` per player count and
    setting (its ``setting`` column names every varied option)."""
    from simcore.games.shifting_stones_deck import load_deck

    deck = load_deck()
    points = np.array([c.points for c in sorted(deck, key=lambda c: c.id)], np.int64)
    # per player count: games, per card the games it was scored in and the moments of the
    # round it was scored in, per value class the moments of its per-game scored share
    acc: dict[int, dict[str, Any]] = {}
    for _run, n, trunc, cols, t in read_wide(study, "card_"):
        m = t[[f"card_{c + 1}_scored" for c in range(72)]].to_numpy(np.int64)[~trunc]
        a = acc.setdefault(n, {"games": 0, "scored": np.zeros(72, np.int64),
                               "round": [stats.Moments() for _ in range(72)],
                               "class": {v: stats.Moments() for v in VALUES}})
        scored = m >= 0
        a["games"] += len(m)
        a["scored"] += scored.sum(axis=0)
        for c in range(72):
            a["round"][c].add(m[scored[:, c], c] // 8)
        # per game, the share of each value class scored: the class interval is over games
        # (the cards of one game are not independent trials)
        for v in VALUES:
            a["class"][v].add(scored[:, points == v].mean(axis=1))
    rows = []
    for n, a in sorted(acc.items()):
        g = a["games"]
        if not g:  # every game of this player count hit the cap: no card was decided in one
            continue
        for c in range(72):
            k = int(a["scored"][c])
            r = wilson(k, g)
            mr, r_lo, r_hi = tables.mean_interval(a["round"][c])
            rows.append({"players": n, "card": c + 1, "points": int(points[c]), "games": g, "scored": k,
                         "scored_rate": r[0], "ci_low": r[1], "ci_high": r[2], "mean_round": mr,
                         "round_low": r_lo, "round_high": r_hi,
                         "expected_points": points[c] * r[0], "ep_low": points[c] * r[1],
                         "ep_high": points[c] * r[2]})
    cards = pd.DataFrame(rows)
    out: dict[str, pd.DataFrame] = {}
    if len(cards):
        out["cards"] = cards
        cls = []
        for (n, v), part in cards.groupby(["players", "points"]):
            g = int(part["games"].iloc[0])
            k = int(part["scored"].sum())
            r = tables.mean_interval(acc[n]["class"][v])
            # a share of the class's cards: its t interval is cut to [0, 1] (a rare class's
            # reached below 0)
            cls.append({"players": n, "points": v, "cards_in_deck": len(part),
                        "scored_rate": r[0], "ci_low": max(r[1], 0.0), "ci_high": min(r[2], 1.0),
                        "expected_points_per_card": v * r[0],
                        "points_per_game": v * k / g,
                        "mean_round": float((part["mean_round"] * part["scored"]).sum() / max(k, 1))})
        out["classes"] = pd.DataFrame(cls)
        one = [x for x in study.frame["setting"].unique() if x]
        if len(one) == 1 and study.frame["setting"].nunique() == 1:  # a part of split_settings: say which
            for key in ("cards", "classes"):
                out[key].insert(1, "setting", one[0])
    rows = []
    for n, part in by_players(study):
        if n < 2:
            continue
        d = part[~part["truncated"].astype(bool)]
        if not len(d):
            continue
        pts = d[seat_cols("points", n)].to_numpy(np.int64)
        score = d[seat_cols("score", n)].to_numpy(np.int64)
        by_points = pts == pts.max(axis=1, keepdims=True)
        by_score = score == score.max(axis=1, keepdims=True)
        changed = (by_points != by_score).any(axis=1)
        bonus_any = d[seat_cols("bonus", n)].to_numpy(np.int64).sum(axis=1) > 0
        r = wilson(changed.sum(), len(d))
        row = {"players": n, **setting_of(d), "games": len(d), "bonus_awarded": float(bonus_any.mean()),
               "winner_changed": int(changed.sum()), "changed_rate": r[0], "ci_low": r[1], "ci_high": r[2]}
        if "skips_0" in d:
            sk = d[seat_cols("skips", n)].to_numpy(np.float64)
            m = mean_ci(sk.mean(axis=1))
            anyk = wilson((sk.sum(axis=1) > 0).sum(), len(d))
            row.update({"skips_per_seat": m[0], "skips_low": m[1], "skips_high": m[2],
                        "games_with_skip": anyk[0], "gws_low": anyk[1], "gws_high": anyk[2]})
        rows.append(row)
    out["bonus"] = pd.DataFrame(rows)
    return out


# ---- Sequence Stacks -------------------------------------------------------------------------
STACKS_ACTIONS = ("skip", "reverse", "steal_card", "steal_chip", "blocks")


def stacks_tables(study: StudyData) -> dict[str, pd.DataFrame]:
    chips, blocked, actions, length = [], [], [], []
    for n, part in by_players(study):
        d = part[~part["truncated"].astype(bool)]
        if not len(d):
            continue
        red = d[seat_cols("red", n)].to_numpy(np.float64)
        blue = d[seat_cols("blue", n)].to_numpy(np.float64)
        win = d[seat_cols("win", n)].to_numpy(np.int64) > 0
        for colour, m in (("red", red), ("blue", blue)):
            all_ = mean_ci(m.mean(axis=1))
            w = mean_ci((m * win).sum(axis=1) / np.maximum(win.sum(axis=1), 1))
            chips.append({"players": n, **setting_of(d), "colour": colour, "chips_per_seat": all_[0], "ci_low": all_[1],
                          "ci_high": all_[2], "winner_chips": w[0], "w_low": w[1], "w_high": w[2]})
        comp = d[seat_cols("completed", n)].to_numpy(np.float64).sum(axis=1)
        blk = d[seat_cols("blocked", n)].to_numpy(np.float64).sum(axis=1)
        r = ratio_ci(blk, comp)
        pc = mean_ci(comp)
        blocked.append({"players": n, **setting_of(d), "completions_per_game": pc[0], "comp_low": pc[1], "comp_high": pc[2],
                        "blocked_share": r[0], "ci_low": r[1], "ci_high": r[2]})
        for a in STACKS_ACTIONS:
            used = d[seat_cols(a, n)].to_numpy(np.int64) > 0
            u = (int((win & used).sum()), int(used.sum()))
            nu = (int((win & ~used).sum()), int((~used).sum()))
            ru, rn, dd = wilson(*u), wilson(*nu), diff_ci(u, nu)
            actions.append({"players": n, **setting_of(d), "card": a, "seat_games_used": u[1], "use_rate": u[1] / used.size,
                            "win_users": ru[0], "users_low": ru[1], "users_high": ru[2],
                            "win_nonusers": rn[0], "non_low": rn[1], "non_high": rn[2],
                            "difference": dd[0], "diff_low": dd[1], "diff_high": dd[2]})
        t = mean_ci(d["turns"])
        length.append({"players": n, **setting_of(d), "games": len(d), "mean_turns": t[0], "ci_low": t[1], "ci_high": t[2],
                       "turns_per_player": t[0] / n, "median_turns": float(d["turns"].median())})
    return {"chips": pd.DataFrame(chips), "blocked": pd.DataFrame(blocked),
            "actions": pd.DataFrame(actions), "length": pd.DataFrame(length)}
