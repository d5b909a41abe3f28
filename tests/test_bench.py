"""`playlab bench` for bots: its ratios against random play, and the record/replay kernels
the same-position ratio rests on."""
from __future__ import annotations

import numpy as np

from bots import shifting_stones as stones_bots
from experiments.bench import measure_against_random, random_baseline
from runtime.runner import Batch, RunConfig


def test_recorded_games_replay_exactly_and_match_single_game_records():
    config = RunConfig.build("shifting-stones", 2, ["greedy"], {}, 4)
    batch = Batch(config)
    games = 12
    rows = batch.run(0, games)
    total = int(rows[:, config.columns().index("decisions")].sum())
    actions = np.empty(total, dtype=np.int64)
    assert batch.record_games(0, games, actions) == games
    # back to back, each game's actions are those recorded for it alone
    pos = 0
    for i in range(games):
        alone, _ = batch.record(i)
        assert list(actions[pos:pos + len(alone)]) == list(alone)
        pos += len(alone)
    assert pos == total
    # the replay (random decisions thrown away) ends every game on its last action
    assert batch.replay_with_random(0, games, actions) == total
    # and reports running out when the actions stop short
    assert batch.replay_with_random(0, games, actions[:-1]) == -1


def test_recording_stops_at_the_last_game_that_fits():
    config = RunConfig.build("sequence-stacks", 2, ["greedy"], {}, 2)
    batch = Batch(config)
    first = int(batch.run(0, 1)[0, config.columns().index("decisions")])
    actions = np.empty(first + 1, dtype=np.int64)  # room for game 0 and a little of game 1
    assert batch.record_games(0, 3, actions) == 1


def test_bot_ratios_are_reported():
    config = RunConfig.build("sequence-stacks", 2, ["greedy"], {}, 0)
    r = measure_against_random(config, threads=1, games=40, rounds=1)
    assert r["bots"] == ["greedy", "greedy"] and r["games"] == 40
    assert r["random_decisions_per_s"] > 0
    assert r["cost_vs_random"] == r["random_decisions_per_s"] / r["decisions_per_s"]
    lo, hi = r["same_positions_range"]
    assert 0 < lo <= r["cost_vs_random_same_positions"] <= hi


def test_random_baseline_keeps_everything_but_the_bots():
    config = RunConfig.build("shifting-stones", 3, ["greedy:depth=1"], {"bonus_points": 2}, 9)
    base = random_baseline(config)
    assert base.bot_labels == ["random"] * 3
    assert (base.game, base.players, base.variant, base.seed) == (config.game, 3, config.variant, 9)


def test_batches_give_the_bots_the_memory_they_ask_for():
    batch = Batch(RunConfig.build("shifting-stones", 2, ["greedy", "random"], {}, 0))
    assert batch.imem_size >= stones_bots.SCRATCH_SIZE
    assert Batch(RunConfig.build("shifting-stones", 2, ["random"], {}, 0)).imem_size < stones_bots.SCRATCH_SIZE


def test_bench_takes_the_player_count_from_the_bot_specs_as_play_does(capsys):
    import json

    from playlab.cli import main

    try:
        main(["bench", "sequence-stacks", "--bots", "greedy,greedy,random", "--games", "30", "--rounds", "1",
              "--threads", "1", "--json"])
    except SystemExit as exc:
        assert exc.code == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["players"] for r in records] == [3] and records[0]["bots"] == ["greedy", "greedy", "random"]


def test_the_bench_table_names_the_bots_seat_by_seat_and_refuses_zero_players(capsys):
    """Its bots column was a sorted set: random,random,greedy read as greedy,random; and
    --players 0 measured every player count as if none were given."""
    from experiments.bench import format_table, seats_label
    from playlab.cli import main

    assert seats_label(["random", "random", "greedy"]) == "random,random,greedy"
    assert seats_label(["greedy", "random", "bidder:aggression=0.8"]) == "greedy,random,bidder:aggression=0.8"
    assert seats_label(["random"] * 5) == "random"
    row = {"game": "sequence-stacks", "players": 3, "bots": ["random", "random", "greedy"], "threads": 1,
           "games": 10, "games_per_s": 5.0, "decisions_per_s": 50.0}
    assert " random,random,greedy " in format_table([row]).splitlines()[1]
    try:
        main(["bench", "shifting-stones", "--players", "0", "--games", "5"])
    except SystemExit as exc:
        assert exc.code == 2
    err = capsys.readouterr().err
    assert err == "error: shifting-stones is played by 1-5 players, not 0\n"


def test_bench_refuses_a_python_agent_in_one_line(capsys):
    """A Python agent's moves are not in the kernels bench times: refused before anything
    runs (it crashed the process in Moon, and failed a replay in the other games)."""
    from pathlib import Path

    from playlab.cli import main

    agent = "py:" + str(Path(__file__).resolve().parents[1] / "examples" / "agents" / "first_legal.py") + ":FirstLegal"
    for game, others in (("moon", ",greedy,greedy"), ("shifting-stones", ",greedy")):
        try:
            main(["bench", game, "--bots", agent + others, "--games", "5", "--rounds", "1", "--threads", "1"])
        except SystemExit as exc:
            assert exc.code == 2
        out, err = capsys.readouterr()
        assert err.startswith("error: ") and err.count("\n") == 1 and "Python agent" in err and not out


def test_mcts_iterations_per_second_leave_compile_time_out():
    """The first decision compiles the search; it is taken untimed, so even a cold first
    measurement reports the search's own speed (it read 366 it/s when compile time counted)."""
    from experiments.bench import iterations_rate

    config = RunConfig.build("kuhn", 2, "mcts:iterations=200,random", {}, 1)
    assert iterations_rate(config, seconds=0.2) > 20_000


def test_the_bench_table_shows_slow_rates_and_long_bot_specs_readably():
    from experiments.bench import format_table

    fast = {"game": "moon", "players": 3, "bots": ["greedy"] * 3, "threads": 1, "games": 1000,
            "games_per_s": 35152.4, "decisions_per_s": 1.2e6}
    slow = {"game": "moon", "players": 3, "bots": ["pimc:worlds=64:inference=1", "greedy", "greedy"], "threads": 1,
            "games": 4, "games_per_s": 0.83, "decisions_per_s": 41.7, "iterations_per_s": 512345.6}
    head, *rows = format_table([fast, slow]).splitlines()
    assert "35,152" in rows[0] and "1,200,000" in rows[0]
    # 0.83 games/s is not printed as "1", nor 41.7 decisions/s as "42"
    assert " 0.83 " in rows[1] and " 41.7 " in rows[1] and "iterations_per_s=512,346" in rows[1]
    for heading in ("threads", "games/s", "decisions/s"):  # the columns stay under their headings
        end = head.index(heading) + len(heading)
        assert all(r[end - 1] != " " and r[end] == " " for r in rows), heading
