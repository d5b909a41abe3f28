"""`playlab show`: one game, step by step, in the game's own words.

The game is recorded by the engine (the bots' choices), then stepped again from Python
through the same kernels; each step gives the trace events of ``trace_step`` and the
game's ``describe_step`` lines (what changed, e.g. the grid after a move).  ``--json``
gives the same steps as structured events: each log token named by the game's
``EVENT_FIELDS``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from simcore.rng import CHANCE_STREAM, stream_key
from simcore.trace import TRACE_VERSION, TraceError, parse_event, result_of


def narrate(batch, index: int, view_seat: int | None = None) -> dict[str, Any]:
    """Game ``index`` of the batch's run as steps: each with the deciding seat, the action
    in words, its trace events (text and structured) and the lines saying what changed.
    With ``view_seat``, each of that seat's decisions carries its rendered view first."""
    config = batch.config
    game = config.module
    params = batch.params
    n = config.players
    actions, row = batch.record(index)
    state = np.zeros(batch.state_size, dtype=np.int64)
    game.init(state, params, n, stream_key(config.seed, index, CHANCE_STREAM))
    view = np.empty_like(state)
    start_log = list(game.trace_start(state, params, n))
    steps = []
    for k, action in enumerate(actions):
        action = int(action)
        seat = int(game.current_player(state))
        step: dict[str, Any] = {"decision": k, "seat": seat, "action": int(action),
                                "move": game.action_name(action)}
        if view_seat is not None and seat == view_seat:
            game.observe(state, seat, view)
            step["view"] = game.render(view, seat, params, n)
        before = state.copy()
        game.apply(state, params, action)
        log = list(game.trace_step(before, action, state, params, n))
        step["log"] = log
        step["events"] = [parse_event(game.EVENT_FIELDS, e) for e in log]
        describe = getattr(game, "describe_step", None)  # optional: a game may only log events
        step["changes"] = list(describe(before, action, state, params, n)) if describe else []
        steps.append(step)
    if not game.is_terminal(state):
        raise TraceError(f"game {index}: recorded actions end before the game does")
    return {
        "trace": TRACE_VERSION,
        "game": config.game,
        "players": n,
        "seed": config.seed,
        "index": int(index),
        "variant": dict(config.variant),
        "bots": config.bot_labels,
        "start": {"log": start_log, "events": [parse_event(game.EVENT_FIELDS, e) for e in start_log]},
        "steps": steps,
        "result": result_of(config, row),
    }


def format_narration(config, story: dict[str, Any]) -> str:
    module = config.module
    info = config.info
    lines = [f"{info.title}: seed {story['seed']}, game {story['index']}, {config.players} "
             f"player{'s' if config.players != 1 else ''}"]
    lines.append("bots: " + ", ".join(f"{s}={b}" for s, b in enumerate(story["bots"])))
    changed = {k: v for k, v in config.variant.items()
               if v != next(o.default for o in info.options if o.name == k)}
    from simcore.options import format_value

    lines.append("variant: " + (", ".join(f"{k}={format_value(v)}" for k, v in changed.items())
                                if changed else "rules as written (all defaults)"))
    sections = getattr(module, "SECTION_EVENTS", ())

    def emit(event: str) -> None:
        flush = event.split(" ", 1)[0] in sections
        lines.append(("" if flush else "  ") + event)

    for event in story["start"]["log"]:
        emit(event)
    for step in story["steps"]:
        if "view" in step:
            lines.append(f"  -- seat {step['seat']} to decide, as it sees the game:")
            lines += ["     " + l for l in step["view"].splitlines()]
            lines.append(f"     chooses: {step['move']}")
        # the words follow the step's first event, the move itself, so that what the move
        # completed (a trick, a turn) is told after the move, not after that event's line
        events = step["log"]
        for event in events[:1]:
            emit(event)
        lines += ["      " + l for l in step["changes"]]
        for event in events[1:]:
            emit(event)
    r = story["result"]
    if r["truncated"]:
        cap = info.truncation_option
        verdict = f"truncated by {cap}={config.variant[cap]} (no result)" if cap else "truncated (no result)"
    elif r["winners"]:
        verdict = "winner" + ("s " if len(r["winners"]) > 1 else " ") + ", ".join(map(str, r["winners"]))
    else:
        verdict = "no winner"
    lines.append(f"result: scores {r['scores']}; {verdict}")
    return "\n".join(lines)


