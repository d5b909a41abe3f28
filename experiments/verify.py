"""`playlab verify DIR`: a results folder checked completely, every problem named, and
the games a rerun recomputes.

Per store (a folder with ``_study.json``, at or below DIR): the manifest's own checksum;
every recorded chunk's bytes against its SHA-256, its rows against its name and record,
and its configuration columns (seed, game, players, options, bots) against the manifest;
recorded chunks that are missing; chunk files the manifest does not record; gaps and
duplicate games in each configuration's chunks; ``study.json`` beside the store against
the manifest.  Files that are not chunks are named and left alone.  Rerunning the study's
command with the same ``--out`` recomputes exactly the chunks listed under "recompute".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .store import (CHUNK_RE, MANIFEST, RESULTS_DIR, ChunkError, Results, ResultsError, check_record, find_stores,
                    load_chunk, read_manifest)


@dataclass
class StoreVerdict:
    path: Path
    chunks: int = 0
    games: int = 0
    problems: list[str] = field(default_factory=list)
    recompute: list[tuple[int, int, int]] = field(default_factory=list)  # (run, first, last) inclusive
    notes: list[str] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        out = [f"{self.path}: {self.chunks} intact chunk(s), {self.games} games in {len(self.runs)} configuration(s)"]
        out += [f"  problem: {p}" for p in self.problems]
        for run, a, b in sorted(self.recompute):
            cfg = self.runs[run] if run < len(self.runs) else {}
            what = f" ({cfg.get('game')}, {','.join(cfg.get('bots', []))})" if cfg else ""
            out.append(f"  recompute: configuration {run}{what}, games {a}-{b}")
        out += [f"  note: {n}" for n in self.notes]
        if self.ok:
            out.append("  ok: every chunk matches its checksum, its name and the manifest's configuration; "
                       "no gaps, no duplicate games")
        return out


def verify_store(path: Path) -> StoreVerdict:
    verdict = StoreVerdict(path)
    try:
        read_manifest(path)
        results = Results(path)
    except ResultsError as exc:
        verdict.problems.append(f"{exc}; nothing in it can be trusted")
        return verdict
    verdict.runs = results.runs
    records = results.manifest["chunks"]
    for name in results.missing:
        m = CHUNK_RE.match(name)
        rows = int(records[name].get("rows", 0))
        verdict.problems.append(f"{name} is recorded in {MANIFEST} but missing")
        if m:
            verdict.recompute.append((int(m.group(1)), int(m.group(2)), int(m.group(2)) + rows - 1))
    for c in results.chunks:
        try:
            load_chunk(c.file, c.record, c.run, c.start, results.study)
        except ChunkError as exc:
            verdict.problems.append(f"{c.file.name}: {exc.why}")
            verdict.recompute.append((c.run, c.start, c.start + c.rows - 1))
            continue
        verdict.chunks += 1
        verdict.games += c.rows
    verdict.problems += [p for p in results.coverage_problems() if "recorded in" not in p]
    for name in results.unrecorded:
        verdict.notes.append(f"{name} is not recorded in {MANIFEST}: readers ignore it, a rerun recomputes "
                             "the games its name claims")
    if results.ignored:
        verdict.notes.append(f"not results chunks, ignored by readers: {', '.join(results.ignored)}")
    record_file = path.parent / "study.json"
    if path.name == RESULTS_DIR and record_file.exists():
        import json

        try:
            record = json.loads(record_file.read_text())
            check_record(record, results.study, record_file)
            want = int(record.get("games_per_run", 0))
        except (OSError, ValueError) as exc:  # json.JSONDecodeError and ResultsError are ValueErrors
            verdict.problems.append(str(exc))
            want = 0
        for run in range(len(results.runs)):
            have = sum(c.rows for c in results.chunks if c.run == run)
            if want and have < want:
                verdict.notes.append(f"configuration {run} holds {have} of its {want} games (an interrupted "
                                     "study; a rerun completes it)")
    return verdict


def verify(directory: str | Path) -> list[StoreVerdict]:
    """Every store at or below ``directory``, checked; raises ResultsError when there is none."""
    root = Path(directory)
    if not root.is_dir():
        raise ResultsError(f"{root} is not a directory")
    stores = find_stores(root)
    if not stores:
        raise ResultsError(f"{root} holds no playlab results (no {MANIFEST} at or below it)")
    return [verify_store(s) for s in stores]


def format_verdicts(verdicts: list[StoreVerdict]) -> str:
    lines = [line for v in verdicts for line in v.lines()]
    bad = [v for v in verdicts if not v.ok]
    if bad:
        n = sum(len(v.problems) for v in bad)
        lines.append(f"{n} problem(s) in {len(bad)} of {len(verdicts)} results folder(s); readers refuse them "
                     "until repaired: rerun each study's command with the same --out to recompute the games "
                     "listed (a damaged manifest: recompute into another --out folder)")
    else:
        lines.append(f"all {len(verdicts)} results folder(s) verified")
    return "\n".join(lines)
