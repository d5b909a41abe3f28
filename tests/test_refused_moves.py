"""A compiled bot that answers with a move the rules do not allow: the engine refuses it
and stops the game (simcore.engine.REFUSED), so a run ends with one error line naming the
bot, the seat and the game, instead of handing the rules an action that indexes outside
the state (a segfault, or silently wrong games).  And a plugin that only sets a built-in
bot's defaults is part of what that bot plays: the study's identity and the plugins a
worker loads."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import playlab
from runtime import RefusedMove
from runtime.plugins import load_plugin
from runtime.runner import Batch, RunConfig

ROOT = Path(__file__).resolve().parents[1]
KUHN = str(ROOT / "examples" / "plugins" / "kuhn.py")

# one plugin, three ways to answer wrongly: a move id far outside the game's, a negative
# one late in the game, and an id inside the range that is not legal where it is played
BAD_BOTS = textwrap.dedent("""
    import playlab

    def far_out(view, legal, n, bot_params, params, rng, seat, imem, fmem):
        return 9999

    def late(view, legal, n, bot_params, params, rng, seat, imem, fmem):
        return -1 if n > 5 else legal[0]

    def unlisted(view, legal, n, bot_params, params, rng, seat, imem, fmem):
        # one above the largest legal move (listed ascending): never legal, mostly a move id
        # of the game that is legal elsewhere
        return legal[n - 1] + 1

    playlab.register_bot(playlab.BotSpec("refuse-far-out", "answers 9999"), far_out, games=playlab.ALL_GAMES)
    playlab.register_bot(playlab.BotSpec("refuse-late", "answers -1 once it has more than 5 moves"), late,
                         games=playlab.ALL_GAMES)
    playlab.register_bot(playlab.BotSpec("refuse-unlisted", "answers a move id that is not listed"), unlisted,
                         games=playlab.ALL_GAMES)
""")


@pytest.fixture(scope="module")
def bad_plugin(tmp_path_factory):
    path = tmp_path_factory.mktemp("bad") / "bad_bots.py"
    path.write_text(BAD_BOTS)
    load_plugin(str(path))
    return str(path)


@pytest.mark.parametrize("bot, seat", [("refuse-far-out", 0), ("refuse-late", 1), ("refuse-unlisted", 2)])
def test_a_move_that_is_not_legal_stops_the_run_with_the_bot_seat_and_game(bad_plugin, bot, seat):
    # random beside it: the chain compiles the refusing bot alone (Moon's greedy bidder is
    # the costliest compile of the game's bots, and nothing here needs it)
    specs = ["random"] * 3
    specs[seat] = bot
    config = RunConfig.build("moon", 3, ",".join(specs), {}, 1)
    with pytest.raises(RefusedMove) as exc:
        Batch(config).run(0, 20)
    message = str(exc.value)
    assert message.startswith(f"bot {bot} (seat {seat}) chose a move that is not legal in game ")
    assert f"--plugin {bad_plugin} check moon --bots {bot}" in message
    # the single-game path (show, traces) refuses it the same way
    index = int(message.split(" in game ")[1].split(";")[0])
    with pytest.raises(RefusedMove):
        Batch(config).record(index)


def test_legal_bots_play_on_as_before(bad_plugin):
    # the check costs a legal game nothing: the same rows with the plugin loaded or not
    rows = Batch(RunConfig.build("moon", 3, "mcts:iterations=20,greedy,random", {}, 3)).run(0, 12)
    assert (rows[:, 1] > 0).all()


def test_the_command_line_says_it_in_one_line_and_keeps_nothing_it_would_trust(bad_plugin, tmp_path):
    out = tmp_path / "o"
    r = playlab("--plugin", bad_plugin, "play", "moon", "--bots", "random,refuse-late,random", "--games", "20",
                "--seed", "1", "--threads", "1", "--out", str(out), cwd=tmp_path)
    lines = [ln for ln in r.stderr.splitlines() if not ln.startswith("compiling the ")]
    assert r.returncode not in (0, -11, 139), r  # an error, not a segfault
    assert len(lines) == 1 and lines[0].startswith("error: bot refuse-late (seat 1) chose a move that is not legal"), r.stderr
    assert "Traceback" not in r.stderr
    assert not list(out.glob("*.parquet"))  # no game of the refused chunk was stored
    r = playlab("--plugin", bad_plugin, "show", "moon", "--seed", "1", "--bots", "refuse-far-out,random,random",
                cwd=tmp_path)
    assert r.returncode not in (0, -11, 139) and r.stderr.strip().splitlines()[-1].startswith(
        "error: bot refuse-far-out (seat 0) chose a move that is not legal in game 0"), r.stderr


def test_the_battery_reports_the_refused_move_as_not_legal(bad_plugin, tmp_path):
    r = playlab("--plugin", KUHN, "--plugin", bad_plugin, "check", "kuhn", "--bots", "refuse-far-out", "--no-protocol",
                cwd=tmp_path)
    assert r.returncode == 1, r
    failed = [ln for ln in r.stdout.splitlines() if ln.lstrip().startswith("FAIL")]
    assert any("played a move the engine refused, which is not legal; legal:" in ln for ln in failed), r.stdout
    # the game-running checks fail too, where they used to pass on the corrupted games
    assert any("deterministic" in ln for ln in failed), r.stdout


DEFAULTS_PLUGIN = 'import playlab\nplaylab.set_bot_defaults("moon", "bidder", aggression=0.3, moon_threshold=3)\n'


def test_a_plugin_that_sets_a_bots_defaults_is_part_of_the_study(tmp_path):
    plugin = tmp_path / "defaults.py"
    plugin.write_text(DEFAULTS_PLUGIN)
    out = tmp_path / "o"
    common = ["play", "moon", "--bots", "bidder,greedy,greedy", "--seed", "1", "--threads", "1", "--out", str(out)]
    r = playlab(*common, "--games", "10", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # the same spec now plays other bidding: not the stored study, so not resumed into it
    r = playlab("--plugin", str(plugin), *common, "--games", "20", cwd=tmp_path)
    assert r.returncode == 2, r
    assert f"the code it plays differs: plugin {plugin} (not loaded there)" in r.stderr
    # and a run's configuration names the plugin, so a worker loads it before playing
    load_plugin(str(plugin))
    try:
        assert str(plugin) in RunConfig.build("moon", 3, "bidder,greedy,greedy", {}, 1).plugins()
    finally:
        from bots import registry

        registry._DEFAULTS.pop(("moon", "bidder"), None)
        registry._SHAPED_BY.pop(("moon", "bidder"), None)
        registry._invalidate()


def test_refused_and_legal_moves_are_told_apart_by_binary_search():
    from simcore.engine import is_listed

    legal = np.array([2, 5, 9, 40, 41, -7], np.int64)  # the tail past n is stale buffer
    n = 5
    assert [a for a in range(-8, 45) if is_listed(a, legal, n)] == [2, 5, 9, 40, 41]
    assert not is_listed(2, legal, 0)
