"""A teacher's games for ``playlab train``: the teacher bot in one seat against greedy in the
others, every seat in turn, recorded as action sequences (the engine's ``play_games``) in
chunks on disk, so an interrupted training resumes where it stopped and game i of chunk k
depends only on (game, players, variant, teacher, seed, k, i).

A chunk is ``teacher_<seat>_<k>.npy``: the actions of games ``k*CHUNK_GAMES …`` of the run
``(seed, teacher in seat <seat>, greedy elsewhere)`` back to back (the replay in
``experiments.train`` finds where each game ends by playing it again)."""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Mapping

import numpy as np

CHUNK_GAMES = 8
OPPONENT = "greedy"


def seat_bots(teacher: str, seat: int, players: int) -> list[str]:
    return [teacher if s == seat else OPPONENT for s in range(players)]


def chunk_path(workdir: str, seat: int, k: int) -> str:
    return os.path.join(workdir, f"teacher_{seat}_{k}.npy")


def play_chunk(game: str, players: int, variant: Mapping[str, Any], teacher: str, seed: int, seat: int,
               k: int, workdir: str) -> str:
    """Record chunk ``k`` of seat ``seat`` (written atomically: a chunk on disk is whole)."""
    import numba

    from runtime.runner import Batch, RunConfig

    numba.set_num_threads(1)
    config = RunConfig.build(game, players, seat_bots(teacher, seat, players), dict(variant), seed)
    batch = Batch(config)
    actions = np.zeros(CHUNK_GAMES * config.info.max_decisions(players), np.int64)
    kept = batch.record_games(k * CHUNK_GAMES, CHUNK_GAMES, actions)
    if kept != CHUNK_GAMES:
        raise RuntimeError(f"teacher game overran the action buffer ({game}, seat {seat}, chunk {k})")
    used = batch.replay_with_random(k * CHUNK_GAMES, CHUNK_GAMES, actions)  # where the last game ends
    path = chunk_path(workdir, seat, k)
    tmp = path + ".tmp.npy"
    np.save(tmp, actions[:used])
    os.replace(tmp, path)
    return path


def collect(game: str, players: int, variant: Mapping[str, Any], teacher: str, seed: int, chunks: int,
            workdir: str, workers: int = 1, on_chunk: Callable[[int], None] | None = None) -> list[tuple[int, int]]:
    """Make sure chunks ``0 … chunks-1`` of every seat exist in ``workdir`` (the missing ones
    are played, ``workers`` processes at once); returns the (seat, k) list, in order."""
    os.makedirs(workdir, exist_ok=True)
    wanted = [(seat, k) for k in range(chunks) for seat in range(players)]
    todo = [(s, k) for s, k in wanted if not os.path.exists(chunk_path(workdir, s, k))]
    for _ in range(len(wanted) - len(todo)):
        if on_chunk:
            on_chunk(0)
    if todo:
        if workers <= 1:
            for s, k in todo:
                play_chunk(game, players, variant, teacher, seed, s, k, workdir)
                if on_chunk:
                    on_chunk(1)
        else:
            with ProcessPoolExecutor(workers) as pool:
                futures = [pool.submit(play_chunk, game, players, dict(variant), teacher, seed, s, k, workdir)
                           for s, k in todo]
                for f in futures:
                    f.result()
                    if on_chunk:
                        on_chunk(1)
    return wanted
