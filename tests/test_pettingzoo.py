"""PettingZoo environments (simcore.pettingzoo): PettingZoo's own API and seed tests, the
seed → playlab game mapping, rewards at the end, truncation at the cap, masks, render; the
observation spaces' bounds (from the layouts) held by random games of every game at every
player count; SuperSuit's observation wrappers on every game."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

import gymnasium
import pettingzoo  # noqa: F401  (the rl extra: CI installs it; a missing one must fail, not skip)
from pettingzoo.test import api_test, seed_test  # noqa: E402

import supersuit as ss  # noqa: E402  (the rl extra too)

from simcore.engine import ROW_PREFIX  # noqa: E402
from simcore.game import Game, GameError  # noqa: E402
from simcore.games import game_names, load_game  # noqa: E402
from simcore.layout import Layout, observation_layout  # noqa: E402
from simcore.pettingzoo import ENV_IDS, PlaylabEnv, env  # noqa: E402
from runtime.runner import Batch, RunConfig  # noqa: E402

CONFIGS = [("moon", 3), ("shifting-stones", 1), ("shifting-stones", 2), ("shifting-stones", 5),
           ("sequence-stacks", 2), ("sequence-stacks", 6), ("kuhn", 2)]


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


@pytest.mark.parametrize("seed, options, message", [
    (2 ** 63, None, "seed must be in 0..2\\^63-1"), (-1, None, "seed must be in 0..2\\^63-1"),
    (3.7, None, "seed must be a whole number"), (True, None, "seed must be a whole number"),
    (None, {"index": 2 ** 63}, "index must be in 0..2\\^63-1"), (5, {"index": "2"}, "index must be a whole number")])
def test_a_seed_or_index_out_of_range_is_refused_and_changes_nothing(seed, options, message):
    """A seed or game index as the command line takes them, 0..2^63-1, or a ValueError that
    leaves the run as it was (the next plain reset deals the next game of the same run)."""
    e = env("moon", 3)
    e.reset(seed=17)
    with pytest.raises(ValueError, match=message):
        e.reset(seed=seed, options=options)
    e.reset()
    assert (e.unwrapped.seed_value, e.unwrapped.index) == (17, 1)
    e.reset(seed=np.int64(2 ** 63 - 1), options={"index": 2 ** 63 - 1})
    assert np.array_equal(e.unwrapped.game.state, Game("moon", 3, {}, 2 ** 63 - 1, 2 ** 63 - 1).state)
    with pytest.raises(ValueError, match="no game after index 2"):
        e.reset()


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
            assert obs["observation"].dtype == np.float32
            assert np.array_equal(obs["observation"], g.observation(s).astype(np.float32))
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


def test_every_registered_game_is_in_pettingzoo_registry_plugin_games_too():
    from pettingzoo import make
    from simcore.pettingzoo import register_envs

    assert "kuhn" in ENV_IDS  # registered at import (tests/conftest.py loads the plugin first)
    register_envs()  # any game another test registered since
    assert set(ENV_IDS) == set(game_names()) >= {"moon", "shifting-stones", "sequence-stacks", "kuhn"}
    e = make("aec", ENV_IDS["moon"], target_score=5)
    e.reset(seed=0)
    assert e.unwrapped.game_name == "moon" and e.unwrapped.variant["target_score"] == 5
    k = make("aec", "playlab/kuhn-v0", ante=2, action_mask="info")
    k.reset(seed=0)
    assert k.unwrapped.game_name == "kuhn" and k.unwrapped.variant["ante"] == 2
    assert isinstance(k.observation_space("player_0"), gymnasium.spaces.Box)


def test_a_game_registered_later_joins_with_register_envs(monkeypatch):
    from simcore import games
    from simcore import pettingzoo as pz
    from pettingzoo.env_registry.registration import aec_registry

    entry = dataclasses.replace(games.entry("kuhn"), name="kuhn-again")
    monkeypatch.setitem(games._ENTRIES, "kuhn-again", entry)
    monkeypatch.delitem(pz.ENV_IDS, "kuhn-again", raising=False)
    assert pz.register_envs() == {"kuhn-again": "playlab/kuhn-again-v0"}
    assert "playlab/kuhn-again-v0" in aec_registry and pz.register_envs() == {}
    monkeypatch.delitem(aec_registry, "playlab/kuhn-again-v0")
    monkeypatch.delitem(pz.ENV_IDS, "kuhn-again")


# ---- bounded float32 spaces from the layouts --------------------------------------------------
# every player count of every game; games per configuration fixed in advance
BOUND_GAMES = 4
# options that push the fields scaled by an option (or bounded by the deck) to their ends:
# tiny targets and caps, one-card hands, long skips, the chips of a tiny supply
STRESS = {
    "moon": [{"target_score": 1, "hand_cap": 6}, {"hand_cap": 2}, {"target_score": 3, "moon_instant_win": False}],
    "shifting-stones": [{"hand_size": 1, "skip_draw": 10, "end_trigger": 1}, {"hand_size": 1, "round_cap": 3}],
    "sequence-stacks": [{"hand_size": 1, "refill_each_turn": False, "round_cap": 40},
                        {"chips_to_win": 1, "min_each_colour": 0, "chip_supply": 1},
                        {"chip_supply": 40, "chips_to_win": 40, "min_each_colour": 20, "round_cap": 30}],
    "kuhn": [{"ante": 5, "bet": 1}, {"ante": 1, "bet": 5}],
}


def bound_configs():
    out = []
    for game in game_names():
        info = load_game(game).INFO
        for n in range(info.min_players, info.max_players + 1):
            out.append((game, n, {}))
        for variant in STRESS.get(game, []):
            out.append((game, info.max_players, variant))
    return out


def observations_of_random_games(game, players, variant, games, seed=11):
    """Every seat's float32 observation at every state (the first and the last included)
    of ``games`` engine games with random bots: the actions come from the compiled run
    (``Batch.record``), replayed on ``Game`` (apply only: no trace needed)."""
    batch = Batch(RunConfig.build(game, players, "random", variant, seed))
    rows = []
    for index in range(games):
        actions, row = batch.record(index)
        g = Game(game, players, variant, seed, index)
        for a in list(actions) + [None]:
            for s in range(players):
                rows.append(g.observation(s).astype(np.float32))
            if a is not None:
                g.module.apply(g.state, g.params, int(a))
        assert g.is_over and np.array_equal(g.result_row()[ROW_PREFIX:], row[ROW_PREFIX:])
    return np.array(rows)


def assert_within(space, obs, layout):
    """Every observation inside ``space``; a failure names the field and the entry."""
    low_bad = obs < space.low
    high_bad = obs > space.high
    if low_bad.any() or high_bad.any():
        entry = int(np.flatnonzero((low_bad | high_bad).any(axis=0))[0])
        field = next(f.name for f in layout.fields if layout.slice(f.name).start <= entry < layout.slice(f.name).stop)
        raise AssertionError(f"entry {entry} ({field}) takes {obs[:, entry].min()}..{obs[:, entry].max()}, "
                             f"outside its bounds {space.low[entry]}..{space.high[entry]}")
    assert all(obs[i] in space for i in range(0, len(obs), max(1, len(obs) // 50)))


@pytest.mark.parametrize("game,players,variant", bound_configs(),
                         ids=lambda x: ",".join(f"{k}={v}" for k, v in x.items()) if isinstance(x, dict) else str(x))
def test_observations_of_random_games_lie_within_the_declared_bounds(game, players, variant):
    e = PlaylabEnv(game, players, action_mask="info", **variant)
    space = e.observation_space("player_0")
    assert space.dtype == np.float32 and np.isfinite(space.low).all() and np.isfinite(space.high).all()
    assert (space.high > space.low).all(), "no entry is constant (normalize_obs_v0 divides by the range)"
    layout = observation_layout(load_game(game))
    low, high = layout.bounds(e.variant, players)
    assert np.array_equal(space.low, low.astype(np.float32)) and np.array_equal(space.high, high.astype(np.float32))
    obs = observations_of_random_games(game, players, variant, BOUND_GAMES)
    assert obs.dtype == np.float32 and obs.shape[1] == layout.size
    assert_within(space, obs, layout)


def tightened(module, layout_attr, field, **bounds):
    """A copy of the module's observation layout with ``field``'s bounds replaced."""
    layout = getattr(module, layout_attr)
    fields = [dataclasses.replace(f, **bounds) if f.name == field else f for f in layout.fields]
    return Layout(*fields, size_name=layout.size_name)


@pytest.mark.parametrize("game,players,variant,attr,field", [
    ("moon", 3, {}, "OBS_LAYOUT", "OBS_SCORE"),                         # scores go negative
    ("shifting-stones", 5, {"hand_size": 1}, "OBS_LAYOUT", "OBS_HAND_N"),  # a skip's draw: above hand_size
    ("sequence-stacks", 6, {"hand_size": 1, "refill_each_turn": False, "round_cap": 40}, "OBS", "O_HAND_N"),
])
def test_the_bounds_check_catches_a_bound_left_at_the_default(monkeypatch, game, players, variant, attr, field):
    # the fields declared wider than [0, 1] need it: with the default the same games fail
    module = load_game(game)
    monkeypatch.setattr(module, attr, tightened(module, attr, field, low=0.0, high=1.0))
    space = PlaylabEnv(game, players, action_mask="info", **variant).observation_space("player_0")
    obs = observations_of_random_games(game, players, variant, BOUND_GAMES)
    with pytest.raises(AssertionError, match=field):
        assert_within(space, obs, getattr(module, attr))


def test_layout_bounds_defaults_numbers_functions_and_bad_declarations():
    from simcore.layout import Field

    lay = Layout(Field("A", 2), Field("B", 1, low=-2.0, high=3.0),
                 Field("C", 3, high=lambda v, n: [v["x"], 1.0, n]), size_name="X_SIZE")
    low, high = lay.bounds({"x": 5}, 4)
    assert list(low) == [0, 0, -2, 0, 0, 0] and list(high) == [1, 1, 3, 5, 1, 4]
    assert lay.table() == Layout(Field("A", 2), Field("B", 1), Field("C", 3)).table()  # headers unchanged
    with pytest.raises(ValueError, match="B: low bound above"):
        Layout(Field("B", 1, low=2.0, high=1.0)).bounds()
    with pytest.raises(ValueError, match="C: high bound has shape"):
        Layout(Field("C", 3, high=[1.0, 2.0])).bounds()
    with pytest.raises(ValueError, match="not finite"):
        Layout(Field("D", 1, high=float("inf"))).bounds()


# ---- SuperSuit ----------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.parametrize("game", game_names())
def test_supersuit_dtype_normalize_flatten_run_on_every_game(game):
    info = load_game(game).INFO
    for players in sorted({info.min_players, info.max_players}):
        base = env(game, players, action_mask="info")
        e = ss.flatten_v0(ss.normalize_obs_v0(ss.dtype_v0(base, np.float32), env_min=-1.0, env_max=1.0))
        space = e.observation_space("player_0")
        assert isinstance(space, gymnasium.spaces.Box) and space.dtype == np.float32
        assert space.shape == (info.observation_size(players),)
        assert (space.low == -1).all() and (space.high == 1).all()
        e.reset(seed=4)
        rng = np.random.default_rng(4)
        steps = 0
        for agent in e.agent_iter():
            obs, reward, term, trunc, inf = e.last()
            assert obs.dtype == np.float32 and obs in space and not np.isnan(obs).any()
            raw = base.unwrapped
            seat = int(agent.split("_")[1])
            lo, hi = raw.observation_low, raw.observation_high
            expected = (raw.game.observation(seat).astype(np.float32) - lo) / (hi - lo) * 2 - 1
            assert np.allclose(obs, expected, atol=1e-6)
            mask = inf["action_mask"]
            if term or trunc:
                assert not mask.any()
                e.step(None)
                continue
            assert list(np.flatnonzero(mask)) == raw.game.legal_actions()
            e.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
        assert steps > 0 and raw.game.is_over


@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.parametrize("game,players", [("kuhn", 2), ("moon", 3), ("shifting-stones", 3), ("sequence-stacks", 3)])
def test_pettingzoo_api_test_passes_through_the_supersuit_wrappers(game, players):
    wrapped = lambda: ss.flatten_v0(ss.normalize_obs_v0(ss.dtype_v0(env(game, players, action_mask="info"),  # noqa: E731
                                                                    np.float32)))
    api_test(wrapped(), num_cycles=40)
    seed_test(wrapped, num_cycles=40)


def test_the_default_dict_observation_holds_the_vector_and_the_mask_infos_hold_the_mask_too():
    e = env("shifting-stones", 3)
    e.reset(seed=9)
    space = e.observation_space("player_0")
    assert isinstance(space, gymnasium.spaces.Dict)
    assert space["observation"].dtype == np.float32 and np.isfinite(space["observation"].high).all()
    for _ in range(20):
        agent = e.agent_selection
        obs, _, _, _, info = e.last()
        assert obs in space and np.array_equal(obs["action_mask"], info["action_mask"])
        for other in e.agents:
            if other != agent:
                assert not e.infos[other]["action_mask"].any()
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match="action_mask must be one of"):
        env("moon", action_mask="both")
