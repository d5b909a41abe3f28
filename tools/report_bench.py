"""Time `playlab report` on a fixed folder of twelve small studies (issue 23: a report of a
dozen studies builds in under 10 s).

    python tools/report_bench.py DIR [--runs 3] [--profile FILE]

The first call writes the studies into DIR (fixed seeds, so every machine builds the same
folder; later calls reuse it, the store resumes nothing when every game is there), then
builds the report ``--runs`` times in a fresh process each and prints the wall time and the
CPU time (user + system of the process and its forked drawing workers) of each run, with the
load average before it.  ``--profile FILE`` runs one more build under cProfile in this
process (drawing in this process, so the profile sees it) and writes the stats to FILE.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from experiments.store import MANIFEST, STUDY_RECORD

# (folder, command line): an fpa, a `play --out` and a tournament of each game, one more
# Stones `play` with greedy, and sweeps of Stones and Moon; 5,000-20,000 games each
STUDIES = [
    ("moon-fpa", ["fpa", "moon", "--bots", "greedy", "--games", "5000"]),
    ("moon-play", ["play", "moon", "--bots", "random", "--games", "5000"]),
    ("moon-tournament", ["tournament", "moon", "--bots", "greedy,random", "--games", "1000"]),
    ("stones-fpa", ["fpa", "shifting-stones", "--bots", "greedy", "--players", "2-5", "--games", "5000"]),
    ("stones-play", ["play", "shifting-stones", "--players", "3", "--bots", "random", "--games", "10000"]),
    ("stones-play-greedy", ["play", "shifting-stones", "--players", "2", "--bots", "greedy", "--games", "20000"]),
    ("stones-tournament", ["tournament", "shifting-stones", "--bots", "greedy,random", "--players", "3",
                           "--games", "2000"]),
    ("stacks-fpa", ["fpa", "sequence-stacks", "--bots", "greedy", "--players", "2-4", "--games", "5000"]),
    ("stacks-play", ["play", "sequence-stacks", "--players", "3", "--bots", "greedy", "--games", "10000"]),
    ("stacks-tournament", ["tournament", "sequence-stacks", "--bots", "greedy,random", "--games", "5000"]),
    ("stones-sweep", ["sweep", "shifting-stones", "--vary", "bonus_points=1,5", "--vary", "skip_draw=1,3",
                      "--players", "3", "--bots", "greedy", "--games", "2000"]),
    ("moon-sweep", ["sweep", "moon", "--vary", "min_bid=3,5", "--bots", "greedy", "--games", "2000"]),
]


def playlab() -> list[str]:
    return [sys.executable, "-m", "playlab.cli"] if not Path(sys.executable).with_name("playlab").exists() \
        else [str(Path(sys.executable).with_name("playlab"))]


def build_folder(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, args in STUDIES:
        out = root / name
        if (out / STUDY_RECORD).exists() or (out / MANIFEST).exists():
            continue
        extra = ["--seed", "7", "--out", str(out)] + ([] if args[0] == "play" else ["--no-progress"])
        t = time.perf_counter()
        subprocess.run(playlab() + args + extra, check=True, stdout=subprocess.DEVNULL)
        print(f"built {name} in {time.perf_counter() - t:.1f} s", file=sys.stderr)


def time_report(root: Path, out: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one `playlab report` in a child process (its workers included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(playlab() + ["report", str(root), "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", type=Path)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--profile", type=Path)
    a = p.parse_args(argv)
    build_folder(a.dir)
    out = a.dir.parent / (a.dir.name + "-report.html")
    walls, cpus = [], []
    for i in range(a.runs):
        load = os.getloadavg()[0]
        wall, cpu = time_report(a.dir, out)
        walls.append(wall)
        cpus.append(cpu)
        print(f"run {i + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU (load average {load:.2f} before)")
    if walls:
        print(f"wall {min(walls):.2f}-{max(walls):.2f} s, CPU {min(cpus):.2f}-{max(cpus):.2f} s over {len(walls)} runs; "
              f"{out.stat().st_size / 1e6:.1f} MB")
    if a.profile:
        import cProfile

        os.environ["PLAYLAB_REPORT_WORKERS"] = "1"  # draw here so the profile sees the figures
        from reports.report import write_report

        cProfile.runctx("write_report(a.dir, out)", globals(), {"write_report": write_report, "a": a, "out": out},
                        str(a.profile))
        print(f"profile written to {a.profile}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
