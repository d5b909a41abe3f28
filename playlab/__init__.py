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

import os as _os
import sys as _sys


def _stop_during_start_up(signum, frame):
    _os.write(2, b"error: interrupted during start-up; nothing was run, no games are stored\n")
    _os._exit(130)


# the `playlab` program: Ctrl-C or SIGTERM while its modules load is one line, not an import
# traceback (playlab.cli.main installs the real handlers as soon as it starts)
if _sys.argv and (_os.path.basename(_sys.argv[0]) == "playlab"
                  or _sys.argv[0].endswith(_os.path.join("playlab", "cli.py"))):
    import signal as _signal
    import threading as _threading

    if _threading.current_thread() is _threading.main_thread():
        _signal.signal(_signal.SIGINT, _stop_during_start_up)
        _signal.signal(_signal.SIGTERM, _stop_during_start_up)

from bots.registry import ALL_GAMES, BotParam, BotSpec, register_bot, set_bot_defaults
from simcore.games import register_game
from simcore.options import Option
from simcore.protocol import HIDDEN, GameInfo

__all__ = ["ALL_GAMES", "BotParam", "BotSpec", "GameInfo", "HIDDEN", "Option", "register_bot", "register_game",
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
