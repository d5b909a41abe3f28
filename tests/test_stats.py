"""experiments.stats: library-backed statistics checked against published values and
against simulations whose truth is known."""
import math
import warnings

import numpy as np
import pytest

from experiments import stats as S


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
    stat, p = S.seat_equality_test(np.bincount(winners, minlength=4))
    assert stat >= 0 and p > 0.01


def test_seat_equality_skew_rejected():
    rng = np.random.default_rng(7)
    winners = rng.choice(4, size=20_000, p=[0.30, 0.70 / 3, 0.70 / 3, 0.70 / 3])
    stat, p = S.seat_equality_test(np.bincount(winners, minlength=4))
    assert p < 1e-6


def _equal_seat_studies(rng, studies, games, seats, shared_rate):
    """Win matrices of simulated studies with equal seats: a game is shared by two random
    seats with probability ``shared_rate``, else won by one random seat."""
    for _ in range(studies):
        w = np.zeros((games, seats), np.int64)
        first = rng.integers(0, seats, games)
        w[np.arange(games), first] = 1
        shared = rng.random(games) < shared_rate
        other = (first + rng.integers(1, seats, games)) % seats
        w[np.flatnonzero(shared), other[shared]] = 1
        yield w


def test_seat_equality_has_its_size_under_equal_seats_with_shared_wins():
    """At 5% the test rejects equal seats in 3-7% of simulated studies, shared wins
    present (sole wins only: the test's multinomial holds exactly)."""
    rng = np.random.default_rng(11)
    rejected = []
    for w in _equal_seat_studies(rng, 2000, 400, 3, 0.3):
        sole = w[w.sum(axis=1) == 1].sum(axis=0)
        rejected.append(S.seat_equality_test(sole)[1] < 0.05)
    assert 0.03 <= np.mean(rejected) <= 0.07


def _replayed_deals(rng, deals, n, replays, p_first):
    """Win rows of ``deals`` games with position 0 winning with ``p_first`` (the others
    alike), each deal replayed ``replays`` times with the same outcome (a tournament of bots
    that play alike), and the deal of each row."""
    first = rng.random(deals) < p_first
    other = rng.integers(1, n, deals)
    winner = np.where(first, 0, other)
    wins = np.zeros((deals, n), np.int64)
    wins[np.arange(deals), winner] = 1
    return np.repeat(wins, replays, axis=0), np.repeat(np.arange(deals), replays)


def test_seat_table_by_deal_counts_a_replayed_deal_once():
    """A deal replayed six times is one observation: the same figures and interval as its
    200 distinct games give, not one about sqrt(6) times narrower."""
    from experiments import tables

    rng = np.random.default_rng(3)
    wins, deals = _replayed_deals(rng, 200, 3, 6, 1 / 3)
    t = tables.seat_table_by_deal(wins, deals, 3)
    once = tables.seat_table(tables.win_pattern_counts(wins[::6]), 3)
    assert (t["deals"] == 200).all() and (t["games"] == 1200).all()
    assert np.allclose(t["win_share"], once["win_share"])
    assert np.allclose(t[["share_low", "share_high", "ci_low", "ci_high"]], once[["share_low", "share_high", "ci_low",
                                                                                "ci_high"]])
    rows = tables.seat_table(tables.win_pattern_counts(wins), 3)
    assert ((rows["share_high"] - rows["share_low"]) < 0.5 * (t["share_high"] - t["share_low"])).all()


def test_seat_equality_by_deal_has_its_size_with_replayed_deals():
    """Under equal seats, with every deal replayed six times, Hotelling's T² over deals
    rejects at about its 5%; the chi-square on the rows, which counts each deal six times,
    rejects far more often."""
    from experiments import tables

    rng = np.random.default_rng(11)
    by_deal = by_rows = 0
    trials = 400
    for _ in range(trials):
        wins, deals = _replayed_deals(rng, 150, 3, 6, 1 / 3)
        by_deal += tables.seat_table_by_deal(wins, deals, 3)["p_equal_seats"].iloc[0] < 0.05
        by_rows += tables.equal_seats_p(tables.win_pattern_counts(wins), 3) < 0.05
    assert 0.02 <= by_deal / trials <= 0.09
    assert by_rows / trials > 0.3


def test_seat_equality_by_deal_finds_a_real_first_seat_edge():
    from experiments import tables

    wins, deals = _replayed_deals(np.random.default_rng(5), 300, 3, 6, 0.45)
    t = tables.seat_table_by_deal(wins, deals, 3)
    assert t["p_equal_seats"].iloc[0] < 1e-3 and t["adv_low"].iloc[0] > 0


def test_seat_equality_no_wins_is_nan_with_reason():
    with pytest.warns(RuntimeWarning, match="no sole wins"):
        stat, p = S.seat_equality_test([0, 0, 0])
    assert math.isnan(stat) and math.isnan(p)


def test_seat_equality_rejects_malformed_counts():
    with pytest.raises(ValueError, match="whole counts"):
        S.seat_equality_test([10.5, 10])
    with pytest.raises(ValueError, match="at least two seats"):
        S.seat_equality_test([10])


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


# ------------------------------------------------------------------ ratings
import choix  # noqa: E402
import pandas as pd  # noqa: E402


def simulate_pl(log_strength, n_deals, per_game, games_per_deal, rng):
    """Plackett-Luce games by the Gumbel trick (order of theta + Gumbel noise), in the
    long format of experiments.stats.  Each game seats a random subset of the bots."""
    k = len(log_strength)
    n_games = n_deals * games_per_deal
    players = np.argsort(rng.random((n_games, k)), axis=1)[:, :per_game]
    util = np.asarray(log_strength)[players] + rng.gumbel(size=players.shape)
    place = np.argsort(np.argsort(-util, axis=1), axis=1)
    deal = np.repeat(np.arange(n_deals), games_per_deal)
    game = np.tile(np.arange(games_per_deal), n_deals)
    names = np.array([f"bot{i}" for i in range(k)])
    return pd.DataFrame(
        {
            "deal": np.repeat(deal, per_game),
            "game": np.repeat(game, per_game),
            "bot": names[players.ravel()],
            "place": place.ravel(),
        }
    )


def orders_of(df):
    """Finishing orders as choix ranking data (bot codes best first; no ties)."""
    df = df.sort_values(["deal", "game", "place"])
    codes = df["bot"].str.slice(3).astype(int).to_numpy()
    return [list(g) for g in np.split(codes, np.flatnonzero(np.diff(df["game"].to_numpy() + 1000 * df["deal"].to_numpy())) + 1)]


def test_pl_fit_is_choix_ilsr_rankings():
    rng = np.random.default_rng(11)
    df = simulate_pl([0.0, 0.3, 0.6, 1.2], 300, 3, 1, rng)
    point, _ = S.bootstrap_ratings(df, n_boot=0, regularization=0.1)
    theta = choix.ilsr_rankings(4, orders_of(df), alpha=0.1)
    assert point.to_numpy() == pytest.approx(S.ELO_PER_NAT * (theta - theta.mean()), abs=1e-4)


def test_bt_ties_are_half_wins():
    # a beats b 6 times, b beats a twice, 4 ties; c beats b 3, b beats c 5.
    rows, gid = [], 0
    for first, second, tie, n in [("a", "b", False, 6), ("b", "a", False, 2), ("a", "b", True, 4),
                                  ("c", "b", False, 3), ("b", "c", False, 5)]:
        for _ in range(n):
            rows += [(gid, 0, first, 0), (gid, 0, second, 0 if tie else 1)]
            gid += 1
    df = pd.DataFrame(rows, columns=["deal", "game", "bot", "place"])
    comp = np.array([[0, 6 + 2, 0], [2 + 2, 0, 5], [0, 3, 0]], dtype=float)
    theta = choix.ilsr_pairwise_dense(comp, alpha=0.1)
    r = S.ratings(df, n_boot=0).set_index("bot")
    assert r.attrs["model"] == "bradley-terry"
    assert r.loc[["a", "b", "c"], "rating"].to_numpy() == pytest.approx(S.ELO_PER_NAT * (theta - theta.mean()), abs=1e-4)
    assert r.loc[["a", "b", "c"], "games"].tolist() == [12, 20, 8]


def test_pl_ties_average_both_orders():
    # Tie-breaking both ways at weight 1/2 == choix on the data with every untied game
    # doubled and every tied game entered once in each order (all weights x2, so the
    # regularisation doubles too).
    rng = np.random.default_rng(12)
    df = simulate_pl([0.0, 0.5, 1.0], 200, 3, 1, rng)
    tied = df["deal"] % 3 == 0
    df.loc[tied & (df["place"] == 2), "place"] = 1  # second and third share second place
    data = []
    for order, deal in zip(orders_of(df), sorted(df["deal"].unique())):
        data += [order, order[:1] + order[:0:-1]] if deal % 3 == 0 else [order, order]
    theta = choix.ilsr_rankings(3, data, alpha=0.2)
    point, _ = S.bootstrap_ratings(df, n_boot=0, regularization=0.1)
    assert point.to_numpy() == pytest.approx(S.ELO_PER_NAT * (theta - theta.mean()), abs=1e-4)


def test_elo_scale_meaning():
    # 2 bots, A wins 76 % of 10,000 games: gap ~ 400*log10(0.76/0.24) = 200.2 points.
    n = 10_000
    wins = 7600
    place_a = np.r_[np.zeros(wins), np.ones(n - wins)]
    df = pd.DataFrame({"deal": np.repeat(np.arange(n), 2), "game": 0,
                       "bot": np.tile(["A", "B"], n), "place": np.c_[place_a, 1 - place_a].ravel()})
    r = S.ratings(df, n_boot=50, reference="B").set_index("bot")
    assert r.loc["A", "rating"] == pytest.approx(400 * math.log10(0.76 / 0.24), abs=0.5)
    assert r.loc["B", ["rating", "ci_low", "ci_high"]].tolist() == [0.0, 0.0, 0.0]
    assert r.loc["A", "ci_low"] < r.loc["A", "rating"] < r.loc["A", "ci_high"]
    assert r.index[0] == "A"  # best first


def test_never_winning_bot_stays_finite():
    rows = []
    for d in range(50):
        rows += [(d, 0, "strong", 0), (d, 0, "weak", 1), (d, 1, "mid", 0), (d, 1, "weak", 1),
                 (d, 2, "strong", d % 2), (d, 2, "mid", 1 - d % 2)]
    df = pd.DataFrame(rows, columns=["deal", "game", "bot", "place"])
    r = S.ratings(df, n_boot=50).set_index("bot")
    assert np.isfinite(r[["rating", "ci_low", "ci_high"]].to_numpy()).all()
    assert r.loc["weak", "rating"] < -300
    assert r.loc["strong", "rating"] == pytest.approx(r.loc["mid", "rating"], abs=1)


def test_ratings_deterministic_for_seed():
    df = simulate_pl([0.0, 0.4, 0.8], 200, 2, 2, np.random.default_rng(5))
    a = S.ratings(df, n_boot=30, seed=1)
    b = S.ratings(df, n_boot=30, seed=1)
    c = S.ratings(df, n_boot=30, seed=2)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    assert a["rating"].tolist() == c["rating"].tolist()


def test_bootstrap_resamples_whole_deals():
    # Every deal's two seatings end the same way (luck decides, not the seat): the
    # deal-level bootstrap must see half as much independent data, i.e. intervals
    # sqrt(2) wider than if each game were its own deal.
    base = simulate_pl([0.0, 0.6], 3000, 2, 1, np.random.default_rng(6))
    copies = pd.concat([base, base.assign(game=1)], ignore_index=True)
    as_games = copies.assign(deal=copies["deal"] * 2 + copies["game"])
    w_deal = S.ratings(copies, n_boot=300, reference="bot0").set_index("bot").loc["bot1"]
    w_game = S.ratings(as_games, n_boot=300, reference="bot0").set_index("bot").loc["bot1"]
    ratio = (w_deal.ci_high - w_deal.ci_low) / (w_game.ci_high - w_game.ci_low)
    assert w_deal.rating == pytest.approx(w_game.rating)
    assert 1.2 < ratio < 1.65


def test_ratings_input_checks():
    ok = pd.DataFrame({"deal": [0, 0], "game": [0, 0], "bot": ["a", "b"], "place": [0, 1]})
    with pytest.raises(ValueError, match="column"):
        S.ratings(ok.drop(columns="place"))
    with pytest.raises(ValueError, match="more than once"):
        S.ratings(ok.assign(bot=["a", "a"]))
    with pytest.raises(ValueError, match="two bots"):
        S.ratings(pd.concat([ok, pd.DataFrame({"deal": [1], "game": [0], "bot": ["a"], "place": [0]})]))
    with pytest.raises(ValueError, match="reference"):
        S.ratings(ok, reference="zed")


def coverage_run(log_strength, per_game, n_deals, games_per_deal, reps, n_boot, seed):
    """Fraction of 95 % bootstrap intervals of (rating - rating of bot0) that contain
    the truth, plus the ratio of bootstrap SE to the spread of estimates over reps."""
    truth = S.ELO_PER_NAT * (np.asarray(log_strength) - log_strength[0])
    rng = np.random.default_rng(seed)
    hits, estimates, boot_sd = [], [], []
    for rep in range(reps):
        df = simulate_pl(log_strength, n_deals, per_game, games_per_deal, rng)
        point, draws = S.bootstrap_ratings(df, n_boot=n_boot, seed=rep, reference="bot0")
        lo, hi = np.quantile(draws.to_numpy(), [0.025, 0.975], axis=0)
        hits.append((lo[1:] <= truth[1:]) & (truth[1:] <= hi[1:]))
        estimates.append(point.to_numpy()[1:])
        boot_sd.append(draws.to_numpy()[:, 1:].std(axis=0, ddof=1))
        if rep == 0:
            assert list(np.argsort(point.to_numpy())) == list(np.argsort(log_strength))
    spread = np.std(estimates, axis=0, ddof=1)
    return np.mean(hits), np.mean(boot_sd, axis=0) / spread


def test_bradley_terry_recovers_strengths_with_calibrated_intervals():
    coverage, sd_ratio = coverage_run([0.0, 0.4, 0.8], per_game=2, n_deals=1500, games_per_deal=2,
                                      reps=80, n_boot=100, seed=101)
    assert 0.85 <= coverage <= 1.0
    # Too-wide intervals would pass the coverage band; the SE must also match the real
    # spread of the estimate across repetitions.
    assert np.all((0.75 < sd_ratio) & (sd_ratio < 1.33)), sd_ratio


def test_plackett_luce_recovers_order_fast():
    theta = [0.0, 0.3, 0.6, 1.2]
    r = S.ratings(simulate_pl(theta, 3000, 3, 1, np.random.default_rng(8)), n_boot=100, reference="bot0")
    r = r.set_index("bot").loc[[f"bot{i}" for i in range(4)]]
    assert r["rating"].is_monotonic_increasing
    truth = S.ELO_PER_NAT * np.asarray(theta)
    assert ((r["ci_low"] <= truth + 1e-9) & (truth - 1e-9 <= r["ci_high"])).all()
    assert r.attrs["model"] == "plackett-luce"


@pytest.mark.slow
def test_plackett_luce_intervals_cover_truth():
    coverage, sd_ratio = coverage_run([0.0, 0.3, 0.6, 1.2], per_game=3, n_deals=2000, games_per_deal=1,
                                      reps=40, n_boot=200, seed=202)
    assert 0.85 <= coverage <= 1.0
    assert np.all((0.75 < sd_ratio) & (sd_ratio < 1.33)), sd_ratio


# ------------------------------------------------------------------ pairwise table
def test_pairwise_table_by_hand():
    rows = [
        (0, 0, "x", 0), (0, 0, "y", 1), (0, 0, "z", 2),  # x > y > z
        (0, 1, "x", 1), (0, 1, "y", 0), (0, 1, "z", 0),  # y = z > x
        (1, 0, "x", 3), (1, 0, "z", 3),                  # x = z
        (1, 1, "y", 5), (1, 1, "x", -2),                 # x > y
    ]
    t = S.pairwise_table(pd.DataFrame(rows, columns=["deal", "game", "bot", "place"]))
    assert t[["bot_a", "bot_b", "games", "wins_a", "wins_b", "shared"]].values.tolist() == [
        ["x", "y", 3, 2, 1, 0],
        ["x", "z", 3, 1, 1, 1],
        ["y", "z", 2, 1, 0, 1],
    ]
    assert t["win_rate_a"].tolist() == pytest.approx([2 / 3, 1 / 2, 3 / 4])
    lo, hi = S.wilson_interval(1.5, 2)
    assert (t.loc[2, "ci_low"], t.loc[2, "ci_high"]) == pytest.approx((lo, hi))


def test_pairwise_table_agrees_with_simulation_truth():
    # 4 bots, 3 per game: each pair's head-to-head rate is exp(ti)/(exp(ti)+exp(tj))
    # under Plackett-Luce (independence of irrelevant alternatives).
    theta = np.array([0.0, 0.3, 0.6, 1.2])
    t = S.pairwise_table(simulate_pl(theta, 4000, 3, 1, np.random.default_rng(9)))
    assert len(t) == 6 and (t["games"] == t["wins_a"] + t["wins_b"] + t["shared"]).all()
    assert (t["shared"] == 0).all()
    ia = t["bot_a"].str.slice(3).astype(int).to_numpy()
    ib = t["bot_b"].str.slice(3).astype(int).to_numpy()
    p = 1 / (1 + np.exp(theta[ib] - theta[ia]))
    assert ((t["ci_low"] < p) & (p < t["ci_high"])).mean() >= 5 / 6


# ------------------------------------------------------------------ the shared tables (experiments.tables)
def test_seat_table_by_hand_with_shared_wins():
    from experiments import tables as T

    # 3 players: seat 0 alone 5 games, seat 1 alone 2, seats 0 and 2 share 3, no winner (code 0) 0
    wins = np.array([[1, 0, 0]] * 5 + [[0, 1, 0]] * 2 + [[1, 0, 1]] * 3)
    t = T.seat_table(T.win_pattern_counts(wins), 3)
    assert t["games"].tolist() == [10, 10, 10]
    assert t["wins"].tolist() == [8, 2, 3] and t["shared_wins"].tolist() == [3, 0, 3]
    assert t["win_share"].tolist() == pytest.approx([0.65, 0.2, 0.15])
    assert t["win_share"].sum() == pytest.approx(1.0)
    lo, hi = S.wilson_interval(6.5, 10)  # the summed shares over the games
    assert (t.loc[0, "share_low"], t.loc[0, "share_high"]) == pytest.approx((lo, hi))
    assert (t.loc[0, "ci_low"], t.loc[0, "ci_high"]) == pytest.approx(S.wilson_interval(8, 10))
    assert t["advantage"].tolist() == pytest.approx([0.65 - 1 / 3, 0.2 - 1 / 3, 0.15 - 1 / 3])
    sole, shared = T.seat_sole_wins(T.win_pattern_counts(wins), 3)
    assert sole.tolist() == [5, 2, 0] and shared == 3


def test_zero_wins_keep_a_wilson_interval_and_zero_games_none():
    from experiments import tables as T

    t = T.seat_table(T.win_pattern_counts(np.array([[0, 1]] * 200)), 2)
    z2 = 1.959963984540054 ** 2
    assert t.loc[0, "win_share"] == 0 and t.loc[0, "share_low"] == 0
    assert t.loc[0, "share_high"] == pytest.approx(z2 / (200 + z2)) == pytest.approx(0.0188, abs=1e-4)
    empty = T.seat_table(np.zeros(4, np.int64), 2)
    assert empty["games"].tolist() == [0, 0] and empty["win_share"].isna().all() and empty["ci_low"].isna().all()
    r = T.rate_table("bid", ["6", "7"], [3, 0], [4, 0], "contracts", "made", "make_rate")
    assert r["bid"].tolist() == ["6", "7"] and r["contracts"].tolist() == [4, 0]  # the never-won bid stays
    assert math.isnan(r.loc[1, "make_rate"]) and r.loc[0, "make_rate"] == 0.75


def test_win_share_interval_covers_under_shared_wins():
    """The Wilson interval of summed shares covers the true share at least at 95% (the shares'
    variance is below the binomial one), also with many shared wins."""
    from experiments import tables as T

    rng = np.random.default_rng(7)
    n, games, runs = 3, 300, 400
    p_win = np.array([0.5, 0.3, 0.2])  # each seat wins independently; no winner redrawn
    covered = 0
    # the true win share of seat 0, from a long run
    big = rng.random((400_000, n)) < p_win
    big = big[big.any(axis=1)]
    truth = (big[:, 0] / big.sum(axis=1)).mean()
    for _ in range(runs):
        w = rng.random((games * 2, n)) < p_win
        w = w[w.any(axis=1)][:games]
        t = T.seat_table(T.win_pattern_counts(w), n)
        covered += t.loc[0, "share_low"] <= truth <= t.loc[0, "share_high"]
    assert covered / runs >= 0.94


def test_bot_table_counts_a_game_once_per_bot():
    from experiments import tables as T

    wins = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 1]])
    bots = np.array([["a", "b", "b"]] * 3)
    t = T.bot_table(T.bot_share_sums(wins, bots), 3).set_index("bot")
    assert t["games"].tolist() == [3, 3]
    # a: 1, 0, 0; b per seat: (0+0)/2, (0.5+0.5)/2, (0+1)/2
    assert t.loc["a", "win_share_per_seat"] == pytest.approx(1 / 3)
    assert t.loc["b", "win_share_per_seat"] == pytest.approx((0 + 0.5 + 0.5) / 3)
    assert t.loc["b", "win_rate_per_seat"] == pytest.approx((0 + 1 + 0.5) / 3)
    assert (t.loc["a", "ci_low"], t.loc["a", "ci_high"]) == pytest.approx(S.wilson_interval(1, 3))


def test_mean_interval_is_the_t_interval():
    from scipy import stats as sps

    from experiments import tables as T

    x = np.array([3.0, 5, 4, 8, 10, 2])
    m = S.Moments()
    m.add(x[:2])
    m.add(x[2:])
    lo, hi = sps.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
    assert T.mean_interval(m) == pytest.approx((x.mean(), lo, hi))
    one = S.Moments()
    one.add(np.array([4.0]))
    assert T.mean_interval(one)[0] == 4.0 and math.isnan(T.mean_interval(one)[1])


def test_equal_seats_from_the_tally_has_its_size_with_shared_wins():
    """The seat test fpa, sweep and the report run on a win-pattern tally: under equal seats
    with many shared wins it rejects at 5% in 3..7% of studies."""
    from experiments import tables as T

    rng = np.random.default_rng(11)
    reps, games, n = 1000, 300, 3
    rejected = 0
    for _ in range(reps):
        w = rng.random((games, n)) < 0.45  # equal seats; two or three winners in about 40% of games
        rejected += T.equal_seats_p(T.win_pattern_counts(w), n) < 0.05
    assert 0.03 <= rejected / reps <= 0.07


def test_seat_table_by_deal_is_as_sure_as_the_games_when_a_deals_games_differ_freely():
    """Six independent games per deal (nothing shared): the spread over deals shows it, and
    the interval is the one over the games, not one over the 200 deals."""
    from experiments import tables

    rng = np.random.default_rng(4)
    wins, deals = _replayed_deals(rng, 1200, 3, 1, 1 / 3)
    deals = deals // 6  # six unrelated games per "deal"
    t = tables.seat_table_by_deal(wins, deals, 3)
    rows = tables.seat_table(tables.win_pattern_counts(wins), 3)
    assert (t["deals"] == 200).all()
    width, game_width = t["share_high"] - t["share_low"], rows["share_high"] - rows["share_low"]
    assert (width < 1.15 * game_width).all() and (width > 0.85 * game_width).all()


def test_pairwise_counts_made_of_sub_games_print_without_float_noise():
    """A game whose bot held several seats counts 1/k per sub-game (tournament.Collector),
    and thousands of thirds summed to 1200.0000000000064 "games" in pairwise.csv."""
    from experiments.stats import pairwise_from_orders

    codes, ranks = np.array([[0, 1], [1, 0]]), np.array([[0, 1], [0, 1]])
    thirds, sixths = sum([1 / 3] * 3600), sum([1 / 6] * 1200)
    assert thirds != 1200 and sixths != 200  # the noise this is about
    whole = pairwise_from_orders(["a", "b"], codes, ranks, np.array([thirds, sixths])).iloc[0]
    assert (whole["games"], whole["wins_a"], whole["wins_b"]) == (1400, 1200, 200)
    assert isinstance(whole["games"], (int, np.integer))
    half = pairwise_from_orders(["a", "b"], codes, ranks, np.array([thirds, sixths + 0.5])).iloc[0]
    assert (half["games"], half["wins_a"], half["wins_b"]) == (1400.5, 1200.0, 200.5)  # exactly
