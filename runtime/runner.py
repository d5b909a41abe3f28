"""Run configurations, batches of games and their results as pandas frames."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from bots.registry import Bot, bot_arrays, compiled_names, memory_arrays, parse_bots
from simcore.engine import COL_DECISIONS, CONTINUE, GAMES_PER_CHUNK, REFUSED, REFUSED_BY_SEAT
from simcore.games import load_game
from simcore.options import set_options
from . import KernelError, RefusedMove, refused  # noqa: F401 (raised here, imported from here by callers)
from .agents import play_agent_game, run_agent_games
from .kernels import kernels_for


# actions recorded per traced game before the buffer has to grow
RECORD_START = 4096
NO_ACTIONS = np.empty(0, np.int64)  # play_games records nothing
NO_ROWS = np.zeros((0, 0), np.int64)  # play_games continuing a game writes no result row


# (name pattern, meaning) of the columns the runner adds to every game's own
RUNNER_COLUMN_DOCS = (
    ("index", "the game's index in the run (with the seed it reproduces the game)"),
    ("players", "player count of the run"),
    ("bot_S", "the bot in seat S, as its spec (NAME[:key=value…])"),
    ("decisions", "decisions the bots took (every action chosen, by any seat)"),
)


def file_digest(path: str | Path) -> str:
    """``sha256:`` and the hex digest of a file's bytes, read in blocks (a model or deck may
    be large): how a run and a study name a file by its content.  Raises ``OSError``."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


@dataclass
class RunConfig:
    """Everything that determines a run: game i depends only on this and i."""
    game: str
    players: int
    bots: list[Bot]
    variant: dict[str, Any]
    seed: int

    @classmethod
    def build(cls, game: str, players: int | None, bots: str | Sequence[str] = "random",
              variant: dict[str, Any] | None = None, seed: int = 0) -> "RunConfig":
        module = load_game(game)
        info = module.INFO
        if players is None:
            players = info.min_players if info.min_players == info.max_players else max(2, info.min_players)
        info.check_players(players)
        if seed < 0:
            raise ValueError(f"seed must be an integer >= 0, not {seed}")
        return cls(game, players, parse_bots(module, bots, players), info.resolve_variant(variant), seed)

    @property
    def module(self):
        return load_game(self.game)

    @property
    def info(self):
        return self.module.INFO

    @property
    def bot_labels(self) -> list[str]:
        return [b.label for b in self.bots]

    @property
    def kernel_key(self) -> tuple[str, tuple[str, ...]]:
        """What the run's compiled kernels depend on: the game and its compiled bots."""
        return (self.game, compiled_names(self.bots))

    @property
    def has_agents(self) -> bool:
        """Some seat is played by a Python agent (``runtime.agents`` runs its games)."""
        return any(b.is_agent for b in self.bots)

    def plugins(self) -> tuple[str, ...]:
        """The plugins that registered this run's game and bots, or set those bots' defaults
        (a worker loads them; the study's identity holds their code)."""
        from bots.registry import bot_plugins
        from simcore.games import entry

        found = [entry(self.game).plugin]
        for b in self.bots:
            if not b.is_agent and b.name != "random":
                found.extend(bot_plugins(self.game, b.name))
        return tuple(dict.fromkeys(p for p in found if p))

    def __reduce__(self):
        # a run travels (to processes, Dask workers) as its specs and the plugins that
        # define them, and is parsed again there: bot specs and memory functions of a
        # plugin need not pickle, and the receiving side loads the same plugins first
        # (only the options set away from their defaults: a default such as the packaged
        # deck's "" is no value a user could give, and the receiving side fills defaults in)
        given = set_options(self.info.options, self.variant)
        return (_restore_config, (self.game, self.players, tuple(self.bot_labels), given,
                                  self.seed, self.plugins(), self._agent_locations(), self._code()))

    def _code(self) -> tuple:
        """What decides this run's play besides its description: playlab's kernel sources,
        each plugin's digest (``runtime.plugins``), the files it reads by path
        (``_files_by_content``) and the installed libraries its agents import
        (``runtime.agents.agent_libraries``).  The receiving side compares its own:
        a worker with another playlab version, another copy of a plugin or another
        version of an agent's library would otherwise play other games under the same labels."""
        import simcore
        from .plugins import plugin_digest

        return (simcore.KERNEL_DIGEST, tuple((p, plugin_digest(p)) for p in self.plugins()), self._files_by_content(),
                self._agent_libraries())

    def _agent_libraries(self) -> tuple:
        if not self.has_agents:
            return ()
        from .agents import agent_libraries

        return tuple((b.agent[0], tuple(agent_libraries(*b.agent[:2]))) for b in self.bots if b.is_agent)

    def files_read(self) -> list[tuple[str, str]]:
        """(path, what it is) of every file this run reads: a data file option (a deck), a
        file a bot is given (a model), a Python agent's module and its helpers.  The
        study's identity holds them by content, a worker compares them, ``--trace`` may
        not name one."""
        from .agents import agent_files

        out = [(self.variant[o.name], f"option {o.name}") for o in self.info.options
               if o.kind == "path" and self.variant.get(o.name)]
        for b in self.bots:
            if b.is_agent:
                out += [(f, f"agent {b.agent[0]}") for f in agent_files(*b.agent[:2]) or ()]
            else:
                out += [(v, f"{k} of bot {b.given_name}") for k, v in bot_file_params(self.game, b)]
        return out

    def _files_by_content(self) -> tuple:
        """(what, digest) of each file the run reads by path, in order (``files_read``): a
        worker reads them by the same path, where another file may lie."""
        out = []
        for path, what in self.files_read():
            try:
                out.append((what, file_digest(path)))
            except OSError:
                out.append((what, "unreadable"))
        return tuple(out)

    def _agent_locations(self) -> dict[str, str]:
        """Where this side finds the agent files given by a relative path (a worker's
        working folder may differ; the labels, and so the study, stay as given)."""
        if not self.has_agents:
            return {}
        from .agents import locations

        return locations(b.agent[0] for b in self.bots if b.is_agent)

    def params(self) -> np.ndarray:
        return self.info.make_params(self.variant)

    def describe(self) -> dict[str, Any]:
        """JSON-able identity of the run (stored beside results to make resuming safe)."""
        return {"game": self.game, "players": self.players, "bots": self.bot_labels,
                "variant": dict(self.variant), "seed": self.seed}

    def columns(self) -> list[str]:
        return ["index", "decisions"] + self.info.result_columns(self.players)


def bot_file_params(game: str, bot) -> list[tuple[str, str]]:
    """(parameter, path) of each file a compiled bot is given as a text parameter (a model)."""
    if bot.is_agent or not bot.text:
        return []
    from bots.registry import bot_entry

    spec = bot_entry(game, bot.given_name).spec
    return [(k, v) for k, v in bot.text if spec.takes_file(k)]


def _restore_config(game, players, labels, variant, seed, plugins, agent_locations=None, code=None):
    if plugins:
        from .plugins import load_plugins

        load_plugins(plugins)
    if code is not None:
        import simcore
        from .plugins import plugin_digest

        sent_kernels, sent_plugins, sent_files, sent_libraries = code
        if sent_kernels != simcore.KERNEL_DIGEST:
            raise ValueError(f"playlab's kernel sources differ here ({simcore.KERNEL_DIGEST}) from where the run "
                             f"started ({sent_kernels}): another playlab version; install the same one")
        for plugin, digest in sent_plugins:
            if plugin_digest(plugin) != digest:
                raise ValueError(f"plugin {plugin} plays other code here than where the run started (edited, "
                                 "another copy, or what it reads at import differs)")
    if agent_locations:
        from .agents import remember_locations

        remember_locations(agent_locations)
    config = RunConfig.build(game, players, list(labels), variant, seed)
    if config.bot_labels != list(labels):
        raise ValueError(f"bots {', '.join(labels)} parse as {', '.join(config.bot_labels)} here: "
                         "the bot catalogue differs (another playlab version or plugin?)")
    if code is not None:
        here, sent = config._files_by_content(), tuple(map(tuple, sent_files))
        if here != sent:
            what = next((a[0] for a, b in zip(sent, here) if a != b), (sent + here)[min(len(sent), len(here))][0])
            raise ValueError(f"the file of {what} differs here from where the run started: every machine "
                             "needs the same file at that path")
        for (agent, libraries), (_, sent) in zip(config._agent_libraries(), sent_libraries):
            if libraries != tuple(sent):
                raise ValueError(f"agent {agent} imports other libraries here than where the run started "
                                 f"(there: {_library_names(sent)}; here: {_library_names(libraries)}); "
                                 "install the same versions")
    return config


def _library_names(keys) -> str:
    """The library keys (``agent_libraries``' bytes) as one line for a person."""
    return ", ".join(k.decode() for k in keys) or "none"


@dataclass
class Batch:
    """Prepared kernel arguments for one configuration (reused across chunks)."""
    config: RunConfig
    kernels: Any = field(init=False)
    params: np.ndarray = field(init=False)
    kinds: np.ndarray = field(init=False)
    bot_params: np.ndarray = field(init=False)

    def __post_init__(self):
        self.kernels = kernels_for(self.config.game, compiled_names(self.config.bots))
        self.params = self.config.params()
        self.kinds, self.bot_params = bot_arrays(self.config.bots)
        info = self.config.info
        p = self.config.players
        self.state_size = info.state_size(p)
        # each seat's working memory: a row as long as the hungriest seat's bot asks for
        self.imem_size, self.fmem_size = memory_arrays(self.config.bots, info, p)
        self.max_decisions = info.max_decisions(p)
        self._record_buffer = np.zeros(RECORD_START, dtype=np.int64)
        self._view = np.zeros(self.state_size, np.int64)
        self._legal = np.zeros(max(1, info.num_actions), np.int64)

    def memory(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh per-seat working memory for one game loop."""
        p = self.config.players
        return np.zeros((p, self.imem_size), np.int64), np.zeros((p, self.fmem_size), np.float64)

    def run(self, start: int, count: int) -> np.ndarray:
        c = self.config
        if c.has_agents:
            return run_agent_games(self, start, count)
        out = np.zeros((count, len(c.columns())), dtype=np.int64)
        if count:
            self._run_spread(start, count, out)
        check_rows(out, c)
        return out

    def _play(self, start: int, count: int, actions: np.ndarray, out: np.ndarray) -> int:
        """``engine.play_games`` in buffers of its own (a thread's piece, a record)."""
        c = self.config
        imem, fmem = self.memory()
        state = np.empty(self.state_size, np.int64)
        return int(self.kernels.play_games(self.params, c.players, c.seed, start, count, self.kinds, self.bot_params,
                                           state, np.empty(c.players, np.int64), imem, fmem, np.empty_like(state),
                                           np.empty_like(self._legal), self.max_decisions, actions, out))

    def _run_piece(self, start: int, lo: int, hi: int, out: np.ndarray) -> None:
        self._play(start + lo, hi - lo, NO_ACTIONS, out[lo:hi])

    def _run_spread(self, start: int, count: int, out: np.ndarray) -> None:
        """Games ``start …`` into ``out`` on ``numba.get_num_threads()`` threads: the batch
        kernel releases the interpreter, so pieces of the batch run side by side, handed
        out as threads come free (game lengths vary).  Pieces start at multiples of
        ``GAMES_PER_CHUNK`` from ``start``, where the kernel starts its chunks anyway."""
        import numba

        threads = numba.get_num_threads()
        if threads <= 1 or count <= GAMES_PER_CHUNK:
            self._run_piece(start, 0, count, out)
            return
        size = -(-count // (threads * PIECES_PER_THREAD))
        size = max(GAMES_PER_CHUNK, -(-size // GAMES_PER_CHUNK) * GAMES_PER_CHUNK)
        futures = [_pool(threads).submit(self._run_piece, start, lo, min(count, lo + size), out)
                   for lo in range(0, count, size)]
        try:
            for f in futures:
                f.result()
        except BaseException:
            for f in futures:
                f.cancel()
            raise

    def record_games(self, start: int, count: int, actions: np.ndarray) -> int:
        """Games ``start …`` one after another, their actions back to back in ``actions``;
        returns how many fitted whole (``engine.play_games``)."""
        if not len(actions):
            return 0
        return self._play(start, count, actions, np.zeros((count, len(self.config.columns())), np.int64))

    def replay_with_random(self, start: int, count: int, actions: np.ndarray) -> int:
        """The recorded games again with a random decision taken (and thrown away) in every
        position; returns the actions used, -1 if they ran out (``engine.replay_with_random``)."""
        c = self.config
        return self.kernels.replay_with_random(self.params, c.players, c.seed, start, count, actions,
                                               self.state_size)

    def advance(self, state: np.ndarray, rng: np.ndarray, imem: np.ndarray, fmem: np.ndarray, view: np.ndarray,
                legal: np.ndarray, limit: int, kinds: np.ndarray | None = None,
                actions: np.ndarray = NO_ACTIONS) -> int:
        """The compiled seats' decisions of the game in ``state`` (``engine.advance``, through
        ``play_games`` with ``CONTINUE``), until a Python agent's seat (``kinds``: the run's
        unless given) must decide, the game ends or ``limit`` decisions were taken: how many
        were taken, or ``engine.REFUSED`` (the bot to move chose a move that is not legal).
        The first ``len(actions)`` actions taken are written to ``actions``."""
        return continue_game(self.kernels, self.params, self.kinds if kinds is None else kinds, self.bot_params,
                             state, rng, imem, fmem, view, legal, limit, actions)

    def bot_action(self, state: np.ndarray, seat: int, rng: np.ndarray, imem: np.ndarray,
                   fmem: np.ndarray, index: int | None = None) -> int:
        """One decision of ``seat``'s bot (the seat to move), through the engine's own compiled
        dispatch: given the streams ``rng`` (seat s at ``stream_key(seed, index,
        bot_stream(s))``, advanced only by its own decisions) and the seat's memory rows, it is
        the choice the engine's loop makes (``playlab human``, ``check``, ``bench``).
        ``state`` is left as it was."""
        a = decide(self.kernels, self.params, self.kinds, self.bot_params, state, rng, int(seat), imem, fmem,
                   self._view, self._legal)
        if a < 0:
            raise refused(self.config, int(seat), index)
        return a

    def record(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """(actions, result row) of game ``index``.  The action buffer starts small and the
        game is replayed into a larger one when it ran longer (replaying is exact)."""
        c = self.config
        if c.has_agents:
            actions: list[int] = []
            row = play_agent_game(self, index, record=actions)
            return np.array(actions, dtype=np.int64), row
        rows = np.zeros((1, len(c.columns())), dtype=np.int64)
        while True:
            actions = self._record_buffer
            self._play(index, 1, actions, rows)
            check_rows(rows, c)
            n = int(rows[0, COL_DECISIONS])
            if n <= len(actions):
                return actions[:n].copy(), rows[0]
            self._record_buffer = np.zeros(n, dtype=np.int64)


def choose(game: str, bots: Sequence[Bot], state: np.ndarray, params: np.ndarray, rng: np.ndarray, seat: int,
           imem: np.ndarray, fmem: np.ndarray) -> int:
    """One decision of ``seat``'s bot among ``bots`` (the run's seats) through the engine's
    compiled dispatch, with any rule parameters (tests and tools that step games by hand)."""
    from bots.registry import bot_arrays

    k = kernels_for(game, compiled_names(bots))
    kinds, bp = bot_arrays(bots)
    view = np.zeros(state.shape[0], np.int64)
    legal = np.zeros(max(1, k.game.INFO.num_actions), np.int64)
    a = decide(k, params, kinds, bp, state, rng, int(seat), imem, fmem, view, legal)
    if a < 0:
        raise RefusedMove(f"bot {bots[seat].label} (seat {seat}) chose a move that is not legal here")
    return a


def decide(kernels, params: np.ndarray, kinds: np.ndarray, bot_params: np.ndarray, state: np.ndarray,
           rng: np.ndarray, seat: int, imem: np.ndarray, fmem: np.ndarray, view: np.ndarray,
           legal: np.ndarray) -> int:
    """The action of ``seat``'s bot, ``seat`` being the seat to move in ``state``, or
    ``engine.REFUSED`` (a move that is not legal, or no compiled bot there): ``play_games``
    continues a copy of the game by one decision, so the chain needs no entry point of its
    own for single decisions.  ``rng`` and the memory rows advance as in the engine's loop."""
    module = kernels.game
    if module.is_terminal(state) or int(module.current_player(state)) != seat:
        raise ValueError(f"seat {seat} is not the seat to move")
    taken = np.full(1, REFUSED, np.int64)
    n = continue_game(kernels, params, kinds, bot_params, state.copy(), rng, imem, fmem, view, legal, 1, taken)
    return int(taken[0]) if n == 1 else REFUSED


def continue_game(kernels, params: np.ndarray, kinds: np.ndarray, bot_params: np.ndarray, state: np.ndarray,
                  rng: np.ndarray, imem: np.ndarray, fmem: np.ndarray, view: np.ndarray, legal: np.ndarray,
                  limit: int, actions: np.ndarray = NO_ACTIONS) -> int:
    """``play_games`` with ``CONTINUE``: the compiled seats' decisions of the game in
    ``state``, at most ``limit``, the first ``len(actions)`` of them written to ``actions``;
    how many were taken, or ``engine.REFUSED``.  A game under way is neither dealt nor
    capped here, so the run's seed and decision cap are not passed (the engine ignores them)."""
    return int(kernels.play_games(params, len(rng), 0, CONTINUE, limit, kinds, bot_params, state, rng, imem, fmem,
                                  view, legal, 0, actions, NO_ROWS))


# pieces per thread in one batch: enough to even out games of different lengths
PIECES_PER_THREAD = 8


@lru_cache(maxsize=None)
def _pool(threads: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=threads, thread_name_prefix="playlab-batch")


def check_rows(rows: np.ndarray, config: RunConfig) -> None:
    """Games the kernel could not finish: a refused move, or one too many decisions."""
    bad = np.flatnonzero(rows[:, COL_DECISIONS] < 0)
    if bad.size:
        index, n = int(rows[bad[0], 0]), int(rows[bad[0], COL_DECISIONS])
        if n <= REFUSED_BY_SEAT:
            raise refused(config, REFUSED_BY_SEAT - n, index)
        raise KernelError(f"game {index} exceeded the game's maximum length (kernel bug)")


def set_threads(threads: int | None) -> int:
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = limit
    if threads < 1:
        raise ValueError(f"--threads must be >= 1, not {threads}")
    threads = min(threads, limit)
    numba.set_num_threads(threads)
    return threads


def to_frame(config: RunConfig, rows: np.ndarray) -> pd.DataFrame:
    """One row per game: index, players, bot_i, then the kernel's columns."""
    cols = config.columns()
    df = pd.DataFrame(rows, columns=cols)
    df.insert(1, "players", np.int64(config.players))
    for s, label in enumerate(config.bot_labels):
        df.insert(2 + s, f"bot_{s}", label)
    df["truncated"] = df["truncated"].astype(bool)
    return df


def run_games(config: RunConfig, games: int, start: int = 0, threads: int | None = None) -> pd.DataFrame:
    """Play games ``start … start+games-1`` locally and return their results frame."""
    set_threads(threads)
    return to_frame(config, Batch(config).run(start, games))

