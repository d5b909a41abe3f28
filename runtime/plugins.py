"""Loading plugins: modules that register games and compiled bots (``playlab.register_game``,
``playlab.register_bot``) from outside the package.

A plugin is named by an importable module (``mypkg.mybots``) or a path to a ``.py`` file.
``load_plugins`` imports each once per process: the ``--plugin`` options, ``PLAYLAB_PLUGINS``
(``:``-separated) and every installed distribution's entry point in the group
``playlab.plugins`` go through it, and so does a worker process or a Dask worker that is
handed a run whose game or bots a plugin registered (``RunConfig`` travels with the names of
its plugins).

What a plugin registers is recorded as the plugin's, and keyed by a digest of every source
the plugin loaded: its own file (or its top-level package, also when installed as a
distribution) and each module it imported that is not part of Python, an installed
distribution or playlab, and of what its bots and games compile in from elsewhere
(``simcore.codehash``: the plain values their code reads, the files of the helpers it
reaches, the version of an installed distribution whose code they call).  The compiled
copies' names carry that digest, and the plugin's own ``cache=True`` kernels are cached in a
directory named after it (those its import runs are compiled afresh first), so an edited
plugin, a helper module or a data file read at import always compiles afresh.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
import types
from pathlib import Path

ENTRY_POINT_GROUP = "playlab.plugins"
ENV_VAR = "PLAYLAB_PLUGINS"

_LOADED: dict[str, types.ModuleType] = {}
_ENTRY_POINTS_DONE = False


class PluginError(ValueError):
    pass


def plugin_key(spec: str) -> str:
    """A plugin's canonical name: a file by its absolute path, a module by its name."""
    spec = spec.strip()
    if spec.endswith(".py") or os.sep in spec or os.path.isfile(spec):
        return str(Path(spec).expanduser().resolve())
    return spec


def _is_file(key: str) -> bool:
    return key.endswith(".py") or os.sep in key


def _module_name_for(path: str) -> str:
    stem = "".join(c if c.isalnum() else "_" for c in Path(path).stem)
    return f"playlab_plugin_{stem}_{hashlib.sha256(path.encode()).hexdigest()[:8]}"


def _foreign_files(modules, follow=()) -> list[str]:
    """Source files of ``modules`` that are neither Python's, an installed distribution's
    (unless under ``follow``) nor playlab's own (those are keyed elsewhere)."""
    return _foreign_paths((getattr(m, "__file__", None) for m in modules), follow)


def _foreign_paths(paths, follow=()) -> list[str]:
    """The ``.py`` files of ``paths`` that are neither Python's, an installed distribution's
    (``simcore.codehash.is_library_file``; unless under ``follow``) nor playlab's own."""
    from simcore import PACKAGE_ROOT, KERNEL_PACKAGES
    from simcore.codehash import is_library_file, under

    own = [str(PACKAGE_ROOT / p) for p in KERNEL_PACKAGES + ("runtime", "experiments", "reports", "playlab")]
    out = []
    for f in paths:
        if not f or not f.endswith(".py"):
            continue
        f = str(Path(f).resolve())
        if is_library_file(f, follow) or under(f, own):
            continue
        out.append(f)
    return sorted(set(out))


def _own_roots(key: str) -> tuple[str, ...]:
    """Where plugin ``key``'s own code lives, keyed file by file wherever it is: its file, or
    its top-level package's folders (a plugin installed with pip lies among the installed
    distributions, whose files are otherwise not read).  Call after its import."""
    if _is_file(key):
        return (str(Path(key).resolve()),)
    top = sys.modules.get(key.split(".")[0])
    paths = list(getattr(top, "__path__", None) or ()) or [getattr(top, "__file__", None)]
    return tuple(sorted(str(Path(p).resolve()) for p in paths if p))


def _digest(files: list[str], values: list[bytes] = ()) -> str:
    from simcore.codehash import portable

    h = hashlib.sha256()
    for f in files:
        h.update(portable(f).encode())
        try:
            h.update(Path(f).read_bytes())
        except OSError:
            pass
    for v in values:
        h.update(v + b"\0")
    return h.hexdigest()[:16]


def _registered_code(key: str, follow=()) -> tuple[list[str], list[bytes]]:
    """The source files and plain values (``simcore.codehash.reached``) that the bots and
    games plugin ``key`` registered compile in, beyond the modules its import loaded: a
    constant read from a data file or the environment at import, a jitted helper of a module
    another plugin loaded first, the modules a game given by name imports (loaded only now);
    and the name and version of each installed distribution whose code they call (but
    playlab's environment: ``simcore.codehash.distributions``)."""
    from bots.registry import plugin_functions
    from simcore.codehash import distributions, reached
    from simcore.games import plugin_game_modules

    functions = list(plugin_functions(key))
    for m in plugin_game_modules(key):
        functions += [v for v in vars(m).values() if getattr(getattr(v, "py_func", v), "__module__", None) == m.__name__]
    stopped: set[str] = set()
    files, values = reached(functions, follow, stopped)
    return _foreign_paths(files, follow), values + distributions(stopped)


def _recache(modules, digest: str, base: str | None) -> None:
    """Point the on-disk cache of every ``cache=True`` kernel the plugin's import loaded at a
    directory named after the plugin's digest (Numba would otherwise key them by their own
    file's time stamp only, and keep machine code that inlined an edited helper).  A kernel
    that already ran during the import was compiled afresh into a scratch directory
    (``_import_cache``) and keeps that code."""
    import numba
    from numba.core.dispatcher import Dispatcher
    from numba.core.caching import NullCache

    if not base:
        return
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = os.path.join(base, f"plugin-{digest}")
    try:
        for m in modules:
            for value in list(vars(m).values()):
                if (isinstance(value, Dispatcher) and getattr(value.py_func, "__module__", None) == m.__name__
                        and not isinstance(value._cache, NullCache)):
                    value.enable_caching()
    finally:
        numba.config.CACHE_DIR = saved


@contextlib.contextmanager
def _import_cache():
    """While a plugin is imported, Numba caches into an empty scratch directory: a
    ``cache=True`` kernel the import itself runs is compiled afresh (its helper may have
    changed, which Numba's time stamp of the kernel's own file cannot tell, and the plugin's
    digest is known only once the import is over); ``_recache`` then points it at the
    plugin's directory under the cache directory this yields (None: no on-disk cache)."""
    import numba

    base = numba.config.CACHE_DIR
    if not base:
        yield None
        return
    scratch = tempfile.mkdtemp(prefix="playlab-plugin-import-")
    numba.config.CACHE_DIR = scratch
    try:
        yield base
    finally:
        numba.config.CACHE_DIR = base
        shutil.rmtree(scratch, ignore_errors=True)


def _import(spec: str, key: str) -> types.ModuleType:
    """Import plugin ``key`` (given as ``spec``); a failure is a ``PluginError``."""
    from bots.registry import BotError, start_plugin
    from simcore.games import RegistrationError
    from simcore.plugin_context import registering_for

    try:
        with registering_for(key):
            start_plugin(key)
            if _is_file(key):
                if not os.path.isfile(key):
                    raise PluginError(f"plugin {spec}: no such file")
                if not key.endswith(".py"):  # Python's file loader knows no other suffix
                    raise PluginError(f"plugin {spec}: not a .py file or an importable module")
                name = _module_name_for(key)
                loader_spec = importlib.util.spec_from_file_location(name, key)
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[name] = module
                try:
                    loader_spec.loader.exec_module(module)
                except BaseException:
                    sys.modules.pop(name, None)
                    raise
            else:
                module = importlib.import_module(key)
    except PluginError:
        raise
    except (BotError, RegistrationError) as exc:
        raise PluginError(f"plugin {spec}: {exc}") from None
    except ModuleNotFoundError as exc:
        what = "no such module" if exc.name == key else f"it imports {exc.name!r}, which is not installed"
        raise PluginError(f"plugin {spec}: {what}") from None
    except SyntaxError as exc:
        raise PluginError(f"plugin {spec}: syntax error at line {exc.lineno}: {exc.msg}") from None
    except Exception as exc:
        raise PluginError(f"plugin {spec}: importing it failed: {type(exc).__name__}: {exc}") from None
    except SystemExit as exc:  # sys.exit() in a plugin would end the command silently with its status
        raise PluginError(f"plugin {spec}: exited while loading (SystemExit {exc.code})") from None
    return module


def load_plugin(spec: str) -> types.ModuleType:
    """Import plugin ``spec`` once (module docstring); a failure is a ``PluginError`` naming
    the plugin and the reason."""
    from bots.registry import ensure_builtins, finish_plugin
    from simcore.games import finish_game_plugin

    if not spec.strip():  # `--plugin ""`: a plugin the user meant to give and did not
        raise PluginError("plugin '': an empty name; give a .py file or an importable module")
    key = plugin_key(spec)
    if key in _LOADED:
        return _LOADED[key]
    ensure_builtins()  # a plugin's name that clashes with a built-in one is the plugin's error
    before = set(sys.modules)
    with _import_cache() as cache_base:
        module = _import(spec, key)
        follow = _own_roots(key)
        reached_files, values = _registered_code(key, follow)
        new = [sys.modules[n] for n in set(sys.modules) - before if sys.modules.get(n) is not None] + [module]
        files = sorted(set(_foreign_files(new, follow)) | set(reached_files))
        digest = _digest(files, values)
        module.__playlab_digest__ = digest
        _recache([m for m in new if getattr(m, "__file__", None) and str(Path(m.__file__).resolve()) in files], digest,
                 cache_base)
    finish_plugin(key, digest)
    finish_game_plugin(key, digest)
    _LOADED[key] = module
    # environments already imported register the plugin's games and bots too
    for env_module in ("simcore.pettingzoo", "runtime.gym_env"):
        if env_module in sys.modules:
            sys.modules[env_module].register_envs()
    return module


def plugin_digest(key: str) -> str:
    """The digest of every source loaded plugin ``key`` loaded (module docstring)."""
    return _LOADED[key].__playlab_digest__


def load_plugins(specs=()) -> list[types.ModuleType]:
    """Every plugin of ``specs`` (in order), each once (an empty one is an error: ``--plugin ""``)."""
    return [load_plugin(s) for s in specs]


def env_plugins() -> list[str]:
    return [p for p in os.environ.get(ENV_VAR, "").split(":") if p.strip()]


def entry_point_plugins() -> list[str]:
    from importlib.metadata import entry_points

    return [ep.value.split(":")[0] for ep in entry_points(group=ENTRY_POINT_GROUP)]


def load_configured(cli_specs=()) -> list[types.ModuleType]:
    """Installed entry points, then ``PLAYLAB_PLUGINS``, then the ``--plugin`` options; then a
    bot registered for a game none of them (nor playlab) registers is an error naming its
    plugin (only now: the game may come from a plugin loaded after the bot's)."""
    from bots.registry import BotError, check_plugin_aliases, unknown_bot_games

    global _ENTRY_POINTS_DONE
    out = []
    if not _ENTRY_POINTS_DONE:
        _ENTRY_POINTS_DONE = True
        out += load_plugins(entry_point_plugins())
    out += load_plugins(env_plugins() + list(cli_specs))
    try:
        unknown_bot_games()
        check_plugin_aliases()
    except BotError as exc:
        raise PluginError(str(exc)) from None
    return out


def loaded() -> list[str]:
    return list(_LOADED)
