"""PettingZoo AEC environments for every playlab game (install the ``rl`` extra).

``env(game, players=N, render_mode=None, action_mask="observation", **options)`` plays one ``simcore.game.Game`` at a
time; ``options`` are the game's rule options (``playlab games GAME``), e.g.
``env("moon", target_score=7)``.

- Agents are ``player_0 … player_{N-1}``; ``player_s`` is seat ``s``.  The agent to act is
  the game's ``current_player`` (which may be a seat not on turn, e.g. a block offered out
  of turn, so an agent may act twice running).
- Observation of an agent (``action_mask="observation"``, the default, PettingZoo's classic
  convention): ``{"observation": the seat's observation vector, "action_mask": int8 over
  INFO.num_actions}``.  With ``action_mask="info"`` the observation is the vector alone
  (a ``Box``), which SuperSuit's observation wrappers (``dtype_v0``, ``normalize_obs_v0``,
  ``flatten_v0``, …: they transform a ``Box`` only) accept.  Either way every agent's
  ``infos[agent]["action_mask"]`` holds its mask too (PettingZoo's other place for it:
  ``api_test``, ``seed_test`` and ``TerminateIllegalWrapper`` read it there).
  The vector is ``float32``, ``INFO.observation_size(players)`` entries built from what
  the seat may know; its space is a ``Box`` bounded entry by entry by the game's
  observation layout (``OBS_LAYOUT``/``OBS``: each ``Field``'s ``low``/``high``, for the
  env's options and player count; ``simcore.layout.observation_bounds``), so
  ``normalize_obs_v0`` maps every entry into its range.  A game without a layout gets an
  unbounded ``Box``.  The mask is the legal actions for the agent to act and all zeros for
  every other agent and once the game is over.
- Actions are the game's action ids (``action_name`` gives them in words).  An illegal
  action raises ``simcore.game.GameError`` and leaves the game unchanged.
- Rewards come once, at the end: each agent gets its seat's ``returns``, the win share
  (1 shared equally among tied winners, 0 otherwise).  A game ended by its cap (e.g.
  Moon's ``hand_cap``, the round cap of the others) sets ``truncations`` instead of
  ``terminations`` and, like the protocol's ``returns``, gives every agent 1/players.
- Seeds: ``reset(seed=S)`` deals game index 0 of run ``S``, which is the game ``playlab play
  GAME --seed S`` plays first (the same deal and chance; the same result when fed the
  same choices).  Each ``reset()`` without a seed deals the run's next index (1, 2, …),
  so an agent trained over resets meets games 0, 1, 2 … of the run, as ``playlab play``
  does; ``reset(options={"index": I})`` picks game I.  Before any seed is given the run
  seed is drawn from the operating system.
- ``render_mode="ansi"``: ``render()`` returns the game's ``render`` of the acting seat's
  view (what that seat may see: hand, grid or piles, the trick, scores, chips).

Every registered game, plugin games included, is in PettingZoo's registry (PettingZoo 1.27
has one) as ``playlab/<game>-v0`` (``ENV_IDS``): ``pettingzoo.make("aec", "playlab/moon-v0",
target_score=7)`` after importing this module.  Games registered later (a plugin loaded
after this import) join with ``register_envs()``.

SuperSuit (``supersuit`` is in the ``rl`` extra)::

    import numpy as np, supersuit as ss
    e = env("moon", action_mask="info")
    e = ss.flatten_v0(ss.normalize_obs_v0(ss.dtype_v0(e, np.float32)))
    obs, reward, terminated, truncated, info = e.last()   # obs in [0, 1]^n, float32
    legal = info["action_mask"].nonzero()[0]
"""
from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("simcore.pettingzoo needs the rl extra: pip install 'playlab[rl]'") from exc

from .game import Game, GameError
from .games import game_names, load_game
from .layout import observation_bounds

RUN_NUMBER_END = 2 ** 63  # a run's seed and a game's index are 0 .. 2^63 - 1, as on the command line


def _run_number(value, what: str) -> int:
    """``value`` as a seed or game index: a whole number in 0 .. 2^63 - 1 (a float such as
    3.7 or a bool is refused, not rounded)."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{what} must be a whole number in 0..2^63-1, not {value!r}")
    if not 0 <= int(value) < RUN_NUMBER_END:
        raise ValueError(f"{what} must be in 0..2^63-1, not {value}")
    return int(value)

__all__ = ["PlaylabEnv", "env", "raw_env", "GameError", "ENV_IDS", "register_envs", "MASK_PLACES"]

VERSION = 0
# where an agent's legal actions go: inside a Dict observation (and infos), or infos only
MASK_PLACES = ("observation", "info")


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class PlaylabEnv(AECEnv):
    """One playlab game as an AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "playlab", "is_parallelizable": False}

    def __init__(self, game: str, players: int | None = None, render_mode: str | None = None,
                 action_mask: str = "observation", **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        if action_mask not in MASK_PLACES:
            raise ValueError(f"action_mask must be one of {', '.join(MASK_PLACES)}, not {action_mask!r}")
        module = load_game(game)
        if module.INFO.observation_size is None or getattr(module, "observation", None) is None:
            raise ValueError(f"{game} has no observation encoding: no environment")
        # a throw-away game checks players and options once, with the game's own messages
        probe = Game(game, players, options, 0, 0)
        self.game_name = game
        self.players = probe.players
        self.variant = dict(probe.variant)
        self._options = dict(options)  # as given: a resolved variant is not re-parsed
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"playlab_{game.replace('-', '_')}_v{VERSION}")
        self.possible_agents = [agent_name(s) for s in range(self.players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        n_act = module.INFO.num_actions
        self.action_mask_in = action_mask
        low, high = observation_bounds(module, self.players, self.variant)
        self.observation_low, self.observation_high = low, high
        if action_mask == "info":
            self._observation_spaces = {a: spaces.Box(low, high, dtype=np.float32) for a in self.possible_agents}
        else:
            self._observation_spaces = {
                a: spaces.Dict({
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
                }) for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(n_act) for a in self.possible_agents}
        self._num_actions = n_act
        self.seed_value: int | None = None
        self._next_index = 0
        self.game: Game | None = None

    # ---- spaces -------------------------------------------------------------------------
    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    # ---- episode ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # both checked before either is kept: a refused seed leaves the environment as it was
        given_seed = None if seed is None else _run_number(seed, "seed")
        given_index = _run_number(options["index"], "index") if options and "index" in options else None
        index = given_index if given_index is not None else 0 if given_seed is not None else self._next_index
        if index >= RUN_NUMBER_END:
            raise ValueError(f"run {self.seed_value} has no game after index 2^63-1; reset with a seed")
        if given_seed is not None:
            self.seed_value = given_seed
        elif self.seed_value is None:
            self.seed_value = int(np.random.SeedSequence().entropy % RUN_NUMBER_END)
        self._next_index = index + 1
        self.game = Game(self.game_name, self.players, self._options, self.seed_value, index)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.agent_selection = agent_name(self.game.current_player)
        self._set_infos()

    @property
    def index(self) -> int:
        """The game index of the current episode in run ``seed_value``."""
        return self.game.index

    def _mask(self, seat: int) -> np.ndarray:
        mask = np.zeros(self._num_actions, dtype=np.int8)
        if not self.game.is_over and seat == self.game.current_player:
            mask[self.game.legal_actions()] = 1
        return mask

    def _set_infos(self) -> None:
        # fresh dicts and arrays every step: a caller may keep what it was handed
        self.infos = {a: {"action_mask": self._mask(self._seat[a])} for a in self.agents}

    def observe(self, agent):
        seat = self._seat[agent]
        vector = self.game.observation(seat).astype(np.float32)
        if self.action_mask_in == "info":
            return vector
        return {"observation": vector, "action_mask": self._mask(seat)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.game.step(action)  # GameError (state unchanged) unless legal
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.game.is_over:
            shares = self.game.returns()
            truncated = bool(self.game.result()["truncated"])
            for a in self.agents:
                self.rewards[a] = float(shares[self._seat[a]])
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
            # every agent then steps None once, starting after the one that ended it
            self.agent_selection = agent_name((self._seat[agent] + 1) % self.players)
        else:
            self.agent_selection = agent_name(self.game.current_player)
        self._set_infos()
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        if self.game is None:
            return "(no game: call reset first)"
        seat = self._seat[self.agent_selection] if self.agent_selection in self._seat else 0
        text = self.game.render(seat)
        if self.game.is_over:
            r = self.game.result()
            scores = [r[f"score_{s}"] for s in range(self.players)]
            winners = [s for s in range(self.players) if r[f"win_{s}"]]
            text += (f"\ngame over: scores {scores}; "
                     + ("truncated" if r["truncated"] else f"winner(s) {winners}"))
        return text

    def close(self) -> None:
        pass


def raw_env(game: str, players: int | None = None, render_mode: str | None = None,
            action_mask: str = "observation", **options: Any) -> PlaylabEnv:
    return PlaylabEnv(game, players, render_mode, action_mask, **options)


def env(game: str, players: int | None = None, render_mode: str | None = None,
        action_mask: str = "observation", **options: Any):
    """The environment wrapped in PettingZoo's order enforcing wrapper (calls out of
    order, e.g. ``step`` before ``reset``, are refused with a clear message)."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, players, render_mode, action_mask, **options))


# game -> its id in PettingZoo's registry; every game registered so far (register_envs)
ENV_IDS: dict[str, str] = {}


def register_envs() -> dict[str, str]:
    """Register ``playlab/<game>-v0`` for every game registered with playlab and not yet
    in ``ENV_IDS`` (run at import; again after loading a plugin that adds a game).  The
    environment is built, and a game without an observation encoding refused, at
    ``make`` time.  Returns the ids added."""
    try:
        from pettingzoo import register
        from pettingzoo.env_registry.registration import aec_registry
    except ImportError:  # PettingZoo before 1.27 has no registry
        aec_registry, register = None, None
    added = {}
    for game in game_names():
        if game in ENV_IDS:
            continue
        env_id = f"playlab/{game}-v{VERSION}"
        if register is not None and env_id not in aec_registry:
            register("aec", env_id, entry_point="simcore.pettingzoo:env", kwargs={"game": game})
        ENV_IDS[game] = added[game] = env_id
    return added


register_envs()
