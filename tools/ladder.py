"""Measure a game's skill ladder and write it where `playlab bots` and `--ladder` read it.

    python tools/ladder.py GAME [--games N] [--seed S] [--bots A,B,…] [--out DIR]

One `playlab tournament` of the game's bots (2 players; Moon 3, rotated through the seats),
then `playlab bench` of each bot against greedy on one thread for its speed.  The ratings
with their 95% bootstrap intervals, the games and the speed are written to
``bots/ladders/<game>.csv`` with the commands that produced them, and the tournament's
skill-against-chance table (experiments/skill_chance.py) to ``bots/ladders/<game>-chance.csv``; the skill level of each
bot (novice / intermediate / strong, against the game's greedy) is derived from them by
``bots.ladder`` when read, so the rule lives in one place.

Sample sizes are fixed here in advance (the defaults below), not chosen by watching.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# the bots of each built-in game's ladder (aliases left out: `expert` is another name of one
# of these; `learned` only where a trained model is shipped, elsewhere it plays as greedy)
LADDERS = {
    "moon": ("random", "greedy", "learned", "mcts", "pimc"),
    "shifting-stones": ("random", "greedy", "learned", "flatmc", "mcts", "mcts-learned"),
    "sequence-stacks": ("random", "greedy", "learned", "flatmc", "mcts"),
}
PLAYERS = {"moon": 3}
GAMES = {"moon": 40, "shifting-stones": 30, "sequence-stacks": 30}


def playlab(*args: str) -> dict:
    exe = os.path.join(os.path.dirname(sys.executable), "playlab")
    out = subprocess.run([exe, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1] if not out.lstrip().startswith("[") else out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--bots", default=None, help="comma list (default: the game's ladder above)")
    ap.add_argument("--games", type=int, default=None, help="games per seating")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--bench-games", type=int, default=40, help="games of each bot against greedy for its speed")
    ap.add_argument("--reuse-speed", action="store_true", help="keep the games/s of the ladder file already written")
    ap.add_argument("--out", default=None, help="results folder of the tournament (kept for the report)")
    a = ap.parse_args(argv)
    from bots.ladder import LADDER_COLUMNS, chance_path, ladder_path

    bots = tuple(a.bots.split(",")) if a.bots else LADDERS[a.game]
    players = PLAYERS.get(a.game, 2)
    games = a.games or GAMES.get(a.game, 30)
    targs = ["tournament", a.game, "--bots", ",".join(bots), "--players", str(players), "--games", str(games),
             "--seed", str(a.seed)]
    if players > 2 and len(bots) > players:
        targs += ["--mode", "rotate"]  # every ordered choice of 3 of 4+ bots would be 24+ seatings
    if a.out:
        targs += ["--out", a.out]
    print("playlab " + " ".join(targs), flush=True)
    tables = playlab(*targs)["tables"]
    ratings = tables["ratings"]
    speed = {}
    if a.reuse_speed:
        import pandas as pd

        speed = dict(pd.read_csv(ladder_path(a.game))[["bot", "games_per_s"]].itertuples(index=False))
    for bot in (b for b in bots if b not in speed):
        others = ["greedy"] * (players - 1)
        bargs = ["bench", a.game, "--bots", ",".join([bot, *others]), "--players", str(players), "--threads", "1",
                 "--games", str(a.bench_games), "--rounds", "1"]
        print("playlab " + " ".join(bargs), flush=True)
        speed[bot] = playlab(*bargs)[0]["games_per_s"]
    import pandas as pd

    frame = pd.DataFrame(ratings)
    frame["games_per_s"] = [speed[b] for b in frame["bot"]]
    frame["measured"] = datetime.date.today().isoformat()
    frame["command"] = "playlab " + " ".join(targs[:targs.index("--out")] if a.out else targs)
    frame["speed_command"] = (f"playlab bench {a.game} --bots BOT,greedy… --players {players} --threads 1 "
                              f"--games {a.bench_games} --rounds 1")
    path = ladder_path(a.game)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame[list(LADDER_COLUMNS)].to_csv(path, index=False)
    print(frame[list(LADDER_COLUMNS[:6])].to_string(index=False))
    chance = pd.DataFrame(tables["skill_chance"])
    chance.to_csv(chance_path(a.game), index=False)
    print(chance.to_string(index=False))
    print(f"wrote {path} and {chance_path(a.game)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
