"""The game-kernel protocol every playlab game implements, and the binder that compiles
generic code (runner, bots, search) against one game.

A game is one module (for a plugin) or package (the built-in ``simcore/games/<name>/``,
whose namespace is that module).  It declares itself up front with a
``GameInfo`` named ``INFO`` and provides these Numba functions (all ``@njit(cache=True)``,
all allocation-free).  ``state`` is a 1-D ``int64`` array of ``INFO.state_size(players)``
slots whose layout is drawn in the game's docstring; ``params`` is the ``int64``
vector from ``INFO.make_params(variant)`` (option values in table order, then any data
tables the game needs, e.g. a deck); ``out`` / ``scratch`` are caller-owned buffers.

    init(state, params, players, chance_key)
        Start a new game.  ``chance_key`` seeds the game's chance stream, which lives
        inside ``state`` so that a copied state replays identically (search needs this).
    current_player(state) -> int
        The seat that must decide now (it may be a seat that is not on turn, e.g. a block
        offered out of turn); -1 when the game is over.  Chance is resolved inside
        ``apply`` from the in-state stream, so there is never a chance "player".
    legal_actions(state, params, out) -> n
        Write the legal action ids, ascending, into ``out[:n]``; n >= 1 unless terminal.
    random_action(state, params, rng, slot) -> action
        A uniformly random legal action using stream ``rng[slot]`` (games implement the
        fast path: it is the random bot and the rollout policy of search bots).
    apply(state, params, action)
        Play ``action`` (which must be legal) and resolve any chance that follows.
    is_terminal(state) -> bool
    random_run(state, params, rng) -> n        (optional)
        Fast path when every seat is random: take as many decisions as convenient, each
        exactly as ``random_action`` (stream ``rng[seat]``) + ``apply`` would, and return
        how many (0 = none now).  Games without one get ``no_random_run``.
    summarize(state, params, players, row)
        Write the result row: ``score_0..n-1``, ``win_0..n-1`` (1 for every seat of a
        shared win, all 0 for a truncated game), ``truncated``, ``turns``, then the game's
        own columns in the order of ``INFO.result_columns(players)``.
    observe(state, player, out)
        The information-set view of ``player``: a copy of ``state`` in which everything
        that seat cannot know is replaced by ``HIDDEN`` (-1) or, for sets, by what is
        publicly known.  Search bots see only this.
    determinize(view, params, player, rng, slot, out)
        Sample a full state consistent with the view ``observe`` returned (hidden cards
        dealt at random among the places they could be) so that information-set search
        never reads hidden information.
    returns(state, params, players, out)
        One float64 per seat into ``out[:players]``: the utility search maximises.  At a
        terminal state a win is worth 1 shared equally among tied winners (two winners
        get 0.5 each), every other seat 0; a truncated game is worth 1/players to every
        seat.  Before the end: 0 for all.  (A score-margin utility may be offered as a
        bot option; it is not the protocol's.)
    observation(view, params, seat, out)
        A fixed-length float64 vector (``INFO.observation_size(players)`` entries) of what
        ``seat`` may know, from the view ``observe`` gave that seat; its layout is
        documented in the game's docstring.  The encoding the PettingZoo
        environments and any learning bot use.
    evaluate(state, params, players, out)      (optional)
        A heuristic value in [0, 1] per seat into ``out[:players]`` for a state that is
        not over, on the scale of ``returns`` (about a win probability, summing to about
        1): what search uses at a rollout's depth cut-off.  It may read the whole
        state it is given (search gives it determinized samples only).  Games without one
        get ``no_evaluate`` (1/players each: the cut-off then carries no information).
    new_deal(state) -> bool                    (optional)
        Whether chance has just dealt afresh (Moon: a hand has ended and the next one is
        dealt; a game of one deal never is).  A search's sampled world deals it from a fresh
        stream, so no play of the searching seat bears on it: cut-off rollouts stop there
        and ``evaluate`` values the state.  Games without one get ``no_new_deal`` (never).

Python-side (plain functions in the same module):

    action_name(action) -> str                        an action in words ("bid 5", "play 6-4")
    trace_start(state, params, players) -> [event]    log events of a fresh game (deals)
    trace_step(before, action, after, params, players) -> [event]   events of one action
    trace_result(values: dict, players) -> dict       extra result fields for the trace
    SECTION_EVENTS (optional)                         event kinds `show` prints unindented
    describe_step(before, action, after, params, players) -> [str]   (optional) what changed, in words
    render(view, seat, params, players) -> str        that seat's view in the game's words
                                                      (hand, grid, piles, trick, scores,
                                                      chips, whose turn): `show`, `human`

``INFO`` (a ``GameInfo``) gives name, player range, options, action count, state size,
result columns and the maximum number of decisions a game can take.

The kernels the engine's loop calls (``init``, ``current_player``, ``legal_actions``,
``random_action``, ``apply``, ``is_terminal``, ``random_run``) must not allocate: the loop
is compiled without Numba's reference counting and Numba compiles callees the same way
(an ``out[:] = state`` copy, which may allocate, belongs in ``observe``/``determinize``,
which the search bots call with it turned on).

Joining: a game is registered by one line, ``simcore.games.register(name, "pkg.module")``
(the built-in games are listed in ``simcore/games/__init__.py``).  It gets the random bot
and every generic bot (``bots/generic``: written once, bound per game like the engine)
whose needed functions it provides; its own bots, if any, live in ``bots/<module>.py``
(``BOTS``, numbered by ``bots.registry.own_kinds``, and a ``policy(kind, bot_params, state,
params, rng, seat, imem, fmem)`` kernel).  Bots receive their working memory as the whole
per-seat ``(players, n)`` arrays ``imem`` (int64) and ``fmem`` (float64) plus their seat,
and use row ``seat`` only; each ``BotSpec`` declares how much it needs.
"""
from __future__ import annotations

import hashlib
import inspect
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from numba import njit

from .options import Option, encode_options, resolve_variant

HIDDEN = -1

# Generic functions receive the game's kernels under these names.
PROTOCOL_FUNCTIONS = (
    "init",
    "current_player",
    "legal_actions",
    "random_action",
    "apply",
    "is_terminal",
    "random_run",
    "summarize",
    "observe",
    "determinize",
    "returns",
    "observation",
    "evaluate",
    "new_deal",
)


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    num_actions: int
    # slots of the state vector for a given player count
    state_size: Callable[[int], int]
    # game-specific result columns (after the common score/win/truncated/turns)
    extra_columns: Callable[[int], list[str]]
    # an upper bound on a game's decisions for the player count under any variant: the
    # engine's guard against a kernel that never ends (traces do not allocate this much)
    max_decisions: Callable[[int], int]
    chance: str = "explicit stochastic (resolved inside apply)"
    information: str = "imperfect"
    utility: str = "general-sum scores; win flags per seat"
    # builds the kernel parameter vector; games with data tables override it
    params_builder: Callable[["GameInfo", Mapping[str, Any]], np.ndarray] | None = None
    description: str = ""
    # result columns whose sums are reported as throughput by `playlab bench` (X_per_s)
    rate_columns: tuple[str, ...] = ()
    # (name pattern, meaning) of every result column, per-seat names ending in ``_S``
    # (``simcore.layout.Columns.docs``), listed by `playlab games GAME`
    column_docs: tuple[tuple[str, str], ...] = ()
    # length of the ``observation`` vector for a player count
    observation_size: Callable[[int], int] | None = None
    # the result column holding the seat that moved first when the game chooses it at
    # random (Moon's first bidder); None: seat 0 always starts.  Studies measure seat
    # advantage by position relative to this seat.
    first_player_column: str | None = None
    # the option whose cap ends a game as truncated (e.g. "round_cap"), for the summaries
    truncation_option: str | None = None
    # ``impossible(variant, players) -> str | None``: why no game can be won under these
    # options (said before running, since such a run only produces truncated games), or None
    impossible: Callable[[Mapping[str, Any], int], str | None] | None = None

    def resolve_variant(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return resolve_variant(self.options, given)

    def make_params(self, variant: Mapping[str, Any]) -> np.ndarray:
        if self.params_builder is not None:
            return self.params_builder(self, variant)
        return encode_options(self.options, variant)

    def result_columns(self, players: int) -> list[str]:
        seats = range(players)
        return (
            [f"score_{s}" for s in seats]
            + [f"win_{s}" for s in seats]
            + ["truncated", "turns"]
            + list(self.extra_columns(players))
        )

    def check_players(self, players: int) -> None:
        if not (self.min_players <= players <= self.max_players):
            if self.min_players == self.max_players:
                span = f"exactly {self.min_players}"
            else:
                span = f"{self.min_players}-{self.max_players}"
            raise ValueError(f"{self.name} is played by {span} players, not {players}")


@njit(cache=True)
def no_random_run(state, params, rng):
    return 0


@njit(cache=True)
def no_evaluate(state, params, players, out):
    """The fallback of ``evaluate``: nothing known, every seat 1/players (a truncated
    game's value)."""
    for s in range(players):
        out[s] = 1.0 / players


@njit(cache=True)
def no_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    """A bot policy that never decides (-1): what a search bot calls for a game without the
    heuristic bot it would use."""
    return -1


@njit(cache=True, inline="always")
def no_new_deal(state):
    """The fallback of ``new_deal``: a game of one deal."""
    return False


OPTIONAL_FUNCTIONS = {"random_run": no_random_run, "evaluate": no_evaluate, "new_deal": no_new_deal}


def game_tag(game: types.ModuleType) -> str:
    """The game's name plus a hash of its module's source (of every module of a game that is a
    package).  Numba's on-disk cache checks only the timestamp of the file defining a
    function, and a bound copy is defined in the template's file: the hash makes an edited
    game module (also one outside playlab's own packages, whose sources key the cache
    directory) compile afresh."""
    h = hashlib.sha256()
    # a game that is a package (its parts in modules of their own): every module of it
    paths = sorted(Path(game.__file__).parent.rglob("*.py")) if hasattr(game, "__path__") else ()
    for path in paths:
        h.update(path.read_bytes())
    if not paths:
        h.update(inspect.getsource(game).encode())
    # a plugin game: also every source its plugin loaded (runtime.plugins)
    h.update(getattr(game, "__playlab_digest__", "").encode())
    return f"{game.INFO.name.replace('-', '_')}_{h.hexdigest()[:10]}"


def missing_functions(game: types.ModuleType, names: Sequence[str]) -> list[str]:
    """The protocol functions of ``names`` that ``game`` does not provide (optional ones
    always count as provided)."""
    return [n for n in names if getattr(game, n, None) is None and n not in OPTIONAL_FUNCTIONS]


def bind_functions(functions: Sequence[Callable], game: types.ModuleType, extra: Mapping[str, Any] | None = None,
                   qualifier: str = "", jit_options: Mapping[str, dict] | None = None) -> dict[str, Any]:
    """Compile plain Python ``functions`` (callees first; they share the namespace of the
    module that defines the first) against ``game``'s protocol functions, as ``bind`` does
    for a template module.  Numba dispatchers are compiled afresh from their Python
    functions.  Returns the compiled functions by name."""
    functions = [getattr(f, "py_func", f) for f in functions]
    namespace = dict(functions[0].__globals__)
    names = []
    for f in functions:
        if f.__globals__ is not functions[0].__globals__:
            namespace.update({k: v for k, v in f.__globals__.items() if k not in namespace})
        names.append(f.__name__)
    holder = types.SimpleNamespace(**{f.__name__: f for f in functions})
    holder.__name__ = functions[0].__module__
    # a bot module's own names win over the protocol's (a game bot imports its game's
    # functions under their names; a generic bot leaves them undefined to be bound)
    own = {k for k in namespace if k in PROTOCOL_FUNCTIONS}
    return _bind(holder, names, game, namespace, extra, qualifier, keep=own, **(jit_options or {}))


def bind(template_module: types.ModuleType, names: Sequence[str], game: types.ModuleType,
         extra: Mapping[str, Any] | None = None, qualifier: str = "", **jit_options) -> dict[str, Any]:
    """Compile the plain-Python generic functions ``names`` of ``template_module`` against
    ``game``'s protocol functions and return them by name.

    Numba resolves a jitted function's globals at compile time, so each game gets its own
    copy of the generic code whose globals hold that game's kernels.  Each copy gets a
    game-qualified ``__qualname__`` (plus ``qualifier`` when one template is bound several
    times for the same game with different ``extra``) so that Numba's on-disk cache keeps
    one entry per copy (closures and first-class function arguments are never cache hits).
    A protocol function the game lacks is left undefined: generic code that needs it fails
    to compile for that game (callers check with ``missing_functions``).
    """
    return _bind(template_module, names, game, dict(vars(template_module)), extra, qualifier, **jit_options)


def _bind(template_module, names, game, namespace, extra, qualifier, keep=(), **jit_options):
    for fn in PROTOCOL_FUNCTIONS:
        if fn in keep:
            continue
        impl = getattr(game, fn, None) or OPTIONAL_FUNCTIONS.get(fn)
        if impl is not None:
            namespace[fn] = impl
    if extra:
        namespace.update(extra)
    tag = game_tag(game) + (f"__{qualifier}" if qualifier else "")
    bound: dict[str, Any] = {}
    for name in names:
        template = getattr(template_module, name)
        fn = types.FunctionType(template.__code__, namespace, name, template.__defaults__)
        fn.__qualname__ = f"{tag}__{name}"
        fn.__module__ = template_module.__name__
        fn.__doc__ = template.__doc__
        opts = dict(cache=True)
        opts.update(jit_options.get(name, {}))
        jitted = njit(**opts)(fn)
        namespace[name] = jitted  # later generic functions call the bound version
        bound[name] = jitted
    return bound
