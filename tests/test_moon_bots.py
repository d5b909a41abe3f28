"""Moon greedy/bidder bots: each heuristic in a hand-built position, strength, and that
they read only what their seat may know."""
import numpy as np
import pytest

from bots import moon as mb
from bots.registry import BotError, bot_arrays, parse_bots
from experiments.stats import wilson_interval
from simcore.games import moon as m
from runtime.runner import Batch, RunConfig

from bot_helpers import policy_on
from moon_helpers import DEFAULT_PARAMS, fresh, mask, params, play, play_position

# per-seat working memory, as the runner passes it (Moon's bots keep none)
IMEM = np.zeros((3, 1), dtype=np.int64)
FMEM = np.zeros((3, 1), dtype=np.float64)


def decide(state, spec="greedy", p=DEFAULT_PARAMS):
    game = RunConfig.build("moon", 3, "random", {}, 0).module
    bots = parse_bots(game, spec, 3)
    kinds, bp = bot_arrays(bots)
    seat = int(m.current_player(state))
    rng = np.array([1, 2, 3], dtype=np.int64)
    return policy_on("moon", bots, state, p, seat, rng, IMEM, FMEM)


def tile_of(action):
    return m.TILE_NAMES[action - m.PLAY_BASE]


def test_wins_the_trick_with_its_lowest_winning_tile():
    # seat 2 plays last; trick led 6-2 by seat 0 (bidder), seat 1 played 6-3
    s = play_position({0: ["6-2"], 1: ["6-3"], 2: ["6-6", "6-5", "6-4", "1-1"]}, trump=1, leader=0)
    play(s, "6-2")
    play(s, "6-3")
    assert tile_of(decide(s)) == "6-4"


def test_throws_least_useful_tile_when_it_cannot_win():
    s = play_position({0: ["6-6"], 1: ["6-5"], 2: ["5-5", "4-2", "4-3", "2-2"]}, trump=1, leader=0)
    play(s, "6-6")
    play(s, "6-5")
    # seat 2 has no six and no trump (ones): it throws its weakest tile, 4-2 (the doubles
    # top their suits; 4-3 outranks 4-2)
    assert tile_of(decide(s)) == "4-2"


def test_trumps_in_when_void_in_the_led_suit():
    s = play_position({0: ["6-6"], 1: ["6-5"], 2: ["5-5", "3-1", "2-1", "2-2"]}, trump=1, leader=0)
    play(s, "6-6")
    play(s, "6-5")
    assert tile_of(decide(s)) == "2-1"  # the cheapest trump that wins


def test_bidder_draws_trumps_with_a_sure_top_trump():
    s = play_position({0: ["4-4", "4-3", "6-5", "2-1"], 1: ["4-1", "6-6", "5-5", "3-3"],
                       2: ["4-2", "6-1", "5-1", "3-1"]}, trump=4, leader=0, bidder=0)
    assert tile_of(decide(s)) == "4-4"


def test_defender_ahead_of_bidder_takes_with_strongest_winner():
    # seat 1 leads, seat 2 follows, bidder (seat 0) plays last
    s = play_position({0: ["6-6", "1-1"], 1: ["6-1"], 2: ["6-5", "6-4", "2-2"]}, trump=3, leader=1, bidder=0)
    play(s, "6-1")
    # seat 2 could win with 6-4 or 6-5; the bidder still to play: the stronger, 6-5
    assert tile_of(decide(s)) == "6-5"


def test_follows_suit_as_the_rules_require():
    s = play_position({0: ["5-2"], 1: ["5-1", "6-6"], 2: ["4-4"]}, trump=3, leader=0)
    play(s, "5-2")
    assert tile_of(decide(s)) == "5-1"


def test_strong_hand_bids_weak_hand_passes():
    s = fresh(1)
    seat = int(s[m.ACTOR])
    s[m.HAND + seat] = mask("6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "5-5")
    assert decide(s) == m.BID_MOON_ACTION  # six top trumps and a top double
    s[m.HAND + seat] = mask("2-1", "3-1", "4-1", "5-2", "4-3", "5-3", "3-2")
    assert decide(s) == m.PASS


def test_aggression_and_moon_threshold_change_bids():
    s = fresh(1)
    seat = int(s[m.ACTOR])
    s[m.HAND + seat] = mask("6-6", "6-5", "6-4", "5-5", "4-4", "2-1", "3-1")
    cautious = decide(s, "bidder:aggression=0.5")
    bold = decide(s, "bidder:aggression=1.5")
    assert cautious < bold or cautious == m.PASS
    assert decide(s, "bidder:aggression=1.0:moon_threshold=3") == m.BID_MOON_ACTION


def test_last_bidder_must_bid_under_force():
    p = params(all_pass="force")
    s = fresh(2, p)
    for _ in range(2):
        m.apply(s, p, m.PASS)
    seat = int(s[m.ACTOR])
    s[m.HAND + seat] = mask("2-1", "3-1", "4-1", "5-2", "4-3", "5-3", "3-2")
    assert decide(s, p=p) == m.BID_BASE + 4


def test_discards_its_weakest_tile_and_names_its_long_suit():
    s = fresh(3)
    b = int(s[m.ACTOR])
    m.apply(s, DEFAULT_PARAMS, m.BID_BASE + 5)
    for _ in range(2):
        m.apply(s, DEFAULT_PARAMS, m.PASS)
    assert s[m.PHASE] == m.PHASE_DISCARD and s[m.BIDDER] == b
    s[m.HAND + b] = mask("6-6", "6-5", "6-4", "6-3", "5-5", "4-4", "2-1", "3-2")
    # keep the other hands consistent with 22 tiles (not read by the bot)
    a = decide(s)
    assert m.TILE_NAMES[a - m.DISCARD_BASE] in {"2-1", "3-2"}
    m.apply(s, DEFAULT_PARAMS, a)
    assert decide(s) == m.TRUMP_BASE + 6


def test_reads_only_its_own_hand():
    rng = np.array([9, 9, 9], dtype=np.int64)
    checked = 0
    for seed in range(30):
        s = fresh(seed)
        while not m.is_terminal(s) and checked < 400:
            seat = int(m.current_player(s))
            others = [x for x in range(3) if x != seat]
            swapped = s.copy()
            swapped[m.HAND + others[0]], swapped[m.HAND + others[1]] = s[m.HAND + others[1]], s[m.HAND + others[0]]
            swapped[m.WIDOW] = 0 if s[m.WIDOW] else 1  # hidden from everyone but, later, the bidder
            if not (s[m.BIDDER] == seat and s[m.WIDOW_TAKEN]):
                assert decide(s) == decide(swapped)
            checked += 1
            m.apply(s, DEFAULT_PARAMS, m.random_action(s, DEFAULT_PARAMS, rng, seat))
    assert checked >= 400


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_bidder_beats_random_in_every_seat(seat):
    specs = ["random"] * 3
    specs[seat] = "bidder"
    config = RunConfig.build("moon", 3, specs, {}, 20 + seat)
    rows = Batch(config).run(0, 300)
    cols = config.columns()
    decided = rows[rows[:, cols.index("truncated")] == 0]
    lo, _ = wilson_interval(decided[:, cols.index(f"win_{seat}")].sum(), len(decided))
    assert lo >= 0.60


def test_greedy_games_are_never_truncated():
    config = RunConfig.build("moon", 3, "greedy", {}, 5)
    rows = Batch(config).run(0, 300)
    assert rows[:, config.columns().index("truncated")].sum() == 0


@pytest.mark.parametrize("spec, message", [
    ("bidder:aggression=5", "aggression must be in"),
    ("bidder:trump_rule=1.5", "takes an integer"),
    ("greedy:aggression=1", "unknown parameter"),
])
def test_bad_bot_parameters(spec, message):
    game = RunConfig.build("moon", 3, "random", {}, 0).module
    with pytest.raises(BotError, match=message):
        parse_bots(game, spec, 3)
