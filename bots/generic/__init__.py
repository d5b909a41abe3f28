"""Generic bots: written once against the game protocol, compiled per game with
``simcore.protocol.bind`` exactly like the engine.

A generic bot is one module here listed in ``GENERIC_MODULES`` that defines

    SPEC          a ``bots.registry.BotSpec`` (name, help, parameters, ``memory``: its
                  working memory for a game's INFO, a player count and parameter values)
    REQUIRES      the protocol functions it calls (a game lacking one does not offer it)
    TEMPLATES     the plain-Python functions to bind, callees first; the last one is the
                  entry point ``(bot_params, state, params, rng, seat, imem, fmem) -> action``
    JIT_OPTIONS   per-template ``njit`` options (e.g. ``_nrt=False``)
    bind_extra    (optional) ``game -> {name: value}``: more globals for its templates

The registry numbers the generic bots after the game's own bots; ``generic_policy_for``
chains their entry points into one dispatcher on the generic index (``kind -
GENERIC_BASE``), which the engine calls.
"""
from __future__ import annotations

import importlib
import types
from functools import lru_cache

from simcore.protocol import bind, missing_functions

GENERIC_MODULES = ("bots.generic.flatmc", "bots.generic.mcts")


def generic_modules() -> list[types.ModuleType]:
    return [importlib.import_module(m) for m in GENERIC_MODULES]


def available_modules(game: types.ModuleType) -> list[types.ModuleType | None]:
    """Per generic bot, its module, or None when ``game`` lacks a function it needs (the
    index keeps its place so kinds do not depend on what a game provides)."""
    return [m if not missing_functions(game, m.REQUIRES) else None for m in generic_modules()]


def generic_specs(game: types.ModuleType | None = None):
    """The generic bots' specs (those ``game`` can run, when given)."""
    if game is None:
        return [m.SPEC for m in generic_modules()]
    return [m.SPEC for m in available_modules(game) if m is not None]


@lru_cache(maxsize=None)
def generic_policy_for(game: types.ModuleType):
    """The compiled dispatcher over the generic bots for ``game``: a chain of links, link j
    calling generic bot j (or returning -1 when the game cannot run it)."""
    from . import dispatch

    rest = bind(dispatch, ("no_bot",), game)["no_bot"]
    for j, module in reversed(list(enumerate(available_modules(game)))):
        if module is None:
            continue
        # a bot may bind more than the protocol (``bind_extra(game)``: e.g. the game's own
        # policy for rollouts)
        extra = module.bind_extra(game) if hasattr(module, "bind_extra") else None
        entry = bind(module, module.TEMPLATES, game, extra=extra, qualifier=module.SPEC.name,
                     **module.JIT_OPTIONS)[module.TEMPLATES[-1]]
        rest = bind(dispatch, ("link",), game, extra={"bot": entry, "rest": rest, "INDEX": j},
                    qualifier=f"link{j}_{module.SPEC.name}")["link"]
    return rest
