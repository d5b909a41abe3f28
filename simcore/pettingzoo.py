"""PettingZoo AEC environments for every playlab game (install the ``rl`` extra).

``env(game, players=N, render_mode=None, **options)`` plays one ``simcore.game.Game`` at a
time; ``options`` are the game's rule options (``playlab games GAME``), e.g.
``env("moon", target_score=7)``.

- Agents are ``player_0 … player_{N-1}``; ``player_s`` is seat ``s``.  The agent to act is
  the game's ``current_player`` (which may be a seat not on turn, e.g. a block offered out
  of turn, so an agent may act twice running).
- Observation of an agent: ``{"observation": the seat's observation vector (float64,
  ``INFO.observation_size(players)`` entries, built from what the seat may know; its
  layout is in the game module's header), "action_mask": int8 over ``INFO.num_actions``}``;
  the mask is the legal actions for the agent to act and all zeros for every other agent
  and once the game is over.  The observation space is an unbounded ``Box``: the games
  declare the layout, not the range, of their vectors (most entries are 0/1).
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

The three games are registered in PettingZoo's registry (PettingZoo 1.27 has one) as
``playlab/moon-v0``, ``playlab/shifting-stones-v0`` and ``playlab/sequence-stacks-v0``:
``pettingzoo.make("aec", "playlab/moon-v0", target_score=7)`` after importing this module.
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
from .games import load_game

__all__ = ["PlaylabEnv", "env", "raw_env", "GameError", "ENV_IDS"]

VERSION = 0


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class PlaylabEnv(AECEnv):
    """One playlab game as an AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "playlab", "is_parallelizable": False}

    def __init__(self, game: str, players: int | None = None, render_mode: str | None = None, **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
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
        n_obs = module.INFO.observation_size(self.players)
        n_act = module.INFO.num_actions
        self._observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (n_obs,), np.float64),
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
        if seed is not None:
            if int(seed) < 0:
                raise ValueError(f"seed must be >= 0, not {seed}")
            self.seed_value, self._next_index = int(seed), 0
        elif self.seed_value is None:
            self.seed_value = int(np.random.SeedSequence().entropy % (2 ** 63))
        index = self._next_index
        if options and "index" in options:
            index = int(options["index"])
        self._next_index = index + 1
        self.game = Game(self.game_name, self.players, self._options, self.seed_value, index)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = agent_name(self.game.current_player)

    @property
    def index(self) -> int:
        """The game index of the current episode in run ``seed_value``."""
        return self.game.index

    def observe(self, agent):
        seat = self._seat[agent]
        mask = np.zeros(self._num_actions, dtype=np.int8)
        if not self.game.is_over and seat == self.game.current_player:
            mask[self.game.legal_actions()] = 1
        return {"observation": self.game.observation(seat), "action_mask": mask}

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


def raw_env(game: str, players: int | None = None, render_mode: str | None = None, **options: Any) -> PlaylabEnv:
    return PlaylabEnv(game, players, render_mode, **options)


def env(game: str, players: int | None = None, render_mode: str | None = None, **options: Any):
    """The environment wrapped in PettingZoo's order enforcing wrapper (calls out of
    order, e.g. ``step`` before ``reset``, are refused with a clear message)."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, players, render_mode, **options))


ENV_IDS = {g: f"playlab/{g}-v{VERSION}" for g in ("moon", "shifting-stones", "sequence-stacks")}


def _register() -> None:
    try:
        from pettingzoo import register
        from pettingzoo.env_registry.registration import aec_registry
    except ImportError:  # PettingZoo before 1.27 has no registry
        return
    for game, env_id in ENV_IDS.items():
        if env_id not in aec_registry:
            register("aec", env_id, entry_point="simcore.pettingzoo:env", kwargs={"game": game})


_register()
