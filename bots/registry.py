"""Bots: one registration API for built-in and plugin bots, their catalogue per game, and
parsing of ``NAME:key=value:…`` bot specs.

A compiled bot is registered with ``register_bot(spec, policy, games=…)`` (``playlab.register_bot``
for plugins; every built-in bot module calls it at import, exactly as a plugin does).  Its
``policy`` is a plain Python function (or a Numba dispatcher, whose Python function is
used) with the signature

    policy(view, legal, n, bot_params, params, rng, seat, imem, fmem) -> action

- ``view``: the seat's information-set view (the game's ``observe`` of the real state: what
  the seat may know, the rest ``HIDDEN`` or publicly known); never the real state.
- ``legal[:n]``: the legal actions, ascending.
- ``bot_params[seat]``: its parameter values in ``spec.params`` order (float64).
- ``params``: the game's parameter vector (rule options, data tables).
- ``rng[seat]``: the seat's own bot stream (``simcore.rng``: ``next_u64``, ``below`` …).
- ``imem[seat]`` / ``fmem[seat]``: its int64 / float64 working memory (``spec.memory``).

playlab compiles the policy once per game (``bound_policy``), with the game's protocol
functions (``observe``, ``determinize``, ``legal_actions``, ``apply``, ``returns``,
``evaluate`` …) as globals of the compiled copy: a search bot written once runs on every
game that provides what it ``requires`` (a game lacking one does not list it).
``helpers`` are further plain functions compiled the same way (callees first), and
``extra(game) -> {name: value}`` adds globals (e.g. another bot's compiled policy).

A game's catalogue is ``random`` (the engine's own: the game's ``random_action``, which
decides from the legal moves alone), then the bots registered for that game by name, then
those registered for every game, each in registration order.  Per-game defaults of a bot's
parameters (``set_bot_defaults``) are part of the catalogue, so ``playlab bots GAME`` lists
them and a bot's label names only what differs from them.

The integer a kernel dispatches on is assigned per run (``runtime.kernels``): 0 is random,
1..k the run's other compiled bots in name order.  Nothing here numbers bots.

Python agents (``py:FILE_OR_MODULE:CLASS[:key=value…]``) parse here into a ``Bot`` whose
``agent`` names the class; ``runtime.agents`` loads and plays them.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import math
import types
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

import numpy as np

# every bot's parameters travel to the kernels as one float64 row of this width
MAX_BOT_PARAMS = 10
ALL_GAMES = "*"
RANDOM_NAME = "random"
AGENT_PREFIX = "py:"
SEES = ("view", "state")


class BotError(ValueError):
    pass


@dataclass(frozen=True)
class BotParam:
    name: str
    default: float
    low: float
    high: float
    help: str
    integer: bool = False
    # names of the values low..high (a policy chosen by name, e.g. rollout=greedy); the
    # kernels still receive the value's index
    choices: tuple[str, ...] = ()

    def parse(self, bot: str, raw: str) -> float:
        if self.choices:
            if raw in self.choices:
                return float(self.choices.index(raw))
            if not raw.lstrip("-").isdigit() or not (0 <= int(raw) < len(self.choices)):
                raise BotError(f"bot {bot}: parameter {self.name} must be one of "
                               f"{', '.join(self.choices)}, not {raw!r}")
        try:
            value = int(raw) if self.integer else float(raw)
        except ValueError:
            kind = "an integer" if self.integer else "a number"
            raise BotError(f"bot {bot}: parameter {self.name} takes {kind}, not {raw!r}") from None
        if not (self.low <= value <= self.high):
            raise BotError(f"bot {bot}: parameter {self.name} must be in {self.shown(self.low)}..{self.shown(self.high)}, "
                           f"not {raw}")
        return float(value)

    def shown(self, value: float) -> str:
        # an integer in full (1000000, which parses back, not 1e+06, which is refused)
        return self.choices[int(value)] if self.choices else str(int(value)) if self.integer else f"{value:g}"


def no_memory(info, players, values) -> tuple[int, int]:
    return 0, 0


@dataclass(frozen=True)
class BotSpec:
    name: str
    help: str
    params: tuple[BotParam, ...] = field(default_factory=tuple)
    # (int64 slots, float64 slots) of working memory per seat:
    # memory(game INFO, players, parameter values in ``params`` order)
    memory: Callable[..., tuple[int, int]] = no_memory
    # an alias (``register_alias``): the bot it plays, whose compiled copy and kernels it
    # shares (a run of ``expert`` compiles nothing its bot has not)
    plays: str | None = None
    # parameters given as text (e.g. a model file): ``resolve(game name, [(key, raw)…],
    # numeric values)`` turns a spec that names one into (the spec of a compiled bot made for
    # it, registered by ``resolve``; the text pairs as the label shows them), or None
    text_params: tuple[str, ...] = ()
    resolve: Callable | None = None
    # what each text parameter takes, in ``text_params`` order, for `playlab bots` (none: a file)
    text_help: tuple[str, ...] = ()

    def takes_file(self, key: str) -> bool:
        """Whether text parameter ``key`` names a file (it has no ``text_help`` of its own)."""
        i = self.text_params.index(key)
        return i >= len(self.text_help)


RANDOM = BotSpec(RANDOM_NAME, "uniformly random over the legal actions")


@dataclass(frozen=True)
class BotEntry:
    """One registered compiled bot."""
    spec: BotSpec
    policy: Callable
    games: Any = ALL_GAMES              # ALL_GAMES or a tuple of game names
    helpers: tuple = ()                 # plain functions compiled with the policy, callees first
    requires: tuple[str, ...] = ()      # protocol functions the policy calls
    extra: Callable | None = None       # extra(game module) -> {global name: value}
    jit_options: Mapping[str, dict] = field(default_factory=dict)  # per function name
    sees: str = "view"                  # "view" (the default) or "state" (see register_bot)
    legal: bool = True                  # the engine hands it the legal actions (see register_bot)
    plugin: str | None = None           # the plugin that registered it (None: built in)
    digest: str = ""                    # hash of the sources it was compiled from
    listed: bool = True                 # False: made for a text parameter, not in the catalogue's listing
    # key_from(game name) -> str: more of its key, read when it is compiled (a search's: the
    # key of the policy it calls, RolloutPolicy.key); None: its digest alone
    key_from: Callable[[str], str] | None = None

    def for_game(self, game: str) -> bool:
        return self.games == ALL_GAMES or game in self.games

    def key(self, game: str) -> str:
        """What its compiled copy for ``game`` is cached under: the digest of its sources
        (and fingerprint), and what ``key_from`` adds for the game."""
        return self.digest + (self.key_from(game) if self.key_from is not None else "")


_BOTS: list[BotEntry] = []
_DEFAULTS: dict[tuple[str, str], dict[str, Any]] = {}
# (game, alias) -> the spec it stands for ("NAME" or "NAME:key=value:…")
_ALIASES: dict[tuple[str, str], str] = {}
# (game, bot or alias) -> the plugins that set its defaults or made the alias: what a bot
# plays depends on them too (a study's identity, the plugins a worker loads)
_SHAPED_BY: dict[tuple[str, str], list[str]] = {}


def _shaped_by(game: str, name: str) -> None:
    from simcore.plugin_context import current_plugin

    plugin = current_plugin()
    if plugin is not None:
        by = _SHAPED_BY.setdefault((game, name), [])
        if plugin not in by:
            by.append(plugin)


# plugin -> the (bot name, games) it has registered during its current import: a name
# registered twice in one import is a clash, while a plugin imported afresh (the CLI loading
# it again after a failed attempt, a module reloaded) replaces its own earlier entries
_THIS_IMPORT: dict[str, list[tuple[str, Any]]] = {}


# (game, alias) -> the plugin that made it (None: playlab); and per plugin the aliases made
# during its current import (one made twice in one import is a clash, as a bot's name)
_ALIAS_OWNER: dict[tuple[str, str], str | None] = {}
_THIS_IMPORT_ALIASES: dict[str, set[tuple[str, str]]] = {}


def _made_by(plugin: str | None) -> str:
    return f"plugin {plugin}" if plugin else "playlab"


def start_plugin(plugin: str) -> None:
    """``plugin``'s import begins (``runtime.plugins``): what it registers from now on is
    checked against what it registers in the same import."""
    _THIS_IMPORT[plugin] = []
    _THIS_IMPORT_ALIASES[plugin] = set()


def finish_plugin(plugin: str, digest: str) -> None:
    """Key every bot ``plugin`` registered by the digest of all the sources it loaded
    (``runtime.plugins``: known only once its import has finished)."""
    _THIS_IMPORT.pop(plugin, None)
    _THIS_IMPORT_ALIASES.pop(plugin, None)
    for i, e in enumerate(_BOTS):
        if e.plugin == plugin:
            _BOTS[i] = replace(e, digest=source_digest((*e.helpers, e.policy)) + digest)
    _invalidate()


def plugin_functions(plugin: str) -> list[Callable]:
    """The policies and helpers of the bots ``plugin`` registered."""
    return [f for e in _BOTS if e.plugin == plugin for f in (*e.helpers, e.policy)]


def _python_function(fn) -> types.FunctionType:
    fn = getattr(fn, "py_func", fn)  # a Numba dispatcher: compile its Python function afresh
    if not isinstance(fn, types.FunctionType):
        raise BotError(f"a bot's policy must be a Python function, not {type(fn).__name__}")
    return fn


def values_key(values) -> str:
    """A short key of the parameter values a compiled copy plays another bot with (compiled
    in as constants, so they name the copy: a plugin's ``set_bot_defaults`` changes them
    without touching a source).  Short: keys end up in cache file names."""
    return "|v" + hashlib.sha1(repr(tuple(values)).encode()).hexdigest()[:8]


def source_digest(functions: Sequence[Callable]) -> str:
    """Hash of the source files defining ``functions`` (so an edited bot compiles afresh),
    and of what they compile in from elsewhere (``simcore.codehash.reached``: the files of
    the helpers they reach, the plain values they read, e.g. a constant a script read from
    a file before registering its bot)."""
    from simcore.codehash import reached

    files, values = reached(functions)
    h = hashlib.sha256()
    for path in sorted({inspect.getsourcefile(f) or "" for f in functions} | set(files)):
        h.update(path.encode())
        try:
            with open(path, "rb") as fh:
                h.update(fh.read())
        except OSError:
            pass
    for v in values:
        h.update(v + b"\0")
    return h.hexdigest()[:16]


def _overlap(a, b) -> bool:
    """Whether two bots' ``games`` (``ALL_GAMES`` or names) share a game."""
    return a == ALL_GAMES or b == ALL_GAMES or bool(set(a) & set(b))


def _check_params(spec: BotSpec) -> None:
    """Refuse a parameter declaration no value could satisfy: a range that is empty or not
    finite, or a default outside it (``BotParam.parse`` would refuse the default itself)."""
    for p in spec.params:
        where = f"bot {spec.name}: parameter {p.name}"
        try:
            default, low, high = float(p.default), float(p.low), float(p.high)
        except (TypeError, ValueError):
            raise BotError(f"{where}: default, low and high must be numbers, not "
                           f"{p.default!r}, {p.low!r}, {p.high!r}") from None
        if not all(math.isfinite(v) for v in (default, low, high)):
            raise BotError(f"{where}: default, low and high must be finite, not {default:g}, {low:g}, {high:g}")
        if low > high:
            raise BotError(f"{where}: its range {low:g}..{high:g} is empty (low above high)")
        if not low <= default <= high:
            raise BotError(f"{where}: default {default:g} is outside its range {low:g}..{high:g}")


def check_plugin_aliases() -> None:
    """Raise ``BotError`` (naming the plugin) for an alias a plugin made that its game's
    catalogue cannot hold: it names a bot the game lacks, or a bot took its name.  Checked
    once every plugin is loaded (``runtime.plugins.load_configured``), as the catalogue
    would find it at its first use by any command."""
    from simcore.games import game_names

    known = set(game_names())
    for game in sorted({g for g, a in _ALIASES if _ALIAS_OWNER.get((g, a)) is not None} & known):
        catalogue_entries(game)


def unknown_bot_games() -> None:
    """Raise ``BotError`` for a bot registered for a game no registration names.  Checked
    once every configured plugin is loaded (``runtime.plugins.load_configured``), not when
    the bot registers: a game may come from a plugin loaded later, and a worker process
    loads only the plugins of its run."""
    from simcore.games import game_names

    known = game_names()
    for e in _BOTS:
        missing = [] if e.games == ALL_GAMES else [g for g in e.games if g not in known]
        if missing:
            by = f"plugin {e.plugin}: " if e.plugin else ""
            raise BotError(f"{by}bot {e.spec.name!r} is registered for game {missing[0]!r}, which is unknown "
                           f"(games: {', '.join(known)})")


def register_bot(spec: BotSpec, policy: Callable, *, games: str | Sequence[str] = ALL_GAMES,
                 helpers: Sequence[Callable] = (), requires: Sequence[str] = (), extra: Callable | None = None,
                 jit_options: Mapping[str, dict] | None = None, sees: str = "view", legal: bool = True,
                 defaults: Mapping[str, Mapping[str, Any]] | None = None,
                 fingerprint: str | Callable[[str], str] = "", listed: bool = True) -> BotEntry:
    """Register the compiled bot ``spec`` with its ``policy`` (module docstring) for
    ``games`` (names, or ``ALL_GAMES``).

    ``sees="state"`` hands the policy the real state instead of the view, for a bot whose
    author vouches that it reads only its seat's part and wants to skip the view's copy;
    ``playlab check`` verifies that it decides the same under every resampling of what its
    seat cannot know.  ``legal=False`` is for a policy that finds its own moves: the engine
    does not list the legal actions before each decision (``n`` is 0) — in Sequence Stacks
    that listing costs more than the greedy bot's whole decision.  ``defaults`` sets per-game parameter defaults
    (``{game: {parameter: value}}``).  ``fingerprint`` is added to the hash of the sources
    the compiled copy is cached under (data its ``extra`` globals carry, e.g. a model's
    weights): a text, or a function of the game's name called when the copy is compiled
    (a search passes its rollout policy's ``RolloutPolicy.key``, known only once that bot is
    registered); ``listed=False`` keeps it out of ``bots_for`` (a copy made for a text
    parameter: its spec names it)."""
    from simcore.plugin_context import current_plugin
    from simcore.protocol import PROTOCOL_FUNCTIONS

    if not isinstance(spec, BotSpec):
        raise BotError(f"register_bot needs a BotSpec, not {type(spec).__name__}")
    name = spec.name
    if not name or any(c in name for c in ",:= "):
        raise BotError(f"a bot name is a word like 'greedy' or 'my-bot', not {name!r}")
    if len(spec.params) > MAX_BOT_PARAMS:
        raise BotError(f"bot {name}: {len(spec.params)} parameters, at most {MAX_BOT_PARAMS} fit the kernels' rows")
    names = [p.name for p in spec.params]
    if len(set(names)) != len(names):
        raise BotError(f"bot {name}: a parameter name is declared twice ({', '.join(names)})")
    _check_params(spec)
    if sees not in SEES:
        raise BotError(f"bot {name}: sees must be one of {', '.join(SEES)}, not {sees!r}")
    unknown = sorted(set(requires) - set(PROTOCOL_FUNCTIONS))
    if unknown:
        raise BotError(f"bot {name}: requires unknown protocol functions {', '.join(unknown)}")
    games = ALL_GAMES if games == ALL_GAMES else (games,) if isinstance(games, str) else tuple(games)
    fns = [_python_function(f) for f in (*helpers, policy)]
    plugin = current_plugin()
    opts = {k: dict(v) for k, v in (jit_options or {}).items()}
    if plugin is not None:
        # a plugin's policy may allocate: reference counting on unless it says otherwise
        opts.setdefault(fns[-1].__name__, {}).setdefault("_nrt", True)
    text, key_from = ("", fingerprint) if callable(fingerprint) else (fingerprint, None)
    entry = BotEntry(spec, fns[-1], games, tuple(fns[:-1]), tuple(requires), extra, opts,
                     sees, bool(legal), plugin, source_digest(fns) + text, listed, key_from)
    # a copy made for a text parameter (listed=False) is made again whenever its spec is
    # parsed again, so only a listed bot can be registered twice by mistake
    if listed and any(seen == name and _overlap(seen_games, games)
                      for seen, seen_games in _THIS_IMPORT.get(plugin, ())):
        raise BotError(f"bot {name!r} is registered twice by this plugin (a bot needs a name of its own)")
    for (game, alias) in _ALIASES:
        if alias == name and (games == ALL_GAMES or game in games):
            raise BotError(f"bot {name!r} is already an alias in {game}, made by "
                           f"{_made_by(_ALIAS_OWNER.get((game, alias)))}")
    for other in _BOTS:
        if other.spec.name == name and _overlap(other.games, games):
            if (other.plugin, other.policy.__qualname__, other.policy.__module__) == \
                    (entry.plugin, entry.policy.__qualname__, entry.policy.__module__):
                _BOTS[_BOTS.index(other)] = entry  # the same module imported again
                break
            by = f"plugin {other.plugin}" if other.plugin else "playlab"
            raise BotError(f"bot {name!r} is already registered by {by}")
    else:
        if name == RANDOM_NAME:
            raise BotError("bot 'random' is the engine's own and cannot be registered")
        _BOTS.append(entry)
    if plugin in _THIS_IMPORT:
        _THIS_IMPORT[plugin].append((name, games))
    for game, values in (defaults or {}).items():
        set_bot_defaults(game, name, **values)
    _invalidate()
    return entry


def register_alias(game: str, name: str, spec: str) -> None:
    """Make ``name`` a bot of ``game`` that is the bot ``spec`` (``NAME`` or
    ``NAME:key=value:…``, its values becoming the alias's defaults), e.g. every game's
    ``expert`` naming its strongest bot.  The alias plays exactly as the spec does; it is
    listed after the game's other bots and checked when the catalogue is read."""
    if not name or any(c in name for c in ",:= "):
        raise BotError(f"an alias is a word like 'expert', not {name!r}")
    if name == RANDOM_NAME:
        raise BotError("bot 'random' is the engine's own and cannot be an alias")
    target = spec.split(":")[0]
    if not target or target == name:
        raise BotError(f"alias {name!r} must name another bot, not {spec!r}")
    if target == RANDOM_NAME:
        raise BotError(f"alias {name!r} cannot name random, the engine's own bot (give --bots random)")
    from simcore.plugin_context import current_plugin

    plugin = current_plugin()
    key = (game, name)
    if key in _ALIASES:
        owner = _ALIAS_OWNER.get(key)
        # the same plugin imported afresh replaces its own alias (playlab's own code may
        # only repeat its alias as it was); anyone else's is taken
        renewed = owner == plugin and (key not in _THIS_IMPORT_ALIASES.get(plugin, ()) if plugin is not None
                                       else _ALIASES[key] == spec)
        if not renewed:
            again = " again by this plugin" if owner == plugin else ""
            raise BotError(f"{game}: the name {name!r} is already an alias of {_ALIASES[key]!r} made by "
                           f"{_made_by(owner)}; an alias is made once{again} (give yours a name of its own)")
    for e in _BOTS:
        if e.spec.name == name and e.for_game(game):
            raise BotError(f"{game}: alias {name!r} is already the name of a bot registered by {_made_by(e.plugin)}")
    _ALIASES[key] = spec
    _ALIAS_OWNER[key] = plugin
    if plugin in _THIS_IMPORT_ALIASES:
        _THIS_IMPORT_ALIASES[plugin].add(key)
    _shaped_by(game, name)
    _invalidate()


def alias_of(game: str, name: str) -> str | None:
    """The bot an alias names in ``game`` (``NAME``), or None when ``name`` is no alias."""
    spec = _ALIASES.get((game, name))
    return spec.split(":")[0] if spec else None


def set_bot_defaults(game: str, bot: str, **values) -> None:
    """Per-game defaults for bot ``bot``'s parameters (checked when the catalogue is read)."""
    _DEFAULTS.setdefault((game, bot), {}).update(values)
    _shaped_by(game, bot)
    _invalidate()


def _invalidate() -> None:
    catalogue_entries.cache_clear()
    bound_policy.cache_clear()


def ensure_builtins() -> None:
    """Import the built-in bot modules (each registers its bots on import)."""
    from bots import BUILTIN_BOT_MODULES

    for name in BUILTIN_BOT_MODULES:
        importlib.import_module(name)


def _game(game) -> types.ModuleType:
    if isinstance(game, types.ModuleType):
        return game
    from simcore.games import load_game

    return load_game(game)


def with_defaults(spec: BotSpec, defaults: Mapping[str, Any], where: str) -> BotSpec:
    """``spec`` with some parameters' defaults replaced (each checked against its range)."""
    by_name = {p.name: p for p in spec.params}
    unknown = sorted(set(defaults) - set(by_name))
    if unknown:
        raise BotError(f"{where}: {spec.name} has no parameter {', '.join(unknown)}")

    def raw(p, v):  # 8.0 for an integer parameter is 8; a choice may be given by name
        return str(int(v)) if p.integer and isinstance(v, float) and v.is_integer() else str(v)

    params = tuple(replace(p, default=p.parse(spec.name, raw(p, defaults[p.name])))
                   if p.name in defaults else p for p in spec.params)
    return replace(spec, params=params)


@lru_cache(maxsize=None)
def catalogue_entries(game_name: str) -> tuple[BotEntry, ...]:
    """The registered bots ``game_name`` can run, its own first, each with the game's
    parameter defaults applied (random is not among them: it is the engine's)."""
    from simcore.protocol import missing_functions

    ensure_builtins()
    module = _game(game_name)
    own = [e for e in _BOTS if e.games != ALL_GAMES and game_name in e.games]
    generic = [e for e in _BOTS if e.games == ALL_GAMES and not missing_functions(module, e.requires)]
    out = []
    for e in own + generic:
        defaults = _DEFAULTS.get((game_name, e.spec.name))
        out.append(replace(e, spec=with_defaults(e.spec, defaults, game_name)) if defaults else e)
    known = {e.spec.name for e in out}
    for (game, alias), spec in _ALIASES.items():
        if game != game_name:
            continue
        by = _made_by(_ALIAS_OWNER.get((game, alias)))
        if alias in known:
            raise BotError(f"{game_name}: alias {alias!r} (made by {by}) is also the name of a bot")
        target, *pairs = spec.split(":")
        entry = next((e for e in out if e.spec.name == target), None)
        if entry is None:
            raise BotError(f"{game_name}: alias {alias!r} (made by {by}) names bot {target!r}, which the game "
                           "does not have")
        values = dict(_pairs(target, pairs))
        base = with_defaults(entry.spec, values, f"{game_name}: alias {alias} (made by {by})") if values else entry.spec
        out.append(replace(entry, spec=replace(base, name=alias, help=f"{spec} (alias): {base.help}", plays=target)))
        known.add(alias)
    for (game, bot) in _DEFAULTS:
        if game == game_name and bot not in known:
            raise BotError(f"{game_name}: defaults set for bot {bot!r}, which the game does not have")
    return tuple(out)


def bots_for(game) -> list[BotSpec]:
    """The game's catalogue of specs: random first (module docstring)."""
    name = game.INFO.name if isinstance(game, types.ModuleType) else game
    return [RANDOM] + [e.spec for e in catalogue_entries(name) if e.listed]


def bot_plugins(game: str, name: str) -> tuple[str, ...]:
    """The plugins bot ``name`` of ``game`` plays by: the one that registered it (or the bot
    an alias plays), and those that made the alias or set its defaults (``set_bot_defaults``
    in a plugin changes what the same spec plays)."""
    entry = bot_entry(game, name)
    target = entry.spec.plays or name
    found = [entry.plugin, *_SHAPED_BY.get((game, name), ()), *_SHAPED_BY.get((game, target), ())]
    return tuple(dict.fromkeys(p for p in found if p))


def bot_entry(game: str, name: str) -> BotEntry:
    for e in catalogue_entries(game):
        if e.spec.name == name:
            return e
    raise BotError(f"unknown bot {name!r} for {game}")


def bound_name(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


@lru_cache(maxsize=None)
def bound_policy(game_name: str, bot_name: str):
    """The bot's policy compiled for the game (``simcore.protocol.bind_functions``): a Numba
    dispatcher of the module docstring's signature, cached on disk under a name that
    carries the hash of its sources."""
    from simcore.protocol import bind_functions

    module = _game(game_name)
    target = _ALIASES.get((game_name, bot_name))
    if target is not None:  # an alias plays its bot's compiled policy
        return bound_policy(game_name, target.split(":")[0])
    e = bot_entry(game_name, bot_name)
    extra = dict(e.extra(module)) if e.extra else {}
    bound = bind_functions((*e.helpers, e.policy), module, extra=extra,
                           qualifier=f"{bound_name(bot_name)}_{e.key(game_name)}", jit_options=e.jit_options)
    return bound[e.policy.__name__]


# ---- configured bots -----------------------------------------------------------------------
@dataclass(frozen=True)
class Bot:
    """A configured bot for one seat: a compiled bot with parameter values, or a Python
    agent (``agent`` = (module or file, class name, ((key, value), …)))."""
    spec: BotSpec
    values: tuple[float, ...]
    agent: tuple | None = None
    # text parameters as given ((key, value), …) and the spec name they were given to
    text: tuple = ()
    given_name: str = ""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def compiled_name(self) -> str:
        """The compiled bot this seat runs (an alias runs the bot it names)."""
        return self.spec.plays or self.spec.name

    @property
    def is_agent(self) -> bool:
        return self.agent is not None

    @property
    def label(self) -> str:
        if self.agent is not None:
            target, cls, pairs = self.agent
            return ":".join([AGENT_PREFIX + target, cls] + [f"{k}={v}" for k, v in pairs])
        parts = [self.given_name or self.spec.name] + [f"{k}={v}" for k, v in self.text]
        for p, v in zip(self.spec.params, self.values):
            if v != p.default:
                parts.append(f"{p.name}={p.shown(v)}")
        return ":".join(parts)

    def memory(self, info, players: int) -> tuple[int, int]:
        ints, floats = self.spec.memory(info, players, self.values)
        return int(ints), int(floats)


def _pairs(name: str, pairs: Sequence[str]) -> list[tuple[str, str]]:
    out, seen = [], set()
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise BotError(f"bot {name}: malformed parameter {pair!r}, expected key=value")
        if key in seen:
            raise BotError(f"bot {name}: parameter {key} given twice")
        seen.add(key)
        out.append((key, raw))
    return out


def parse_agent(text: str) -> Bot:
    """``py:FILE_OR_MODULE:CLASS[:key=value…]`` (the class is loaded by ``runtime.agents``)."""
    target, _, rest = text[len(AGENT_PREFIX):].partition(":")
    cls, *pairs = rest.split(":") if rest else [""]
    if not target or not cls or not cls.isidentifier():
        raise BotError(f"malformed agent spec {text!r}: expected py:FILE_OR_MODULE:CLASS[:key=value…]")
    pairs = tuple(_pairs(f"{AGENT_PREFIX}{target}:{cls}", pairs))
    spec = BotSpec(f"{AGENT_PREFIX}{target}:{cls}", f"Python agent {cls} from {target}")
    return Bot(spec, (), (target, cls, pairs))


def parse_bot(game, text: str) -> Bot:
    text = text.strip()
    if text.startswith(AGENT_PREFIX):
        return parse_agent(text)
    name, *pairs = text.split(":")
    specs = {b.name: b for b in bots_for(game)}
    if name not in specs:
        gname = game.INFO.name if isinstance(game, types.ModuleType) else game
        raise BotError(f"unknown bot {name!r} for {gname} (bots: {', '.join(specs)})")
    spec = specs[name]
    values = {p.name: p.default for p in spec.params}
    by_name = {p.name: p for p in spec.params}
    given = _pairs(name, pairs)
    text = tuple((k, v) for k, v in given if k in spec.text_params)
    for key, raw in given:
        if key in spec.text_params:
            continue
        if key not in by_name:
            known = ", ".join([*by_name, *spec.text_params]) or "none"
            raise BotError(f"bot {name}: unknown parameter {key!r} (parameters: {known})")
        values[key] = by_name[key].parse(name, raw)
    if text and spec.resolve is not None:
        gname = game.INFO.name if isinstance(game, types.ModuleType) else game
        made = spec.resolve(gname, list(text), values)
        if made is not None:
            made, text = made
            return Bot(made, tuple(values[p.name] for p in spec.params), text=tuple(text), given_name=name)
    return Bot(spec, tuple(values[p.name] for p in spec.params))


def split_specs(text: str | Sequence[str]) -> list[str]:
    """Comma-separated bot specs (a list is taken as given)."""
    return [t for t in (text.split(",") if isinstance(text, str) else list(text))]


def parse_bots(game, text: str | Sequence[str], players: int) -> list[Bot]:
    """One spec per seat, comma separated; a single spec fills every seat."""
    items = split_specs(text)
    if any(not t.strip() for t in items):
        raise BotError(f"empty bot spec in {text!r}")
    if len(items) == 1:
        items = items * players
    if len(items) != players:
        raise BotError(f"{len(items)} bot specs given for {players} players")
    return [parse_bot(game, t) for t in items]


def compiled_names(bots: Sequence[Bot]) -> tuple[str, ...]:
    """The run's compiled bots other than random, in name order: kind k + 1 is the k-th."""
    return tuple(sorted({b.compiled_name for b in bots if not b.is_agent and b.name != RANDOM_NAME}))


# kind of a seat played by a Python agent (the compiled loop hands its decisions back)
AGENT_KIND = -1
RANDOM_KIND = 0


def bot_arrays(bots: Sequence[Bot]) -> tuple[np.ndarray, np.ndarray]:
    """Per seat: the kind the run's compiled dispatch knows the bot by, and its parameters."""
    names = compiled_names(bots)
    kinds = np.array([AGENT_KIND if b.is_agent else RANDOM_KIND if b.name == RANDOM_NAME
                      else 1 + names.index(b.compiled_name) for b in bots], dtype=np.int64)
    params = np.zeros((len(bots), MAX_BOT_PARAMS), dtype=np.float64)
    for s, b in enumerate(bots):
        params[s, : len(b.values)] = b.values
    return kinds, params


def memory_arrays(bots: Sequence[Bot], info, players: int) -> tuple[int, int]:
    """Row lengths of the per-seat working memory: the most any seat's bot asks for (at
    least 1, so the arrays are never empty)."""
    ints = floats = 1
    for b in bots:
        i, f = b.memory(info, players)
        ints, floats = max(ints, i), max(floats, f)
    return ints, floats


def allocate_memory(bots: Sequence[Bot], info, players: int) -> tuple[np.ndarray, np.ndarray]:
    ints, floats = memory_arrays(bots, info, players)
    return np.zeros((players, ints), np.int64), np.zeros((players, floats), np.float64)
