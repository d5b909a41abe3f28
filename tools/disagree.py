"""Where one bot departs from another: at every decision of one seat, what a second bot
would have played there, tallied by the kind of move (an action name's first word:
``play``, ``discard``, ``shift``, ``bid`` …).

    python tools/disagree.py sequence-stacks --bots mcts:iterations=10000,greedy --seat 0 \\
        --ask greedy --games 20 --seed 5

The games are games ``0 .. games-1`` of run ``seed`` exactly as ``playlab play GAME --bots
BOTS --games N --seed S`` plays them (same deals, same play: the asked bot draws from a
copy of the seat's stream and has working memory of its own, so asking changes nothing).
The asked bot sees what the seat sees, as the playing bot does.  Used to find what a
search does differently from the heuristic it rolls out with (docs/expert-play.md).
Rates carry 95% Wilson intervals; ``--show K`` prints the first K disagreements in words.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def kind(name: str) -> str:
    """The kind of a move: the first word of its name."""
    return name.split(" ", 1)[0]


def disagreements(game: str, bots: str, ask: str, seat: int = 0, games: int = 10, seed: int = 0,
                  players: int | None = None, show: int = 0):
    """(table, pairs, shown): per kind of the asked bot's move, the seat's decisions and how
    many its bot played differently (a frame with 95% Wilson intervals); Counter of (asked
    kind, played kind) over the disagreements; the first ``show`` of them in words."""
    from experiments import tables
    from runtime.runner import Batch, RunConfig

    specs = [b.strip() for b in bots.split(",")]
    # as playlab play: one seat per spec unless told, a single spec then serving every seat
    config = RunConfig.build(game, players or len(specs), bots, {}, seed)
    n = config.players
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be in 0..{n - 1}")
    specs = specs if len(specs) == n else specs * n
    # the asked bot in the seat, the run's bots elsewhere
    asked = Batch(RunConfig.build(game, n, ",".join(ask if s == seat else specs[s] for s in range(n)), {}, seed))
    batch = Batch(config)
    module = config.module
    params = batch.params
    total, differ, pairs, shown = Counter(), Counter(), Counter(), []
    for i in range(games):
        state = np.zeros(batch.state_size, np.int64)
        rng = np.zeros(n, np.int64)
        imem, fmem = batch.memory()
        aimem, afmem = asked.memory()
        batch.kernels.start_game(state, params, n, seed, i, rng)  # the engine's deal and streams of game i
        while not module.is_terminal(state):
            p = int(module.current_player(state))
            if p == seat:
                other = asked.bot_action(state, p, rng.copy(), aimem, afmem)
            a = batch.bot_action(state, p, rng, imem, fmem)
            if p == seat:
                played, wanted = module.action_name(a), module.action_name(other)
                total[kind(wanted)] += 1
                if a != other:
                    differ[kind(wanted)] += 1
                    pairs[(kind(wanted), kind(played))] += 1
                    if len(shown) < show:
                        shown.append(f"game {i}: {ask} {wanted} | played {played}")
            module.apply(state, params, a)
    kinds = sorted(total, key=lambda k: -total[k])
    table = pd.DataFrame({"kind": kinds, "decisions": [total[k] for k in kinds],
                          "differ": [differ[k] for k in kinds]})
    table["rate"], table["ci_low"], table["ci_high"] = tables.wilson(table["differ"], table["decisions"])
    return table, pairs, shown


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--bots", required=True, help="one spec per seat, as playlab play's")
    ap.add_argument("--ask", required=True, help="the bot asked at each of the seat's decisions")
    ap.add_argument("--seat", type=int, default=0)
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=0, help="print the first K disagreements")
    args = ap.parse_args(argv)
    from bots.registry import BotError

    try:
        table, pairs, shown = disagreements(args.game, args.bots, args.ask, args.seat, args.games,
                                            args.seed, args.players, args.show)
    except (BotError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for line in shown:
        print(line)
    print(f"seat {args.seat} ({args.bots.split(',')[args.seat]}) against {args.ask}, "
          f"{args.games} games of seed {args.seed}; kind of {args.ask}'s move:")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"disagreements by ({args.ask}'s kind, played kind):")
    for (w, p), c in pairs.most_common():
        print(f"  {c:6d}  {w} -> {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
