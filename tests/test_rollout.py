"""The shared rollout (bots/generic/rollout.py): where it cuts off, and which policy plays
which seat.  The rollout is run as plain Python here, its globals those a compiled copy
gets (``RolloutPolicy.globals``), with recording policies in place of compiled bots: what
is checked is the rollout's own logic, on real Shifting Stones deals and Moon hands."""
from __future__ import annotations

import types

import numpy as np
import pytest

from bots.generic import rollout as R
from bots.registry import MAX_BOT_PARAMS
from runtime.runner import RunConfig
from simcore.games import moon
from simcore.games import shifting_stones as game
from simcore.protocol import OPTIONAL_FUNCTIONS

# what the rollout calls of the game
GAME_FUNCTIONS = ("is_terminal", "current_player", "legal_actions", "apply", "evaluate", "returns",
                  "random_action", "new_deal")
PLAYERS = 2


def python_rollout(calls, finish_turn=False, others=False, of=game):
    """``rollout`` of game ``of`` with the globals of a copy whose policy (and, with
    ``others``, opponent model) plays at random and appends (who played, the seat) to
    ``calls``."""
    def policy_for(who):
        def play(sim, legal, m, bot_params, params, streams, p, ints, floats):
            calls.append((who, int(p)))
            return of.random_action(sim, params, streams, p)
        return play

    table = np.zeros((PLAYERS, MAX_BOT_PARAMS))
    g = dict(R.rollout.__globals__)
    g.update({name: getattr(of, name, None) or OPTIONAL_FUNCTIONS[name] for name in GAME_FUNCTIONS})
    g.update(POLICY=policy_for("policy"), HAS_POLICY=True, POLICY_LEGAL=False, POLICY_BOT_PARAMS=table,
             OTHERS=policy_for("others"), HAS_OTHERS=others, OTHERS_LEGAL=False, OTHERS_BOT_PARAMS=table,
             FINISH_TURN=finish_turn)
    for f in R.ROLLOUT_FUNCTIONS:  # the rollout and its helpers, reading these globals
        g[f.__name__] = types.FunctionType(f.__code__, g)
    # compiled, the stream seeds wrap to int64; from Python they come back as ints to wrap here
    g["mix64"] = lambda x: (int(R.mix64(x)) + (1 << 63)) % (1 << 64) - (1 << 63)
    return g["rollout"]


def deal(seed):
    params = RunConfig.build("shifting-stones", PLAYERS, "greedy,greedy", {}, seed).params()
    state = np.zeros(game.INFO.state_size(PLAYERS), np.int64)
    game.init(state, params, PLAYERS, seed)
    return state, params


def work():
    return R.Rollout(np.zeros(game.INFO.num_actions, np.int64), np.zeros(PLAYERS, np.int64),
                     np.zeros((PLAYERS, 1), np.int64), np.zeros((PLAYERS, 1)), np.zeros(PLAYERS))


def run(seed, depth, **kw):
    """(the calls, the world after the rollout) of one rollout from a fresh deal."""
    state, params = deal(seed)
    calls = []
    python_rollout(calls, **kw)(state, params, np.arange(PLAYERS, dtype=np.int64), 0, True, depth, work())
    return calls, state


pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


@pytest.mark.parametrize("depth", [1, 3, 7])
def test_the_plain_cut_off_comes_after_exactly_depth_decisions(depth):
    for seed in range(20):
        calls, _ = run(seed, depth)
        assert len(calls) == depth


@pytest.mark.parametrize("depth", [1, 3, 7])
def test_finish_turn_cuts_off_at_the_first_change_of_seat_after_depth_decisions(depth):
    longer = 0
    for seed in range(20):
        calls, state = run(seed, depth, finish_turn=True)
        assert len(calls) >= depth
        if game.is_terminal(state):
            continue
        last = calls[-1][1]
        # the seat to move is another one, and every decision past depth was the last mover's
        assert int(game.current_player(state)) != last
        assert all(p == last for _, p in calls[depth - 1:])
        longer += len(calls) > depth
    assert longer > 0  # random play does continue some turns past the cut-off


def moon_hand_near_its_end(seed, plays_left):
    """A 3-player Moon game played at random into its first hand's play phase until
    ``plays_left`` tiles remain to be played in that hand (its params too)."""
    params = moon.INFO.make_params(moon.INFO.resolve_variant({}))
    state = np.zeros(moon.INFO.state_size(3), np.int64)
    moon.init(state, params, 3, seed)
    rng = np.array([seed + 1], dtype=np.int64)
    while not (state[moon.PHASE] == moon.PHASE_PLAY
               and sum(bin(state[moon.HAND + s]).count("1") for s in range(3)) == plays_left):
        moon.apply(state, params, moon.random_action(state, params, rng, 0))
        if state[moon.HAND_NO] > 1:  # all passed: deal again from this seed's next game
            return moon_hand_near_its_end(seed + 1000, plays_left)
    return state, params


def moon_rollout(state, params, depth, calls, mode):
    """One Moon rollout of ``depth`` from ``state`` (``mode``: "policy", "others" for an
    opponent model, "random" for the random loop)."""
    work = R.Rollout(np.zeros(moon.INFO.num_actions, np.int64), np.zeros(3, np.int64),
                     np.zeros((3, 1), np.int64), np.zeros((3, 1)), np.zeros(3))
    run = python_rollout(calls, others=mode == "others", of=moon)
    run(state, params, np.arange(3, dtype=np.int64), 0, mode != "random", depth, work)
    return work.value


@pytest.mark.parametrize("mode", ["policy", "others", "random"])
def test_a_cut_off_rollout_stops_where_moon_deals_its_next_hand(mode):
    """Past a hand's end the sampled world's next deal is chance no seat's play bears on:
    a rollout of 8 from 3 tiles before the end plays those 3 and stops at the new deal,
    valued by evaluate; one mid-hand plays its 8; one to the end (depth 0) plays on."""
    stopped = 0
    for seed in range(6):
        state, params = moon_hand_near_its_end(seed, 3)
        assert not moon.new_deal(state)
        calls = []
        value = moon_rollout(state, params, 8, calls, mode)
        if moon.is_terminal(state):  # the hand ended the game: returns, as ever
            continue
        stopped += 1
        assert moon.new_deal(state) and state[moon.HAND_NO] == 2
        if mode != "random":
            assert len(calls) == 3
        expected = np.zeros(3)
        moon.evaluate(state, params, 3, expected)
        assert np.array_equal(value, expected)
        # evaluate at a new deal is the running totals alone
        assert np.argmax(value) == np.argmax(state[moon.SCORE:moon.SCORE + 3])
    assert stopped >= 4
    state, params = moon_hand_near_its_end(0, 18)
    calls = []
    moon_rollout(state, params, 8, calls, "policy")
    assert len(calls) == 8 and state[moon.HAND_NO] == 1
    state, params = moon_hand_near_its_end(0, 3)
    calls = []
    moon_rollout(state, params, 0, calls, "policy")
    assert moon.is_terminal(state) and len(calls) > 3


def test_new_deal_is_moons_first_bid_of_a_hand_only():
    state, params = moon_hand_near_its_end(3, 21)
    assert not moon.new_deal(state)
    fresh = np.zeros_like(state)
    moon.init(fresh, params, 3, 5)
    assert moon.new_deal(fresh)
    moon.apply(fresh, params, moon.PASS)
    assert not moon.new_deal(fresh)
    assert not OPTIONAL_FUNCTIONS["new_deal"](fresh)  # a game of one deal: never


def test_an_opponent_model_plays_every_other_seat_and_only_those():
    seat = 0
    for seed in range(10):
        calls, _ = run(seed, 40, others=True)
        assert {p for who, p in calls if who == "policy"} <= {seat}
        assert {p for who, p in calls if who == "others"} <= set(range(PLAYERS)) - {seat}
        assert {who for who, _ in calls} == {"policy", "others"}
    calls, _ = run(0, 40)
    assert {who for who, _ in calls} == {"policy"}


def test_a_links_key_names_the_policys_parameter_values():
    """The policy bot's parameter values are compiled into the search's copy as constants
    (``RolloutPolicy.globals``), and the cache is keyed by sources: a plugin's
    ``set_bot_defaults`` on the rollout bot changed what the search should play while its
    cached copy kept the old values (an expert over a learned policy at temperature 1 played
    exactly as at 0).  The values are part of the key."""
    import bots.registry as registry

    game = "shifting-stones"
    link = R.RolloutPolicy("greedy", others="learned")
    before = link.key(game), registry.bot_entry(game, "mcts").key(game)
    saved = {k: dict(v) for k, v in registry._DEFAULTS.items() if k[0] == game}
    try:
        registry.set_bot_defaults(game, "greedy", card_value=1.0)
        after_policy = link.key(game), registry.bot_entry(game, "mcts").key(game)
        assert after_policy[0] != before[0] and after_policy[1] != before[1]
        registry.set_bot_defaults(game, "learned", temperature=0.5)
        assert link.key(game) not in (before[0], after_policy[0])
    finally:
        for k in [k for k in registry._DEFAULTS if k[0] == game]:
            del registry._DEFAULTS[k]
        registry._DEFAULTS.update(saved)
        registry._invalidate()
    assert (link.key(game), registry.bot_entry(game, "mcts").key(game)) == before


def test_a_links_key_names_its_opponent_model_and_cut_off():
    plain = R.RolloutPolicy("greedy")
    keys = {plain.key("shifting-stones"), R.RolloutPolicy("greedy", others="learned").key("shifting-stones"),
            R.RolloutPolicy("greedy", finish_turn=True).key("shifting-stones")}
    assert len(keys) == 3
    # the opponent model's scratch fits in a seat's row: the larger of the two bots'
    from simcore.games import load_game
    info = load_game("shifting-stones").INFO
    both = R.RolloutPolicy("greedy", others="learned").memory(info)
    assert both == tuple(max(a, b) for a, b in zip(R.RolloutPolicy("learned").memory(info), plain.memory(info)))


def test_the_measuring_plugin_registers_its_designs():
    """tools/opponent_model.py (docs/expert-play.md) loads as a plugin and lists its bots,
    with the expert's defaults where it copies the expert."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-m", "playlab.cli", "--plugin", str(root / "tools" / "opponent_model.py"),
                        "bots", "shifting-stones"], capture_output=True, text=True, cwd=root)
    assert r.returncode == 0, r.stderr
    for name in ("model-greedy", "model-greedy-turns", "learned-turns", "greedy-turns"):
        assert name in r.stdout
    assert "model-greedy" not in subprocess.run([sys.executable, "-m", "playlab.cli", "bots", "shifting-stones"],
                                                capture_output=True, text=True, cwd=root).stdout
