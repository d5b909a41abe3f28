"""Per-game compiled kernels: the generic engine bound to one game and its bots."""
from __future__ import annotations

import types
from functools import lru_cache

from . import engine
from .games import load_game
from .protocol import bind


@lru_cache(maxsize=None)
def kernels_for(game_name: str) -> types.SimpleNamespace:
    game = load_game(game_name)
    from bots.registry import bot_module  # bots import simcore; import late

    policy = bot_module(game).policy
    bound = bind(engine, engine.TEMPLATES, game, extra={"policy": policy},
                 **engine.JIT_OPTIONS)
    return types.SimpleNamespace(game=game, **bound)
