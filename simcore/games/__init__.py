"""The games playlab simulates, by CLI name.  Modules load lazily: importing one game
never compiles or imports another.

A game is one module implementing ``simcore.protocol``; it joins with one line,
``register(name, "package.module")`` (the built-in games are registered below; a game
kept elsewhere, e.g. in the tests, registers itself the same way before use).  Its bots
are ``bots/<module name>.py`` if that exists; every game also gets random and the
generic bots (``bots/generic``).
"""
from __future__ import annotations

import importlib
import types

GAME_MODULES = {
    "moon": "simcore.games.moon",
    "shifting-stones": "simcore.games.shifting_stones",
    "sequence-stacks": "simcore.games.sequence_stacks",
}


class UnknownGame(ValueError):
    pass


def register(name: str, module: str) -> None:
    """Make the game module ``module`` (a dotted import path) playable as ``name``.
    Registering the same pair again is a no-op; another module under a taken name is
    refused."""
    known = GAME_MODULES.get(name)
    if known is not None and known != module:
        raise ValueError(f"game {name!r} is already registered as {known}")
    GAME_MODULES[name] = module


def game_names() -> list[str]:
    return list(GAME_MODULES)


def load_game(name: str) -> types.ModuleType:
    if name not in GAME_MODULES:
        raise UnknownGame(f"unknown game {name!r} (games: {', '.join(GAME_MODULES)})")
    try:
        module = importlib.import_module(GAME_MODULES[name])
    except ModuleNotFoundError as exc:
        if exc.name == GAME_MODULES[name]:
            raise UnknownGame(f"game {name!r} is not implemented yet") from None
        raise
    if module.INFO.name != name:
        raise UnknownGame(f"module {GAME_MODULES[name]} declares game {module.INFO.name!r}, not {name!r}")
    return module


def available_games() -> list[str]:
    out = []
    for name in GAME_MODULES:
        try:
            load_game(name)
        except UnknownGame:
            continue
        out.append(name)
    return out
