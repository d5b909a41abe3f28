"""mcts (bots/generic/mcts.py): obvious moves in hand-built positions of all three games,
no reading of hidden information, determinism across thread counts, parameter errors.
Its strength against greedy is measured by real runs (README, MCTS section); the slow
check below is a bounded version of it."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import simcore.games.sequence_stacks as S
from bots.generic import mcts as M
from bots.registry import BotError, allocate_memory, bot_arrays, parse_bots
from simcore.games import load_game
from simcore.games import moon as m
from simcore.games import shifting_stones as g
from runtime.runner import choose
from runtime.runner import Batch, RunConfig, set_threads

from moon_helpers import DEFAULT_PARAMS as MOON_PARAMS, mask, play_position
from test_sequence_stacks import make_state
from test_shifting_stones import PARAMS as STONES_PARAMS, build


def decide(game, state, params, spec, players, seed=1):
    """mcts's action for the seat to move (the state is not changed)."""
    module = load_game(game)
    bots = parse_bots(module, spec, players)
    kinds, bp = bot_arrays(bots)
    imem, fmem = allocate_memory(bots, module.INFO, players)
    seat = int(module.current_player(state))
    rng = np.arange(seed, seed + players, dtype=np.int64)
    before = state.copy()
    a = choose(game, bots, state, params, rng, seat, imem, fmem)
    assert np.array_equal(state, before)
    return a


def moon_bid_on_the_line():
    """Bidder (seat 0) bid 4, has 2 tricks, 2 left, leads, holding 6-6 and 3-1 with sixes
    trump; seat 1 holds 6-5: led first, 3-1 gets trumped, while 6-6 draws the 6-5 and
    makes 3-1 good."""
    st = play_position({0: ["6-6", "3-1"], 1: ["6-5", "4-2"], 2: ["5-5", "2-2"]}, trump=6,
                       leader=0, bidder=0, bid=4, trick_no=5, tricks=(2, 1, 2))
    inplay = mask("6-6", "3-1", "6-5", "4-2", "5-5", "2-2")
    st[m.PLAYED] = m.ALL_TILES & ~inplay
    return st


@pytest.mark.parametrize("spec", ["mcts:iterations=400", "mcts:iterations=400:rollout=random",
                                  "mcts:iterations=400:worlds=8"])
def test_moon_leads_the_trump_that_makes_the_bid(spec):
    st = moon_bid_on_the_line()
    assert decide("moon", st, MOON_PARAMS, spec, 3) == m.PLAY_BASE + m.TILE_BY_NAME["6-6"]


def five_point_card():
    return next(c.id for c in g_deck() if c.points == 5)


def g_deck():
    from test_shifting_stones import DECK
    return DECK


def stones_legal(state):
    buf = np.zeros(g.NUM_ACTIONS, np.int64)
    n = g.legal_actions(state, STONES_PARAMS, buf)
    return list(buf[:n])


def stones_shift_position():
    """Seat 0 holds a 5-point card that one shift (after discarding the other card) makes
    match, and a 1-point card; found by search over grids, fixed seed."""
    five = five_point_card()
    one = next(c.id for c in g_deck() if c.points == 1)
    rng = np.random.default_rng(3)
    letters = "SMFBHOET"
    for _ in range(5000):
        grid = "".join(letters[2 * k + int(rng.integers(2))] for k in rng.permutation(np.arange(9) % 4 + 0))
        st = build(2, grid, [[five, one], []])
        legal = stones_legal(st)
        if any(a >= g.SCORE_BASE and a < g.END for a in legal):
            continue
        st2 = st.copy()
        g.apply(st2, STONES_PARAMS, g.DISCARD_BASE + one - 1)
        moves = stones_legal(st2)
        good = []
        for a in moves:
            st3 = st2.copy()
            g.apply(st3, STONES_PARAMS, a)
            if g.SCORE_BASE + five - 1 in stones_legal(st3):
                good.append(a)
        if len(good) == 1:
            return st, five, one, good[0]
    raise AssertionError("no position found")


def test_stones_pays_then_plays_the_shift_that_scores_the_five():
    st, five, one, shift = stones_shift_position()
    spec = "mcts:iterations=5000"
    a = decide("shifting-stones", st, STONES_PARAMS, spec, 2)
    assert a == g.DISCARD_BASE + one - 1, g.action_name(a)
    g.apply(st, STONES_PARAMS, a)
    a = decide("shifting-stones", st, STONES_PARAMS, spec, 2)
    assert a == shift, g.action_name(a)
    g.apply(st, STONES_PARAMS, a)
    assert decide("shifting-stones", st, STONES_PARAMS, spec, 2) == g.SCORE_BASE + five - 1


def test_stacks_completes_the_winning_sequence():
    st, p = make_state(players=2, hands={0: ["b1", "r2", "b3", "r5", "b2"]},
                       piles={"red.1": ["r1", "r2", "r3", "r4"]}, chips={0: (2, 2)},
                       draw=["b3"] * 10)
    a = decide("sequence-stacks", st, p, "mcts:iterations=400", 2)
    assert S.action_name(a) == "play r5 from hand on red.1"


def greedy_game_decisions(game, players, seed, limit):
    """(state, params) before each decision of a greedy-vs-greedy game, up to ``limit``."""
    module = load_game(game)
    config = RunConfig.build(game, players, ",".join(["greedy"] * players), {}, seed)
    params = config.params()
    kinds, bp = bot_arrays(config.bots)
    imem, fmem = allocate_memory(config.bots, module.INFO, players)
    state = np.zeros(module.INFO.state_size(players), np.int64)
    module.init(state, params, players, seed)
    rng = np.arange(players, dtype=np.int64)
    out = []
    while not module.is_terminal(state) and len(out) < limit:
        out.append((state.copy(), params))
        p = int(module.current_player(state))
        module.apply(state, params, choose(game, config.bots, state, params, rng, p, imem, fmem))
    return out


def test_a_heavy_prior_plays_the_greedy_move_and_no_prior_does_not():
    """With a progressive bias far above any value, the root's greedy child (expanded
    first) takes every visit the root's other children leave: mcts plays exactly greedy's
    moves; without the prior it departs from them somewhere."""
    same = {"heavy": 0, "none": 0}
    decisions = greedy_game_decisions("sequence-stacks", 2, 3, 40)
    for state, params in decisions:
        want = decide("sequence-stacks", state, params, "greedy,greedy", 2)
        if decide("sequence-stacks", state, params, "mcts:iterations=200:prior=1000", 2) == want:
            same["heavy"] += 1
        if decide("sequence-stacks", state, params, "mcts:iterations=200:prior=0:rollout=random", 2) == want:
            same["none"] += 1
    assert same["heavy"] == len(decisions) == 40
    assert same["none"] < len(decisions)


# ---- no cheating, determinism, memory --------------------------------------------------------
def test_decision_ignores_the_hidden_information():
    """The conformance suite checks this at random positions; here the hand-built Moon one,
    every opponent deal of the four unseen tiles."""
    st = moon_bid_on_the_line()
    first = decide("moon", st, MOON_PARAMS, "mcts:iterations=200", 3)
    rest = ["6-5", "4-2", "5-5", "2-2"]
    import itertools
    for pair in itertools.combinations(rest, 2):
        other = [t for t in rest if t not in pair]
        st2 = st.copy()
        st2[m.HAND + 1] = mask(*pair)
        st2[m.HAND + 2] = mask(*other)
        assert decide("moon", st2, MOON_PARAMS, "mcts:iterations=200", 3) == first


@pytest.mark.parametrize("game,players,spec", [  # random opponents: the chain of mcts alone, compiled anyway
    ("moon", 3, "mcts:iterations=30,random,random"),
    ("shifting-stones", 2, "mcts:iterations=30:rollout=random,random"),
    ("sequence-stacks", 3, "mcts:iterations=30:worlds=3,random,mcts:iterations=20")])
def test_same_results_on_one_and_two_threads(game, players, spec):
    config = RunConfig.build(game, players, spec, {}, 5)
    rows = []
    for threads in (1, 2):
        set_threads(threads)
        rows.append(Batch(config).run(0, 20))
    set_threads(2)
    assert np.array_equal(rows[0], rows[1])


def test_memory_grows_with_iterations_and_the_tree_fits():
    info = m.INFO
    small = M.memory(info, 3, (100, 0.7, 0, 30, 0, -1, 40))
    big = M.memory(info, 3, (1000, 0.7, 0, 30, 0, -1, 40))
    assert big[0] - small[0] == 900 * M.NODE_INTS and big[1] - small[1] == 900 * 3


def mcts_decision(game, state, params, spec, players, seed=1):
    """(action, iterations it recorded) of the mcts seat to move."""
    module = load_game(game)
    bots = parse_bots(module, spec, players)
    imem, fmem = allocate_memory(bots, module.INFO, players)
    seat = int(module.current_player(state))
    rng = np.arange(seed, seed + players, dtype=np.int64)
    a = choose(game, bots, state, params, rng, seat, imem, fmem)
    return a, int(imem[seat, M.iterations_slot(module.INFO, players)])


def moon_legal(state, params):
    buf = np.zeros(m.NUM_ACTIONS, np.int64)
    return list(buf[:m.legal_actions(state, params, buf)])


def test_iterations_are_recorded_and_forced_moves_run_none():
    """A decision with one legal action runs no iteration and returns that action; one
    with more runs every iteration asked for (and the bench counts them)."""
    decisions = greedy_game_decisions("moon", 3, 2, 200)
    forced = [(st, p) for st, p in decisions if len(moon_legal(st, p)) == 1]
    free = [(st, p) for st, p in decisions if len(moon_legal(st, p)) > 1]
    plays = [(st, p) for st, p in free if moon_legal(st, p)[-1] < m.DISCARD_BASE]
    bids = [(st, p) for st, p in free if moon_legal(st, p)[0] >= m.DISCARD_BASE]
    assert forced and plays and bids
    for st, p in forced[:5]:
        (only,) = moon_legal(st, p)
        assert mcts_decision("moon", st, p, "mcts:iterations=50:delegate=0", 3) == (only, 0)
    for st, p in plays[:5]:
        a, ran = mcts_decision("moon", st, p, "mcts:iterations=50:delegate=0", 3)
        assert ran == 50 and a in moon_legal(st, p)
        assert mcts_decision("moon", st, p, "mcts:iterations=60:worlds=4", 3)[1] == 60
    # Moon's default delegates bids, discards and trumps to greedy: no iteration either
    for st, p in bids[:3]:
        assert mcts_decision("moon", st, p, "mcts:iterations=50", 3)[1] == 0
    config = RunConfig.build("moon", 3, "mcts:iterations=50:delegate=0", {}, 1)
    from experiments.bench import iterations_rate

    assert iterations_rate(config, seconds=0.05) > 0


def test_node_table_is_its_layout_and_memory_its_rows():
    """The module docstring draws the node table from its declaration, and the rows
    ``memory`` asks for are the regions ``choose`` cuts."""
    assert M.NODE.table() in M.__doc__
    assert M.NODE_INTS == M.NODE.size == 8
    for game, players in (("moon", 3), ("shifting-stones", 5), ("sequence-stacks", 2)):
        info = load_game(game).INFO
        gi, gf = M.POLICY_LINK.memory(info)
        values = tuple(p.default for p in M.PARAMS)
        ints, floats = M.memory(info, players, values)
        nodes = M.DEFAULT_ITERATIONS + 1
        at = M.int_row(players, gi, info.state_size(players), info.num_actions, nodes)
        assert ints == at.end == at.tree + nodes * M.NODE_INTS
        assert floats == M.float_row(players, gf, info.num_actions, nodes).end


def test_the_rollout_policy_is_the_one_registration_passes():
    """mcts's rollouts play the bot its registration names (``POLICY_LINK``), flatmc's
    random play; a game without the named bot gets none (random rollouts)."""
    from bots.generic import flatmc, rollout

    assert M.POLICY_LINK == rollout.RolloutPolicy("greedy")
    assert flatmc.POLICY_LINK is rollout.RANDOM_ROLLOUT
    assert M.bind_extra(m)["HAS_POLICY"] and not flatmc.bind_extra(m)["HAS_POLICY"]
    assert not M.bind_extra(load_game("kuhn"))["HAS_POLICY"]


# ---- parameters ------------------------------------------------------------------------------
@pytest.mark.parametrize("text,words", [
    ("mcts:iterations=0", "iterations must be in 1..1000000"),
    ("mcts:exploration=-1", "exploration must be in 0..10"),
    ("mcts:rollout=smart", "rollout must be one of random, greedy"),
    ("mcts:depth=-2", "depth must be in 0..100000"),
])
def test_bad_parameters_are_refused(text, words):
    import re
    with pytest.raises(BotError, match=re.escape(words)):
        parse_bots(m, text, 3)


def test_registry_refuses_a_bot_with_more_params_than_fit():
    """Every bot's parameters travel as one row of MAX_BOT_PARAMS floats: mcts fills it;
    one more parameter is refused when the bot registers, not when a run packs the row."""
    from bots import registry
    from bots.registry import MAX_BOT_PARAMS, BotParam, BotSpec, register_bot

    assert len(M.PARAMS) == MAX_BOT_PARAMS
    wide = BotSpec("too-wide", "one parameter too many",
                   tuple(BotParam(f"p{i}", 0.0, 0.0, 1.0, "") for i in range(MAX_BOT_PARAMS + 1)))
    with pytest.raises(BotError, match=f"bot too-wide: {MAX_BOT_PARAMS + 1} parameters, "
                                       f"at most {MAX_BOT_PARAMS} fit"):
        register_bot(wide, M.choose)
    assert all(e.spec.name != "too-wide" for e in registry._BOTS)


def test_rollout_by_name_and_label():
    bot = parse_bots(m, "mcts:rollout=random", 3)[0]
    assert bot.values[M.P_ROLLOUT] == M.ROLLOUT_RANDOM and bot.label == "mcts:rollout=random"


@pytest.mark.parametrize("text,words", [
    ("mcts:iterations=0", "iterations must be in 1..1000000"),
    ("mcts:exploration=-0.5", "exploration must be in 0..10"),
    ("mcts:rollout=smart", "rollout must be one of random, greedy")])
def test_cli_refuses_bad_parameters_in_one_line(capsys, text, words):
    from playlab.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["play", "moon", "--bots", text, "--games", "1"])
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert exc.value.code != 0 and len(lines) == 1 and lines[0].startswith("error: ")
    assert words in lines[0] and "Traceback" not in err


def test_bots_lists_the_parameters():
    from click.testing import CliRunner

    from playlab.cli import cli

    out = CliRunner().invoke(cli, ["bots", "moon"]).output
    assert "mcts" in out and "iterations" in out and "one of random|greedy" in out


@pytest.mark.slow
def test_moon_against_two_greedy_is_not_weaker_than_fair():
    from experiments.stats import wilson_interval
    wins = n = 0
    for seat in range(3):
        bots = ["greedy"] * 3
        bots[seat] = "mcts"
        config = RunConfig.build("moon", 3, ",".join(bots), {}, 21 + seat)
        rows = Batch(config).run(0, 40)
        cols = config.columns()
        wins += int(rows[:, cols.index(f"win_{seat}")].sum())
        n += len(rows)
    lo, hi = wilson_interval(wins, n)
    assert hi > 1 / 3, (wins, n, lo, hi)


# ---- per-game defaults -------------------------------------------------------------------------
def test_each_game_carries_its_own_defaults():
    """``GENERIC_DEFAULTS`` of bots/<game>.py reach the catalogue, the parsed bot and its
    label; a game without them keeps the module's defaults."""
    from bots import moon as moon_bots

    generic = {p.name: p.default for p in M.PARAMS}
    moon = parse_bots(m, "mcts", 3)[0]
    assert moon.values[M.P_DELEGATE] == moon_bots.DISCARD_BASE != generic["delegate"]
    assert moon.values[M.P_DEPTH] == 8 != generic["depth"]
    assert moon.label == "mcts"
    assert parse_bots(m, "mcts:delegate=0", 3)[0].label == "mcts:delegate=0"
    stacks = parse_bots(S, "mcts", 2)[0]
    assert stacks.values[M.P_TREE_DEPTH] == 1 != generic["tree_depth"]
    assert parse_bots(S, "mcts:tree_depth=0", 2)[0].label == "mcts:tree_depth=0"
    stones = parse_bots(g, "mcts", 2)[0]
    assert stones.values == tuple(generic.values())


@pytest.mark.parametrize("defaults,words", [({"deepness": 3}, "has no parameter deepness"),
                                            ({"depth": -3}, "depth must be in 0..100000")])
def test_bad_game_defaults_are_refused(defaults, words):
    from bots.registry import with_defaults

    with pytest.raises(BotError, match=words):
        with_defaults(M.SPEC, defaults, "some-game")


def test_bots_lists_a_games_own_defaults():
    from click.testing import CliRunner

    from playlab.cli import cli

    out = CliRunner().invoke(cli, ["bots", "moon"]).output
    mcts = out[out.index("  mcts "):]
    assert "delegate         default 22 " in mcts


@pytest.mark.parametrize("game,bot", [("shifting-stones", "mcts-learned"), ("sequence-stacks", "mcts")])
def test_expert_is_its_search_under_another_name_sharing_its_kernels(game, bot):
    """Every game's strongest bot is `expert` (here a search): the same play as the bot it
    names, from the same compiled chain (naming it compiles nothing more)."""
    from runtime.runner import Batch, RunConfig

    # beside random: the chain of the search alone, which the conformance suite compiles
    # anyway (beside greedy, Shifting Stones' was compiled for this test only: 10-55 s cold)
    expert = RunConfig.build(game, 2, "expert:iterations=8,random", {}, 4)
    mcts = RunConfig.build(game, 2, f"{bot}:iterations=8,random", {}, 4)
    assert expert.kernel_key == mcts.kernel_key
    assert expert.bot_labels[0] == "expert:iterations=8"
    assert np.array_equal(Batch(expert).run(0, 6), Batch(mcts).run(0, 6))


# ---- play fingerprints -----------------------------------------------------------------------
# sha256 (first 16 hex digits) of the result rows of seeded games (seed 7), recorded from the
# single-function search before issue 24 split it up (and moved its rollout, shared with
# flatmc, to bots/generic/rollout.py): every game, mcts in every seat and in mixed seats,
# most of its parameters off their defaults somewhere; a change of play anywhere changes them.
# Moon's specs name tree_depth=0, its default when they were recorded (now 4).  Three of
# Moon's were recorded again when cut-off rollouts began to stop at a new deal (the game's
# ``new_deal``), a change of play made on purpose: before it 779f36efa82a9bd6,
# e4da2087995d5b7e and 5f91e4c5e4822045; the other Moon specs' rows came out the same
FINGERPRINTS = [
    ("moon", 3, "mcts:iterations=200:tree_depth=0", 60, "b3d20c0dea2e8e8e"),
    ("moon", 3, "greedy,mcts:iterations=200:rollout=random:tree_depth=0,mcts:iterations=100:worlds=4:tree_depth=0", 60, "7a9e4d6b66375346"),
    ("moon", 3, "mcts:iterations=200:delegate=0:depth=0:tree_depth=0,mcts:iterations=150:tree_depth=2:widening=0,greedy", 20, "669dfb023e201b75"),
    ("moon", 3, "mcts:tree_depth=0,greedy,greedy", 5, "c668a1f2052d0842"),
    ("shifting-stones", 2, "mcts:iterations=200,greedy", 60, "cc61bba8ed7834d3"),
    ("shifting-stones", 3, "mcts:iterations=200:prior=0:smoothing=0,greedy,mcts:iterations=100:rollout=random:depth=0", 20, "4ee6215433ed3cbf"),
    ("shifting-stones", 2, "mcts:iterations=120:worlds=3:widening=0,mcts:iterations=150:tree_depth=1:rollout=random", 20, "fb3450d836a837a7"),
    ("sequence-stacks", 2, "mcts:iterations=200", 60, "258cc6f02f696eeb"),
    ("sequence-stacks", 3, "mcts:iterations=200:tree_depth=0,greedy,mcts:iterations=100:rollout=random:worlds=2", 20, "1d448047df233025"),
    ("moon", 3, "flatmc:playouts=2,greedy,flatmc:playouts=1", 30, "17094e9bb7337e31"),
    ("sequence-stacks", 2, "flatmc:playouts=1", 30, "97f74489bbbcb88c"),
    ("kuhn", 2, "mcts:iterations=50,flatmc:playouts=3", 300, "6eb4917a226eb322"),
]


@pytest.mark.parametrize("game,players,spec,games,digest", FINGERPRINTS)
def test_play_fingerprint_is_the_one_recorded_before_the_restructure(game, players, spec, games, digest):
    import hashlib
    rows = Batch(RunConfig.build(game, players, spec, {}, 7)).run(0, games)
    assert hashlib.sha256(np.ascontiguousarray(rows).tobytes()).hexdigest()[:16] == digest


def test_the_log_table_holds_what_the_compiled_log_gives():
    # select reads log(availability) from a table; a value off in its last bit could turn a
    # tie and change play, so the table must equal the compiled np.log exactly
    from numba import njit

    from bots.generic.mcts import LOG_COUNTS, LOG_TABLE

    @njit
    def compiled_logs(n):
        out = np.empty(n)
        for k in range(n):
            out[k] = np.log(np.float64(max(k, 1)))
        return out

    assert np.array_equal(compiled_logs(LOG_TABLE), LOG_COUNTS)


def test_an_opponent_model_of_its_own_policy_plays_as_the_search_without_one():
    """A search registered with an opponent model (``RolloutPolicy.others``) plays the other
    seats' rollouts and prior moves through that path; with greedy as its own model it must
    play exactly as mcts does (a full tree, so opponents' nodes take the prior too)."""
    import bots.registry as R
    from bots.generic.rollout import RolloutPolicy

    spec = "{}:iterations=120:tree_depth=0"
    n = len(R._BOTS)
    M.register_search("mcts-modelled", RolloutPolicy("greedy", others="greedy"), "test copy",
                      games=("sequence-stacks",))
    try:
        # random beside it: each chain compiles the search alone (the rollouts' greedy is in
        # it either way; mcts's chain is the conformance suite's)
        rows = [Batch(RunConfig.build("sequence-stacks", 2, f"{spec.format(b)},random", {}, 7)).run(0, 12)
                for b in ("mcts", "mcts-modelled")]
    finally:
        del R._BOTS[n:]
        R._invalidate()
    assert np.array_equal(rows[0], rows[1])


def test_a_searchs_own_sampler_or_evaluate_keys_its_compiled_copy(tmp_path, monkeypatch):
    """``register_search(sampler=…, evaluate=…)`` compiles those functions into the copy in
    place of the game's; Numba's cache checks only the search's own file, so their sources
    must be part of the copy's key, or an edited cut-off value would run stale code."""
    import importlib

    import bots.registry as R
    from bots.generic.rollout import RolloutPolicy

    def copy_key(temperature):
        (tmp_path / "cutoff.py").write_text(
            "from numba import njit\n"
            "from simcore.games.shifting_stones.rules import soft_win\n\n"
            "@njit\n"
            "def cut_off(state, params, players, out):\n"
            f"    soft_win(state, params, players, out, {temperature})\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        sys.modules.pop("cutoff", None)
        fn = importlib.import_module("cutoff").cut_off
        n = len(R._BOTS)
        M.register_search("mcts-cut", RolloutPolicy("greedy"), "test copy", games=("shifting-stones",),
                          evaluate=fn)
        try:
            entry = R.bot_entry("shifting-stones", "mcts-cut")
            assert entry.extra(load_game("shifting-stones"))["evaluate"] is fn
            return entry.key("shifting-stones")
        finally:
            del R._BOTS[n:]
            sys.modules.pop("cutoff", None)
            R._invalidate()

    plain = R.bot_entry("shifting-stones", "mcts").key("shifting-stones")
    warm, hot = copy_key(3.0), copy_key(6.0)
    assert len({plain, warm, hot}) == 3
    # the same search and policy: only the cut-off's source tells them apart
    assert warm.startswith(plain) and hot.startswith(plain)
