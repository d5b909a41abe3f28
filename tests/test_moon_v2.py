"""Moon foundation v2: declared layouts, the bidding-position columns, returns, observation,
render, trace event fields and step descriptions."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.games import moon as m
from simcore.games.moon.words import _tiles_high_first
from simcore.rng import stream_key
from runtime.runner import Batch, RunConfig
from simcore.trace import build_trace, parse_event

from moon_helpers import DEFAULT_PARAMS, bid_action, fresh, params, play, play_position

VARIANTS = [
    {},
    {"trump_before_widow": True, "all_pass": "force", "doubles_trump": False},
    {"moon_instant_win": False, "bidder_goes_out": True, "min_bid": 2, "target_score": 15},
    {"hand_cap": 3},
]
COLS = m.INFO.result_columns(3)


def row_of(state, p=DEFAULT_PARAMS) -> dict:
    row = np.zeros(len(COLS), dtype=np.int64)
    m.summarize(state, p, 3, row)
    return dict(zip(COLS, (int(x) for x in row)))


def pos(state, field):
    return [int(x) for x in state[field:field + 3]]


# ---- declarations ----------------------------------------------------------------------------
def test_header_tables_are_the_declarations():
    assert m.LAYOUT.table() in m.__doc__
    assert m.OBS_LAYOUT.table() in m.__doc__
    assert m.STATE_SIZE == m.LAYOUT.size and m.INFO.state_size(3) == m.STATE_SIZE
    assert m.INFO.observation_size(3) == m.OBS_SIZE == m.OBS_LAYOUT.size


def test_old_slot_names_keep_their_order():
    old = ["HAND", "WIDOW", "DISCARDED", "SCORE", "TRICKS", "PHASE", "ACTOR", "FIRST_BIDDER",
           "HIGH_BID", "BIDDER", "SPOKEN", "TRUMP", "LEADER", "TRICK_NO", "IN_TRICK", "LED", "TABLE",
           "PLAYED", "VOID", "HAND_NO", "RNG", "WINNER", "TRUNCATED", "TURNS", "REDEALS", "BIDS_MADE",
           "BIDS_FAILED", "MOON_TRIES", "MOONS_MADE", "WIDOW_TAKEN", "DISCARD_DONE", "HAND_POINTS",
           "LAST_TRICK_WINNER", "DECK"]
    slots = [getattr(m, name) for name in old]
    assert slots == sorted(slots) and slots[0] == 0


def test_existing_columns_first_then_the_new_ones():
    old = ["hands", "redeals"] + [f"{stat}_{s}" for stat in m.EXTRA_STATS for s in range(3)]
    extra = m.INFO.extra_columns(3)
    assert extra[:len(old)] == old
    new = ["hands_played", "first_bidder"] + [f"{c}_{k}" for c in ("hand_points_pos", "contracts_pos",
                                                                   "made_pos") for k in range(3)]
    # the balance report's counters, in the order of their state arrays
    new += [f"{what}_{name}_{stem}" for what, names in (("bid", m.BID_LEVEL_NAMES), ("trump", m.TRUMP_NAMES),
                                                         ("widow", ("discarded", "kept")))
            for stem in ("contracts", "made") for name in names]
    assert extra[len(old):] == new
    documented = {name for name, _ in m.INFO.column_docs}
    for c in COLS:
        base = c.rsplit("_", 1)[0] + "_S" if c[-1].isdigit() else c
        assert base in documented, c
    assert m.INFO.first_player_column == "first_bidder"
    assert all(doc for _, doc in m.INFO.column_docs)


# ---- bidding-position columns on hand-built hands -----------------------------------------------
def last_trick(first, bid, bidder_tricks_before, bidder_wins):
    """Seat 0 holds the contract; ``first`` bid first; six tricks are done."""
    tricks = (bidder_tricks_before, 6 - bidder_tricks_before, 0)
    hands = {0: ["6-6"], 1: ["2-1"], 2: ["3-1"]} if bidder_wins else {0: ["2-1"], 1: ["6-6"], 2: ["3-1"]}
    s = play_position(hands, trump=6, leader=0, bidder=0, bid=bid, trick_no=6, tricks=tricks)
    s[m.FIRST_BIDDER] = first
    for k in ("HAND_POINTS_POS", "CONTRACTS_POS", "MADE_POS"):
        s[getattr(m, k):getattr(m, k) + 3] = 0
    for t in (hands[0][0], hands[1][0], hands[2][0]):
        play(s, t)
    return s


def test_a_made_contract_by_the_second_bidder():
    s = last_trick(first=2, bid=4, bidder_tricks_before=5, bidder_wins=True)  # seat 0 is position 1
    assert pos(s, m.HAND_POINTS) == [4, 1, 0]
    # positions: seat 2 -> 0, seat 0 -> 1, seat 1 -> 2
    assert pos(s, m.HAND_POINTS_POS) == [0, 4, 1]
    assert pos(s, m.CONTRACTS_POS) == [0, 1, 0]
    assert pos(s, m.MADE_POS) == [0, 1, 0]
    row = row_of(s)
    assert [row[f"hand_points_pos_{k}"] for k in range(3)] == [0, 4, 1]
    assert [row[f"contracts_pos_{k}"] for k in range(3)] == [0, 1, 0]
    assert [row[f"made_pos_{k}"] for k in range(3)] == [0, 1, 0]


def test_a_failed_contract_by_the_third_bidder():
    s = last_trick(first=1, bid=6, bidder_tricks_before=3, bidder_wins=False)  # seat 0 is position 2
    assert pos(s, m.HAND_POINTS) == [-6, 4, 0]
    assert pos(s, m.HAND_POINTS_POS) == [4, 0, -6]
    assert pos(s, m.CONTRACTS_POS) == [0, 0, 1]
    assert pos(s, m.MADE_POS) == [0, 0, 0]


def test_a_redeal_scores_no_position_and_plays_no_hand():
    p = params(hand_cap=1)
    s = fresh(9, p)
    first = int(s[m.FIRST_BIDDER])
    for _ in range(3):
        m.apply(s, p, m.PASS)
    assert s[m.PHASE] == m.PHASE_OVER
    row = row_of(s, p)
    assert row["hands"] == 1 and row["redeals"] == 1 and row["hands_played"] == 0
    assert row["first_bidder"] == first
    for c in ("hand_points_pos", "contracts_pos", "made_pos"):
        assert [row[f"{c}_{k}"] for k in range(3)] == [0, 0, 0]


def test_positions_follow_the_first_bidder_after_a_redeal():
    """A redeal moves the first bidder on; the second to bid then wins the contract."""
    s = fresh(11)
    first = int(s[m.FIRST_BIDDER])
    for _ in range(3):
        m.apply(s, DEFAULT_PARAMS, m.PASS)
    now_first = (first + 1) % 3
    assert s[m.FIRST_BIDDER] == now_first and s[m.GAME_FIRST_BIDDER] == first
    assert list(s[m.SAID:m.SAID + 3]) == [m.NOT_SAID] * 3
    m.apply(s, DEFAULT_PARAMS, m.PASS)
    m.apply(s, DEFAULT_PARAMS, bid_action(4))
    m.apply(s, DEFAULT_PARAMS, m.PASS)
    bidder = (now_first + 1) % 3
    assert s[m.BIDDER] == bidder and s[m.SAID + bidder] == 4 and s[m.SAID + now_first] == 0
    rng = np.array([1, 2, 3], dtype=np.int64)
    while s[m.HAND_NO] == 2 and not m.is_terminal(s):
        m.apply(s, DEFAULT_PARAMS, m.random_action(s, DEFAULT_PARAMS, rng, int(s[m.ACTOR])))
    assert pos(s, m.CONTRACTS_POS) == [0, 1, 0]
    made = int(s[m.BIDS_MADE + bidder])
    assert pos(s, m.MADE_POS) == [0, made, 0]
    points = pos(s, m.HAND_POINTS)
    assert pos(s, m.HAND_POINTS_POS) == [points[(now_first + k) % 3] for k in range(3)]
    assert row_of(s)["first_bidder"] == first


def test_position_columns_add_up_over_whole_games():
    for bots in ("random", "greedy"):
        config = RunConfig.build("moon", 3, bots, None, 5)
        cols = config.columns()
        rows = Batch(config).run(0, 60)
        for r in rows:
            v = dict(zip(cols, r))
            assert sum(v[f"hand_points_pos_{k}"] for k in range(3)) == sum(v[f"score_{s}"] for s in range(3))
            assert sum(v[f"contracts_pos_{k}"] for k in range(3)) == v["hands_played"]
            assert sum(v[f"made_pos_{k}"] for k in range(3)) == sum(v[f"bids_made_{s}"] for s in range(3))
            assert v["hands_played"] == v["hands"] - v["redeals"]
            assert 0 <= v["first_bidder"] < 3
        # the column holds the seat the trace names as hand 1's first bidder
        for i in range(3):
            trace = build_trace(Batch(config), i)
            first = parse_event(m.EVENT_FIELDS, trace["log"][0])
            assert first["event"] == "hand" and first["hand"] == 1
            assert dict(zip(cols, rows[i]))["first_bidder"] == first["first"]


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_random_run_leaves_the_state_stepping_leaves(variant):
    p = params(**VARIANTS[variant])
    for seed in range(6):
        a = np.zeros(m.STATE_SIZE, dtype=np.int64)
        m.init(a, p, 3, stream_key(seed, 0, 0))
        b = a.copy()
        ra = np.array([seed, 7, 9], dtype=np.int64)
        rb = ra.copy()
        n = m.random_run(a, p, ra)
        steps = 0
        while not m.is_terminal(b):
            m.apply(b, p, m.random_action(b, p, rb, int(b[m.ACTOR])))
            steps += 1
        assert n == steps
        assert np.array_equal(a, b) and np.array_equal(ra, rb)


# ---- returns ---------------------------------------------------------------------------------------
def returns_of(state):
    out = np.full(3, -9.0)
    m.returns(state, DEFAULT_PARAMS, 3, out)
    return list(out)


def test_returns():
    s = last_trick(first=0, bid=4, bidder_tricks_before=5, bidder_wins=True)
    assert returns_of(s) == [0.0, 0.0, 0.0]  # a hand is over, the game is not
    s[m.PHASE] = m.PHASE_OVER
    s[m.WINNER] = 2
    assert returns_of(s) == [0.0, 0.0, 1.0]
    s[m.WINNER] = -1
    s[m.TRUNCATED] = 1
    assert returns_of(s) == pytest.approx([1 / 3] * 3)


# ---- observation -----------------------------------------------------------------------------------
def obs_of(state, seat, p=DEFAULT_PARAMS):
    view = np.zeros(m.STATE_SIZE, dtype=np.int64)
    m.observe(state, seat, view)
    out = np.full(m.OBS_SIZE, np.nan)  # a slot the observation forgot to write stays NaN
    m.observation(view, p, seat, out)
    return out


def random_positions(seed, variant, every=3):
    p = params(**VARIANTS[variant])
    s = np.zeros(m.STATE_SIZE, dtype=np.int64)
    m.init(s, p, 3, stream_key(seed, 1, 0))
    rng = np.array([seed, seed + 1, seed + 2], dtype=np.int64)
    k = 0
    while not m.is_terminal(s) and k < 400:
        if k % every == 0:
            yield s.copy()
        m.apply(s, p, m.random_action(s, p, rng, int(s[m.ACTOR])))
        k += 1
    yield s.copy()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**40), variant=st.sampled_from(range(len(VARIANTS))))
def test_observation_of_a_determinized_view_is_the_views(seed, variant):
    p = params(**VARIANTS[variant])
    rng = np.array([seed ^ 5], dtype=np.int64)
    view = np.zeros(m.STATE_SIZE, dtype=np.int64)
    det = np.zeros(m.STATE_SIZE, dtype=np.int64)
    for s in random_positions(seed, variant):
        for seat in range(3):
            m.observe(s, seat, view)
            m.determinize(view, p, seat, rng, 0, det)
            a = obs_of(s, seat, p)
            assert a.shape == (m.INFO.observation_size(3),)
            assert np.isfinite(a).all()  # every slot written (NaN sentinel), none infinite
            assert np.array_equal(obs_of(det, seat, p), a)
            # the full state gives the same vector as the view: nothing hidden is read
            full = np.zeros(m.OBS_SIZE)
            m.observation(s, p, seat, full)
            assert np.array_equal(full, a)


def block(vec, name, r=None, width=None):
    start = getattr(m, name)
    size = m.OBS_LAYOUT.field(name).size
    if r is None:
        return list(vec[start:start + size])
    return list(vec[start + r * width:start + (r + 1) * width])


def test_observation_on_a_hand_built_trick():
    s = play_position({0: ["6-6", "5-5"], 1: ["2-1", "6-5"], 2: ["3-1", "4-1"]}, trump=6, leader=1,
                      bidder=1, bid=5, trick_no=5, tricks=(1, 4, 0), scores=(3, -5, 10))
    s[m.FIRST_BIDDER] = 0
    s[m.SAID:m.SAID + 3] = (0, 5, 0)
    play(s, "6-5")  # seat 1 leads a trump; seat 2 has none
    play(s, "3-1")
    o = obs_of(s, 0)  # seat 0 to play; r 1 is seat 1, r 2 is seat 2
    assert block(o, "OBS_PHASE") == [0, 0, 0, 1, 0]
    assert block(o, "OBS_TO_ACT") == [1, 0, 0]
    assert block(o, "OBS_LEADER") == [0, 1, 0]
    assert block(o, "OBS_BIDDER") == [0, 1, 0]
    assert block(o, "OBS_CONTRACT") == [0, 0, 0, 0, 1, 0, 0, 0]
    assert block(o, "OBS_TRUMP")[6] == 1 and sum(block(o, "OBS_TRUMP")) == 1
    assert [i for i, x in enumerate(block(o, "OBS_HAND")) if x] == sorted(
        [m.TILE_BY_NAME["6-6"], m.TILE_BY_NAME["5-5"]])
    assert block(o, "OBS_TABLE", 1, m.NUM_TILES)[m.TILE_BY_NAME["6-5"]] == 1
    assert block(o, "OBS_TABLE", 2, m.NUM_TILES)[m.TILE_BY_NAME["3-1"]] == 1
    assert sum(block(o, "OBS_TABLE", 0, m.NUM_TILES)) == 0
    assert block(o, "OBS_LED") == [0] * 7 + [1]
    assert block(o, "OBS_VOID", 2, m.NUM_LED) == [0] * 7 + [1]  # seat 2 showed out of trumps
    assert block(o, "OBS_SAID", 0, m.SAID_CODES)[1] == 1  # seat 0 passed
    assert block(o, "OBS_SAID", 1, m.SAID_CODES)[6] == 1  # seat 1 bid 5
    assert block(o, "OBS_TRICKS") == pytest.approx([1 / 7, 4 / 7, 0])
    assert block(o, "OBS_SCORE") == pytest.approx([3 / 21, -5 / 21, 10 / 21])
    assert block(o, "OBS_HAND_SIZES") == pytest.approx([2 / 8, 1 / 8, 1 / 8])
    assert block(o, "OBS_WIDOW") == [0] * m.NUM_TILES  # seat 0 is not the bidder
    # seat 1 sees itself as r 0
    o1 = obs_of(s, 1)
    assert block(o1, "OBS_BIDDER") == [1, 0, 0] and block(o1, "OBS_TO_ACT") == [0, 0, 1]


def test_observation_changes_with_what_the_seat_sees_only():
    s = fresh(21)
    base = [obs_of(s, seat) for seat in range(3)]
    # another seat's tiles swapped with the widow: nothing seat 0 can see
    t = s.copy()
    actor = 1 if s[m.ACTOR] != 1 else 2
    h = int(t[m.HAND + actor])
    low = h & -h
    widow = int(t[m.WIDOW])
    t[m.HAND + actor] = (h & ~low) | (1 << widow)
    t[m.WIDOW] = low.bit_length() - 1
    assert np.array_equal(obs_of(t, 0), base[0])
    assert not np.array_equal(obs_of(t, actor), base[actor])
    # a bid is public: every seat's vector changes
    m.apply(s, DEFAULT_PARAMS, bid_action(5))
    for seat in range(3):
        assert not np.array_equal(obs_of(s, seat), base[seat])


def test_the_bidder_sees_the_widow_and_discard_others_do_not():
    s = fresh(3)
    first = int(s[m.FIRST_BIDDER])
    m.apply(s, DEFAULT_PARAMS, bid_action(21))
    widow = int(s[m.WIDOW])
    others = [x for x in range(3) if x != first]
    assert block(obs_of(s, first), "OBS_WIDOW")[widow] == 1
    for seat in others:
        assert sum(block(obs_of(s, seat), "OBS_WIDOW")) == 0
    m.apply(s, DEFAULT_PARAMS, m.DISCARD_BASE + widow)
    assert block(obs_of(s, first), "OBS_DISCARD")[widow] == 1
    for seat in others:
        o = obs_of(s, seat)
        assert sum(block(o, "OBS_DISCARD")) == 0 and o[m.OBS_DISCARD_DONE] == 1


# ---- render ------------------------------------------------------------------------------------------
def view_of(state, seat):
    view = np.zeros(m.STATE_SIZE, dtype=np.int64)
    m.observe(state, seat, view)
    return view


def test_render_a_hand_built_trick():
    s = play_position({0: ["5-5", "6-6"], 1: ["2-1", "6-5"], 2: ["3-1", "4-1"]}, trump=6, leader=1,
                      bidder=1, bid=5, trick_no=5, tricks=(1, 4, 0), scores=(3, -5, 10))
    s[m.FIRST_BIDDER] = 0
    s[m.SAID:m.SAID + 3] = (0, 5, 0)
    s[m.WIDOW] = m.TILE_BY_NAME["4-4"]
    s[m.DISCARDED] = m.TILE_BY_NAME["1-1"]
    s[m.LAST_TRICK_WINNER] = 1
    play(s, "6-5")
    text = m.render(view_of(s, 2), 2, DEFAULT_PARAMS, 3)
    assert "Your hand (seat 2): 4-1 3-1" in text
    assert "seat 1: 1 tile   seat 0: 2 tiles" not in text and "seat 0: 2 tiles   seat 1: 1 tile" in text
    assert "seat 0 pass, seat 1 bid 5, seat 2 pass" in text
    assert "Contract: seat 1 bid 5 (needs 5 tricks); trump: 6s" in text
    assert "4-4" not in text and "1-1" not in text  # widow and discard stay hidden
    assert "Widow: taken by seat 1, hidden" in text
    assert "trumps led by seat 1" in text and "seat 1 6-5   seat 2 -   seat 0 -" in text
    assert "Tricks this hand: seat 0 1   seat 1 4   seat 2 0" in text
    assert "seat 0 3   seat 1 -5   seat 2 (you) 10" in text
    assert "Phase: play. seat 2 (you) to play a tile." in text
    bidder_text = m.render(view_of(s, 1), 1, DEFAULT_PARAMS, 3)
    assert "Widow: 4-4 (you took it)" in bidder_text and "Discard: 1-1" in bidder_text
    assert "Your hand (seat 1): 2-1" in bidder_text


def test_render_bidding_and_the_end():
    s = fresh(4)
    first = int(s[m.FIRST_BIDDER])
    m.apply(s, DEFAULT_PARAMS, bid_action(4))
    text = m.render(view_of(s, first), first, DEFAULT_PARAMS, 3)
    assert f"seat {first} bid 4, seat {(first + 1) % 3} -" in text
    assert f"Phase: bid. seat {(first + 1) % 3} to bid or pass." in text
    assert "Widow: hidden, face down" in text
    hand = _tiles_high_first(int(s[m.HAND + first]))
    assert hand.split()[0] >= hand.split()[-1]
    assert f"Your hand (seat {first}): {hand}" in text
    s[m.PHASE] = m.PHASE_OVER
    s[m.WINNER] = 2
    assert "Game over: seat 2 wins" in m.render(view_of(s, 0), 0, DEFAULT_PARAMS, 3)


# ---- trace events and step descriptions ----------------------------------------------------------
def test_parse_event_examples():
    assert parse_event(m.EVENT_FIELDS, "play 0 6-4") == {"event": "play", "seat": 0, "tile": "6-4"}
    assert parse_event(m.EVENT_FIELDS, "hand 3 first 2") == {"event": "hand", "hand": 3, "first": 2}
    assert parse_event(m.EVENT_FIELDS, "deal 1 6-6 5-2 1-1") == {"event": "deal", "seat": 1, "tiles": ["6-6", "5-2", "1-1"]}
    assert parse_event(m.EVENT_FIELDS, "score -6 4 0") == {"event": "score", "points_0": -6, "points_1": 4, "points_2": 0}
    assert parse_event(m.EVENT_FIELDS, "trump 1 doubles")["trump"] == "doubles"
    with pytest.raises(ValueError):
        parse_event(m.EVENT_FIELDS, "hand 3 last 2")
    with pytest.raises(ValueError):
        parse_event(m.EVENT_FIELDS, "play 0 6-4 extra")


def test_every_traced_event_parses():
    seen = set()
    for variant in VARIANTS:
        config = RunConfig.build("moon", 3, "greedy,random,bidder", variant, 3)
        for i in range(3):
            for event in build_trace(Batch(config), i)["log"]:
                parsed = parse_event(m.EVENT_FIELDS, event)
                seen.add(parsed["event"])
                if "seat" in parsed:
                    assert parsed["seat"] in (0, 1, 2)
    assert seen == set(m.EVENT_FIELDS)


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_describe_step_across_whole_games(variant):
    p = params(**VARIANTS[variant])
    for seed in range(2):
        s = np.zeros(m.STATE_SIZE, dtype=np.int64)
        m.init(s, p, 3, stream_key(seed, 2, 0))
        rng = np.array([seed, 3, 4], dtype=np.int64)
        text = []
        while not m.is_terminal(s):
            before = s.copy()
            a = m.random_action(s, p, rng, int(s[m.ACTOR]))
            m.apply(s, p, a)
            lines = m.describe_step(before, a, s, p, 3)
            assert lines and all(isinstance(x, str) and x for x in lines)
            text += lines
        joined = "\n".join(text)
        assert "wins it; tricks" in joined
        assert "wins the game" in joined or "truncated" in joined
        if s[m.REDEALS] < s[m.HAND_NO]:
            assert " with " in joined and "totals" in joined


def test_describe_a_completed_trick_and_hand():
    s = play_position({0: ["6-6"], 1: ["2-1"], 2: ["3-1"]}, trump=6, leader=0, bidder=0, bid=4,
                      trick_no=6, tricks=(5, 1, 0))
    play(s, "6-6")
    play(s, "2-1")
    before = s.copy()
    a = m.PLAY_BASE + m.TILE_BY_NAME["3-1"]
    m.apply(s, DEFAULT_PARAMS, a)
    lines = m.describe_step(before, a, s, DEFAULT_PARAMS, 3)
    assert lines[0] == "seat 2 plays 3-1"
    assert lines[1] == "trick 7: 6-6 (seat 0), 2-1 (seat 1), 3-1 (seat 2): seat 0 wins it; tricks 6-1-0"
    assert lines[2].startswith("hand 1: seat 0 made 4 with 6 tricks; points +4 +1 +0; totals 4 1 0")
    assert lines[3].startswith("hand 2 dealt, seat ")
