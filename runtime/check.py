"""The conformance battery as public API: ``check(game, bots=…)`` and ``playlab check``.

It runs on any registered game and bot (built-in, plugin, Python agent) and returns a
``Verdict`` of named checks, in the spirit of OpenSpiel's ``RandomSimTest`` and
``ResampleInfostateTest``:

game (the protocol)
  init               sets every word of the state (the engine reuses the buffer)
  legal actions      ascending, unique, in range, non-empty until the end; ``random_action``
                     legal; ``current_player`` a seat until the end, -1 after
  information        a sample ``determinize`` draws from a seat's view shows that seat the
                     same view, the same legal actions and the same observation vector
  results            ``summarize`` writes exactly the declared columns; ``returns`` agree
                     with the win flags; games end within ``max_decisions``
  replay             traces replay to the engine's result in the game's own replay engine
bots (each given spec)
  legal moves only   every decision of whole games is one of the legal actions
  no peeking         at positions of its games the bot decides the same when everything
                     its seat cannot know is resampled (same stream, same memory)
  determinism        the same games twice, and split into other batches, give the same rows
  threads            the same rows on 1 and on 2 threads

Sizes are small (a check, not a study): a few dozen positions and games per case.
"""
from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from simcore.engine import REFUSED
from simcore.rng import stream_key

from . import RefusedMove

SENTINEL = -987654321


@dataclass
class Result:
    name: str
    subject: str
    ok: bool
    detail: str = ""


@dataclass
class Verdict:
    game: str
    results: list[Result] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def failures(self) -> list[Result]:
        return [r for r in self.results if not r.ok]

    def format(self) -> str:
        lines = [f"conformance of {self.game}:"]
        for r in self.results:
            mark = "ok  " if r.ok else "FAIL"
            lines.append(f"  {mark} {r.subject:<28} {r.name}" + (f": {r.detail}" if r.detail else ""))
        n = len(self.failures)
        lines.append(f"{len(self.results) - n} of {len(self.results)} checks passed"
                     + (f"; {n} failed" if n else ""))
        return "\n".join(lines)


class CheckFailed(AssertionError):
    pass


class IllegalMove(CheckFailed):
    """A bot played a move that is not legal: playing whole games with it is not safe (the
    engine only range-checks a built-in bot that finds its own moves, ``legal=False``)."""


def require(cond, message: str) -> None:
    if not cond:
        raise CheckFailed(message)


def player_counts(info) -> list[int]:
    return sorted({info.min_players, min(max(info.min_players, 3), info.max_players), info.max_players})


def _params(info):
    return info.make_params(info.resolve_variant({}))


def legal_of(module, state, params):
    """The legal actions of ``state``: a buffer (sentinel-padded) and their count."""
    buf = np.full(module.INFO.num_actions + 1, SENTINEL, np.int64)
    n = int(module.legal_actions(state, params, buf))
    return buf, n


def random_positions(module, players, want=30, every=5, seed=11, limit=600):
    """The game's default params and ``want`` (state, seat) pairs at every ``every``-th
    decision of random games (as many as it takes), played through the game's own kernels."""
    info = module.INFO
    params = _params(info)
    out = []
    for g in range(1000):
        if len(out) >= want:
            break
        state = np.zeros(info.state_size(players), np.int64)
        module.init(state, params, players, stream_key(seed, g, 0))
        rng = np.array([stream_key(seed, g, 1 + s) for s in range(players)], np.int64)
        step = 0
        while not module.is_terminal(state) and step < limit:
            p = int(module.current_player(state))
            if step % every == 0:
                out.append((state.copy(), p))
            module.apply(state, params, module.random_action(state, params, rng, p))
            step += 1
    return params, out[:want]


# ---- the game's protocol ------------------------------------------------------------------------
def check_init_sets_every_word(module):
    """``init`` sets every word of the state: the engine reuses one buffer from game to game,
    so a word left unset would carry the last game's value into a bot's view (game i would
    depend on the games before it)."""
    info = module.INFO
    params = _params(info)
    for players in player_counts(info):
        for g in range(3):
            clean = np.zeros(info.state_size(players), np.int64)
            module.init(clean, params, players, stream_key(5, g, 0))
            for fill in (-7, 1 << 40):
                dirty = np.full_like(clean, fill)
                module.init(dirty, params, players, stream_key(5, g, 0))
                unset = np.flatnonzero(dirty != clean)
                require(not len(unset), f"{players} players: init leaves {len(unset)} state word(s) unset "
                        f"(e.g. [{unset[0] if len(unset) else 0}]); set every word, e.g. state[:] = 0 first")


def check_legal_actions(module):
    info = module.INFO
    for players in player_counts(info):
        params = _params(info)
        for g in range(3):
            state = np.zeros(info.state_size(players), np.int64)
            module.init(state, params, players, stream_key(3, g, 0))
            rng = np.array([stream_key(3, g, 1 + s) for s in range(players)], np.int64)
            steps = 0
            while not module.is_terminal(state):
                buf, n = legal_of(module, state, params)
                legal = buf[:n]
                require(n >= 1, f"{players} players: no legal action before the end")
                require(np.all(np.diff(legal) > 0), f"legal actions not ascending/unique: {legal.tolist()}")
                require(0 <= legal[0] and legal[-1] < info.num_actions, f"action out of range: {legal.tolist()}")
                require(np.all(buf[n:] == SENTINEL), "legal_actions wrote past its count")
                p = int(module.current_player(state))
                require(0 <= p < players, f"current_player {p} is not a seat")
                a = int(module.random_action(state, params, rng, p))
                require(a in legal, f"random_action {a} is not legal")
                module.apply(state, params, a)
                steps += 1
                require(steps <= info.max_decisions(players), f"a game ran past max_decisions "
                        f"({info.max_decisions(players)})")
            require(int(module.current_player(state)) == -1, "current_player is not -1 once the game is over")


def check_information(module) -> int:
    """What a seat sees of a determinized sample; returns how many positions were checked."""
    info = module.INFO
    has_obs = info.observation_size is not None and getattr(module, "observation", None) is not None
    checked = 0
    for players in player_counts(info):
        params, found = random_positions(module, players, want=20, every=4)
        rng = np.array([stream_key(players, 0, 77)], np.int64)
        size = info.state_size(players)
        for state, p in found:
            view = np.zeros(size, np.int64)
            module.observe(state, p, view)
            sample = np.zeros(size, np.int64)
            module.determinize(view, params, p, rng, 0, sample)
            again = np.zeros(size, np.int64)
            module.observe(sample, p, again)
            require(np.array_equal(again, view), f"a determinized sample changes what seat {p} sees")
            a, n = legal_of(module, state, params)
            b, m = legal_of(module, sample, params)
            require(m == n and np.array_equal(a[:n], b[:m]), f"a sample shows seat {p} other legal actions")
            require(int(module.current_player(sample)) == p, "a sample has another seat to act")
            if has_obs:
                obs = np.full(info.observation_size(players), np.nan)
                module.observation(view, params, p, obs)
                require(np.all(np.isfinite(obs)), "observation left entries unwritten")
                obs2 = np.full_like(obs, np.nan)
                module.observation(again, params, p, obs2)
                require(np.array_equal(obs, obs2), "the observation of a sample differs")
            checked += 1
    require(checked > 0, "no positions to check")
    return checked


def check_results(module):
    info = module.INFO
    for players in player_counts(info):
        params = _params(info)
        declared = len(info.result_columns(players))
        for g in range(6):
            state = np.zeros(info.state_size(players), np.int64)
            module.init(state, params, players, stream_key(4, g, 0))
            rng = np.array([stream_key(4, g, 1 + s) for s in range(players)], np.int64)
            out = np.full(players, np.nan)
            if getattr(module, "returns", None) is not None:
                module.returns(state, params, players, out)
                require(np.all(out == 0), "returns before the end are not 0")
            while not module.is_terminal(state):
                module.apply(state, params, module.random_action(state, params, rng, module.current_player(state)))
            row = np.full(declared + 4, SENTINEL, np.int64)
            module.summarize(state, params, players, row)
            unwritten = [c for c, v in zip(info.result_columns(players), row) if v == SENTINEL]
            require(not unwritten, f"summarize left columns unwritten: {unwritten}")
            require(np.all(row[declared:] == SENTINEL), "summarize wrote past its columns")
            wins = row[players:2 * players]
            require(set(wins.tolist()) <= {0, 1}, f"win flags are not 0/1: {wins.tolist()}")
            if row[2 * players]:
                require(wins.sum() == 0, "a truncated game has a winner")
            if getattr(module, "returns", None) is not None:
                module.returns(state, params, players, out)
                if row[2 * players]:
                    require(np.allclose(out, 1 / players), "returns of a truncated game are not 1/players")
                elif wins.sum():
                    require(np.allclose(out, wins / wins.sum()), "returns disagree with the win flags")
                else:
                    require(np.all(out == 0), "returns of a game nobody won are not 0")


def check_replay(module, name):
    from simcore.replay import ReplayError, replayer_for
    from simcore.trace import build_trace

    from .runner import Batch, RunConfig

    try:
        replay = replayer_for(name)
    except ReplayError:
        raise CheckFailed("the game registered no replay engine (register_game(..., replay=...))") from None
    info = module.INFO
    for players in player_counts(info)[:2]:
        batch = Batch(RunConfig.build(name, players, "random", {}, 13))
        for i in range(2):
            trace = build_trace(batch, i)
            got = replay(trace)
            for key in ("scores", "winners", "truncated"):
                require(got[key] == trace["result"][key], f"replay disagrees on {key}: {got[key]} against the "
                        f"engine's {trace['result'][key]} (game {i}, {players} players)")


# ---- bots -----------------------------------------------------------------------------------------
def _decider(batch) -> Callable:
    """``decide(state, seat, rng, imem, fmem, index) -> action`` for the batch's bots, Python
    agents included (asked through the same view they get in a run)."""
    from .agents import AgentError, AgentView, seats_for

    config = batch.config
    module = config.module
    seats = seats_for(config) if config.has_agents else None

    def decide(state, seat, rng, imem, fmem, index):
        if config.bots[seat].is_agent:
            view = np.zeros_like(state)
            module.observe(state, seat, view)
            buf, n = legal_of(module, state, batch.params)
            gen = np.random.Generator(np.random.PCG64(int(rng[seat]) & 0xFFFFFFFFFFFFFFFF))
            try:
                return int(seats.agents[seat].act(AgentView(module, view, batch.params, seat, config.players,
                                                            config.game, index, tuple(int(a) for a in buf[:n]),
                                                            gen)))
            except SystemExit as exc:  # as a run reports it (runtime.agents.ask_agent), not an exit of check
                raise AgentError(f"agent {config.bots[seat].label} (seat {seat}) failed in game {index}: "
                                 f"SystemExit: {exc.code}") from None
        try:
            return batch.bot_action(state, seat, rng, imem, fmem, index)
        except RefusedMove:  # reported as the move it is, by the legal-moves check
            return REFUSED

    return decide


def _positions_of_bot(batch, search: bool, games: int):
    """(state, seat, rng, imem, fmem, index) before decisions of the bot's own games, with
    the bot's own action at each (later decisions are taken by the bots themselves, or at
    random between checked positions for slow search bots)."""
    config = batch.config
    module = config.module
    decide = _decider(batch)
    params = batch.params
    players = config.players
    for g in range(games):
        state = np.zeros(batch.state_size, np.int64)
        rng = np.zeros(players, np.int64)
        imem, fmem = batch.memory()
        batch.kernels.start_game(state, params, players, config.seed, g, rng)
        step = 0
        # whole games (to the game's own cap): a bot may read what it must not only late in
        # a game (a peek after turn 100 went unseen when the check stopped at 400 steps); a
        # search bot, asked at every step, keeps the first 400 (whole games doubled the CPU
        # time of the test suite)
        limit = 400 if search else module.INFO.max_decisions(players)
        while not module.is_terminal(state) and step < limit:
            p = int(module.current_player(state))
            saved = (state.copy(), p, rng.copy(), imem.copy(), fmem.copy(), g)
            a = decide(state, p, rng, imem, fmem, g)
            yield saved, a
            if search and config.bots[p].name != "random":
                a = int(module.random_action(state, params, rng, p))
            module.apply(state, params, a)
            step += 1


SLOW = ("mcts", "flatmc", "pimc", "expert", "planner")


def check_bot_legal_and_private(batch, spec: str) -> tuple[int, int]:
    """Legal moves only, and no peeking: at checked positions the bot must choose the same
    move when what its seat cannot know is resampled (twice), and again when the other
    seats' working memory is wiped and their random streams changed (a compiled bot is
    handed every seat's rows of ``imem``, ``fmem`` and ``rng``; ``[seat]`` is its own).
    Positions are spread over whole games: every third decision, or for a search bot (at
    random moves between them, over its first 400 steps) decisions 7, 14, 28, 56, …
    Returns (decisions, checked)."""
    config = batch.config
    module = config.module
    params = batch.params
    decide = _decider(batch)
    search = any(b.name in SLOW for b in config.bots)
    resample = np.array([stream_key(config.players, 0, 91)], np.int64)
    checked = decisions = 0
    # long games: a couple; short ones (Kuhn: 2-3 decisions) until enough were taken
    games = 2 if module.INFO.max_decisions(config.players) > 50 else 30
    for (state, p, rng, imem, fmem, g), a in _positions_of_bot(batch, search, games):
        buf, n = legal_of(module, state, params)
        played = ("a move the engine refused" if a == REFUSED and not config.bots[p].is_agent
                  else _name(module, a))
        if a not in buf[:n].tolist():
            raise IllegalMove(f"seat {p} played {played}, which is not legal; legal: "
                              f"{', '.join(_name(module, x) for x in buf[:n])}")
        decisions += 1
        # the engine's random draws from the legal moves through the game's own fast path,
        # which may read the state's layout: its privacy is the game's (check_information)
        if config.bots[p].name == "random":
            continue
        if (decisions % 7 or (decisions // 7) & (decisions // 7 - 1)) if search else decisions % 3:
            continue
        view = np.zeros_like(state)
        module.observe(state, p, view)
        for _ in range(2):
            sample = np.zeros_like(state)
            module.determinize(view, params, p, resample, 0, sample)
            b = decide(sample, p, rng.copy(), imem.copy(), fmem.copy(), g)
            require(b == a, f"seat {p} chose {_name(module, a)} but {_name(module, b)} when what it cannot know "
                    f"(the hidden cards) was resampled (game {g}): the bot reads hidden information")
        others = np.arange(config.players) != p
        if others.any():
            mine_i, mine_f, streams = imem.copy(), fmem.copy(), rng.copy()
            mine_i[others] = 0  # as at the start of a batch
            mine_f[others] = 0.0
            streams[others] = streams[others] * 6364136223846793005 + 1442695040888963407  # other streams
            b = decide(state.copy(), p, streams, mine_i, mine_f, g)
            require(b == a, f"seat {p} chose {_name(module, a)} but {_name(module, b)} when the other seats' "
                    f"working memory (imem, fmem) was wiped and their random streams changed (game {g}): "
                    "the bot reads what another seat keeps")
        checked += 1
    require(decisions > 0, "the bot took no decision in the checked games")
    return decisions, checked


def _name(module, a):
    try:
        return f"{int(a)} ({module.action_name(int(a))})"
    except Exception:
        return str(a)


def check_determinism(batch, games: int) -> None:
    a = batch.run(0, games)
    b = batch.run(0, games)
    require(np.array_equal(a, b), "the same games twice gave different rows")
    k = games // 3
    parts = np.concatenate([batch.run(0, k), batch.run(k, games - k)])
    require(np.array_equal(a, parts), "games split into other batches gave different rows")


def check_threads(batch, games: int) -> None:
    from .runner import set_threads
    import numba

    before = numba.get_num_threads()
    try:
        set_threads(1)
        one = batch.run(0, games)
        set_threads(2)
        two = batch.run(0, games)
    finally:
        numba.set_num_threads(before)
    require(np.array_equal(one, two), "1 and 2 threads gave different rows")


def _run(verdict: Verdict, name: str, subject: str, fn, *args) -> Exception | None:
    """Run one check into ``verdict``; the failure it raised, if any."""
    try:
        fn(*args)
        verdict.results.append(Result(name, subject, True))
    except CheckFailed as exc:
        verdict.results.append(Result(name, subject, False, str(exc)))
        return exc
    except Exception as exc:  # a crash is a failure with its reason, not a traceback
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        verdict.results.append(Result(name, subject, False,
                                      f"raised {type(exc).__name__}: {exc} ({tb.filename}:{tb.lineno})"))
        return exc
    return None


CHEAP_BUDGETS = {"flatmc": "playouts=1", "mcts": "iterations=8", "pimc": "worlds=2"}


def cheap_spec(name: str, game: str | None = None) -> str:
    """A bot spec that keeps the battery fast (search bots with small budgets; an alias
    such as ``expert`` gets the budget of the bot it names in ``game``)."""
    from bots.registry import alias_of

    target = (alias_of(game, name) if game else None) or name
    budget = CHEAP_BUDGETS.get(target)
    return f"{name}:{budget}" if budget else name


def check(game: str, bots: str | list[str] | None = None, players: int | None = None,
          protocol: bool = True, games: int = 12) -> Verdict:
    """The battery on ``game`` and ``bots`` (specs; default: every bot of the game's
    catalogue at a small budget).  Never raises for a failing check: read ``Verdict.ok``."""
    from bots.registry import bots_for, split_specs
    from simcore.games import load_game

    from .runner import Batch, RunConfig

    module = load_game(game)
    info = module.INFO
    verdict = Verdict(game)
    if protocol:
        _run(verdict, "init sets every state word", "game", check_init_sets_every_word, module)
        _run(verdict, "legal actions, random_action, current_player", "game", check_legal_actions, module)
        _run(verdict, "determinize and observation keep the seat's view", "game", check_information, module)
        _run(verdict, "summarize columns, returns, win flags", "game", check_results, module)
        _run(verdict, "traces replay to the engine's result", "game", check_replay, module, game)
    specs = split_specs(bots) if bots else [cheap_spec(b.name, game) for b in bots_for(module)]
    counts = [players] if players else player_counts(info)[:2]
    for spec in specs:
        spec = spec.strip()
        for n in counts:
            subject = f"{spec} ({n}p)"
            try:
                batch = Batch(RunConfig.build(game, n, spec, {}, 17))
            except Exception as exc:
                verdict.results.append(Result("the bot loads", subject, False, f"{type(exc).__name__}: {exc}"))
                continue
            slow = any(b.name in SLOW for b in batch.config.bots)
            count = 2 if slow else games
            failed = _run(verdict, "legal moves only; no peeking under resampling", subject,
                          check_bot_legal_and_private, batch, spec)
            if isinstance(failed, IllegalMove):
                # whole games would apply its illegal moves where the engine only range-checks
                # them (a built-in legal=False bot's), and the game's state would break
                for name in ("deterministic, whatever the batches", "same rows on 1 and 2 threads"):
                    verdict.results.append(Result(name, subject, False, "not run: the bot plays illegal moves"))
                continue
            _run(verdict, "deterministic, whatever the batches", subject, check_determinism, batch, count)
            _run(verdict, "same rows on 1 and 2 threads", subject, check_threads, batch, count)
    return verdict
