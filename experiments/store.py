"""A study's results on disk: a Parquet dataset of task chunks plus a manifest.

``DIR/_study.json`` names the study (its seed and every configuration) and the chunk
size; ``DIR/part-<run>-<first index>.parquet`` holds games [first, first + chunk) of
configuration ``run``.  Every file has the study's schema (the union of its
configurations' columns; a column a configuration lacks is null), so
``pandas.read_parquet(DIR)`` reads the whole study as one tidy frame.  Chunks are written
to a temporary name and renamed, so an interrupted study leaves only whole chunks and a
rerun computes just the missing ones.  The leading underscore keeps the manifest out of
``pandas.read_parquet(DIR)``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:  # the study layer imports this module
    from .study import Task

MANIFEST = "_study.json"
OLD_MANIFEST = "_run.json"
FORMAT = "playlab-study"
VERSION = 2
DEFAULT_CHUNK = 100_000


class ResultsError(ValueError):
    pass


def chunk_name(run: int, start: int) -> str:
    return f"part-{run:04d}-{start:012d}.parquet"


class StudyStore:
    def __init__(self, path: str | Path, study: dict[str, Any], chunk: int = DEFAULT_CHUNK):
        self.path = Path(path)
        self.study = study
        self.chunk = chunk

    @classmethod
    def open(cls, path: str | Path, study: dict[str, Any], chunk: int = DEFAULT_CHUNK) -> "StudyStore":
        """Create ``path`` for this study, or reopen it to resume the same study."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise ResultsError(f"{path} exists and is not a directory")
        manifest = path / MANIFEST
        if manifest.exists():
            stored = read_manifest(path)
            if stored["study"] != study:
                raise ResultsError(f"{path} holds results of a different study (or run); use another --out directory")
            return cls(path, study, int(stored["chunk"]))
        if (path / OLD_MANIFEST).exists():
            raise ResultsError(f"{path} holds results in an older playlab format; use another --out directory")
        if path.exists() and any(path.iterdir()):
            raise ResultsError(f"{path} is not empty and holds no playlab results")
        path.mkdir(parents=True, exist_ok=True)
        tmp = manifest.with_suffix(".tmp")
        tmp.write_text(json.dumps({"format": FORMAT, "version": VERSION, "chunk": chunk, "study": study}, indent=1))
        os.replace(tmp, manifest)
        return cls(path, study, chunk)

    def file(self, task: "Task") -> Path:
        return self.path / chunk_name(task.run, task.start)

    def has(self, task: "Task") -> bool:
        """Whether the task's games are stored.  A shorter chunk (left by a study of fewer
        games) is recomputed; a longer one already holds them; an unreadable one is an
        error."""
        f = self.file(task)
        if not f.exists():
            return False
        try:
            import pyarrow.parquet as pq

            rows = pq.ParquetFile(f).metadata.num_rows
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise ResultsError(f"corrupt results file {f} ({type(exc).__name__}); delete it to recompute") from None
        return rows >= task.count

    def write(self, task: "Task", frame: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        f = self.file(task)
        tmp = f.with_name("." + f.name + ".tmp")
        table = pa.Table.from_pandas(frame, schema=arrow_schema(frame), preserve_index=False)
        # no pandas metadata: it would record per-file dtypes (float for a column that is
        # null in this chunk) and the dataset's files would disagree
        pq.write_table(table.replace_schema_metadata(None), tmp)
        os.replace(tmp, f)

    def read(self, task: "Task") -> pd.DataFrame:
        """The stored chunk, cut to the task's games."""
        f = self.file(task)
        df = _read(f)
        if len(df) > task.count:
            df = df[df["index"] < task.start + task.count].reset_index(drop=True)
        return df


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
        raise ResultsError(f"{path} holds no playlab results ({MANIFEST} missing)") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"corrupt results manifest {manifest}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or "study" not in data or "chunk" not in data:
        raise ResultsError(f"corrupt results manifest {manifest}")
    return data


def load_results(path: str | Path, games: int | None = None) -> pd.DataFrame:
    """Every stored game (or the first ``games`` of each configuration), ordered by
    configuration and index."""
    path = Path(path)
    read_manifest(path)
    frames = [_read(f) for f in sorted(path.glob("part-*.parquet"))]
    if not frames:
        raise ResultsError(f"{path} holds no result chunks")
    df = pd.concat(frames, ignore_index=True).sort_values(["run", "index"], kind="stable").reset_index(drop=True)
    if games is not None:
        df = df[df["index"] < games].reset_index(drop=True)
    return df
