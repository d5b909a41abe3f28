"""A Dask scheduler that goes away mid-run (its process killed, as when its machine is lost):
`playlab play --cluster` stops with one `error:` line that says how many games are stored and
how to resume, no traceback, a non-zero exit; and the same command without the cluster then
finishes the study from what was stored, with the rows of an uninterrupted local run."""
import logging
import os
import signal
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path

import pandas as pd
import pytest

import distributed  # noqa: F401  (the cluster extra: CI installs it, a missing one must fail)

from experiments.store import load_results

GAMES, CHUNK = 60000, 1000

# one process holding the scheduler and an in-process worker: killing it loses both at once
CLUSTER = """
import sys, time
from distributed import LocalCluster
lc = LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                  dashboard_address=None)
print(lc.scheduler_address, flush=True)
time.sleep(600)
"""


def playlab(*args):
    return [sys.executable, "-m", "playlab.cli", *args]


def test_a_lost_scheduler_is_one_error_line_and_the_run_resumes_locally(tmp_path):
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    sched = subprocess.Popen([sys.executable, "-c", CLUSTER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env=env)
    try:
        address = sched.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        out = tmp_path / "r"
        args = ["play", "moon", "--bots", "random", "--games", str(GAMES), "--chunk", str(CHUNK), "--seed", "5",
                "--out", str(out), "--no-progress", "--json"]
        run = subprocess.Popen(playlab(*args, "--cluster", address), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
        # kill the scheduler once a few chunks are stored and the run is under way
        deadline = time.time() + 240
        while time.time() < deadline and run.poll() is None:
            if len(list(out.glob("part-*.parquet"))) >= 3:
                break
            time.sleep(0.05)
        assert run.poll() is None, "the run ended before the scheduler could be killed: " + run.stderr.read()
        os.kill(sched.pid, signal.SIGKILL)
        sched.wait(30)
        stdout, stderr = run.communicate(timeout=120)
    finally:
        if sched.poll() is None:
            sched.kill()
    assert run.returncode != 0
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert "Traceback" not in stderr, stderr
    errors = [ln for ln in lines if ln.startswith("error:")]
    assert len(errors) == 1, stderr
    line = errors[0]
    assert f"lost the Dask scheduler at {address}" in line, line
    assert "games are stored in" in line and "rerun the same command" in line, line
    stored = int(line.split(" games are stored")[0].split(";")[-1].split(" of ")[0].strip())
    assert 3 * CHUNK <= stored < GAMES and stored % CHUNK == 0, line
    assert len(load_results(out)) == stored  # what it says is stored is what the store holds

    # the same command without --cluster finishes the study: every game once, as a local run
    done = subprocess.run(playlab(*args), capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    ref = tmp_path / "ref"
    subprocess.run(playlab(*[a if a != str(out) else str(ref) for a in args]), check=True, capture_output=True,
                   env=env, timeout=300)
    resumed, local = (load_results(d).sort_values("index", kind="stable").reset_index(drop=True) for d in (out, ref))
    assert list(resumed["index"]) == list(range(GAMES))
    pd.testing.assert_frame_equal(resumed, local)


def test_tornado_reports_of_a_closed_scheduler_connection_are_dropped_and_other_errors_kept():
    """The study reports a lost scheduler itself; tornado's log of the ``as_completed``
    tracking task that fails with it (a traceback, seen when the loss lands during a gather)
    is dropped. Any other error tornado logs still reaches stderr."""
    from distributed.comm.core import CommClosedError

    from experiments.cluster import _quiet_lost_scheduler_logs

    _quiet_lost_scheduler_logs()
    _quiet_lost_scheduler_logs()  # twice: one filter, not two
    log = logging.getLogger("tornado.application")
    assert len(log.filters) == 1

    def record(exc):
        try:
            raise exc
        except BaseException:
            return log.makeRecord(log.name, logging.ERROR, __file__, 1, "Exception in callback", (), sys.exc_info())

    assert not log.filter(record(CommClosedError("in <TCP (closed) ConnectionPool.gather>: Stream is closed")))
    assert log.filter(record(ValueError("a real bug")))
    assert log.filter(log.makeRecord(log.name, logging.ERROR, __file__, 1, "no exception", (), None))


# a task as experiments.cluster runs it (its config's kernels already "compiled" on the worker)
BigTask = namedtuple("BigTask", "run start config")
BigConfig = namedtuple("BigConfig", "kernel_key")


def big_result(task):
    """A 200 MB result: the client's gather of it takes long enough for the scheduler to be
    killed while it is in flight (what tornado then logged, a game chunk's gather hits now and
    then)."""
    import numpy as np

    time.sleep(0.2 * (task.start % 5))
    return np.ones(25_000_000)


@pytest.mark.parametrize("delay", [1.0, 1.6, 2.4])
def test_a_scheduler_lost_during_a_gather_is_one_error_and_no_traceback(delay, capfd, caplog):
    """Without the filter of tornado's log most such kills printed a traceback (4 of 6 by hand,
    2 of these 3 in each of two runs)."""
    import threading

    from experiments.cluster import DaskExecutor, ExecutorError

    cluster = "import experiments.cluster as c; c._COMPILED.add('big')\n" + CLUSTER
    # the worker imports big_result from this module
    here = Path(__file__).resolve().parent
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=os.pathsep.join([str(here.parent), str(here)]))
    sched = subprocess.Popen([sys.executable, "-c", cluster], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env=env)
    try:
        address = sched.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        ex = DaskExecutor(address)
        killer = threading.Timer(delay, lambda: os.kill(sched.pid, signal.SIGKILL))
        killer.start()
        with pytest.raises(ExecutorError, match="lost the Dask scheduler"):
            for _ in ex.map(big_result, [BigTask(0, i, BigConfig("big")) for i in range(40)]):
                pass
        killer.join()
        time.sleep(1.0)  # tornado logs the failed tracking task just after the loss
        ex.close()
    finally:
        if sched.poll() is None:
            sched.kill()
    err = capfd.readouterr().err
    assert "Traceback" not in err, err
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not logged, [r.getMessage() for r in logged]
