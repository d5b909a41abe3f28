"""Each built-in game is a package of four parts whose imports run down one list
(declaration <- rules <- views <- words), its namespace the protocol module; the compiled
copies' cache tag covers every part."""
import ast
import importlib
import sys
from pathlib import Path

import pytest

from simcore.protocol import game_tag

PARTS = ("declaration", "rules", "views", "words")
GAMES = ("moon", "shifting_stones", "sequence_stacks")


@pytest.mark.parametrize("game", GAMES)
def test_parts_import_only_the_parts_before_them(game):
    pkg = Path(importlib.import_module(f"simcore.games.{game}").__file__).parent
    assert sorted(p.stem for p in pkg.glob("*.py")) == sorted(("__init__",) + PARTS)
    for k, part in enumerate(PARTS):
        tree = ast.parse((pkg / f"{part}.py").read_text())
        siblings = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1}
        assert siblings <= set(PARTS[:k]), (part, siblings)


@pytest.mark.parametrize("game", GAMES)
def test_the_package_is_the_protocol_module(game):
    module = importlib.import_module(f"simcore.games.{game}")
    for name in ("INFO", "init", "current_player", "legal_actions", "random_action", "apply", "is_terminal",
                 "summarize", "returns", "observe", "determinize", "observation", "evaluate", "action_name",
                 "trace_start", "trace_step", "trace_result", "render", "describe_step", "RULES_SUMMARY"):
        assert getattr(module, name, None) is not None, name
    # every part's public names reach the package, and are the part's own objects
    for part in PARTS:
        sub = importlib.import_module(f"simcore.games.{game}.{part}")
        for name, value in vars(sub).items():
            if not name.startswith("_"):
                assert getattr(module, name) is value, (part, name)


def test_the_cache_tag_of_a_package_game_covers_every_part(tmp_path, monkeypatch):
    pkg = tmp_path / "tagged_game"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .rules import *\nclass INFO:\n    name = 'tagged-game'\n")
    (pkg / "rules.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("tagged_game")
    try:
        before = game_tag(module)
        assert before.startswith("tagged_game_")
        (pkg / "rules.py").write_text("X = 2\n")  # only a part changes, not __init__
        assert game_tag(module) != before
    finally:
        sys.modules.pop("tagged_game", None)
        sys.modules.pop("tagged_game.rules", None)
