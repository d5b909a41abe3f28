"""Statistics for simulation results, computed by well-kept libraries.

Every number a study reports comes from here, and every formula is delegated:
proportions and sample sizes to statsmodels, tests to scipy.stats and statsmodels,
Bradley-Terry / Plackett-Luce ratings to choix.  What this module adds is the
bookkeeping around them: input checking, aggregation of millions of games into
small count arrays, and the bootstrap over deals.

Game results for :func:`ratings`, :func:`bootstrap_ratings` and
:func:`pairwise_table` come in one *long* format, one row per bot per game:

=======  ==================================================================
deal     any hashable; the deal (shuffle / seed) the game was played on.  All
         seatings of one deal share its luck, so the bootstrap resamples
         whole deals.
game     any hashable; tells apart the games of one deal (e.g. the seating).
         A game is identified by the pair (deal, game).
bot      the bot's name (anything sortable; str in practice).
place    finishing place, lower is better (0 = first).  Bots with equal
         places in a game are tied.  Only the order matters, so a caller
         may pass ``-score`` or ``1 - win`` directly.
=======  ==================================================================

A bot may appear at most once per game; every game needs at least two bots.
"""
from __future__ import annotations

import math
import warnings
from itertools import combinations
from typing import NamedTuple

import choix
import numpy as np
import pandas as pd
import scipy.sparse as sp
from choix.convergence import NormOfDifferenceTest
from choix.utils import exp_transform
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint, samplesize_confint_proportion

__all__ = [
    "ELO_PER_NAT",
    "DEFAULT_REGULARIZATION",
    "wilson_interval",
    "wilson_intervals",
    "seat_equality_test",
    "binomial_test",
    "adjust_pvalues",
    "games_for_half_width",
    "paired_difference",
    "bootstrap_ratings",
    "ratings",
    "pairwise_table",
]

#: Elo points per unit of log-strength: a gap of d points means an expected score of
#: 1 / (1 + 10**(-d/400)) against each other (200 points ~ 76 %).
ELO_PER_NAT = 400.0 / math.log(10.0)

#: choix's ``alpha``.  Every transition rate of the (I-)LSR Markov chain starts at this
#: value, which at the fixed point is the same as adding alpha*(pi_i + pi_j) virtual
#: wins of i over j and of j over i for every pair, strengths pi normalised to mean 1:
#: about 0.2 virtual wins each way between two equal bots.  Enough to keep a bot that
#: never wins (or never loses) finite, negligible next to the thousands of games of a
#: study (it moves a 90 % win rate over 1,000 games by well under 0.1 points).
DEFAULT_REGULARIZATION = 0.1


# --------------------------------------------------------------------------- proportions
def wilson_interval(successes: float, trials: float, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion, level ``1 - alpha``.

    Computed by ``statsmodels.stats.proportion.proportion_confint(method="wilson")``.
    Unlike the normal (Wald) interval it stays inside [0, 1] and keeps its coverage
    near 0 and 1.  Returns ``(nan, nan)`` for zero trials.
    """
    if trials <= 0:
        return (math.nan, math.nan)
    lo, hi = proportion_confint(successes, trials, alpha=alpha, method="wilson")
    return (float(lo), float(hi))


def wilson_intervals(successes, trials, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`wilson_interval`: arrays (broadcast together) in, ``(lo, hi)``
    float arrays out, nan where ``trials`` is 0."""
    s, n = np.broadcast_arrays(np.asarray(successes, dtype=float), np.asarray(trials, dtype=float))
    lo = np.full(s.shape, np.nan)
    hi = np.full(s.shape, np.nan)
    ok = n > 0
    if ok.any():
        lo[ok], hi[ok] = proportion_confint(s[ok], n[ok], alpha=alpha, method="wilson")
    return lo, hi


def games_for_half_width(half_width: float, p: float = 0.5, alpha: float = 0.05) -> int:
    """Games needed so that the level ``1 - alpha`` normal-approximation interval of a
    proportion near ``p`` has half-width at most ``half_width``:
    ``ceil(z**2 * p * (1 - p) / half_width**2)``, computed by
    ``statsmodels.stats.proportion.samplesize_confint_proportion``.

    ``p = 0.5`` (the default) is the worst case, right for any true rate; pass a pilot
    estimate to plan a smaller run.  Fix the number before simulating, not by
    watching the interval shrink.
    """
    if not 0.0 < half_width < 0.5:
        raise ValueError(f"half_width must be strictly between 0 and 0.5, got {half_width!r}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"pilot proportion p must be strictly between 0 and 1, got {p!r}")
    n = samplesize_confint_proportion(p, half_width, alpha=alpha, method="normal")
    # Round off float noise first so an exact integer answer is not bumped up by one.
    return int(math.ceil(round(float(n), 9)))


# --------------------------------------------------------------------------- tests
def seat_equality_test(wins, games: int) -> tuple[float, float]:
    """Chi-square goodness-of-fit test that every seat is equally likely to win.

    ``wins[s]`` is the number of decided games seat ``s`` won, a shared win counting
    once for each sharer; ``games`` is the number of decided games.  The test is
    ``scipy.stats.chisquare(wins)`` against equal expected counts ``sum(wins) / S``,
    i.e. on the win credits *as given*.  Without shared wins that is exactly the
    multinomial test.  A shared win adds to several seats at once, which leaves the
    differences between seats unchanged, so shared wins make the test somewhat
    conservative; it stays valid but loses a little power.

    Returns ``(statistic, p_value)``.  With no wins at all there is nothing to test:
    it warns (``RuntimeWarning``, with the reason) and returns ``(nan, nan)``.
    """
    w = np.asarray(wins, dtype=float)
    if w.ndim != 1 or w.size < 2:
        raise ValueError(f"wins must be a 1-D sequence of at least two seats, got shape {w.shape}")
    if np.any(w < 0) or np.any(w != np.round(w)):
        raise ValueError("wins must be non-negative whole counts")
    if np.any(w > games):
        raise ValueError(f"a seat has more wins ({int(w.max())}) than there are decided games ({games})")
    if w.sum() < games:
        raise ValueError(
            f"the seats' wins add up to {int(w.sum())}, fewer than the {games} decided games; "
            "pass the number of decided games, not all games"
        )
    if w.sum() == 0:
        warnings.warn("seat_equality_test: no wins recorded, nothing to test", RuntimeWarning, stacklevel=2)
        return (math.nan, math.nan)
    if w.sum() / w.size < 5:
        warnings.warn(
            "seat_equality_test: fewer than 5 expected wins per seat; the chi-square "
            "approximation is rough",
            RuntimeWarning,
            stacklevel=2,
        )
    res = stats.chisquare(w)
    return (float(res.statistic), float(res.pvalue))


def binomial_test(successes: int, trials: int, p: float, alternative: str = "two-sided") -> float:
    """Exact binomial test of H0: success probability is ``p``; returns the p-value of
    ``scipy.stats.binomtest(successes, trials, p, alternative=alternative)``."""
    return float(stats.binomtest(int(successes), int(trials), p, alternative=alternative).pvalue)


def adjust_pvalues(pvalues, method: str = "holm", alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Multiple-comparison adjustment by ``statsmodels.stats.multitest.multipletests``.

    ``method`` is ``"holm"`` (family-wise error rate, any dependence) or ``"fdr_bh"``
    (Benjamini-Hochberg false discovery rate).  Returns ``(reject, adjusted)`` arrays
    in the input's order.  NaN p-values (tests that could not be run) are left out of
    the family and come back as NaN, with ``reject`` False.
    """
    if method not in ("holm", "fdr_bh"):
        raise ValueError(f"method must be 'holm' or 'fdr_bh', got {method!r}")
    p = np.asarray(pvalues, dtype=float)
    reject = np.zeros(p.shape, dtype=bool)
    adjusted = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        reject[ok], adjusted[ok], _, _ = multipletests(p[ok], alpha=alpha, method=method)
    return reject, adjusted


def paired_difference(a, b, clusters=None) -> dict:
    """Mean difference of two arms played on the same deals, with paired and unpaired
    standard errors, to show what common random numbers bought.

    ``a[i]`` and ``b[i]`` are the outcomes (win 0/1, score, ...) of arm A and arm B on
    deal ``i``.  ``mean_diff = mean(a - b)``; ``se_paired = sd(a - b) / sqrt(n)`` and
    ``se_unpaired = sqrt(var(a)/n + var(b)/n)`` (sample sd/var, ddof = 1), via
    ``scipy.stats.sem``.  The unpaired figure is what the same number of games would
    give with independent deals.

    ``clusters`` (optional, same length): when each arm has several rows per deal
    (e.g. one per seating), give the deal of each row; the standard errors are then
    cluster-robust (statsmodels OLS on a constant with ``cov_type="cluster"``), so the
    rows of one deal are not counted as independent.  The dict gains ``n_clusters``.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be 1-D and of equal length, got {a.shape} and {b.shape}")
    n = a.size
    if n < 2:
        raise ValueError("need at least two paired outcomes")
    d = a - b
    out = {"mean_diff": float(d.mean()), "n": int(n)}
    if clusters is None:
        out["se_paired"] = float(stats.sem(d))
        out["se_unpaired"] = float(math.sqrt(stats.sem(a) ** 2 + stats.sem(b) ** 2))
        return out
    import statsmodels.api as sm

    groups = pd.factorize(np.asarray(clusters))[0]
    if groups.size != n:
        raise ValueError("clusters must have one entry per outcome")

    def cluster_se(y):
        fit = sm.OLS(y, np.ones((n, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups})
        return float(fit.bse[0])

    out["se_paired"] = cluster_se(d)
    out["se_unpaired"] = float(math.sqrt(cluster_se(a) ** 2 + cluster_se(b) ** 2))
    out["n_clusters"] = int(groups.max() + 1)
    return out
