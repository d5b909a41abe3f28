"""Issue 25: the learned bot's model files, their checks, and `playlab train`'s reproducibility.
(The conformance suite, tests/test_conformance.py, runs the no-peeking battery on `learned`
with every other bot of each game.)"""
from __future__ import annotations

import json

import numpy as np
import pytest

from bots.learned import (Model, ModelError, check_model, greedy_model, load_model, read_model,
                          save_model)
from bots.registry import parse_bot
from playlab.cli import main


def random_model(game, seed=3, hidden=8):
    m = greedy_model(game, hidden, np.random.default_rng(seed), scale=0.3)
    rng = np.random.default_rng(seed + 1)
    m.W2 = rng.normal(0, 0.3, m.W2.shape)
    m.b2 = rng.normal(0, 0.3, m.b2.shape)
    m.greedy_bonus = np.array([0.7])
    m.meta.update({"teacher": "mcts", "seed": seed, "players": 2, "options": {}})
    return m


def run(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_model_round_trips_through_its_file(tmp_path):
    m = random_model("sequence-stacks")
    path = str(tmp_path / "m.npz")
    save_model(m, path)
    back = read_model(path)
    assert back.meta == json.loads(json.dumps(m.meta))
    for k in Model.ARRAYS:
        # the weight matrices are stored as float32 (the shipped files stay small)
        np.testing.assert_allclose(getattr(back, k), getattr(m, k), rtol=1e-6, atol=1e-7)
    check_model(back, "sequence-stacks", path)
    bot = parse_bot("sequence-stacks", f"learned:model={path}:temperature=0.5")
    assert bot.label == f"learned:model={path}:temperature=0.5"
    assert bot.name.startswith("learned-") and bot.name != "learned"
    # a run travels to processes and Dask workers as its specs: the model as its path
    import pickle
    from runtime.runner import RunConfig
    config = RunConfig.build("sequence-stacks", 2, [bot.label, "greedy"], None, 3)
    back_config = pickle.loads(pickle.dumps(config))
    assert back_config.bot_labels == config.bot_labels and back_config.kernel_key == config.kernel_key
    # the same file parses to the same compiled copy; another model to another
    assert parse_bot("sequence-stacks", f"learned:model={path}").name == bot.name
    m.b2 = m.b2 + 1.0
    other = str(tmp_path / "other.npz")
    save_model(m, other)
    assert parse_bot("sequence-stacks", f"learned:model={other}").name != bot.name


@pytest.mark.parametrize("change, message", [
    (lambda m: m.meta.update(game="moon"), "trained for moon, not sequence-stacks"),
    (lambda m: m.meta.update(layout="0123456789ab"), "another observation layout"),
    (lambda m: m.meta.update(version=0), "model version 0"),
    (lambda m: setattr(m, "b2", m.b2[:5]), "array b2 has shape (5,)"),
])
def test_a_mismatched_model_is_one_error_line(tmp_path, capsys, change, message):
    m = random_model("sequence-stacks")
    change(m)
    path = str(tmp_path / "bad.npz")
    save_model(m, path)
    with pytest.raises(ModelError, match="bot learned"):
        check_model(read_model(path), "sequence-stacks", path)
    code, out, err = run(capsys, "play", "sequence-stacks", "--bots", f"learned:model={path},greedy", "--games", 3)
    lines = err.strip().splitlines()
    assert code != 0 and len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], err
    assert out == ""


def test_a_file_that_is_no_model_is_one_error_line(tmp_path, capsys):
    path = tmp_path / "junk.npz"
    path.write_bytes(b"not a zip file")
    code, out, err = run(capsys, "play", "sequence-stacks", "--bots", f"learned:model={path},greedy")
    assert code != 0 and err.startswith("error: bot learned:") and "not a learned model" in err
    code, out, err = run(capsys, "play", "sequence-stacks", "--bots", f"learned:model={tmp_path}/none.npz,greedy")
    assert code != 0 and err.strip() == f"error: bot learned: no model file {tmp_path}/none.npz"


@pytest.mark.parametrize("content", [b"", "cut"], ids=["empty", "cut-off"])
def test_an_empty_or_cut_off_model_file_is_one_error_line(tmp_path, capsys, content):
    """np.load raises EOFError on an empty file (which the CLI took for a Ctrl-C: "interrupted
    during start-up", exit 130) and BadZipFile on a cut-off one (an internal error)."""
    from bots.learned import shipped_path

    path = tmp_path / "model.npz"
    path.write_bytes(content if isinstance(content, bytes) else open(shipped_path("moon"), "rb").read()[:100])
    code, out, err = run(capsys, "play", "moon", "--bots", f"learned:model={path},greedy,greedy", "--games", 3)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith(f"error: bot learned: {path} is not a learned model"), err


def test_every_game_has_a_model_that_fits():
    """The shipped model, or for a game without one the untrained network (greedy's moves)."""
    for game in ("moon", "shifting-stones", "sequence-stacks"):
        m = load_model(game)
        check_model(m, game, "shipped")
        assert m.meta["game"] == game


def test_training_is_reproducible_from_its_seed(tmp_path):
    from experiments.train import TrainConfig, train

    config = TrainConfig("sequence-stacks", 2, {}, "greedy:block_threshold=3", 7, teacher_games=8, epochs=1,
                         hidden=4, eval_games=16)
    a = train(config, str(tmp_path / "a"), workers=1, threads=1, progress=False, log=lambda m: None)
    b = train(config, str(tmp_path / "b"), workers=1, threads=1, progress=False, log=lambda m: None)
    ma, mb = read_model(a["model"]), read_model(b["model"])
    for k in Model.ARRAYS:
        np.testing.assert_array_equal(getattr(ma, k), getattr(mb, k))
    assert ma.meta == mb.meta and ma.meta["teacher"] == "greedy:block_threshold=3" and ma.meta["seed"] == 7
    cols = ["epoch", "loss", "teacher_agreement", "win_rate", "ci_low", "ci_high"]
    assert a["curve"][cols].equals(b["curve"][cols])
    assert a["examples"] > 50 and len(a["curve"]) == 2
    assert a["win_rate"] == a["curve"]["win_rate"].max()  # the best epoch's weights are the model
    # the replay deals each recorded game as the engine did: every recorded move is legal where it is replayed
    from experiments.train import examples

    ex = examples(config, str(tmp_path / "a"))
    assert len(ex["taken"]) == a["examples"] and ex["legal"][np.arange(len(ex["taken"])), ex["taken"]].all()
    # a rerun resumes (nothing left to do) to the same model; other settings are refused
    c = train(config, str(tmp_path / "a"), workers=1, threads=1, progress=False, log=lambda m: None)
    np.testing.assert_array_equal(read_model(c["model"]).W1, ma.W1)
    other = TrainConfig(**{**config.identity(), "seed": 8})
    with pytest.raises(ValueError, match="other settings"):
        train(other, str(tmp_path / "a"), workers=1, threads=1, progress=False, log=lambda m: None)


def test_train_refuses_a_bad_teacher_in_one_line(tmp_path, capsys):
    code, out, err = run(capsys, "train", "sequence-stacks", "--teacher", "nonsense", "--out", tmp_path / "t")
    assert code != 0 and err.strip().startswith("error: unknown bot 'nonsense'") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()


def test_train_runs_from_the_command_line_on_a_game_with_a_path_option(tmp_path, capsys, monkeypatch):
    """Shifting Stones' packaged deck resolves to "", which is no valid --variant: the training
    must carry only the options set away from their defaults (it once stopped at once on
    `error: option deck needs a file path`).  Without --out (optional, as shared/spec/cli.md
    has it) it writes to train-GAME-seedS here."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "train-shifting-stones-seed3"
    code, text, err = run(capsys, "train", "shifting-stones", "--teacher", "greedy:depth=1", "--teacher-games", 8,
                          "--epochs", 1, "--hidden", 4, "--eval-games", 4, "--seed", 3, "--workers", 1,
                          "--threads", 1, "--no-progress")
    assert code == 0, err
    assert "learned:model=train-shifting-stones-seed3/model.npz" in text
    assert json.loads((out / "train.json").read_text())["variant"] == {}
    model = read_model(str(out / "model.npz"))
    assert model.meta["game"] == "shifting-stones" and model.meta["teacher"] == "greedy:depth=1"
    code, text, err = run(capsys, "tournament", "shifting-stones", "--bots", f"learned:model={out / 'model.npz'},greedy",
                          "--games", 4, "--seed", 1)
    assert code == 0, err


@pytest.mark.parametrize("game, games, fair", [("moon", 300, 1 / 3), ("shifting-stones", 500, 0.5),
                                               ("sequence-stacks", 1000, 0.5)])
def test_the_shipped_model_beats_greedy(capsys, game, games, fair):
    """Plain `learned` plays the shipped file, and it is better than greedy: every seat in turn
    against greedy, a fixed sample (measured: Moon 0.545 over 36,000 games against two greedy,
    Shifting Stones 0.666 and Sequence Stacks 0.620 over 24,000), the 95% Wilson lower bound
    above the fair share."""
    code, out, err = run(capsys, "tune", game, "--bot", "learned", "--grid", "temperature=0", "--against", "greedy",
                         "--games", games, "--seed", 901, "--json")
    assert code == 0, err
    (row,) = json.loads(out)["table"]
    assert row["decided"] >= 0.99 * row["games"] and row["ci_low"] > fair, row


def test_an_untrained_model_plays_as_its_base(tmp_path):
    """A model's ``base`` sets the greedy whose move the network reads (Shifting Stones' models
    start from greedy searching 3 moves ahead): untrained, it plays that greedy's games, move
    for move."""
    from runtime.runner import RunConfig, run_games

    path = str(tmp_path / "base.npz")
    save_model(greedy_model("shifting-stones", 4, base={"depth": 3, "replan": 1}), path)
    assert read_model(path).meta["base"] == {"depth": 3.0, "replan": 1.0}

    cols = ["score_0", "score_1", "win_0", "win_1", "turns"]

    def games(*specs):
        return run_games(RunConfig.build("shifting-stones", 2, list(specs), None, 17), 60, threads=1)[cols]

    # the model beside the same weights over greedy's defaults: each plays its own base, in
    # one run (its compiled copy was once named by the weights alone: the last model named
    # played both).  One chain of two models checks both, rather than each beside greedy.
    plain = str(tmp_path / "plain.npz")
    save_model(greedy_model("shifting-stones", 4), plain)
    both = games(f"learned:model={path}", f"learned:model={plain}")
    alone = games("greedy:depth=3:replan=1", "greedy")
    assert both.equals(alone)
    assert not alone.equals(games("greedy", "greedy"))  # the base is not greedy's defaults


@pytest.mark.parametrize("base, message", [({"nonsense": 1}, "has no parameter nonsense"),
                                           ({"depth": 9}, "depth must be in 0..3")])
def test_a_model_with_a_bad_base_is_refused(tmp_path, base, message):
    m = random_model("shifting-stones")
    m.meta["base"] = base
    path = str(tmp_path / "bad.npz")
    save_model(m, path)
    with pytest.raises(ModelError, match=message):
        check_model(read_model(path), "shifting-stones", path)


def test_train_refuses_a_bad_base_in_one_line(tmp_path, capsys):
    code, out, err = run(capsys, "train", "shifting-stones", "--base", "greedy:depth", "--out", tmp_path / "t")
    assert code != 0 and err.startswith("error: ") and "--base" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()


def test_value_targets_find_the_winning_play_and_repeat_from_their_seed():
    """``playlab train --q-rollouts``: the value of each legal action by greedy rollouts from
    worlds drawn from the seat's view.  Completing the winning pile is worth a sure win
    (1.0), ending the turn instead is not; the same (seed, example) gives the same values,
    also with the examples split over other threads."""
    import simcore.games.sequence_stacks as S
    from experiments.train_kernels import kernels
    from runtime.runner import set_threads
    from test_sequence_stacks import make_state

    st, p = make_state(players=2, hands={0: ["b1", "r2", "b3", "r5", "b2"]},
                       piles={"red.1": ["r1", "r2", "r3", "r4"]}, chips={0: (2, 2)}, draw=["b3"] * 10)
    view = np.zeros_like(st)
    S.observe(st, 0, view)
    views = np.stack([view, view])
    k = kernels("sequence-stacks")
    q = np.zeros((2, S.NUM_ACTIONS))
    k["q_values"](p, 2, 5, 0, views, np.zeros(2, np.int64), 32, 30, len(st), q)
    legal = np.zeros(S.NUM_ACTIONS, np.int64)
    n = S.legal_actions(st, p, legal)
    win = next(a for a in legal[:n] if S.action_name(a) == "play r5 from hand on red.1")
    assert q[0, win] == 1.0 and q[0].argmax() == win
    assert q[0, S.A_DISCARD + 1] < q[0, win]  # ending the turn discarding r2 risks a block
    assert (q[0, np.setdiff1d(np.arange(S.NUM_ACTIONS), legal[:n])] == 0).all()
    again = np.zeros_like(q)
    set_threads(1)
    k["q_values"](p, 2, 5, 0, views, np.zeros(2, np.int64), 32, 30, len(st), again)
    set_threads(None)
    np.testing.assert_array_equal(q, again)
    # a later example index draws other worlds
    other = np.zeros_like(q)
    k["q_values"](p, 2, 5, 1, views, np.zeros(2, np.int64), 32, 30, len(st), other)
    np.testing.assert_array_equal(other[0], q[1])


def test_the_training_games_are_the_compiled_bots_games(tmp_path):
    """The learning curve's games (train_kernels.learner_batch) are the games the compiled
    ``learned`` bot plays with the same weights: the same wins, seat by seat."""
    from experiments.train import TrainConfig, win_rate
    from runtime.runner import RunConfig, run_games

    m = random_model("sequence-stacks")
    m.greedy_bonus = np.array([1.0])  # greedy's moves and the network's: games both win
    path = str(tmp_path / "m.npz")
    save_model(m, path)
    m = read_model(path)
    config = TrainConfig("sequence-stacks", 2, {}, "greedy", 1, 8, 1, m.hidden, 30)
    curve = win_rate(config, m.arrays(), 30, 11, threads=1)
    wins = 0.0
    for seat in range(2):
        bots = [f"learned:model={path}" if s == seat else "greedy" for s in range(2)]
        frame = run_games(RunConfig.build("sequence-stacks", 2, bots, None, 11), 30, threads=1)
        wins += float(frame[f"win_{seat}"].sum())
    assert curve["win_rate"] * 60 == pytest.approx(wins)
    assert 0 < wins < 60


def test_more_epochs_go_on_where_a_training_stopped_to_the_longer_trainings_model(tmp_path):
    """A rerun into the same folder with only ``--epochs`` raised goes on from the last epoch
    and ends where a training of that many epochs from the start ends; fewer epochs than the
    folder has run are refused before anything is written."""
    import json
    from experiments.train import TrainConfig, train

    quiet = dict(workers=1, threads=1, progress=False, log=lambda m: None)
    one = TrainConfig("sequence-stacks", 2, {}, "greedy", 5, teacher_games=8, epochs=1, hidden=4, eval_games=8)
    two = TrainConfig(**{**one.identity(), "epochs": 2})
    train(one, str(tmp_path / "grown"), **quiet)
    logged = []
    grown = train(two, str(tmp_path / "grown"), **{**quiet, "log": logged.append})
    assert "resuming after epoch 1 of 2" in logged
    direct = train(two, str(tmp_path / "direct"), **quiet)
    a, b = read_model(grown["model"]), read_model(direct["model"])
    for k in Model.ARRAYS:
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k))
    cols = ["epoch", "loss", "teacher_agreement", "win_rate"]
    assert grown["curve"][cols].equals(direct["curve"][cols]) and len(grown["curve"]) == 3
    # the resumed epoch's seconds go on from the stopped run's, as the direct training's do
    assert grown["curve"]["seconds"].is_monotonic_increasing
    info = (tmp_path / "grown" / "train.json").read_text()
    assert json.loads(info)["epochs"] == 2
    with pytest.raises(ValueError, match="2 epochs along, more than --epochs 1"):
        train(one, str(tmp_path / "grown"), **quiet)
    assert (tmp_path / "grown" / "train.json").read_text() == info


def test_value_targets_averaging_and_calibration_resume_to_the_same_model(tmp_path):
    """``--q-rollouts`` with ``--average-from`` and ``--calibrate-games``: the model is the mean
    of the weights of the epochs from that one on, its greedy bonus moved by the offset that
    won most; the valued examples are kept, and a rerun reads them back to the same model."""
    from experiments.train import CALIBRATION_OFFSETS, EXAMPLES_FILE, TrainConfig, train

    config = TrainConfig("sequence-stacks", 2, {}, "greedy", 3, teacher_games=8, epochs=3, hidden=4, eval_games=8,
                         q_rollouts=4, average_from=2, calibrate_games=8)
    out = tmp_path / "a"
    a = train(config, str(out), workers=1, threads=1, progress=False, log=lambda m: None)
    model = read_model(a["model"])
    assert model.meta["epoch"] == "mean of epochs 2-3" and model.meta["bonus_offset"] in CALIBRATION_OFFSETS
    # the rate returned is the averaged weights' own, not the curve's best epoch's
    assert a["win_rate"] == model.meta["average_win_rate"]
    assert [row[0] for row in model.meta["calibration"]] == list(CALIBRATION_OFFSETS)
    assert (out / EXAMPLES_FILE).exists() and len(a["curve"]) == 4
    (out / "model.npz").unlink()
    b = train(config, str(out), workers=1, threads=1, progress=False, log=lambda m: None)
    again = read_model(b["model"])
    for k in Model.ARRAYS:
        np.testing.assert_array_equal(getattr(model, k), getattr(again, k))


def test_the_shipped_models_compile_into_the_disk_cache():
    """Numba caches a compiled function on disk only when every global array it reads is at
    most 10**6 bytes (it freezes those into the code; a larger one is read through a pointer
    and the function is compiled again in every process).  The weights the compiled copy
    reads stay under that, and play the values the file holds."""
    from bots.learned import model_globals

    for game in ("moon", "shifting-stones", "sequence-stacks"):
        model = load_model(game)
        for name, array in model_globals(model).items():
            if isinstance(array, np.ndarray):
                assert array.nbytes <= 10**6, (game, name, array.nbytes)
                np.testing.assert_array_equal(array, getattr(model, {"GREEDY_BONUS": "greedy_bonus"}.get(name, name)))


def test_each_base_of_the_learners_kernels_is_a_compiled_copy_of_its_own():
    """``train_kernels.kernels(game, base)`` freezes the base greedy's parameters into the code,
    so each base must be cached under a name of its own: the examples of the same recorded
    game give the base's own moves, not those of whichever base compiled first.  (The name
    was once cut to the sources' hash, the base dropped: the second base ran the first's code.)"""
    import simcore.games.shifting_stones as G
    from experiments.train_kernels import kernels
    from runtime.runner import RunConfig
    from simcore.rng import CHANCE_STREAM, stream_key

    params = RunConfig.build("shifting-stones", 2, ["greedy", "greedy"], None, 0).params()
    size = G.INFO.state_size(2)
    state = np.zeros(size, np.int64)
    rng = np.random.default_rng(5)
    legal = np.zeros(G.INFO.num_actions, np.int64)
    # the deal replay_examples starts game 0 of run seed 0 from (simcore.engine.start_game)
    G.init(state, params, 2, stream_key(np.int64(0), np.int64(0), np.int64(CHANCE_STREAM)))
    actions = []
    while not G.is_terminal(state):
        n = G.legal_actions(state, params, legal)
        a = int(legal[rng.integers(n)])
        actions.append(a)
        G.apply(state, params, a)
    actions = np.array(actions, np.int64)

    def bases_moves(base):
        k = kernels("shifting-stones", base)
        cap = len(actions)
        obs = np.zeros((cap, G.INFO.observation_size(2)), np.float64)
        moves = np.zeros(cap, np.int64)
        taken = np.zeros(cap, np.int64)
        mask = np.zeros((cap, G.INFO.num_actions), np.int8)
        views = np.zeros((0, size), np.int64)
        n, _ = k["replay_examples"](params, 2, 0, 0, 1, actions, 0, obs, moves, taken, mask, size, views)
        return moves[:n]

    plain = bases_moves(())
    deep = bases_moves((("depth", 3.0), ("replan", 1.0)))
    assert len(plain) > 10 and len(plain) == len(deep)
    assert (plain != deep).any()
