"""Every stored byte verified (issue 23): the six ways a results folder gave silently wrong
numbers are each an error or a correct repair; `playlab verify`; bounded inputs."""
import json
import shutil
import warnings

import pandas as pd
import pytest
from click.testing import CliRunner

from experiments.play import execute
from experiments.store import MANIFEST, ResultsError, ResultsWarning, manifest_text, read_results
from playlab.cli import cli, main
from runtime.runner import RunConfig


def moon(seed=3):
    return RunConfig.build("moon", 3, "random", {}, seed)


def store(tmp_path, name="r", seed=3, games=300):
    out = tmp_path / name
    frame = execute(moon(seed), games, out=str(out), chunk=100).frame
    return out, frame


def parts(out):
    return sorted(out.glob("part-*.parquet"))


def cli_run(capsys, *args):
    """`playlab ARGS` through main (the error handling users see): (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exit_:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return exit_.value.code, out, err


def flip_bit(path, byte, bit=0):
    data = bytearray(path.read_bytes())
    data[byte % len(data)] ^= 1 << bit
    path.write_bytes(bytes(data))


# ---- the six silent cases of issue 23 ----------------------------------------------------------
def test_1_a_flipped_bit_is_refused_by_the_reader_and_recomputed_by_a_rerun(tmp_path):
    out, whole = store(tmp_path)
    flip_bit(parts(out)[1], len(parts(out)[1].read_bytes()) // 2, 3)
    with pytest.raises(ResultsError, match="part-0000-000000000100.parquet: its bytes do not match the checksum"):
        read_results(out)
    again = execute(moon(), 300, out=str(out), chunk=100)
    assert again.simulated == 100 and "recomputing 1 damaged chunk" in again.note
    pd.testing.assert_frame_equal(read_results(out), whole)


def test_2_a_chunk_of_a_seed_4_study_in_a_seed_3_folder_is_recomputed(tmp_path):
    out, whole = store(tmp_path, seed=3)
    other, _ = store(tmp_path, "seed4", seed=4)
    shutil.copy(other / parts(out)[1].name, parts(out)[1])
    again = execute(moon(3), 300, out=str(out), chunk=100)
    assert again.simulated == 100  # not "all games were already stored"
    pd.testing.assert_frame_equal(read_results(out), whole)
    # with its checksum forged into the manifest, the chunk's own seed column still gives it away
    shutil.copy(other / parts(out)[1].name, parts(out)[1])
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["chunks"][parts(out)[1].name] = json.loads((other / MANIFEST).read_text())["chunks"][parts(out)[1].name]
    (out / MANIFEST).write_text(manifest_text(manifest))
    with pytest.raises(ResultsError, match="its rows have seed 4, the manifest's configuration 0 has 3"):
        read_results(out)


def test_3_an_edited_chunk_size_is_refused_and_adds_no_duplicates(tmp_path, capsys):
    out, _ = store(tmp_path)
    text = (out / MANIFEST).read_text()
    (out / MANIFEST).write_text(text.replace('"chunk": 100,', '"chunk": 50,'))
    with pytest.raises(ResultsError, match="was edited: its contents do not match its checksum"):
        execute(moon(), 300, out=str(out), chunk=100)
    code, _, err = cli_run(capsys, "report", out)
    assert code == 2 and err.startswith("error: results manifest") and "was edited" in err and err.count("\n") == 1
    # edited and re-checksummed: the chunks are not of that size, so the run refuses too
    manifest = json.loads(text)
    manifest["chunk"] = 50
    (out / MANIFEST).write_text(manifest_text(manifest))
    with pytest.raises(ResultsError, match="chunk size of 50 games, but records part-0000-000000000000.parquet, a chunk of another size"):
        execute(moon(), 300, out=str(out), chunk=100)
    assert len(parts(out)) == 3


def test_4_a_chunk_copied_over_another_fails_the_report(tmp_path, capsys):
    out, _ = store(tmp_path)
    parts(out)[2].write_bytes(parts(out)[0].read_bytes())
    code, _, err = cli_run(capsys, "report", out)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("error: results file") and "part-0000-000000000200.parquet: its bytes do not match" in err
    assert not (out / "report.html").exists()


def test_5_a_stray_copy_of_a_chunk_is_ignored_and_named(tmp_path, capsys):
    out, whole = store(tmp_path)
    stray = out / "part-0000-000000000100 (copy).parquet"
    shutil.copy(parts(out)[1], stray)
    with pytest.warns(ResultsWarning, match=r"ignoring 1 file\(s\) that are not results chunks \(part-0000-000000000100 \(copy\)"):
        frame = read_results(out)
    pd.testing.assert_frame_equal(frame, whole)
    code, out_, err = cli_run(capsys, "report", out)
    assert code == 0, err
    assert err.count("\n") == 1 and err.startswith("warning: ") and "(copy).parquet" in err
    assert "300 games" in (out / "report.html").read_text().replace(",", "")


def test_a_resume_names_the_files_it_ignores(tmp_path, capsys):
    """As every reader does: a rerun into the folder (here extending it) says in one warning
    line which files it leaves alone, and the games are those of a clean folder."""
    out, _ = store(tmp_path, games=200)
    (out / "notes.txt").write_text("mine")
    shutil.copy(parts(out)[0], out / "part-0000-000000000000 (copy).parquet")
    code, _, err = cli_run(capsys, "play", "moon", "--bots", "random", "--games", 300, "--seed", 3, "--out", out,
                           "--threads", 1)
    assert code == 0, err
    warned = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert warned == [f"warning: {out}: ignoring 2 file(s) that are not results chunks (notes.txt, "
                      "part-0000-000000000000 (copy).parquet)"], err
    clean, _ = store(tmp_path, name="clean", games=300)
    with pytest.warns(ResultsWarning):
        pd.testing.assert_frame_equal(read_results(out), read_results(clean))


def test_6_an_edited_seed_fails_the_report(tmp_path, capsys):
    out, _ = store(tmp_path)
    (out / MANIFEST).write_text((out / MANIFEST).read_text().replace('"seed": 3', '"seed": 4'))
    code, _, err = cli_run(capsys, "report", out)
    assert code == 2 and "was edited" in err and err.count("\n") == 1
    study = tmp_path / "fpa"
    assert CliRunner().invoke(cli, ["fpa", "moon", "--games", "20", "--seed", "3", "--out", str(study)]).exit_code == 0
    record = study / "study.json"
    text = record.read_text()
    record.write_text(text.replace('"seed": 3', '"seed": 4'))
    code, _, err = cli_run(capsys, "report", study)
    assert code == 2 and "study.json does not describe the results beside it (seed 4 there, 3 in" in err
    # what the report reads the results by, edited: the record's checksum tells (games_per_run
    # 20 -> 10 once made the report show 10 games while verify said ok)
    assert '"games_per_run": 20' in text
    record.write_text(text.replace('"games_per_run": 20', '"games_per_run": 10'))
    code, _, err = cli_run(capsys, "report", study)
    assert code == 2 and "study.json was edited after its command wrote it" in err and err.count("\n") == 1
    code, out_text, _ = cli_run(capsys, "verify", study)
    assert code != 0 and "was edited after its command wrote it" in out_text
    record.write_text(text)
    assert cli_run(capsys, "report", study)[0] == 0


def test_notes_in_the_folder_do_not_break_the_reader(tmp_path):
    out, whole = store(tmp_path)
    (out / "notes.txt").write_text("my notes")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_results(out)
    pd.testing.assert_frame_equal(frame, whole)
    assert [str(w.message) for w in caught] == [f"{out}: ignoring 1 file(s) that are not results chunks (notes.txt)"]
    with pytest.warns(ResultsWarning):
        assert list(read_results(out, columns=["win_0"], games=150).columns) == ["run", "index", "win_0"]


# ---- playlab verify -------------------------------------------------------------------------------
def test_verify_names_the_damage_and_a_rerun_recomputes_exactly_those_games(tmp_path, capsys):
    out, whole = store(tmp_path)
    code, text, _ = cli_run(capsys, "verify", out)
    assert code == 0 and "3 intact chunk(s), 300 games" in text and "ok:" in text
    keep = {p.name: p.stat().st_mtime_ns for p in parts(out)}
    flip_bit(parts(out)[1], 1000)
    parts(out)[2].unlink()
    (out / "notes.txt").write_text("x")
    code, text, _ = cli_run(capsys, "verify", out)
    assert code == 1
    assert "problem: part-0000-000000000100.parquet: its bytes do not match the checksum" in text
    assert "problem: part-0000-000000000200.parquet is recorded in _study.json but missing" in text
    assert "recompute: configuration 0 (moon, random,random,random), games 100-199" in text
    assert "recompute: configuration 0 (moon, random,random,random), games 200-299" in text
    assert "not results chunks, ignored by readers: notes.txt" in text
    again = execute(moon(), 300, out=str(out), chunk=100)
    assert again.simulated == 200
    assert parts(out)[0].stat().st_mtime_ns == keep[parts(out)[0].name]  # the intact chunk was not rewritten
    pd.testing.assert_frame_equal(read_results(out), whole)
    code, text, _ = cli_run(capsys, "verify", out)
    assert code == 0 and "3 intact chunk(s), 300 games" in text


def test_verify_of_a_folder_without_results_is_one_error_line(tmp_path, capsys):
    code, _, err = cli_run(capsys, "verify", tmp_path)
    assert code == 2 and err.startswith("error: ") and "holds no playlab results" in err and err.count("\n") == 1


# ---- writing -------------------------------------------------------------------------------------
def test_a_full_disk_names_the_file(tmp_path, monkeypatch):
    import errno

    import pyarrow.parquet as pq

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    with pytest.raises(ResultsError, match=r"cannot write .*part-0000-000000000000.parquet: no space left on the device"):
        execute(moon(), 50, out=str(tmp_path / "r"), chunk=100)
    assert not list((tmp_path / "r").glob(".*.tmp"))


# ---- bounded inputs -------------------------------------------------------------------------------
@pytest.mark.parametrize("args, says", [
    (["play", "moon", "--games", "100000000000000000000000"], "1<=x<=1000000000000"),
    (["fpa", "moon", "--ci-width", "1e-9"], "needs 9.6e+17 games per player count, more than the 100,000,000 it plans at most"),
    (["fpa", "moon", "--ci-width", "0.01", "--pilot", "1.5"], "--pilot: must be between 0 and 1"),
    (["fpa", "moon", "--games", "10", "--pilot", "0.3"], "--pilot only works with --ci-width"),
    (["sweep", "moon", "--vary", "target_score=7", "--pilot", "0.3"], "--pilot only works with --ci-width"),
    (["play", "shifting-stones", "--bots", "greedy:depth=1:depth=2", "--games", "5"], "parameter depth given twice"),
    (["play", "moon", "--games", "5", "--cluster", "bogus://x:1"], "unknown address scheme 'bogus'"),
])
def test_absurd_inputs_are_one_error_line(capsys, args, says):
    import gc

    code, out, err = cli_run(capsys, *args)
    gc.collect()  # a half-built Dask Client would complain from __del__ here
    out_, err_ = capsys.readouterr()
    err += err_
    assert code == 2 and out == "" and err.startswith("error: ") and says in err and err.count("\n") == 1


def test_the_command_line_and_the_store_agree_on_the_largest_study():
    from experiments import store
    from playlab import cli as c

    assert c.MAX_GAMES == store.MAX_GAMES
    with pytest.raises(ValueError, match="at most"):
        from experiments.study import Study

        Study("x", [moon()], store.MAX_GAMES + 1, 3)


@pytest.mark.slow
def test_the_fault_injection_script_detects_every_flip(tmp_path, capsys):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import fault_inject

    assert fault_inject.main(["--trials", "100", "--manifest-trials", "20", "--games", "600", "--chunk", "100",
                              "--dir", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "detected by verify 100/100, by read_results 100/100" in text and "MISSED" not in text


def test_a_chunk_error_survives_the_trip_from_a_report_worker():
    """A report computes sections in forked workers, whose exceptions come back pickled: a
    chunk's error arrives whole (its file, its reason and its one-line message)."""
    import pickle
    from pathlib import Path

    from experiments.store import ChunkError

    err = ChunkError(Path("/r/part-0-0.parquet"), "its bytes do not match the checksum")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is ChunkError and str(back) == str(err)
    assert (back.file, back.why) == (err.file, err.why)
