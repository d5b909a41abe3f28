"""Gymnasium single-agent environments: one seat learns, playlab's bots play the others.

``make(game, players=None, opponents="random", seat=0, **options)`` (or
``gymnasium.make("playlab/<game>-vs-<bot>-v0", players=…, seat=…, **options)``) is one
seat of game ``game``; ``options`` are the game's rule options (``playlab games GAME``).

- **Opponents** are bot specs as in ``playlab play`` (``greedy``, ``mcts:iterations=200``,
  ``py:FILE:CLASS`` …): one spec for every other seat, or one per other seat in seat order
  (``players`` is then inferred).  Compiled bots decide through the engine's own compiled
  loop (``Batch.advance``: the engine's ``advance`` over the dispatch ``playlab play`` uses) with
  the engine's per-seat streams (seat s: ``stream_key(seed, index, bot_stream(s))``,
  advanced only by its own decisions) and their own memory rows; a Python agent is asked
  as in any run (``runtime.agents``).  So ``reset(seed=S)`` is game 0 of ``playlab play
  GAME --seed S`` (the engine's deal and chance), every bot move is the one the engine's
  bot makes there, and an agent that plays what the engine's bot for its seat would play
  ends on the engine's result row (``tests/test_gym_env.py`` holds it to ``Batch.record``).
- **Seeds** as in ``simcore.pettingzoo``: ``reset(seed=S)`` deals game index 0 of run S,
  each later ``reset()`` the run's next index, ``reset(options={"index": I})`` game I.
  Without any seed the run seed is drawn from ``self.np_random`` (itself seeded by
  Gymnasium from the operating system).
- **Observation**: the seat's observation vector (``float32``, ``INFO.observation_size``
  entries of what the seat may know) in a ``Box`` bounded by the game's observation
  layout (``simcore.layout.observation_bounds``).  ``action_mask="observation"`` makes it
  ``Dict({"observation": Box, "action_mask": int8 Box})`` instead.
- **Action masks**: ``info["action_mask"]`` (int8, 1 = legal) after every ``reset`` and
  ``step``, and ``action_masks()`` (bool; what sb3-contrib's ``MaskablePPO`` calls);
  ``gymnasium.spaces.Discrete.sample(mask=info["action_mask"])`` draws a legal action.
- **Illegal actions** (Gymnasium prescribes nothing; this is PettingZoo's
  ``TerminateIllegalWrapper`` convention): with ``illegal="terminate"`` (default) an action
  outside the mask ends the episode at once, ``terminated=True``, reward
  ``illegal_reward`` (default -1, below any game outcome), ``info["illegal_action"] =
  True``, the game left as it was.  ``illegal="raise"`` raises ``simcore.game.GameError``
  instead and leaves the game (and the episode) unchanged.
- **Reward**: 0 until the end, then the seat's win share (``returns``: 1 shared equally
  among tied winners, 0 otherwise).  A game ended by its cap (Moon's ``hand_cap``, the
  round cap of the others) sets ``truncated`` instead of ``terminated`` and is worth
  1/players, as in the protocol.
- ``render_mode="ansi"``: ``render()`` is the game's ``render`` of the seat's view.

Ids: ``playlab/<game>-vs-<bot>-v0`` for every registered game and each of its bots (default
parameters) in every other seat, registered at import (``ENV_IDS``); ``register_envs()``
adds those of a plugin loaded later.  ``make`` takes any mix of specs.
"""
from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("runtime.gym_env needs the rl extra: pip install 'playlab[rl]'") from exc

from bots.registry import AGENT_KIND, BotError, bots_for
from simcore.engine import COL_DECISIONS, COL_INDEX, ROW_PREFIX
from simcore.game import GameError
from simcore.games import game_names, load_game
from simcore.layout import observation_bounds
from .runner import Batch, KernelError, RunConfig, refused

__all__ = ["PlaylabGymEnv", "make", "register_envs", "ENV_IDS", "opponent_specs", "GameError"]

VERSION = 0
ILLEGAL_MODES = ("terminate", "raise")
MASK_PLACES = ("info", "observation")
SEED_LIMIT = 2 ** 63  # run seeds are int64 (stream_key)
# the learner's seat has a placeholder bot in the run configuration; the compiled loop
# hands that seat's decisions back (AGENT_KIND), so the placeholder never decides
PLACEHOLDER = "random"


def opponent_specs(opponents: str, players: int, seat: int) -> list[str]:
    """The spec of every seat, ``PLACEHOLDER`` at ``seat``: one spec fills every other
    seat, ``players - 1`` specs are the other seats in seat order."""
    items = [b.strip() for b in opponents.split(",")] if isinstance(opponents, str) else [str(b).strip() for b in opponents]
    if not items or any(not b for b in items):
        raise BotError(f"empty bot spec in {opponents!r}")
    if len(items) == 1:
        items = items * (players - 1)
    if len(items) != players - 1:
        raise BotError(f"{len(items)} opponent specs for the {players - 1} other seats "
                       "(give one for all, or one per other seat)")
    return items[:seat] + [PLACEHOLDER] + items[seat:]


class PlaylabGymEnv(gymnasium.Env):
    """One seat of a playlab game against the engine's bots (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str, players: int | None = None, opponents: str = "random", seat: int = 0,
                 render_mode: str | None = None, action_mask: str = "info", illegal: str = "terminate",
                 illegal_reward: float = -1.0, **options: Any):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        if action_mask not in MASK_PLACES:
            raise ValueError(f"action_mask must be one of {', '.join(MASK_PLACES)}, not {action_mask!r}")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL_MODES)}, not {illegal!r}")
        module = load_game(game)
        info = module.INFO
        if info.observation_size is None or getattr(module, "observation", None) is None:
            raise ValueError(f"{game} has no observation encoding: no environment")
        if players is None and isinstance(opponents, str) and "," in opponents:
            players = len(opponents.split(",")) + 1
        if players is None:
            players = info.min_players if info.min_players == info.max_players else max(2, info.min_players)
        info.check_players(players)
        if players < 2:
            raise ValueError(f"{game} with 1 player has no opponents: use simcore.pettingzoo.env")
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < players:
            raise ValueError(f"no seat {seat!r}: seats are 0..{players - 1}")
        self.game_name = game
        self.module = module
        self.players = int(players)
        self.seat = int(seat)
        self.config = RunConfig.build(game, self.players, opponent_specs(opponents, self.players, self.seat),
                                      options, 0)
        self.variant = dict(self.config.variant)
        self.opponents = [b for s, b in enumerate(self.config.bot_labels) if s != self.seat]
        self.batch = Batch(self.config)
        self.kinds = self.batch.kinds.copy()
        self.kinds[self.seat] = AGENT_KIND
        self.agents = None
        if self.config.has_agents:  # Python agents among the opponents: asked as in any run
            from .agents import seats_for

            self.agents = seats_for(self.config)
        self.render_mode = render_mode
        self.action_mask_in = action_mask
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.num_actions = info.num_actions
        low, high = observation_bounds(module, self.players, self.variant)
        box = spaces.Box(low, high, dtype=np.float32)
        if action_mask == "observation":
            self.observation_space = spaces.Dict({"observation": box,
                                                  "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8)})
        else:
            self.observation_space = box
        self.action_space = spaces.Discrete(self.num_actions)
        n = info.state_size(self.players)
        self.state = np.zeros(n, np.int64)
        self._view = np.zeros(n, np.int64)
        self._legal = np.zeros(max(1, self.num_actions), np.int64)
        self._obs64 = np.zeros(info.observation_size(self.players), np.float64)
        self._rng = np.zeros(self.players, np.int64)
        self.seed_value: int | None = None
        self.index = -1
        self._next_index = 0
        self.decisions = 0  # every seat's decisions so far in this game (the row's count)
        self._done = True
        self._started = False

    # ---- the game -----------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return bool(self.module.is_terminal(self.state))

    def legal_actions(self) -> list[int]:
        """The seat's legal actions now (empty once the game is over)."""
        if self.is_over or int(self.module.current_player(self.state)) != self.seat:
            return []
        n = int(self.module.legal_actions(self.state, self.batch.params, self._legal))
        return [int(a) for a in self._legal[:n]]

    def _mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def action_masks(self) -> np.ndarray:
        """The legal actions as a bool array (the method sb3-contrib's MaskablePPO calls)."""
        return self._mask().astype(bool)

    def _observation(self):
        self.module.observe(self.state, self.seat, self._view)
        self.module.observation(self._view, self.batch.params, self.seat, self._obs64)
        vector = self._obs64.astype(np.float32)
        if self.action_mask_in == "observation":
            return {"observation": vector, "action_mask": self._mask()}
        return vector

    def _info(self, **extra) -> dict:
        return {"action_mask": self._mask(), "seed": self.seed_value, "index": self.index, **extra}

    def _play_others(self) -> None:
        """The other seats' decisions until the learner's seat must decide or the game ends."""
        b = self.batch
        module = self.module
        limit = b.max_decisions
        while True:
            taken = b.advance(self.state, self._rng, self._imem, self._fmem, self._view, self._legal,
                              limit - self.decisions, kinds=self.kinds)
            if taken < 0:  # engine.REFUSED: the opponent's bot to move chose a move that is not legal
                p = int(module.current_player(self.state))
                raise refused(self.config, p, self.index)
            self.decisions += taken
            if module.is_terminal(self.state):
                return
            p = int(module.current_player(self.state))
            if p == self.seat:
                return
            if self.decisions >= limit:
                raise KernelError(f"game {self.index} exceeded the game's maximum length ({limit} decisions)")
            from .agents import ask_agent  # a Python agent's seat (the loop stops only there)

            a = ask_agent(self.agents, self.state, b.params, p, self.index, self._streams[p], self._view,
                          self._legal)
            module.apply(self.state, b.params, a)
            self.decisions += 1

    # ---- Gymnasium API ------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                                 or not 0 <= int(seed) < SEED_LIMIT):
            raise ValueError(f"seed must be an integer in 0..2^63-1, not {seed!r}")
        super().reset(seed=None if seed is None else int(seed))
        if seed is not None:
            self.seed_value, self._next_index = int(seed), 0
        elif self.seed_value is None:
            self.seed_value = int(self.np_random.integers(SEED_LIMIT))
        index = self._next_index
        if options and "index" in options:
            index = int(options["index"])
            if index < 0:
                raise ValueError(f"index must be >= 0, not {index}")
        self._next_index = index + 1
        self.index = index
        b = self.batch
        self.state[:] = 0
        b.kernels.start_game(self.state, b.params, self.players, self.seed_value, index, self._rng)
        self._imem, self._fmem = b.memory()
        self.decisions = 0
        if self.agents is not None:
            from .agents import agent_stream

            self._streams = {s: agent_stream(self.seed_value, index, s) for s in self.agents.agents}
            self.agents.start(index)
        self._play_others()
        # the bots may end a game before the seat is asked (no built-in game can): the
        # episode then ends at the first step, whatever the action, with the seat's share
        self._done = False
        self._started = True
        return self._observation(), self._info()

    def step(self, action):
        if not self._started:
            raise GameError("call reset() before step()")
        if self._done:
            raise GameError("the episode is over: call reset() for the next game")
        if not self.is_over:
            legal = self.legal_actions()
            ok = (isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
                  and int(action) in legal)
            if not ok:
                if self.illegal == "raise":
                    names = ", ".join(f"{a} ({self.module.action_name(a)})" for a in legal)
                    raise GameError(f"action {action!r} is not legal for seat {self.seat} now; legal: {names}")
                self._done = True
                return self._observation(), self.illegal_reward, True, False, self._info(illegal_action=True)
            self.module.apply(self.state, self.batch.params, int(action))
            self.decisions += 1
            self._play_others()
        if not self.is_over:
            return self._observation(), 0.0, False, False, self._info()
        self._done = True
        row = self.result_row()
        truncated = bool(row[ROW_PREFIX + 2 * self.players])
        returns = np.zeros(self.players, np.float64)
        self.module.returns(self.state, self.batch.params, self.players, returns)
        if self.agents is not None:
            self.agents.finish(self.index, returns)
        return self._observation(), float(returns[self.seat]), not truncated, truncated, self._info()

    def result_row(self) -> np.ndarray:
        """The engine's result row of the finished game (index, decisions, the game's
        columns), as ``Batch.record`` gives it."""
        if not self.is_over:
            raise GameError("the game is not over: no result yet")
        row = np.zeros(ROW_PREFIX + len(self.config.info.result_columns(self.players)), np.int64)
        row[COL_INDEX] = self.index
        row[COL_DECISIONS] = self.decisions
        self.module.summarize(self.state, self.batch.params, self.players, row[ROW_PREFIX:])
        return row

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        if not self._started:
            return "(no game: call reset first)"
        self.module.observe(self.state, self.seat, self._view)
        return self.module.render(self._view.copy(), self.seat, self.batch.params, self.players)


def make(game: str, players: int | None = None, opponents: str = "random", seat: int = 0,
         **kwargs: Any) -> PlaylabGymEnv:
    """``PlaylabGymEnv(game, players, opponents, seat, **kwargs)``: keyword arguments are
    ``render_mode``, ``action_mask``, ``illegal``, ``illegal_reward`` and the game's rule
    options."""
    return PlaylabGymEnv(game, players, opponents, seat, **kwargs)


# (game, bot) -> its id in Gymnasium's registry (register_envs)
ENV_IDS: dict[tuple[str, str], str] = {}


def register_envs() -> dict[tuple[str, str], str]:
    """Register ``playlab/<game>-vs-<bot>-v0`` for every registered game with an
    observation encoding and each of its bots, unless registered already (run at
    import; again after loading a plugin).  Returns the ids added."""
    added = {}
    for game in game_names():
        try:
            module = load_game(game)
        except Exception:  # a game that cannot load is refused by make, with its reason
            continue
        if module.INFO.observation_size is None or getattr(module, "observation", None) is None:
            continue
        for spec in bots_for(module):
            key = (game, spec.name)
            if key in ENV_IDS:
                continue
            env_id = f"playlab/{game}-vs-{spec.name}-v{VERSION}"
            if env_id not in gymnasium.registry:
                gymnasium.register(env_id, entry_point="runtime.gym_env:make",
                                   kwargs={"game": game, "opponents": spec.name})
            ENV_IDS[key] = added[key] = env_id
    return added


register_envs()


def measure(game: str, players: int | None = None, opponents: str = "random", seat: int = 0,
            steps: int = 20000, seed: int = 0, **options: Any) -> dict[str, float]:
    """Environment steps per second of a seat that always plays its lowest legal action
    (read from ``info["action_mask"]``), resets included: the environment's own cost, the
    opponents' decisions and the observation, with next to no policy."""
    import time

    e = make(game, players, opponents, seat, **options)
    obs, info = e.reset(seed=seed)
    e.step(int(np.flatnonzero(info["action_mask"])[0]))  # compiles (or loads) the kernels first
    obs, info = e.reset(seed=seed)
    episodes = 0
    start = time.perf_counter()
    for _ in range(steps):
        obs, reward, terminated, truncated, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            episodes += 1
            obs, info = e.reset()
    seconds = time.perf_counter() - start
    return {"steps": steps, "episodes": episodes, "seconds": seconds, "steps_per_s": steps / seconds}


if __name__ == "__main__":  # python -m runtime.gym_env GAME PLAYERS OPPONENTS [STEPS] [--plugin FILE]
    import sys

    argv = sys.argv[1:]
    while "--plugin" in argv:
        k = argv.index("--plugin")
        from .plugins import load_plugin

        load_plugin(argv[k + 1])
        del argv[k:k + 2]
        register_envs()
    game, players, opponents = argv[0], int(argv[1]), argv[2]
    r = measure(game, players, opponents, steps=int(argv[3]) if len(argv) > 3 else 20000)
    print(f"{game} {players}p vs {opponents}: {r['steps_per_s']:.0f} steps/s "
          f"({r['steps']} steps, {r['episodes']} episodes, {r['seconds']:.2f} s)")

