"""What the studies conclude on small runs: strong and weak bots are told apart, pairing
narrows the sweep's comparisons.  The slow variants use more games; CI runs the bounded ones."""
import numpy as np
import pytest

from experiments import sweep, tournament
from experiments.study import run_study


def rate(game, games, seed=1):
    study = tournament.build(game, None, "random,greedy", games, seed)
    collector = tournament.Collector(study)
    run_study(study, collector, progress=False)
    return tournament.summarize(study, collector, n_boot=50)["ratings"].set_index("bot")


def separated(r):
    return r.loc["greedy", "ci_low"] > r.loc["random", "ci_high"]


@pytest.mark.parametrize("game", ["shifting-stones", "sequence-stacks"])
def test_tournament_separates_greedy_from_random(game):
    assert separated(rate(game, 60))


@pytest.mark.slow
@pytest.mark.parametrize("game", ["moon", "shifting-stones", "sequence-stacks"])
def test_tournament_separates_greedy_from_random_slow(game):
    r = rate(game, 1500)
    assert separated(r)
    assert r.loc["greedy", "rating"] > 200


def paired_gain(games):
    study = sweep.build("sequence-stacks", ["chips_to_win=6"], 2, "greedy", games, 3)
    collector = sweep.Collector(study)
    run_study(study, collector, progress=False)
    t = sweep.summarize(study, collector)["sweep_tests"].set_index("metric")
    return t.loc["turns"]


def test_pairing_narrows_the_sweep_comparison():
    t = paired_gain(300)
    assert t["se_paired"] < t["se_unpaired"] and t["diff"] > 0 and t["differs"]


@pytest.mark.slow
def test_pairing_narrows_the_sweep_comparison_slow():
    t = paired_gain(20000)
    assert t["se_paired"] < 0.6 * t["se_unpaired"]


def small_sweep(vary, bots, games=200, players=2, seed=4):
    study = sweep.build("sequence-stacks", vary, players, bots, games, seed)
    collector = sweep.Collector(study)
    run_study(study, collector, progress=False)
    return sweep.summarize(study, collector)


def test_sweep_tests_every_seat_and_keeps_untestable_comparisons_out_of_holm():
    from statsmodels.stats.multitest import multipletests

    tables = small_sweep(["chips_to_win=4,6"], "random,greedy")
    s, t = tables["sweep"], tables["sweep_tests"]
    # every seat's share is compared with the baseline, not seat 0's only
    assert {"seat0_share", "seat1_share"} <= set(t["metric"])
    # greedy in seat 1 against random: every setting's seats differ, and each setting has its own test
    assert len(s) == 3 and s["p_equal_seats"].notna().all() and s["unequal_seats"].all()
    _, holm, _, _ = multipletests(s["p_equal_seats"], method="holm")
    assert s["p_equal_seats_holm"].tolist() == pytest.approx(list(holm))
    for k in range(2):
        assert (s[f"seat{k}_share_low"] <= s[f"seat{k}_share"]).all()
        assert (s[f"seat{k}_share"] <= s[f"seat{k}_share_high"]).all()
    # no game truncated under any setting: nothing to test, so no p = 1 in the family
    trunc = t[t["metric"] == "truncated"]
    assert (s["truncated_share"] == 0).all() and not trunc["tested"].any() and trunc["p"].isna().all()
    assert trunc["untested"].str.contains("the same on every deal").all()
    tested = t[t["tested"]]
    _, holm, _, _ = multipletests(tested["p"], method="holm")
    assert tested["p_holm"].tolist() == pytest.approx(list(holm))
    assert t.loc[~t["tested"], "p_holm"].isna().all()


def test_sweep_rows_name_every_varied_option():
    s = small_sweep(["chips_to_win=4,6", "hand_size=4"], "greedy", games=60)["sweep"]
    assert s["setting"].tolist()[0].endswith("(baseline)")
    assert all("chips_to_win=" in x and "hand_size=" in x for x in s["setting"])
    assert s["setting"].is_unique


def test_sweep_tests_only_the_metrics_asked_for():
    from simcore.options import OptionError

    study = sweep.build("sequence-stacks", ["chips_to_win=4"], 2, "greedy", 50, 1, metrics="turns,seats")
    collector = sweep.Collector(study)
    run_study(study, collector, progress=False)
    t = sweep.summarize(study, collector)["sweep_tests"]
    assert sorted(t["metric"]) == ["seat0_share", "seat1_share", "turns"]
    for bad in ("turns,turns", "speed", "turns,"):
        with pytest.raises(OptionError):
            sweep.build("sequence-stacks", ["chips_to_win=4"], 2, "greedy", 50, 1, metrics=bad)


def test_a_sweep_setting_that_moves_every_deal_alike_gets_a_sign_test_not_p_zero():
    """Two deals each moved by the same amount have no spread, and p = 0 claimed a finding
    from them; the sign test over the deals gives 2 x 0.5^n."""
    from experiments.sweep import _Pair, _paired_test

    for n, p in ((2, 0.5), (10, 2 * 0.5 ** 10)):
        pair = _Pair()
        pair.add(np.full(n, 3.0), np.full(n, 2.0))
        test = _paired_test(pair)
        assert test["tested"] and test["se_paired"] == 0 and test["p"] == pytest.approx(p)


@pytest.mark.parametrize("spread", [0.0, 0.2, 1.0])
def test_the_clustered_wilson_interval_covers_a_rate_whose_games_share_their_deals(spread):
    """Games of one deal share its cards: each deal's own rate is drawn around 0.3 (``spread``
    0: independent games; 1: a deal decides all its games alike).  The interval must cover
    0.3 about 95% of the time either way, and with independent games be as narrow as the
    per-game interval, not the per-deal one."""
    from statsmodels.stats.proportion import proportion_confint

    from experiments.tables import clustered_wilson

    rng = np.random.default_rng(5)
    deals, per_deal, reps, truth = 80, 6, 600, 0.3
    covered = widths = game_widths = 0.0
    for _ in range(reps):
        own = np.where(rng.random(deals) < spread, (rng.random(deals) < truth).astype(float), truth)
        means = (rng.random((deals, per_deal)) < own[:, None]).mean(axis=1)
        rate = means.mean()
        lo, hi = clustered_wilson(rate, deals, means.var(ddof=1), deals * per_deal)
        covered += lo <= truth <= hi
        widths += hi - lo
        glo, ghi = proportion_confint(rate * deals * per_deal, deals * per_deal, method="wilson")
        game_widths += ghi - glo
    assert 0.925 <= covered / reps <= 0.975
    if spread == 0.0:
        assert widths / game_widths < 1.05
    if spread == 1.0:
        assert widths / game_widths > 2.0  # the games of a deal are one trial
