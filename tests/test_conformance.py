"""One conformance suite over every registered game (the fourth, Kuhn poker, included) and
every bot, in the spirit of OpenSpiel's RandomSimTest / ResampleInfostateTest and pgx's
api_test.  Small numbers of games and positions per case: it checks the protocol, not the
rules (each game's own tests do that)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from bots.registry import ALL_GAMES, allocate_memory, bots_for
from bot_helpers import cheap
from runtime import check as C
from simcore.games import available_games, load_game
from simcore.replay import replayer_for
from simcore.rng import stream_key
from runtime.runner import Batch, RunConfig
from simcore.trace import build_trace

GAMES = available_games()
counts = C.player_counts


def bot_names(game):
    return [b.name for b in bots_for(load_game(game))]


def game_bot_pairs():
    return [(g, b) for g in GAMES for b in bot_names(g)]


SEARCH_BOTS = ("flatmc", "mcts", "mcts-learned", "pimc", "expert")


def positions(game, players, **sizes):
    """The check's random positions of ``game`` (``runtime.check.random_positions``), with
    the game's module."""
    module = load_game(game)
    params, found = C.random_positions(module, players, **sizes)
    return module, params, found


legal_of = C.legal_of


# ---- the rules' interface ----------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_legal_actions_ascending_unique_nonempty_until_the_end(game):
    # the battery's check (runtime/check.py), which raises CheckFailed (an AssertionError)
    # naming the fault; tests/test_check_battery.py shows it catches each kind of fault
    C.check_legal_actions(load_game(game))


@pytest.mark.parametrize("game", GAMES)
def test_random_action_is_uniform_over_the_legal_set(game):
    module, params, found = positions(game, counts(module_info(game))[0], want=40, every=3)
    tested = 0
    for state, p in found:
        buf, n = legal_of(module, state, params)
        if n < 2 or n > 40:
            continue
        legal = list(buf[:n])
        draws = 150 * n
        rng = np.array([stream_key(99, tested, s) for s in range(p + 1)], np.int64)
        picks = [module.random_action(state, params, rng, p) for _ in range(draws)]
        assert set(picks) <= set(legal)
        observed = np.array([picks.count(a) for a in legal])
        assert chisquare(observed).pvalue > 1e-4, f"{game}: random_action not uniform at {legal}: {observed}"
        tested += 1
        if tested == 4:
            break
    assert tested >= 1


def module_info(game):
    return load_game(game).INFO


@pytest.mark.parametrize("game", GAMES)
def test_random_run_equals_stepping_in_every_column(game):
    info = module_info(game)
    for players in counts(info):
        batch = Batch(RunConfig.build(game, players, "random", {}, 21))
        fast = batch.run(0, 12)  # every seat random: the game's random_run fast path
        stepped = np.vstack([batch.record(i)[1] for i in range(12)])  # recording steps one by one
        assert np.array_equal(fast, stepped), f"{game}/{players}: random_run differs from stepping"


@pytest.mark.parametrize("game", GAMES)
def test_summarize_fills_exactly_the_declared_columns_and_returns_agree_with_the_win_flags(game):
    module = load_game(game)
    assert hasattr(module, "returns"), f"{game} has no returns yet"
    C.check_results(module)


def extreme_variants(info):
    for o in info.options:
        if o.kind == "int":
            values = (o.low, o.high)
        elif o.kind == "bool":
            values = (not o.default,)
        elif o.kind == "choice":
            values = tuple(c for c in o.choices if c != o.default)
        else:
            continue  # a path: no bound to push
        for v in values:
            yield {o.name: v}


@pytest.mark.parametrize("game", GAMES)
def test_max_decisions_holds_at_extreme_options(game):
    info = module_info(game)
    tried = 0
    for variant in extreme_variants(info):
        for players in (info.min_players, info.max_players):
            config = RunConfig.build(game, players, "random", variant, 5)
            rows = Batch(config).run(0, 4)  # raises KernelError past max_decisions
            decisions = rows[:, config.columns().index("decisions")]
            assert np.all((decisions >= 1) & (decisions <= info.max_decisions(players))), variant
            tried += 1
    assert tried >= 2


# ---- information ---------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_determinized_samples_look_the_same_to_the_actor_and_observe_the_same(game):
    module = load_game(game)
    assert module.INFO.observation_size is not None and hasattr(module, "observation"), \
        f"{game} declares no observation yet"
    assert C.check_information(module) >= 20  # positions checked over the player counts


# ---- traces ------------------------------------------------------------------------------------
def replayer(game):
    return getattr(load_game(game), "replay", None) or replayer_for(game)


@pytest.mark.parametrize("game,bot", game_bot_pairs())
def test_traces_replay_to_the_engine_result(game, bot):
    info = module_info(game)
    replay = replayer(game)
    search = bot in SEARCH_BOTS  # a whole game of search is slow: one game will do
    for players in counts(info)[:1 if search else 2]:
        batch = Batch(RunConfig.build(game, players, cheap(game, bot), {}, 13))
        for i in range(1 if search else 2):
            trace = build_trace(batch, i)
            got = replay(trace)
            for key in ("scores", "winners", "truncated"):
                assert got[key] == trace["result"][key], f"{game}/{bot}: replay disagrees on {key}"


# ---- bots ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_every_game_offers_random_first_and_names_each_bot_once(game):
    names = bot_names(game)
    assert names[0] == "random" and len(set(names)) == len(names)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_offers_every_generic_bot(game):
    from bots.registry import _BOTS

    names = set(bot_names(game))
    missing = [e.spec.name for e in _BOTS if e.games == ALL_GAMES and e.plugin is None and e.spec.name not in names]
    assert not missing, f"{game} cannot run {missing} (it lacks a protocol function they need)"


def decide(batch, state, seat, rng, imem, fmem):
    return batch.bot_action(state, seat, rng, imem, fmem)


@pytest.mark.parametrize("game,bot", game_bot_pairs())
def test_bots_decide_only_on_what_their_seat_may_know(game, bot):
    """At positions of the bot's own games every decision is legal, and it is the same when
    the hidden information is resampled by the game's determinize from the seat's view
    (same bot stream, same working memory): ``runtime.check``, the battery `playlab check`
    runs."""
    info = module_info(game)
    for players in counts(info)[:2]:
        batch = Batch(RunConfig.build(game, players, cheap(game, bot), {}, 17))
        decisions, resampled = C.check_bot_legal_and_private(batch, bot)
        assert decisions >= 5 and (bot == "random" or resampled >= 1)


@pytest.mark.parametrize("game,bot", game_bot_pairs())
def test_every_bot_plays_whole_games_through_the_engine(game, bot):
    info = module_info(game)
    search = bot in SEARCH_BOTS
    for players in counts(info)[:1 if search else 2]:
        config = RunConfig.build(game, players, cheap(game, bot), {}, 2)
        rows = Batch(config).run(0, 2 if search else 6)
        assert np.all(rows[:, 1] >= 1)


@pytest.mark.parametrize("game,spec", [("kuhn", "flatmc:playouts=2"), ("shifting-stones", "greedy")])
def test_a_seat_writes_only_its_own_working_memory(game, spec):
    """The runner's per-seat rows: a bot deciding for seat s touches row s only."""
    module = load_game(game)
    info = module.INFO
    players = 2
    config = RunConfig.build(game, players, spec, {}, 1)
    batch = Batch(config)
    imem, fmem = allocate_memory(config.bots, info, players)
    assert imem.shape == (players, batch.imem_size) and fmem.shape == (players, batch.fmem_size)
    params = config.params()
    state = np.zeros(info.state_size(players), np.int64)
    module.init(state, params, players, stream_key(1, 0, 0))
    rng = np.array([stream_key(1, 0, 1 + s) for s in range(players)], np.int64)
    touched = set()
    for _ in range(30):
        if module.is_terminal(state):
            break
        p = int(module.current_player(state))
        others = [(imem[s].copy(), fmem[s].copy()) for s in range(players)]
        a = decide(batch, state, p, rng, imem, fmem)
        for s in range(players):
            if s != p:
                assert np.array_equal(imem[s], others[s][0]) and np.array_equal(fmem[s], others[s][1])
        if not np.array_equal(imem[p], others[p][0]):
            touched.add(p)
        module.apply(state, params, a)
    assert touched  # the bot did use its memory


def test_flatmc_beats_random_at_kuhn():
    config = RunConfig.build("kuhn", 2, "flatmc:playouts=30,random", {}, 3)
    rows = Batch(config).run(0, 400)
    cols = config.columns()
    assert rows[:, cols.index("score_0")].mean() > 0.2  # random against random: about 0.13
