"""`playlab games [GAME]`: with a game, its result columns and what they mean."""
import dataclasses

import pytest

from playlab.cli import main
from simcore.games import load_game


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_a_game_lists_its_columns_with_their_meaning(capsys):
    code, out, err = run(capsys, "games", "kuhn")
    assert code == 0 and not err
    assert "result columns" in out
    for col, doc in load_game("kuhn").INFO.column_docs:
        assert f"{col:<20} {doc}" in out
    for runner_col in ("index", "decisions", "players", "bot_S"):
        assert f"  {runner_col} " in out
    assert "(no column descriptions)" not in out


def test_a_game_without_descriptions_says_so(capsys, monkeypatch):
    module = load_game("kuhn")
    monkeypatch.setattr(module, "INFO", dataclasses.replace(module.INFO, column_docs=()))
    code, out, err = run(capsys, "games", "kuhn")
    assert code == 0 and "(no column descriptions)" in out and "showdown" not in out


def test_without_a_game_no_columns_and_an_unknown_game_is_one_error_line(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0 and "result columns" not in out and "kuhn" in out
    code, out, err = run(capsys, "games", "chess")
    assert code != 0 and err.startswith("error: unknown game 'chess'") and err.count("\n") == 1


@pytest.mark.parametrize("game", ["moon", "shifting-stones", "sequence-stacks"])
def test_a_game_describes_the_observation_an_agent_reads(capsys, game):
    """plugins.md: ``view.observation`` is "the game's layout as `playlab games GAME`
    describes it": its size and every field with its slice, back to back."""
    from simcore.layout import observation_layout

    module = load_game(game)
    code, out, _ = run(capsys, "games", game)
    assert code == 0
    size = module.INFO.observation_size(module.INFO.min_players)
    assert f"observation (view.observation, the PettingZoo environments): float32, {size} entries" in out
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.startswith("    ")}
    end = 0
    for f in observation_layout(module).fields:
        assert rows[f.name] == (f"[{end}]" if f.size == 1 else f"[{end}:{end + f.size}]")
        end += f.size
    assert end == size


def test_bot_parameter_ranges_are_listed_as_they_parse(capsys):
    """An integer parameter's range in full: `playlab bots` listed mcts's iterations as
    1..1e+06, a value its own parser refuses as not an integer."""
    from bots.registry import parse_bot

    code, out, _ = run(capsys, "bots", "moon")
    assert code == 0
    line = next(line for line in out.splitlines() if line.strip().startswith("iterations"))
    assert "range 1..1000000 " in line and "e+" not in out
    assert parse_bot("moon", "mcts:iterations=1000000").label == "mcts:iterations=1000000"
