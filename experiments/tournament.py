"""`playlab tournament`: every seating of a set of bots over the same deals, then ratings
(Bradley-Terry / Plackett-Luce on an Elo scale, bootstrap over deals) and a pairwise table.

Each seating is one configuration of the study and plays games [0, G) of the one seed,
so deal *i* is dealt identically under every seating: a bot's luck is the same whichever
seat it holds, and ratings and the pairwise table compare bots on shared deals.
"""
from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from bots.registry import BotError, parse_bot
from experiments import stats
from experiments.tables import bot_game_shares, bot_table_by_deal, clustered_wilson
from simcore.games import load_game
from runtime.runner import RunConfig

from .restricted_play import RESTRICTED_PLAY, restricted_play
from .restricted_play import format_table as format_restricted
from .results import finishing_places
from .study import Study

MODES = ("all", "rotate")


def seatings(n_bots: int, players: int, mode: str = "all") -> list[tuple[int, ...]]:
    """Bot numbers per seat for every seating of the schedule.

    ``all``: with at least as many seats as bots, every assignment of bots to seats in
    which each bot plays (2 bots, 3 seats: 6); with more bots than seats, every ordered
    choice of ``players`` different bots (3 bots, 2 seats: 6).
    ``rotate``: the bots in listed order, cycled through the seats (n rotations of the
    first n, or of the bots repeated to fill the seats) — fewer seatings, each bot in
    each seat equally often when the bots fill the seats evenly.
    """
    if n_bots < 2:
        raise BotError(f"a tournament needs at least two different bots, not {n_bots}")
    if mode == "all":
        if n_bots <= players:
            return [s for s in itertools.product(range(n_bots), repeat=players) if len(set(s)) == n_bots]
        return list(itertools.permutations(range(n_bots), players))
    if mode == "rotate":
        if n_bots <= players:
            base = [i % n_bots for i in range(players)]
            return [tuple(base[(k + j) % players] for j in range(players)) for k in range(players)]
        # each bot once in each seat: the rotations of the full list, cut to the seats
        return [tuple((k + j) % n_bots for j in range(players)) for k in range(n_bots)]
    raise BotError(f"unknown --mode {mode!r} (modes: {', '.join(MODES)})")


def parse_distinct_bots(game: str, specs: str | Sequence[str]) -> list[str]:
    """The bot specs, refused when two of them are the same bot (their results could not
    be told apart)."""
    items = specs.split(",") if isinstance(specs, str) else list(specs)
    items = [t.strip() for t in items]
    if any(not t for t in items):
        raise BotError(f"empty bot spec in {specs!r}")
    module = load_game(game)
    labels = [parse_bot(module, t).label for t in items]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            raise BotError(f"bot {label!r} is listed twice in --bots (give each bot once, "
                           f"with different parameters to compare settings)")
    if len(labels) < 2:
        raise BotError(f"a tournament needs at least two different bots, not {len(labels)}")
    return labels


def build(game: str, players: int | None, bot_specs, games: int, seed: int,
          variant: dict | None = None, mode: str = "all", chunk: int | None = None) -> Study:
    labels = parse_distinct_bots(game, bot_specs)
    info = load_game(game).INFO
    if players is None:
        players = max(info.min_players, min(len(labels), info.max_players))
        if info.min_players == info.max_players:
            players = info.min_players
    info.check_players(players)
    if players < 2:
        raise BotError("a tournament needs at least two seats")
    plan = seatings(len(labels), players, mode)
    configs = [RunConfig.build(game, players, [labels[b] for b in seating], variant, seed) for seating in plan]
    kw = {} if chunk is None else {"chunk": chunk}
    return Study("tournament", configs, games, seed,
                 meta={"bots": labels, "players": players, "mode": mode, "seatings": [list(s) for s in plan]},
                 **kw)


def seat_selections(labels: Sequence[str]) -> list[tuple[int, ...]]:
    """Ways to pick one seat of each different bot in a seating (one way when no bot
    holds two seats)."""
    seats_of: dict[str, list[int]] = {}
    for s, label in enumerate(labels):
        seats_of.setdefault(label, []).append(s)
    return [tuple(sorted(pick)) for pick in itertools.product(*seats_of.values())]


class Collector:
    """Keeps, chunk by chunk, only tallies whose size does not grow with the games: how many
    games ended in each distinct finishing order of the bots (the ratings and the pairwise
    table need nothing else), the same counts weighted by each deal's Poisson bootstrap
    counts (``stats.poisson_weights``), and per pair of bots the moments of their per-deal
    win difference.  A deal's seatings arrive in the chunks of one range of deals
    (``Study.tasks`` is chunk-major; a cluster may deliver them out of order), so only the
    ranges still missing a seating are held, as a few numbers per deal.

    A seating that puts one bot in several seats (more seats than bots) counts as its
    sub-games with one seat of each bot, in the game's finishing order restricted to them:
    the rating models need each bot once per game, and Plackett-Luce restricted to a
    subset of players is again Plackett-Luce.  Each comparison between two different bots
    at the table then counts once."""

    def __init__(self, study: Study, n_boot: int = 200):
        if n_boot < 0:
            raise ValueError("n_boot must be >= 0")
        self.study = study
        self.players = study.configs[0].players
        self.bots = sorted(study.meta["bots"])
        self.code = {b: i for i, b in enumerate(self.bots)}
        self.selections = [seat_selections(c.bot_labels) for c in study.configs]
        self.n_boot = n_boot
        self.games = 0
        self.truncated = 0
        self.bot_games: dict[str, int] = {}
        # each bot's win share and rate per seat it held, averaged over each deal's games
        # (its seatings replay the same cards) and then over deals (tables.bot_table_by_deal):
        # bot -> (games, share Moments, rate Moments)
        self.bot_deals: dict[str, tuple] = {}
        self.subgames = np.zeros(len(self.bots), np.int64)  # sub-games each bot sat in
        self.orders: dict[int, int] = {}  # finishing-order key -> its number
        self.order_rows: list[tuple[np.ndarray, np.ndarray]] = []  # (codes, ranks) per order
        self.counts: list[float] = []
        # the same, each game weighing 1 in all: its sub-games 1/k each (the pairwise table
        # counts games, and the sub-games of one game are not independent comparisons)
        self.game_counts: list[float] = []
        self.boot = np.zeros((n_boot, 0))
        self.game_boot = np.zeros((n_boot, 0))  # boot's counts, each game weighing 1 (game_counts)
        self.pairs = [(a, b) for i, a in enumerate(self.bots) for b in self.bots[i + 1:]]
        # per pair (a, b), over deals: a's win rate minus b's, a's, b's, and a's head-to-head
        # score against b (ahead 1, level 1/2), each the deal's mean over its games
        self.moments = {p: tuple(stats.Moments() for _ in range(4)) for p in self.pairs}
        self.pending: dict[int, dict] = {}  # range start -> its per-deal sums, seatings seen
        self.deals = 0
        self._weights: tuple[int, int, np.ndarray] | None = None

    def _order_ids(self, codes: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """The number of each row's finishing order (new orders are added)."""
        k = codes.shape[1]
        key = np.zeros(len(codes), np.int64)
        for j in range(k):
            key = key * (len(self.bots) + 1) + codes[:, j] + 1
        for j in range(k):
            key = key * (k + 1) + ranks[:, j] + 1
        uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        ids = np.empty(len(uniq), np.int64)
        for u, (value, row) in enumerate(zip(uniq.tolist(), first.tolist())):
            if value not in self.orders:
                self.orders[value] = len(self.counts)
                self.order_rows.append((codes[row].copy(), ranks[row].copy()))
                self.counts.append(0.0)
                self.game_counts.append(0.0)
            ids[u] = self.orders[value]
        if len(self.counts) > self.boot.shape[1]:
            grow = np.zeros((self.n_boot, len(self.counts) - self.boot.shape[1]))
            self.boot, self.game_boot = np.hstack([self.boot, grow]), np.hstack([self.game_boot, grow])
        return ids[inverse.ravel()]

    def _deal_weights(self, start: int, count: int) -> np.ndarray:
        if self._weights is None or self._weights[:2] != (start, count):
            deals = np.arange(start, start + count, dtype=np.int64)
            self._weights = (start, count, stats.poisson_weights(self.study.seed, self.n_boot, deals))
        return self._weights[2]

    def __call__(self, task, frame: pd.DataFrame) -> None:
        self.games += len(frame)
        trunc = frame["truncated"].astype(bool).to_numpy()
        self.truncated += int(trunc.sum())
        decided = frame[~trunc]
        labels = task.config.bot_labels
        for label in set(labels):
            self.bot_games[label] = self.bot_games.get(label, 0) + len(decided)
        places = finishing_places(decided, self.players)
        seat_bots = np.broadcast_to(np.asarray(labels, dtype=object), (len(decided), self.players))
        local = decided["index"].to_numpy(np.int64) - task.start  # the deal within the range
        pend = self.pending.setdefault(task.start, {
            "runs": set(), "seen": np.zeros(task.count, bool),
            "sums": {p: np.zeros((4, task.count)) for p in self.pairs},
            "bots": {b: np.zeros((3, task.count)) for b in self.bots}})
        pend["runs"].add(task.run)
        pend["seen"][local] = True
        win_cols = decided[[f"win_{s}" for s in range(self.players)]].to_numpy(np.int64)
        for b in set(labels):
            sat, share, rate = bot_game_shares(win_cols, seat_bots, b)
            sums = pend["bots"][b]
            sums[0] += np.bincount(local[sat], minlength=task.count)
            sums[1] += np.bincount(local[sat], weights=share[sat], minlength=task.count)
            sums[2] += np.bincount(local[sat], weights=rate[sat], minlength=task.count)
        weights = self._deal_weights(task.start, task.count) if self.n_boot and len(local) else None
        won = (places == 0).astype(np.float64)
        # each game weighs 1 in its deal's means: every pick compares each pair once
        k = 1.0 / len(self.selections[task.run])
        for pick in self.selections[task.run]:
            if not len(local):
                break
            codes = np.array([self.code[labels[s]] for s in pick], np.int64)
            p = places[:, list(pick)]
            # best first, then by bot code: the order the long format's preparation uses
            order = np.argsort(p * len(self.bots) + codes, axis=1, kind="stable")
            sorted_places = np.take_along_axis(p, order, axis=1)
            ranks = np.zeros(p.shape, np.int64)
            ranks[:, 1:] = np.cumsum(sorted_places[:, 1:] != sorted_places[:, :-1], axis=1)
            ids = self._order_ids(codes[order], ranks)
            tally = np.bincount(ids, minlength=len(self.counts))
            for i in np.flatnonzero(tally):
                self.counts[i] += float(tally[i])
                self.game_counts[i] += float(tally[i]) / len(self.selections[task.run])
                if weights is not None:
                    w = weights[:, local[ids == i]].sum(axis=1)
                    self.boot[:, i] += w
                    self.game_boot[:, i] += w / len(self.selections[task.run])
            self.subgames[codes] += len(p)
            for j, a in enumerate(pick):
                for b in pick[j + 1:]:
                    x, y = sorted((labels[a], labels[b]))
                    sx, sy = (a, b) if labels[a] == x else (b, a)
                    sums = pend["sums"][(x, y)]
                    sums[0] += np.bincount(local, weights=k * won[:, sx], minlength=task.count)
                    sums[1] += np.bincount(local, weights=k * won[:, sy], minlength=task.count)
                    sums[2] += k * np.bincount(local, minlength=task.count)
                    ahead = (places[:, sx] < places[:, sy]) + 0.5 * (places[:, sx] == places[:, sy])
                    sums[3] += np.bincount(local, weights=k * ahead, minlength=task.count)
        if len(pend["runs"]) == len(self.study.configs):
            self._close(task.start)

    def _close(self, start: int) -> None:
        """A range of deals has all its seatings: fold its per-deal win rates into the
        moments of each pair's paired difference."""
        pend = self.pending.pop(start)
        self.deals += int(pend["seen"].sum())
        for pair, (sa, sb, n, sh) in pend["sums"].items():
            ok = n > 0
            a, b = sa[ok] / n[ok], sb[ok] / n[ok]
            md, ma, mb, mh = self.moments[pair]
            md.add(a - b)
            ma.add(a)
            mb.add(b)
            mh.add(sh[ok] / n[ok])
        for b, (n, share, rate) in pend["bots"].items():
            ok = n > 0
            if ok.any():
                games, ms, mr = self.bot_deals.setdefault(b, (0, stats.Moments(), stats.Moments()))
                ms.add(share[ok] / n[ok])
                mr.add(rate[ok] / n[ok])
                self.bot_deals[b] = (games + int(n.sum()), ms, mr)

    def finish(self) -> None:
        for start in sorted(self.pending):
            self._close(start)

    def tallies(self) -> dict:
        """The finishing orders with their counts, as ``stats.ratings_from_orders`` takes them."""
        self.finish()
        k = max((len(c) for c, _ in self.order_rows), default=0)
        codes = np.full((len(self.order_rows), k), -1, np.int64)
        ranks = np.full((len(self.order_rows), k), -1, np.int64)
        for i, (c, r) in enumerate(self.order_rows):
            codes[i, :len(c)] = c
            ranks[i, :len(r)] = r
        return {"bots": np.array(self.bots, dtype=object), "codes": codes, "ranks": ranks,
                "counts": np.array(self.counts), "boot_counts": self.boot,
                "game_counts": np.array(self.game_counts), "game_boot_counts": self.game_boot}

    def paired_win_rates(self, a: str, b: str) -> dict:
        """Win rate of ``a`` minus that of ``b`` on the deals both played, per deal (their
        mean win over the seatings of the deal in which both sat), with the paired and the
        unpaired standard error."""
        self.finish()
        x, y = sorted((a, b))
        md, ma, mb, _ = self.moments[(x, y)]
        nan = float("nan")
        if md.n < 1:
            return {"win_rate_diff": nan, "se_paired": nan, "se_unpaired": nan}
        sign = 1.0 if (x, y) == (a, b) else -1.0
        if md.n < 2:  # one deal: the difference is known, its spread over deals is not
            return {"win_rate_diff": sign * md.mean, "se_paired": nan, "se_unpaired": nan}
        return {"win_rate_diff": sign * md.mean, "se_paired": md.sem(),
                "se_unpaired": math.sqrt(ma.sem() ** 2 + mb.sem() ** 2)}

    def head_to_head(self, a: str, b: str) -> tuple[int, float]:
        """(deals both played, the sample variance over them of the deal's mean head-to-head
        score of the pair, ahead 1 and level 1/2, each game weighing 1; nan below 2 deals):
        a deal's seatings replay its cards, so the pairwise table's interval reads the spread
        over deals (``tables.clustered_wilson``).  The variance is the same for either order."""
        self.finish()
        mh = self.moments[tuple(sorted((a, b)))][3]
        return mh.n, mh.var()


def summarize(study: Study, collector: Collector, n_boot: int | None = None) -> dict[str, pd.DataFrame]:
    """The ratings, with the first ``n_boot`` of the collector's bootstrap resamples (drawn
    as the games arrived; all of them by default), and the pairwise table."""
    n_boot = collector.n_boot if n_boot is None else n_boot
    if not 0 <= n_boot <= collector.n_boot:
        raise ValueError(f"the collector keeps {collector.n_boot} bootstrap resamples, not {n_boot}: "
                         "give n_boot to the Collector")
    t = collector.tallies()
    t["boot_counts"] = t["boot_counts"][:n_boot]
    tables: dict[str, pd.DataFrame] = {}
    if not len(t["counts"]):
        raise ValueError("every game of the tournament was truncated; nothing to rate")
    rated = stats.ratings_from_orders(t["bots"], t["codes"], t["ranks"], t["counts"], t["boot_counts"],
                                      collector.deals, collector.subgames, seed=study.seed)
    # decided games each bot sat in (the rating fit counts sub-games when a bot held two seats)
    rated["games"] = [collector.bot_games.get(b, 0) for b in rated["bot"]]
    tables["ratings"] = rated
    pairwise = stats.pairwise_from_orders(t["bots"], t["codes"], t["ranks"], t["game_counts"])
    extra = pd.DataFrame([collector.paired_win_rates(r.bot_a, r.bot_b) for r in pairwise.itertuples()],
                         index=pairwise.index, columns=["win_rate_diff", "se_paired", "se_unpaired"])
    # the difference's normal 95% interval from the paired standard error over deals (a deal's
    # seatings replay its cards): what tells two bots apart; no spread, the difference itself
    se = extra["se_paired"].to_numpy(float)
    diff = extra["win_rate_diff"].to_numpy(float)
    with np.errstate(invalid="ignore"):
        lo, hi = sps.norm.interval(0.95, loc=diff, scale=np.where(se > 0, se, 1.0))
    extra["diff_low"] = np.where(se > 0, lo, np.where(se == 0, diff, np.nan))
    extra["diff_high"] = np.where(se > 0, hi, np.where(se == 0, diff, np.nan))
    # A's head-to-head score's interval from its spread over deals (a deal's seatings replay
    # its cards, so games are not independent trials: tables.clustered_wilson)
    h2h = np.array([collector.head_to_head(r.bot_a, r.bot_b) for r in pairwise.itertuples()], float).reshape(-1, 2)
    pairwise["ci_low"], pairwise["ci_high"] = clustered_wilson(pairwise["win_rate_a"], h2h[:, 0], h2h[:, 1],
                                                               pairwise["games"])
    pairwise.insert(pairwise.columns.get_loc("games") + 1, "deals", h2h[:, 0].astype(np.int64))
    tables["pairwise"] = pd.concat([pairwise, extra], axis=1)
    restricted = restricted_play(study.configs[0].game, tables["pairwise"])
    if len(restricted):
        tables[RESTRICTED_PLAY] = restricted
    if collector.bot_deals:
        win = bot_table_by_deal(collector.bot_deals, collector.players)
        win.insert(0, "players", collector.players)
        tables["win_rates"] = win
    return tables


def format_tables(study: Study, collector: Collector, tables: dict[str, pd.DataFrame]) -> str:
    meta = study.meta
    c0 = study.configs[0]
    lines = [f"{c0.info.title} tournament: {len(meta['bots'])} bots, {meta['players']} players, "
             f"{len(study.configs)} seatings x {study.games} games (the same {study.games} deals in every seating), seed {study.seed}"]
    lines.append(f"games: {collector.games}; truncated (no finishing order) and left out: {collector.truncated}"
                 + (_truncation_words(c0) if collector.truncated else ""))
    lines.append("")
    lines.append("ratings (Elo scale, mean 0; 95% bootstrap interval over deals):")
    lines.append(tables["ratings"].to_string(index=False, float_format=lambda x: f"{x:.1f}"))
    lines.append("")
    lines.append("pairwise (games in which both played; wins_a / wins_b: games a finished ahead of b / b ahead of a, "
                 "whoever won the game; `shared`: games they finished level, a shared win or equal scores behind the "
                 "winner, counted as half in win_rate_a" + ("; a bot in several seats: each game counts once, "
                 "split evenly over its seats' comparisons" if meta["players"] > len(meta["bots"]) else "")
                 + "; ci_low/ci_high: 95% Wilson interval of win_rate_a with as many trials as the spread of its "
                 "per-deal means over the `deals` shows, between one per deal and one per game, as a deal's "
                 "seatings replay its cards):")
    pw = tables["pairwise"]
    lines.append(pw.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    lines.append("win_rate_diff: a's rate of games won minus b's on the same deals (games won, not finishing "
                 "ahead: it can differ from wins_a vs wins_b); se_paired is its standard error from the pairing, "
                 "se_unpaired what independent deals would give")
    win = tables.get("win_rates")
    if win is not None:
        lines.append("")
        lines.append("win share per seat each bot held (a shared win split among its winners; 95% Wilson interval; "
                     "win_rate_per_seat counts a shared win for every sharer):")
        w = win[["bot", "games", "win_share_per_seat"]].copy()
        w["95% CI"] = [f"[{a:.4f}, {b:.4f}]" for a, b in zip(win["ci_low"], win["ci_high"])]
        w["win_rate_per_seat"] = win["win_rate_per_seat"]
        w["rate 95% CI"] = [f"[{a:.4f}, {b:.4f}]" for a, b in zip(win["rate_low"], win["rate_high"])]
        w["fair"] = win["fair"]
        lines.append(w.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    if RESTRICTED_PLAY in tables:
        lines.append("")
        lines.append(format_restricted(tables[RESTRICTED_PLAY]))
    sweeps = pw[(pw["wins_a"] == pw["games"]) | (pw["wins_b"] == pw["games"])]
    for r in sweeps.itertuples():
        winner = r.bot_a if r.wins_a == r.games else r.bot_b
        loser = r.bot_b if winner == r.bot_a else r.bot_a
        lines.append(f"{winner} finished ahead of {loser} in every game: their rating gap is set by the fit's "
                     f"regularisation, a lower bound rather than an estimate (and its interval cannot widen)")
    return "\n".join(lines)


def _truncation_words(config: RunConfig) -> str:
    from .results import truncation_option

    opt = truncation_option(config.info)
    return f" (stopped by {opt}={config.variant[opt]})" if opt else ""
