"""The Python-facing game object (simcore.game.Game): the engine's game i when fed the
same choices, refusals that leave it unchanged, clones, views and traces."""
from __future__ import annotations

import numpy as np
import pytest

from simcore.game import Game, GameError
from simcore.games import available_games, load_game
from runtime.runner import Batch, RunConfig
from simcore.trace import build_trace
from bot_helpers import cheap

GAMES = available_games()


def bot_specs(game):
    """Every bot of the game, a search one with the conformance suite's small budget: what is
    checked here (the engine's choices replayed move by move) does not depend on it."""
    from bots.registry import bots_for

    return [cheap(game, b.name) for b in bots_for(load_game(game))]


@pytest.mark.parametrize("game", GAMES)
def test_fed_the_recorded_choices_it_ends_on_the_engine_result_row(game):
    info = load_game(game).INFO
    players = max(info.min_players, min(3, info.max_players))
    # last bot first: the conformance suite asks for the same compiled chains in the
    # registry's order, and on a cold cache the other test worker, walking them in step,
    # sat waiting for each chain this one was compiling (about 100 s of a CI run idle)
    for spec in reversed(bot_specs(game)):
        config = RunConfig.build(game, players, spec, {}, 31)
        batch = Batch(config)
        for index in (0, 5):
            actions, row = batch.record(index)
            g = Game(game, players, {}, 31, index)
            for a in actions:
                assert not g.is_over
                g.step(int(a))
            assert g.is_over and g.current_player == -1 and g.legal_actions() == []
            assert np.array_equal(g.result_row(), row), f"{game}/{spec}: game {index} differs"
            assert g.trace(config.bot_labels) == build_trace(batch, index)


@pytest.mark.parametrize("game", GAMES)
def test_refusals_name_the_problem_and_leave_the_game_unchanged(game):
    g = Game(game, seed=4, index=2)
    legal = g.legal_actions()
    before = g.state.copy()
    illegal = next(a for a in range(g.info.num_actions + 1) if a not in legal)
    with pytest.raises(GameError) as err:
        g.step(illegal)
    assert "not legal" in str(err.value) and str(legal[0]) in str(err.value)
    assert np.array_equal(g.state, before) and g.actions == []
    for flag in (True, False, np.True_):  # a bool is no action id, even where 0 or 1 is legal
        with pytest.raises(GameError, match="not legal"):
            g.step(flag)
    assert np.array_equal(g.state, before) and g.actions == []
    with pytest.raises(ValueError):
        g.view(g.players)
    with pytest.raises(GameError, match="no seat"):
        g.view(-1)
    assert np.array_equal(g.state, before)
    rng = np.random.default_rng(0)
    while not g.is_over:
        g.step(int(rng.choice(g.legal_actions())))
    done = g.state.copy()
    with pytest.raises(GameError, match="over"):
        g.step(legal[0])
    assert np.array_equal(g.state, done)


def test_a_clone_plays_on_alone():
    g = Game("kuhn", seed=1, index=0)
    twin = g.clone()
    twin.step(1)
    assert g.actions == [] and twin.actions == [1]
    assert not np.array_equal(g.state, twin.state)
    assert g.log != twin.log


@pytest.mark.parametrize("game", GAMES)
def test_views_observations_renders_and_returns(game):
    g = Game(game, seed=2, index=1)
    info = g.info
    rng = np.random.default_rng(1)
    while not g.is_over:
        seat = g.current_player
        view = g.view(seat)
        obs = g.observation(seat)
        assert obs.shape == (info.observation_size(g.players),) and obs.dtype == np.float64
        text = g.render(seat)
        assert isinstance(text, str) and text.strip()
        assert np.all(g.returns() == 0)
        assert view.shape == g.state.shape
        g.step(int(rng.choice(g.legal_actions())))
    assert g.returns().sum() == pytest.approx(1.0) or g.result()["truncated"]


def test_kuhn_render_hides_the_other_card():
    g = Game("kuhn", seed=0, index=0)
    text = g.render(0)
    other = "JQK"[int(g.state[1])]
    assert "seat 1: hidden card" in text and f"seat 1: {other}" not in text
    assert "seat 0 to act" in text
