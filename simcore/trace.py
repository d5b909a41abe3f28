"""Game records ("traces", format version 1 of shared/spec/trace.md).

A trace is built from a game's action sequence: the runner records the actions the bots
chose (``Batch.record``), then the game is stepped again here from Python through the
same compiled ``init``/``apply`` and each step is described by the game's
``trace_start``/``trace_step``.  Chance is resolved inside ``apply`` from the in-state
stream, so the re-stepped game is the recorded game.
"""
from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from .rng import CHANCE_STREAM, stream_key

TRACE_VERSION = 1


class TraceError(ValueError):
    pass


def _token(text: str):
    return int(text) if text.lstrip("-").isdigit() else text


def parse_event(event_fields: dict[str, tuple[str, ...]], event: str) -> dict[str, Any]:
    """One log event as a dict, by a game's ``EVENT_FIELDS`` (event kind → names of the
    tokens after it): ``"play 0 6-4"`` → ``{"event": "play", "seat": 0, "tile": "6-4"}``.
    A name ending in ``*`` (last only) takes the remaining tokens as a list; a name
    ``=word`` is a literal token, checked and dropped (``hand K first S``).  Integer tokens
    become ints.  An event that does not fit raises TraceError."""
    kind, *tokens = event.split(" ")
    fields = event_fields.get(kind)
    if fields is None:
        raise TraceError(f"unknown event kind {kind!r} in {event!r}")
    out: dict[str, Any] = {"event": kind}
    i = 0
    for j, name in enumerate(fields):
        if name.endswith("*"):
            if j != len(fields) - 1:
                raise TraceError(f"{kind}: a list field must come last")
            out[name[:-1]] = [_token(t) for t in tokens[i:]]
            i = len(tokens)
            break
        if i >= len(tokens):
            raise TraceError(f"{event!r}: missing {name}")
        if name.startswith("="):
            if tokens[i] != name[1:]:
                raise TraceError(f"{event!r}: expected {name[1:]!r}, got {tokens[i]!r}")
        else:
            out[name] = _token(tokens[i])
        i += 1
    if i != len(tokens):
        raise TraceError(f"{event!r}: {len(tokens) - i} token(s) too many")
    return out


def game_log(batch, index: int, actions: np.ndarray) -> list[str]:
    config = batch.config
    game = config.module
    params = batch.params
    state = np.zeros(batch.state_size, dtype=np.int64)
    game.init(state, params, config.players, stream_key(config.seed, index, CHANCE_STREAM))
    log = list(game.trace_start(state, params, config.players))
    for action in actions:
        before = state.copy()
        game.apply(state, params, int(action))
        log.extend(game.trace_step(before, int(action), state, params, config.players))
    if not game.is_terminal(state):
        raise TraceError(f"game {index}: recorded actions end before the game does")
    return log


def result_of(config, row: np.ndarray) -> dict[str, Any]:
    values = dict(zip(config.columns(), (int(v) for v in row)))
    return result_from_values(config.module, config.players, values)


def result_from_values(game, players: int, values: dict[str, int]) -> dict[str, Any]:
    """A trace's ``result`` from a result row by column name."""
    n = players
    result: dict[str, Any] = {
        "scores": [values[f"score_{s}"] for s in range(n)],
        "winners": [s for s in range(n) if values[f"win_{s}"]],
        "truncated": bool(values["truncated"]),
    }
    extra = getattr(game, "trace_result", None)
    if extra is not None:
        result.update(extra(values, n))
    return result


def build_trace(batch, index: int) -> dict[str, Any]:
    config = batch.config
    actions, row = batch.record(index)
    return {
        "trace": TRACE_VERSION,
        "game": config.game,
        "players": config.players,
        "seed": config.seed,
        "index": int(index),
        "variant": dict(config.variant),
        "bots": config.bot_labels,
        "log": game_log(batch, index, actions),
        "result": result_of(config, row),
    }


def _open(path: str | Path, mode: str):
    path = str(path)
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, mode + "b"), encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def write_traces(path: str | Path, traces: Iterable[dict[str, Any]]) -> int:
    n = 0
    with _open(path, "w") as fh:
        for t in traces:
            fh.write(json.dumps(t, separators=(", ", ": ")) + "\n")
            n += 1
    return n


def read_traces(path: str | Path) -> Iterator[dict[str, Any]]:
    try:
        with _open(path, "r") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    t = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise TraceError(f"{path}:{lineno}: not a JSON trace ({exc.msg})") from None
                if not isinstance(t, dict) or t.get("trace") != TRACE_VERSION:
                    raise TraceError(f"{path}:{lineno}: not a version-{TRACE_VERSION} trace")
                yield t
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise TraceError(f"cannot read traces from {path}: {exc}") from None
