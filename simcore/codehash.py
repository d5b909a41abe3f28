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
"""
from __future__ import annotations

import hashlib
import inspect
import os
import sysconfig
import types
from functools import lru_cache
from pathlib import Path

import numpy as np

_PLAIN = (bool, int, float, complex, str, bytes, type(None))


@lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    """Python's and installed distributions' folders: code there is not followed."""
    paths = sysconfig.get_paths()
    return tuple(sorted({str(Path(paths[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib")}))


def is_library_file(path: str) -> bool:
    """Whether ``path`` is Python's or an installed distribution's."""
    return any(path.startswith(root + os.sep) for root in _library_roots())


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


def reached(functions) -> tuple[list[str], list[bytes]]:
    """(source files, plain values) that ``functions`` depend on (module docstring), each in
    an order that repeats: files sorted, values sorted by where they were read."""
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
        if path and is_library_file(path):
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
