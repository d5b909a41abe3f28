"""Compiled loops of ``playlab train`` (plain-Python templates bound per game, like the
engine): the teacher's recorded games replayed into training examples, and games of a
model under training (weights as arguments, not constants) against greedy.

Both start each game with the engine's ``start_game``, so the replay walks exactly the recorded games, and the
learner plays the decisions the compiled ``learned`` bot would (``bots.learned``:
``score_legal`` and ``pick``, the same code)."""
from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np
from numba import prange

from bots.generic.rollout import ROLLOUT_FUNCTIONS, Rollout, RolloutPolicy, rollout
from bots.learned import greedy_globals, pick, score_legal
from simcore.engine import start_game
from simcore.rng import stream_key

# the rollouts of the value targets: greedy at its defaults in every seat, as mcts's
Q_POLICY = RolloutPolicy("greedy")
# streams of an example's worlds and rollouts (apart from the games' own streams)
Q_STREAM = 1 << 20


def replay_examples(params, players, seed, start, count, actions, seat, obs_out, greedy_out, taken_out,
                    legal_out, state_size, views_out):
    """The recorded games ``start …`` of run ``seed`` (actions back to back) replayed; every
    decision of ``seat`` with a choice becomes an example: its observation, the base policy's
    move in its view (greedy with the model's ``base`` parameters), the action taken and the
    legal ones (a 0/1 mask), and the view itself into ``views_out`` when it has rows (the
    value targets' worlds are drawn from it).  Returns the examples written (stops when the
    buffers are full) and the actions used."""
    state = np.empty(state_size, np.int64)
    view = np.empty(state_size, np.int64)
    legal = np.empty(NUM_ACTIONS, np.int64)  # noqa: F821
    rng = np.empty(players, np.int64)
    gi = np.zeros((players, GREEDY_INTS), np.int64)  # noqa: F821
    gf = np.zeros((players, GREEDY_FLOATS), np.float64)  # noqa: F821
    k = 0
    pos = 0
    cap = obs_out.shape[0]
    for g in range(count):
        start_game(state, params, players, seed, start + g, rng)
        while not is_terminal(state):  # noqa: F821
            p = current_player(state)  # noqa: F821
            a = actions[pos]
            if p == seat and k < cap:
                n = legal_actions(state, params, legal)  # noqa: F821
                if n > 1:
                    observe(state, p, view)  # noqa: F821
                    observation(view, params, p, obs_out[k])  # noqa: F821
                    if views_out.shape[0] > 0:
                        for i in range(state_size):
                            views_out[k, i] = view[i]
                    greedy_out[k] = -1
                    if HAS_GREEDY:  # noqa: F821
                        greedy_out[k] = greedy_policy(view, legal, n, BASE_BOT_PARAMS, params, rng, p,  # noqa: F821
                                                      gi, gf)
                    taken_out[k] = a
                    for i in range(legal_out.shape[1]):
                        legal_out[k, i] = 0
                    for i in range(n):
                        legal_out[k, legal[i]] = 1
                    k += 1
            apply(state, params, a)  # noqa: F821
            pos += 1
    return k, pos


def learner_game(params, players, seed, index, seat, W1, b1, W2, b2, bonus, temperature, state, view,
                 legal, rng, gi, gf, obs, hidden, logits, returns_out):
    """Game ``index`` of run ``seed``: the model in ``seat``, greedy elsewhere; the seats'
    returns into ``returns_out``."""
    start_game(state, params, players, seed, index, rng)
    while not is_terminal(state):  # noqa: F821
        p = current_player(state)  # noqa: F821
        n = legal_actions(state, params, legal)  # noqa: F821
        observe(state, p, view)  # noqa: F821
        if n == 1:
            a = legal[0]
        else:
            g = -1
            if HAS_GREEDY:  # noqa: F821
                # the opponents are greedy at its defaults, the learner's input its base's move
                table = BASE_BOT_PARAMS if p == seat else GREEDY_BOT_PARAMS  # noqa: F821
                g = greedy_policy(view, legal, n, table, params, rng, p, gi, gf)  # noqa: F821
            if p != seat:
                a = g
            else:
                observation(view, params, p, obs)  # noqa: F821
                score_legal(obs, g, legal, n, W1, b1, W2, b2, bonus, hidden, logits)
                a = pick(logits, legal, n, temperature, rng, p)
        apply(state, params, a)  # noqa: F821
    returns(state, params, players, returns_out)  # noqa: F821


def learner_batch(params, players, seed, start, count, seat, W1, b1, W2, b2, bonus, temperature, state_size,
                  out):
    """Games ``start … start+count-1`` (``learner_game``), in parallel; ``out[g]`` = the
    learner seat's return (1 a win, 1/k a k-way shared win, 1/players a truncated game)."""
    chunk = 16
    nchunks = (count + chunk - 1) // chunk
    for c in prange(nchunks):
        state = np.empty(state_size, np.int64)
        view = np.empty(state_size, np.int64)
        legal = np.empty(NUM_ACTIONS, np.int64)  # noqa: F821
        rng = np.empty(players, np.int64)
        gi = np.zeros((players, GREEDY_INTS), np.int64)  # noqa: F821
        gf = np.zeros((players, GREEDY_FLOATS), np.float64)  # noqa: F821
        obs = np.zeros(OBS_N, np.float64)  # noqa: F821
        hidden = np.zeros(b1.shape[0], np.float64)
        logits = np.zeros(NUM_ACTIONS, np.float64)  # noqa: F821
        ret = np.zeros(players, np.float64)
        lo = c * chunk
        hi = min(count, lo + chunk)
        for g in range(lo, hi):
            learner_game(params, players, seed, start + g, seat, W1, b1, W2, b2, bonus, temperature, state, view,
                         legal, rng, gi, gf, obs, hidden, logits, ret)
            out[g] = ret[seat]


def q_values(params, players, seed, first, views, seats, rollouts, depth, state_size, q_out):
    """Value targets: for example e (the view ``views[e]`` of seat ``seats[e]``) and each
    legal action a, ``q_out[e, a]`` = the mean over ``rollouts`` worlds drawn from the view
    of what the seat gets after a: greedy in every seat for ``depth`` decisions (0: to the
    end), then the game's ``evaluate`` (``returns`` at the end): flat Monte Carlo over the
    rollout policy, the one-step improvement of greedy that Sequence Stacks' flat mcts
    searches for.  Every action of a world is rolled out on the same streams (common
    random numbers: the differences between actions carry less noise than the values).
    Illegal actions stay 0.  Example e draws only from streams of (seed, first + e)."""
    count = views.shape[0]
    chunk = 8
    nchunks = (count + chunk - 1) // chunk
    for c in prange(nchunks):
        world = np.empty(state_size, np.int64)
        sim = np.empty(state_size, np.int64)
        legal = np.empty(NUM_ACTIONS, np.int64)  # noqa: F821
        rng = np.empty(players, np.int64)
        work = Rollout(np.empty(NUM_ACTIONS, np.int64), np.empty(players, np.int64),  # noqa: F821
                       np.zeros((players, POLICY_INTS), np.int64),  # noqa: F821
                       np.zeros((players, POLICY_FLOATS), np.float64), np.zeros(players, np.float64))  # noqa: F821
        lo = c * chunk
        hi = min(count, lo + chunk)
        for e in range(lo, hi):
            seat = seats[e]
            for s in range(players):
                rng[s] = stream_key(seed, first + e, np.int64(Q_STREAM + s))
            for i in range(q_out.shape[1]):
                q_out[e, i] = 0.0
            for r in range(rollouts):
                determinize(views[e], params, seat, rng, seat, world)  # noqa: F821
                n = legal_actions(world, params, legal)  # noqa: F821
                key = rng[seat]
                for i in range(n):
                    for j in range(state_size):
                        sim[j] = world[j]
                    apply(sim, params, legal[i])  # noqa: F821
                    rng[seat] = key
                    rollout(sim, params, rng, seat, HAS_POLICY, depth, work)  # noqa: F821
                    q_out[e, legal[i]] += work.value[seat]
            for i in range(q_out.shape[1]):
                q_out[e, i] /= rollouts


# the engine's own game start (deal and bot streams) first: callees before their callers
TEMPLATES = (start_game, *ROLLOUT_FUNCTIONS, replay_examples, learner_game, learner_batch, q_values)
JIT_OPTIONS = {"learner_batch": {"parallel": True}, "q_values": {"parallel": True}}


@lru_cache(maxsize=None)
def kernels(game_name: str, base: tuple = ()):
    """The loops compiled for ``game_name`` whose learner reads the move of greedy with
    ``base`` (``(name, value)`` pairs) overriding its parameters (cached on disk like every
    bound copy; the parameter tables are globals frozen into the code, so each base is a
    copy of its own)."""
    from bots.registry import source_digest
    from simcore.games import load_game
    from simcore.protocol import bind_functions

    module = load_game(game_name)
    extra = {**greedy_globals(module), "NUM_ACTIONS": max(1, module.INFO.num_actions),
             "BASE_BOT_PARAMS": greedy_globals(module, dict(base))["GREEDY_BOT_PARAMS"],
             **Q_POLICY.globals(module)}
    # the key: the sources, the base and the rollout policy's key, hashed whole (a name cut
    # to its first 16 characters kept only the sources', and every base ran the first's copy)
    key = (source_digest((replay_examples, q_values, *ROLLOUT_FUNCTIONS, learner_game, score_legal.py_func))
           + repr(sorted(base)) + Q_POLICY.key(game_name))
    qualifier = "train_" + hashlib.sha256(key.encode()).hexdigest()[:16]
    return bind_functions(TEMPLATES, module, extra=extra, qualifier=qualifier, jit_options=JIT_OPTIONS)
