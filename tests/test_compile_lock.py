"""An engine entry point compiles under a lock named after its chain, so two processes that
start the same chain at once compile it once (runtime.kernels.CompiledOnce)."""
from __future__ import annotations

import threading

import numba
import numpy as np

from runtime.kernels import CompiledOnce, file_lock, kernels_for


@numba.njit
def _total(a, k):
    return a.sum() * k


def test_the_first_call_waits_for_the_chains_lock_and_later_calls_do_not(tmp_path):
    args = (np.arange(4, dtype=np.int64), 3)
    _total(*args)  # compiled already: a call that did not wait would return at once
    entry = CompiledOnce(_total, "chain-x")
    out = []
    lock_dir = str(tmp_path)
    numba.config.CACHE_DIR, before = lock_dir, numba.config.CACHE_DIR
    try:
        with file_lock("chain-x", f"{lock_dir}/locks"):  # another process compiling the chain
            caller = threading.Thread(target=lambda: out.append(entry(*args)))
            caller.start()
            caller.join(0.5)
            assert caller.is_alive() and out == []
        caller.join(10)
        assert out == [18]
        with file_lock("chain-x", f"{lock_dir}/locks"):  # compiled here now: no lock is asked for
            assert entry(*args) == 18
    finally:
        numba.config.CACHE_DIR = before


def test_the_compile_notice_is_asked_for_under_the_lock_so_a_waiting_process_loads_in_silence(tmp_path):
    """kernels_for's notice checks for a cold cache only once it holds the chain's lock: a
    process that waited while another compiled finds the cache warm then and says nothing."""
    args = (np.arange(3, dtype=np.int64), 2)
    _total(*args)
    asked = []
    entry = CompiledOnce(_total, "chain-z", announce=lambda: asked.append(threading.get_ident()))
    numba.config.CACHE_DIR, before = str(tmp_path), numba.config.CACHE_DIR
    try:
        with file_lock("chain-z", f"{tmp_path}/locks"):  # another process compiling the chain
            caller = threading.Thread(target=entry, args=args)
            caller.start()
            caller.join(0.5)
            assert caller.is_alive() and asked == []  # not asked while the other compiles
        caller.join(10)
        assert len(asked) == 1
        assert entry(*args) == 6 and len(asked) == 1  # compiled: never asked again
    finally:
        numba.config.CACHE_DIR = before


def test_every_entry_point_of_a_chain_is_locked_by_the_chains_name():
    k = kernels_for("kuhn", ())
    from simcore.engine import ENTRY_POINTS

    names = {getattr(k, n)._lock_name for n in ENTRY_POINTS}
    assert len(names) == 1 and "kuhn" in names.pop()
    other = kernels_for("kuhn", ("flatmc",))
    assert other.play_games._lock_name != k.play_games._lock_name


def test_a_lock_folder_that_cannot_be_written_locks_nothing_and_fails_nothing():
    ran = []
    with file_lock("chain-y", "/proc/playlab-no-such-folder"):  # not even root may make it
        ran.append(True)
    assert ran == [True]
