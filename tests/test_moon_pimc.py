"""Moon's ``pimc`` (and its ``expert`` alias): a decision every sampled world agrees on, one
short game, and the registry's aliases."""
import numpy as np
import pytest

from bots import registry
from bots.registry import BotError, bots_for, parse_bot, parse_bots, register_alias
from runtime.runner import RunConfig, run_games
from simcore.games import moon as m

from bot_helpers import policy_on
from moon_helpers import DEFAULT_PARAMS, play, play_position


def memory(spec):
    bots = parse_bots(m, spec, 3)
    ints, floats = registry.memory_arrays(bots, m.INFO, 3)
    return np.zeros((3, ints), np.int64), np.zeros((3, floats), np.float64)


def test_the_bidder_takes_the_trick_it_needs():
    # trump 6s, two tricks left; the bidder (seat 2, last to play) has 5 tricks and bid 6.
    # Seat 0 led 5-2, seat 1 followed 5-3: the 5-5 takes the trick and the contract in
    # every world; after the 5-1 the 5-5 is left to win a trick it rarely can.
    s = play_position({0: ["5-2", "4-1"], 1: ["5-3", "3-1"], 2: ["5-5", "5-1"]},
                      trump=6, leader=0, bidder=2, bid=6, trick_no=5, tricks=(0, 0, 5))
    play(s, "5-2")
    play(s, "5-3")
    imem, fmem = memory("pimc:worlds=4")
    rng = np.array([1, 2, 3], np.int64)
    a = policy_on("moon", "pimc:worlds=4", s, DEFAULT_PARAMS, 2, rng, imem, fmem)
    assert m.TILE_NAMES[a - m.PLAY_BASE] == "5-5"


def test_one_short_game_against_greedy():
    config = RunConfig.build("moon", 3, "pimc:worlds=2,greedy,greedy", {}, 3)
    frame = run_games(config, 2, threads=1)
    assert (frame["truncated"] == 0).all()
    assert (frame[["win_0", "win_1", "win_2"]].sum(axis=1) == 1).all()
    assert (frame["bids_made_0"] + frame["bids_failed_0"]).sum() >= 1  # it bids


def test_expert_is_pimc_with_its_defaults():
    names = [b.name for b in bots_for("moon")]
    assert "pimc" in names and "expert" in names
    expert = parse_bot("moon", "expert")
    pimc = parse_bot("moon", "pimc")
    assert [p.name for p in expert.spec.params] == [p.name for p in pimc.spec.params]
    assert expert.values == pimc.values
    assert registry.bot_entry("moon", "expert").policy is registry.bot_entry("moon", "pimc").policy
    assert parse_bot("moon", "expert:worlds=3").values[0] == 3.0


@pytest.fixture
def clean_aliases():
    saved, owners = dict(registry._ALIASES), dict(registry._ALIAS_OWNER)
    yield
    registry._ALIASES.clear()
    registry._ALIASES.update(saved)
    registry._ALIAS_OWNER.clear()
    registry._ALIAS_OWNER.update(owners)
    registry._invalidate()


def test_an_alias_carries_its_values_as_defaults(clean_aliases):
    register_alias("moon", "strong-bidder", "bidder:aggression=1.1")
    spec = next(b for b in bots_for("moon") if b.name == "strong-bidder")
    assert {p.name: p.default for p in spec.params}["aggression"] == pytest.approx(1.1)
    assert parse_bot("moon", "strong-bidder").label == "strong-bidder"


@pytest.mark.parametrize("alias,spec,message", [
    ("nobody", "no-such-bot", "does not have"),
    ("odd", "bidder:nonsense=1", "has no parameter"),
])
def test_bad_aliases_are_refused_when_the_catalogue_is_read(clean_aliases, alias, spec, message):
    register_alias("moon", alias, spec)
    with pytest.raises(BotError, match=message):
        bots_for("moon")


def test_an_alias_must_name_another_bot(clean_aliases):
    with pytest.raises(BotError):
        register_alias("moon", "expert", "expert")
    with pytest.raises(BotError, match="already the name of a bot registered by playlab"):
        register_alias("moon", "greedy", "bidder")
    with pytest.raises(BotError, match="already an alias of 'pimc' made by playlab"):
        register_alias("moon", "expert", "greedy")
    with pytest.raises(BotError):
        register_alias("moon", "bad name", "pimc")


# ---- inference (bots.moon_inference), run as plain Python over the compiled game kernels ----
from bots import moon_inference as inference  # noqa: E402
from bots.moon import (GREEDY_AGGRESSION, GREEDY_MOON_THRESHOLD, GREEDY_OFFSUIT_WEIGHT,  # noqa: E402
                       GREEDY_TRUMP_RULE, decide)
from moon_helpers import params as moon_params  # noqa: E402


def greedy_decisions(seed, p, hands=3):
    """Every decision of a game the greedy bot plays in all seats: (state, seat to decide),
    over the first ``hands`` hands."""
    state = np.zeros(m.STATE_SIZE, np.int64)
    m.init(state, p, 3, seed)
    while not m.is_terminal(state) and state[m.HAND_NO] <= hands:
        seat = m.current_player(state)
        yield state.copy(), seat
        m.apply(state, p, decide(state, p, seat, GREEDY_AGGRESSION, GREEDY_MOON_THRESHOLD,
                                 GREEDY_TRUMP_RULE, GREEDY_OFFSUIT_WEIGHT))


def weigh(world, state, seat, p, miss):
    view = np.zeros(m.STATE_SIZE, np.int64)
    m.observe(state, seat, view)
    replay = np.zeros(m.STATE_SIZE, np.int64)
    seats = np.zeros(inference.SEAT_SLOTS, np.int64)
    n = inference.play_seats(view, p, replay, seats)
    return inference.likelihood(world, view, p, seat, seats, n, replay, miss), view


@pytest.mark.parametrize("variant", [{}, {"trump_before_widow": True}])
def test_the_true_deal_is_never_ruled_out_against_greedy_opponents(variant):
    # greedy made every move, so in the real deal the replay finds each of them: weight 1
    # even when any other move would rule a deal out (miss = 0)
    p = moon_params(**variant)
    seen = {"play": 0, "bid": 0, "hidden widow": 0}
    for seed in (1, 2, 3):
        for state, seat in greedy_decisions(seed, p):
            w, view = weigh(state, state, seat, p, 0.0)
            assert w == 1.0, (seed, seat, state[m.PHASE], state[m.TRICK_NO])
            seen["play" if state[m.PHASE] == m.PHASE_PLAY else "bid"] += 1
            if state[m.WIDOW_TAKEN] == 1 and view[m.WIDOW] == m.HIDDEN:
                # as a defender's sample has it: the widow one of the bidder's eight tiles,
                # its bid weighed by the share of them under which greedy bids so
                hidden = state.copy()
                hidden[m.WIDOW] = m.HIDDEN
                assert weigh(hidden, state, seat, p, 0.0)[0] >= 1 / 8
                seen["hidden widow"] += 1
    assert min(seen.values()) > 20, seen


def test_sampled_deals_that_contradict_the_opponents_lose_weight():
    p = DEFAULT_PARAMS
    rng = np.array([7, 8, 9, 10], np.int64)
    sample = np.zeros(m.STATE_SIZE, np.int64)
    weights = []
    for state, seat in greedy_decisions(4, p, hands=4):
        if state[m.PHASE] != m.PHASE_PLAY or state[m.TRICK_NO] < 2:
            continue
        view = np.zeros(m.STATE_SIZE, np.int64)
        m.observe(state, seat, view)
        for _ in range(5):
            m.determinize(view, p, seat, rng, seat, sample)
            w, _ = weigh(sample, state, seat, p, 0.5)
            assert 0.0 < w <= 1.0
            weights.append(w)
    weights = np.array(weights)
    # a sampled deal in which greedy would have played otherwise is down-weighted: most are
    assert len(weights) > 50 and (weights < 1.0).mean() > 0.5, (len(weights), (weights < 1.0).mean())


def test_pimc_with_inference_plays_reproducibly_and_differently():
    spec = "pimc:worlds=4:inference=0.9:candidates=4,greedy,greedy"
    a = run_games(RunConfig.build("moon", 3, spec, {}, 5), 2, threads=1)
    b = run_games(RunConfig.build("moon", 3, spec, {}, 5), 2, threads=2)
    assert a.equals(b)
    off = run_games(RunConfig.build("moon", 3, "pimc:worlds=4,greedy,greedy", {}, 5), 2, threads=1)
    assert not a[["score_0", "score_1", "score_2", "turns"]].equals(off[["score_0", "score_1", "score_2", "turns"]])
