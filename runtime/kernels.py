"""Per-game compiled kernels: the generic engine bound to one game and its bots."""
from __future__ import annotations

import glob
import os
import sys
import types
from functools import lru_cache

from simcore import engine
from simcore.games import load_game
from simcore.protocol import bind, game_tag, no_policy


def cache_is_cold(game: types.ModuleType) -> bool:
    """No compiled engine for ``game`` in Numba's on-disk cache yet (its index files are
    named after the bound copy's qualified name, which carries ``game_tag``)."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        return False  # the cache lives beside the sources: nothing cheap to look at
    pattern = os.path.join(glob.escape(base), "**", f"engine.{glob.escape(game_tag(game))}__run_batch-*.nbi")
    return not glob.glob(pattern, recursive=True)


@lru_cache(maxsize=None)
def kernels_for(game_name: str) -> types.SimpleNamespace:
    game = load_game(game_name)
    if cache_is_cold(game):
        # the first use compiles for 20-30 s in silence otherwise
        print(f"compiling the {game_name} kernels (first use only, about 30 s; later runs load them "
              "from the cache)", file=sys.stderr, flush=True)
    # bots import simcore; import late
    from bots.generic import generic_policy_for
    from bots.registry import bot_module, generic_base

    module = bot_module(game)
    extra = {"policy": module.policy if module is not None else no_policy,
             "generic_policy": generic_policy_for(game),
             "GENERIC_BASE": generic_base(game)}
    bound = bind(engine, engine.TEMPLATES, game, extra=extra, **engine.JIT_OPTIONS)
    return types.SimpleNamespace(game=game, **bound)
