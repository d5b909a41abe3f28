"""CPU seconds to compile chains of bots whose own kernels are already cached: what a new
combination of bots costs on its first use, and much of what a cold test suite spends
(README, *Cold start, reports and memory*).

    python tools/chain_compile.py            # the first run also compiles the bots themselves
    python tools/chain_compile.py --rounds 3

Each chain compiles in a fresh process (a process keeps what it compiled) after its cached
copy is deleted from the cache the runner uses (``NUMBA_CACHE_DIR``, else playlab's
default); the bots' own cached kernels are kept.  Prints one line per chain and their total
per round.
"""
from __future__ import annotations

import argparse
import subprocess
import sys

# (game, players, bots): chains of two or three bots over the three games, bots as cheap as
# their parameters allow (the parameters are read at run time: they do not change the compile)
CHAINS = (
    ("shifting-stones", 2, "flatmc:playouts=1,greedy"),
    ("shifting-stones", 2, "greedy,mcts:iterations=2"),
    ("shifting-stones", 2, "greedy,learned"),
    ("moon", 3, "greedy,mcts:iterations=2,flatmc:playouts=1"),
    ("sequence-stacks", 2, "greedy,mcts:iterations=2"),
    ("sequence-stacks", 2, "flatmc:playouts=1"),
)

# in a fresh process: forget this chain's cached copy (``forget``), then compile it and play one game
ONE = """
import glob, os, sys, time
import numba
from bots.registry import compiled_names
from runtime.kernels import chain_digest
from simcore.protocol import game_tag
from runtime.runner import Batch, RunConfig
from simcore.games import load_game
config = RunConfig.build(sys.argv[1], int(sys.argv[2]), sys.argv[3], {}, 1)
if sys.argv[4] == "forget":
    name = f"engine.{game_tag(load_game(config.game))}__bots_{chain_digest(config.game, compiled_names(config.bots))}__*"
    for path in glob.glob(os.path.join(glob.escape(numba.config.CACHE_DIR), "**", name), recursive=True):
        os.remove(path)
batch = Batch(config)
t = time.process_time()
batch.run(0, 1)
print(time.process_time() - t)
"""


def compile_seconds(game: str, players: int, bots: str, forget: bool = True) -> float:
    run = subprocess.run([sys.executable, "-c", ONE, game, str(players), bots, "forget" if forget else "keep"],
                         capture_output=True, text=True, check=True)
    return float(run.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    # each bot alone first (compiled once, then loaded), so that the timed chains find every
    # bot's own kernels cached
    for game, players, bots in CHAINS:
        for bot in bots.split(","):
            compile_seconds(game, players, bot, forget=False)
    for r in range(args.rounds):
        total = 0.0
        for game, players, bots in CHAINS:
            s = compile_seconds(game, players, bots)
            total += s
            print(f"{game} {bots}: {s:.1f} s", flush=True)
        print(f"round {r + 1}: {total:.1f} s of CPU over {len(CHAINS)} chains", flush=True)


if __name__ == "__main__":
    main()
