"""The Dask executor on a real LocalCluster of worker processes (loopback): the same
results as a local run, and a worker killed mid-run loses and duplicates nothing."""
import os
import signal
import time

import pandas as pd
import pytest

import distributed  # the cluster extra: CI installs it, and a missing one must fail, not skip

from experiments.cluster import DaskExecutor  # noqa: E402
from experiments.play import execute  # noqa: E402
from experiments.store import load_results  # noqa: E402
from experiments.study import Study, execute_study  # noqa: E402
from experiments import sweep  # noqa: E402
from runtime.runner import RunConfig  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"}) as lc:
        yield lc


@pytest.fixture
def executor(cluster):
    ex = DaskExecutor(cluster.scheduler_address)
    yield ex
    ex.close()


def study():
    return sweep.build("moon", ["min_bid=5"], 3, "random,greedy,random", 600, 4, chunk=150)


def test_a_study_on_the_cluster_equals_the_local_run(executor, tmp_path):
    local = execute_study(study(), progress=False).frame
    out = tmp_path / "s"
    remote = execute_study(study(), executor=executor, store=str(out), progress=False)
    assert remote.simulated == 1200
    pd.testing.assert_frame_equal(remote.frame, local)
    pd.testing.assert_frame_equal(load_results(out), local)
    info = executor.describe()
    assert info["workers"] == 2 and info["threads_per_worker"] == 1
    # both workers took part (tasks are spread, not run on one)
    assert len(executor.workers) == 2


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(cluster, executor, tmp_path):
    config = RunConfig.build("moon", 3, "random", {}, 11)
    games, chunk = 4000, 250
    local = execute(config, games, chunk=chunk)
    client = executor.client
    victim = {}

    class KillingExecutor:
        """The Dask executor, killing a busy worker once the first result is in."""

        def prepare(self, configs):
            executor.prepare(configs)

        def map(self, fn, tasks):
            for n, pair in enumerate(executor.map(fn, tasks)):
                if n == 0:
                    busy = [w for w, keys in client.processing().items() if keys]
                    victim["addr"] = busy[0]
                    victim["processing"] = len(client.processing()[busy[0]])
                    # the worker process dies at once, as if its machine went away
                    pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                    os.kill(pid, signal.SIGKILL)
                yield pair

    out = tmp_path / "r"
    remote = execute(config, games, chunk=chunk, out=str(out), executor=KillingExecutor())
    assert victim["processing"] >= 1  # it died holding work
    assert victim["addr"] not in client.scheduler_info()["workers"]  # it really went away
    assert remote.simulated == games
    pd.testing.assert_frame_equal(remote.frame, local.frame)
    stored = load_results(out)
    assert list(stored["index"]) == list(range(games))  # each game once
    pd.testing.assert_frame_equal(stored.drop(columns=["run", "game", "seed"]),
                                  local.frame.drop(columns=["run", "game", "seed"]), check_like=True)
    # the nanny restarts the worker; wait so the next test sees two workers
    deadline = time.time() + 30
    while len(client.scheduler_info()["workers"]) < 2 and time.time() < deadline:
        time.sleep(0.2)


def test_play_on_the_cluster_from_the_command_line(cluster, tmp_path):
    from click.testing import CliRunner

    from playlab.cli import cli

    args = ["play", "moon", "--games", "900", "--seed", "2", "--json", "--no-progress"]
    here = CliRunner().invoke(cli, args)
    there = CliRunner().invoke(cli, args + ["--cluster", cluster.scheduler_address])
    assert here.exit_code == 0 and there.exit_code == 0, there.output
    import json

    a, b = json.loads(here.output), json.loads(there.output)
    assert a["seats"] == b["seats"] and a["truncated"] == b["truncated"] and b["games"] == 900


def test_plugin_bots_and_python_agents_play_on_the_cluster(cluster, tmp_path):
    """Workers load the run's plugins and agents themselves: a compiled plugin bot and a
    Python agent beside it give the local rows, and the twins agree there too."""
    from pathlib import Path

    from runtime.plugins import load_plugin

    root = Path(__file__).resolve().parents[1]
    load_plugin(str(root / "examples" / "plugins" / "first_legal_bot.py"))
    agent = "py:" + str(root / "examples" / "agents" / "first_legal.py") + ":FirstLegal"
    ex = DaskExecutor(cluster.scheduler_address)
    frames = []
    try:
        for bots in ("first-legal,greedy,greedy", f"{agent},greedy,greedy"):
            config = RunConfig.build("moon", 3, bots, {}, 6)
            local = execute(config, 600, chunk=150)
            remote = execute(config, 600, chunk=150, executor=ex)
            assert remote.simulated == 600
            pd.testing.assert_frame_equal(remote.frame, local.frame)
            labels = [c for c in local.frame.columns if c == "run" or c.startswith("bot")]
            frames.append(local.frame.drop(columns=labels))
    finally:
        ex.close()
    pd.testing.assert_frame_equal(frames[0], frames[1])  # agent and compiled twin, same rows
