"""What the studies conclude on small runs: strong and weak bots are told apart, pairing
narrows the sweep's comparisons.  The slow variants use more games; CI runs the bounded ones."""
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
