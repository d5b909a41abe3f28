"""Test-wide setup: the fourth game, Kuhn poker (``tests/games/kuhn.py``), joins with its
one registration line, so every test that runs over all games covers it too."""
import sys
from pathlib import Path

# ``tests.games.kuhn`` is imported by name (also when pytest is started from elsewhere)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import simcore.games  # noqa: E402

simcore.games.register("kuhn", "tests.games.kuhn")
