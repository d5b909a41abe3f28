"""Python agents (``--bots py:FILE_OR_MODULE:CLASS[:key=value…]``) in every command.

A game with a Python agent in some seat is played from Python one agent decision at a
time: the compiled engine (``advance``) takes every compiled seat's decisions until an
agent's seat must decide, the agent is shown its seat's view (``AgentView``: the game's
``observe`` of the state, never the state) and its answer is checked and applied.  The deal,
the chance and every compiled bot's stream are the engine's (``start_game``), so game *i* is
the same deal as with compiled bots, and an agent that makes the same choices as a compiled
bot produces the same result row.

Per process, each seat's agent is created once (``CLASS(game=…, players=…, seat=…,
**params)``, parameters as text); ``start(index)`` and ``finish(index, returns)`` are called
around each game when the class has them.  ``view.rng`` is a ``numpy.random.Generator``
seeded from the seat's own bot stream of the game, so an agent that draws only from it is
reproducible.  Batches of games are split between worker processes (``spawn``: each loads
the run's plugins and the agent afresh) when more than one thread is allowed.
"""
from __future__ import annotations

import atexit
import hashlib
import importlib
import importlib.util
import multiprocessing
import os
import signal
import sys
import types
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from simcore.engine import COL_DECISIONS, COL_INDEX, ROW_PREFIX

from . import KernelError, refused
from simcore.rng import bot_stream, stream_key


class AgentError(ValueError):
    """An agent that cannot be loaded, returns an illegal action or raises."""


_MODULES: dict[str, types.ModuleType] = {}
# agent module target -> the files its first import loaded from the agent file's own folder
# tree, the agent's own file first (``agent_files``)
_FILES: dict[str, list[str]] = {}
# agent module target -> the keys of the installed libraries its files import (``agent_libraries``)
_LIBRARIES: dict[str, list[bytes]] = {}


def _failure(exc: BaseException) -> str:
    """An agent's exception in words.  ``SystemExit`` is one too: ``sys.exit()`` in an agent
    would otherwise end the whole run silently with the agent's status."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _is_file(target: str) -> bool:
    """Whether agent module ``target`` names a ``.py`` file rather than an importable module."""
    return target.endswith(".py") or os.sep in target


# agent file target as given -> the absolute path it named where the run was given (a run
# sent to another process or a Dask worker, whose working folder may differ, finds it there)
_LOCATED: dict[str, str] = {}


def _agent_path(target: str) -> Path:
    return Path(_LOCATED.get(target, target)).expanduser()


def locations(targets) -> dict[str, str]:
    """The absolute path of each relative agent file among ``targets``, as found here."""
    return {t: str(Path(t).expanduser().resolve()) for t in targets
            if _is_file(t) and not Path(t).expanduser().is_absolute()}


def remember_locations(found: dict[str, str]) -> None:
    """Where the sending side found its relative agent files (``locations``)."""
    _LOCATED.update(found)


def check_found(target: str, name: str) -> None:
    """Raise ``AgentError`` when agent module ``target`` cannot be found at all (no such
    ``.py`` file, no such importable module), without running any of its code: a typo in
    the command line, told apart from an agent that is found but fails to load."""
    label = f"py:{target}:{name}"
    if _is_file(target):
        if not _agent_path(target).is_file():
            raise AgentError(f"agent {label}: no such file {target}")
        return
    try:
        found = importlib.util.find_spec(target)
    except (ImportError, ValueError):  # a parent package that is missing, or an empty name part
        found = None
    if found is None:
        raise AgentError(f"agent {label}: cannot import {target!r} (no such module)")


def _own_code(module: types.ModuleType, modules) -> tuple[list[str], list[bytes]]:
    """``module``'s file, then the files of ``modules`` (those its import loaded) that lie in
    its folder or below and are no installed distribution's, Python's or playlab's own (the
    rule ``runtime.plugins`` keys a plugin by): the code the agent plays besides its file.
    Second, the keys (``simcore.codehash.distributions_of``) of the installed libraries its
    files import by name, also inside a function: an upgraded or reinstalled library plays
    other moves, as a plugin's does."""
    from simcore.codehash import distributions_of

    from .plugins import _foreign_files

    main = getattr(module, "__file__", None)
    if not main:
        return [], []
    main = str(Path(main).resolve())
    home = os.path.dirname(main) + os.sep
    loaded = {f for f in _foreign_files(modules) if f.startswith(home)}
    named, tops, computed = _imports_named(main, home)
    if computed:  # which of its folder's modules it will import is not written in the source
        named |= _sources_under(home)
    return [main] + sorted((loaded | named) - {main}), distributions_of(tops)


# calls that import a module (or run a file) by a name given as a value: with a name written
# as a string they are read as an import statement, with any other, the name is computed
_IMPORT_CALLS = {"__import__", "import_module", "spec_from_file_location", "run_path", "run_module", "load_source",
                 "SourceFileLoader", "exec_module"}
# folders of the agent's tree that hold no code of its own (an environment, a cache, a VCS)
_NOT_SOURCES = {"__pycache__", "site-packages", "node_modules"}


def _sources_under(home: str) -> set[str]:
    """Every ``.py`` file in ``home``'s folder tree but those of hidden folders (``.venv``,
    ``.git``) and of folders that hold no code of the agent's (``_NOT_SOURCES``)."""
    out = set()
    for root, dirs, files in os.walk(home):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_SOURCES)
        out |= {os.path.join(root, f) for f in files if f.endswith(".py")}
    return out


def _imports_named(path: str, home: str) -> tuple[set[str], set[str], bool]:
    """The files under ``home`` that the import statements of ``path`` name, anywhere in it
    (also inside a function: a helper imported only when the agent is created or first acts
    is not loaded with its module, yet its edit changes the agent's play), and theirs in
    turn; and the top-level names of the absolute imports found nowhere under ``home`` (a
    library's, or Python's).  Read from the source, so a study knows them before any game.
    Third, whether one of these files imports a module by a name it computes
    (``importlib.import_module(name)``, ``__import__(prefix + x)``, a file loaded by path):
    which file that is, no reading of the source can tell."""
    import ast

    found: set[str] = set()
    tops: set[str] = set()
    computed = False
    todo = [path]
    while todo:
        f = todo.pop()
        try:
            tree = ast.parse(Path(f).read_text())
        except (OSError, SyntaxError, ValueError):
            continue
        here = Path(f).parent
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
                if called not in _IMPORT_CALLS:
                    continue
                first = node.args[0] if node.args else None
                if called in ("__import__", "import_module") and isinstance(first, ast.Constant) \
                        and isinstance(first.value, str) and not first.value.startswith("."):
                    names = [(Path(home), first.value)]  # a name written out: read as an import
                else:
                    computed = True
                    continue
            elif isinstance(node, ast.Import):
                names = [(Path(home), a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = Path(home) if node.level == 0 else here.joinpath(*[".."] * (node.level - 1))
                prefix = node.module or ""
                names = [(base, prefix)] + [(base, f"{prefix}.{a.name}" if prefix else a.name) for a in node.names]
            else:
                continue
            absolute = not isinstance(node, ast.ImportFrom) or node.level == 0
            for base, dotted in names:
                if not dotted:
                    continue
                parts = dotted.split(".")
                for i in range(1, len(parts) + 1):  # a package's __init__ runs on the way in
                    stem = base.joinpath(*parts[:i]).resolve()
                    here_too = False
                    for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
                        c = str(candidate)
                        if c.startswith(home) and candidate.is_file():
                            here_too = True
                            if c not in found and c != path:
                                found.add(c)
                                todo.append(c)
                    if i == 1 and absolute and not here_too:
                        tops.add(parts[0])
    return found, tops, computed


def agent_files(target: str, name: str) -> list[str]:
    """The source files agent ``target`` plays by (its module is loaded first if it is not
    yet): its own file, then every module its import loaded from that file's folder tree,
    such as a helper module beside it (a study's identity hashes them all,
    ``experiments.store``).  Empty for a module without a file."""
    load_agent_class(target, name)
    return _FILES.get(target, [])


def agent_libraries(target: str, name: str) -> list[bytes]:
    """``name==version`` and content key of each installed library agent ``target``'s files
    import by name (``simcore.codehash.distributions_of``; playlab's environment left out)."""
    load_agent_class(target, name)
    return _LIBRARIES.get(target, [])


def load_agent_class(target: str, name: str):
    """The class ``name`` of the module or ``.py`` file ``target``."""
    label = f"py:{target}:{name}"
    module = _MODULES.get(target)
    if module is None:
        path = _agent_path(target)
        before = set(sys.modules)
        try:
            if _is_file(target):
                if not path.is_file():
                    raise AgentError(f"agent {label}: no such file {target}")
                key = str(path.resolve())
                mod_name = "playlab_agent_" + "".join(c if c.isalnum() else "_" for c in path.stem) + \
                    "_" + hashlib.sha256(key.encode()).hexdigest()[:8]
                spec = importlib.util.spec_from_file_location(mod_name, key)
                module = importlib.util.module_from_spec(spec)
                sys.modules[mod_name] = module
                spec.loader.exec_module(module)
            else:
                module = importlib.import_module(target)
        except AgentError:
            raise
        except ModuleNotFoundError as exc:
            raise AgentError(f"agent {label}: cannot import {exc.name!r}") from None
        except Exception as exc:
            raise AgentError(f"agent {label}: loading {target} failed: {type(exc).__name__}: {exc}") from None
        except SystemExit as exc:  # sys.exit() at import would end the run silently
            raise AgentError(f"agent {label}: exited while loading {target} (SystemExit {exc.code})") from None
        _MODULES[target] = module
        _FILES[target], _LIBRARIES[target] = _own_code(
            module, [sys.modules[n] for n in set(sys.modules) - before if sys.modules.get(n) is not None])
    cls = getattr(module, name, None)
    if cls is None or not callable(cls):
        raise AgentError(f"agent {label}: {target} has no class {name}")
    return cls


class AgentView:
    """What an agent's seat may know at one decision (shared/spec/plugins.md)."""

    __slots__ = ("_module", "_view", "_params", "seat", "players", "game", "index", "legal_actions", "rng",
                 "_observation")

    def __init__(self, module, view, params, seat, players, game, index, legal, rng):
        self._module = module
        self._view = view
        self._params = params
        self.seat = seat
        self.players = players
        self.game = game
        self.index = index
        self.legal_actions = legal
        self.rng = rng
        self._observation = None

    @property
    def observation(self) -> np.ndarray:
        """The seat's observation vector (float32; ``playlab games GAME`` gives its layout)."""
        if self._observation is None:
            size = self._module.INFO.observation_size
            if size is None or getattr(self._module, "observation", None) is None:
                raise AgentError(f"{self.game} has no observation encoding")
            out = np.zeros(size(self.players), np.float64)
            self._module.observation(self._view, self._params, self.seat, out)
            self._observation = out.astype(np.float32)
        return self._observation

    @property
    def state_view(self) -> np.ndarray:
        """The seat's information-set view as the kernels see it (a copy of ``observe``)."""
        return self._view.copy()

    def render(self) -> str:
        return self._module.render(self._view, self.seat, self._params, self.players)

    def action_name(self, action: int) -> str:
        return self._module.action_name(int(action))


class AgentSeats:
    """The agents of one run in this process, one per agent seat."""

    def __init__(self, config):
        self.config = config
        self.agents: dict[int, Any] = {}
        self.labels: dict[int, str] = {}
        for seat, bot in enumerate(config.bots):
            if not bot.is_agent:
                continue
            target, cls_name, pairs = bot.agent
            cls = load_agent_class(target, cls_name)
            try:
                agent = cls(game=config.game, players=config.players, seat=seat, **dict(pairs))
            except (Exception, SystemExit) as exc:
                raise AgentError(f"agent {bot.label} (seat {seat}): creating it failed: {_failure(exc)}") from None
            if not callable(getattr(agent, "act", None)):
                raise AgentError(f"agent {bot.label}: the class has no act(view) method")
            self.agents[seat] = agent
            self.labels[seat] = bot.label

    def _call(self, seat: int, what: str, method, *args):
        """An agent's ``start`` or ``finish``: an exception in it is an ``AgentError`` naming
        the agent, its seat and the game, as one in ``act`` is (``ask_agent``)."""
        try:
            return method(*args)
        except (Exception, SystemExit) as exc:
            raise AgentError(f"agent {self.labels[seat]} (seat {seat}) failed in {what}: {_failure(exc)}") from None

    def start(self, index: int) -> None:
        """Each agent's ``start(index)`` before game ``index``, when its class has one."""
        for seat, agent in self.agents.items():
            if hasattr(agent, "start"):
                self._call(seat, f"start() of game {index}", agent.start, index)

    @property
    def want_returns(self) -> bool:
        """Whether some agent has a ``finish`` (the returns are computed only then)."""
        return any(hasattr(a, "finish") for a in self.agents.values())

    def finish(self, index: int, returns: np.ndarray) -> None:
        """Each agent's ``finish(index, returns)`` after game ``index`` (a copy of the
        returns each), when its class has one."""
        for seat, agent in self.agents.items():
            if hasattr(agent, "finish"):
                self._call(seat, f"finish() of game {index}", agent.finish, index, returns.copy())


_SEATS: dict[Any, AgentSeats] = {}


def seats_for(config) -> AgentSeats:
    key = _config_key(config)
    seats = _SEATS.get(key)
    if seats is None:
        seats = _SEATS[key] = AgentSeats(config)
    return seats


def agent_stream(seed: int, index: int, seat: int) -> np.random.Generator:
    """``view.rng`` of ``seat`` in game ``index``: seeded from the seat's own bot stream."""
    return np.random.Generator(np.random.PCG64(int(stream_key(seed, index, bot_stream(seat))) & 0xFFFFFFFFFFFFFFFF))


def ask_agent(seats: AgentSeats, state, params, seat: int, index: int, rng: np.random.Generator,
              view=None, legal=None) -> int:
    """The agent of ``seat``'s answer at ``state``, checked: shown only the seat's view."""
    c = seats.config
    module = c.module
    view = np.zeros(state.shape[0], np.int64) if view is None else view
    legal = np.zeros(max(1, c.info.num_actions), np.int64) if legal is None else legal
    m = int(module.legal_actions(state, params, legal))
    module.observe(state, seat, view)
    options = tuple(int(a) for a in legal[:m])
    agent_view = AgentView(module, view.copy(), params, seat, c.players, c.game, index, options, rng)
    try:
        a = seats.agents[seat].act(agent_view)
    except (Exception, SystemExit) as exc:
        raise AgentError(f"agent {seats.labels[seat]} (seat {seat}) failed in game {index}: {_failure(exc)}") from None
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) or int(a) not in options:
        shown = ", ".join(str(x) for x in options)
        raise AgentError(f"agent {seats.labels[seat]} (seat {seat}) returned {a!r} in game {index}, which is not "
                         f"one of its legal actions ({shown})")
    return int(a)


def play_agent_game(batch, index: int, record: list | None = None) -> np.ndarray:
    """Game ``index`` of the batch's run with its agents; the engine's result row."""
    c = batch.config
    module = c.module
    k = batch.kernels
    seats = seats_for(c)
    players = c.players
    state = np.zeros(batch.state_size, np.int64)
    rng = np.zeros(players, np.int64)
    imem, fmem = batch.memory()
    view = np.zeros(batch.state_size, np.int64)
    legal = np.zeros(max(1, c.info.num_actions), np.int64)
    k.start_game(state, batch.params, players, c.seed, index, rng)
    generators = {s: agent_stream(c.seed, index, s) for s in seats.agents}
    seats.start(index)
    n = 0
    limit = batch.max_decisions
    taken_actions = np.empty(0 if record is None else limit, np.int64)  # the compiled seats' moves, when recorded
    while True:
        taken = batch.advance(state, rng, imem, fmem, view, legal, limit - n, actions=taken_actions)
        if taken < 0:  # engine.REFUSED: the compiled bot to move chose a move that is not legal
            p = int(module.current_player(state))
            raise refused(c, p, index)
        if record is not None:
            record.extend(int(a) for a in taken_actions[:taken])
        n += taken
        if module.is_terminal(state):
            break
        if n >= limit:
            raise KernelError(f"game {index} exceeded the game's maximum length ({limit} decisions)")
        p = int(module.current_player(state))
        a = ask_agent(seats, state, batch.params, p, index, generators[p], view, legal)
        if record is not None:
            record.append(a)
        module.apply(state, batch.params, a)
        n += 1
    row = np.zeros(ROW_PREFIX + len(c.info.result_columns(players)), np.int64)
    row[COL_INDEX] = index
    row[COL_DECISIONS] = n
    module.summarize(state, batch.params, players, row[ROW_PREFIX:])
    if seats.want_returns:
        returns = np.zeros(players, np.float64)
        module.returns(state, batch.params, players, returns)
        seats.finish(index, returns)
    return row


def _play_range(batch, start: int, count: int) -> np.ndarray:
    out = np.zeros((count, len(batch.config.columns())), np.int64)
    for g in range(count):
        try:
            out[g] = play_agent_game(batch, start + g)
        except AgentError as exc:
            # the games finished before it, for the caller to keep (plugins.md: "finished
            # games stay stored")
            exc.finished = out[:g].copy()
            raise
    return out


def finished_before(exc: BaseException, parts: list[np.ndarray]) -> None:
    """Add to an agent's failure the finished games of the ranges played before the one
    that failed (``parts``, in index order), ahead of that range's own."""
    if isinstance(exc, AgentError):
        own = getattr(exc, "finished", None)
        pieces = [*parts, *([] if own is None else [own])]
        exc.finished = np.concatenate(pieces) if pieces else None


# ---- worker processes -------------------------------------------------------------------------
_POOL: dict[str, Any] = {}
# fewer games than this per process are not worth a process's start-up (a second or two)
MIN_GAMES_PER_PROCESS = 64


def _worker_init():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the pool; no tracebacks here
    # a forked worker inherits the command line's SIGTERM handler, which would unwind the
    # parent's stack it also inherited and print the parent's stop line: terminate() ends it
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _config_key(config):
    return (config.game, config.players, tuple(config.bot_labels), tuple(sorted(config.variant.items())), config.seed)


_WORKER_BATCHES: dict[Any, Any] = {}


def _worker_run(batch_class, config, start: int, count: int) -> np.ndarray:
    key = _config_key(config)
    batch = _WORKER_BATCHES.get(key)
    if batch is None:
        batch = _WORKER_BATCHES[key] = batch_class(config)
    return _play_range(batch, start, count)


def _pool(processes: int) -> ProcessPoolExecutor:
    pool = _POOL.get("pool")
    if pool is None or _POOL.get("size") != processes:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_worker_init)
        _POOL.update(pool=pool, size=processes)
    return pool


def stop_pool() -> None:
    """Stop the worker processes now (Ctrl-C, the end of the run)."""
    pool = _POOL.pop("pool", None)
    _POOL.pop("size", None)
    if pool is None:
        return
    procs = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()


atexit.register(stop_pool)


def processes_allowed() -> int:
    import numba

    return max(1, numba.get_num_threads())


def run_agent_games(batch, start: int, count: int) -> np.ndarray:
    """Games ``start … start+count-1`` of a run with agents: in this process, or split into
    contiguous ranges over worker processes (the rows come back in index order, so the
    result does not depend on how many processes played them)."""
    seats_for(batch.config)  # load the agents here first: a bad one fails before any process starts
    processes = min(processes_allowed(), max(1, count // MIN_GAMES_PER_PROCESS))
    if processes <= 1 or multiprocessing.current_process().daemon:
        # a daemonic process (a Dask worker's) may not start children: the cluster already
        # spreads the chunks, so its games are played here
        return _play_range(batch, start, count)
    bounds = np.linspace(start, start + count, processes + 1).astype(np.int64)
    pool = _pool(processes)
    futures = [pool.submit(_worker_run, type(batch), batch.config, int(a), int(b - a))
               for a, b in zip(bounds[:-1], bounds[1:])]
    done = []
    try:
        for f in futures:
            done.append(f.result())
        return np.concatenate(done)
    except BaseException as exc:
        stop_pool()
        finished_before(exc, done)
        raise
