"""A run is determined by (game, players, variant, bots, seed): game i is the same alone,
in any batch, from any start, on 1 or 2 threads, and across reruns."""
import numpy as np
import pytest

from simcore.games import available_games
from simcore.rng import below, stream_key
from runtime.runner import Batch, RunConfig, set_threads

GAMES = available_games()


def config_for(game, seed=123):
    info = RunConfig.build(game, None, "random", {}, 0).info
    players = max(info.min_players, min(3, info.max_players))
    return RunConfig.build(game, players, "random", {}, seed)


@pytest.mark.parametrize("game", GAMES)
def test_game_i_independent_of_batch_start_and_threads(game):
    config = config_for(game)
    batch = Batch(config)
    set_threads(1)
    whole = batch.run(0, 64)
    set_threads(2)
    assert np.array_equal(batch.run(0, 64), whole)
    assert np.array_equal(batch.run(17, 30), whole[17:47])
    alone = np.vstack([batch.run(i, 1) for i in (0, 5, 63)])
    assert np.array_equal(alone, whole[[0, 5, 63]])
    assert np.array_equal(Batch(config).run(0, 64), whole)  # rerun


@pytest.mark.parametrize("game", GAMES)
def test_seed_changes_games(game):
    a = Batch(config_for(game, 1)).run(0, 32)
    b = Batch(config_for(game, 2)).run(0, 32)
    assert not np.array_equal(a[:, 1:], b[:, 1:])


def test_streams_are_distinct_and_stable():
    keys = {stream_key(7, i, s) for i in range(50) for s in range(6)}
    assert len(keys) == 300
    assert stream_key(7, 3, 0) == stream_key(7, 3, 0)


def test_below_is_uniform_enough():
    slots = np.array([stream_key(1, 0, 0)], dtype=np.int64)
    counts = np.bincount([below(slots, 0, 6) for _ in range(60000)], minlength=6)
    assert counts.min() > 9500 and counts.max() < 10500


@pytest.mark.parametrize("game", GAMES)
def test_changing_variant_or_bot_stream_never_changes_the_deal(game):
    """The chance stream is separate from the bots' streams: the opening of game i (its
    deal, before any decision) does not depend on the bots or their seeds."""
    from simcore.trace import build_trace

    config = config_for(game, 9)
    t1 = build_trace(Batch(config), 3)
    opening = [e for e in t1["log"] if e.split()[0] in ("deal", "widow", "grid", "hand", "deck")][:5]
    assert opening
    from runtime.kernels import kernels_for

    k = kernels_for(game, config.kernel_key[1])
    info = config.info
    state = np.zeros(info.state_size(config.players), dtype=np.int64)
    config.module.init(state, config.params(), config.players, stream_key(9, 3, 0))
    log = config.module.trace_start(state, config.params(), config.players)
    assert log[:len(opening)] == t1["log"][:len(opening)]
    assert k is kernels_for(game, config.kernel_key[1])
