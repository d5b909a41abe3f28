"""playlab's public API: what plugins, agents and scripts are written against.

    import playlab

    playlab.register_game(name, kernels_module, replay=…, report=…, rules=…)
    playlab.register_bot(playlab.BotSpec("my-bot", "what it does", params), policy, games=("moon",))
    playlab.set_bot_defaults("moon", "mcts", depth=8)
    playlab.read_results("results/stones-fpa")         # a study's games as one frame, verified
    playlab.check("moon", bots="my-bot")              # the conformance battery; a verdict
    playlab.RunConfig.build("moon", 3, "greedy", {}, seed=1)

Registration imports nothing heavy; the rest loads on first use.  The command line is
``playlab.cli``.  Signatures, the bot policy's arguments and a complete plugin: README,
"Bring your own bot".
"""
from __future__ import annotations

from bots.registry import ALL_GAMES, BotParam, BotSpec, register_alias, register_bot, set_bot_defaults
from simcore.games import register_game
from simcore.options import Option
from simcore.protocol import HIDDEN, GameInfo

__all__ = ["ALL_GAMES", "BotParam", "BotSpec", "GameInfo", "HIDDEN", "Option", "register_alias", "register_bot", "register_game",
           "set_bot_defaults", "read_results", "check", "RunConfig", "load_plugin"]

_LAZY = {
    "read_results": ("experiments.store", "read_results"),
    "check": ("runtime.check", "check"),
    "RunConfig": ("runtime.runner", "RunConfig"),
    "load_plugin": ("runtime.plugins", "load_plugin"),
    "Game": ("simcore.game", "Game"),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'playlab' has no attribute {name!r}")
