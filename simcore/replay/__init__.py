"""Independent pure-Python rules engines that replay traces.

They share no code with the Numba kernels on purpose: a trace written by the kernel and
replayed here to the same result is evidence that two separate implementations of the
rules agree.  ``replay(trace) -> result`` raises ``ReplayError`` on any illegal event.
"""
from __future__ import annotations


class ReplayError(ValueError):
    pass


def replayer_for(game: str):
    """The game's replay engine, from its registration entry (``register_game(…, replay=)``)."""
    from simcore.games import UnknownGame, entry

    try:
        fn = entry(game).resolve("replay")
    except UnknownGame:
        fn = None
    if fn is None:
        raise ReplayError(f"no replayer for game {game!r}")
    return fn


def replay(trace: dict) -> dict:
    return replayer_for(trace.get("game"))(trace)
