"""Ctrl-C and SIGTERM stop a study within a second in every phase and say how many games
are stored (issue 23).  PLAYLAB_SHOW_PHASES makes the command print each phase it enters;
PLAYLAB_HOLD_PHASE makes that phase last, so that the signal lands in it."""
import os
import signal
import subprocess
import sys
import time

import pytest

TOURNAMENT = [sys.executable, "-m", "playlab.cli", "tournament", "moon", "--bots", "random,greedy", "--threads", "1",
              "--no-progress", "--boot", "20"]


def stop_in(phase, sig, out, games, hold=True, after=0.0, command=None):
    env = dict(os.environ, PLAYLAB_SHOW_PHASES="1", **({"PLAYLAB_HOLD_PHASE": phase} if hold else {}))
    args = command or TOURNAMENT + ["--games", str(games)]
    run = subprocess.Popen(args + ["--out", str(out)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env)
    try:
        for line in run.stderr:
            if line.strip() == f"phase: {phase}":
                break
        else:
            pytest.fail(f"the run ended before phase {phase}: {run.wait()}")
        time.sleep(after)
        t0 = time.monotonic()
        run.send_signal(sig)
        rest = run.stderr.read()
        run.wait(timeout=30)
        return time.monotonic() - t0, run.returncode, [l for l in rest.splitlines() if not l.startswith("phase: ")]
    finally:
        run.kill()


@pytest.mark.parametrize("phase, sig, games, says", [
    ("start-up", signal.SIGTERM, 100, "interrupted during start-up; nothing was written ({results} was not "
                                      "created yet)"),
    # held in the main thread before a chunk: the line the watchdog prints when a compiled
    # chunk outlasts its grace, worded as the study's own
    ("simulation", signal.SIGINT, 100, "interrupted during simulation: 0 of 600 games are stored in {results}"),
    ("summarising", signal.SIGINT, 100, "interrupted during summarising: 600 games are stored in {results}"),
    ("ratings", signal.SIGTERM, 100, "interrupted during ratings: 600 games are stored in {results}"),
])
def test_a_stop_in_each_phase_is_quick_and_says_what_is_stored(tmp_path, phase, sig, games, says):
    out = tmp_path / "t"
    seconds, code, lines = stop_in(phase, sig, out, games)
    assert code == 130 and seconds < 1.0, (seconds, lines)
    tail = "" if phase == "start-up" else "; rerun the same command to resume"
    assert lines == [f"error: {says.format(results=out / 'results')}{tail}"]


def test_a_held_stop_counts_this_runs_games_not_the_folders(tmp_path):
    """The watchdog's line counted every game in the folder against this run's: after a run
    of 600 games, a rerun of 300 held in simulation said "600 of 300 games are stored"."""
    out = tmp_path / "t"
    assert subprocess.run(TOURNAMENT + ["--games", "100", "--out", str(out)], capture_output=True).returncode == 0
    _, code, lines = stop_in("simulation", signal.SIGINT, out, 50)
    assert code == 130
    assert lines == [f"error: interrupted during simulation: 300 of 300 games are stored in {out / 'results'}; "
                     "rerun the same command to resume"]


def test_a_balance_search_stopped_says_the_rounds_games(tmp_path):
    out = tmp_path / "b"
    balance = [sys.executable, "-m", "playlab.cli", "balance", "moon", "--vary", "target_score=11,21", "--target",
               "fpa<=0.001", "--first-round", "100", "--budget", "1000", "--threads", "1", "--no-progress"]
    _, code, lines = stop_in("simulation", signal.SIGINT, out, 0, command=balance)
    assert code == 130
    assert lines == [f"error: interrupted during simulation: 0 of this round's 200 games are stored in "
                     f"{out / 'results'}; rerun the same command to resume"]


def test_a_stop_while_simulating_is_quick_and_says_what_is_stored(tmp_path):
    out = tmp_path / "t"
    seconds, code, lines = stop_in("simulation", signal.SIGINT, out, 2_000_000, hold=False, after=0.5)
    assert code == 130 and seconds < 1.0, (seconds, lines)
    assert len(lines) == 1 and lines[0].startswith("error: interrupted during simulation: 0 of 12000000 games are stored in ")


def test_a_python_agent_decides_only_in_the_simulation_phase(tmp_path):
    # the compiled kernels warm up with a game before the simulation starts; an agent's game
    # may take any time, so it is not played then (a stop would have said "start-up")
    agent = tmp_path / "loud.py"
    agent.write_text("import sys\n"
                     "class Loud:\n"
                     "    def __init__(self, game, players, seat, **params): pass\n"
                     "    def act(self, view):\n"
                     "        print('act', file=sys.stderr, flush=True)\n"
                     "        return view.legal_actions[0]\n")
    env = dict(os.environ, PLAYLAB_SHOW_PHASES="1")
    run = subprocess.run([sys.executable, "-m", "playlab.cli", "play", "moon", "--bots", f"py:{agent}:Loud,greedy,greedy",
                          "--games", "2", "--threads", "1", "--no-progress", "--out", str(tmp_path / "o")],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = [ln for ln in run.stderr.splitlines() if ln in ("act", "phase: simulation")]
    assert "act" in lines and lines[0] == "phase: simulation", lines[:3]


def test_a_stop_swallowed_by_a_callback_is_still_reported_as_the_stop(monkeypatch, capsys):
    # Ctrl-C landing inside a C callback (Numba's compiler calls back into Python) is
    # swallowed there; the compiler then fails with an error of its own ("no compiled
    # object yet"), which must read as the stop, not as an internal error
    import experiments.play
    from playlab import stopping
    from playlab.cli import main

    def compile_interrupted(*args, **kwargs):
        try:
            stopping._stop(signal.SIGINT, None)
        except KeyboardInterrupt:
            pass  # what the callback's caller did with it
        raise RuntimeError("no compiled object yet for <Library 'estimate_tricks'>")

    monkeypatch.setattr(experiments.play, "execute", compile_interrupted)
    with pytest.raises(SystemExit) as exc:
        main(["play", "moon", "--games", "2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 130
    assert err == ["error: interrupted during start-up; no games are stored (--out DIR keeps finished chunks "
                   "to resume)"]
    # and a later command's own error, in the same process, is not taken for a stop
    def fails(*args, **kwargs):
        raise ValueError("a bad value")

    monkeypatch.setattr(experiments.play, "execute", fails)
    with pytest.raises(SystemExit) as exc:
        main(["play", "moon", "--games", "2"])
    assert exc.value.code == 2 and capsys.readouterr().err.strip() == "error: a bad value"


@pytest.mark.parametrize("args, code", [(["play", "moon", "--games", "2"], 0), (["play", "moon", "--games", "0"], 2)])
def test_the_program_ends_through_its_exit_handlers_with_its_status(tmp_path, args, code):
    # the program skips the interpreter's teardown (pyarrow's thread pool can abort there,
    # stopping.leave), but Python's exit handlers still run and the status is the command's
    marker = tmp_path / "ran"
    script = ("import atexit, sys\n"
              f"atexit.register(lambda: open({str(marker)!r}, 'w').write('ran'))\n"
              f"sys.argv = ['playlab', *{args!r}]\n"
              "from playlab.cli import main\n"
              "main()\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert run.returncode == code, run.stderr
    assert marker.read_text() == "ran"
    assert ("games/s" in run.stdout) if code == 0 else run.stderr.startswith("error: ")
