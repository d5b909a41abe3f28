"""The study layer: one execution path for every command that plays games.

A *study* is a design: a list of run configurations (game, players, variant, bots per
seat) that share one seed and one range of game indices, so game *i* of every
configuration is dealt from the same chance stream (``simcore.rng`` keys it by (seed, i)
only).  Comparisons between configurations are therefore paired deal by deal.

Execution is a list of independent, picklable :class:`Task` objects ``(run, config,
start, count)``.  :func:`run_task` turns one into its tidy rows and is a pure function of
the task, so tasks may run in any order, in any process, on any machine.  An executor
object runs them; :class:`LocalExecutor` runs them one after another in this process (the
Numba kernels use all threads inside each task).  A cluster executor only has to provide
the same ``map`` method.  A :class:`~experiments.store.StudyStore` decides which tasks
are still missing, so an interrupted study resumes chunk by chunk.

Summaries see the results chunk by chunk (``on_chunk``) and keep only what they need, so
a study's memory need not grow with the full results frame (``keep_frame=False``).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from runtime.agents import AgentError, finished_before
from runtime.runner import Batch, RunConfig, set_threads, to_frame

from .store import DEFAULT_CHUNK, MAX_GAMES, STUDY_RECORD, StudyStore, content_identity, record_text, write_atomically

# the columns that say which configuration a row belongs to, before the seat columns
CONFIG_COLUMNS = ("run", "game", "players", "seed")


@dataclass(frozen=True)
class Task:
    """Games ``start … start+count-1`` of configuration number ``run`` of a study."""
    run: int
    config: RunConfig
    start: int
    count: int

    @property
    def key(self) -> tuple[int, int]:
        return (self.run, self.start)


# told the phase a study is in ("simulation", "summarising": reading stored chunks back), so
# that a stop can say where it happened (set by the command line); in simulation also the
# line a stop then prints (a function: what is stored changes as chunks complete)
PHASE_HOOK: Callable[[str, Callable[[], str] | None], None] | None = None


def stopped_in_simulation(kept: int, total: int, path, kind: str = "") -> str:
    """What a stop while the games are played says (here, and the command line's watchdog
    when a compiled chunk outlasts its grace): how many of the games this run was playing
    are stored (a balance search plays a round at a time: of that round's)."""
    games = f"this round's {total} games" if kind == "balance" else f"{total} games"
    return (f"interrupted during simulation: {kept} of {games} are stored in {path}; "
            "rerun the same command to resume")


def _phase(name: str, stop_line: Callable[[], str] | None = None) -> None:
    if PHASE_HOOK is not None:
        PHASE_HOOK(name, stop_line)


# a task is played in kernel calls of growing size, each aiming at about this long, so Ctrl-C
# (seen between calls: the kernels hold the interpreter) stops a long task within a second
STEP_SECONDS = 0.25
FIRST_STEP = 256


def run_task(task: Task) -> pd.DataFrame:
    """The results of one task: one row per game, carrying its configuration.  Depends on
    the task only (the kernels are deterministic in (configuration, seed, index), so how
    the games are split into kernel calls does not matter)."""
    config = task.config
    batch = Batch(config)
    parts, done, step = [], 0, FIRST_STEP
    while done < task.count:
        n = min(step, task.count - done)
        t0 = time.perf_counter()
        try:
            parts.append(batch.run(task.start + done, n))
        except AgentError as exc:
            # a Python agent failed: the games finished before it go back with the error
            # (the study stores them: plugins.md, "finished games stay stored")
            finished_before(exc, parts)
            if getattr(exc, "finished", None) is not None and len(exc.finished):
                exc.finished_frame = tidy_frame(task.run, config, exc.finished)
            raise
        done += n
        if time.perf_counter() - t0 < STEP_SECONDS / 2:
            step *= 2
    rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return tidy_frame(task.run, config, rows)


def tidy_frame(run: int, config: RunConfig, rows: np.ndarray) -> pd.DataFrame:
    df = to_frame(config, rows)
    df = df.drop(columns=["players"] + [f"bot_{s}" for s in range(config.players)])
    head = {"run": np.int64(run), "game": config.game, "players": np.int64(config.players),
            "seed": np.int64(config.seed)}
    for name, value in config.variant.items():
        head[name] = value
    for s, label in enumerate(config.bot_labels):
        head[f"bot_{s}"] = label
    front = pd.DataFrame({k: [v] * len(df) for k, v in head.items()}, index=df.index)
    for name, value in config.variant.items():
        # an empty frame would otherwise carry object columns and compare unequal
        front[name] = front[name].astype(type(value) if not isinstance(value, str) else "str")
    for k in ("run", "players", "seed"):
        front[k] = front[k].astype(np.int64)
    return pd.concat([front, df], axis=1)


class LocalExecutor:
    """Runs tasks one after another in this process; each task uses ``threads`` Numba
    threads.  The interface a cluster executor provides too: ``map(fn, tasks)`` yields
    ``(task, fn(task))`` pairs in completion order (here: task order)."""

    name = "local"

    def __init__(self, threads: int | None = None):
        self.threads = set_threads(threads)

    def map(self, fn: Callable[[Task], Any], tasks: Iterable[Task]) -> Iterator[tuple[Task, Any]]:
        for task in tasks:
            yield task, fn(task)

    def describe(self) -> dict:
        return {"executor": self.name, "threads": self.threads}


@dataclass
class Study:
    """A design: configurations sharing one seed, each played for games [0, games)."""
    kind: str
    configs: list[RunConfig]
    games: int
    seed: int
    chunk: int = DEFAULT_CHUNK
    meta: dict = field(default_factory=dict)
    # the configurations played now (None: all).  `playlab balance` declares every variant
    # up front (one store, one identity) and plays on only the ones still undecided.
    active: tuple[int, ...] | None = None

    def __post_init__(self):
        if not self.configs:
            raise ValueError("a study needs at least one configuration")
        seeds = {c.seed for c in self.configs}
        if seeds != {self.seed}:
            raise ValueError("every configuration of a study shares the study's seed")
        if self.games < 1:
            raise ValueError(f"--games must be >= 1, not {self.games}")
        if self.games > MAX_GAMES:
            raise ValueError(f"--games must be at most {MAX_GAMES:,} (what the results store can name), "
                             f"not {self.games}")

    def tasks(self, games: int | None = None) -> list[Task]:
        """Chunk-major order: all configurations of deals [s, s+chunk) before the next
        chunk, so paired results arrive together and a partial study covers every
        configuration on the same deals."""
        games = self.games if games is None else games
        runs = range(len(self.configs)) if self.active is None else self.active
        out = []
        for start in range(0, games, self.chunk):
            count = min(self.chunk, games - start)
            out += [Task(r, self.configs[r], start, count) for r in runs]
        return out

    def identity(self) -> dict:
        """What a store must match to be resumed (not the number of games: a stored study
        may be extended or read in part, like ``play --out``)."""
        return {"seed": self.seed, "runs": [content_identity(c) for c in self.configs]}

    def describe(self) -> dict:
        """The full configuration for ``study.json``."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("playlab")
        except PackageNotFoundError:  # running from a source tree that was never installed
            v = "unknown"
        return {"playlab_version": v, "kind": self.kind, "games_per_run": self.games,
                "seed": self.seed, "chunk": self.chunk, **self.meta,
                "runs": [{"run": r, **c.describe()} for r, c in enumerate(self.configs)]}

    def columns(self) -> list[str]:
        """The study's columns: the union of its configurations' columns, configuration
        first.  A column a configuration lacks (score_4 of a 2-player run) is missing (NA)
        in its rows."""
        cols: list[str] = list(CONFIG_COLUMNS)
        seen = set(cols)
        max_players = max(c.players for c in self.configs)
        groups: list[list[str]] = [[], [f"bot_{s}" for s in range(max_players)], []]
        for c in self.configs:
            groups[0] += list(c.variant)
            groups[2] += c.columns()
        for group in groups:
            for name in group:
                if name not in seen:
                    seen.add(name)
                    cols.append(name)
        clash = set(self.configs[0].variant) & set(self.configs[0].columns())
        if clash:  # a game would need a variant option named like a result column
            raise ValueError(f"variant option and result column share a name: {sorted(clash)}")
        return cols

    def total_games(self, games: int | None = None) -> int:
        return (self.games if games is None else games) * len(self.configs)


def align(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The frame with exactly the study's columns (absent ones as missing values)."""
    if list(frame.columns) == list(columns):
        return frame
    missing = [c for c in columns if c not in frame.columns]
    frame = frame.reindex(columns=list(columns))
    for c in missing:
        if c.startswith("bot_"):
            frame[c] = frame[c].astype("str")
    return frame


@dataclass
class StudyOutcome:
    frame: pd.DataFrame | None  # every row of the study (None with keep_frame=False)
    seconds: float               # wall time of this invocation's simulation
    simulated: int               # games simulated now (stored ones excluded)
    stored: int                  # games read back from the store
    note: str | None = None      # what was done with a store holding more or fewer games


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a study; the message says what is kept."""

    def __str__(self):
        return self.args[0] if self.args else "interrupted"


def store_note(store: StudyStore, study: Study) -> str | None:
    """What a run of ``study.games`` games per configuration does with a store that holds
    more or fewer of them.  Configurations advance together, but a run interrupted in the
    middle of a round leaves some of them a chunk ahead: the note gives the range."""
    runs = range(len(study.configs)) if study.active is None else study.active
    held = [store.stored_games(i) for i in runs]
    lo, hi = min(held), max(held)
    want = study.games
    if hi == 0 or lo == hi == want:
        return None
    per = " per configuration" if len(held) > 1 else ""
    have = f"{lo}" if lo == hi else f"{lo} to {hi}"
    if lo >= want:
        return (f"{store.path} holds {have} games{per}; using the first {want} (--games {want}); "
                f"--games {hi} uses them all")
    if lo == hi:
        return f"{store.path} holds {have} games{per}; extending to {want} ({want - lo} more{per})"
    more = sum(max(0, want - n) for n in held)
    return f"{store.path} holds {have} games{per}; {more} more to play, so that each has {want}"


def execute_study(study: Study, executor=None, store: str | StudyStore | None = None,
                  progress: bool | None = None, on_chunk: Callable[[Task, pd.DataFrame], None] | None = None,
                  keep_frame: bool = True, threads: int | None = None) -> StudyOutcome:
    """Run every missing task of ``study`` (all of them without a store), write each to the
    store as it completes, and hand every chunk (computed or stored) to ``on_chunk``.  The
    store is closed (its lock released) on return."""
    if isinstance(store, (str, bytes)) or hasattr(store, "__fspath__"):
        store = StudyStore.open(store, study.identity(), study.chunk)
    try:
        return _execute(study, executor, store, progress, on_chunk, keep_frame, threads)
    finally:
        if store is not None:
            store.close()


def _execute(study, executor, store, progress, on_chunk, keep_frame, threads) -> StudyOutcome:
    executor = executor or LocalExecutor(threads)
    columns = study.columns()
    tasks = study.tasks()
    note = None
    if store is not None:
        if store.chunk != study.chunk:  # the stored chunking wins, so resuming lines up
            study.chunk = store.chunk
            tasks = study.tasks()
        note = store_note(store, study)
        todo = [t for t in tasks if not store.has(t)]
        if store.repairs:
            repair = (f"recomputing {len(store.repairs)} damaged chunk(s) of {store.path}: "
                      f"{'; '.join(store.repairs[:5])}" + (" …" if len(store.repairs) > 5 else ""))
            note = f"{note}; {repair}" if note else repair
    else:
        todo = tasks
    done_keys = {t.key for t in todo}
    prepare = getattr(executor, "prepare", None)
    if prepare is not None:
        prepare([t.config for t in todo])
    else:
        warm_up(t.config for t in todo)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=sum(t.count for t in todo), unit="game", unit_scale=True, file=sys.stderr,
                   leave=False, desc=f"{study.kind} {study.configs[0].game}", smoothing=0.1)
    frames: list[pd.DataFrame] = []

    def take(task: Task, frame: pd.DataFrame) -> None:
        frame = align(frame, columns)
        if on_chunk is not None:
            on_chunk(task, frame)
        if keep_frame:
            frames.append(frame)

    t0 = time.perf_counter()
    total = sum(t.count for t in tasks)
    _phase("simulation", None if store is None else
           (lambda: stopped_in_simulation(store.kept(tasks), total, store.path, study.kind)))
    try:
        for task, frame in executor.map(run_task, todo):
            frame = align(frame, columns)
            if store is not None:
                store.write(task, frame)
            take(task, frame)
            if bar is not None:
                bar.update(task.count)
    except AgentError as exc:
        finished = getattr(exc, "finished_frame", None)
        if store is not None and finished is not None:
            # a shorter chunk: readers count its games, and a rerun recomputes it whole
            first = finished.iloc[0]
            task = next(t for t in todo if (t.run, t.start) == (int(first["run"]), int(first["index"])))
            store.write(task, align(finished, columns))
            n = len(finished)
            exc.args = (f"{exc.args[0]}; the {n} game{'s' if n != 1 else ''} before it in its chunk "
                        f"{'are' if n != 1 else 'is'} stored in {store.path}",)
        raise
    except Exception as exc:
        if type(exc).__name__ != "ExecutorError":
            raise
        if bar is not None:
            bar.close()
            bar = None
        kept = store.kept(tasks) if store is not None else 0
        where = (f"{kept} of {sum(t.count for t in tasks)} games are stored in {store.path}; rerun the same command "
                 "(with a working --cluster, or without it) to resume") if store is not None else \
            "nothing was kept (--out DIR keeps finished chunks to resume)"
        raise type(exc)(f"{exc}; {where}") from None
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
            bar = None
        if store is None:
            raise Interrupted("interrupted; nothing was kept (--out DIR keeps finished chunks to resume)") from None
        # chunks written, and recorded, before the stop took effect
        raise Interrupted(stopped_in_simulation(store.kept(tasks), total, store.path, study.kind)) from None
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    stored = 0
    _phase("summarising")
    for task in tasks:
        if task.key not in done_keys:
            take(task, store.read(task))
            stored += task.count
    if store is not None and study.kind == "play":
        # a bare store has no study.json to say how many of its games the command used
        store.note_games_used(study.games)
    frame = None
    if keep_frame:
        if frames:
            frame = pd.concat(frames, ignore_index=True)
            frame = frame.sort_values(["run", "index"], kind="stable").reset_index(drop=True)
        else:
            frame = pd.DataFrame(columns=columns)
    return StudyOutcome(frame, seconds, sum(t.count for t in todo), stored, note)


def warm_up(configs: Iterable[RunConfig]) -> None:
    """Compile (or load from Numba's cache) each game's kernels before timing starts, by
    playing one game.  Not with Python agents: their game may take any time, and it would
    be played in the start-up phase (a stop there would name the wrong phase); their
    compiled seats compile in the first chunk instead."""
    seen = set()
    for c in configs:
        key = c.kernel_key
        if key in seen or c.has_agents:
            continue
        seen.add(key)
        Batch(c).run(0, 1)


# ---- running a study command: execute, summarise, write its files --------------------------
RESULTS_DIR = "results"


def to_jsonable(value):
    """Tables and metadata as plain JSON (NaN as null, numpy scalars as Python)."""
    if isinstance(value, pd.DataFrame):
        return [to_jsonable(r) for r in value.to_dict(orient="records")]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def parse_assignments(items: Sequence[str], flag: str, error: type[Exception]) -> dict[str, list[str]]:
    """``name=v1,v2,…`` per item, as text: each name once, no value empty or listed twice
    (``tune --grid``, ``sweep --vary``; each then checks its names and parses its values).
    ``error`` is raised with a message that names ``flag`` and the item."""
    grid: dict[str, list[str]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip()
        vals = [v.strip() for v in values.split(",")]
        if not sep or not name or not any(vals):
            raise error(f"malformed {flag} {item!r}: expected name=v1,v2,…")
        if name in grid:
            raise error(f"{flag} {name} given twice: list all its values in one {flag} {name}=v1,v2,…")
        if not all(vals):
            raise error(f"{flag} {item!r}: an empty value (two commas, or one at either end)")
        repeated = sorted({v for v in vals if vals.count(v) > 1})
        if repeated:
            raise error(f"{flag} {item!r}: value {repeated[0]} listed twice")
        grid[name] = vals
    return grid


def write_tables(out, tables: dict[str, pd.DataFrame]) -> list[str]:
    from pathlib import Path

    written = []
    for name, table in tables.items():
        path = Path(out) / f"{name}.csv"
        write_atomically(path, lambda tmp: table.to_csv(tmp, index=False))
        written.append(path.name)
    return written


def run_study(study: Study, collector, out: str | None = None, progress: bool | None = None,
              threads: int | None = None, executor=None) -> StudyOutcome:
    """Execute ``study`` into ``out/results`` (resumable) feeding ``collector`` chunk by
    chunk, and write ``out/study.json``."""
    from pathlib import Path

    store = None
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        store = Path(out) / RESULTS_DIR
    executor = executor or LocalExecutor(threads)
    outcome = execute_study(study, executor=executor, store=store, progress=progress,
                            on_chunk=collector, keep_frame=False)
    if out:
        record = study.describe()
        record.update(executor.describe())
        record["results"] = RESULTS_DIR
        write_record(out, record)
    return outcome


def write_record(out, record: dict) -> None:
    """``out/study.json``: the study's record with its checksum (``record_text``), written
    whole or not at all (every study command writes its record through here)."""
    from pathlib import Path

    text = record_text(to_jsonable(record))
    write_atomically(Path(out) / STUDY_RECORD, lambda tmp: tmp.write_text(text))
