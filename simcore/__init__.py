"""simcore: Numba game kernels, counter-based RNG, the generic runner and traces.

Importing this package points Numba's on-disk cache at a directory named after a hash
of playlab's own kernel sources.  Numba's ``cache=True`` only checks the timestamp of
the file that defines a function, so a kernel that inlines a game's ``apply`` from
another module would otherwise keep running stale machine code after that module is
edited.  Keying the whole cache on the sources makes every edit (or upgrade) start a
fresh, consistent cache, while unchanged code loads in about a second.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent
_KERNEL_PACKAGES = ("simcore", "bots", "runtime")


def _source_digest() -> str:
    h = hashlib.sha256()
    for pkg in _KERNEL_PACKAGES:
        base = _PACKAGE_ROOT / pkg
        for path in sorted(base.rglob("*.py")):
            h.update(str(path.relative_to(_PACKAGE_ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _configure_numba_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return  # the user chose a cache location; respect it
    base = os.environ.get("PLAYLAB_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "playlab",
    )
    cache_dir = os.path.join(base, "numba-" + _source_digest())
    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    try:
        import numba.core.config as numba_config  # numba may already be imported

        numba_config.CACHE_DIR = cache_dir
    except ImportError:  # pragma: no cover - numba is a hard dependency
        pass


_configure_numba_cache()
