"""Skill and chance between a tournament's bots, on the "X%-coin-flip" scale.

Duersch, Lambrecht & Oechssler (2020, "Measuring skill and chance in games") place a game
on the scale of "X%-coin-flip chess": chess in which a coin decides a share X of the games
(poker comes out near 75%).  Here the pure-skill end of the scale is a game in which the
stronger of two bots always wins; a coin deciding a share X of the games makes the stronger
bot win 1 - X/2 of them.  So each pair of bots (a, b) gives

    X_ab = 2 * (1 - p),  p = the stronger bot's win rate against the other (ties as half)

and the game, between these bots, is "decided by a coin flip X of the time", X the mean of
X_ab over the pairs that met (0: skill always decides; 1: the bots are indistinguishable).
Which bot of a pair is the stronger is fixed by the point estimate and kept in every
resample, so the interval measures the figure's spread, not a flip of the pairing.

The 95% interval (cut to [0, 1]) is the percentile interval over the tournament's Poisson bootstrap over
deals (``tournament.Collector``'s resampled finishing-order counts, the same resamples as
the ratings' intervals).

It depends on the bots: the wider apart the ladder, the smaller X.  A game's figure in the
README is over its measured skill ladder (``bots/ladders``), random included.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import stats

SKILL_CHANCE = "skill_chance"


def _rates_a(outcomes: np.ndarray, counts: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Win rate of each pair's lower-coded bot (ties as half) under each row of ``counts``
    (resamples x orders), as ``stats.pairwise_from_orders`` computes it; nan where a pair did
    not meet."""
    tally = np.einsum("ro,tok->trk", np.atleast_2d(counts), outcomes[:, :, keys])
    total = tally.sum(axis=0)
    score = tally[0] + tally[2] / 2
    return np.divide(score, total, out=np.full_like(score, np.nan), where=total > 0)


def skill_chance(tallies: dict) -> pd.DataFrame:
    """One row per pair that met and a last row ``(all pairs)``: the stronger bot (blank where X's
    interval reaches 1, a coin flip: the games do not tell which), its win
    rate, X and X's 95% bootstrap interval.  ``tallies``: ``tournament.Collector.tallies()``."""
    bots, codes, ranks = tallies["bots"], tallies["codes"], tallies["ranks"]
    # each game weighs 1 (a bot in two seats makes sub-games of one game, not more games)
    point = stats.pairwise_from_orders(bots, codes, ranks, tallies["game_counts"]).set_index(["bot_a", "bot_b"])
    code = {b: i for i, b in enumerate(bots)}
    keys = np.array([code[a] * len(bots) + code[b] for a, b in point.index], dtype=np.int64)
    a_stronger = (point["win_rate_a"] >= 0.5).to_numpy()
    p = np.where(a_stronger, point["win_rate_a"], 1 - point["win_rate_a"])
    boot_counts = np.asarray(tallies["game_boot_counts"], dtype=float)
    if len(boot_counts) and len(keys):
        rates = _rates_a(stats.pair_outcomes(len(bots), codes, ranks), boot_counts, keys)
        boot = 2 * (1 - np.where(a_stronger, rates, 1 - rates))
    else:
        boot = np.zeros((len(boot_counts), len(point)))
    x = 2 * (1 - p)
    rows = []
    for i, (a, b) in enumerate(point.index):
        # a resample in which the weaker bot comes out ahead gives X > 1; the interval is
        # of a share, so it is cut to [0, 1]
        lo, hi = (np.clip(np.nanpercentile(boot[:, i], [2.5, 97.5]), 0, 1) if len(boot) else (np.nan, np.nan))
        # an interval reaching X = 1 (a pure coin flip) does not tell which bot is stronger:
        # no name then (two bots that play alike were labelled stronger and weaker)
        told = bool(hi < 1)
        rows.append({"pair": f"{a} v {b}", "stronger": (a if a_stronger[i] else b) if told else "", "games": int(round(point["games"].iloc[i])),
                     "stronger_win_rate": float(p[i]), "coin_flip": float(x[i]), "ci_low": float(lo),
                     "ci_high": float(hi)})
    # a resample of a tiny tournament can hold no decided game of any pair: it says nothing
    # about the mean and is left out (averaging it gave NaN and a RuntimeWarning)
    seen = boot[~np.isnan(boot).all(axis=1)] if len(boot) else boot
    overall = np.nanmean(seen, axis=1) if len(seen) else np.array([])
    lo, hi = (np.clip(np.percentile(overall, [2.5, 97.5]), 0, 1) if len(overall) else (np.nan, np.nan))
    rows.append({"pair": "(all pairs)", "stronger": "", "games": int(round(point["games"].sum())),
                 "stronger_win_rate": float(np.mean(p)), "coin_flip": float(np.mean(x)), "ci_low": float(lo),
                 "ci_high": float(hi)})
    return pd.DataFrame(rows)


def sentence(title: str, table: pd.DataFrame) -> str:
    """The figure in one sentence a designer can read."""
    row = table.iloc[-1]
    return (f"Between these bots {title} plays like a game decided by a coin flip {row.coin_flip:.0%} of the time "
            f"and by skill otherwise (95% bootstrap interval {row.ci_low:.0%}–{row.ci_high:.0%}; "
            f"0% = the stronger bot always wins, 100% = no bot better than another; the "
            f"\"X%-coin-flip\" scale of Duersch, Lambrecht & Oechssler 2020)")
