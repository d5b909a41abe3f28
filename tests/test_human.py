"""`playlab human`: a real pseudo-terminal game to the end (pexpect), the bots choosing as
the engine's bots do, hidden bot moves left unnamed, quitting, bad invocations."""
from __future__ import annotations

import re
import sys

import numpy as np
import pexpect  # the dev extra: drives the real pseudo-terminal test
import pytest

from experiments.human import HumanError, Session, play, seat_bots
from simcore.replay import replay
from runtime.runner import Batch, RunConfig
from simcore.trace import read_traces

# the first run may compile the bots' one-decision entry point
FIRST_TIMEOUT = 300
PROMPT = r"your move \(1-(\d+), \? rules, q quit\): "


def spawn(args, cwd):
    return pexpect.spawn(sys.executable, ["-m", "playlab.cli", "human", *args], cwd=str(cwd),
                         encoding="utf-8", timeout=60, dimensions=(60, 200))


def test_a_whole_game_through_a_pseudo_terminal(tmp_path):
    trace = tmp_path / "game.jsonl"
    child = spawn(["moon", "--bots", "greedy", "--seat", "1", "--seed", "3", "--variant", "target_score=1",
                   "--delay", "0", "--trace", str(trace)], tmp_path)
    child.expect(r"   1\. (\S[^\r\n]*)\r\n", timeout=FIRST_TIMEOUT)
    first_move = child.match.group(1)
    child.expect(PROMPT)
    child.sendline("xyz")
    child.expect(r"not a move: 'xyz'; enter a number from 1 to (\d+)")
    child.expect(PROMPT)
    child.sendline("0")
    child.expect("not a move: '0'")
    child.expect(PROMPT)
    child.sendline("?")
    child.expect("Three-Player Moon: 22 dominoes")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(f"you: {re.escape(first_move)}\r\n")
    moves = 1
    bot_lines = 0
    while True:
        i = child.expect([PROMPT, r"trace: (\S+)\r\n", r"seat [02] \(greedy\): "])
        if i == 0:
            child.sendline("1")
            moves += 1
        elif i == 1:
            path = child.match.group(1)
            break
        else:
            bot_lines += 1
    before_trace = child.before
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert bot_lines > 0 and moves > 1
    assert re.search(r"game over: scores seat 0 -?\d+, seat 1 \(you\) -?\d+, seat 2 -?\d+", before_trace)
    assert path == str(trace.resolve())
    (t,) = list(read_traces(trace))
    assert t["bots"] == ["greedy", "human", "greedy"] and t["seed"] == 3 and t["index"] == 0
    assert replay(t) == t["result"]
    verdict = "you win" if 1 in t["result"]["winners"] else "you lose"
    assert verdict in before_trace


def test_q_quits_without_writing_a_trace(tmp_path):
    child = spawn(["shifting-stones", "--players", "2", "--bots", "greedy", "--seat", "1", "--delay", "0"],
                  tmp_path)
    child.expect(PROMPT, timeout=FIRST_TIMEOUT)
    child.sendline("q")
    child.expect("you quit after")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("game,players,bots,seat", [("moon", 3, "greedy", 2), ("shifting-stones", 3, "greedy", 1),
                                                   ("sequence-stacks", 3, "greedy", 0)])
def test_the_bots_choose_as_the_engines_bots(tmp_path, game, players, bots, seat):
    config = RunConfig.build(game, players, bots, {}, 11)
    actions, row = Batch(config).record(4)
    session = Session(game, players, bots, seat, seed=11, index=4)
    g = session.game
    asked = []

    def read(prompt):
        choice = int(actions[len(g.actions)])
        asked.append(choice)
        return str(g.legal_actions().index(choice) + 1)

    out: list[str] = []
    path = play(session, read=read, write=out.append, delay=0, trace_path=str(tmp_path / "t.jsonl"))
    assert asked, "the person's seat was asked"
    assert g.actions == [int(a) for a in actions]
    assert np.array_equal(g.result_row(), row)
    (t,) = list(read_traces(path))
    assert t["bots"][seat] == "human" and replay(t) == t["result"]


def test_a_face_down_discard_by_a_bot_is_not_named_but_its_plays_are():
    config = RunConfig.build("moon", 3, "greedy", {}, 0)
    batch = Batch(config)
    for index in range(20):
        actions, _ = batch.record(index)
        session = Session("moon", 3, "greedy", 0, seed=0, index=index)
        g = session.game
        checked = set()
        for a in actions:
            a = int(a)
            if g.current_player != 0:
                kind = g.action_name(a).split(" ")[0]
                words = session.words_for(a)
                if kind == "discard":
                    assert words == "discard (hidden from you)"
                    checked.add(kind)
                elif kind == "play":
                    assert words == g.action_name(a)
                    checked.add(kind)
            g.step(a)
        if checked == {"discard", "play"}:
            return
    pytest.fail("no bot discard in 20 games")


def test_bot_specs_per_seat():
    assert seat_bots("greedy", 3, 1) == ["greedy", "human", "greedy"]
    assert seat_bots("greedy,bidder", 3, 0) == ["human", "greedy", "bidder"]
    assert seat_bots("greedy,human,random", 3, 1) == ["greedy", "human", "random"]
    with pytest.raises(HumanError, match="must be 'human'"):
        seat_bots("greedy,random,random", 3, 1)
    with pytest.raises(HumanError, match="2 bot specs for the 3 other seats"):
        seat_bots("greedy,random", 4, 0)
    # solo: the default spec (random) fills no seat, and `human` says the same
    assert seat_bots("random", 1, 0) == seat_bots("human", 1, 0) == ["human"]


def test_bad_invocations_are_one_error_line(capsys):
    from click.testing import CliRunner

    from playlab.cli import cli, main

    for args, message in [(["moon", "--seat", "3"], "no seat 3"),
                          (["moon", "--bots", "nosuchbot"], "unknown bot"),
                          (["sequence-stacks", "--players", "9"], "2-6 players")]:
        with pytest.raises(SystemExit) as exit_info:
            main(["human", *args])
        assert exit_info.value.code != 0
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and err.count("\n") == 1
    result = CliRunner().invoke(cli, ["human", "--help"])
    assert "--seat" in result.output and "--delay" in result.output


@pytest.mark.parametrize("args, message", [
    (["moon", "--bots", "greedy,greedy,greedy,greedy", "--seat", "0"],
     "4 bot specs in --bots for the other seats make 5 players with yours, but moon is played by exactly 3 "
     "players, not 5: give one spec for all the other seats, or 2, one per other seat"),
    (["moon", "--bots", "greedy,human,greedy,greedy", "--seat", "1"],
     "4 specs in --bots (one per seat, 'human' at yours) make 4 players, but moon is played by exactly 3 "
     "players, not 4"),
    (["moon", "--bots", "greedy", "--delay", "inf"], "--delay"),
    (["moon", "--bots", "greedy", "--delay", "nan"], "--delay: takes a number of seconds from 0 to 3600, not nan"),
    (["moon", "--bots", "greedy", "--delay", "1e300"], "--delay"),
    (["moon", "--bots", "greedy", "--delay", "-1"], "--delay"),
])
def test_player_counts_from_the_specs_and_delays_are_refused_before_the_game(capsys, monkeypatch, tmp_path, args,
                                                                             message):
    from playlab.cli import main

    def no_input(prompt):
        raise AssertionError("the game started")

    monkeypatch.setattr("builtins.input", no_input)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["human", *args])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ") and message in captured.err and captured.err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_quitting_counts_the_persons_own_moves():
    session = Session("moon", 3, "greedy", 1, seed=0, index=0)
    answers = iter(["1", "1", "1", "q"])
    out: list[str] = []
    assert play(session, read=lambda prompt: next(answers), write=out.append, delay=0) is None
    total = len(session.game.actions)
    assert session.my_moves == 3 and total > 3  # the bots moved in between
    assert out[-1] == f"you quit after 3 moves of yours ({total} moves in the game); no trace written"
