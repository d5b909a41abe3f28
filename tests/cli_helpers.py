"""The real command line in a subprocess, for the tests that need one (plugins loaded there
stay out of the test process's catalogue; exit statuses and stderr are the user's)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAYLAB = [sys.executable, "-m", "playlab.cli"]


def playlab(*args, env=None, cwd=None, timeout=600) -> subprocess.CompletedProcess:
    """``playlab ARGS`` run to its end (in the checkout unless ``cwd``), with ``env`` added to
    this process's environment."""
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run(PLAYLAB + [str(a) for a in args], capture_output=True, text=True, env=full,
                          cwd=cwd or ROOT, timeout=timeout)
