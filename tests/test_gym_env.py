"""Gymnasium single-agent environments (runtime.gym_env): Gymnasium's check_env on every
game, plugin games included; the deal and every bot move are the engine's (held to
``Batch.record`` of the same seed and index); masks, illegal actions, rewards, truncation,
seeds, registration, Python-agent opponents."""
from __future__ import annotations

import numpy as np
import pytest

import gymnasium  # noqa: F401  (the rl extra: a missing one must fail, not skip)
from gymnasium.utils.env_checker import check_env

from bots.registry import BotError, bots_for
from runtime.gym_env import ENV_IDS, PlaylabGymEnv, make, opponent_specs, register_envs
from runtime.runner import Batch, RunConfig
from simcore.engine import COL_DECISIONS, ROW_PREFIX
from simcore.game import Game, GameError
from simcore.games import game_names, load_game

# the compiled opponent of each game in these tests (kernels the other tests compile too)
OPPONENT = {"moon": "greedy", "shifting-stones": "greedy", "sequence-stacks": "greedy", "kuhn": "nash"}
AGENT = "py:examples/agents/first_legal.py:FirstLegal"

pytestmark = [pytest.mark.filterwarnings("ignore:.*render fps"),
              pytest.mark.filterwarnings("ignore:.*alternative render modes")]


def test_every_game_has_a_test_opponent_here():
    assert set(OPPONENT) == set(game_names())


@pytest.mark.parametrize("game", game_names())
def test_gymnasium_check_env_passes_on_every_game(game):
    info = load_game(game).INFO
    players = max(2, info.min_players)
    e = gymnasium.make(f"playlab/{game}-vs-{OPPONENT[game]}-v0", players=players, seat=players - 1,
                       render_mode="ansi")
    check_env(e.unwrapped)
    check_env(make(game, info.max_players, "random", seat=0, action_mask="observation"))


def seat_and_engine_play(game, players, seat, specs, seed, index, env_kwargs=None):
    """The environment (seat ``seat`` learning, ``specs`` everywhere else) fed, at every
    decision of its seat, the action the engine's bot of that seat took in game ``index``
    of the all-bot run: after each step its state is the engine's state after the same
    number of decisions, and it ends on the engine's result row with the seat's share."""
    batch = Batch(RunConfig.build(game, players, specs, {}, seed))
    actions, row = batch.record(index)
    others = [s for i, s in enumerate(specs) if i != seat]
    e = make(game, players, ",".join(others), seat, **(env_kwargs or {}))
    obs, info = e.reset(seed=seed, options={"index": index})
    replay = Game(game, players, {}, seed, index)
    played = 0
    mine = 0

    def catch_up():
        nonlocal played
        while played < e.decisions:
            replay.module.apply(replay.state, replay.params, int(actions[played]))
            played += 1
        assert np.array_equal(e.state, replay.state), f"state differs after {played} decisions"

    catch_up()
    reward, term, trunc = 0.0, False, False
    while not (term or trunc):
        assert not replay.is_over and replay.current_player == seat
        a = int(actions[e.decisions])
        assert info["action_mask"][a] == 1 and list(np.flatnonzero(info["action_mask"])) == replay.legal_actions()
        view = replay.view(seat)
        expected = np.zeros(load_game(game).INFO.observation_size(players))
        replay.module.observation(view, replay.params, seat, expected)
        assert np.array_equal(obs, expected.astype(np.float32))
        obs, reward, term, trunc, info = e.step(a)
        mine += 1
        catch_up()
    assert replay.is_over and e.decisions == len(actions) and mine > 0
    assert np.array_equal(e.result_row(), row) and row[COL_DECISIONS] == len(actions)
    wins = row[ROW_PREFIX + players:ROW_PREFIX + 2 * players]
    truncated = bool(row[ROW_PREFIX + 2 * players])
    share = 1 / players if truncated else wins[seat] / wins.sum()
    assert reward == pytest.approx(share) and (trunc, term) == (truncated, not truncated)
    assert not info["action_mask"].any()
    return row


@pytest.mark.parametrize("game,players,seat", [("moon", 3, 0), ("moon", 3, 2), ("shifting-stones", 2, 1),
                                               ("shifting-stones", 5, 3), ("sequence-stacks", 2, 0),
                                               ("sequence-stacks", 4, 2), ("kuhn", 2, 0), ("kuhn", 2, 1)])
def test_the_deal_and_the_bots_moves_are_the_engines_game(game, players, seat):
    bot = OPPONENT[game]
    rows = [seat_and_engine_play(game, players, seat, [bot] * players, 23, index) for index in range(3)]
    assert len({tuple(r[ROW_PREFIX:]) for r in rows}) > 1  # three different deals


def test_mixed_opponents_one_spec_per_other_seat_and_random_ones():
    seat_and_engine_play("sequence-stacks", 3, 1, ["greedy", "greedy", "random"], 5, 0)
    seat_and_engine_play("moon", 3, 1, ["random", "greedy", "random"], 5, 1)
    e = make("moon", None, "greedy,random", seat=1)
    assert e.players == 3 and e.opponents == ["greedy", "random"]
    assert opponent_specs("a,b", 3, 0) == ["random", "a", "b"] and opponent_specs("g", 3, 2) == ["g", "g", "random"]


def test_a_python_agent_opponent_plays_as_in_any_run():
    # the agent's seat is asked through runtime.agents, as Batch.record's agent games do
    for seat in (0, 1):
        specs = ["random", "random"]
        specs[1 - seat] = AGENT
        for index in range(4):
            seat_and_engine_play("kuhn", 2, seat, specs, 8, index)


def test_the_dict_observation_carries_the_vector_and_the_mask():
    e = make("shifting-stones", 3, "greedy", seat=2, action_mask="observation")
    obs, info = e.reset(seed=1)
    assert isinstance(e.observation_space, gymnasium.spaces.Dict)
    assert obs in e.observation_space and np.array_equal(obs["action_mask"], info["action_mask"])
    assert np.array_equal(e.action_masks(), info["action_mask"].astype(bool))
    vector = make("shifting-stones", 3, "greedy", seat=2).reset(seed=1)[0]
    assert np.array_equal(obs["observation"], vector) and vector.dtype == np.float32


def test_an_illegal_action_ends_the_episode_or_raises_and_changes_nothing():
    e = make("moon", 3, "greedy", seat=0)
    obs, info = e.reset(seed=4)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before, decisions = e.state.copy(), e.decisions
    obs2, reward, term, trunc, info2 = e.step(illegal)
    assert (reward, term, trunc) == (-1.0, True, False) and info2["illegal_action"] is True
    assert np.array_equal(e.state, before) and e.decisions == decisions and np.array_equal(obs2, obs)
    with pytest.raises(GameError, match="episode is over"):
        e.step(int(np.flatnonzero(info["action_mask"])[0]))
    r = make("moon", 3, "greedy", seat=0, illegal="raise", illegal_reward=-5)
    obs, info = r.reset(seed=4)
    for bad in (illegal, True, 1.5, None):
        with pytest.raises(GameError, match="not legal"):
            r.step(bad)
    assert np.array_equal(r.state, before)
    r.step(int(np.flatnonzero(info["action_mask"])[0]))  # the episode goes on
    assert make("moon", 3, "greedy", illegal_reward=-5).illegal_reward == -5.0


def test_a_game_ended_by_its_cap_is_truncated_and_worth_one_nth():
    e = make("moon", 3, "random", seat=1, hand_cap=1)
    obs, info = e.reset(seed=2)
    rng = np.random.default_rng(0)
    term = trunc = False
    while not (term or trunc):
        obs, reward, term, trunc, info = e.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    row = e.result_row()
    assert bool(row[ROW_PREFIX + 2 * 3]) == trunc
    if trunc:
        assert reward == pytest.approx(1 / 3) and not term
    else:  # the hand was won outright (a made 21): a termination with the win share
        assert term and reward in (0.0, 1.0)


def test_seeds_index_and_the_next_reset_follow_the_run():
    e = make("sequence-stacks", 3, "greedy", seat=0)
    e.reset(seed=9)
    assert (e.seed_value, e.index) == (9, 0)
    first = e.state.copy()
    e.reset()
    assert e.index == 1 and not np.array_equal(e.state, first)
    e.reset(options={"index": 0})
    assert e.index == 0 and np.array_equal(e.state, first)
    e.reset(seed=9)
    assert np.array_equal(e.state, first)
    fresh = make("sequence-stacks", 3, "greedy")
    fresh.reset()
    assert fresh.seed_value is not None and fresh.index == 0
    with pytest.raises(ValueError, match="seed"):
        e.reset(seed=-1)


def test_render_ansi_is_the_seats_view_and_bad_arguments_are_refused():
    e = make("kuhn", 2, "nash", seat=1, render_mode="ansi")
    e.reset(seed=3)
    g = load_game("kuhn")
    view = np.zeros_like(e.state)
    g.observe(e.state, 1, view)
    assert e.render() == g.render(view, 1, e.batch.params, 2)
    with pytest.raises(ValueError, match="no seat"):
        make("kuhn", 2, "nash", seat=2)
    with pytest.raises(BotError, match="opponent specs"):
        make("moon", 3, "greedy,greedy,greedy")
    with pytest.raises(BotError, match="unknown bot"):
        make("moon", 3, "nosuchbot")
    with pytest.raises(ValueError, match="illegal must be"):
        make("moon", illegal="ignore")
    with pytest.raises(ValueError, match="action_mask must be"):
        make("moon", action_mask="both")
    with pytest.raises(ValueError, match="unknown option"):
        make("moon", no_such_rule=1)
    with pytest.raises(ValueError, match="no opponents"):
        make("shifting-stones", 1)
    with pytest.raises(GameError, match="reset"):
        make("kuhn", 2, "nash").step(0)


def test_ids_for_every_game_and_bot_plugin_games_included():
    assert ("kuhn", "nash") in ENV_IDS  # registered at import (tests/conftest.py loads the plugin first)
    register_envs()  # any game or bot another test registered since
    expected = {(g, b.name) for g in game_names() for b in bots_for(load_game(g))}
    assert set(ENV_IDS) == expected and register_envs() == {}
    e = gymnasium.make("playlab/kuhn-vs-nash-v0", seat=1, ante=2)
    assert isinstance(e.unwrapped, PlaylabGymEnv)
    assert (e.unwrapped.game_name, e.unwrapped.seat, e.unwrapped.variant["ante"]) == ("kuhn", 1, 2)
    assert e.unwrapped.opponents == ["nash"]
