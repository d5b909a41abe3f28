"""`playlab verify DIR`: a results folder checked completely, every problem named, and
the games a rerun recomputes.

Per store (a folder with ``_study.json``, at or below DIR): the manifest's own checksum;
every recorded chunk's bytes against its SHA-256, its rows against its name and record,
and its configuration columns (seed, game, players, options, bots) against the manifest;
recorded chunks that are missing; chunk files the manifest does not record; gaps and
duplicate games in each configuration's chunks; ``study.json`` beside the store against
the manifest, and each configuration's games against those the study gave it (a balance
search's from its race, replayed: the race stops playing a decided variant early by
design, which is no interruption).  Files that are not chunks are named and left alone.
Rerunning the study's command with the same ``--out`` recomputes exactly the chunks listed
under "recompute".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .store import CHUNK_RE, MANIFEST, ChunkError, Results, ResultsError, find_stores, load_chunk, read_manifest


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
    record = results.command_record()
    if "games_per_run" in record:
        verdict.notes += unfinished(record, results, damaged=not verdict.ok)
    return verdict


def unfinished(record: dict, results: Results, damaged: bool = False) -> list[str]:
    """A note per configuration holding fewer games than the study gave it when it wrote
    ``record`` (its study.json: written when the command finished).  A balance search gives
    its configurations different numbers of games (the race stops playing a variant once it
    is decided), so what each was given comes from the race replayed, not ``games_per_run``
    (the last round's games, which only the variants still undecided then played).  Not
    replayed from a ``damaged`` store (its problems already name the games to recompute)."""
    if damaged and record.get("kind") == "balance":
        return []
    try:
        planned = games_used(record, results)
    except Unplayed as exc:  # the race needs games the store lacks: the search stopped before its end
        return [f"configuration {run} holds {have} of the {want} games {exc.where} (an interrupted study; "
                "a rerun completes it)" for run, have, want in exc.short]
    except (ResultsError, ValueError, KeyError, TypeError) as exc:
        return [f"the balance search could not be replayed from its study.json ({exc}), so the games each "
                "configuration was given are unknown"]
    notes = []
    for run in range(len(results.runs)):
        have = sum(c.rows for c in results.chunks if c.run == run)
        want = planned.get(run, 0)
        if have < want:
            notes.append(f"configuration {run} holds {have} of its {want} games (an interrupted study; a rerun "
                         "completes it)")
    return notes


# ---- the games a study used --------------------------------------------------------------------
class Unplayed(ResultsError):
    """The store lacks games that a round of a balance search played."""

    def __init__(self, message: str, short: list[tuple[int, int, int]], where: str):
        super().__init__(message)
        self.short = short  # (configuration, games stored, games the round played)
        self.where = where


def games_used(record: dict, results: Results) -> dict[int, int] | None:
    """The games [0, n) of each configuration that the study's command used (summarised,
    printed and wrote to its CSV tables) when it wrote ``record`` (its study.json), by
    configuration number; None for a record without ``games_per_run`` (an older ``play
    --out`` store's: all of it).
    A study rerun with fewer ``--games`` uses the first ones of a store holding more, and
    records that number; a balance search's numbers come from :func:`replay_balance`."""
    if "games_per_run" not in record:
        return None
    if record["kind"] == "balance":
        return replay_balance(record, results)[1]
    return {run: int(record["games_per_run"]) for run in range(len(results.runs))}


def replay_balance(record: dict, results: Results):
    """The race of a stored `playlab balance` search run again from its study.json's settings,
    each round's games read from the store instead of played (the race is deterministic given
    its games, so it takes the same rounds and decisions): ``(table, games)``, the command's
    ``balance`` table and the games each configuration was given.  Raises :class:`Unplayed`
    when a round's games are not all stored."""
    import numpy as np
    import pandas as pd

    from . import balance_search as bs

    vary = [f"{k}={','.join(map(str, v))}" for k, v in record["vary"].items()]
    search = bs.build(results.runs[0]["game"], vary, record["targets"], ",".join(map(str, record["players"])),
                      record["bots"], int(record["seed"]), int(record["budget"]),
                      # records written before first_round was kept: their first round was the chunk
                      int(record.get("first_round", record["chunk"])))
    # no round plays past games_per_run (the last round's games): a store holding more (left
    # by an earlier search with a larger budget) is read only that far
    frame = pd.concat([bs.compact(df) for _, _, df in results.iter_chunks(games=int(record["games_per_run"]))],
                      ignore_index=True)
    run, index = frame["run"].to_numpy(), frame["index"].to_numpy()
    looks = []  # the games of each round so far

    def play(study):
        looks.append(study.games)
        part = frame[np.isin(run, study.active) & (index < study.games)]
        if len(part) != study.games * len(study.active):
            held = part["run"].value_counts()
            short = [(r, int(held.get(r, 0)), study.games) for r in study.active if held.get(r, 0) < study.games]
            where = f"round {len(looks)} of the search plays"
            raise Unplayed(f"{results.path}: the balance search played {study.games} games of each of "
                           f"{len(study.active)} configurations in round {len(looks)}, the store holds "
                           f"{len(part)} of them; rerun the search's command to complete it", short, where)
        return part

    table = bs.race(search, play)
    games = {r: int(table["games_per_players"].iloc[v]) for v, runs in enumerate(search.runs) for r in runs}
    return table, games


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
