"""Results on disk: a Parquet dataset of fixed-size chunks plus a manifest.

``DIR/_run.json`` names the run (game, players, bots, variant, seed) and the chunk size;
``DIR/part-<first index>.parquet`` holds games [first, first + chunk).  Chunks are written
to a temporary name and renamed, so an interrupted run leaves only whole chunks and a
rerun computes just the missing ones.  The leading underscore keeps the manifest out of
``pandas.read_parquet(DIR)``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

MANIFEST = "_run.json"
FORMAT = "playlab-results"
VERSION = 1
DEFAULT_CHUNK = 100_000


class ResultsError(ValueError):
    pass


def chunk_name(start: int) -> str:
    return f"part-{start:012d}.parquet"


class ResultsStore:
    def __init__(self, path: str | Path, run: dict[str, Any], chunk: int = DEFAULT_CHUNK):
        self.path = Path(path)
        self.run = run
        self.chunk = chunk

    @classmethod
    def open(cls, path: str | Path, run: dict[str, Any], chunk: int = DEFAULT_CHUNK) -> "ResultsStore":
        """Create ``path`` for this run, or reopen it to resume the same run."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise ResultsError(f"{path} exists and is not a directory")
        manifest = path / MANIFEST
        if manifest.exists():
            stored = read_manifest(path)
            if stored["run"] != run:
                raise ResultsError(f"{path} holds results of a different run; use another --out directory")
            return cls(path, run, int(stored["chunk"]))
        if path.exists() and any(path.iterdir()):
            raise ResultsError(f"{path} is not empty and holds no playlab results")
        path.mkdir(parents=True, exist_ok=True)
        tmp = manifest.with_suffix(".tmp")
        tmp.write_text(json.dumps({"format": FORMAT, "version": VERSION, "chunk": chunk, "run": run}, indent=1))
        os.replace(tmp, manifest)
        return cls(path, run, chunk)

    def chunks(self, games: int) -> list[tuple[int, int]]:
        return [(s, min(self.chunk, games - s)) for s in range(0, games, self.chunk)]

    def has(self, start: int, count: int) -> bool:
        """Whether games [start, start+count) are stored.  A shorter chunk (left by a run
        of fewer games) is recomputed; a longer one already holds them; an unreadable one
        is an error."""
        f = self.path / chunk_name(start)
        if not f.exists():
            return False
        try:
            import pyarrow.parquet as pq

            rows = pq.ParquetFile(f).metadata.num_rows
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise ResultsError(f"corrupt results file {f} ({type(exc).__name__}); delete it to recompute") from None
        return rows >= count

    def write(self, start: int, frame: pd.DataFrame) -> None:
        f = self.path / chunk_name(start)
        tmp = f.with_name("." + f.name + ".tmp")
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, f)

    def load(self, games: int | None = None) -> pd.DataFrame:
        return load_results(self.path, games)


def read_manifest(path: str | Path) -> dict[str, Any]:
    manifest = Path(path) / MANIFEST
    try:
        data = json.loads(manifest.read_text())
    except FileNotFoundError:
        raise ResultsError(f"{path} holds no playlab results ({MANIFEST} missing)") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"corrupt results manifest {manifest}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or "run" not in data or "chunk" not in data:
        raise ResultsError(f"corrupt results manifest {manifest}")
    return data


def load_results(path: str | Path, games: int | None = None) -> pd.DataFrame:
    """All stored games (or the first ``games``) in index order."""
    path = Path(path)
    read_manifest(path)
    frames = []
    for f in sorted(path.glob("part-*.parquet")):
        try:
            frames.append(pd.read_parquet(f))
        except Exception as exc:
            raise ResultsError(f"corrupt results file {f} ({type(exc).__name__})") from None
    if not frames:
        raise ResultsError(f"{path} holds no result chunks")
    df = pd.concat(frames, ignore_index=True).sort_values("index", kind="stable").reset_index(drop=True)
    if games is not None:
        df = df[df["index"] < games].reset_index(drop=True)
    return df
