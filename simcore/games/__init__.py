"""The games playlab simulates: one registration entry per game.

A game is a module implementing ``simcore.protocol`` (its kernels and ``INFO``).  It joins
with one call, ``register_game(name, kernels, …)`` (``playlab.register_game`` for plugins),
which records everything the rest of playlab keys by game name: the kernels module, its
independent replay engine, its report section, its rules summary for terminal play and
the plugin that registered it.  Its bots register themselves (``bots.registry.register_bot``)
for the game's name.  Every table elsewhere reads this entry; nothing else lists games.

References to code above this layer (a report section, a replay engine) are given as
``"module:attribute"`` strings or as objects and resolved by whoever reads them
(``GameEntry.resolve``), so registering a game imports nothing.  Built-in games are
registered below exactly as a plugin registers its own.  Modules load lazily: loading one
game never compiles or imports another.
"""
from __future__ import annotations

import importlib
import re
import types
from dataclasses import dataclass, field, replace
from typing import Any


class UnknownGame(ValueError):
    pass


class RegistrationError(ValueError):
    """A registration that clashes with an existing one or is malformed."""


@dataclass(frozen=True)
class GameEntry:
    name: str
    # the protocol module: a dotted import path or the module itself
    kernels: Any
    # ``replay(trace) -> result`` of an independent rules engine (``simcore.replay``)
    replay: Any = None
    # ``section(study, info) -> (html block dict, findings)`` for ``playlab report``
    report: Any = None
    # a short summary of the rules for ``playlab human`` (``?``)
    rules: str | None = None
    # the plugin that registered the game (None: built into playlab)
    plugin: str | None = None
    # extra named things other layers may attach (e.g. report tables), by key
    extras: dict = field(default_factory=dict)

    def module(self) -> types.ModuleType:
        kernels = self.kernels
        if isinstance(kernels, types.ModuleType):
            module = kernels
        else:
            try:
                module = importlib.import_module(kernels)
            except ModuleNotFoundError as exc:
                if exc.name == kernels:
                    raise UnknownGame(f"game {self.name!r} is not implemented yet ({kernels} is missing)") from None
                raise
        if module.INFO.name != self.name:
            raise UnknownGame(f"module {module.__name__} declares game {module.INFO.name!r}, not {self.name!r}")
        return module

    def rules_summary(self) -> str | None:
        """The rules summary (``rules`` may be the text or a ``"module:attr"`` reference)."""
        rules = self.rules
        if isinstance(rules, str) and _REFERENCE.match(rules):
            return resolve_reference(rules)
        return rules

    def resolve(self, what: str):
        """The entry's ``what`` (``"replay"``, ``"report"`` or an extra) as an object, or
        None when the game has none."""
        ref = getattr(self, what) if what in ("replay", "report") else self.extras.get(what)
        return resolve_reference(ref)


def resolve_reference(ref):
    """``"pkg.module:attr"`` imported and looked up; anything else returned as is."""
    if ref is None or not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    obj = importlib.import_module(module)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


_REFERENCE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
_ENTRIES: dict[str, GameEntry] = {}


def register_game(name: str, kernels, *, replay=None, report=None, rules: str | None = None,
                  plugin: str | None = None, **extras) -> GameEntry:
    """Make the protocol module ``kernels`` (a module or its dotted path) playable as
    ``name``.  Registering the same game again is a no-op; another module under a taken
    name is refused."""
    if not isinstance(name, str) or not name or any(c in name for c in ",: =/"):
        raise RegistrationError(f"a game name is a word like 'moon' or 'my-game', not {name!r}")
    if plugin is None:
        from simcore.plugin_context import current_plugin

        plugin = current_plugin()
    entry = GameEntry(name, kernels, replay, report, rules, plugin, dict(extras))
    known = _ENTRIES.get(name)
    if known is not None:
        if _module_name(known.kernels) == _module_name(kernels):
            # the same game again (a plugin loaded twice): keep the fuller entry
            _ENTRIES[name] = replace(known, **{k: v for k, v in entry.__dict__.items()
                                              if v not in (None, {}) and k != "name"})
            return _ENTRIES[name]
        raise RegistrationError(f"game {name!r} is already registered as {_module_name(known.kernels)}"
                                + (f" (by plugin {known.plugin})" if known.plugin else ""))
    _ENTRIES[name] = entry
    return entry


def _module_name(kernels) -> str:
    return kernels.__name__ if isinstance(kernels, types.ModuleType) else str(kernels)


def finish_game_plugin(plugin: str, digest: str) -> None:
    """Mark the kernels of every game ``plugin`` registered with the digest of the plugin's
    sources (``runtime.plugins``), which ``simcore.protocol.game_tag`` folds into the
    compiled copies' names (a game that does not import is left to fail where it is used)."""
    for m in plugin_game_modules(plugin):
        m.__playlab_digest__ = digest


def plugin_game_modules(plugin: str) -> list[types.ModuleType]:
    """The kernel modules of the games ``plugin`` registered (imported now if given by name;
    one that does not import is left out here and fails with its own error where it is used,
    so an unfinished game does not stop the plugin's other games and bots)."""
    out = []
    for e in _ENTRIES.values():
        if e.plugin == plugin:
            try:
                out.append(e.module())
            except Exception:
                continue
    return out


def register(name: str, module: str) -> None:
    """Shorthand of ``register_game(name, module)``."""
    register_game(name, module)


def entry(name: str) -> GameEntry:
    try:
        return _ENTRIES[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r} (games: {', '.join(_ENTRIES)})") from None


def entries() -> list[GameEntry]:
    return list(_ENTRIES.values())


def game_names() -> list[str]:
    return list(_ENTRIES)


def load_game(name: str) -> types.ModuleType:
    return entry(name).module()


def available_games() -> list[str]:
    out = []
    for name in _ENTRIES:
        try:
            load_game(name)
        except UnknownGame:
            continue
        out.append(name)
    return out


# ---- the built-in games, registered as any plugin registers its own --------------------------
register_game("moon", "simcore.games.moon", replay="simcore.replay.moon:replay",
              report="reports.sections.moon:section", rules="simcore.games.moon:RULES_SUMMARY",
              balance_metrics="experiments.balance_metrics:moon_metrics")
register_game("shifting-stones", "simcore.games.shifting_stones", replay="simcore.replay.shifting_stones:replay",
              report="reports.sections.shifting_stones:section",
              rules="simcore.games.shifting_stones:RULES_SUMMARY",
              balance_metrics="experiments.balance_metrics:stones_metrics")
register_game("sequence-stacks", "simcore.games.sequence_stacks", replay="simcore.replay.sequence_stacks:replay",
              report="reports.sections.sequence_stacks:section",
              rules="simcore.games.sequence_stacks:RULES_SUMMARY")
