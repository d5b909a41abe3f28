"""simcore: the game protocol, Numba game kernels, the engine's templates, counter-based RNG
and traces (the bottom layer: it imports nothing of playlab's other packages).

Importing this package points Numba's on-disk cache at a directory named after a hash of
playlab's own kernel sources, under ``NUMBA_CACHE_DIR`` when it is set (else
``PLAYLAB_CACHE_DIR``, else ``~/.cache/playlab``).  Numba's ``cache=True`` only checks the
time stamp of the file that defines a function, so a kernel that inlines a game's ``apply``
from another module would otherwise keep running stale machine code after that module is
edited.  Keying the whole cache on the sources makes every edit (or upgrade) start a fresh,
consistent cache, while unchanged code loads in about a second.  Plugins are keyed the same
way by their own sources (``runtime.plugins``).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
# the packages whose sources go into compiled kernels, and the one module of the layer above
# that decides how they are assembled (its globals and names end up in compiled code)
KERNEL_PACKAGES = ("simcore", "bots")
KERNEL_MODULES = ("runtime/kernels.py",)
CACHE_PREFIX = "numba-"


def _source_digest() -> str:
    h = hashlib.sha256()
    paths = [p for pkg in KERNEL_PACKAGES for p in sorted((PACKAGE_ROOT / pkg).rglob("*.py"))]
    for path in paths + [PACKAGE_ROOT / m for m in KERNEL_MODULES]:
        h.update(str(path.relative_to(PACKAGE_ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_base() -> str:
    """Where the keyed cache directories live."""
    return (os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("PLAYLAB_CACHE_DIR")
            or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                            "playlab"))


KERNEL_DIGEST = ""  # the hash of playlab's own kernel sources, set below


def _configure_numba_cache() -> None:
    global KERNEL_DIGEST
    digest = KERNEL_DIGEST = _source_digest()
    inherited = os.environ.get("PLAYLAB_NUMBA_BASE")
    if inherited and os.environ.get("NUMBA_CACHE_DIR") == os.path.join(inherited, CACHE_PREFIX + digest):
        base = inherited  # a child of a playlab process: the parent's keyed directory
    else:
        base = cache_base()
    os.environ["PLAYLAB_NUMBA_BASE"] = base
    cache_dir = os.path.join(base, CACHE_PREFIX + digest)
    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    try:
        import numba.core.config as numba_config  # numba may already be imported

        numba_config.CACHE_DIR = cache_dir
    except ImportError:  # pragma: no cover - numba is a hard dependency
        pass


_configure_numba_cache()
