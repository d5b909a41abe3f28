"""PettingZoo environments (simcore.pettingzoo): PettingZoo's own API and seed tests, the
seed → playlab game mapping, rewards at the end, truncation at the cap, masks, render."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import pettingzoo  # noqa: F401  (the rl extra: CI installs it; a missing one must fail, not skip)
from pettingzoo.test import api_test, seed_test  # noqa: E402

from simcore.game import Game, GameError  # noqa: E402
from simcore.pettingzoo import ENV_IDS, PlaylabEnv, env  # noqa: E402
from runtime.runner import Batch, RunConfig  # noqa: E402

CONFIGS = [("moon", 3), ("shifting-stones", 2), ("shifting-stones", 5), ("sequence-stacks", 2),
           ("sequence-stacks", 6)]


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.parametrize("game,players", CONFIGS)
def test_pettingzoo_api_and_seed_tests_pass(game, players):
    api_test(env(game, players), num_cycles=40)
    seed_test(functools.partial(env, game, players), num_cycles=40)


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.parametrize("options", [{"target_score": 1, "hand_cap": 3}, {"hand_cap": 1}], ids=["to-1", "one-hand"])
def test_pettingzoo_api_test_through_the_end_of_short_games(options):
    # a Moon game to 1 point within 3 hands (about 80 steps at most), or cut after one
    # hand, ends well within api_test's cycles: the end and the dead steps are checked too
    api_test(env("moon", **options), num_cycles=200)
    seed_test(functools.partial(env, "moon", **options), num_cycles=200)


def play_through(e, actions):
    """Feed ``actions`` to the acting agents, then step every finished agent out."""
    for a in actions:
        obs, reward, term, trunc, _ = e.last()
        assert not (term or trunc) and reward == 0.0
        assert obs["action_mask"][a] == 1
        e.step(int(a))
    finals = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        assert term or trunc, "the recorded actions ended the engine's game"
        finals[agent] = (reward, term, trunc)
        e.step(None)
    return finals


@pytest.mark.parametrize("game,players,bots", [("moon", 3, "greedy"), ("shifting-stones", 2, "greedy"),
                                               ("sequence-stacks", 3, "random")])
def test_reset_seed_is_playlab_game_zero_and_later_resets_the_next_indices(game, players, bots):
    config = RunConfig.build(game, players, bots, {}, 17)
    batch = Batch(config)
    e = env(game, players)
    for index in (0, 1):
        if index == 0:
            e.reset(seed=17)
        else:
            e.reset()
        assert e.unwrapped.index == index
        actions, row = batch.record(index)
        g = Game(game, players, {}, 17, index)
        assert np.array_equal(e.unwrapped.game.state, g.state)
        finals = play_through(e, actions)
        assert np.array_equal(e.unwrapped.game.result_row(), row)
        shares = [finals[f"player_{s}"][0] for s in range(players)]
        wins = row[2 + players:2 + 2 * players]
        truncated = bool(row[2 + 2 * players])
        expected = [1 / players] * players if truncated else list(wins / wins.sum())
        assert shares == pytest.approx(expected) and sum(shares) == pytest.approx(1.0)
        assert e.agents == []
    e.reset(options={"index": 1})
    assert np.array_equal(e.unwrapped.game.state, Game(game, players, {}, 17, 1).state)


def test_observation_is_the_acting_seats_own_and_the_mask_its_legal_actions():
    e = env("sequence-stacks", 3)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        agent = e.agent_selection
        seat = int(agent.split("_")[1])
        g = e.unwrapped.game
        assert seat == g.current_player
        for other in e.agents:
            obs = e.observe(other)
            s = int(other.split("_")[1])
            assert np.array_equal(obs["observation"], g.observation(s))
            if other != agent:
                assert not obs["action_mask"].any()
        mask = e.observe(agent)["action_mask"]
        assert list(np.flatnonzero(mask)) == g.legal_actions()
        e.step(int(rng.choice(np.flatnonzero(mask))))


def test_an_illegal_action_is_refused_and_changes_nothing():
    e = env("moon")
    e.reset(seed=5)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = e.unwrapped.game.state.copy()
    with pytest.raises(GameError, match="not legal"):
        e.step(illegal)
    assert np.array_equal(e.unwrapped.game.state, before) and e.unwrapped.game.actions == []


def test_a_game_ended_by_its_cap_is_a_truncation_worth_one_nth_each():
    e = env("moon", hand_cap=1)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    while not any(e.truncations.values()) and not any(e.terminations.values()):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    r = e.unwrapped.game.result()
    assert r["truncated"] == 1
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert all(v == pytest.approx(1 / 3) for v in e._cumulative_rewards.values())


def test_render_ansi_shows_the_acting_seats_view():
    e = env("shifting-stones", 2, render_mode="ansi")
    e.reset(seed=1)
    seat = int(e.agent_selection.split("_")[1])
    assert e.render() == e.unwrapped.game.render(seat)
    with pytest.raises(ValueError, match="render_mode"):
        PlaylabEnv("moon", render_mode="human")


def test_options_are_rule_options_and_bad_ones_are_refused():
    e = env("moon", target_score=7)
    assert e.unwrapped.variant["target_score"] == 7
    with pytest.raises(ValueError, match="unknown option"):
        env("moon", no_such_rule=1)
    with pytest.raises(ValueError, match="players"):
        env("sequence-stacks", 7)


def test_registered_in_pettingzoo_registry():
    from pettingzoo import make

    assert set(ENV_IDS) == {"moon", "shifting-stones", "sequence-stacks"}
    e = make("aec", ENV_IDS["moon"], target_score=5)
    e.reset(seed=0)
    assert e.unwrapped.game_name == "moon" and e.unwrapped.variant["target_score"] == 5
