"""A study's results on disk: a Parquet dataset of task chunks plus a manifest.  This
module is the only code that reads or writes a results directory.

``DIR/_study.json`` names the study (its seed and every configuration, a data file such as
a deck by its content hash), the chunk size, and every chunk written: its row count and
the SHA-256 of its bytes; the manifest carries a checksum of its own contents, so an edit
by hand is detected.  ``DIR/part-<run>-<first index>.parquet`` holds games [first, first +
chunk) of configuration ``run``.  Every file has the study's schema (the union of its
configurations' columns; a column a configuration lacks is null).  Chunks are written to a
temporary name, renamed, and recorded, so an interrupted study leaves only whole chunks and
a rerun computes just the missing or damaged ones.  Every read checks every byte against
the recorded checksum, the rows against the chunk's name, and the configuration columns
(seed, game, players, options, bots) against the manifest; :func:`read_results` is the
public reader, :func:`iter_chunks` the same chunk by chunk.  ``DIR/_lock`` is held
(``flock``) by the one process writing the directory; the kernel drops it when that process
dies, so a killed run never blocks the next.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd

# a "task" here is anything with ``run``, ``start`` and ``count`` (``experiments.study.Task``):
# the store sits below the study layer and never imports it

MANIFEST = "_study.json"
OLD_MANIFEST = "_run.json"
LOCK = "_lock"
FORMAT = "playlab-study"
VERSION = 4  # 4: chunks recorded with their SHA-256, the manifest checksummed; 3: data files by hash
DEFAULT_CHUNK = 100_000
RESULTS_DIR = "results"  # a study's store inside its --out folder
STUDY_RECORD = "study.json"  # a study command's record, beside its RESULTS_DIR
MAX_GAMES = 10**12  # games per configuration: chunk names hold a 12-digit first index
CHUNK_RE = re.compile(r"^part-(\d{4,})-(\d{12,})\.parquet$")


KNOWN_FILES = {MANIFEST, LOCK, "report.html"}
# a file being written atomically (this module's ``.NAME.tmp``, the report's ``.NAME.XXXX.tmp``)
TEMPORARY_RE = re.compile(r"^\..+\.tmp$")


def other_files(path: Path) -> list[str]:
    """The names in results directory ``path`` that are none of its own files (a chunk,
    the manifest, the lock, the report, a file being written): ``notes.txt``, a copy."""
    return sorted(e.name for e in path.iterdir() if not CHUNK_RE.match(e.name) and e.name not in KNOWN_FILES
                  and not TEMPORARY_RE.match(e.name))


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
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise write_error(path, exc) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def chunk_name(run: int, start: int) -> str:
    return f"part-{run:04d}-{start:012d}.parquet"


def file_digest(path: str | Path) -> str:
    """``runtime.runner.file_digest``, an unreadable file as one ``ResultsError``."""
    from runtime.runner import file_digest as content_digest

    try:
        return content_digest(path)
    except OSError as exc:
        raise ResultsError(f"cannot read {path}: {exc.strerror or exc}") from None


def content_identity(config) -> dict[str, Any]:
    """``config.describe()`` with every file by content: a file option (a deck) in place of
    its path, and the files bots are given (a learned model, ``learned:model=PATH``) beside
    their labels (``bot_files``, per seat; only when some bot has one).  An edited file at
    the same path is a different study (the same deck by another path is the same one)."""
    ident = config.describe()
    for option in config.info.options:
        value = ident["variant"].get(option.name)
        if option.kind == "path" and value:
            ident["variant"][option.name] = file_digest(value)
    files = [_bot_files(config.game, b) for b in config.bots]
    if any(files):
        ident["bot_files"] = files
    code = _user_code(config)
    if code:
        ident["code"] = code
    return ident


def _user_code(config) -> dict[str, str]:
    """The user's code the run plays, by content: each plugin that registered its game or
    bots (the digest of every source the plugin loaded) and each Python agent's module file
    with every module of that file's folder tree that its import loaded or its import
    statements name, also inside a function, and the installed libraries those statements
    name (``runtime.agents``) (an edited plugin, agent or helper module of either, or an
    upgraded library, is a different study; playlab's own code is not counted)."""
    from runtime.agents import agent_files, agent_libraries
    from runtime.plugins import plugin_digest

    code = {f"plugin {key}": plugin_digest(key) for key in config.plugins()}
    for b in config.bots:
        if b.is_agent:
            files = agent_files(*b.agent[:2])
            if files:
                code[f"agent {b.agent[0]}"] = _agent_digest(files, agent_libraries(*b.agent[:2]))
    return code


def _agent_digest(files: list[str], libraries: list[bytes] = ()) -> str:
    """An agent's code by content: its file's digest alone when it loaded no helper and
    imports no installed library outside playlab's environment (as studies written before
    those were counted recorded it, so they still resume), else one digest over its file
    and each helper by its path relative to the agent's folder (the same agent in another
    folder is the same code), then each library's key."""
    if len(files) == 1 and not libraries:
        return file_digest(files[0])
    home = os.path.dirname(files[0])
    h = hashlib.sha256()
    for f in files:
        h.update(os.path.relpath(f, home).encode() + b"\0" + file_digest(f).encode() + b"\0")
    for key in libraries:
        h.update(key + b"\0")
    return "sha256:" + h.hexdigest()


def _bot_files(game: str, bot) -> list[list[str]]:
    """[parameter, the file's digest] for each file the bot is given as a text parameter."""
    from runtime.runner import bot_file_params

    return [[k, file_digest(v)] for k, v in bot_file_params(game, bot)]


def files_read(config) -> list[tuple[str, str]]:
    """(path, what it is) of every file a run of ``config`` reads (``RunConfig.files_read``)."""
    return config.files_read()


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
        if x.get("code") != y.get("code"):
            xc, yc = x.get("code") or {}, y.get("code") or {}
            changed = sorted(k for k in set(xc) | set(yc) if xc.get(k) != yc.get(k))
            said = [f"{k} (not loaded there)" if k not in xc else f"{k} (not loaded here)" if k not in yc
                    else f"{k} (edited?)" for k in changed]
            return f"the code it plays differs: {', '.join(said)}{where}"
        if x.get("bot_files") != y.get("bot_files"):
            return f"the files the bots are given (a model) differ: {_files(x)} there, {_files(y)} here{where}"
        xv, yv = x.get("variant", {}), y.get("variant", {})
        for name in list(xv) + [n for n in yv if n not in xv]:
            if xv.get(name) != yv.get(name):
                return f"variant {name}={xv.get(name, '(unset)')} there, {yv.get(name, '(unset)')} here{where}"
    return "the stored study description differs"


def _files(ident: dict[str, Any]) -> str:
    shown = [f"seat {s} {k}={d[:19]}…" for s, files in enumerate(ident.get("bot_files") or []) for k, d in files]
    return ", ".join(shown) or "none"


def manifest_text(data: dict[str, Any]) -> str:
    """The manifest as written: its contents plus a checksum of them, so that an edit by
    hand (a seed, the chunk size, a chunk's record) is detected on the next read."""
    body = {k: v for k, v in data.items() if k != "checksum"}
    body["checksum"] = _manifest_checksum(body)
    return json.dumps(body, indent=1)


def record_text(record: dict[str, Any]) -> str:
    """A study's ``study.json`` as its command writes it: the record plus a checksum of it,
    as the manifest has, so that an edit by hand (``games_per_run``, a target, the budget:
    what the report reads the results by) is detected by every reader (``check_record``)."""
    return manifest_text(record) + "\n"


def _manifest_checksum(body: dict[str, Any]) -> str:
    canon = json.dumps({k: v for k, v in body.items() if k != "checksum"}, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canon.encode()).hexdigest()


class StudyStore:
    """The one writer of a results directory (it holds ``_lock``).  Every chunk it writes
    is recorded in the manifest with its row count and the SHA-256 of its bytes; a chunk
    whose bytes, rows or configuration columns disagree with the record is recomputed by
    the next run (``repairs`` says which)."""

    def __init__(self, path: str | Path, study: dict[str, Any], chunk: int = DEFAULT_CHUNK, lock=None,
                 chunks: dict[str, dict] | None = None, games_used: int | None = None):
        self.path = Path(path)
        self.study = study
        self.chunk = chunk
        self._lock = lock
        self.records: dict[str, dict] = dict(chunks or {})
        # a bare store's (``play --out``, no study.json): the games per configuration the
        # last command that finished with it used, which its report reads (None: all)
        self.games_used = games_used
        self.repairs: list[str] = []  # "name (why)" of each chunk found damaged and recomputed

    @classmethod
    def open(cls, path: str | Path, study: dict[str, Any], chunk: int = DEFAULT_CHUNK) -> "StudyStore":
        """Create ``path`` for this study, or reopen it to resume the same study; either
        way this process holds the directory's lock until :meth:`close`."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise ResultsError(f"{path} exists and is not a directory")
        check_foreign(path)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ResultsError(f"cannot create {path}: {exc.strerror or exc}") from None
        lock = _acquire(path)
        try:
            stored = read_manifest(path) if (path / MANIFEST).exists() else None
            if stored is not None and stored["study"] != study and not stored["chunks"]:
                # a run that stopped before its first chunk (a plugin or agent that failed,
                # then mended): no game to keep, so the folder is this study's
                stored = None
            if stored is not None:
                if stored["study"] != study:
                    raise ResultsError(f"{path} holds results of a different study: "
                                       f"{difference(stored['study'], study)}; use another --out directory")
                chunk = int(stored["chunk"])
                odd = [n for n, r in stored["chunks"].items() if not CHUNK_RE.match(n)
                       or int(CHUNK_RE.match(n).group(2)) % chunk or int(r.get("rows", 0)) > chunk]
                if odd:  # chunks of another size would overlap the ones this run writes
                    raise ResultsError(f"{path / MANIFEST} gives a chunk size of {chunk} games, but records "
                                       f"{odd[0]}, a chunk of another size; restore the manifest or recompute "
                                       "into another --out directory")
                other = other_files(path)
                if other:  # a resume ignores them, as every reader does, and says so
                    warnings.warn(ResultsWarning(f"{path}: ignoring {len(other)} file(s) that are not results "
                                                 f"chunks ({_names(other)})"), stacklevel=2)
                return cls(path, study, chunk, lock, stored.get("chunks"), stored.get("games_used"))
            store = cls(path, study, chunk, lock)
            store._save()
            return store
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

    def _save(self) -> None:
        data = {"format": FORMAT, "version": VERSION, "chunk": self.chunk, "study": self.study,
                "chunks": dict(sorted(self.records.items()))}
        if self.games_used is not None:
            data["games_used"] = self.games_used
        text = manifest_text(data)
        write_atomically(self.path / MANIFEST, lambda tmp: tmp.write_text(text))

    def file(self, task) -> Path:
        return self.path / chunk_name(task.run, task.start)

    def has(self, task) -> bool:
        """Whether the task's games are stored and intact.  A shorter chunk (left by a
        study of fewer games) is recomputed; a longer one already holds them; a missing,
        unrecorded or damaged one is recomputed and named in ``repairs``."""
        f = self.file(task)
        record = self.records.get(f.name)
        if record is None:
            if f.exists():
                self.repairs.append(f"{f.name} (not recorded in {MANIFEST})")
            return False
        try:
            load_chunk(f, record, task.run, task.start, self.study, columns=["run", "index"])
        except ResultsError as exc:
            self.repairs.append(f"{f.name} ({getattr(exc, 'why', 'unreadable')})")
            del self.records[f.name]  # not stored, as far as this run counts
            return False
        return int(record["rows"]) >= task.count

    def note_games_used(self, games: int) -> None:
        """Record that a command finished using games [0, ``games``) of each configuration."""
        if self.games_used != games:
            self.games_used = games
            self._save()

    def kept(self, tasks) -> int:
        """How many of ``tasks``' games are stored and recorded (for a stop's message)."""
        return sum(t.count for t in tasks
                   if int(self.records.get(chunk_name(t.run, t.start), {}).get("rows", 0)) >= t.count)

    def write(self, task, frame: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, schema=arrow_schema(frame), preserve_index=False)
        f = self.file(task)
        tmp = f.with_name("." + f.name + ".tmp")
        try:
            # no pandas metadata: it would record per-file dtypes (float for a column that is
            # null in this chunk) and the dataset's files would disagree
            pq.write_table(table.replace_schema_metadata(None), tmp)
            digest = file_digest(tmp)
            with signals_deferred():  # the file and its record change together
                os.replace(tmp, f)
                self.records[f.name] = {"rows": int(table.num_rows), "sha256": digest}
                self._save()
        except OSError as exc:
            raise write_error(f, exc) from None
        finally:
            tmp.unlink(missing_ok=True)

    def read(self, task) -> pd.DataFrame:
        """The stored chunk, verified, cut to the task's games."""
        f = self.file(task)
        record = self.records.get(f.name)
        if record is None:
            raise ResultsError(f"results file {f} is not recorded in {MANIFEST}; rerun to recompute it")
        df = load_chunk(f, record, task.run, task.start, self.study).to_pandas()
        if len(df) > task.count:
            df = df[df["index"] < task.start + task.count].reset_index(drop=True)
        return df

    def stored_games(self, run: int = 0) -> int:
        """Games [0, n) of configuration ``run`` that are recorded (as the manifest says)."""
        return stored_prefix(self.records, run)


def stored_prefix(records: dict[str, dict], run: int) -> int:
    n = 0
    while True:
        record = records.get(chunk_name(run, n))
        if record is None or int(record["rows"]) < 1:
            return n
        n += int(record["rows"])


def stored_count(path: str | Path) -> int:
    """How many games the manifest of store ``path`` records (0 when there is none yet)."""
    try:
        data = read_manifest(path)
    except ResultsError:
        return 0
    return sum(int(r.get("rows", 0)) for r in data.get("chunks", {}).values())


def write_error(path: Path, exc: OSError) -> ResultsError:
    import errno

    why = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC or "No space left" in str(exc):
        return ResultsError(f"cannot write {path}: no space left on the device; free some space and rerun the "
                            "same command to resume (finished chunks are kept)")
    return ResultsError(f"cannot write {path}: {why}")


@contextlib.contextmanager
def signals_deferred():
    """Ctrl-C and SIGTERM wait until the block is done (a chunk and its record in the
    manifest change together), then take effect as usual."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in old:
        signal.signal(s, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if caught:
            signal.raise_signal(caught[0])


class ChunkError(ResultsError):
    """A chunk that is not what the manifest records; ``why`` says how, in a few words."""

    def __init__(self, f: Path, why: str):
        self.file, self.why = f, why
        super().__init__(f"results file {f}: {why}; `playlab verify {f.parent}` says what to recompute, and "
                         "rerunning the study's command recomputes it")

    def __reduce__(self):  # raised in a report's worker process, it is unpickled in the parent
        return (type(self), (self.file, self.why))


def _identity_columns(run: int, ident: dict[str, Any]) -> dict[str, Any]:
    """The configuration columns every row of configuration ``run`` carries, with their
    value (a data file option holds a path in the rows and a content hash in the
    manifest, so it is checked by the manifest's identity alone)."""
    cols: dict[str, Any] = {"run": run}
    for key in ("game", "players", "seed"):
        if key in ident:
            cols[key] = ident[key]
    for name, value in (ident.get("variant") or {}).items():
        if not (isinstance(value, str) and value.startswith("sha256:")):
            cols[name] = value
    for s, label in enumerate(ident.get("bots") or []):
        cols[f"bot_{s}"] = label
    return cols


def load_chunk(f: Path, record: dict, run: int, start: int, study: dict[str, Any], columns=None):
    """The chunk ``f`` as an Arrow table, after checking every byte against the SHA-256
    recorded in the manifest, its row count, that its rows are games start, start+1, … of
    configuration ``run``, and that their configuration columns (seed, game, players,
    options, bots) are the manifest's.  ``columns``: a list of names, or a function that
    picks names from the file's columns (the configuration columns are read either way).
    Raises :class:`ChunkError`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        data = f.read_bytes()
    except FileNotFoundError:
        raise ChunkError(f, "missing") from None
    except OSError as exc:
        raise ChunkError(f, f"unreadable ({exc.strerror or exc})") from None
    if "sha256:" + hashlib.sha256(data).hexdigest() != record.get("sha256"):
        raise ChunkError(f, f"its bytes do not match the checksum recorded in {MANIFEST} (damaged or replaced)")
    runs = study.get("runs") or []
    ident = runs[run] if run < len(runs) else {}
    expect = _identity_columns(run, ident)
    try:
        buf = pa.BufferReader(data)
        names = pq.read_schema(buf).names
        if columns is None:
            want = names
        else:
            picked = columns(names) if callable(columns) else list(columns)
            want = [c for c in names if c in set(picked) | set(expect) | {"run", "index"}]
        table = pq.read_table(pa.BufferReader(data), columns=want)
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise ChunkError(f, f"not a readable Parquet file ({type(exc).__name__})") from None
    if table.num_rows != int(record.get("rows", -1)):
        raise ChunkError(f, f"{table.num_rows} rows, {record.get('rows')} recorded")
    if "index" not in table.column_names or "run" not in table.column_names:
        raise ChunkError(f, "no run or index column")
    try:
        check_rows(f, table.column("run").to_numpy(), table.column("index").to_numpy(), run, start)
    except ResultsError as exc:
        raise ChunkError(f, str(exc).split(": ", 1)[-1].split("; delete", 1)[0]) from None
    for name, value in expect.items():
        if name == "run":
            continue
        if name not in table.column_names:
            raise ChunkError(f, f"no {name} column, which configuration {run} has")
        col = table.column(name)
        values = col.unique().to_pylist() if col.null_count == 0 else [None]
        if len(values) != 1 or values[0] != value or type(values[0]) is bool and not isinstance(value, bool):
            shown = ", ".join(str(v) for v in values[:3])
            raise ChunkError(f, f"its rows have {name} {shown}, the manifest's configuration {run} has {value}")
    if columns is not None:  # the asked-for columns, and always run and index
        picked = set(columns(names) if callable(columns) else columns) | {"run", "index"}
        table = table.select([c for c in table.column_names if c in picked])
    return table


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


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of store ``path``, after checking its own checksum."""
    manifest = Path(path) / MANIFEST
    try:
        raw = manifest.read_bytes()
    except FileNotFoundError:
        check_foreign(Path(path))
        raise ResultsError(f"{path} holds no playlab results ({MANIFEST} missing)") from None
    except OSError as exc:
        raise ResultsError(f"cannot read results manifest {manifest}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsError(f"corrupt results manifest {manifest}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or "study" not in data or "chunk" not in data:
        raise ResultsError(f"corrupt results manifest {manifest}")
    if data.get("version", 0) < VERSION:
        raise ResultsError(f"{path} was written by an older playlab (format {data.get('version')}) whose chunks "
                           "carry no checksums; recompute it into another --out directory")
    if data.get("checksum") != _manifest_checksum(data):
        raise ResultsError(f"results manifest {manifest} was edited: its contents do not match its checksum; "
                           "restore it, or recompute the study into another --out directory")
    if not isinstance(data.get("chunks"), dict) or not isinstance(data["chunk"], int) or data["chunk"] < 1:
        raise ResultsError(f"corrupt results manifest {manifest}")
    return data


# ---- reading: every stored byte verified -----------------------------------------------------
class ResultsWarning(UserWarning):
    """Files in a results directory that are not its chunks (ignored by the reader)."""


# files playlab itself may leave in a store (``playlab report DIR`` of a play --out store)


@dataclass
class StoredChunk:
    run: int
    start: int
    rows: int
    file: Path
    record: dict


class Results:
    """A results directory opened for reading: its manifest (checksum checked), the
    recorded chunks, and what else lies there (``ignored``, named in one warning).  The
    chunks of each configuration must cover games 0, 1, … without a gap or an overlap."""

    def __init__(self, path: str | Path):
        path = Path(path)
        if not path.is_dir():
            raise ResultsError(f"{path} is not a directory")
        if not (path / MANIFEST).exists() and (path / RESULTS_DIR / MANIFEST).exists():
            path = path / RESULTS_DIR  # a study's --out folder
        self.path = path
        self.manifest = read_manifest(path)
        self.study = self.manifest["study"]
        # the study command's record beside its results (None: a play --out store)
        self.record: dict | None = None
        record_file = path.parent / STUDY_RECORD
        if path.name == RESULTS_DIR and record_file.is_file():
            try:
                record = json.loads(record_file.read_bytes().decode("utf-8"))
            except (OSError, ValueError) as exc:
                raise ResultsError(f"corrupt study record {record_file}: {exc}") from None
            check_record(record, self.study, record_file)
            self.record = record
        self.chunk = int(self.manifest["chunk"])
        records = self.manifest["chunks"]
        self.chunks: list[StoredChunk] = []
        self.unrecorded: list[str] = []
        for entry in sorted(path.iterdir()):
            name = entry.name
            m = CHUNK_RE.match(name)
            if m and name in records and entry.is_file():
                self.chunks.append(StoredChunk(int(m.group(1)), int(m.group(2)), int(records[name]["rows"]),
                                               entry, records[name]))
            elif m:
                self.unrecorded.append(name)
        self.ignored = other_files(path)
        self.missing = sorted(n for n in records if not (path / n).is_file())
        self.chunks.sort(key=lambda c: (c.run, c.start))

    @property
    def runs(self) -> list[dict]:
        return self.study.get("runs", [])

    def command_record(self) -> dict:
        """What the command that wrote these results did, as its ``study.json`` says; for a
        ``play --out`` store (no study.json) a record made from the manifest: kind play, its
        seed and configurations, and ``games_per_run``, the games the last play into it used,
        when the manifest records them (an older one does not: every game is used)."""
        if self.record is not None:
            return self.record
        record = {"kind": "play", "seed": self.study["seed"], "runs": self.study["runs"]}
        if "games_used" in self.manifest:
            record["games_per_run"] = int(self.manifest["games_used"])
        return record

    def warning(self) -> str | None:
        """One sentence naming the files the reader ignores, or None."""
        parts = []
        if self.ignored:
            parts.append(f"{len(self.ignored)} file(s) that are not results chunks ({_names(self.ignored)})")
        if self.unrecorded:
            parts.append(f"{len(self.unrecorded)} chunk file(s) not recorded in {MANIFEST} "
                         f"({_names(self.unrecorded)}; a rerun of the study recomputes them)")
        return f"{self.path}: ignoring " + " and ".join(parts) if parts else None

    def coverage_problems(self) -> list[str]:
        """Gaps and overlaps in each configuration's chunks (chunks as recorded)."""
        problems = []
        by_run: dict[int, list[StoredChunk]] = {}
        for c in self.chunks:
            by_run.setdefault(c.run, []).append(c)
        for name in self.missing:
            m = CHUNK_RE.match(name)
            problems.append(f"{name} is recorded in {MANIFEST} but missing (games "
                            f"{int(m.group(2))}-{int(m.group(2)) + int(self.manifest['chunks'][name]['rows']) - 1} "
                            f"of configuration {int(m.group(1))})" if m else f"{name} is recorded but missing")
        for run, chunks in sorted(by_run.items()):
            if run >= len(self.runs):
                problems.append(f"{chunks[0].file.name} belongs to configuration {run}, but the study has "
                                f"{len(self.runs)}")
                continue
            n = 0
            for c in chunks:
                if c.start > n:
                    problems.append(f"games {n}-{c.start - 1} of configuration {run} are missing")
                elif c.start < n:
                    problems.append(f"{c.file.name} holds games {c.start}-{c.start + c.rows - 1} of configuration "
                                    f"{run}, some of them also in the chunk before it (duplicate games)")
                n = max(n, c.start + c.rows)
        return problems

    def check_coverage(self) -> None:
        problems = self.coverage_problems()
        if problems:
            raise ResultsError(f"{self.path}: {problems[0]}; `playlab verify {self.path}` lists every problem, "
                               "and rerunning the study's command recomputes what is missing")

    def iter_chunks(self, columns=None, games: int | dict[int, int] | None = None
                    ) -> Iterator[tuple[int, int, pd.DataFrame]]:
        """(run, first index, frame) of every chunk in order, each verified as it is read
        (:func:`load_chunk`), so a summary can stream a study in constant memory.  With
        ``games``: only games [0, games) of each configuration, or of configuration r
        [0, games[r]) (a balance race gives its variants different numbers; one missing: none)."""
        self.check_coverage()
        for c in self.chunks:
            keep = games.get(c.run, 0) if isinstance(games, dict) else games
            if keep is not None and c.start >= keep:
                continue
            df = load_chunk(c.file, c.record, c.run, c.start, self.study, columns).to_pandas()
            if keep is not None and c.start + c.rows > keep:
                df = df[df["index"] < keep].reset_index(drop=True)
            yield c.run, c.start, df

    def frame(self, columns=None, games: int | None = None) -> pd.DataFrame:
        frames = [df for _, _, df in self.iter_chunks(columns, games)]
        if not frames:
            raise ResultsError(f"{self.path} holds no result chunks")
        return pd.concat(frames, ignore_index=True)  # chunks come in (run, index) order


def _names(names: list[str], most: int = 5) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def open_results(path: str | Path, warn: bool = True) -> Results:
    """The results directory ``path`` (a store, or a study's --out folder holding
    ``results/``) opened for reading; files that are not its chunks are named in one
    :class:`ResultsWarning`."""
    results = Results(path)
    message = results.warning()
    if warn and message:
        warnings.warn(ResultsWarning(message), stacklevel=3)
    return results


def read_results(path: str | Path, columns=None, games: int | None = None) -> pd.DataFrame:
    """Every game of a study as one frame, ordered by configuration and index, with every
    stored byte verified: each chunk against the SHA-256 in the manifest, its rows against
    its name and the manifest's configuration (seed, game, options, bots), the manifest
    against its own checksum, the chunks for gaps and duplicates.  Anything wrong is a
    :class:`ResultsError` saying what to do; files that are not chunks (``notes.txt``) are
    ignored and named in one warning.  ``path``: a study's --out folder or its
    ``results/`` (or a ``play --out`` folder); ``columns``: names to read (or a function
    choosing from the names); ``games``: the first ``games`` of each configuration."""
    return open_results(path).frame(columns, games)


def iter_chunks(path: str | Path, columns=None, games: int | None = None):
    """(run, first index, frame) of every chunk of ``path``, each verified as it is read."""
    return open_results(path).iter_chunks(columns, games)


def load_results(path: str | Path, games: int | None = None) -> pd.DataFrame:
    return read_results(path, games=games)


def find_stores(root: str | Path) -> list[Path]:
    """Every results directory (a folder holding a manifest) at or below ``root``."""
    return sorted({m.parent for m in Path(root).rglob(MANIFEST)})


def check_record(record: dict, study: dict, record_file: Path) -> None:
    """A study's ``study.json`` says what its results' manifest says (seed, and game,
    players, bots and seed of every configuration): the report labels the study by it."""
    runs = record.get("runs")
    if record.get("seed") != study.get("seed") or not isinstance(runs, list) or len(runs) != len(study["runs"]):
        raise ResultsError(f"{record_file} does not describe the results beside it (seed {record.get('seed')} "
                           f"there, {study.get('seed')} in {RESULTS_DIR}/{MANIFEST}); restore it or rerun the study")
    for r, (a, b) in enumerate(zip(runs, study["runs"])):
        for key in ("game", "players", "bots", "seed"):
            if a.get(key) != b.get(key):
                raise ResultsError(f"{record_file} does not describe the results beside it ({key} {a.get(key)} "
                                   f"there, {b.get(key)} in {RESULTS_DIR}/{MANIFEST}, configuration {r}); "
                                   "restore it or rerun the study")
    # a record written before it carried a checksum is read as it is
    if "checksum" in record and record["checksum"] != _manifest_checksum(record):
        raise ResultsError(f"{record_file} was edited after its command wrote it (its checksum does not match); "
                           "restore it or rerun the study's command")
