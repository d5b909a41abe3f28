"""The games playlab simulates, by CLI name.  Modules load lazily: importing one game
never compiles or imports another."""
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


def game_names() -> list[str]:
    return list(GAME_MODULES)


def load_game(name: str) -> types.ModuleType:
    if name not in GAME_MODULES:
        raise UnknownGame(f"unknown game {name!r} (games: {', '.join(GAME_MODULES)})")
    try:
        return importlib.import_module(GAME_MODULES[name])
    except ModuleNotFoundError as exc:
        if exc.name == GAME_MODULES[name]:
            raise UnknownGame(f"game {name!r} is not implemented yet") from None
        raise


def available_games() -> list[str]:
    out = []
    for name in GAME_MODULES:
        try:
            load_game(name)
        except UnknownGame:
            continue
        out.append(name)
    return out
