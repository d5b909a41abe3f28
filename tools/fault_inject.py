"""Fault injection for the results store: flip random bits in random chunks (and in the
manifest) of a small study and show that every flip is detected, by ``playlab verify``'s
checks and by the public reader ``playlab.read_results``.

    python tools/fault_inject.py --trials 200 --seed 1

Each trial copies nothing: it flips one bit of one file, runs both checks, and flips the
bit back (the pristine store is checked again at the end).  It also counts how many flips
a bare ``pyarrow.parquet.read_table`` would have read back without an error, and how many
of those changed values: the silent corruptions the checksums exist for.  Exit status 1
when any flip went undetected.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def flip(path: Path, byte: int, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[byte] ^= 1 << bit
    path.write_bytes(bytes(data))


def bare_read(path: Path, pristine):
    """(read without error, values changed) for pyarrow alone."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception:
        return False, False
    try:
        return True, not table.equals(pristine)
    except Exception:
        return True, True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=200, help="bit flips in chunks (at least 100 for the issue)")
    ap.add_argument("--manifest-trials", type=int, default=50, help="bit flips in the manifest")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--chunk", type=int, default=200)
    ap.add_argument("--dir", default=None, help="where to build the study  [default: a temporary folder]")
    args = ap.parse_args(argv)

    import pyarrow.parquet as pq

    from experiments.play import execute
    from experiments.store import MANIFEST, ResultsError, read_results
    from experiments.verify import verify_store
    from runtime.runner import RunConfig

    rng = random.Random(args.seed)
    root = Path(args.dir or tempfile.mkdtemp(prefix="playlab-faults-"))
    out = root / "store"
    config = RunConfig.build("moon", 3, "random", {}, 3)
    t0 = time.perf_counter()
    execute(config, args.games, out=str(out), chunk=args.chunk, progress=False, keep_frame=False)
    chunks = sorted(out.glob("part-*.parquet"))
    pristine = {c: pq.read_table(c) for c in chunks}
    baseline = read_results(out)
    print(f"store: {len(chunks)} chunks of {args.chunk} games ({args.games} games, moon, random bots) in {out}; "
          f"built in {time.perf_counter() - t0:.1f} s")

    counts = {"trials": 0, "verify": 0, "reader": 0, "bare_ok": 0, "bare_changed": 0}
    missed = []
    t0 = time.perf_counter()
    for trial in range(args.trials):
        f = rng.choice(chunks)
        size = f.stat().st_size
        byte, bit = rng.randrange(size), rng.randrange(8)
        flip(f, byte, bit)
        try:
            ok, changed = bare_read(f, pristine[f])
            counts["bare_ok"] += ok
            counts["bare_changed"] += ok and changed
            verdict = verify_store(out)
            by_verify = any(f.name in p for p in verdict.problems)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    read_results(out)
                by_reader = False
            except ResultsError as exc:
                by_reader = f.name in str(exc)
            counts["trials"] += 1
            counts["verify"] += by_verify
            counts["reader"] += by_reader
            if not (by_verify and by_reader):
                missed.append((f.name, byte, bit, by_verify, by_reader))
        finally:
            flip(f, byte, bit)
    chunk_seconds = time.perf_counter() - t0

    manifest = out / MANIFEST
    m_counts = {"trials": 0, "verify": 0, "reader": 0}
    for trial in range(args.manifest_trials):
        size = manifest.stat().st_size
        byte, bit = rng.randrange(size), rng.randrange(8)
        flip(manifest, byte, bit)
        try:
            verdict = verify_store(out)
            try:
                read_results(out)
                by_reader = False
            except ResultsError:
                by_reader = True
            m_counts["trials"] += 1
            m_counts["verify"] += not verdict.ok
            m_counts["reader"] += by_reader
            if verdict.ok or not by_reader:
                missed.append((MANIFEST, byte, bit, not verdict.ok, by_reader))
        finally:
            flip(manifest, byte, bit)

    intact = verify_store(out).ok and read_results(out).equals(baseline)
    n = counts["trials"]
    print(f"chunk bit flips: {n} (seed {args.seed}) in {chunk_seconds:.1f} s; detected by verify {counts['verify']}/{n}, "
          f"by read_results {counts['reader']}/{n}")
    print(f"  a bare pyarrow read_table read {counts['bare_ok']}/{n} of them without an error, "
          f"{counts['bare_changed']} with changed values (silent corruption without the checksums)")
    print(f"manifest bit flips: {m_counts['trials']}; detected by verify {m_counts['verify']}/{m_counts['trials']}, "
          f"by read_results {m_counts['reader']}/{m_counts['trials']}")
    print(f"store intact after restoring every flip: {intact}")
    for name, byte, bit, v, r in missed:
        print(f"MISSED: {name} byte {byte} bit {bit} (verify {v}, reader {r})")
    if not args.dir:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    return 0 if not missed and intact else 1


if __name__ == "__main__":
    sys.exit(main())
