"""One game as a Python object, for environments (PettingZoo), terminal play and tests.

``Game(name, players, variant, seed, index)`` is game ``index`` of run ``seed``: fed the
choices the engine's bots made (``Batch.record``), it goes through exactly the engine's
states and ends on the engine's result row.  Every call runs the game's own kernels once
from Python (about a microsecond each); the checks live here, never in the compiled loop.
A refused call raises ``GameError`` (a ``ValueError``) and leaves the game unchanged.
"""
from __future__ import annotations

import copy
from typing import Any, Mapping

import numpy as np

from .engine import COL_DECISIONS, COL_INDEX, ROW_PREFIX
from .games import load_game
from .rng import CHANCE_STREAM, stream_key
from .trace import TRACE_VERSION, result_from_values


class GameError(ValueError):
    """An action, seat or call the game refuses (the state is unchanged)."""


class Game:
    def __init__(self, name: str, players: int | None = None, variant: Mapping[str, Any] | None = None,
                 seed: int = 0, index: int = 0):
        self.module = load_game(name)
        info = self.module.INFO
        if players is None:
            players = info.min_players if info.min_players == info.max_players else max(2, info.min_players)
        info.check_players(players)
        if seed < 0 or index < 0:
            raise GameError(f"seed and index must be >= 0, not {seed} and {index}")
        self.name = name
        self.players = players
        self.variant = info.resolve_variant(variant)
        self.seed = seed
        self.index = index
        self.params = info.make_params(self.variant)
        self.state = np.zeros(info.state_size(players), dtype=np.int64)
        self.module.init(self.state, self.params, players, stream_key(seed, index, CHANCE_STREAM))
        self.actions: list[int] = []
        self.log: list[str] = list(self.module.trace_start(self.state, self.params, players))
        self._legal = np.zeros(max(info.num_actions, 1), dtype=np.int64)

    @property
    def info(self):
        return self.module.INFO

    # ---- reading ------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return bool(self.module.is_terminal(self.state))

    @property
    def current_player(self) -> int:
        """The seat to decide, -1 once the game is over."""
        return int(self.module.current_player(self.state))

    def legal_actions(self) -> list[int]:
        if self.is_over:
            return []
        n = self.module.legal_actions(self.state, self.params, self._legal)
        return [int(a) for a in self._legal[:n]]

    def action_name(self, action: int) -> str:
        return self.module.action_name(int(action))

    def _check_seat(self, seat: int) -> int:
        if not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.players:
            raise GameError(f"no seat {seat!r}: seats are 0..{self.players - 1}")
        return int(seat)

    def view(self, seat: int) -> np.ndarray:
        """What ``seat`` may know (the game's ``observe``)."""
        seat = self._check_seat(seat)
        out = np.zeros_like(self.state)
        self.module.observe(self.state, seat, out)
        return out

    def observation(self, seat: int) -> np.ndarray:
        """The seat's fixed-length float64 encoding (the game's ``observation``)."""
        size = self.info.observation_size
        if size is None or getattr(self.module, "observation", None) is None:
            raise GameError(f"{self.name} has no observation encoding yet")
        view = self.view(seat)
        out = np.zeros(size(self.players), dtype=np.float64)
        self.module.observation(view, self.params, seat, out)
        return out

    def render(self, seat: int) -> str:
        if getattr(self.module, "render", None) is None:
            raise GameError(f"{self.name} cannot render a view yet")
        return self.module.render(self.view(seat), int(seat), self.params, self.players)

    def returns(self) -> np.ndarray:
        """Per seat: the win share at the end, 0 before (the game's ``returns``)."""
        if getattr(self.module, "returns", None) is None:
            raise GameError(f"{self.name} has no returns yet")
        out = np.zeros(self.players, dtype=np.float64)
        self.module.returns(self.state, self.params, self.players, out)
        return out

    def result_row(self) -> np.ndarray:
        """The engine's result row: index, decisions, then the game's columns."""
        if not self.is_over:
            raise GameError("the game is not over: no result yet")
        row = np.zeros(ROW_PREFIX + len(self.info.result_columns(self.players)), dtype=np.int64)
        row[COL_INDEX] = self.index
        row[COL_DECISIONS] = len(self.actions)
        self.module.summarize(self.state, self.params, self.players, row[ROW_PREFIX:])
        return row

    def result(self) -> dict[str, int]:
        """The result row by column name."""
        cols = ["index", "decisions"] + self.info.result_columns(self.players)
        return dict(zip(cols, (int(v) for v in self.result_row())))

    # ---- playing ------------------------------------------------------------------------
    def step(self, action: int) -> None:
        """Play ``action`` for the seat to move (refused unless legal)."""
        if self.is_over:
            raise GameError(f"the game is over ({len(self.actions)} actions played): no more actions")
        legal = self.legal_actions()
        # a bool is an int to Python, but True is no action id
        if (not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_))
                or int(action) not in legal):
            choices = ", ".join(f"{a} ({self.action_name(a)})" for a in legal)
            raise GameError(f"action {action!r} is not legal for seat {self.current_player} now; "
                            f"legal: {choices}")
        action = int(action)
        before = self.state.copy()
        self.module.apply(self.state, self.params, action)
        self.actions.append(action)
        self.log.extend(self.module.trace_step(before, action, self.state, self.params, self.players))

    def clone(self) -> "Game":
        twin = copy.copy(self)
        twin.state = self.state.copy()
        twin.actions = list(self.actions)
        twin.log = list(self.log)
        twin._legal = self._legal.copy()
        return twin

    def trace(self, bots: list[str] | None = None) -> dict[str, Any]:
        """The game so far as a trace record (shared/spec/trace.md); ``result`` once over."""
        out: dict[str, Any] = {"trace": TRACE_VERSION, "game": self.name, "players": self.players,
                               "seed": self.seed, "index": self.index, "variant": dict(self.variant),
                               "bots": list(bots or ["human"] * self.players), "log": list(self.log)}
        if self.is_over:
            out["result"] = result_from_values(self.module, self.players, self.result())
        return out
