"""Bot catalogue per game and parsing of ``NAME:key=value:…`` bot specs."""
from __future__ import annotations

import importlib
import types
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from simcore.engine import RANDOM_BOT

# every bot's parameters travel to the kernels as one float64 row of this width
MAX_BOT_PARAMS = 8
# the engine calls the game's own random_action for this kind, never a policy
RANDOM_KIND = RANDOM_BOT


class BotError(ValueError):
    pass


@dataclass(frozen=True)
class BotParam:
    name: str
    default: float
    low: float
    high: float
    help: str
    integer: bool = False

    def parse(self, bot: str, raw: str) -> float:
        try:
            value = int(raw) if self.integer else float(raw)
        except ValueError:
            kind = "an integer" if self.integer else "a number"
            raise BotError(f"bot {bot}: parameter {self.name} takes {kind}, not {raw!r}") from None
        if not (self.low <= value <= self.high):
            raise BotError(f"bot {bot}: parameter {self.name} must be in {self.low:g}..{self.high:g}, not {raw}")
        return float(value)


@dataclass(frozen=True)
class BotSpec:
    name: str
    kind: int
    help: str
    params: tuple[BotParam, ...] = field(default_factory=tuple)


RANDOM = BotSpec("random", RANDOM_KIND, "uniformly random over the legal actions")


@dataclass(frozen=True)
class Bot:
    """A configured bot for one seat."""
    spec: BotSpec
    values: tuple[float, ...]

    @property
    def label(self) -> str:
        parts = [self.spec.name]
        for p, v in zip(self.spec.params, self.values):
            if v != p.default:
                parts.append(f"{p.name}={int(v) if p.integer else v:g}")
        return ":".join(parts)


def bot_module(game: types.ModuleType) -> types.ModuleType:
    """``bots/<game module name>.py``: its BOTS list, its ``policy`` kernel and, if the bots
    need more scratch than the game declares, ``SCRATCH_SIZE``."""
    return importlib.import_module("bots." + game.__name__.rsplit(".", 1)[-1])


def bots_for(game: types.ModuleType) -> list[BotSpec]:
    return list(bot_module(game).BOTS)


def parse_bot(game: types.ModuleType, text: str) -> Bot:
    text = text.strip()
    name, *pairs = text.split(":")
    specs = {b.name: b for b in bots_for(game)}
    if name not in specs:
        raise BotError(f"unknown bot {name!r} for {game.INFO.name} (bots: {', '.join(specs)})")
    spec = specs[name]
    values = {p.name: p.default for p in spec.params}
    by_name = {p.name: p for p in spec.params}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise BotError(f"bot {name}: malformed parameter {pair!r}, expected key=value")
        if key not in by_name:
            known = ", ".join(by_name) or "none"
            raise BotError(f"bot {name}: unknown parameter {key!r} (parameters: {known})")
        values[key] = by_name[key].parse(name, raw)
    return Bot(spec, tuple(values[p.name] for p in spec.params))


def parse_bots(game: types.ModuleType, text: str | Sequence[str], players: int) -> list[Bot]:
    """One spec per seat, comma separated; a single spec fills every seat."""
    items = [t for t in (text.split(",") if isinstance(text, str) else list(text))]
    if any(not t.strip() for t in items):
        raise BotError(f"empty bot spec in {text!r}")
    if len(items) == 1:
        items = items * players
    if len(items) != players:
        raise BotError(f"{len(items)} bot specs given for {players} players")
    return [parse_bot(game, t) for t in items]


def bot_arrays(bots: Sequence[Bot]) -> tuple[np.ndarray, np.ndarray]:
    kinds = np.array([b.spec.kind for b in bots], dtype=np.int64)
    params = np.zeros((len(bots), MAX_BOT_PARAMS), dtype=np.float64)
    for s, b in enumerate(bots):
        params[s, : len(b.values)] = b.values
    return kinds, params
