"""The tables every command prints and the report shows, one function each, computed from
small tallies that the commands keep chunk by chunk and the report counts from the stored
rows.  A figure and its interval are computed here only, so `playlab report` cannot show a
different number (or interval) from the command that wrote the study
(tests/test_figures_agree.py holds them equal over every study kind).

Intervals: a proportion (wins, a win share, a make rate, truncated games) gets the 95%
Wilson score interval of statsmodels ``proportion_confint(method="wilson")``
(:func:`experiments.stats.wilson_intervals`), which keeps its coverage at 0 and 1: no win in
200 games is [0, 0.0188], never [0, 0].  A win *share* splits a shared win among its winners,
so its per-game values lie in [0, 1] with variance at most p(1 - p): the Wilson interval of
the summed shares over the games is the binomial one and errs wide when wins are shared.
A mean of an unbounded quantity (turns, decisions, margin) gets the t interval of its
moments (scipy ``stats.t``).

Tallies (all sums over games, so chunks merge by adding):

* win patterns by position: ``counts[code]`` decided games whose winners, as bits by position
  (bit k: position k won), make ``code`` (:func:`win_pattern_counts`).  Everything a seat
  table needs, in 2**n numbers.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from experiments import stats

__all__ = ["NEVER", "wilson", "mean_interval", "win_pattern_counts", "pattern_rows", "seat_table", "seat_sole_wins", "equal_seats_p",
           "bot_share_sums", "bot_table", "rate_table"]

#: what a rate whose denominator is 0 means: the event never came up (a row kept, not dropped)
NEVER = "never happened with these bots"


def wilson(successes, trials) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rate, low, high)`` arrays: successes / trials and its 95% Wilson interval; nan where
    ``trials`` is 0 (nothing to estimate: the row stays, its rate is "never happened")."""
    s, n = np.broadcast_arrays(np.asarray(successes, np.float64), np.asarray(trials, np.float64))
    rate = np.divide(s, n, out=np.full(s.shape, np.nan), where=n > 0)
    lo, hi = stats.wilson_intervals(s, n)
    return rate, lo, hi


def mean_interval(moments: stats.Moments, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of a stream's :class:`~experiments.stats.Moments`: the t interval
    (n - 1 degrees of freedom; a constant stream has a zero-width one); nan without values."""
    if moments.n == 0:
        return (math.nan, math.nan, math.nan)
    if moments.n < 2:
        return (moments.mean, math.nan, math.nan)
    sem = moments.sem()
    if sem == 0:
        return (moments.mean, moments.mean, moments.mean)
    lo, hi = sps.t.interval(level, moments.n - 1, loc=moments.mean, scale=sem)
    return (moments.mean, float(lo), float(hi))


# ---- seats -------------------------------------------------------------------------------
def win_pattern_counts(wins_by_position: np.ndarray) -> np.ndarray:
    """The win-pattern tally of decided games: ``wins_by_position`` is a (games, n) 0/1 (or
    bool) matrix, column k the game's k-th position (the seat, or the seat counted from the
    first player); returns ``(2**n,)`` counts by pattern code (bit k: position k won)."""
    w = np.asarray(wins_by_position) > 0
    n = w.shape[1]
    code = w.astype(np.int64) @ (np.int64(1) << np.arange(n, dtype=np.int64))
    return np.bincount(code, minlength=1 << n).astype(np.int64)


def pattern_rows(n: int) -> np.ndarray:
    """Every win pattern of ``n`` positions as a 0/1 row (row ``code``, column k = bit k)."""
    return ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)


# the seat-equality tests, by name (a finding names the one its p-value comes from)
SEAT_TEST = "chi-square of equal seats on sole wins"
SEAT_TEST_BY_DEAL = "Hotelling's T² of equal seats over deals (each deal's seatings averaged)"


def seat_table(counts: np.ndarray, n: int) -> pd.DataFrame:
    """Per position (``seat``) of ``n``, from the win-pattern tally ``counts``:

    ``games`` (decided), ``wins`` (a shared win counted for every sharer), ``shared_wins``,
    ``win_rate`` = wins / games with its Wilson interval ``ci_low``/``ci_high``; ``win_share``
    (a shared win split among its winners, so the shares of a game add up to 1) with its
    Wilson interval ``share_low``/``share_high``; ``fair`` = 1/n; ``advantage`` = win_share -
    1/n with ``adv_low``/``adv_high``.  ``sole_wins`` (games the position won alone) is what
    :func:`seat_sole_wins` gives the seat-equality test."""
    counts = np.asarray(counts, np.int64)
    w = pattern_rows(n)
    games = int(counts.sum())
    winners = w.sum(axis=1)
    shared = winners > 1
    wins = np.rint(counts @ w).astype(np.int64)
    shared_wins = np.rint(counts[shared] @ w[shared]).astype(np.int64)
    share = np.divide(w, winners[:, None], out=np.zeros(w.shape), where=winners[:, None] > 0)
    share_sum = counts @ share
    rate, lo, hi = wilson(wins, games)
    srate, slo, shi = wilson(share_sum, games)
    fair = 1.0 / n
    return pd.DataFrame({"seat": np.arange(n), "games": games, "wins": wins, "shared_wins": shared_wins,
                         "win_rate": rate, "ci_low": lo, "ci_high": hi, "win_share": srate,
                         "share_low": slo, "share_high": shi, "fair": fair, "advantage": srate - fair,
                         "adv_low": slo - fair, "adv_high": shi - fair})


def seat_table_by_deal(wins: np.ndarray, deals: np.ndarray, n: int) -> pd.DataFrame:
    """:func:`seat_table`'s columns when the same deal was played several times (a
    tournament's seatings): ``wins[g, k]`` is 1 where position ``k`` won game ``g`` (decided
    games only), ``deals[g]`` the game's deal.  The games of one deal are not independent (in
    a tournament of two bots that play alike every seating replays the same game), so each
    deal counts once: per position its win rate and win share averaged over the deal's
    games, and the Wilson intervals read their spread over deals (:func:`clustered_wilson`);
    ``p_equal_seats`` is ``stats.seat_equality_by_deal`` on the same per-deal shares.
    ``games`` stays the number of games, ``deals`` the number of deals."""
    w = np.asarray(wins, np.float64)
    winners = w.sum(axis=1, keepdims=True)
    share = np.divide(w, winners, out=np.zeros_like(w), where=winners > 0)
    _, at = np.unique(np.asarray(deals), return_inverse=True)
    per_game = np.bincount(at).astype(np.float64)[:, None]

    def by_deal(x):
        return np.stack([np.bincount(at, weights=x[:, k]) for k in range(n)], axis=1) / per_game

    def interval(means):
        mean = means.mean(axis=0)
        spread = means.var(axis=0, ddof=1) if len(means) > 1 else np.full(n, np.nan)
        return (mean, *clustered_wilson(mean, len(means), spread, len(w)))

    rate, lo, hi = interval(by_deal(w))
    deal_share = by_deal(share)
    srate, slo, shi = interval(deal_share)
    shared = (winners[:, 0] > 1)
    fair = 1.0 / n
    return pd.DataFrame({"seat": np.arange(n), "games": len(w), "deals": len(per_game),
                         "wins": np.rint(w.sum(axis=0)).astype(np.int64),
                         "shared_wins": np.rint(w[shared].sum(axis=0)).astype(np.int64),
                         "win_rate": rate, "ci_low": lo, "ci_high": hi, "win_share": srate,
                         "share_low": slo, "share_high": shi, "fair": fair, "advantage": srate - fair,
                         "adv_low": slo - fair, "adv_high": shi - fair,
                         "p_equal_seats": stats.seat_equality_by_deal(deal_share)})


def seat_sole_wins(counts: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """``(sole wins per position, games with a shared win)`` of a win-pattern tally: the
    counts :func:`experiments.stats.seat_equality_test` takes (exactly multinomial under
    equal seats), and the shared games it leaves out."""
    counts = np.asarray(counts, np.int64)
    w = pattern_rows(n)
    winners = w.sum(axis=1)
    sole = winners == 1
    return np.rint(counts[sole] @ w[sole]).astype(np.int64), int(counts[winners > 1].sum())


def equal_seats_p(counts: np.ndarray, n: int) -> float:
    """The p-value of equal seats from a win-pattern tally: ``stats.seat_equality_test``
    (chi-square) on the games one position won alone, the shared ones left out; nan without a
    sole win, and solo (one seat: nothing to compare).  Its warning about few expected wins is
    not repeated here (see that docstring)."""
    import warnings

    sole, _ = seat_sole_wins(counts, n)
    if n < 2 or not sole.sum():
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return stats.seat_equality_test(sole)[1]


# ---- bots --------------------------------------------------------------------------------
def bot_share_sums(wins: np.ndarray, bots: np.ndarray) -> dict[str, np.ndarray]:
    """Per bot: ``[games it sat in, sum of its win share per seat, sum of its win rate per
    seat]`` over the decided games of ``wins`` (games, n) with ``bots`` (games, n) labels
    (:func:`bot_game_shares` per game: a bot holding several seats of a game counts that
    game once, with its mean over those seats; the game, not the seat, is the unit)."""
    out = {}
    for b in sorted(set(np.asarray(bots).astype(str).ravel())):
        sat, share, rate = bot_game_shares(wins, bots, b)
        out[b] = np.array([float(sat.sum()), float(share[sat].sum()), float(rate[sat].sum())])
    return out


def bot_table(sums: dict[str, np.ndarray], n: int) -> pd.DataFrame:
    """Per bot, from :func:`bot_share_sums` tallies: ``games``, ``win_share_per_seat`` (shared
    wins split) with its Wilson interval ``ci_low``/``ci_high``, ``win_rate_per_seat`` (a
    shared win counted for every sharer) with ``rate_low``/``rate_high``, ``fair`` = 1/n."""
    names = sorted(sums)
    a = np.array([sums[b] for b in names]).reshape(len(names), 3)
    share, lo, hi = wilson(a[:, 1], a[:, 0])
    rate, rlo, rhi = wilson(a[:, 2], a[:, 0])
    return pd.DataFrame({"bot": names, "games": a[:, 0].astype(np.int64), "win_share_per_seat": share,
                         "ci_low": lo, "ci_high": hi, "win_rate_per_seat": rate, "rate_low": rlo,
                         "rate_high": rhi, "fair": 1.0 / n})


def bot_game_shares(wins: np.ndarray, bots: np.ndarray, bot: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sat, share, rate)`` per decided game of ``wins`` (games, n) with ``bots`` (games, n)
    labels: whether ``bot`` sat in it, and its win share and win rate per seat it held (the
    mean over its seats, as :func:`bot_share_sums` counts a game)."""
    w = np.asarray(wins, np.float64) > 0
    tot = w.sum(axis=1, keepdims=True)
    share = np.divide(w, tot, out=np.zeros(w.shape), where=tot > 0)
    mask = np.asarray(bots).astype(str) == bot
    seats = mask.sum(axis=1)
    denom = np.maximum(seats, 1)
    return seats > 0, (share * mask).sum(axis=1) / denom, (w * mask).sum(axis=1) / denom


def clustered_wilson(rate, deals, deal_var, games) -> tuple[np.ndarray, np.ndarray]:
    """95% Wilson interval of ``rate`` (a mean score in [0, 1] over ``games`` games played on
    ``deals`` deals, each deal's seatings replaying its cards) with the effective number of
    trials the spread of the per-deal means shows (Kish's design effect): ``n_eff = deals *
    rate * (1 - rate) / deal_var`` (``deal_var``: the sample variance of the per-deal means),
    so its width near the centre is the standard error over deals, bounded between one trial
    per deal (a deal's mean cannot vary more) and one per game (replays that agree exactly,
    as two bots that play alike, are as sure as independent games).  At a rate of 0 or 1
    every deal agrees and the spread says nothing: one trial per deal.  Taking each deal as
    a 0/1 trial always (exact for replays that all agree, a mean in [0, 1] varying no more
    than a 0/1 outcome with its mean) was 2-13 times too wide at 3-5 players, where a deal's
    mean over many seatings hardly varies; nan below 2 deals' spread is one per deal too."""
    r, d, v, g = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in (rate, deals, deal_var, games)))
    pq = r * (1 - r)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where((pq > 0) & (v > 0), d * pq / v, np.where((pq > 0) & (v == 0), g, d))
    n_eff = np.clip(n_eff, d, np.maximum(d, g))
    return stats.wilson_intervals(r * n_eff, n_eff)


def bot_table_by_deal(moments: dict[str, tuple], n: int) -> pd.DataFrame:
    """:func:`bot_table`'s columns when every deal was played several times (a tournament's
    seatings, whose games replay the same cards): ``moments[bot] = (games, share, rate)``,
    ``share`` and ``rate`` the ``stats.Moments`` over deals of the bot's per-deal mean (over
    the deal's games it sat in).  The intervals read the spread over deals
    (:func:`clustered_wilson`); ``deals`` beside ``games``."""
    names = sorted(moments)
    games = np.array([moments[b][0] for b in names], np.int64)
    deals = np.array([moments[b][1].n for b in names], np.int64)

    def interval(k):
        m = [moments[b][k] for b in names]
        mean = np.array([x.mean if x.n else np.nan for x in m])
        spread = np.array([x.var() for x in m])
        return (mean, *clustered_wilson(mean, deals, spread, games))

    share, lo, hi = interval(1)
    rate, rlo, rhi = interval(2)
    return pd.DataFrame({"bot": names, "games": games, "deals": deals, "win_share_per_seat": share,
                         "ci_low": lo, "ci_high": hi, "win_rate_per_seat": rate, "rate_low": rlo,
                         "rate_high": rhi, "fair": 1.0 / n})


# ---- rates of events (Moon contracts, truncation, ...) -----------------------------------
def rate_table(label: str, names, successes, trials, trial_word: str = "trials",
               success_word: str = "successes", rate_word: str = "rate") -> pd.DataFrame:
    """One row per name, zero-count ones kept: ``trial_word`` and ``success_word`` counts,
    ``share_of_<trial_word>`` (of all the rows' trials), ``rate_word`` with its Wilson interval
    ``ci_low``/``ci_high``: nan where nothing was tried (0 trials: the event never happened with
    these bots; the row stays, shown as :data:`NEVER`, not dropped)."""
    s = np.asarray(successes, np.int64)
    t = np.asarray(trials, np.int64)
    rate, lo, hi = wilson(s, t)
    total = t.sum()
    return pd.DataFrame({label: list(names), trial_word: t,
                         f"share_of_{trial_word}": t / total if total else np.full(len(t), np.nan),
                         success_word: s, rate_word: rate, "ci_low": lo, "ci_high": hi})
