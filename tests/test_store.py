"""Results written in chunks: resume after an interruption, refuse foreign or corrupt files."""
import pandas as pd
import pytest

from experiments.play import execute
from experiments.store import ResultsError, load_results
from runtime.runner import RunConfig


def config(seed=3, **variant):
    return RunConfig.build("moon", 3, "random", variant, seed)


def test_resume_computes_only_missing_chunks_and_matches_a_fresh_run(tmp_path):
    out = tmp_path / "r"
    full = execute(config(), 250, out=str(out), chunk=100)
    assert full.simulated == 250
    parts = sorted(out.glob("part-*.parquet"))
    assert len(parts) == 3
    parts[1].unlink()  # as if interrupted before chunk 2 was written
    again = execute(config(), 250, out=str(out), chunk=100)
    assert again.simulated == 100
    pd.testing.assert_frame_equal(again.frame, full.frame)
    fresh = execute(config(), 250)
    pd.testing.assert_frame_equal(fresh.frame, full.frame)


def test_extending_a_run_keeps_stored_games(tmp_path):
    out = tmp_path / "r"
    execute(config(), 150, out=str(out), chunk=100)
    more = execute(config(), 300, out=str(out), chunk=100)
    assert more.simulated == 100 + 100  # the short chunk [100, 200) is redone whole; [200, 300) is new
    assert list(more.frame["index"]) == list(range(300))
    fewer = execute(config(), 120, out=str(out), chunk=100)
    assert fewer.simulated == 0 and len(fewer.frame) == 120


def test_a_different_run_is_refused(tmp_path):
    out = tmp_path / "r"
    execute(config(), 50, out=str(out))
    with pytest.raises(ResultsError, match="different study"):
        execute(config(seed=4), 50, out=str(out))
    with pytest.raises(ResultsError, match="different study"):
        execute(config(min_bid=5), 50, out=str(out))


def test_a_folder_holding_no_games_yet_is_taken_by_another_run(tmp_path):
    """A run that stopped before its first chunk (a plugin or agent that failed, then
    mended, so the study's identity changed) left a manifest and no game: the mended
    run takes the folder, where it was refused as a different study."""
    from experiments.store import StudyStore

    out = tmp_path / "r"
    StudyStore.open(out, {"seed": 1, "runs": ["before the mend"]}).close()
    result = execute(config(), 20, out=str(out))
    assert result.simulated == 20 and len(load_results(str(out))) == 20


def test_a_corrupt_chunk_is_refused_by_the_reader_and_recomputed_by_a_rerun(tmp_path):
    out = tmp_path / "r"
    first = execute(config(), 50, out=str(out))
    part = next(out.glob("part-*.parquet"))
    part.write_bytes(b"not parquet at all")
    with pytest.raises(ResultsError, match="do not match the checksum"):
        load_results(out)
    again = execute(config(), 50, out=str(out))
    assert again.simulated == 50 and "recomputing 1 damaged chunk" in again.note
    pd.testing.assert_frame_equal(load_results(out), first.frame)


def test_corrupt_manifest_and_foreign_directory(tmp_path):
    out = tmp_path / "r"
    execute(config(), 20, out=str(out))
    (out / "_study.json").write_text("{")
    with pytest.raises(ResultsError, match="corrupt results manifest"):
        execute(config(), 20, out=str(out))
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ResultsError, match="not empty"):
        execute(config(), 20, out=str(other))
