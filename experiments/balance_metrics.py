"""Game-specific metrics of `playlab balance` (``--target NAME<=X``), attached to each
game's registration entry as its ``balance_metrics`` extra: ``{name: (help, fn)}`` with
``fn(frame, config) -> (value, 95% low, 95% high)`` over one configuration's games.  A
plugin game offers its own the same way (``register_game(…, balance_metrics=…)``)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments import stats


def _t_interval(x: np.ndarray) -> tuple[float, float, float]:
    from statsmodels.stats.weightstats import DescrStatsW

    if len(x) < 2:
        return (float(x.mean()) if len(x) else math.nan), math.nan, math.nan
    if np.all(x == x[0]):
        return float(x[0]), float(x[0]), float(x[0])
    lo, hi = DescrStatsW(x).tconfint_mean(alpha=0.05)
    return float(x.mean()), float(lo), float(hi)


# ---- Moon: the make rate of each bid ----------------------------------------------------------
MOON_BIDS = (1, 2, 3, 4, 5, 6, 7, 21)


def _moon_make_rate(bid: int):
    def metric(frame: pd.DataFrame, config) -> tuple[float, float, float]:
        # pooled over the contracts of all games (Wilson); the contracts of one game are
        # not independent, so the interval is somewhat narrow when a bot bids it often
        c, m = int(frame[f"bid_{bid}_contracts"].sum()), int(frame[f"bid_{bid}_made"].sum())
        lo, hi = stats.wilson_interval(m, c)
        return (m / c if c else math.nan), lo, hi
    return metric


def moon_metrics() -> dict:
    return {f"make_bid_{b}": (f"make rate of bid {b} contracts (Wilson, pooled over contracts)", _moon_make_rate(b))
            for b in MOON_BIDS}


# ---- Shifting Stones: what a card of each value is worth ---------------------------------------
STONES_VALUES = (1, 2, 3, 5)


def _card_worth(value: int):
    def metric(frame: pd.DataFrame, config) -> tuple[float, float, float]:
        from simcore.games.shifting_stones_deck import load_deck

        deck = sorted(load_deck(config.variant.get("deck") or None), key=lambda c: c.id)
        points = np.array([c.points for c in deck], np.int64)
        if not (points == value).any():
            return math.nan, math.nan, math.nan
        decided = frame[~frame["truncated"].astype(bool)]
        scored = decided[[f"card_{c.id}_scored" for c in deck]].to_numpy(np.int64) >= 0
        # per game, the points a card of this value brought on average: the interval is
        # over games (the cards of one game are not independent trials)
        worth = value * scored[:, points == value].mean(axis=1)
        return _t_interval(worth.astype(np.float64))
    return metric


def stones_metrics() -> dict:
    return {f"card_value_{v}": (f"expected points of one {v}-point card per game: its face value times the "
                                "share of games it is scored in (the bonus for the most 1-point cards is not "
                                "counted; t-interval over games)", _card_worth(v)) for v in STONES_VALUES}
