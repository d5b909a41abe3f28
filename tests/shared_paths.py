"""Where the project's shared contract lives: ``../shared`` beside the checkout (as on
developers' machines and in CI), or ``$PLAYLAB_SHARED``.  Tests that need it fail, never
skip, when it is missing."""
import os
from pathlib import Path

SHARED = Path(os.environ.get("PLAYLAB_SHARED") or Path(__file__).resolve().parents[2] / "shared")
EXAMPLES = SHARED / "spec" / "examples"
