"""Stopping the `playlab` program: Ctrl-C and SIGTERM end it within a second in every
phase (start-up and compiling, simulation, summarising, ratings) with one line that says
how many games are stored.

The study layer's own message counts exactly what was written; elsewhere the count comes
from the store's manifest.  A watchdog thread is woken by the signal itself
(``signal.set_wakeup_fd``), so even while the main thread is in a long call that keeps
Python's handler from running it prints the line after ``GRACE`` seconds and ends the
process.  Chunks are renamed into place and recorded together, so ending at any point
keeps the store whole.
"""
from __future__ import annotations

import os
import signal
import sys
import threading

GRACE = 0.6  # seconds the main thread has to stop by itself before the watchdog ends the process

STATE = {"store": None, "phase": "start-up", "stop_line": None, "lock": threading.Lock(), "said": False,
         "hard_exit": False, "signalled": False}


def phase(name: str, stop_line=None) -> None:
    """The phase a stop message names (start-up, simulation, summarising, ratings, reading);
    ``stop_line``: in simulation, the study's own stop line ("K of N games are stored", of
    the games this run plays), which the watchdog prints as the study would."""
    STATE["phase"] = name
    STATE["stop_line"] = stop_line
    if os.environ.get("PLAYLAB_SHOW_PHASES"):  # for the tests of stopping in each phase
        print(f"phase: {name}", file=sys.stderr, flush=True)
        if os.environ.get("PLAYLAB_HOLD_PHASE") == name:  # a long phase, to be stopped in
            import time

            time.sleep(60)


def hook_study() -> None:
    """Let the study layer report its phases (called where a command runs a study)."""
    from experiments import study

    study.PHASE_HOOK = phase


def said() -> None:
    """The main thread printed the error line: the watchdog must not print another."""
    with STATE["lock"]:
        STATE["said"] = True


def stopped_line(message: str | None = None) -> str:
    """What a stop says: the study layer's exact count, or the store's manifest's."""
    if message and " stored in " in message:
        return message
    store = STATE["store"]
    where = STATE["phase"]
    if where == "reading":
        return "interrupted while reading results; nothing was written"
    if not store:
        return message or f"interrupted during {where}; no games are stored (--out DIR keeps finished chunks to resume)"
    from pathlib import Path

    from experiments.store import stored_count

    if not Path(store).exists():
        # stopped before the study made its folder: say so, not "0 games are stored in" a
        # folder the user will not find
        return f"interrupted during {where}; nothing was written ({store} was not created yet)"
    if where == "simulation" and STATE["stop_line"] is not None:
        # the study's own line: a stop while a compiled chunk holds the main thread past
        # the grace is the same stop as one the study catches (it counted the whole folder
        # against this run's games before: more than all of them, after a smaller rerun)
        return STATE["stop_line"]()
    return (f"interrupted during {where}: {stored_count(store)} games are stored in {store}; "
            "rerun the same command to resume")


def _watchdog(fd: int) -> None:
    import time

    while True:
        try:
            data = os.read(fd, 64)
        except OSError:
            return
        if not any(b in (signal.SIGINT, signal.SIGTERM) for b in data):
            continue
        time.sleep(GRACE)
        with STATE["lock"]:
            if not STATE["said"]:
                STATE["said"] = True
                try:
                    line = stopped_line()
                except Exception:
                    line = "interrupted"
                os.write(2, f"error: {line}\n".encode())
        os._exit(130)


def _stop(signum, frame):
    # remembered before raising: a Ctrl-C that lands inside a C callback (Numba's compiler
    # calls back into Python) is swallowed there, and the caller then fails in some other
    # way; the command line reports that failure as the stop it is (``signalled``)
    STATE["signalled"] = True
    raise KeyboardInterrupt


def signalled() -> bool:
    """Whether Ctrl-C or SIGTERM arrived while this command ran."""
    return STATE["signalled"]


def install(program: bool) -> None:
    """SIGTERM stops like Ctrl-C; for the program itself (not a call from Python, as in the
    tests) also the watchdog, and a stop skips the interpreter's teardown."""
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    STATE.update(store=None, phase="start-up", total=None, said=False, hard_exit=program, signalled=False)
    if program and threading.current_thread() is threading.main_thread():
        r, w = os.pipe()
        os.set_blocking(w, False)
        signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        threading.Thread(target=_watchdog, args=(r,), daemon=True, name="playlab-stop").start()


def leave(code: int) -> None:
    """The program's normal end: Python's exit handlers run (the agents' process pool,
    Dask, multiprocessing), then the process ends without the interpreter's teardown and
    without C++'s static destructors.  pyarrow's thread pool can abort the process there
    ("terminate called without an active exception", exit 134: apache/arrow#34314): after
    printing its verdict, `playlab verify` aborted so in 9 of 120 runs on a loaded machine
    before this, in none of 120 after."""
    if STATE["hard_exit"]:
        import atexit

        # what the interpreter's own exit does first, in its order: wait for the threads and
        # run threading's exit hooks (a process pool's workers are sent home there), then
        # the atexit handlers
        threading._shutdown()
        atexit._run_exitfuncs()
        exit_now(code)


def exit_now(code: int) -> None:
    """A stop of the program ends now: the interpreter's teardown (seconds with Numba and
    Dask loaded) is skipped; every stored file is already whole and the lock dies with the
    process."""
    if STATE["hard_exit"]:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
