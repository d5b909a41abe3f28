"""A game and the bots of a run assembled into compiled kernels.

``kernels_for(game, bots)`` binds the generic engine (``simcore.engine``) to the game's
protocol functions and to a dispatch chain over exactly the run's compiled bots (their
names, in order: kind k + 1 is ``bots[k]``), so a run compiles only the bots it uses.

Numba's on-disk cache keeps one entry per compiled copy under its qualified name, which
carries the hash of every source that went into it: the game module (``game_tag``), each
bot's key (``BotEntry.key``: its sources' digest, which for a plugin covers every module
the plugin loaded, and the data its copy carries: a model, the policy a search calls) and, through the cache directory (``simcore``), playlab's own kernel sources.  An
edited game, bot or plugin therefore compiles afresh and never runs stale machine code,
whether or not ``NUMBA_CACHE_DIR`` is set.
"""
from __future__ import annotations

import glob
import hashlib
import os
import sys
import tempfile
import threading
import types
from contextlib import contextmanager
from functools import lru_cache

from bots.registry import bot_entry, bound_policy
from simcore import engine
from simcore.games import load_game
from simcore.protocol import bind, game_tag


def chain_digest(game_name: str, bots: tuple[str, ...]) -> str:
    """Names a dispatch chain: its bots in order, each one's key (the hash of its sources and
    what its compiled copy carries: a model, the policy a search calls) and how it is linked
    (view or state, legal actions listed or not).  The chain's cached code holds its bots'
    code, so whatever renames a bot's copy renames the chain."""
    h = hashlib.sha256()
    for name in bots:
        e = bot_entry(game_name, name)
        h.update(f"{name}:{e.key(game_name)}:{e.sees}:{e.legal};".encode())
    return h.hexdigest()[:12] if bots else "random"


def cache_is_cold(game: types.ModuleType, qualifier: str) -> bool:
    """No compiled engine for this game and chain in Numba's on-disk cache yet (its index
    files are named after the bound copy's qualified name)."""
    import numba

    base = numba.config.CACHE_DIR
    if not base:
        return False
    name = f"engine.{game_tag(game)}__{qualifier}__*.nbi"  # any entry point of this chain compiled before
    return not glob.glob(os.path.join(glob.escape(base), "**", glob.escape(name).replace(r"[*]", "*")),
                         recursive=True)


def policy_signature():
    """The argument types the engine hands a bot's policy (C-contiguous arrays)."""
    from numba import types as nt

    i1, i2, f2 = nt.int64[::1], nt.int64[:, ::1], nt.float64[:, ::1]
    return (i1, i1, nt.int64, f2, i1, i1, nt.int64, i2, f2)


def compiled_plugin_policy(game_name: str, name: str):
    """A plugin bot's policy compiled now, so that a bot that does not compile is one error
    naming its plugin (built-in bots compile with the engine): an error in its body, a
    signature that does not take the engine's nine arguments, or an answer that is not an
    integer (the engine's own compile would otherwise fail with a page of Numba's typing)."""
    from numba import types as nt
    from numba.core.errors import NumbaError

    from .plugins import PluginError

    policy = bound_policy(game_name, name)
    entry = bot_entry(game_name, name)
    if entry.plugin is not None:
        where = f"plugin {entry.plugin}: bot {name} does not compile for {game_name}"
        signature = policy_signature()
        try:
            policy.compile(signature)
        except NumbaError as exc:
            first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip() and "pipeline" not in ln), str(exc))
            raise PluginError(f"{where}: {first}") from None
        except TypeError as exc:  # Numba's "Signature mismatch: 9 argument types given, but …"
            first = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise PluginError(f"{where}: {first} (a policy takes view, legal, n, bot_params, params, rng, seat, "
                              "imem, fmem)") from None
        returned = next((s.return_type for s in policy.nopython_signatures if tuple(s.args) == signature), None)
        if returned is not None and not isinstance(returned, nt.Integer):  # a bool is no action id either
            raise PluginError(f"{where}: it returns {returned}, not an integer action")
    return policy


@contextmanager
def file_lock(name: str, where: str | None = None):
    """An exclusive lock shared by every process of this user on this host that names it
    (a file under ``where``, else the temporary directory; released by the kernel if the
    holder dies).  Without ``fcntl`` (Windows) it does not lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on the platforms CI runs
        yield
        return
    folder = where or tempfile.gettempdir()
    try:
        os.makedirs(folder, exist_ok=True)
        fh = open(os.path.join(folder, f"{name}-{os.getuid()}.lock"), "a")
    except OSError:  # a folder this user cannot write: no lock, as without fcntl
        yield
        return
    with fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class CompiledOnce:
    """An engine entry point whose first call in this process compiles it (or loads it from
    Numba's on-disk cache) under a lock named after its chain, then runs it.  Two processes
    that start the same chain at once (the test suite's two workers, two runs side by side)
    would otherwise both compile it, for minutes, and write the same cache entries
    together; the second now waits and loads what the first wrote.  Only the compile is
    under the lock, never the games."""

    def __init__(self, dispatcher, lock_name: str, announce=None):
        self._dispatcher = dispatcher
        self._lock_name = lock_name
        self._announce = announce  # says that a compile starts, if it does (run under the lock)
        self._ready = False
        self._guard = threading.Lock()

    def __call__(self, *args):
        if not self._ready:
            self._compile(args)
        return self._dispatcher(*args)

    def _compile(self, args) -> None:
        import numba

        d = self._dispatcher
        with self._guard:
            if self._ready:
                return
            where = os.path.join(numba.config.CACHE_DIR, "locks") if numba.config.CACHE_DIR else None
            with file_lock(self._lock_name, where):
                if self._announce is not None:
                    self._announce()
                d.compile(tuple(d.typeof_pyval(a) for a in args))
            self._ready = True

    def __getattr__(self, name):  # py_func, signatures, … of the dispatcher
        return getattr(self._dispatcher, name)


@lru_cache(maxsize=None)
def kernels_for(game_name: str, bots: tuple[str, ...] = ()) -> types.SimpleNamespace:
    """The engine's entry points for ``game_name`` with the compiled bots ``bots``."""
    game = load_game(game_name)
    digest = chain_digest(game_name, bots)
    qualifier = f"bots_{digest}"

    def announce():
        # the first use compiles for a while in silence otherwise; asked under the chain's
        # lock, so a process that waited for another's compile loads it and says nothing
        if cache_is_cold(game, qualifier):
            what = f" with {', '.join(bots)}" if bots else ""
            print(f"compiling the {game_name} kernels{what} (first use only; later runs load them from the cache)",
                  file=sys.stderr, flush=True)

    chain = bind(engine, ("no_bot",), game, qualifier="chain_end", **engine.JIT_OPTIONS)["no_bot"]
    for k in range(len(bots), 0, -1):
        name = bots[k - 1]
        entry = bot_entry(game_name, name)
        link = engine.LINK_TEMPLATES[entry.sees]
        # the link and the check of its bot's answer, bound with that bot's constants
        extra = {"bot": compiled_plugin_policy(game_name, name), "rest": chain, "KIND": k,
                 "LISTS_LEGAL": entry.legal, "LISTS_AFTER": not entry.legal and entry.plugin is not None,
                 "NUM_ACTIONS": max(1, game.INFO.num_actions)}
        chain = bind(engine, ("legal_answer", link), game, extra=extra, qualifier=f"{qualifier}_k{k}",
                     **engine.JIT_OPTIONS)[link]
    extra = {"dispatch": chain, "NUM_ACTIONS": max(1, game.INFO.num_actions)}
    bound = bind(engine, engine.TEMPLATES, game, extra=extra, qualifier=qualifier, **engine.JIT_OPTIONS)
    lock = f"playlab-compile-{game_tag(game)}-{qualifier}"
    return types.SimpleNamespace(game=game, bots=bots, **{k: CompiledOnce(bound[k], lock, announce)
                                                          for k in engine.ENTRY_POINTS})
