"""For every game: determinization samples a state the acting seat cannot tell from the
real one (same view, same legal actions), whatever the hidden cards."""
import numpy as np
import pytest

from simcore.games import available_games
from simcore.rng import stream_key
from simcore.runner import RunConfig


@pytest.mark.parametrize("game", available_games())
def test_determinized_states_look_the_same_to_the_actor(game):
    module = RunConfig.build(game, None, "random", {}, 0).module
    info = module.INFO
    checked = 0
    for players in sorted({info.min_players, min(info.max_players, 3), info.max_players}):
        config = RunConfig.build(game, players, "random", {}, 0)
        params = config.params()
        size = info.state_size(players)
        legal_a = np.zeros(max(info.num_actions, info.scratch_size), dtype=np.int64)
        legal_b = np.zeros_like(legal_a)
        for g in range(6):
            state = np.zeros(size, dtype=np.int64)
            module.init(state, params, players, stream_key(5, g, 0))
            rng = np.array([stream_key(5, g, 1 + s) for s in range(players)] + [g], dtype=np.int64)
            step = 0
            while not module.is_terminal(state) and step < 400:
                p = module.current_player(state)
                if step % 7 == 0:
                    view = np.zeros(size, dtype=np.int64)
                    module.observe(state, p, view)
                    sample = np.zeros(size, dtype=np.int64)
                    module.determinize(view, params, p, rng, players, sample)
                    again = np.zeros(size, dtype=np.int64)
                    module.observe(sample, p, again)
                    assert np.array_equal(again, view), f"{game}: a sample changes what seat {p} sees"
                    n = module.legal_actions(state, params, legal_a)
                    m = module.legal_actions(sample, params, legal_b)
                    assert m == n and np.array_equal(legal_a[:n], legal_b[:m])
                    assert module.current_player(sample) == p
                    checked += 1
                module.apply(state, params, module.random_action(state, params, rng, p))
                step += 1
    assert checked > 50
