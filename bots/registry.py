"""Bot catalogue per game and parsing of ``NAME:key=value:…`` bot specs.

A game's catalogue is, in this order: ``random`` (kind 0, the engine's special case: the
game's own ``random_action``), the game's own bots (``BOTS`` of ``bots/<game module>.py``,
if that module exists), then the generic bots of ``bots/generic`` (written once, compiled
per game).  Kinds are positions in that catalogue, assigned here and nowhere else: a game
bot module learns its own kinds from ``own_kinds(BOTS)``, and the engine learns where the
generic bots start from ``generic_base(game)``.

A generic bot is written once, but its best settings differ per game (how deep a rollout
should run before the game's ``evaluate`` judges it, which decisions a heuristic makes
better than search).  A game bot module may set ``GENERIC_DEFAULTS = {bot name: {parameter:
value}}``; its catalogue then carries those defaults, so ``playlab bots GAME`` lists them and
a bot's label names only what differs from its game's defaults.

Every bot declares its working memory (``BotSpec.memory``: int64 and float64 slots for a
game, player count and parameter values).  The runner allocates it per chunk of games as
``(players, n)`` arrays, one row per seat, never shared between seats, and bots receive
the whole arrays plus their seat.
"""
from __future__ import annotations

import importlib
import types
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np

from simcore.engine import RANDOM_BOT

# every bot's parameters travel to the kernels as one float64 row of this width
MAX_BOT_PARAMS = 10
# the engine calls the game's own random_action for this kind, never a policy
RANDOM_KIND = RANDOM_BOT
# the game's own bots take the kinds right after random
FIRST_GAME_KIND = RANDOM_KIND + 1


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
    # names of the values low..high (a policy chosen by name, e.g. rollout=greedy); the
    # kernels still receive the value's index
    choices: tuple[str, ...] = ()

    def parse(self, bot: str, raw: str) -> float:
        if self.choices:
            if raw in self.choices:
                return float(self.choices.index(raw))
            if not raw.lstrip("-").isdigit() or not (0 <= int(raw) < len(self.choices)):
                raise BotError(f"bot {bot}: parameter {self.name} must be one of "
                               f"{', '.join(self.choices)}, not {raw!r}")
        try:
            value = int(raw) if self.integer else float(raw)
        except ValueError:
            kind = "an integer" if self.integer else "a number"
            raise BotError(f"bot {bot}: parameter {self.name} takes {kind}, not {raw!r}") from None
        if not (self.low <= value <= self.high):
            raise BotError(f"bot {bot}: parameter {self.name} must be in {self.low:g}..{self.high:g}, not {raw}")
        return float(value)


def no_memory(info, players, values) -> tuple[int, int]:
    return 0, 0


@dataclass(frozen=True)
class BotSpec:
    name: str
    help: str
    params: tuple[BotParam, ...] = field(default_factory=tuple)
    # (int64 slots, float64 slots) of working memory per seat:
    # memory(game INFO, players, parameter values in ``params`` order)
    memory: Callable[..., tuple[int, int]] = no_memory
    # assigned by the catalogue (``bots_for``); -1 on a declaration
    kind: int = -1


RANDOM = BotSpec("random", "uniformly random over the legal actions", kind=RANDOM_KIND)


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
                shown = p.choices[int(v)] if p.choices else f"{int(v) if p.integer else v:g}"
                parts.append(f"{p.name}={shown}")
        return ":".join(parts)

    def memory(self, info, players: int) -> tuple[int, int]:
        ints, floats = self.spec.memory(info, players, self.values)
        return int(ints), int(floats)


def own_kinds(specs: Sequence[BotSpec]) -> tuple[int, ...]:
    """The kinds of a game bot module's ``BOTS``, in order (the module's policy compiles
    them in as constants)."""
    return tuple(range(FIRST_GAME_KIND, FIRST_GAME_KIND + len(specs)))


def bot_module(game: types.ModuleType) -> types.ModuleType | None:
    """``bots/<game module name>.py`` (its ``BOTS`` and ``policy`` kernel), or None for a
    game with no bots of its own (it gets random and the generic bots)."""
    name = "bots." + game.__name__.rsplit(".", 1)[-1]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


def own_bots(game: types.ModuleType) -> list[BotSpec]:
    module = bot_module(game)
    if module is None:
        return []
    return [b for b in module.BOTS if b.name != RANDOM.name]


def generic_base(game: types.ModuleType) -> int:
    """The kind of the first generic bot for ``game``."""
    return FIRST_GAME_KIND + len(own_bots(game))


def with_defaults(spec: BotSpec, defaults: dict, where: str) -> BotSpec:
    """``spec`` with some parameters' defaults replaced (each checked against its range)."""
    by_name = {p.name: p for p in spec.params}
    unknown = sorted(set(defaults) - set(by_name))
    if unknown:
        raise BotError(f"{where}: {spec.name} has no parameter {', '.join(unknown)}")
    def raw(p, v):  # 8.0 for an integer parameter is 8; a choice may be given by name
        return str(int(v)) if p.integer and isinstance(v, float) and v.is_integer() else str(v)

    params = tuple(replace(p, default=p.parse(spec.name, raw(p, defaults[p.name])))
                   if p.name in defaults else p for p in spec.params)
    return replace(spec, params=params)


def bots_for(game: types.ModuleType) -> list[BotSpec]:
    """The game's catalogue with kinds assigned and the game's defaults for the generic
    bots (see the module docstring)."""
    from bots.generic import available_modules

    own = own_bots(game)
    out = [RANDOM]
    out += [replace(b, kind=k) for b, k in zip(own, own_kinds(own))]
    base = generic_base(game)
    module = bot_module(game)
    defaults = dict(getattr(module, "GENERIC_DEFAULTS", {}) if module is not None else {})
    generic = [(j, m.SPEC) for j, m in enumerate(available_modules(game)) if m is not None]
    unknown = sorted(set(defaults) - {spec.name for _, spec in generic})
    if unknown:
        raise BotError(f"{game.INFO.name}: GENERIC_DEFAULTS names no generic bot {', '.join(unknown)}")
    # a generic bot keeps its index when a game cannot run one before it
    out += [replace(with_defaults(spec, defaults.get(spec.name, {}), game.INFO.name), kind=base + j)
            for j, spec in generic]
    names = [b.name for b in out]
    if len(set(names)) != len(names):
        raise BotError(f"{game.INFO.name}: a game bot has the name of a generic bot ({names})")
    return out


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


def memory_arrays(bots: Sequence[Bot], info, players: int) -> tuple[int, int]:
    """Row lengths of the per-seat working memory: the most any seat's bot asks for (at
    least 1, so the arrays are never empty)."""
    ints = floats = 1
    for b in bots:
        i, f = b.memory(info, players)
        ints, floats = max(ints, i), max(floats, f)
    return ints, floats


def allocate_memory(bots: Sequence[Bot], info, players: int) -> tuple[np.ndarray, np.ndarray]:
    ints, floats = memory_arrays(bots, info, players)
    return np.zeros((players, ints), np.int64), np.zeros((players, floats), np.float64)
