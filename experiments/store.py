"""A study's results on disk: a Parquet dataset of task chunks plus a manifest.

``DIR/_study.json`` names the study (its seed and every configuration, a data file such as
a deck by its content hash) and the chunk size; ``DIR/part-<run>-<first index>.parquet``
holds games [first, first + chunk) of configuration ``run``.  Every file has the study's
schema (the union of its configurations' columns; a column a configuration lacks is
null), so ``pandas.read_parquet(DIR)`` reads the whole study as one tidy frame.  Chunks
are written to a temporary name and renamed, so an interrupted study leaves only whole
chunks and a rerun computes just the missing ones.  A chunk is trusted only when its rows
are exactly the run and game indices its name claims.  ``DIR/_lock`` is held (``flock``)
by the one process writing the directory; the kernel drops it when that process dies, so
a killed run never blocks the next.  The leading underscores keep both files out of
``pandas.read_parquet(DIR)``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# a "task" here is anything with ``run``, ``start`` and ``count`` (``experiments.study.Task``):
# the store sits below the study layer and never imports it

MANIFEST = "_study.json"
OLD_MANIFEST = "_run.json"
LOCK = "_lock"
FORMAT = "playlab-study"
VERSION = 3  # 3: data files by content hash (2 named them by path)
DEFAULT_CHUNK = 100_000
CHUNK_RE = re.compile(r"^part-(\d{4,})-(\d{12,})\.parquet$")


class ResultsError(ValueError):
    pass


def write_atomically(path: str | Path, write) -> None:
    """``write(tmp)`` to a hidden file beside ``path``, then rename it over ``path``: a
    reader (or a later run) finds the old file or the whole new one, never part of one; an
    error or Ctrl-C mid-write leaves no temporary file behind."""
    path = Path(path)
    tmp = path.with_name("." + path.name + ".tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def chunk_name(run: int, start: int) -> str:
    return f"part-{run:04d}-{start:012d}.parquet"


def file_digest(path: str | Path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError as exc:
        raise ResultsError(f"cannot read {path}: {exc.strerror or exc}") from None
    return "sha256:" + h.hexdigest()


def content_identity(config) -> dict[str, Any]:
    """``config.describe()`` with every file option (a deck) by content: an edited file at
    the same path is a different study, the same file by another path is the same one."""
    ident = config.describe()
    for option in config.info.options:
        value = ident["variant"].get(option.name)
        if option.kind == "path" and value:
            ident["variant"][option.name] = file_digest(value)
    return ident


def difference(stored: dict[str, Any], given: dict[str, Any]) -> str:
    """The first setting in which two study identities differ, in words."""
    if stored.get("seed") != given.get("seed"):
        return f"seed {stored.get('seed')} there, {given.get('seed')} here"
    a, b = stored.get("runs", []), given.get("runs", [])
    if len(a) != len(b):
        return f"{len(a)} configurations there, {len(b)} here"
    for r, (x, y) in enumerate(zip(a, b)):
        where = f" (configuration {r})" if len(a) > 1 else ""
        for key in ("game", "players", "bots", "seed"):
            if x.get(key) != y.get(key):
                show = (lambda v: ",".join(v)) if key == "bots" else str
                return f"{key} {show(x.get(key))} there, {show(y.get(key))} here{where}"
        xv, yv = x.get("variant", {}), y.get("variant", {})
        for name in list(xv) + [n for n in yv if n not in xv]:
            if xv.get(name) != yv.get(name):
                return f"variant {name}={xv.get(name, '(unset)')} there, {yv.get(name, '(unset)')} here{where}"
    return "the stored study description differs"


class StudyStore:
    def __init__(self, path: str | Path, study: dict[str, Any], chunk: int = DEFAULT_CHUNK, lock=None):
        self.path = Path(path)
        self.study = study
        self.chunk = chunk
        self._lock = lock

    @classmethod
    def open(cls, path: str | Path, study: dict[str, Any], chunk: int = DEFAULT_CHUNK) -> "StudyStore":
        """Create ``path`` for this study, or reopen it to resume the same study; either
        way this process holds the directory's lock until :meth:`close`."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise ResultsError(f"{path} exists and is not a directory")
        check_foreign(path)
        path.mkdir(parents=True, exist_ok=True)
        lock = _acquire(path)
        try:
            manifest = path / MANIFEST
            if manifest.exists():
                stored = read_manifest(path)
                if stored["study"] != study:
                    raise ResultsError(f"{path} holds results of a different study: "
                                       f"{difference(stored['study'], study)}; use another --out directory")
                return cls(path, study, int(stored["chunk"]), lock)
            text = json.dumps({"format": FORMAT, "version": VERSION, "chunk": chunk, "study": study}, indent=1)
            write_atomically(manifest, lambda tmp: tmp.write_text(text))
            return cls(path, study, chunk, lock)
        except BaseException:
            _release(lock)
            raise

    def close(self) -> None:
        _release(self._lock)
        self._lock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def file(self, task) -> Path:
        return self.path / chunk_name(task.run, task.start)

    def has(self, task) -> bool:
        """Whether the task's games are stored.  A shorter chunk (left by a study of fewer
        games) is recomputed; a longer one already holds them; an unreadable one, or one
        whose rows are not the games its name claims, is an error."""
        f = self.file(task)
        if not f.exists():
            return False
        return check_chunk(f, task.run, task.start) >= task.count

    def write(self, task, frame: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, schema=arrow_schema(frame), preserve_index=False)
        # no pandas metadata: it would record per-file dtypes (float for a column that is
        # null in this chunk) and the dataset's files would disagree
        write_atomically(self.file(task), lambda tmp: pq.write_table(table.replace_schema_metadata(None), tmp))

    def read(self, task) -> pd.DataFrame:
        """The stored chunk, cut to the task's games."""
        f = self.file(task)
        df = _read(f)
        check_rows(f, df["run"].to_numpy(), df["index"].to_numpy(), task.run, task.start)
        if len(df) > task.count:
            df = df[df["index"] < task.start + task.count].reset_index(drop=True)
        return df

    def stored_games(self, run: int = 0) -> int:
        """Games [0, n) of configuration ``run`` that are stored (by the files' row counts)."""
        n = 0
        while True:
            f = self.path / chunk_name(run, n)
            if not f.exists():
                return n
            rows = _num_rows(f)
            n += rows
            if rows < self.chunk:
                return n


def _num_rows(f: Path) -> int:
    try:
        import pyarrow.parquet as pq

        return pq.ParquetFile(f).metadata.num_rows
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise ResultsError(f"corrupt results file {f} ({type(exc).__name__}); delete it to recompute") from None


def check_chunk(f: Path, run: int, start: int) -> int:
    """The number of games in chunk file ``f``, after checking they are games start, start+1,
    … of configuration ``run`` as its name says (a copied or renamed file would otherwise
    put duplicate games in the dataset)."""
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(f, columns=["run", "index"])
    except Exception as exc:
        raise ResultsError(f"corrupt results file {f} ({type(exc).__name__}); delete it to recompute") from None
    check_rows(f, table.column("run").to_numpy(), table.column("index").to_numpy(), run, start)
    return table.num_rows


def check_rows(f: Path, runs: np.ndarray, index: np.ndarray, run: int, start: int) -> None:
    n = len(index)
    if n == 0 or (runs != run).any() or (index != np.arange(start, start + n)).any():
        have = (f"games {int(index.min())}-{int(index.max())} of configuration {sorted(set(runs.tolist()))}"
                if n else "no games")
        raise ResultsError(f"results file {f} holds {have}, not games {start}-{start + max(n, 1) - 1} of "
                           f"configuration {run} as its name says; delete it to recompute")


def check_foreign(path: Path) -> None:
    """Refuse a directory that is not (or no longer) a readable playlab store."""
    if not path.is_dir() or (path / MANIFEST).exists():
        return
    if (path / OLD_MANIFEST).exists():
        raise ResultsError(f"{path} holds results in an older playlab format; use another --out directory")
    names = [p.name for p in path.iterdir() if p.name != LOCK]
    chunks = [n for n in names if CHUNK_RE.match(n)]
    if chunks:
        raise ResultsError(f"{path} holds {len(chunks)} playlab result chunk(s) but its manifest {MANIFEST} is "
                           f"missing, so what they hold is unknown; restore {MANIFEST} or use another --out directory")
    if names:
        raise ResultsError(f"{path} is not empty and holds no playlab results")


def _acquire(path: Path):
    import fcntl

    fh = open(path / LOCK, "a+")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        holder = fh.read().strip() or "unknown"
        fh.close()
        raise ResultsError(f"{path} is being written by another playlab process (pid {holder}); "
                           "wait for it to finish or use another --out directory") from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"{os.getpid()}\n")
    fh.flush()
    return fh


def _release(lock) -> None:
    if lock is not None and not lock.closed:
        lock.close()  # closing the descriptor drops the flock


def arrow_schema(frame: pd.DataFrame):
    """int64 for the kernels' numbers (a float column here is one that is null in this
    chunk), bool for flags, string for labels."""
    import pyarrow as pa

    fields = []
    for name, dtype in frame.dtypes.items():
        if pd.api.types.is_bool_dtype(dtype):
            t = pa.bool_()
        elif pd.api.types.is_numeric_dtype(dtype):
            t = pa.int64()
        else:
            t = pa.string()
        fields.append(pa.field(name, t))
    return pa.schema(fields)


def _read(f: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(f)
    except Exception as exc:
        raise ResultsError(f"corrupt results file {f} ({type(exc).__name__})") from None


def read_manifest(path: str | Path) -> dict[str, Any]:
    manifest = Path(path) / MANIFEST
    try:
        data = json.loads(manifest.read_text())
    except FileNotFoundError:
        check_foreign(Path(path))
        raise ResultsError(f"{path} holds no playlab results ({MANIFEST} missing)") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"corrupt results manifest {manifest}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or "study" not in data or "chunk" not in data:
        raise ResultsError(f"corrupt results manifest {manifest}")
    return data


def chunk_files(path: str | Path) -> list[tuple[int, int, Path]]:
    """(run, first index, file) of every chunk, in order."""
    out = []
    for f in Path(path).glob("part-*.parquet"):
        m = CHUNK_RE.match(f.name)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), f))
    return sorted(out)


def load_results(path: str | Path, games: int | None = None) -> pd.DataFrame:
    """Every stored game (or the first ``games`` of each configuration), ordered by
    configuration and index; every chunk checked against its name."""
    path = Path(path)
    read_manifest(path)
    frames = []
    for run, start, f in chunk_files(path):
        if games is not None and start >= games:
            continue
        df = _read(f)
        check_rows(f, df["run"].to_numpy(), df["index"].to_numpy(), run, start)
        frames.append(df)
    if not frames:
        raise ResultsError(f"{path} holds no result chunks")
    df = pd.concat(frames, ignore_index=True).sort_values(["run", "index"], kind="stable").reset_index(drop=True)
    if games is not None:
        df = df[df["index"] < games].reset_index(drop=True)
    return df
