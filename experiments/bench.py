"""Throughput measurement (`playlab bench`): games/s, decisions/s, and what a bot's decision
costs next to a random one."""
from __future__ import annotations

import dataclasses
import time
from typing import Sequence

import numpy as np

from bots.registry import RANDOM_NAME, parse_bots
from runtime.runner import Batch, RunConfig, set_threads

# a measurement keeps doubling its game count until one batch takes this long
MIN_SECONDS = 1.0
FIRST_GAMES = 1000
# bot runs are measured this many times, alternating with random play, and the median of the
# rounds' ratios is kept: on a shared machine the speed of both drifts (by a third, measured)
# but a round's two runs see the same conditions
ROUNDS = 3


def _is_random(config: RunConfig) -> bool:
    return all(b.name == RANDOM_NAME for b in config.bots)


def random_baseline(config: RunConfig) -> RunConfig:
    """The same game, players, variant and seed with every seat random."""
    return dataclasses.replace(config, bots=parse_bots(config.module, ["random"], config.players))


def measure(config: RunConfig, threads: int, games: int | None = None, batch: Batch | None = None) -> dict:
    threads = set_threads(threads)
    batch = batch or Batch(config)
    batch.run(0, 8)  # compile / load from cache outside the timing
    n = games or FIRST_GAMES
    while True:
        t0 = time.perf_counter()
        rows = batch.run(0, n)
        seconds = time.perf_counter() - t0
        if games is not None or seconds >= MIN_SECONDS:
            break
        n *= 2 if seconds > MIN_SECONDS / 8 else 8
    cols = config.columns()
    decisions = int(rows[:, cols.index("decisions")].sum())
    record = {
        "game": config.game,
        "players": config.players,
        "bots": config.bot_labels,
        "threads": threads,
        "games": n,
        "seconds": round(seconds, 4),
        "games_per_s": n / seconds,
        "decisions_per_s": decisions / seconds,
        "decisions_per_game": decisions / n,
        "truncated": int(rows[:, cols.index("truncated")].sum()),
    }
    for col in config.info.rate_columns:
        record[f"{col}_per_s"] = int(rows[:, cols.index(col)].sum()) / seconds
    return record


def measure_against_random(config: RunConfig, threads: int, games: int | None = None,
                           rounds: int = ROUNDS) -> dict:
    """``measure`` for a run with bots, plus ``random_decisions_per_s`` (all-random play of
    the same game) and ``cost_vs_random``: the ratio of the two decision rates (median of
    alternating rounds).  That ratio also reflects how the games differ (which decisions
    and how much engine work each takes: a Shifting Stones bot that never moves measured
    4x) and how random play is run (all-random Moon plays whole hands in the game's fast
    path, ~40 M decisions/s, with no per-decision dispatch), so on one thread the record
    also gets ``same_positions``: decision against decision."""
    baseline = random_baseline(config)
    batches = Batch(config), Batch(baseline)
    runs = []
    for _ in range(rounds):
        r = measure(config, threads, games, batches[0])
        b = measure(baseline, threads, games, batches[1])
        runs.append((b["decisions_per_s"] / r["decisions_per_s"], r, b))
    runs.sort(key=lambda x: x[0])
    ratio, record, base = runs[len(runs) // 2]
    record["rounds"] = rounds
    record["random_decisions_per_s"] = base["decisions_per_s"]
    record["cost_vs_random"] = ratio
    if threads == 1:
        # the games asked for, or about a third of a second of the bots' play per round
        n = games or max(16, int(record["games_per_s"] / 3))
        record.update(same_positions(config, n, max(rounds, 5)))
    if any(b.spec.name == "mcts" for b in config.bots):
        record["iterations_per_s"] = iterations_rate(config)
    return record


def same_positions(config: RunConfig, games: int, rounds: int = ROUNDS) -> dict:
    """What a decision of ``config``'s bots costs next to a random decision in the same
    positions: their games are recorded, then each round times the bots playing them
    against the same games replayed with a random decision taken (and thrown away) in
    every position through the same dispatch, so both sides do the same engine work and
    differ only in who decides.  Returns the median of the rounds' ratios and their
    range (one thread; random bots measured this way come out at 0.96-1.13)."""
    set_threads(1)
    batch = Batch(config)
    rows = batch.run(0, games)
    total = int(rows[:, config.columns().index("decisions")].sum())
    actions = np.empty(total, dtype=np.int64)
    kept = batch.record_games(0, games, actions)
    replayed = batch.replay_with_random(0, games, actions)
    if kept != games or replayed != total:  # the recorded games must replay exactly
        raise RuntimeError(f"recorded {kept} of {games} games, replayed {replayed} of {total} actions")
    ratios = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        batch.run(0, games)
        t1 = time.perf_counter()
        batch.replay_with_random(0, games, actions)
        t2 = time.perf_counter()
        ratios.append((t1 - t0) / (t2 - t1))
    ratios.sort()
    return {"cost_vs_random_same_positions": ratios[len(ratios) // 2],
            "same_positions_range": [ratios[0], ratios[-1]]}


def run_bench(configs: Sequence[RunConfig], threads: Sequence[int], games: int | None = None,
              rounds: int = ROUNDS, progress=None) -> list[dict]:
    """Every (configuration, thread count); ``progress(done, total, config, threads)`` is
    called before each measurement (the command line shows it on stderr)."""
    jobs = [(c, t) for c in configs for t in threads]
    records = []
    for k, (c, t) in enumerate(jobs):
        if progress is not None:
            progress(k, len(jobs), c, t)
        records.append(measure(c, t, games) if _is_random(c) else measure_against_random(c, t, games, rounds))
    return records


def _rate(x: float) -> str:
    """A rate as a person reads it: whole numbers with separators, and 3 significant digits
    below 100, where an expert bot's 0.8 games/s would otherwise print as 1."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def seats_label(bots) -> str:
    """The bots of a measurement as ``--bots`` takes them, seat by seat; one name when every
    seat plays it (a set of names hid the seating: greedy,random,bidder read as
    bidder,greedy,random, and random,random,greedy as greedy,random)."""
    bots = list(bots)
    return bots[0] if len(set(bots)) == 1 else ",".join(bots)


def format_table(records: list[dict]) -> str:
    w = max([16] + [len(seats_label(r["bots"])) for r in records])  # as wide as the longest bots
    head = (f"{'game':<16} {'players':>7} {'bots':<{w}} {'threads':>7} {'games':>9} {'games/s':>12} "
            f"{'decisions/s':>14} {'x random':>9} {'x same':>7}  other")
    lines = [head]
    for r in records:
        bots = seats_label(r["bots"])
        ratio = f"{r['cost_vs_random']:.2f}" if "cost_vs_random" in r else "-"
        same = f"{r['cost_vs_random_same_positions']:.2f}" if "cost_vs_random_same_positions" in r else "-"
        other = "  ".join(f"{k}={_rate(v)}" for k, v in r.items()
                          if k.endswith("_per_s") and k not in ("games_per_s", "decisions_per_s",
                                                                  "random_decisions_per_s"))
        lines.append(f"{r['game']:<16} {r['players']:>7} {bots:<{w}} {r['threads']:>7} {r['games']:>9} "
                     f"{_rate(r['games_per_s']):>12} {_rate(r['decisions_per_s']):>14} {ratio:>9} {same:>7}  {other}")
    if any("cost_vs_random" in r for r in records):
        lines.append("x random: decisions/s of all-random play of the game over these bots' "
                     "(median of alternating rounds)")
    if any("cost_vs_random_same_positions" in r for r in records):
        lines.append("x same: what a decision of these bots costs next to a random decision in the "
                     "same positions (their own games replayed; one thread)")
    return "\n".join(lines)


def iterations_rate(config, seconds: float = 1.0) -> float:
    """Iterations per second of the config's mcts seats on one thread (``playlab bench``'s
    ``iterations_per_s``): its games stepped from Python through the compiled engine, the
    search calls timed and their ``LAST_ITERATIONS`` summed (forced and delegated
    decisions run none and are not counted).  The kernels are compiled (or loaded) before
    anything is timed."""
    import time

    from bots.generic.mcts import SPEC, iterations_slot
    from bots.registry import allocate_memory
    from simcore.rng import CHANCE_STREAM, bot_stream, stream_key

    module, info, players = config.module, config.info, config.players
    batch = Batch(config)
    params = batch.params
    imem, fmem = allocate_memory(config.bots, info, players)
    header = iterations_slot(info, players)
    seats = [s for s, b in enumerate(config.bots) if b.name == SPEC.name]
    state = np.zeros(info.state_size(players), np.int64)
    rng = np.zeros(players, np.int64)
    spent, done, g = 0.0, 0, 0
    warm = False
    while spent < seconds and g < 1000:
        module.init(state, params, players, stream_key(config.seed, g, CHANCE_STREAM))
        for s in range(players):
            rng[s] = stream_key(config.seed, g, bot_stream(s))
        while not module.is_terminal(state) and spent < seconds:
            p = int(module.current_player(state))
            if not warm:  # compile the dispatch outside the timing (a copy: no stream moves)
                batch.bot_action(state.copy(), p, rng.copy(), imem.copy(), fmem.copy())
                warm = True
            t0 = time.perf_counter()
            a = batch.bot_action(state, p, rng, imem, fmem)
            t1 = time.perf_counter()
            if p in seats and imem[p, header] > 0:
                spent += t1 - t0
                done += int(imem[p, header])
            module.apply(state, params, a)
        g += 1
    return done / spent if spent > 0 else 0.0
