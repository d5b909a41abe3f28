"""Per-game compiled kernels: the generic engine bound to one game and its bots."""
from __future__ import annotations

import types
from functools import lru_cache

from numba import njit

from . import engine
from .games import load_game
from .protocol import bind


@njit(cache=True)
def no_policy(kind, bot_params, state, params, rng, seat, imem, fmem):
    """The policy of a game without bots of its own (no kind reaches it)."""
    return -1


@lru_cache(maxsize=None)
def kernels_for(game_name: str) -> types.SimpleNamespace:
    game = load_game(game_name)
    # bots import simcore; import late
    from bots.generic import generic_policy_for
    from bots.registry import bot_module, generic_base

    module = bot_module(game)
    extra = {"policy": module.policy if module is not None else no_policy,
             "generic_policy": generic_policy_for(game),
             "GENERIC_BASE": generic_base(game)}
    bound = bind(engine, engine.TEMPLATES, game, extra=extra, **engine.JIT_OPTIONS)
    return types.SimpleNamespace(game=game, **bound)
