"""Study summaries kept chunk by chunk equal those computed from every game at once."""
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from experiments import stats, tournament
from experiments.results import long_frame
from experiments.tables import clustered_wilson
from experiments.study import execute_study


@pytest.mark.parametrize("bots,players", [("random,greedy", 2), ("random,greedy,greedy:depth=1", 3)])
def test_tournament_tallies_equal_the_long_frame(bots, players):
    study = tournament.build("shifting-stones", players, bots, 90, 5, chunk=40)
    collector = tournament.Collector(study, n_boot=30)
    outcome = execute_study(study, on_chunk=collector, progress=False)
    tables = tournament.summarize(study, collector)
    # the same games at once, through the long format's own functions (each bot in one seat)
    lf = long_frame(outcome.frame, players)
    full = stats.ratings(lf, n_boot=0)
    got = tables["ratings"].set_index("bot")
    np.testing.assert_allclose(got.loc[full["bot"], "rating"].to_numpy(), full["rating"].to_numpy(), atol=1e-6)
    assert (got["ci_low"] < got["rating"]).all() and (got["rating"] < got["ci_high"]).all()
    pw = stats.pairwise_table(lf)
    counts = [c for c in pw.columns if c not in ("ci_low", "ci_high")]
    pd.testing.assert_frame_equal(tables["pairwise"][counts].reset_index(drop=True), pw[counts])
    # the interval reads the spread over deals of a's mean score against b in the deal's games
    seat = lf.pivot(index="game", columns="bot", values="place")
    deal = lf.groupby("game")["deal"].first()
    for r in tables["pairwise"].itertuples():
        score = (seat[r.bot_a] < seat[r.bot_b]) + 0.5 * (seat[r.bot_a] == seat[r.bot_b])
        per_deal = score.groupby(deal).mean()
        lo, hi = clustered_wilson(score.mean(), len(per_deal), per_deal.var(ddof=1), len(score))
        assert r.deals == len(per_deal) < r.games and np.allclose((r.ci_low, r.ci_high), (lo, hi))
        # between the interval over games and the one with each deal a single trial
        assert r.ci_low <= proportion_confint(score.sum(), len(score), method="wilson")[0] + 1e-12
        assert r.ci_low >= proportion_confint(per_deal.sum(), len(per_deal), method="wilson")[0] - 1e-12
    assert collector.pending == {}


def test_poisson_weights_depend_only_on_seed_resample_and_deal():
    w = stats.poisson_weights(3, 50, np.arange(1000, 3000))
    assert np.array_equal(w[:, 500:700], stats.poisson_weights(3, 50, np.arange(1500, 1700)))
    assert not np.array_equal(w, stats.poisson_weights(4, 50, np.arange(1000, 3000)))
    assert abs(w.mean() - 1.0) < 0.02 and abs(w.var() - 1.0) < 0.05  # Poisson(1)
