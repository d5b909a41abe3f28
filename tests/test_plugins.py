"""Bring your own bot: plugin bots and games from outside the package, Python agents, the
compiled-code cache, and the conformance battery as a user runs it (shared/spec/plugins.md).

Kuhn poker (examples/plugins/kuhn.py, loaded by conftest.py as a plugin) keeps the
compiles small; the subprocess tests run the real command line."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import playlab
from runtime.plugins import load_plugin
from runtime.runner import Batch, RunConfig

ROOT = Path(__file__).resolve().parents[1]
FIRST_LEGAL_BOT = str(ROOT / "examples" / "plugins" / "first_legal_bot.py")
FIRST_LEGAL_AGENT = "py:" + str(ROOT / "examples" / "agents" / "first_legal.py") + ":FirstLegal"
KUHN = str(ROOT / "examples" / "plugins" / "kuhn.py")


# ---- the examples of shared/spec/plugins.md -------------------------------------------------------
def test_a_python_agent_and_its_compiled_twin_write_identical_rows():
    load_plugin(FIRST_LEGAL_BOT)
    compiled = Batch(RunConfig.build("kuhn", 2, "first-legal,nash", {}, 5)).run(0, 300)
    agent = Batch(RunConfig.build("kuhn", 2, f"{FIRST_LEGAL_AGENT},nash", {}, 5)).run(0, 300)
    assert np.array_equal(compiled, agent)
    # and not by accident: another agent would play other games
    assert not np.array_equal(compiled, Batch(RunConfig.build("kuhn", 2, "nash,nash", {}, 5)).run(0, 300))


def test_a_recorded_agent_game_is_its_compiled_twins_game_move_for_move():
    """A trace of a game with a Python agent records the compiled seats' moves as the engine
    takes them (``Batch.advance`` writing what it took), then the agent's: the same actions
    and row as the compiled twin's recorded game."""
    load_plugin(FIRST_LEGAL_BOT)
    compiled = Batch(RunConfig.build("moon", 3, "greedy,first-legal,greedy", {}, 2))
    agent = Batch(RunConfig.build("moon", 3, f"greedy,{FIRST_LEGAL_AGENT},greedy", {}, 2))
    for index in (0, 3):
        actions, row = compiled.record(index)
        agent_actions, agent_row = agent.record(index)
        assert len(actions) > 30 and np.array_equal(agent_actions, actions) and np.array_equal(agent_row, row)


def test_the_twins_agree_in_moon_too_and_in_two_processes(monkeypatch):
    """Moon, the spec's own example: the agent's games split over two worker processes
    give the compiled bot's rows."""
    import runtime.agents as A
    from runtime.runner import set_threads

    load_plugin(FIRST_LEGAL_BOT)
    compiled = Batch(RunConfig.build("moon", 3, "first-legal,greedy,greedy", {}, 1)).run(0, 160)
    monkeypatch.setattr(A, "MIN_GAMES_PER_PROCESS", 40)
    set_threads(2)
    try:
        agent = Batch(RunConfig.build("moon", 3, f"{FIRST_LEGAL_AGENT},greedy,greedy", {}, 1)).run(0, 160)
    finally:
        A.stop_pool()
    assert np.array_equal(compiled, agent)


def test_a_bot_reading_its_whole_view_plays_game_i_the_same_in_any_batch(tmp_path):
    """A plugin bot whose move depends on every word of its view: game i is the same game
    alone as after other games in one batch, in each game (Sequence Stacks' init leaves
    words unset that observe copies; they held the previous game's words)."""
    plugin = tmp_path / "whole_view.py"
    plugin.write_text(textwrap.dedent("""
        import playlab

        def whole_view(view, legal, n, bot_params, params, rng, seat, imem, fmem):
            s = 0
            for i in range(view.shape[0]):
                s = s * 31 + view[i]
            if s < 0:
                s = -s
            return legal[s % n]

        playlab.register_bot(playlab.BotSpec("whole-view", "a move from every word of its view"),
                             whole_view, games=playlab.ALL_GAMES)
    """))
    load_plugin(str(plugin))
    for game, players in (("sequence-stacks", 2), ("moon", 3), ("shifting-stones", 2)):
        # in every seat: each seat's move reads its view (and the chain compiles no greedy)
        bots = ",".join(["whole-view"] * players)
        batch = Batch(RunConfig.build(game, players, bots, {}, 4))
        together = batch.run(0, 6)
        alone = np.concatenate([batch.run(i, 1) for i in range(6)])
        assert np.array_equal(together, alone), game


def test_agent_errors_name_the_agent_the_game_and_the_action(tmp_path):
    from runtime.agents import AgentError

    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""
        class Illegal:
            def __init__(self, game, players, seat, **params):
                self.after = int(params.get("after", "0"))
                self.count = 0
            def act(self, view):
                self.count += 1
                return 99 if self.count > self.after else view.legal_actions[0]
        class Raises:
            def __init__(self, game, players, seat):
                pass
            def act(self, view):
                raise RuntimeError("no idea")
    """))
    with pytest.raises(AgentError, match=r"Illegal:after=3 \(seat 0\) returned 99 in game \d+, which is not"):
        Batch(RunConfig.build("kuhn", 2, f"py:{bad}:Illegal:after=3,nash", {}, 1)).run(0, 20)
    with pytest.raises(AgentError, match="Raises.*failed in game 0: RuntimeError: no idea"):
        Batch(RunConfig.build("kuhn", 2, f"py:{bad}:Raises,nash", {}, 1)).run(0, 5)
    with pytest.raises(AgentError, match="has no class Nope"):
        Batch(RunConfig.build("kuhn", 2, f"py:{bad}:Nope,nash", {}, 1)).run(0, 5)


@pytest.mark.parametrize("chunk, processes", [(100_000, 1), (3, 1), (100_000, 2)])
def test_the_games_an_agent_finished_before_it_failed_stay_stored(tmp_path, monkeypatch, chunk, processes):
    """plugins.md: an agent that fails "stops the run with one error: line …; finished
    games stay stored" — the games before it in its chunk too (they were lost with the
    chunk: with the default chunk, every game), also when worker processes played them.
    The stored rows are those of a run in which the agent does not fail."""
    import runtime.agents as A
    from experiments.store import read_results
    from experiments.study import Study, execute_study
    from runtime.agents import AgentError
    from runtime.runner import set_threads, to_frame

    bad = tmp_path / "late.py"
    bad.write_text(textwrap.dedent("""
        class Late:
            def __init__(self, game, players, seat, **params):
                self.at = int(params["at"])
            def act(self, view):
                return 99 if view.index == self.at else view.legal_actions[0]
    """))
    monkeypatch.setattr(A, "MIN_GAMES_PER_PROCESS", 4)
    set_threads(processes)
    try:
        failing = Study("play", [RunConfig.build("kuhn", 2, f"py:{bad}:Late:at=7,nash", {}, 3)], games=10, seed=3,
                        chunk=chunk)
        with pytest.raises(AgentError, match=r"in game 7.*; the \d+ games? before it in its chunk (is|are) stored"):
            execute_study(failing, store=tmp_path / "out")
    finally:
        A.stop_pool()
        set_threads(None)
    stored = read_results(tmp_path / "out")
    assert list(stored["index"]) == list(range(7))
    fine = RunConfig.build("kuhn", 2, f"py:{bad}:Late:at=99,nash", {}, 3)
    expected = to_frame(fine, Batch(fine).run(0, 7))
    for col in expected.columns:
        if col != "players" and not col.startswith("bot_"):
            assert np.array_equal(stored[col].to_numpy(), expected[col].to_numpy()), col


def test_a_run_with_an_agent_by_a_relative_path_travels_to_another_working_folder(tmp_path, monkeypatch):
    """A worker whose working folder differs (a Dask worker started elsewhere) finds the
    agent file the run named by a relative path, and plays the same games under the same
    label (it said "no such file")."""
    import pickle

    import runtime.agents as A

    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    (home / "agents").mkdir(parents=True)
    elsewhere.mkdir()
    (home / "agents" / "first.py").write_text(Path(FIRST_LEGAL_AGENT[3:].rsplit(":", 1)[0]).read_text())
    monkeypatch.chdir(home)
    config = RunConfig.build("kuhn", 2, "py:agents/first.py:FirstLegal,nash", {}, 5)
    rows = Batch(config).run(0, 50)
    sent = pickle.dumps(config)
    monkeypatch.chdir(elsewhere)
    for name in ("_MODULES", "_FILES", "_LIBRARIES", "_LOCATED"):  # as in a fresh worker process
        monkeypatch.setattr(A, name, {})
    there = pickle.loads(sent)
    assert there.bot_labels == config.bot_labels
    assert np.array_equal(Batch(there).run(0, 50), rows)


def test_the_agent_sees_its_view_and_a_reproducible_stream(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""
        import numpy as np
        SEEN = []
        class Probe:
            def __init__(self, game, players, seat, **params):
                self.seat = seat
            def start(self, index):
                SEEN.append(("start", index))
            def act(self, view):
                assert view.seat == self.seat and view.game == "kuhn" and view.players == 2
                assert view.observation.dtype == np.float32 and "seat" in view.render()
                assert view.action_name(view.legal_actions[0]) in ("pass", "bet")
                SEEN.append(("act", view.index, float(view.rng.random())))
                return view.legal_actions[int(view.rng.integers(len(view.legal_actions)))]
            def finish(self, index, returns):
                SEEN.append(("finish", index, float(returns.sum())))
    """))
    spec = f"py:{probe}:Probe,nash"
    a = Batch(RunConfig.build("kuhn", 2, spec, {}, 3)).run(0, 50)
    b = Batch(RunConfig.build("kuhn", 2, spec, {}, 3)).run(0, 50)
    assert np.array_equal(a, b)
    seen = [m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == str(probe.resolve())][0].SEEN
    assert seen[0] == ("start", 0) and ("finish", 49, 1.0) in seen
    # each game's draws restart from the seat's stream of that game: the two runs drew the same
    first_run = [x for x in seen[:len(seen) // 2] if x[0] == "act"]
    second_run = [x for x in seen[len(seen) // 2:] if x[0] == "act"]
    assert first_run == second_run and len({x[2] for x in first_run}) > 10


# ---- a plugin game and its bot through the command line ---------------------------------------------
def test_a_plugin_game_runs_every_command(tmp_path):
    out = tmp_path / "kuhn-play"
    r = playlab("--plugin", KUHN, "play", "kuhn", "--bots", "nash,random", "--games", "2000", "--seed", "4",
                "--out", str(out), "--trace", str(tmp_path / "t.jsonl"), "--trace-games", "5")
    assert r.returncode == 0, r.stderr
    assert "nash" in r.stdout and "wrote 5 traces" in r.stdout
    from simcore.replay import replay

    for line in (tmp_path / "t.jsonl").read_text().splitlines():
        trace = json.loads(line)
        assert replay(trace)["winners"] == trace["result"]["winners"]
    r = playlab("--plugin", KUHN, "show", "kuhn", "--seed", "4", "--index", "2", "--bots", "nash,random")
    assert r.returncode == 0 and "deal" in r.stdout, r.stderr
    r = playlab("--plugin", KUHN, "tournament", "kuhn", "--bots", "nash,random", "--games", "300", "--seed", "2",
                "--out", str(tmp_path / "tour"), "--no-progress")
    assert r.returncode == 0 and "nash" in r.stdout, r.stderr
    r = playlab("--plugin", KUHN, "report", str(tmp_path / "tour"))
    assert r.returncode == 0, r.stderr
    assert "Kuhn poker: showdowns" in (tmp_path / "tour" / "report.html").read_text()
    r = playlab("--plugin", KUHN, "check", "kuhn", "--bots", "nash")
    assert r.returncode == 0 and "checks passed" in r.stdout, r.stdout + r.stderr
    r = playlab("games", "kuhn", env={"PLAYLAB_PLUGINS": KUHN})
    assert r.returncode == 0 and "Kuhn poker" in r.stdout
    r = playlab("play", "kuhn")  # without the plugin the game is unknown: one error line
    assert r.returncode == 2 and r.stderr.startswith("error: unknown game 'kuhn'") and len(r.stderr.splitlines()) == 1


def test_bad_plugins_are_one_error_line_naming_the_plugin(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import not_a_module_anywhere\n")
    clash = tmp_path / "clash.py"
    clash.write_text("import playlab\n\ndef p(view, legal, n, bp, params, rng, seat, imem, fmem):\n    return legal[0]\n\n"
                     "playlab.register_bot(playlab.BotSpec('greedy', 'mine'), p, games=('moon',))\n")
    typo = tmp_path / "typo.py"
    typo.write_text("import playlab\n\ndef p(view, legal, n, bp, params, rng, seat, imem, fmem):\n"
                    "    return undefined_name + legal[0]\n\nplaylab.register_bot(playlab.BotSpec('typo', 'x'), p)\n")
    for plugin, words in ((broken, "not_a_module_anywhere"), (clash, "already registered"),
                          (tmp_path / "missing.py", "no such file")):
        r = playlab("--plugin", str(plugin), "bots", "moon")
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith(f"error: plugin {plugin}") and words in r.stderr and len(r.stderr.splitlines()) == 1
    r = playlab("--plugin", str(typo), "play", "kuhn", "--bots", "typo,random", "--games", "3",
                env={"PLAYLAB_PLUGINS": KUHN})
    assert r.returncode == 2 and "typo does not compile" in r.stderr and "undefined_name" in r.stderr, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if not ln.startswith("compiling ")]  # the notice aside
    assert len(errors) == 1 and errors[0].startswith(f"error: plugin {typo}: bot typo")


CHEAT = """
import playlab
from simcore.games import load_game
K = load_game("kuhn")
CARD = K.CARD

def peek(view, legal, n, bp, params, rng, seat, imem, fmem):
    # bets exactly when it holds the better card: it reads the opponent's card from the state
    return 1 if view[CARD + seat] > view[CARD + 1 - seat] else 0

playlab.register_bot(playlab.BotSpec("peek", "reads the other card"), peek, games=("kuhn",), sees="state")
"""


SPY = """
import playlab
from simcore.games import load_game
K = load_game("kuhn")
CARD = K.CARD

def spy(view, legal, n, bp, params, rng, seat, imem, fmem):
    # keeps its own card in its own memory (allowed); reads the other seat's (not allowed:
    # what that seat knows): bets in the dark when that row is empty, and otherwise only
    # with the better card
    imem[seat, 0] = view[CARD + seat] + 1
    theirs = imem[1 - seat, 0]
    if theirs == 0:
        return 1
    return 1 if view[CARD + seat] + 1 > theirs else 0

playlab.register_bot(playlab.BotSpec("spy", "reads the other seat's memory", memory=lambda info, players, values: (1, 0)),
                     spy, games=("kuhn",))
"""


def check_plugin_bot(tmp_path, source, bot, game="kuhn", *args):
    """``playlab check GAME --bots BOT`` with the plugin ``source`` (and Kuhn's for Kuhn)."""
    path = tmp_path / f"{bot}.py"
    path.write_text(source)
    kuhn = ("--plugin", KUHN) if game == "kuhn" else ()
    return playlab(*kuhn, "--plugin", str(path), "check", game, "--bots", bot, *args, "--no-protocol")


def test_a_plugin_bot_reading_another_seats_memory_is_caught_by_check(tmp_path):
    r = check_plugin_bot(tmp_path, SPY, "spy")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL" in r.stdout and "working memory (imem, fmem) was wiped" in r.stdout \
        and "reads what another seat keeps" in r.stdout and "hidden cards" not in r.stdout
    # nor may it draw from another seat's random stream
    dice = SPY.replace("    imem[seat, 0] = view[CARD + seat] + 1\n", "    return legal[abs(rng[1 - seat]) % n]\n")
    r = check_plugin_bot(tmp_path, dice.replace('"spy"', '"dice"'), "dice")
    assert r.returncode == 1 and "their random streams changed" in r.stdout, r.stdout + r.stderr
    # reading its own row only passes
    r = check_plugin_bot(tmp_path, SPY.replace("imem[1 - seat, 0]", "imem[seat, 0]").replace('"spy"', '"own"'), "own")
    assert r.returncode == 0, r.stdout + r.stderr


LATE = """
import playlab
from simcore.rng import below
from simcore.games.shifting_stones.declaration import HAND_LO, HAND_HI, TURNS, PLAYERS

def late(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    # plays by its own hand, and from turn 100 on by the next seat's (which it must not see)
    h = view[HAND_LO + seat] ^ view[HAND_HI + seat]
    if view[TURNS] >= 100:
        other = (seat + 1) % view[PLAYERS]
        h = view[HAND_LO + other] ^ view[HAND_HI + other]
    if h < 0:
        h = -h
    if below(rng, seat, 4) == 0:
        return legal[below(rng, seat, n)]
    return legal[h % n]

playlab.register_bot(playlab.BotSpec("late", "peeks from turn 100 on"), late, games=("shifting-stones",), sees="state")
"""


def test_a_bot_peeking_only_late_in_a_game_is_caught_by_check(tmp_path):
    """The check looks at positions over whole games: a peek that starts after turn 100 went
    unseen when it stopped each game at 400 decisions (about turn 85 of this bot's games)."""
    r = check_plugin_bot(tmp_path, LATE, "late", "shifting-stones", "--players", "2")
    assert r.returncode == 1 and "reads hidden information" in r.stdout, r.stdout + r.stderr


def test_a_cheating_plugin_bot_is_caught_by_check(tmp_path):
    r = check_plugin_bot(tmp_path, CHEAT, "peek")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL" in r.stdout and "reads hidden information" in r.stdout
    # the same bot registered as every plugin bot is (it sees the view) cannot read the card
    r = check_plugin_bot(tmp_path, CHEAT.replace(', sees="state"', "").replace('"peek"', '"honest"'), "honest")
    assert r.returncode == 0, r.stdout + r.stderr


# ---- the cache never runs stale code ------------------------------------------------------------------
BOT_V1 = """
import playlab

def edited(view, legal, n, bp, params, rng, seat, imem, fmem):
    return legal[0]

playlab.register_bot(playlab.BotSpec("edited", "changes between runs"), edited, games=("kuhn",))
"""


def _seat0_wins(result):
    return json.loads(result.stdout)["seats"][0]["wins"]


@pytest.mark.parametrize("numba_dir", [True, False], ids=["NUMBA_CACHE_DIR set", "NUMBA_CACHE_DIR unset"])
def test_editing_or_adding_a_plugin_bot_between_runs_changes_play(tmp_path, numba_dir):
    cache = tmp_path / "cache"
    env = {"PLAYLAB_PLUGINS": KUHN, "PLAYLAB_NUMBA_BASE": ""}
    if numba_dir:
        env["NUMBA_CACHE_DIR"] = str(cache)
    else:
        env["NUMBA_CACHE_DIR"] = ""
        env["PLAYLAB_CACHE_DIR"] = str(cache)
    plugin = tmp_path / "mybot.py"
    args = ["--plugin", str(plugin), "play", "kuhn", "--bots", "edited,nash", "--games", "2000", "--seed", "3",
            "--json"]
    plugin.write_text(BOT_V1)
    first = playlab(*args, env=env)
    assert first.returncode == 0, first.stderr
    again = playlab(*args, env=env)  # from the cache: the same play
    assert _seat0_wins(again) == _seat0_wins(first)
    plugin.write_text(BOT_V1.replace("return legal[0]", "return legal[n - 1]"))  # always bet: other games
    edited = playlab(*args, env=env)
    assert edited.returncode == 0, edited.stderr
    assert _seat0_wins(edited) != _seat0_wins(first)
    # a bot added to the same file works at once
    plugin.write_text(plugin.read_text() + BOT_V1.replace("edited", "added").replace("legal[0]", "legal[n - 1]"))
    added = playlab(*(args[:5] + ["added,nash"] + args[6:]), env=env)
    assert added.returncode == 0, added.stderr
    assert _seat0_wins(added) == _seat0_wins(edited)
    assert any(p.name.startswith("numba-") for p in cache.iterdir())


# What a plugin bot compiles in besides its own file: each case's first version always passes
# (legal[0]), the edit (of a file other than the plugin's) makes it always bet.
_STALE_CASES = {
    # a constant read from a data file at import (Numba freezes it into the machine code)
    "a constant read from a file": (
        {"conf.json": '{"last": 0}',
         "mybot.py": """
import json, os, playlab
LAST = json.load(open(os.path.join(os.path.dirname(__file__), "conf.json")))["last"]
def edited(view, legal, n, bp, params, rng, seat, imem, fmem):
    return legal[(n - 1) * LAST]
playlab.register_bot(playlab.BotSpec("edited", "x"), edited, games=("kuhn",))
"""}, "conf.json", ('"last": 0', '"last": 1'), ["mybot.py"]),
    # a jitted helper in a module another plugin imported first
    "a helper another plugin loaded first": (
        {"helper.py": "from numba import njit\n@njit\ndef pick(legal, n):\n    return legal[0]\n",
         "first.py": "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\nimport helper\n",
         "mybot.py": """
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import playlab
from helper import pick
def edited(view, legal, n, bp, params, rng, seat, imem, fmem):
    return pick(legal, n)
playlab.register_bot(playlab.BotSpec("edited", "x"), edited, games=("kuhn",))
"""}, "helper.py", ("legal[0]", "legal[n - 1]"), ["first.py", "mybot.py"]),
    # a cache=True kernel the import runs, its callee in another file
    "a cached kernel run at import": (
        {"callee.py": "from numba import njit\n@njit\ndef last(n):\n    return 0\n",
         "mybot.py": """
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numba import njit
import playlab
from callee import last
@njit(cache=True)
def which(n):
    return (n - 1) * last(n)
CHECKED = which(2)
def edited(view, legal, n, bp, params, rng, seat, imem, fmem):
    return legal[which(n)]
playlab.register_bot(playlab.BotSpec("edited", "x"), edited, games=("kuhn",))
"""}, "callee.py", ("return 0", "return 1"), ["mybot.py"]),
}


@pytest.mark.parametrize("case", sorted(_STALE_CASES))
def test_what_a_plugin_bot_compiles_in_from_other_files_keys_its_copy(tmp_path, case):
    """A warm cache plays an edit of what the bot compiles in as an empty cache does (each
    case once ran the first version's machine code after the edit, silently)."""
    files, edited_file, (old, new), plugins = _STALE_CASES[case]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    args = [a for p in plugins for a in ("--plugin", str(tmp_path / p))]
    args += ["play", "kuhn", "--bots", "edited,nash", "--games", "2000", "--seed", "3", "--json"]

    def wins(cache):
        result = playlab(*args, env={"PLAYLAB_PLUGINS": KUHN, "PLAYLAB_NUMBA_BASE": "",
                                     "NUMBA_CACHE_DIR": str(tmp_path / cache)})
        assert result.returncode == 0, result.stderr
        return _seat0_wins(result)

    before = wins("warm")
    target = tmp_path / edited_file
    target.write_text(target.read_text().replace(old, new))
    after = wins("warm")
    assert after == wins("fresh") and after != before


def test_python_agents_sit_in_every_study_command(tmp_path):
    env = {"PLAYLAB_PLUGINS": KUHN}
    agent = FIRST_LEGAL_AGENT
    r = playlab("tournament", "kuhn", "--bots", f"{agent},nash", "--games", "200", "--seed", "1", "--no-progress",
                "--out", str(tmp_path / "t"), env=env)
    assert r.returncode == 0 and "FirstLegal" in r.stdout, r.stderr
    r = playlab("fpa", "kuhn", "--bots", agent, "--games", "200", "--seed", "1", "--no-progress", env=env)
    assert r.returncode == 0, r.stderr
    r = playlab("sweep", "kuhn", "--vary", "bet=1,2", "--bots", f"{agent},nash", "--games", "200", "--seed", "1",
                "--no-progress", env=env)
    assert r.returncode == 0, r.stderr
    r = playlab("tune", "kuhn", "--bot", "nash", "--grid", "alpha=0,0.3", "--against", agent, "--games", "100",
                "--seed", "1", "--no-progress", env=env)
    assert r.returncode == 0 and "alpha" in r.stdout, r.stderr


def test_a_person_plays_against_a_python_agent():
    from experiments.human import Session

    session = Session("kuhn", 2, FIRST_LEGAL_AGENT, 0, seed=2, index=0)
    g = session.game
    while not g.is_over:
        if g.current_player == 0:
            g.step(g.legal_actions()[-1])  # the person always bets
        else:
            a = session.bot_move()
            assert a == g.legal_actions()[0]  # the agent's choice: the lowest legal id
            g.step(a)
    assert g.result()["decisions"] >= 2


def test_legal_false_hands_a_bot_no_legal_actions(tmp_path):
    """``register_bot(legal=False)``: the engine skips listing the moves, n is 0 (the
    built-in greedy bots, which find their own); by default the moves are listed."""
    plugin = tmp_path / "counting.py"
    plugin.write_text(textwrap.dedent('''
        import playlab

        def bet_if_listed(view, legal, n, bot_params, params, rng, seat, imem, fmem):
            return 1 if n == 2 else 0   # Kuhn: bet (1) when both moves were listed, else pass (0)

        playlab.register_bot(playlab.BotSpec("listed", "bets when handed the moves"), bet_if_listed, games=("kuhn",))
        playlab.register_bot(playlab.BotSpec("unlisted", "the same, handed none"), bet_if_listed, games=("kuhn",),
                             legal=False)
    '''))
    load_plugin(str(plugin))
    load_plugin(FIRST_LEGAL_BOT)
    rows = {b: Batch(RunConfig.build("kuhn", 2, f"{b},nash", {}, 2)).run(0, 400)
            for b in ("listed", "unlisted", "first-legal")}
    assert np.array_equal(rows["unlisted"], rows["first-legal"])  # always passes: n was 0
    assert not np.array_equal(rows["listed"], rows["unlisted"])   # always bets: n was 2


def test_a_plugin_bot_finding_its_own_moves_is_stopped_at_an_illegal_one(tmp_path):
    """A plugin's ``legal=False`` bot that answers an action id that is not legal (Moon's
    0, "play 0-0", in the bidding): ``play`` stops with one error line naming the bot and
    the check command, and ``check`` reports the move and runs no game with it (both
    crashed the process with a segmentation fault)."""
    plugin = tmp_path / "own_moves.py"
    plugin.write_text(textwrap.dedent('''
        import playlab

        def always_zero(view, legal, n, bot_params, params, rng, seat, imem, fmem):
            return 0

        playlab.register_bot(playlab.BotSpec("always-zero", "action 0, found by itself"), always_zero,
                             games=("moon",), legal=False)
    '''))
    run = playlab("--plugin", str(plugin), "play", "moon", "--bots", "always-zero,greedy,greedy", "--games", "3",
                  "--threads", "1", cwd=tmp_path)
    said = [line for line in run.stderr.splitlines() if not line.startswith("compiling ")]
    assert run.returncode == 2 and len(said) == 1, run.stderr
    assert said[0].startswith("error: bot always-zero (seat 0) chose a move that is not legal in game 0")
    assert "check moon --bots always-zero" in said[0]
    run = playlab("--plugin", str(plugin), "check", "moon", "--no-protocol", "--bots", "always-zero", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "which is not legal" in run.stdout and run.stdout.count("not run: the bot plays illegal moves") == 2


def test_every_games_run_travels_to_processes_and_workers_as_it_is():
    """A run pickles as its specs and options and is rebuilt the same (Shifting Stones'
    default deck, "", is no value a user could give: only options set away from their
    defaults travel)."""
    import pickle

    from simcore.games import game_names

    for game in game_names():
        c = RunConfig.build(game, None, "random", {}, 9)
        back = pickle.loads(pickle.dumps(c))
        assert back.variant == c.variant and back.bot_labels == c.bot_labels and back.players == c.players
    c = RunConfig.build("shifting-stones", 3, "greedy", {"hand_size": 5, "random_faces": False}, 2)
    assert pickle.loads(pickle.dumps(c)).variant == c.variant


def test_a_run_refuses_to_be_played_by_other_code_than_where_it_started(monkeypatch):
    """A worker with another playlab version, another copy of a plugin, or a plugin reading
    another environment at import would play other games under the same labels: the run
    carries its code's digests and the receiving side compares its own."""
    import pickle

    import simcore
    from runtime.plugins import _LOADED, plugin_key

    c = RunConfig.build("kuhn", 2, "nash,random", {}, 3)
    sent = pickle.dumps(c)
    assert pickle.loads(sent).bot_labels == c.bot_labels
    kuhn = _LOADED[plugin_key(KUHN)]
    monkeypatch.setattr(kuhn, "__playlab_digest__", "another-copy")
    with pytest.raises(ValueError, match=r"plugin .*kuhn.py plays other code here"):
        pickle.loads(sent)
    monkeypatch.undo()
    monkeypatch.setattr(simcore, "KERNEL_DIGEST", "another-version")
    with pytest.raises(ValueError, match="kernel sources differ here"):
        pickle.loads(sent)


def test_a_run_refuses_a_worker_whose_file_at_the_same_path_differs(tmp_path):
    """A deck or a model is read by path on every worker: another file there would play other
    games under the same labels."""
    import pickle

    from bots.learned import load_model, save_model

    model = tmp_path / "m.npz"
    save_model(load_model("shifting-stones"), str(model))
    c = RunConfig.build("shifting-stones", 2, f"learned:model={model},greedy", {}, 3)
    sent = pickle.dumps(c)
    assert pickle.loads(sent).bot_labels == c.bot_labels
    m = load_model("shifting-stones").copy()
    m.b2[0] += 1.0
    save_model(m, str(model))
    with pytest.raises(ValueError, match="the file of model of bot learned differs here"):
        pickle.loads(sent)


def test_an_agent_with_helpers_travels_and_an_edited_helper_is_refused(tmp_path):
    """Every file of an agent is compared in order (an agent's files share one label: compared
    by label, the first of two would have been taken for the second and the run refused)."""
    import pickle

    (tmp_path / "helper_a.py").write_text("def pick(legal):\n    return legal[0]\n")
    (tmp_path / "helper_b.py").write_text("X = 1\n")
    agent = tmp_path / "two_helpers.py"
    agent.write_text("import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\nimport helper_a, helper_b\n"
                     "class A:\n    def __init__(self, **kw):\n        pass\n"
                     "    def act(self, view):\n        return helper_a.pick(view.legal_actions)\n")
    c = RunConfig.build("kuhn", 2, f"py:{agent}:A,nash", {}, 3)
    assert len([w for _, w in c.files_read() if w.startswith("agent")]) == 3
    sent = pickle.dumps(c)
    assert pickle.loads(sent).bot_labels == c.bot_labels
    (tmp_path / "helper_b.py").write_text("X = 2\n")
    with pytest.raises(ValueError, match="the file of agent .* differs here"):
        pickle.loads(sent)
