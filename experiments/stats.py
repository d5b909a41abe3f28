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

import gc
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
    "pairwise_from_orders",
    "poisson_weights",
    "ratings_from_orders",
    "Moments",
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
#: ``regularization=0`` is the plain MLE, which choix cannot fit (no stationary
#: distribution) once some bot never wins or never loses.
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
def seat_equality_by_deal(shares) -> float:
    """The p-value of equal seats when deals repeat (a tournament plays each deal under
    every seating, so its games are not independent): ``shares[d, k]`` is position ``k``'s
    win share averaged over deal ``d``'s games, and under equal seats every column's mean is
    1/n.  Hotelling's T² on the first n-1 columns (the shares of a decided game add up to 1,
    so the last column is the rest), ``statsmodels.stats.multivariate.test_mvmean``; nan with
    fewer deals than columns or no spread to test against."""
    from statsmodels.stats.multivariate import test_mvmean

    y = np.asarray(shares, dtype=float)
    n = y.shape[1]
    if n < 2 or len(y) <= n:
        return math.nan
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            p = float(test_mvmean(y[:, :n - 1], np.full(n - 1, 1.0 / n)).pvalue)
        except (np.linalg.LinAlgError, ValueError):
            return math.nan
    return p if math.isfinite(p) else math.nan


def seat_equality_test(sole_wins) -> tuple[float, float]:
    """Test that every seat is equally likely to win, on the games one seat won alone.

    ``sole_wins[s]`` is the number of games seat ``s`` won alone.  Under equal seats each
    such game is won by each seat with probability 1/S independently of the others, so
    the counts are exactly multinomial and ``scipy.stats.chisquare`` against equal
    expected counts is the test.  Shared wins are left out of it (reported apart): a
    shared win credited to every sharer would count one game several times, which is not
    the multinomial the chi-square assumes (tests/test_stats.py holds the test's size at
    5% with shared wins present).

    Returns ``(statistic, p_value)``.  With no sole win at all there is nothing to test:
    it warns (``RuntimeWarning``, with the reason) and returns ``(nan, nan)``.
    """
    w = np.asarray(sole_wins, dtype=float)
    if w.ndim != 1 or w.size < 2:
        raise ValueError(f"sole_wins must be a 1-D sequence of at least two seats, got shape {w.shape}")
    if np.any(w < 0) or np.any(w != np.round(w)):
        raise ValueError("sole_wins must be non-negative whole counts")
    if w.sum() == 0:
        warnings.warn("seat_equality_test: no sole wins recorded, nothing to test", RuntimeWarning, stacklevel=2)
        return (math.nan, math.nan)
    if w.sum() / w.size < 5:
        warnings.warn(
            "seat_equality_test: fewer than 5 expected sole wins per seat; the chi-square "
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


def alike_on_every_deal(deals: int) -> float:
    """p of a nonzero difference that each of ``deals`` deals showed alike, so that there is no
    spread to test it against: a two-sided sign test over the deals (``binomial_test(n, n,
    0.5)`` = 2 × 0.5ⁿ; a p of 0 from no spread would claim a finding from two deals).  nan
    with no deal."""
    return binomial_test(deals, deals, 0.5) if deals > 0 else float("nan")


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
        # statsmodels' Holm ends with an explicit gc.collect(), which walks every object of the
        # process: 0.2-0.7 s per call in a report holding its studies and figures.  Frozen
        # objects are skipped by the collector (refcounting still frees them), so it costs
        # nothing; the same numbers come back.
        gc.freeze()
        try:
            reject[ok], adjusted[ok], _, _ = multipletests(p[ok], alpha=alpha, method=method)
        finally:
            gc.unfreeze()
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
    import statsmodels.api as sm  # only the clustered case needs it; slow to import

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


# --------------------------------------------------------------------------- ratings
class _Games(NamedTuple):
    """Game results boiled down to what the fits and the bootstrap need."""

    bots: np.ndarray  # bot names, sorted; bot code = index
    games_played: np.ndarray  # (n_bots,) games each bot played
    n_deals: int
    sig_codes: np.ndarray  # (n_sig, m) bot codes of each distinct finishing order, best first, -1 pad
    sig_ranks: np.ndarray  # (n_sig, m) dense places (0 = best), ties equal, -1 pad
    sig_count: np.ndarray  # (n_sig,) games with that finishing order
    deal_sig: sp.csr_matrix  # (n_sig, n_deals) games of each finishing order on each deal


def _prepare(results: pd.DataFrame) -> _Games:
    missing = {"deal", "game", "bot", "place"} - set(results.columns)
    if missing:
        raise ValueError(f"results lacks column(s) {sorted(missing)}; expected long format deal, game, bot, place")
    if len(results) == 0:
        raise ValueError("results is empty")
    place = pd.to_numeric(results["place"]).to_numpy(dtype=float)
    if np.isnan(place).any():
        raise ValueError("place has missing values")
    bot, bots = pd.factorize(results["bot"], sort=True)
    deal, deal_values = pd.factorize(results["deal"])
    game_in_deal, game_values = pd.factorize(results["game"])
    game, _ = pd.factorize(deal.astype(np.int64) * len(game_values) + game_in_deal)
    n_bots, n_games = len(bots), int(game.max()) + 1

    # pandas' hash table: numpy's unique takes seconds on millions of rows.
    if pd.Series(game.astype(np.int64) * n_bots + bot).duplicated().any():
        raise ValueError("a bot appears more than once in the same (deal, game)")
    order = np.lexsort((bot, place, game))
    g, b, pl = game[order], bot[order], place[order]
    sizes = np.bincount(g, minlength=n_games)
    if sizes.min() < 2:
        raise ValueError("every game needs at least two bots")
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pos = np.arange(len(g)) - starts[g]
    new_place = np.ones(len(g), dtype=np.int64)
    new_place[1:] = (pl[1:] != pl[:-1]) & (g[1:] == g[:-1])
    new_place[starts] = 0
    rank = np.cumsum(new_place)
    rank -= rank[starts][g]

    m = int(sizes.max())
    codes_w = np.full((n_games, m), -1, dtype=np.int64)
    ranks_w = np.full((n_games, m), -1, dtype=np.int64)
    codes_w[g, pos] = b
    ranks_w[g, pos] = rank
    # One integer key per finishing order when it fits, as 1-D unique is much faster
    # than row-wise unique on a million games.
    if (m * math.log(n_bots + 1) + m * math.log(m + 1)) < 62 * math.log(2):
        key = np.zeros(n_games, dtype=np.int64)
        for j in range(m):
            key = key * (n_bots + 1) + (codes_w[:, j] + 1)
        for j in range(m):
            key = key * (m + 1) + (ranks_w[:, j] + 1)
        sig, uniques = pd.factorize(key)
        by_sig = np.argsort(sig, kind="stable")
        first = by_sig[np.searchsorted(sig[by_sig], np.arange(len(uniques)))]
    else:
        _, first, sig = np.unique(np.hstack([codes_w, ranks_w]), axis=0, return_index=True, return_inverse=True)
    sig = sig.ravel()
    deal_of_game = deal[order][starts]
    deal_sig = sp.csr_matrix(
        (np.ones(n_games), (sig, deal_of_game)), shape=(len(first), len(deal_values))
    )
    return _Games(
        bots=np.asarray(bots),
        games_played=np.bincount(bot, minlength=n_bots),
        n_deals=len(deal_values),
        sig_codes=codes_w[first],
        sig_ranks=ranks_w[first],
        sig_count=np.bincount(sig, minlength=len(first)).astype(float),
        deal_sig=deal_sig,
    )


class _Choices(NamedTuple):
    """Plackett-Luce data as weighted choices "winner picked from set S".

    A finishing order a > b > c is the choices a from {a, b, c}, then b from {b, c}.
    Each distinct choice is one *event*; ``sig_event`` maps finishing-order counts
    to event weights, and the pair arrays list (event, winner, loser) for every
    loser in the event's set.
    """

    sig_event: sp.csr_matrix  # (n_events, n_sig)
    members: np.ndarray  # (n_events, n_bots) 0/1 membership of the choice set
    pair_event: np.ndarray
    pair_winner: np.ndarray
    pair_loser: np.ndarray
    pairwise_only: bool  # every choice set has two bots: plain Bradley-Terry


def _choices(games: _Games) -> _Choices:
    n_bots = len(games.bots)
    index: dict[tuple[int, tuple[int, ...]], int] = {}
    rows, cols, vals = [], [], []
    for s in range(len(games.sig_codes)):
        codes = games.sig_codes[s][games.sig_codes[s] >= 0]
        ranks = games.sig_ranks[s][: len(codes)]
        remaining = set(codes.tolist())
        for r in np.unique(ranks):
            tied = codes[ranks == r].tolist()
            k = len(tied)
            # Ties: average the likelihood over all k! ways of breaking the tie, each
            # with weight 1/k!.  Summed, a set A of tied bots goes first and w next with
            # weight |A|! (k-|A|-1)! / k!.  For two bots this is half a win each.
            for a in range(k):
                weight = math.factorial(a) * math.factorial(k - a - 1) / math.factorial(k)
                for first in combinations(tied, a):
                    chooser = remaining.difference(first)
                    if len(chooser) < 2:
                        continue
                    for w in tied:
                        if w in first:
                            continue
                        key = (w, tuple(sorted(chooser)))
                        e = index.setdefault(key, len(index))
                        rows.append(e)
                        cols.append(s)
                        vals.append(weight)
            remaining.difference_update(tied)
    n_events = len(index)
    members = np.zeros((n_events, n_bots))
    pe, pw, pl = [], [], []
    for (w, chooser), e in index.items():
        members[e, list(chooser)] = 1.0
        for loser in chooser:
            if loser != w:
                pe.append(e)
                pw.append(w)
                pl.append(loser)
    sig_event = sp.csr_matrix((vals, (rows, cols)), shape=(n_events, len(games.sig_codes)))
    return _Choices(
        sig_event=sig_event,
        members=members,
        pair_event=np.asarray(pe, dtype=np.int64),
        pair_winner=np.asarray(pw, dtype=np.int64),
        pair_loser=np.asarray(pl, dtype=np.int64),
        pairwise_only=bool((members.sum(axis=1) == 2).all()),
    )


def _fit(ch: _Choices, weights: np.ndarray, n_bots: int, alpha: float, initial, max_iter=500, tol=1e-8):
    """Maximum-likelihood log-strengths (mean 0) for weighted choice events.

    Two-bot sets only: ``choix.ilsr_pairwise_dense`` on the win-count matrix.
    Otherwise I-LSR for Plackett-Luce (Maystre & Grossglauser 2015), each step a
    ``choix.lsr_pairwise_dense`` call: the LSR chain of a choice of w from S adds
    c / sum(pi_S) to the rate loser -> w, which is the pairwise step with an
    effective count c * (pi_w + pi_l) / sum(pi_S).  Same fixed point as
    ``choix.ilsr_rankings`` on the expanded data (checked in the tests), but the work
    per step is one pass over the distinct events rather than over every game.
    """
    flat = ch.pair_winner * n_bots + ch.pair_loser
    if ch.pairwise_only:
        comp = np.bincount(flat, weights=weights[ch.pair_event], minlength=n_bots * n_bots)
        return choix.ilsr_pairwise_dense(
            comp.reshape(n_bots, n_bots), alpha=alpha, initial_params=initial, max_iter=max_iter, tol=tol
        )
    params = np.zeros(n_bots) if initial is None else np.asarray(initial, dtype=float)
    converged = NormOfDifferenceTest(tol, order=1)
    converged(params)
    for _ in range(max_iter):
        pi = exp_transform(params)
        denom = ch.members @ pi
        eff = weights[ch.pair_event] * (pi[ch.pair_winner] + pi[ch.pair_loser]) / denom[ch.pair_event]
        comp = np.bincount(flat, weights=eff, minlength=n_bots * n_bots).reshape(n_bots, n_bots)
        params = choix.lsr_pairwise_dense(comp, alpha=alpha, initial_params=params)
        if converged(params):
            return params
    raise RuntimeError(f"Plackett-Luce fit did not converge in {max_iter} iterations")


def _to_scale(params: np.ndarray, ref: int | None) -> np.ndarray:
    r = ELO_PER_NAT * np.asarray(params, dtype=float)
    centre = r.mean(axis=-1, keepdims=True) if ref is None else r[..., ref : ref + 1]
    return r - centre


def _bootstrap(results, n_boot, seed, regularization, reference):
    if n_boot < 0:
        raise ValueError("n_boot must be >= 0")
    if regularization < 0:
        raise ValueError("regularization must be >= 0")
    games = _prepare(results)
    n_bots = len(games.bots)
    ref = None
    if reference is not None:
        hits = np.flatnonzero(games.bots == reference)
        if hits.size == 0:
            raise ValueError(f"reference bot {reference!r} is not in the results")
        ref = int(hits[0])
    ch = _choices(games)
    theta = _fit(ch, ch.sig_event @ games.sig_count, n_bots, regularization, None)
    # Resampling deals with replacement = a multinomial count per deal; the counts of
    # each finishing order then follow by one sparse product, so a resample costs
    # O(deals + distinct (deal, order) pairs) and no game is rebuilt.
    rng = np.random.default_rng(seed)
    draws = np.empty((n_boot, n_bots))
    nd = games.n_deals
    for i in range(n_boot):
        per_deal = np.bincount(rng.integers(0, nd, size=nd), minlength=nd).astype(float)
        w = ch.sig_event @ (games.deal_sig @ per_deal)
        draws[i] = _fit(ch, w, n_bots, regularization, theta)
    return games, ch, _to_scale(theta, ref), _to_scale(draws, ref)


def bootstrap_ratings(
    results: pd.DataFrame,
    n_boot: int = 200,
    seed: int = 0,
    regularization: float = DEFAULT_REGULARIZATION,
    reference=None,
) -> tuple[pd.Series, pd.DataFrame]:
    """Point ratings and ``n_boot`` bootstrap replicates, on the scale of :func:`ratings`.

    Returns ``(point, draws)``: ``point`` is a Series indexed by bot (sorted names),
    ``draws`` a frame with one row per resample and one column per bot.  Use the
    draws for intervals of any function of the ratings (differences, ranks, ...).
    Same model, scale, resampling and seed as :func:`ratings`.
    """
    games, _, point, draws = _bootstrap(results, n_boot, seed, regularization, reference)
    bots = pd.Index(games.bots, name="bot")
    return pd.Series(point, index=bots, name="rating"), pd.DataFrame(draws, columns=bots)


def ratings(
    results: pd.DataFrame,
    alpha: float = 0.05,
    n_boot: int = 200,
    seed: int = 0,
    regularization: float = DEFAULT_REGULARIZATION,
    reference=None,
) -> pd.DataFrame:
    """Bot ratings on an Elo scale with bootstrap intervals over deals.

    ``results`` is the long format of the module docstring (deal, game, bot, place).

    Model: Plackett-Luce on the finishing order of each game -- the winner is picked
    from all players with probability proportional to strength, the runner-up from
    the rest, and so on -- fitted by maximum likelihood with choix (I-LSR).  When
    every game has two bots this is exactly Bradley-Terry, fitted with
    ``choix.ilsr_pairwise_dense`` on the aggregated win matrix.  Games of different
    sizes may be mixed.

    Ties: the likelihood of a game with tied bots is averaged over all orders of the
    tied group (weight 1/k! each); a two-bot tie is half a win for each side.

    Scale: ``rating = 400/ln(10) * log-strength``, shifted so the bots' mean rating is
    0 (or, with ``reference=<bot>``, so that bot is 0 and every interval is an
    interval of the difference to it).  Between two bots a gap of d points means an
    expected head-to-head score 1/(1 + 10**(-d/400)): 200 points ~ 76 %.

    Regularisation: choix's ``alpha = regularization`` (see
    ``DEFAULT_REGULARIZATION``), so a bot that never wins or never loses gets a large
    but finite rating.

    Intervals: ``n_boot`` bootstrap resamples of whole deals (every seating of a deal
    shares its luck), percentile interval at level ``1 - alpha``; deterministic for a
    given ``seed`` (numpy ``default_rng``).  Each resample is refitted starting from
    the full-data estimate.  ``n_boot=0`` gives nan intervals.

    Returns a frame with columns ``bot, rating, ci_low, ci_high, games`` (games = games
    the bot played), best first.  ``attrs`` records model, deals, n_boot, seed.
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    games, ch, point, draws = _bootstrap(results, n_boot, seed, regularization, reference)
    return _ratings_frame(games.bots, games.games_played, games.n_deals, ch, point, draws, alpha, n_boot, seed,
                          regularization, reference)


def _ratings_frame(bots, games_played, n_deals, ch, point, draws, alpha, n_boot, seed, regularization, reference,
                   bootstrap="multinomial"):
    if n_boot > 0:
        lo, hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
    else:
        lo = hi = np.full(point.shape, np.nan)
    out = pd.DataFrame(
        {"bot": bots, "rating": point, "ci_low": lo, "ci_high": hi, "games": games_played}
    )
    out = out.sort_values(["rating", "bot"], ascending=[False, True], ignore_index=True)
    out.attrs.update(
        model="bradley-terry" if ch.pairwise_only else "plackett-luce",
        deals=n_deals,
        n_boot=n_boot,
        seed=seed,
        regularization=regularization,
        reference=reference,
        bootstrap=bootstrap,
    )
    return out


# ---- the same from tallies kept chunk by chunk (studies: memory flat in the game count) ----
# Poisson(1) cumulative probabilities P(K <= k), k = 0..15 (P(K > 15) < 1e-13)
_POISSON1_CDF = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(16)])
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix64(x: np.ndarray) -> np.ndarray:
    x = x ^ (x >> np.uint64(30))
    x = x * _MIX1
    x = x ^ (x >> np.uint64(27))
    x = x * _MIX2
    return x ^ (x >> np.uint64(31))


def poisson_weights(seed: int, n_boot: int, deals) -> np.ndarray:
    """``(n_boot, len(deals))`` Poisson(1) counts: how often each deal enters each bootstrap
    resample of the *Poisson bootstrap* (each deal drawn independently Poisson(1) times
    instead of a multinomial draw of exactly n deals; Hanley & MacGibbon 2006, the form
    used for data seen once, in pieces).  Each count depends only on (seed, resample,
    deal), so the games of a deal may arrive in any chunk, in any order."""
    d = np.asarray(deals, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        rows = _mix64(np.uint64(seed) * _GOLDEN + np.arange(n_boot, dtype=np.uint64))[:, None]
        out = np.zeros((n_boot, len(d)), np.uint8)
        step = 4096  # deals at a time: the 64-bit temporaries stay a few MB
        for lo in range(0, len(d), step):
            x = _mix64(rows + d[None, lo:lo + step] * _GOLDEN)
            u = (x >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
            k = out[:, lo:lo + step]
            for c in _POISSON1_CDF[:-1]:
                k += u >= c
    return out


def ratings_from_orders(bots, codes, ranks, counts, boot_counts, n_deals: int, games_played, alpha: float = 0.05,
                        seed: int = 0, regularization: float = DEFAULT_REGULARIZATION,
                        reference=None) -> pd.DataFrame:
    """:func:`ratings` from tallies kept chunk by chunk: the distinct finishing orders
    (``codes``/``ranks`` as in the long format's preparation: bot codes best first, dense
    places, -1 pad), ``counts`` games ending in each, and ``boot_counts`` ``(n_boot,
    orders)`` their weighted counts under :func:`poisson_weights` of each game's deal.
    Same model, fit and scale as :func:`ratings`; the intervals come from the Poisson
    bootstrap over deals (``attrs["bootstrap"]``)."""
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    bots = np.asarray(bots)
    n_bots = len(bots)
    ref = None
    if reference is not None:
        hits = np.flatnonzero(bots == reference)
        if hits.size == 0:
            raise ValueError(f"reference bot {reference!r} is not in the results")
        ref = int(hits[0])
    games = _Games(bots=bots, games_played=np.asarray(games_played), n_deals=n_deals, sig_codes=np.asarray(codes),
                   sig_ranks=np.asarray(ranks), sig_count=np.asarray(counts, dtype=float), deal_sig=None)
    ch = _choices(games)
    theta = _fit(ch, ch.sig_event @ games.sig_count, n_bots, regularization, None)
    boot_counts = np.asarray(boot_counts, dtype=float)
    n_boot = boot_counts.shape[0]
    draws = np.empty((n_boot, n_bots))
    for i in range(n_boot):
        draws[i] = _fit(ch, ch.sig_event @ boot_counts[i], n_bots, regularization, theta)
    return _ratings_frame(bots, games.games_played, n_deals, ch, _to_scale(theta, ref), _to_scale(draws, ref), alpha,
                          n_boot, seed, regularization, reference, bootstrap="poisson")


class Moments:
    """Count, mean and sum of squared deviations of a stream of values, merged piece by
    piece (Chan et al.'s pairwise update: stable for millions of values)."""

    def __init__(self):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, x) -> None:
        x = np.asarray(x, dtype=float)
        k = x.size
        if k == 0:
            return
        mean = float(x.mean())
        m2 = float(((x - mean) ** 2).sum())
        n = self.n + k
        delta = mean - self.mean
        self.mean += delta * k / n
        self.m2 += m2 + delta * delta * self.n * k / n
        self.n = n

    def var(self) -> float:
        """Sample variance (ddof = 1); nan below two values."""
        return self.m2 / (self.n - 1) if self.n > 1 else float("nan")

    def sem(self) -> float:
        """Standard error of the mean (sample sd, ddof = 1, as ``scipy.stats.sem``)."""
        return math.sqrt(self.var() / self.n) if self.n > 1 else float("nan")


def pairwise_table(results: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Head-to-head counts for every pair of bots that met in a game.

    ``results`` is the long format of the module docstring.  For each unordered pair
    (``bot_a`` < ``bot_b`` in sort order) and every game both played: ``wins_a`` =
    games A finished strictly ahead of B, ``wins_b`` the reverse, ``shared`` = games
    they tied; ``games = wins_a + wins_b + shared``.

    ``win_rate_a = (wins_a + shared/2) / games`` -- A's expected score against B, the
    same half-a-win convention for ties as :func:`ratings`.  ``ci_low``/``ci_high``
    are the Wilson interval (level ``1 - alpha``) of that rate over ``games``; ties
    make the score less variable than a win/loss, so with ties the interval errs
    wide.  The interval treats games as independent: seatings of one deal are not,
    so prefer :func:`ratings` (bootstrap over deals) for claims about strength.
    """
    games = _prepare(results)
    return pairwise_from_orders(games.bots, games.sig_codes, games.sig_ranks, games.sig_count, alpha)


def pair_outcomes(n_bots: int, codes, ranks) -> np.ndarray:
    """Per distinct finishing order, what one game of it gives each pair of bots, keyed
    ``lo * n_bots + hi`` (``lo`` < ``hi`` the bots' codes): ``[0]`` lo finished ahead, ``[1]``
    hi ahead, ``[2]`` tied; shape (3, orders, n_bots**2).  Counts of the orders times it are
    the pairs' tallies (every bootstrap resample's at once, as a matrix product)."""
    c, r = np.asarray(codes), np.asarray(ranks)
    out = np.zeros((3, len(c), n_bots * n_bots))
    rows = np.arange(len(c))
    for i, j in combinations(range(c.shape[1]), 2):
        ok = c[:, j] >= 0
        x, y = c[ok, i], c[ok, j]  # x finished ahead of or level with y
        tie = r[ok, i] == r[ok, j]
        lo, hi = np.minimum(x, y), np.maximum(x, y)
        key = lo * n_bots + hi
        np.add.at(out[0], (rows[ok], key), ~tie & (x == lo))
        np.add.at(out[1], (rows[ok], key), ~tie & (x == hi))
        np.add.at(out[2], (rows[ok], key), tie)
    return out


def pairwise_from_orders(bots, codes, ranks, counts, alpha: float = 0.05) -> pd.DataFrame:
    """:func:`pairwise_table` from the distinct finishing orders and how many games ended
    in each (``OrderTally``): the same table, without the games themselves."""
    bots = np.asarray(bots)
    n_bots = len(bots)
    tally = np.asarray(counts, dtype=float) @ pair_outcomes(n_bots, codes, ranks)  # ahead, behind, tied
    # whole games as integers; a game whose bot held several seats may split into fractions
    # (tournament.Collector's game_counts: its sub-games 1/k each), whose float sums are
    # rounded where they would print as 1200.0000000000007
    whole = np.allclose(tally, np.rint(tally))
    wins_a, wins_b, shared = ((np.rint(t).astype(np.int64) if whole else np.round(t, 9)) for t in tally)
    total = wins_a + wins_b + shared
    if not whole and np.allclose(total, np.rint(total)):
        total = np.rint(total).astype(np.int64)
    met = np.flatnonzero(total > 0)
    a, b = np.divmod(met, n_bots)
    score = wins_a[met] + shared[met] / 2
    lo, hi = wilson_intervals(score, total[met], alpha=alpha)
    return pd.DataFrame(
        {
            "bot_a": bots[a],
            "bot_b": bots[b],
            "games": total[met],
            "wins_a": wins_a[met],
            "wins_b": wins_b[met],
            "shared": shared[met],
            "win_rate_a": score / total[met],
            "ci_low": lo,
            "ci_high": hi,
        }
    )
