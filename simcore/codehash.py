"""What compiled code depends on besides the file that defines it.

Numba compiles the globals a function reads into its machine code: a number or an array at
module level becomes a constant, a ``@njit`` function it calls is inlined or linked.  So the
source file of a policy does not decide what its compiled copy plays: a constant read from a
data file or the environment at import, or a jitted helper in another module, may change
while the file stays the same, and a copy cached under a hash of that file alone runs stale.

``reached(functions)`` walks the globals that ``functions`` read (by the names their code
objects use, nested code and closures included), following every Python function or Numba
dispatcher they reach that is not Python's or an installed distribution's, and returns the
source files of the functions it walked and the bytes of every plain value they read
(numbers, strings, arrays, tuples of them).  A module read by attribute (``helpers.pick``)
is followed through the attribute names the code uses.  Values of other kinds (dicts, sets,
objects) are not frozen by Numba as constants and are left out: their ``repr`` need not
repeat from one process to the next.

Code inside an installed distribution is not read file by file: ``distributions`` names the
distributions it stopped at by name and version, leaving out playlab and what it requires
(the environment every compiled copy is built in).  Code its caller calls its own (``follow``:
a plugin installed with pip lives in the same folder as numpy) is followed wherever it is.
"""
from __future__ import annotations

import csv
import hashlib
import inspect
import os
import re
import sys
import sysconfig
import types
from functools import lru_cache
from pathlib import Path

import numpy as np

_PLAIN = (bool, int, float, complex, str, bytes, type(None))
_SITE = "site:"  # how ``portable`` names a path inside the installed distributions' folder


@lru_cache(maxsize=1)
def _stdlib_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(sorted({str(Path(paths[k]).resolve()) for k in ("stdlib", "platstdlib")}))


@lru_cache(maxsize=1)
def site_roots() -> tuple[str, ...]:
    """The folders installed distributions live in."""
    paths = sysconfig.get_paths()
    return tuple(sorted({str(Path(paths[k]).resolve()) for k in ("purelib", "platlib")}))


def _library_roots() -> tuple[str, ...]:
    """Python's and installed distributions' folders: code there is not followed."""
    return _stdlib_roots() + site_roots()


def under(path: str, roots) -> bool:
    """Whether ``path`` is one of the folders or files ``roots`` or lies below one."""
    return any(path == r or path.startswith(r + os.sep) for r in roots)


def is_library_file(path: str, follow=()) -> bool:
    """Whether ``path`` is Python's or an installed distribution's and not under ``follow``."""
    return not under(path, follow) and under(path, _library_roots())


def portable(path: str) -> str:
    """``path`` as a digest names it: inside an installed distributions' folder relative to
    it (machines of one cluster install the same plugin into venvs at different paths),
    elsewhere as it is."""
    for root in site_roots():
        if path.startswith(root + os.sep):
            return _SITE + path[len(root) + 1:]
    return path


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@lru_cache(maxsize=1)
def _environment() -> frozenset[str]:
    """playlab and every distribution it requires (with all of playlab's extras, and the
    extras its requirements name), transitively."""
    from importlib.metadata import PackageNotFoundError, requires

    seen: set[tuple[str, str | None]] = set()
    todo: list[tuple[str, str | None]] = [("playlab", None)]  # (name, extra; None: all)
    while todo:
        name, extra = todo.pop()
        name = _normal(name)
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        try:
            reqs = requires(name) or []
        except PackageNotFoundError:
            continue
        for r in reqs:
            marker = re.search(r"""extra\s*==\s*["']([^"']+)""", r)
            if marker and extra is not None and _normal(marker.group(1)) != extra:
                continue
            if not marker and extra not in (None, ""):
                continue  # a base requirement, followed with extra ""
            m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", r)
            if m:
                todo.append((m.group(1), ""))
                for e in (m.group(2) or "").split(","):
                    if e.strip():
                        todo.append((m.group(1), _normal(e.strip())))
    return frozenset(name for name, _ in seen)


@lru_cache(maxsize=1)
def _owners() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return packages_distributions()


def distributions(paths) -> list[bytes]:
    """The keys (``distributions_of``) of each installed distribution that a file of ``paths``
    belongs to: an upgraded helper library changes what a plugin compiles in, yet its files
    are not read (it may be large)."""
    tops = set()
    for f in paths:
        named = portable(f)
        if named.startswith(_SITE):  # its top-level module or package: the first part
            tops.add(named[len(_SITE):].split(os.sep)[0].split(".")[0])
    return distributions_of(tops)


def distributions_of(tops) -> list[bytes]:
    """``name==version`` and the digest of the installed files of each distribution that
    provides one of the top-level modules ``tops``, but playlab's environment
    (``_environment``).  Names no distribution provides (Python's own, a folder's module)
    give nothing."""
    tops = set(tops) - set(sys.stdlib_module_names)
    if not tops:  # no scan of every installed distribution (a third of a second) for Python's own
        return []
    owners = _owners()
    out = set()
    for top in tops:
        for dist in owners.get(top, ()):
            if _normal(dist) not in _environment():
                out.add(_distribution_key(dist))
    return sorted(out)


@lru_cache(maxsize=None)
def _distribution_key(dist: str) -> bytes:
    """A distribution by name, version and content.  The content is read from the hashes
    pip wrote into its RECORD, not from its files: a library reinstalled with edits under
    the same version is another library.  Left out are its ``.dist-info`` files (which
    installer, from where) and the scripts outside the folder (their first line names the
    venv's Python), so the same wheel in another venv is the same library."""
    from importlib.metadata import distribution

    d = distribution(dist)
    key = f"distribution {_normal(dist)}=={d.version}"
    record = d.read_text("RECORD") or ""
    kept = sorted(f"{row[0]} {row[1]}" for row in csv.reader(record.splitlines())
                  if len(row) >= 2 and row[1] and not row[0].startswith("..") and ".dist-info/" not in row[0])
    if kept:
        key += " files:" + hashlib.sha256("\n".join(kept).encode()).hexdigest()[:16]
    sources = _editable_sources(d, dist)
    if sources:
        key += " sources:" + sources
    return key.encode()


def _editable_sources(d, dist: str) -> str | None:
    """An editable install's (``pip install -e``) sources by content, or None for any other
    install.  Its RECORD lists only the ``.pth`` or finder that points at the source folder,
    so an edited source under the same version would keep the key: here every file of its
    top-level modules is read instead (by path relative to the module, so the same sources
    in another checkout are the same library; ``__pycache__`` left out)."""
    import importlib.util
    import json

    try:
        editable = json.loads(d.read_text("direct_url.json") or "{}").get("dir_info", {}).get("editable")
    except (ValueError, AttributeError):
        return None
    if not editable:
        return None
    h = hashlib.sha256()
    for top in sorted(t for t, owners in _owners().items() if dist in owners):
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            h.update(f"{top} missing\0".encode())
            continue
        files = []  # (its name within the module, the file)
        if spec.submodule_search_locations:  # a package: every file under its folders
            for root in map(Path, spec.submodule_search_locations):
                # ``__pycache__`` tested within the module only: a checkout that itself
                # sits under a folder of that name still has its sources read
                for f in sorted(root.rglob("*")):
                    name = f.relative_to(root)
                    if f.is_file() and "__pycache__" not in name.parts:
                        files.append((name, f))
        elif spec.origin and os.path.isfile(spec.origin):  # a module of one file
            files = [(Path(spec.origin).name, Path(spec.origin))]
        for name, f in files:
            h.update(f"{top}/{name}\0".encode() + hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()[:16]


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


def _function(value):
    """The Python function behind ``value`` (a dispatcher's ``py_func``), or None."""
    fn = getattr(value, "py_func", value)
    return fn if isinstance(fn, types.FunctionType) else None


def _value_bytes(value) -> bytes | None:
    """A plain value as bytes that repeat from process to process (None: not a plain value)."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return None
        return f"array {value.dtype.str} {value.shape}".encode() + np.ascontiguousarray(value).tobytes()
    if isinstance(value, np.generic):
        return f"{type(value).__name__} {value!r}".encode()
    if isinstance(value, _PLAIN):
        return f"{type(value).__name__} {value!r}".encode()
    if isinstance(value, tuple):
        parts = [_value_bytes(v) for v in value]
        if any(p is None for p in parts):
            return None
        return b"tuple(" + b",".join(parts) + b")"
    return None


def _source_file(fn: types.FunctionType) -> str:
    try:
        f = inspect.getsourcefile(fn)
    except TypeError:
        return ""
    return str(Path(f).resolve()) if f else ""


def reached(functions, follow=(), stopped: set[str] | None = None) -> tuple[list[str], list[bytes]]:
    """(source files, plain values) that ``functions`` depend on (module docstring), each in
    an order that repeats: files sorted, values sorted by where they were read.  Code under
    ``follow`` (paths) is followed even inside a library folder; the library files where the
    walk stopped are added to ``stopped``."""
    stack = [f for f in (_function(x) for x in functions) if f is not None]
    seen: set[int] = set()
    files: set[str] = set()
    values: dict[str, bytes] = {}

    def read(where: str, value, follow) -> None:
        fn = _function(value)
        if fn is not None:
            follow.append(fn)
            return
        b = _value_bytes(value)
        if b is not None:
            values[where] = b

    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        path = _source_file(fn)
        if path and is_library_file(path, follow):
            if stopped is not None:
                stopped.add(path)
            continue
        if path:
            files.add(path)
        names = _names(fn.__code__)
        scope = fn.__globals__
        module = getattr(fn, "__module__", "") or ""
        for name in sorted(names):
            if name not in scope:
                continue
            value = scope[name]
            if isinstance(value, types.ModuleType):
                # read by attribute: the attributes this code names
                for attr in sorted(names):
                    if attr in vars(value):
                        read(f"{value.__name__}.{attr}", vars(value)[attr], stack)
                continue
            read(f"{module}.{name}", value, stack)
        for i, cell in enumerate(fn.__closure__ or ()):
            try:
                content = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            read(f"{module}.{fn.__qualname__}.<closure {i}>", content, stack)
    return sorted(files), [k.encode() + b"=" + values[k] for k in sorted(values)]


def values_digest(functions) -> str:
    """A digest of the plain values ``functions`` read (``reached``)."""
    h = hashlib.sha256()
    for v in reached(functions)[1]:
        h.update(v + b"\0")
    return h.hexdigest()[:16]
