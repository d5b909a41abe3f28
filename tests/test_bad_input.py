"""Issue 15: each class of bad input through the CLI: one `error:` line, a non-zero exit, no
traceback, no file left behind; and the warnings a new user needs (threads, unwinnable
options, truncation), the help texts and the wording of summaries."""
import os
import shutil

import click
import pytest

from playlab.cli import cli, main
from simcore.games import load_game


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def one_error(capsys, *args):
    code, out, err = run(capsys, *args)
    assert code != 0, (out, err)
    # the first use of a game's kernels says it is compiling (a cold cache), nothing else
    lines = [line for line in err.strip().splitlines() if not line.startswith("compiling the ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("args, message", [
    (["play", "moon", "--seed", 2**64], "not in the range 0<=x<=9223372036854775807"),
    (["play", "moon", "--seed", 2**63], "--seed"),
    (["show", "moon", "--index", 2**64], "--index"),
    (["human", "moon", "--index", 2**64], "--index"),
    (["fpa", "shifting-stones", "--seed", 2**64], "--seed"),
    (["play", "moon", "--variant", "min_bid=5", "--variant", "min_bid=6"], "--variant min_bid given twice"),
    (["play", "shifting-stones", "--variant", "deck="], "--variant deck= has no value"),
    (["tune", "moon", "--bot", "bidder", "--grid", "aggression=1", "--grid", "aggression=2"],
     "--grid aggression given twice"),
    (["tune", "moon", "--bot", "bidder", "--grid", "aggression=1,,2"], "an empty value"),
    (["tune", "moon", "--bot", "bidder", "--grid", "aggression=1,"], "an empty value"),
    (["tune", "moon", "--bot", "bidder", "--grid", "aggression=1,1"], "value 1 listed twice"),
    (["sweep", "moon", "--vary", "min_bid=5,,6"], "an empty value"),
    (["sweep", "moon", "--vary", "min_bid=5,5"], "--vary 'min_bid=5,5': value 5 listed twice"),
    (["sweep", "moon", "--vary", "doubles_trump=true,1"],
     "--vary 'doubles_trump=true,1': 1 is the same value as an earlier one"),
    (["sweep", "moon", "--vary", "min_bid=5", "--vary", "min_bid=6"], "--vary min_bid given twice"),
    (["sweep", "moon", "--vary", "widow"], "malformed --vary 'widow'"),
    (["play", "moon", "--games", 2, "--trace-games", 5], "--trace-games needs --trace"),
    (["play", "moon", "--bots", "greedy", "--bots", "random"], "--bots given twice: it takes one value"),
    (["fpa", "moon", "--bots", "mcts:iterations=8:depth=2", "--bots", "mcts:depth=2:iterations=08"],
     "--bots mcts:iterations=8:depth=2 and --bots mcts:depth=2:iterations=08 are the same bot"),
    (["play", "moon", "--games", 5, "--games=7"], "--games given twice: it takes one value"),
    (["play", "moon", "--progress", "--no-progress"], "--progress and --no-progress (one option) given twice"),
    (["fpa", "shifting-stones", "--players", 1], "shifting-stones first-player studies take 2-5 players, not 1"),
    (["balance", "shifting-stones", "--players", 1, "--vary", "hand_size=5", "--target", "turns<=30"],
     "shifting-stones balance searches take 2-5 players, not 1"),
    (["play", "shifting-stones", "--players", 6], "1-5 players, not 6"),
    (["play", "sequence-stacks", "--players", 1], "2-6 players, not 1"),
    (["play", "moon", "--bots", "random:"], "malformed parameter"),
    (["play", "moon", "--bots", "bidder:aggression=lots"], "takes a number"),
    (["play", "moon", "--bots", "random,,random"], "empty bot spec"),
    (["play", "moon", "--variant", "target_score=0"], "must be in 1..1000"),
    (["show", "moon", "--view", 3], "seat 3 does not exist"),
    (["report", "no-such-folder"], "is not a folder"),
])
def test_bad_input_classes(capsys, args, message):
    assert message in one_error(capsys, *args)


def test_unwritable_outputs_are_refused_before_running(capsys, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert "is a file" in one_error(capsys, "play", "moon", "--games", 2, "--out", afile / "sub")
    assert "is a file" in one_error(capsys, "fpa", "moon", "--games", 2, "--out", afile / "sub")
    assert "does not exist" in one_error(capsys, "play", "moon", "--games", 2, "--trace", tmp_path / "no" / "t.jsonl")
    assert "does not exist" in one_error(capsys, "human", "moon", "--trace", tmp_path / "no" / "t.jsonl")
    assert sorted(os.listdir(tmp_path)) == ["afile"]  # nothing left behind


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_trace_file_nobody_can_write_is_refused_before_the_games(capsys):
    # /proc takes no new files even from root, whom os.access tells "writable" everywhere
    for command in (["play", "moon", "--games", 2], ["human", "moon"]):
        line = one_error(capsys, *command, "--trace", "/proc/playlab-no-such.jsonl")
        assert "--trace" in line and "is not writable" in line, line


def test_missing_and_corrupt_files(capsys, tmp_path):
    assert "holds no playlab studies" in one_error(capsys, "report", tmp_path)
    bad = tmp_path / "deck.json"
    bad.write_text("{not json")
    line = one_error(capsys, "play", "shifting-stones", "--games", 2, "--variant", f"deck={bad}")
    assert "deck" in line
    line = one_error(capsys, "play", "shifting-stones", "--games", 2, "--variant", f"deck={tmp_path / 'none.json'}")
    assert "none.json" in line


def test_corrupt_results_folder(capsys, tmp_path):
    out = tmp_path / "run"
    code, _, err = run(capsys, "play", "moon", "--games", 3, "--out", out)
    assert code == 0, err
    (out / "_study.json").write_text("{trunc")
    line = one_error(capsys, "play", "moon", "--games", 3, "--out", out)
    assert "_study.json" in line or "manifest" in line


def test_a_study_into_a_play_results_folder_is_refused(capsys, tmp_path):
    """A study's results go to DIR/results; into a `play --out` folder the report would find
    two studies under one name."""
    out = tmp_path / "run"
    assert run(capsys, "play", "moon", "--games", 3, "--out", out)[0] == 0
    for args in (("fpa", "moon", "--games", 3), ("balance", "moon", "--vary", "target_score=11,21", "--target",
                                                  "fpa<=0.5", "--first-round", 50, "--budget", 100)):
        line = one_error(capsys, *args, "--out", out)
        assert "results folder of a `playlab play --out` run" in line
    assert sorted(p.name for p in out.iterdir()) == ["_lock", "_study.json", "part-0000-000000000000.parquet"]


def test_a_trace_over_a_file_the_run_writes_or_reads_is_refused(capsys, tmp_path):
    """--trace into the --out folder replaced its manifest, and over a model file replaced
    the model, while the run said it wrote its traces (exit 0)."""
    out = tmp_path / "run"
    assert run(capsys, "play", "moon", "--games", 3, "--out", out)[0] == 0
    manifest = (out / "_study.json").read_bytes()
    line = one_error(capsys, "play", "moon", "--games", 3, "--out", out, "--trace", out / "_study.json")
    assert "is inside the --out folder" in line and (out / "_study.json").read_bytes() == manifest
    from bots.learned import shipped_path

    model = tmp_path / "m" / "model.npz"
    model.parent.mkdir()
    shutil.copy(shipped_path("moon"), model)
    for given in (model, model.parent):
        line = one_error(capsys, "play", "moon", "--games", 3, "--bots", f"learned:model={given},greedy,greedy",
                         "--trace", model)
        assert "is a file the run reads (model of bot learned" in line
    assert model.read_bytes() == open(shipped_path("moon"), "rb").read()


def test_threads_above_cores_said_once(capsys):
    import numba

    code, out, err = run(capsys, "play", "moon", "--games", 2, "--threads", 10_000)
    assert code == 0
    warnings = [line for line in err.splitlines() if "--threads" in line]
    assert warnings == [f"warning: --threads 10000 is more than the {numba.config.NUMBA_NUM_THREADS} cores here "
                        f"(NUMBA_NUM_THREADS); using {numba.config.NUMBA_NUM_THREADS}"]


@pytest.mark.parametrize("game, players, variant, words", [
    ("sequence-stacks", 2, {"chip_supply": 0}, "no chip can ever be earned"),
    ("sequence-stacks", 2, {"min_each_colour": 20}, "all 40 chips"),
    ("sequence-stacks", 3, {"min_each_colour": 12, "chip_supply": 10}, "more chips of a colour"),
    ("sequence-stacks", 2, {"chips_to_win": 40, "chip_supply": 15}, "needs 40 chips but the supply holds 30"),
    ("shifting-stones", 2, {"end_trigger": 72}, "end_trigger=72"),
    ("shifting-stones", 5, {"end_trigger": 60}, "end_trigger=60"),
])
def test_impossible_options_are_named(game, players, variant, words):
    info = load_game(game).INFO
    assert words in info.impossible(info.resolve_variant(variant), players)


@pytest.mark.parametrize("game, players, variant", [
    ("sequence-stacks", 2, {}), ("sequence-stacks", 6, {"min_each_colour": 19}),
    ("shifting-stones", 2, {}), ("shifting-stones", 2, {"end_trigger": 64}),
    ("shifting-stones", 1, {"end_trigger": 72}),  # solo ignores the trigger
])
def test_winnable_options_pass(game, players, variant):
    info = load_game(game).INFO
    assert info.impossible(info.resolve_variant(variant), players) is None


def test_unwinnable_run_warns_before_and_after(capsys):
    code, out, err = run(capsys, "play", "sequence-stacks", "--games", 3, "--variant", "chip_supply=0",
                         "--variant", "round_cap=2")
    assert code == 0
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2
    assert "chip_supply=0" in warnings[0]
    assert "3 of 3 games (100%) were truncated" in warnings[1] and "round_cap" in warnings[1]


def test_mostly_truncated_study_warns(capsys):
    code, out, err = run(capsys, "sweep", "sequence-stacks", "--vary", "round_cap=1,2", "--games", 4)
    assert code == 0
    assert "were truncated by the game's cap" in err


def test_winnable_run_has_no_warning(capsys):
    code, out, err = run(capsys, "play", "sequence-stacks", "--games", 3)
    assert code == 0 and "warning" not in err


def test_solo_says_one_player_and_booleans_print_lowercase(capsys):
    code, out, _ = run(capsys, "play", "shifting-stones", "--players", 1, "--games", 2,
                       "--variant", "random_faces=false")
    assert code == 0
    assert "1 player," in out and "1 players" not in out
    assert "random_faces=false" in out and "False" not in out
    code, out, _ = run(capsys, "show", "shifting-stones", "--players", 1, "--variant", "random_faces=false")
    assert "1 player" in out and "random_faces=false" in out
    code, out, _ = run(capsys, "games", "moon")
    assert "default true" in out and "True" not in out


def test_bench_shows_progress_on_stderr(capsys):
    code, out, err = run(capsys, "bench", "moon", "--games", 5, "--threads", 1)
    assert code == 0
    assert "bench 1/1: moon, 3 players, random, 1 thread" in err
    assert "bench" not in out.splitlines()[0]


def test_compile_notice_only_when_cache_is_cold(tmp_path, monkeypatch):
    from runtime.kernels import cache_is_cold

    import numba

    game = load_game("moon")
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))  # numba reads the env at import
    assert cache_is_cold(game, "bots_abc")
    from simcore.protocol import game_tag

    (tmp_path / "simcore_x").mkdir()
    (tmp_path / "simcore_x" / f"engine.{game_tag(game)}__bots_abc__play_games-80.py311.nbi").write_bytes(b"")
    assert not cache_is_cold(game, "bots_abc")
    assert cache_is_cold(game, "bots_other")  # another chain of bots is still cold


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("playlab ") and out.split()[1][0].isdigit()


def test_help_lists_games_and_whole_summaries(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for name in ("moon", "shifting-stones", "sequence-stacks"):
        assert name in out
    commands = out.split("Commands:")[1].strip().splitlines()
    assert not any(line.rstrip().endswith("...") for line in commands)  # no summary cut off
    assert len(commands) == len(cli.commands)


def test_every_option_explains_itself_and_its_default(capsys):
    for name, command in cli.commands.items():
        for param in command.params:
            if not isinstance(param, click.Option) or param.name == "help":
                continue
            assert param.help, f"{name} {param.opts[0]} has no description"
            if param.is_flag and not param.secondary_opts:
                continue  # a plain flag: off unless given
            if param.required:
                continue  # click marks it "[required]" itself (counted below)
            shows = param.show_default is not False and param.default is not None
            assert shows or "[default:" in param.help, f"{name} {param.opts[0]} does not show its default"
        # every required option says so once: click adds the mark, so help text that
        # repeats it shows "[required]  [required]"
        required = sum(isinstance(p, click.Option) and p.required for p in command.params)
        with click.Context(command, info_name=name) as ctx:
            assert command.get_help(ctx).count("[required]") == required, name
    code, out, _ = run(capsys, "play", "--help")
    assert "0..2^63-1" in out


def test_human_ctrl_c_says_abandoned(capsys, monkeypatch):
    def interrupt(prompt):
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupt)
    code, out, err = run(capsys, "human", "moon", "--delay", 0)
    assert code == 130
    assert err.strip().splitlines()[-1].startswith("error: game abandoned after")
    assert "results written so far" not in err


def test_unreachable_cluster(capsys):
    line = one_error(capsys, "play", "moon", "--games", 2, "--cluster", "tcp://127.0.0.1:1")
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in line and "dask scheduler" in line


@pytest.mark.parametrize("address, message", [
    ("foo", "missing port number in address 'foo'"),
    ("tcp://", "missing port number"),
    ("", "--cluster needs an address"),
    ("udp://host:8786", "unknown address scheme 'udp'"),
    ("tcp://host:0", "port 0 is not between 1 and 65535"),
    ("tcp://host:abc", "the port after the last ':' is not a number"),
])
def test_cluster_addresses_dask_cannot_parse_are_refused_before_a_client(capsys, monkeypatch, tmp_path, address,
                                                                         message):
    import distributed

    def no_client(*args, **kwargs):
        raise AssertionError("a Client was made for an address refused by its form")

    # the refusal comes from the address's form alone: no Client (whose failed start would
    # print a traceback from __del__ 20 s later), no game, no folder
    monkeypatch.setattr(distributed, "Client", no_client)
    out = tmp_path / "out"
    line = one_error(capsys, "play", "moon", "--bots", "greedy", "--games", 5, "--threads", 1,
                     "--out", out, "--cluster", address)
    assert message in line and "tcp://HOST:PORT" in line
    assert not out.exists()


def test_an_unparsable_cluster_address_is_one_line_in_a_fresh_process(tmp_path):
    """In a process of its own, so that a half-built Client's ``__del__`` would run at exit."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "playlab.cli", "fpa", "moon", "--bots", "greedy", "--games", "5",
                           "--threads", "1", "--cluster", "tcp://"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    # before the fix: the error line, then (after a 20 s timeout) "Exception ignored in:
    # <function Client.__del__" and a traceback; no timing is asserted (speed is no test's business)
    assert done.stderr.startswith("error: --cluster tcp://: missing port number") and done.stderr.count("\n") == 1


@pytest.mark.parametrize("command", [
    ["fpa", "shifting-stones", "--bots", "random", "--bots", "random:x=1", "--players", 2],
    ["sweep", "shifting-stones", "--vary", "end_trigger=5,6", "--bots", "random,random",
     "--bots", "random,random:x=1"],
    ["sweep", "shifting-stones", "--vary", "end_trigger=5,6", "--bots", "random,random",
     "--bots", "random,random,random,random,random,random"],
    ["fpa", "moon", "--bots", "random", "--bots", "nope"],
])
def test_every_repeated_bots_spec_is_checked_before_the_first_study(capsys, tmp_path, command):
    out = tmp_path / "fd5"
    code, stdout, err = run(capsys, *command, "--games", 10, "--threads", 1, "--out", out)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err
    assert stdout == ""  # no study's table printed before the refusal
    assert not out.exists()  # and no study written


@pytest.mark.parametrize("args, message", [
    (["--bots", "nope"], "unknown bot 'nope' for moon"),
    (["--bots", "greedy", "--players", 4], "moon is played by exactly 3 players, not 4"),
    (["--bots", "greedy:depth=2"], "bot greedy: unknown parameter 'depth'"),
    (["--bots", "greedy,,random"], "empty bot spec"),
    (["--bots", ""], "empty bot spec"),
    # an agent that does not exist is a typo, not a bot that fails the battery
    (["--bots", "py:no_such_agent_file.py:Foo"], "agent py:no_such_agent_file.py:Foo: no such file"),
    (["--bots", "py:no_such_agent_module:Foo"], "cannot import 'no_such_agent_module' (no such module)"),
    (["--bots", "py:no_such.package:Foo"], "cannot import 'no_such.package' (no such module)"),
])
def test_check_refuses_bad_specs_and_player_counts_before_checking(capsys, args, message):
    code, out, err = run(capsys, "check", "moon", *args)
    assert code == 2
    assert out == ""  # no game check ran first
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_python_warnings_are_one_warning_line(capsys):
    import warnings

    before = warnings.showwarning
    # 10 games of Moon: too few sole wins for the seat test's chi-square, which warns
    code, out, err = run(capsys, "fpa", "moon", "--bots", "greedy", "--games", 10, "--threads", 1)
    assert code == 0, err
    lines = [line for line in err.splitlines() if not line.startswith("compiling the ")]
    assert lines == ["warning: seat_equality_test: fewer than 5 expected sole wins per seat; the chi-square "
                     "approximation is rough"]
    assert warnings.showwarning is before  # the hook lasts as long as the command


def test_a_repeated_warning_is_said_once_per_command(capsys):
    import warnings

    from playlab import cli as cli_module

    @cli_module.cli.command("warn-twice-for-test", hidden=True)
    def warn_twice():
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # Python's own once-per-location filter out of the way
            for _ in range(3):
                warnings.warn("same words\nover two lines", RuntimeWarning)  # one location ...
            warnings.warn("same words over two lines", UserWarning)  # ... and another, same text
            warnings.warn("other words", RuntimeWarning)

    try:
        for _ in range(2):  # and again in the next command
            code, out, err = run(capsys, "warn-twice-for-test")
            assert code == 0
            assert err.splitlines() == ["warning: same words over two lines", "warning: other words"]
    finally:
        del cli_module.cli.commands["warn-twice-for-test"]
