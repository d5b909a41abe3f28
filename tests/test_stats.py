"""reports.stats: library-backed statistics checked against published values and
against simulations whose truth is known."""
import math
import warnings

import numpy as np
import pytest

from reports import stats as S


# ------------------------------------------------------------------ Wilson intervals
# Newcombe (1998), "Two-sided confidence intervals for the single proportion",
# Stat. Med. 17:857-872, Table I, method 3 (score interval without continuity correction).
NEWCOMBE = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize("k,n,lo,hi", NEWCOMBE)
def test_wilson_matches_newcombe(k, n, lo, hi):
    got = S.wilson_interval(k, n)
    assert got == pytest.approx((lo, hi), abs=1e-3)


def test_wilson_all_or_nothing():
    # Closed form at the edges: upper bound z^2 / (n + z^2) for 0/n.
    z2 = 1.959963984540054**2
    assert S.wilson_interval(0, 10) == pytest.approx((0.0, z2 / (10 + z2)), abs=1e-9)
    assert S.wilson_interval(10, 10) == pytest.approx((10 / (10 + z2), 1.0), abs=1e-9)
    assert S.wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-3)


def test_wilson_zero_trials_and_alpha():
    lo, hi = S.wilson_interval(0, 0)
    assert math.isnan(lo) and math.isnan(hi)
    w90 = S.wilson_interval(81, 263, alpha=0.10)
    w95 = S.wilson_interval(81, 263)
    assert w95[0] < w90[0] < w90[1] < w95[1]


def test_wilson_vectorised_equals_scalar():
    k = np.array([0, 1, 15, 81, 10, 3, 0])
    n = np.array([20, 29, 148, 263, 10, 7, 0])
    lo, hi = S.wilson_intervals(k, n)
    for i in range(k.size):
        slo, shi = S.wilson_interval(k[i], n[i])
        if n[i] == 0:
            assert math.isnan(lo[i]) and math.isnan(hi[i])
        else:
            assert (lo[i], hi[i]) == pytest.approx((slo, shi), abs=1e-12)


# ------------------------------------------------------------------ tests of hypotheses
def test_seat_equality_uniform_not_rejected():
    rng = np.random.default_rng(20240611)
    winners = rng.integers(0, 4, size=10_000)
    wins = np.bincount(winners, minlength=4)
    stat, p = S.seat_equality_test(wins, 10_000)
    assert stat >= 0 and p > 0.01


def test_seat_equality_skew_rejected():
    rng = np.random.default_rng(7)
    winners = rng.choice(4, size=20_000, p=[0.30, 0.70 / 3, 0.70 / 3, 0.70 / 3])
    stat, p = S.seat_equality_test(np.bincount(winners, minlength=4), 20_000)
    assert p < 1e-6


def test_seat_equality_no_wins_is_nan_with_reason():
    with pytest.warns(RuntimeWarning, match="no wins"):
        stat, p = S.seat_equality_test([0, 0, 0], 0)
    assert math.isnan(stat) and math.isnan(p)


def test_seat_equality_rejects_inconsistent_counts():
    with pytest.raises(ValueError, match="decided games"):
        S.seat_equality_test([10, 10], 50)  # 50 would be all games, not decided ones
    with pytest.raises(ValueError):
        S.seat_equality_test([60, 10], 50)


def test_binomial_test_known_values():
    # 10 heads of 10 fair flips: two-sided p = 2 / 2**10.
    assert S.binomial_test(10, 10, 0.5) == pytest.approx(2 / 1024)
    assert S.binomial_test(5, 10, 0.5) == pytest.approx(1.0)
    assert S.binomial_test(9, 10, 0.5, alternative="greater") == pytest.approx(11 / 1024)


def test_holm_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # Sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> cummax 0.06.
    reject, adj = S.adjust_pvalues(p)
    assert adj == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert reject.tolist() == [True, False, False, True]


def test_adjust_passes_nan_through():
    reject, adj = S.adjust_pvalues([0.01, np.nan, 0.04, 0.03, 0.005])
    assert math.isnan(adj[1]) and not reject[1]
    assert adj[[0, 2, 3, 4]] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # BH by hand on 0.01, 0.04: sorted ranks 1, 2 -> 0.01*2=0.02, 0.04*2/2=0.04.
    _, bh = S.adjust_pvalues([0.04, np.nan, 0.01], method="fdr_bh")
    assert bh[[0, 2]] == pytest.approx([0.04, 0.02]) and math.isnan(bh[1])
    with pytest.raises(ValueError):
        S.adjust_pvalues([0.1], method="bonferroni")


# ------------------------------------------------------------------ sample sizes
def test_games_for_half_width_textbook():
    assert S.games_for_half_width(0.01) == 9604  # ceil(1.96^2 * 0.25 / 0.01^2)
    assert S.games_for_half_width(0.05) == 385
    assert S.games_for_half_width(0.01, p=0.1) == 3458  # ceil(1.96^2 * 0.09 / 1e-4)
    assert S.games_for_half_width(0.01, p=0.1) < S.games_for_half_width(0.01)


@pytest.mark.parametrize("bad", [0.0, -0.1, 0.5, 0.7, float("nan")])
def test_games_for_half_width_bad_widths(bad):
    with pytest.raises(ValueError, match="half_width"):
        S.games_for_half_width(bad)


def test_half_width_is_met():
    n = S.games_for_half_width(0.02)
    lo, hi = S.wilson_interval(n / 2, n)
    assert (hi - lo) / 2 <= 0.02 < (hi - lo) / 2 * 1.01


# ------------------------------------------------------------------ paired designs
def test_pairing_beats_independent_deals():
    rng = np.random.default_rng(3)
    n = 4000
    luck = rng.normal(0, 2.0, n)  # shared by both arms on a deal
    a = luck + 0.10 + rng.normal(0, 1.0, n)
    b = luck + rng.normal(0, 1.0, n)
    r = S.paired_difference(a, b)
    assert r["n"] == n
    assert r["se_paired"] < 0.6 * r["se_unpaired"]
    assert r["se_paired"] == pytest.approx(np.std(a - b, ddof=1) / math.sqrt(n))
    assert r["se_unpaired"] == pytest.approx(math.sqrt(np.var(a, ddof=1) / n + np.var(b, ddof=1) / n))
    assert abs(r["mean_diff"] - 0.10) < 4 * r["se_paired"]


def test_paired_with_clusters_counts_deals_not_rows():
    rng = np.random.default_rng(4)
    deals = 500
    luck = np.repeat(rng.normal(0, 1.0, deals), 4)  # 4 seatings per deal share luck
    d = luck + rng.normal(0, 0.1, deals * 4)
    r = S.paired_difference(d, np.zeros_like(d), clusters=np.repeat(np.arange(deals), 4))
    naive = S.paired_difference(d, np.zeros_like(d))
    assert r["n_clusters"] == deals
    # Rows of a deal are nearly copies: the honest SE is about twice the naive one.
    assert 1.7 < r["se_paired"] / naive["se_paired"] < 2.3
