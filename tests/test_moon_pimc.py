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
    saved = dict(registry._ALIASES)
    yield
    registry._ALIASES.clear()
    registry._ALIASES.update(saved)
    registry._invalidate()


def test_an_alias_carries_its_values_as_defaults(clean_aliases):
    register_alias("moon", "strong-bidder", "bidder:aggression=1.1")
    spec = next(b for b in bots_for("moon") if b.name == "strong-bidder")
    assert {p.name: p.default for p in spec.params}["aggression"] == pytest.approx(1.1)
    assert parse_bot("moon", "strong-bidder").label == "strong-bidder"


@pytest.mark.parametrize("alias,spec,message", [
    ("nobody", "no-such-bot", "does not have"),
    ("greedy", "bidder", "also the name of a bot"),
    ("odd", "bidder:nonsense=1", "has no parameter"),
])
def test_bad_aliases_are_refused_when_the_catalogue_is_read(clean_aliases, alias, spec, message):
    register_alias("moon", alias, spec)
    with pytest.raises(BotError, match=message):
        bots_for("moon")


def test_an_alias_must_name_another_bot():
    with pytest.raises(BotError):
        register_alias("moon", "expert", "expert")
    with pytest.raises(BotError):
        register_alias("moon", "bad name", "pimc")
