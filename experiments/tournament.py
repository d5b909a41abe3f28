"""`playlab tournament`: every seating of a set of bots over the same deals, then ratings
(Bradley-Terry / Plackett-Luce on an Elo scale, bootstrap over deals) and a pairwise table.

Each seating is one configuration of the study and plays games [0, G) of the one seed,
so deal *i* is dealt identically under every seating: a bot's luck is the same whichever
seat it holds, and ratings and the pairwise table compare bots on shared deals.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import pandas as pd

from bots.registry import BotError, parse_bot
from experiments import stats
from simcore.games import load_game
from runtime.runner import RunConfig

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
    """Keeps, chunk by chunk, only what the tables need: the long frame of decided games
    (deal, game, bot, place; small integer columns), games per bot and the truncated count.

    A seating that puts one bot in several seats (more seats than bots) enters the long
    frame as its sub-games with one seat of each bot, in the game's finishing order
    restricted to them: the rating models need each bot once per game, and Plackett-Luce
    restricted to a subset of players is again Plackett-Luce.  Each comparison between
    two different bots at the table then counts once."""

    def __init__(self, study: Study):
        self.study = study
        self.players = study.configs[0].players
        self.selections = [seat_selections(c.bot_labels) for c in study.configs]
        self.parts: list[pd.DataFrame] = []
        self.games = 0
        self.truncated = 0
        self.bot_games: dict[str, int] = {}

    def __call__(self, task, frame: pd.DataFrame) -> None:
        self.games += len(frame)
        trunc = frame["truncated"].astype(bool).to_numpy()
        self.truncated += int(trunc.sum())
        decided = frame[~trunc]
        labels = task.config.bot_labels
        for label in set(labels):
            self.bot_games[label] = self.bot_games.get(label, 0) + len(decided)
        places = finishing_places(decided, self.players)
        deal = decided["index"].to_numpy(np.int64)
        picks = self.selections[task.run]
        span = self.study.games
        for j, pick in enumerate(picks):
            game = (task.run * span + deal) * len(picks) + j
            k = len(pick)
            self.parts.append(pd.DataFrame({
                "deal": np.repeat(deal, k),
                "game": np.repeat(game, k),
                "bot": pd.Categorical(np.tile([labels[s] for s in pick], len(deal)), categories=self.study.meta["bots"]),
                "place": places[:, list(pick)].reshape(-1).astype(np.int8),
            }))

    def long(self) -> pd.DataFrame:
        if not self.parts:
            return pd.DataFrame({"deal": [], "game": [], "bot": [], "place": []})
        lf = pd.concat(self.parts, ignore_index=True)
        lf["bot"] = lf["bot"].astype(str)
        return lf


def paired_win_rates(lf: pd.DataFrame, a: str, b: str) -> dict:
    """Win rate of ``a`` minus that of ``b`` on the deals both played, per deal (their
    mean win over the seatings of the deal in which both sat), with the paired and the
    unpaired standard error."""
    games_a = set(lf.loc[lf["bot"] == a, "game"])
    games_b = set(lf.loc[lf["bot"] == b, "game"])
    shared = lf[lf["game"].isin(games_a & games_b) & lf["bot"].isin([a, b])]
    won = shared.assign(win=(shared["place"] == 0).astype(float))
    per_deal = won.pivot_table(index="deal", columns="bot", values="win", aggfunc="mean", observed=True)
    if a not in per_deal or b not in per_deal or len(per_deal) < 2:
        return {"win_rate_diff": float("nan"), "se_paired": float("nan"), "se_unpaired": float("nan")}
    d = stats.paired_difference(per_deal[a].to_numpy(), per_deal[b].to_numpy())
    return {"win_rate_diff": d["mean_diff"], "se_paired": d["se_paired"], "se_unpaired": d["se_unpaired"]}


def summarize(study: Study, collector: Collector, n_boot: int = 200) -> dict[str, pd.DataFrame]:
    lf = collector.long()
    tables: dict[str, pd.DataFrame] = {}
    if lf.empty:
        raise ValueError("every game of the tournament was truncated; nothing to rate")
    rated = stats.ratings(lf, n_boot=n_boot, seed=study.seed)
    # decided games each bot sat in (the rating fit counts sub-games when a bot held two seats)
    rated["games"] = [collector.bot_games.get(b, 0) for b in rated["bot"]]
    tables["ratings"] = rated
    pairwise = stats.pairwise_table(lf)
    extra = pd.DataFrame([paired_win_rates(lf, r.bot_a, r.bot_b) for r in pairwise.itertuples()],
                         index=pairwise.index)
    tables["pairwise"] = pd.concat([pairwise, extra], axis=1)
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
    lines.append("pairwise (games in which both played; `shared`: games they finished level, a shared win or equal scores behind the winner, counted as half a win in win_rate_a):")
    pw = tables["pairwise"]
    lines.append(pw.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    lines.append("win_rate_diff: a's win rate minus b's on the same deals; se_paired is its standard "
                 "error from the pairing, se_unpaired what independent deals would give")
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
