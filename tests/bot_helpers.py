"""Helpers the bot tests share.

``policy_on`` calls a bot's compiled policy by hand, as the engine does but on any array:
the tests hand it the real state (with the hidden parts present, or scrambled) to show that
a bot reads only its seat's part even when it could read more.  ``cheap`` is a bot's spec
with a search budget small enough for the suite."""
from __future__ import annotations

import numpy as np

from bots.registry import alias_of, bot_arrays, bound_policy, parse_bots
from simcore.games import load_game


def policy_on(game: str, spec, state, params, seat: int, rng, imem, fmem) -> int:
    """The action of bot ``spec`` (a spec string for every seat, or parsed bots) for
    ``seat`` at ``state``, its legal actions computed from ``state``."""
    module = load_game(game)
    players = imem.shape[0]
    bots = parse_bots(module, spec, players) if isinstance(spec, str) else spec
    _, bp = bot_arrays(bots)
    legal = np.zeros(max(1, module.INFO.num_actions), np.int64)
    n = module.legal_actions(state, params, legal)
    policy = bound_policy(game, bots[seat].name)
    return int(policy(state, legal, n, bp, params, rng, int(seat), imem, fmem))


def cheap(game: str, name: str) -> str:
    """A bot spec that keeps the suite fast (search bots with few playouts; an alias gets
    its bot's)."""
    budget = {"flatmc": "playouts=1", "mcts": "iterations=8", "mcts-learned": "iterations=8",
              "pimc": "worlds=1", "planner": "budget=1"}.get(alias_of(game, name) or name)
    return f"{name}:{budget}" if budget else name
