"""Test-wide setup: the fourth game, Kuhn poker, is a plugin (``examples/plugins/kuhn.py``)
loaded the way a user loads one, so every test that runs over all games covers a game from
outside the package too."""
from pathlib import Path

from runtime.plugins import load_plugin

ROOT = Path(__file__).resolve().parents[1]
KUHN = str(ROOT / "examples" / "plugins" / "kuhn.py")
load_plugin(KUHN)
