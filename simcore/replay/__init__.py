"""Independent pure-Python rules engines that replay traces.

They share no code with the Numba kernels on purpose: a trace written by the kernel and
replayed here to the same result is evidence that two separate implementations of the
rules agree.  ``replay(trace) -> result`` raises ``ReplayError`` on any illegal event.
"""
from __future__ import annotations

import importlib


class ReplayError(ValueError):
    pass


def replayer_for(game: str):
    module = {"moon": "moon", "shifting-stones": "shifting_stones",
              "sequence-stacks": "sequence_stacks"}.get(game)
    if module is None:
        raise ReplayError(f"no replayer for game {game!r}")
    return importlib.import_module(f"simcore.replay.{module}").replay


def replay(trace: dict) -> dict:
    return replayer_for(trace.get("game"))(trace)
