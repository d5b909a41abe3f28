"""Running a study's tasks on a Dask distributed cluster (``--cluster ADDR``).

The executor has the interface of :class:`experiments.study.LocalExecutor`: ``map(fn,
tasks)`` yields ``(task, fn(task))`` in completion order.  Each task is a coarse chunk of
many games of one configuration (a store chunk, 100,000 games by default), so scheduling
costs little next to the games.  Results are bit-identical to a local run because a task
is a pure function of itself; the client writes each result to the store under the
task's own name, so a task the scheduler recomputes after losing a worker (Dask does that
by itself for a task whose worker dies) is stored once, and a task is yielded only once
(one future per task).

Numba on workers, by design:

* **compile once per worker, never two at once on a host**: the first task of a game on a
  worker process compiles its kernels (or loads them from the on-disk cache) while holding
  a host-wide file lock, so several workers never write the cache at the same time (which
  can crash them) and every later worker on the host just loads what the first wrote.
  :meth:`DaskExecutor.prepare` does this on every worker before the first task.
* **threads**: a worker runs one kernel call at a time (a process-wide lock: Numba's
  default threading layer is not safe for concurrent calls, and the kernel's own threads
  already fill the cores), with ``--threads`` threads or the worker's ``NUMBA_NUM_THREADS``
  (which must be set when the worker starts; see README "Running across machines").
"""
from __future__ import annotations

import os
import sys
import threading
import uuid
from typing import Any, Callable, Iterable, Iterator

INSTALL_HINT = "pip install 'playlab[cluster]'"

# one kernel call at a time per worker process (see the module notes)
_KERNEL_LOCK = threading.Lock()
_COMPILED: set = set()


class ClusterError(ValueError):
    pass


class ExecutorError(ClusterError):
    """The cluster stopped delivering results; the study layer adds what is stored."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs Dask distributed, which is not installed: {INSTALL_HINT}") from None
    return distributed


def host_lock(name: str = "playlab-numba-compile"):
    """An exclusive lock shared by every process of this user on this host (released by
    the kernel if the holder dies)."""
    from runtime.kernels import file_lock

    return file_lock(name)


def compile_for(configs) -> None:
    """Compile (or load) the kernels of ``configs`` in this process, one process per host
    at a time."""
    from .study import warm_up

    for config in configs:
        key = config.kernel_key
        if key in _COMPILED:
            continue
        with host_lock():
            warm_up([config])
        _COMPILED.add(key)


def run_on_worker(fn: Callable, task, threads: int | None):
    from runtime.runner import set_threads

    with _KERNEL_LOCK:
        set_threads(threads)
        compile_for([task.config])
        return fn(task)


def worker_setup(configs, threads: int | None) -> dict[str, Any]:
    """Compile for ``configs`` on this worker; report its host and Numba threads."""
    import socket

    import numba

    with _KERNEL_LOCK:
        compile_for(configs)
    return {"host": socket.gethostname(), "numba_threads": int(numba.config.NUMBA_NUM_THREADS),
            "threads": int(threads or numba.config.NUMBA_NUM_THREADS), "cores": os.cpu_count()}


def check_address(address) -> None:
    """An address Dask cannot parse is refused before a Client exists (a Client that fails
    in its constructor prints a traceback from ``__del__`` 20 s later).  Parsing the scheme
    alone is not enough: ``foo`` parses as ``tcp://foo`` and only the Client's connection
    finds the missing port, so the host and port are parsed here too."""
    _distributed()
    from distributed.comm import parse_address
    from distributed.comm.registry import get_backend

    hint = "give tcp://HOST:PORT of a `dask scheduler`"
    if not str(address).strip():
        raise ClusterError(f"--cluster needs an address; {hint}")
    try:
        scheme, _ = parse_address(str(address))
        backend = get_backend(scheme)
        if scheme != "inproc":  # in-process addresses (tests) have no host or port
            try:
                _, port = backend.get_address_host_port(str(address))
            except ValueError as exc:  # Dask's own words for a port that is not a number are int()'s
                if "invalid literal for int()" not in str(exc):
                    raise
                raise ValueError("the port after the last ':' is not a number") from None
            if not 0 < port < 65536:
                raise ValueError(f"port {port} is not between 1 and 65535")
    except (ValueError, TypeError) as exc:
        raise ClusterError(f"--cluster {address}: {exc}; {hint}") from None


def _drops_closed_comm(record) -> bool:
    """False for a log record carrying a closed connection (the scheduler went away)."""
    from distributed.comm.core import CommClosedError

    exc = record.exc_info[1] if record.exc_info else None
    return not isinstance(exc, CommClosedError)


def _quiet_lost_scheduler_logs() -> None:
    """A lost scheduler is reported as one error line by the study (with what is stored).
    Dask's own logs would add tracebacks: the client's reconnection attempts, and tornado's
    report of the ``as_completed`` tracking task that fails when the connection closes (it
    appears only when the loss lands during a gather, so a test sees it now and then)."""
    import logging

    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    tornado_log = logging.getLogger("tornado.application")
    if _drops_closed_comm not in tornado_log.filters:
        tornado_log.addFilter(_drops_closed_comm)


class DaskExecutor:
    """Tasks on the Dask scheduler at ``address`` (or through an existing ``client``)."""

    name = "dask"

    def __init__(self, address: str | None = None, threads: int | None = None, client=None,
                 timeout: float = 10.0):
        distributed = _distributed()
        self.threads = threads
        self._own = client is None
        if client is None:
            check_address(address)
            _quiet_lost_scheduler_logs()
            try:
                client = distributed.Client(address, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc} (check the address, "
                                   "and that `dask scheduler` runs there)") from None
        self.client = client
        self.address = client.scheduler.address
        self.workers: dict[str, dict] = {}

    def close(self) -> None:
        if self._own:
            self.client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def prepare(self, configs: Iterable) -> None:
        """Compile on every worker before the first task (so the study's timing is the
        games'), and warn when a host's workers would use more threads than it has cores."""
        configs = list(configs)
        addrs = list(self.client.nthreads())
        if not addrs:
            raise ClusterError(f"the Dask scheduler at {self.address} has no workers")
        futures = [self.client.submit(worker_setup, configs, self.threads, workers=[a], allow_other_workers=False,
                                      pure=False, key=f"playlab-setup-{uuid.uuid4().hex}") for a in addrs]
        self.workers = dict(zip(addrs, self.client.gather(futures)))
        per_host: dict[str, list] = {}
        for info in self.workers.values():
            per_host.setdefault(info["host"], []).append(info)
        for host, infos in per_host.items():
            used = sum(i["threads"] for i in infos)
            cores = infos[0]["cores"] or used
            if used > cores:
                print(f"warning: the {len(infos)} workers on {host} use {used} Numba threads on {cores} cores; "
                      f"start them with NUMBA_NUM_THREADS={max(1, cores // len(infos))} (or pass --threads)",
                      file=sys.stderr)

    def map(self, fn: Callable, tasks: Iterable) -> Iterator[tuple[Any, Any]]:
        distributed = _distributed()
        tasks = list(tasks)
        if not tasks:
            return
        run_id = uuid.uuid4().hex[:12]
        # enough queued tasks to keep every worker busy, few enough that results do not pile
        # up in cluster memory faster than this process stores them
        slots = max(4, 2 * sum(self.client.nthreads().values()))
        pending = iter(tasks)
        by_key: dict[str, Any] = {}
        queue = distributed.as_completed(loop=self.client.loop, with_results=True)

        def submit_next() -> None:
            task = next(pending, None)
            if task is None:
                return
            key = f"playlab-{run_id}-{task.run}-{task.start}"
            by_key[key] = task
            queue.add(self.client.submit(run_on_worker, fn, task, self.threads, key=key, pure=False))

        for _ in range(slots):
            submit_next()
        try:
            for future, result in queue:
                task = by_key.pop(future.key, None)
                if task is None:  # already yielded once (a lost task recomputed): never twice
                    continue
                # a result in hand is kept even when the future's status has moved on since it
                # arrived: a worker killed just after sending it makes the scheduler "lose" the
                # finished task and plan it again (its status is then pending, not finished)
                if isinstance(result, BaseException) or future.status in ("error", "cancelled"):
                    # the scheduler went away (its futures are cancelled) or the task failed
                    why = (f"lost the Dask scheduler at {self.address}" if future.status == "cancelled" or
                           type(result).__name__ in ("FutureCancelledError", "CancelledError", "CommClosedError")
                           else f"a task failed on the cluster: {type(result).__name__}: {result}")
                    raise ExecutorError(why)
                future.release()
                submit_next()
                yield task, result
        finally:
            if by_key:  # interrupted or failed: stop the rest
                self.client.cancel(list(queue.futures))

    def describe(self) -> dict:
        threads = sorted({i["threads"] for i in self.workers.values()}) if self.workers else []
        return {"executor": self.name, "scheduler": self.address, "workers": len(self.workers),
                "threads_per_worker": threads[0] if len(threads) == 1 else threads}


def executor_for(cluster: str | None, threads: int | None):
    """The executor a command's ``--cluster`` / ``--threads`` ask for (None: local)."""
    if not cluster:
        return None
    return DaskExecutor(cluster, threads)
