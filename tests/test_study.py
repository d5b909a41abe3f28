"""The study layer: tasks, executor, multi-run store, schedules and paired deals."""
import pickle

import numpy as np
import pandas as pd
import pytest

from experiments import fpa, sweep, tournament
from experiments.results import finishing_places
from experiments.store import ResultsError, load_results
from experiments.study import LocalExecutor, Study, Task, execute_study, run_task
from simcore.rng import CHANCE_STREAM, stream_key
from runtime.runner import RunConfig, run_games


def two_runs(seed=5):
    return Study("test", [RunConfig.build("moon", 3, "random", {}, seed),
                          RunConfig.build("moon", 3, "random,greedy,random", {"min_bid": 5}, seed)],
                 games=130, seed=seed, chunk=50)


def test_a_study_frame_is_its_configurations_played_separately():
    study = two_runs()
    frame = execute_study(study, progress=False).frame
    assert list(frame.columns[:4]) == ["run", "game", "players", "seed"]
    for r, config in enumerate(study.configs):
        part = frame[frame["run"] == r].reset_index(drop=True)
        alone = run_games(config, 130)
        for col in config.columns() + ["bot_0", "bot_1", "bot_2"]:
            assert (part[col].to_numpy() == alone[col].to_numpy()).all(), col
        assert (part["min_bid"] == config.variant["min_bid"]).all()
        assert (part["seed"] == 5).all() and (part["game"] == "moon").all()


def test_tasks_are_picklable_and_pure():
    study = two_runs()
    task = study.tasks()[3]
    again = pickle.loads(pickle.dumps(task))
    pd.testing.assert_frame_equal(run_task(again), run_task(task))
    assert [(t.run, t.start, t.count) for t in study.tasks()] == [
        (0, 0, 50), (1, 0, 50), (0, 50, 50), (1, 50, 50), (0, 100, 30), (1, 100, 30)]


class CountingExecutor(LocalExecutor):
    """The executor interface a cluster executor implements; records what it ran."""

    def __init__(self):
        super().__init__(None)
        self.ran = []

    def map(self, fn, tasks):
        for task, result in super().map(fn, tasks):
            self.ran.append(task.key)
            yield task, result


def test_resuming_a_half_written_store_computes_only_missing_chunks(tmp_path):
    out = tmp_path / "s"
    full = execute_study(two_runs(), store=str(out), progress=False)
    assert full.simulated == 260
    parts = sorted(out.glob("part-*.parquet"))
    assert len(parts) == 6
    parts[2].unlink()  # run 0, games 100-129
    parts[3].unlink()  # run 1, games 0-49
    ex = CountingExecutor()
    again = execute_study(two_runs(), executor=ex, store=str(out), progress=False)
    assert sorted(ex.ran) == [(0, 100), (1, 0)]
    assert again.simulated == 80 and again.stored == 180
    pd.testing.assert_frame_equal(again.frame, full.frame)
    fresh = execute_study(two_runs(), progress=False)
    pd.testing.assert_frame_equal(fresh.frame, full.frame)
    pd.testing.assert_frame_equal(load_results(out), full.frame)


def test_a_store_refuses_a_different_study(tmp_path):
    out = tmp_path / "s"
    execute_study(two_runs(), store=str(out), progress=False)
    with pytest.raises(ResultsError, match="different study"):
        execute_study(two_runs(seed=6), store=str(out), progress=False)
    other = Study("test", two_runs().configs[:1], games=130, seed=5, chunk=50)
    with pytest.raises(ResultsError, match="different study"):
        execute_study(other, store=str(out), progress=False)


def test_mixed_player_counts_share_one_schema(tmp_path):
    """fpa-like: 2 and 4 players in one dataset; pandas reads it whole."""
    configs = [RunConfig.build("sequence-stacks", n, "random", {}, 1) for n in (2, 4)]
    study = Study("test", configs, games=20, seed=1, chunk=20)
    out = tmp_path / "s"
    frame = execute_study(study, store=str(out), progress=False).frame
    whole = pd.read_parquet(out)
    assert len(whole) == 40 and "score_3" in whole.columns
    assert whole.loc[whole["players"] == 2, "score_3"].isna().all()
    assert whole.loc[whole["players"] == 2, "bot_3"].isna().all()
    assert whole.loc[whole["players"] == 4, "score_3"].notna().all()
    pd.testing.assert_frame_equal(execute_study(study, store=str(out), progress=False).frame, frame)


@pytest.mark.parametrize("bots, seats, expected", [
    (2, 2, 2), (2, 3, 6), (3, 3, 6), (2, 5, 30), (3, 2, 6), (4, 2, 12), (4, 3, 24), (3, 4, 36),
])
def test_every_seating_in_which_each_bot_plays(bots, seats, expected):
    plan = tournament.seatings(bots, seats)
    assert len(plan) == expected == len(set(plan))
    for s in plan:
        assert len(s) == seats
        if bots <= seats:
            assert set(s) == set(range(bots))
        else:
            assert len(set(s)) == seats


def test_rotate_schedule_puts_each_bot_in_each_seat():
    plan = tournament.seatings(3, 3, "rotate")
    assert len(plan) == 3
    for seat in range(3):
        assert sorted(s[seat] for s in plan) == [0, 1, 2]
    assert len(tournament.seatings(4, 2, "rotate")) == 4


def test_tournament_refuses_one_bot_and_duplicates():
    with pytest.raises(ValueError, match="at least two"):
        tournament.build("moon", None, "greedy", 10, 0)
    with pytest.raises(ValueError, match="listed twice"):
        tournament.build("moon", None, "random,greedy,random", 10, 0)


@pytest.mark.parametrize("game, make", [
    ("shifting-stones", lambda s: tournament.build("shifting-stones", None, "random,greedy", 4, s)),
    ("moon", lambda s: tournament.build("moon", None, "random,greedy", 4, s)),
    ("sequence-stacks", lambda s: sweep.build("sequence-stacks", ["chips_to_win=4,6"], 3, "random", 4, s)),
    ("shifting-stones", lambda s: sweep.build("shifting-stones", ["end_trigger=6,8"], 2, "greedy", 4, s)),
])
def test_every_configuration_of_a_study_deals_game_i_from_the_same_chance_stream(game, make):
    """Common random numbers: the state after ``init`` (the deal) of game i is the same
    under every seating and every swept value."""
    from simcore.games import load_game

    module = load_game(game)
    study = make(9)
    assert len(study.configs) > 1
    for i in range(4):
        states = []
        for c in study.configs:
            state = np.zeros(c.info.state_size(c.players), np.int64)
            module.init(state, c.params(), c.players, stream_key(c.seed, i, CHANCE_STREAM))
            states.append(state)
        for s in states[1:]:
            assert (s == states[0]).all()
    first = execute_study(study, progress=False).frame
    # and the study really plays those indices under every configuration
    assert all(sorted(g["index"]) == list(range(4)) for _, g in first.groupby("run"))


def test_finishing_places_winners_first_then_score():
    frame = pd.DataFrame({"win_0": [0, 1, 0], "win_1": [1, 1, 0], "win_2": [0, 0, 1],
                          "score_0": [30, 5, 2], "score_1": [10, 5, 9], "score_2": [20, 7, 1]})
    places = finishing_places(frame, 3)
    # game 0: seat 1 won though seat 0 scored more; game 1: shared win; game 2: winner had least
    assert places.tolist() == [[1, 0, 2], [0, 0, 2], [2, 1, 0]]


def test_moon_positions_are_counted_from_the_first_bidder():
    """A hand-built Moon frame with the columns the Moon kernel branch adds."""
    frame = pd.DataFrame({"first_bidder": [0, 1, 2, 2], "win_0": [1, 0, 0, 1], "win_1": [0, 1, 0, 0],
                          "win_2": [0, 0, 1, 0]})
    seats_at = fpa.positions_of(frame, 3, "first_bidder")
    assert seats_at.tolist() == [[0, 1, 2], [1, 2, 0], [2, 0, 1], [2, 0, 1]]
    wins = fpa.by_position(frame[["win_0", "win_1", "win_2"]].to_numpy(), seats_at)
    # the first bidder won games 0-2; in game 3 seat 0 won, second to bid after seat 2
    assert wins.tolist() == [[1, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0]]
    cols = {"hands": [10, 12], "redeals": [1, 2]}
    for k in range(3):
        cols[f"hand_points_pos_{k}"] = [9 * (3 - k), 10 * (3 - k)]
        cols[f"contracts_pos_{k}"] = [4, 4]
        cols[f"made_pos_{k}"] = [3 - k, 2]
    table = fpa.moon_position_table(fpa.moon_position_sums(pd.DataFrame(cols)))
    assert table["hands"].tolist() == [19, 19, 19]
    assert table["points_per_hand"].round(4).tolist() == [round(57 / 19, 4), round(38 / 19, 4), 1.0]
    assert table["made"].tolist() == [5, 4, 3] and table["contracts"].tolist() == [8, 8, 8]
    assert ((table["ci_low"] < table["make_rate"]) & (table["make_rate"] < table["ci_high"])).all()
    assert fpa.moon_position_sums(pd.DataFrame({"hands": [1]})) == {}  # columns not there yet


def test_sweep_always_includes_the_baseline_and_refuses_unknown_options():
    study = sweep.build("shifting-stones", ["end_trigger=6,0"], 2, "random", 10, 0)
    assert [c.variant["end_trigger"] for c in study.configs] == [0, 6]  # 0 is the default: listed once
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        sweep.build("shifting-stones", ["colour=red"], 2, "random", 10, 0)
    with pytest.raises(ValueError, match="end_trigger"):
        sweep.build("shifting-stones", ["end_trigger=6,x"], 2, "random", 10, 0)


def test_fpa_player_ranges():
    from simcore.games import load_game

    assert fpa.parse_players(None, load_game("shifting-stones").INFO) == [2, 3, 4, 5]
    assert fpa.parse_players("3", load_game("moon").INFO) == [3]
    with pytest.raises(ValueError, match="exactly 3"):
        fpa.parse_players("2-5", load_game("moon").INFO)
    with pytest.raises(ValueError, match="not 6"):
        fpa.parse_players("2-7", load_game("shifting-stones").INFO)
