"""Sequence Stacks: hand-built rule scenarios on the compiled kernel functions."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import simcore.games.sequence_stacks as G
from simcore.options import OptionError

C = G.CARD_CODES
NAMES = G.CARD_NAMES


# ----------------------------------------------------------------------------- helpers
def params(**variant):
    return G.INFO.make_params(G.INFO.resolve_variant(variant))


def hand_of(st, seat):
    return Counter({NAMES[c]: int(st[G.HAND + seat * G.NCARD + c])
                    for c in range(G.NCARD) if st[G.HAND + seat * G.NCARD + c]})


def set_hand(st, seat, cards):
    mask = 0
    for c in range(G.NCARD):
        st[G.HAND + seat * G.NCARD + c] = 0
    for name in cards:
        c = C[name]
        st[G.HAND + seat * G.NCARD + c] += 1
        mask |= 1 << c
    st[G.HAND_N + seat] = len(cards)
    st[G.HAND_MASK + seat] = mask


def slot(name):
    colour, k = name.split(".")
    return G.COLOUR_NAMES.index(colour) * G.MAX_PILES + int(k)


def make_state(players=3, hands=None, piles=None, discards=None, draw=(), completed=(),
               chips=None, supply=None, turn=0, direction=1, **variant):
    """A hand-built position: everything not given is empty."""
    p = params(**variant)
    st = np.zeros(G.STATE_SIZE, np.int64)
    G.init(st, p, players, 12345)
    hands = hands or {}
    for s in range(players):
        set_hand(st, s, hands.get(s, []))
        st[G.DISC_N + s] = 0
        st[G.SKIPS + s] = 0
    for sl in range(2 * G.MAX_PILES):
        st[G.PILE_TOP + sl] = 0
        st[G.PILE_WILD + sl] = 0
    for name, cards in (piles or {}).items():
        sl = slot(name)
        st[G.PILE_TOP + sl] = len(cards)
        st[G.PILE_WILD + sl] = sum(1 << i for i, c in enumerate(cards) if c.endswith("w"))
    for s, cards in (discards or {}).items():
        for i, name in enumerate(cards):
            st[G.DISC + s * G.DISC_CAP + i] = C[name]
        st[G.DISC_N + s] = len(cards)
    for i, name in enumerate(draw):
        st[G.DRAW + i] = C[name]
    st[G.DRAW_POS] = 0
    st[G.DRAW_LEN] = len(draw)
    for c in range(G.NUMBER_TYPES):
        st[G.COMPLETED + c] = 0
    for name in completed:
        st[G.COMPLETED + C[name]] += 1
    st[G.COMPLETED_N] = len(completed)
    for s in range(players):
        r, b = (chips or {}).get(s, (0, 0))
        st[G.CHIPS + 2 * s] = r
        st[G.CHIPS + 2 * s + 1] = b
    if supply is not None:
        st[G.SUPPLY], st[G.SUPPLY + 1] = supply
    st[G.TURN] = turn
    st[G.DIR] = direction
    st[G.TURNS] = 1
    st[G.PLAYS] = 0
    return st, p


def legal(st, p):
    out = np.zeros(G.NUM_ACTIONS, np.int64)
    n = G.legal_actions(st, p, out)
    return [int(a) for a in out[:n]]


def play_action(card, pile, src=0):
    c = C[card]
    return (src * G.NUMBER_TYPES + c) * G.MAX_PILES + int(pile.split(".")[1])


def plays_of(actions):
    """The legal number/wild plays as (source, card, pile) names."""
    out = set()
    for a in actions:
        d = G.decode(a)
        if d[0] == "play":
            _, src, card, k = d
            out.add((G.SOURCE_NAMES[src], NAMES[card],
                     G.pile_name((card // 6) * G.MAX_PILES + k)))
    return out


def step(st, p, action, players=None):
    before = st.copy()
    assert action in legal(st, p), G.action_name(action)
    G.apply(st, p, action)
    return G.trace_step(before, action, st, p, players or int(st[G.PLAYERS]))


def skip_a(src=0):
    return G.A_SKIP + src


def reverse_a(src=0):
    return G.A_REVERSE + src


def discard_a(card):
    return G.A_DISCARD + C[card]


def steal_chip_a(victim, colour, src=0):
    return G.A_STEAL_CHIP + (src * 6 + victim) * 2 + colour


def steal_card_a(victim, src=0):
    return G.A_STEAL_CARD + src * 6 + victim


# ----------------------------------------------------------------------------- info
def test_info_options_follow_the_rules_table():
    names = [o.name for o in G.INFO.options]
    assert names == ["refill_each_turn", "hand_size", "piles_per_colour", "chips_to_win",
                     "min_each_colour", "chip_supply", "round_cap"]
    v = G.INFO.resolve_variant({})
    assert v == {"refill_each_turn": True, "hand_size": 5, "piles_per_colour": 2,
                 "chips_to_win": 5, "min_each_colour": 2, "chip_supply": 20, "round_cap": 500}
    assert G.INFO.name == "sequence-stacks"
    assert (G.INFO.min_players, G.INFO.max_players) == (2, 6)
    with pytest.raises(OptionError):
        G.INFO.resolve_variant({"piles_per_colour": G.MAX_PILES + 1})
    with pytest.raises(OptionError):
        G.INFO.resolve_variant({"hand_size": 0})
    cols = G.INFO.result_columns(3)
    assert cols[:8] == ["score_0", "score_1", "score_2", "win_0", "win_1", "win_2",
                        "truncated", "turns"]
    for kind in ("red", "blue", "completed", "blocked", "blocks", "skip", "reverse",
                 "steal_card", "steal_chip"):
        assert [f"{kind}_{s}" for s in range(3)] == [c for c in cols if c.rsplit("_", 1)[0] == kind]
    assert cols[-1] == "reshuffles"


def test_action_encoding_round_trip():
    names = {G.action_name(a) for a in range(G.NUM_ACTIONS)}
    assert len(names) == G.NUM_ACTIONS
    assert G.decode(play_action("b3", "blue.1", src=1)) == ("play", 1, C["b3"], 1)
    assert G.decode(G.A_END) == ("end",)
    assert G.decode(G.A_BLOCK) == ("block",) and G.decode(G.A_PASS) == ("pass",)
    assert G.decode(steal_chip_a(4, 1, 1)) == ("steal-chip", 1, 4, 1)
    with pytest.raises(ValueError):
        G.decode(G.NUM_ACTIONS)


# ----------------------------------------------------------------------------- deck, deal
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_deck_composition_and_deal(players):
    p = params()
    st = np.zeros(G.STATE_SIZE, np.int64)
    G.init(st, p, players, 99)
    total = Counter()
    for s in range(players):
        h = hand_of(st, s)
        assert sum(h.values()) == 5 == st[G.HAND_N + s]
        total += h
    pile = [NAMES[c] for c in st[G.DRAW + st[G.DRAW_POS]:G.DRAW + st[G.DRAW_LEN]]]
    total += Counter(pile)
    expected = {f"{c}{n}": 9 for c in "rb" for n in range(1, 6)}
    expected.update(rw=7, bw=7)
    if players == 2:
        expected.update({"skip": 2, "steal-card": 2, "block": 2, "steal-chip": 2})
        assert sum(total.values()) == 112
    else:
        expected.update({"skip": 3, "reverse": 3, "steal-card": 3, "block": 3, "steal-chip": 4})
        assert sum(total.values()) == 120
    assert dict(total) == expected
    assert G.current_player(st) == 0 and st[G.DIR] == 1 and st[G.TURNS] == 1


def test_deal_is_seeded():
    p = params()
    a, b, c = (np.zeros(G.STATE_SIZE, np.int64) for _ in range(3))
    G.init(a, p, 4, 1)
    G.init(b, p, 4, 1)
    G.init(c, p, 4, 2)
    assert np.array_equal(a, b)
    assert not np.array_equal(a[G.DRAW:], c[G.DRAW:])


# ----------------------------------------------------------------------------- piles
def test_pile_starts_only_with_one_or_a_wild():
    st, p = make_state(hands={0: ["r1", "r2", "rw", "b3", "skip"]}, draw=["b1"] * 5)
    assert plays_of(legal(st, p)) == {
        ("hand", "r1", "red.0"), ("hand", "r1", "red.1"),
        ("hand", "rw", "red.0"), ("hand", "rw", "red.1")}


def test_next_card_must_follow_in_colour():
    st, p = make_state(hands={0: ["r3", "r4", "b3", "bw"]}, piles={"red.0": ["r1", "r2"],
                                                                 "blue.1": ["b1", "b2"]},
                       discards={0: ["b1", "r3"]})
    assert plays_of(legal(st, p)) == {
        ("hand", "r3", "red.0"), ("discard", "r3", "red.0"), ("hand", "b3", "blue.1"),
        ("hand", "bw", "blue.0"), ("hand", "bw", "blue.1")}


def test_third_pile_of_a_colour_is_refused():
    piles = {"red.0": ["r1", "r2"], "red.1": ["r1"]}
    st, p = make_state(hands={0: ["r1", "rw"]}, piles=piles)
    assert ("hand", "r1", "red.2") not in plays_of(legal(st, p))
    assert plays_of(legal(st, p)) == {("hand", "rw", "red.0"), ("hand", "rw", "red.1")}
    st, p = make_state(hands={0: ["r1", "rw"]}, piles=piles, piles_per_colour=3)
    assert plays_of(legal(st, p)) == {("hand", "r1", "red.2"), ("hand", "rw", "red.0"),
                                      ("hand", "rw", "red.1"), ("hand", "rw", "red.2")}
    st, p = make_state(hands={0: ["r1", "rw"]}, piles={}, piles_per_colour=1)
    assert plays_of(legal(st, p)) == {("hand", "r1", "red.0"), ("hand", "rw", "red.0")}


def test_wild_stands_for_the_next_number_and_completes():
    st, p = make_state(hands={0: ["rw", "rw", "b2", "b3", "b4"]},
                       piles={"red.1": ["r1", "r2", "r3"]}, draw=["b1"] * 10)
    ev = step(st, p, play_action("rw", "red.1"))
    assert ev == ["play 0 rw hand red.1 4"]
    assert st[G.PILE_TOP + slot("red.1")] == 4
    assert st[G.PILE_WILD + slot("red.1")] == 0b1000
    ev = step(st, p, play_action("rw", "red.1"))
    assert ev == ["play 0 rw hand red.1 5", "complete 0 red.1", "chip 0 red"]
    assert st[G.PILE_TOP + slot("red.1")] == 0
    completed = {NAMES[c]: int(st[G.COMPLETED + c]) for c in range(12) if st[G.COMPLETED + c]}
    assert completed == {"r1": 1, "r2": 1, "r3": 1, "rw": 2}
    assert st[G.CHIPS] == 1 and st[G.SUPPLY] == 19
    assert st[G.STATS + G.ST_COMPLETED * G.MAX_PLAYERS] == 1


def test_play_from_own_discard_top_only():
    st, p = make_state(hands={0: ["b4"]}, discards={0: ["r1", "b1"], 1: ["r1"]})
    assert plays_of(legal(st, p)) == {("discard", "b1", "blue.0"), ("discard", "b1", "blue.1")}
    ev = step(st, p, play_action("b1", "blue.0", src=1))
    assert ev == ["play 0 b1 discard blue.0 1"]
    assert st[G.DISC_N] == 1 and plays_of(legal(st, p)) >= {("discard", "r1", "red.0")}


# ----------------------------------------------------------------------------- hand, turn
def test_hand_emptied_mid_turn_draws_hand_size():
    st, p = make_state(hands={0: ["r1"]}, draw=["b1", "b2", "b3", "b4", "b5", "r5", "r4"])
    ev = step(st, p, play_action("r1", "red.0"))
    assert ev == ["play 0 r1 hand red.0 1", "draw 0 b1 b2 b3 b4 b5"]
    assert st[G.HAND_N] == 5 and st[G.DRAW_POS] == 5
    st, p = make_state(hands={0: ["r1"]}, draw=["b1"] * 9, hand_size=3)
    step(st, p, play_action("r1", "red.0"))
    assert st[G.HAND_N] == 3


def test_turn_ends_with_a_discard_and_next_seat_refills():
    st, p = make_state(players=3, hands={0: ["r3", "b4"], 1: ["r2"]}, draw=["b1"] * 20)
    assert legal(st, p) == [discard_a("r3"), discard_a("b4")]
    ev = step(st, p, discard_a("b4"))
    assert ev == ["discard 0 b4", "turn 1", "draw 1 b1 b1 b1 b1"]
    assert st[G.DISC_N] == 1 and G.discard_top(st, 0) == C["b4"]
    assert G.current_player(st) == 1 and st[G.HAND_N + 1] == 5 and st[G.TURNS] == 2


def test_empty_hand_can_end_the_turn_without_discard():
    st, p = make_state(players=2, hands={0: [], 1: []}, discards={0: ["r3"]}, draw=[])
    assert legal(st, p) == [G.A_END]
    ev = step(st, p, G.A_END)
    assert ev == ["turn 1"]
    assert G.current_player(st) == 1 and legal(st, p) == [G.A_END]
    # ending the turn with cards in hand is not allowed
    st, p = make_state(players=2, hands={0: ["r3"]})
    assert G.A_END not in legal(st, p)


def test_refill_each_turn_option():
    hands = {0: ["r3", "b4"], 1: ["r2", "r2"]}
    st, p = make_state(players=2, hands=hands, draw=["b1"] * 20, refill_each_turn=False)
    step(st, p, discard_a("b4"))
    assert st[G.HAND_N + 1] == 2  # no refill
    step(st, p, discard_a("r2"))
    assert st[G.HAND_N] == 1
    # with the option off, a turn that starts with an empty hand draws hand_size
    st, p = make_state(players=2, hands={0: ["r3"], 1: []}, draw=["b1"] * 20,
                       refill_each_turn=False, hand_size=4)
    ev = step(st, p, discard_a("r3"))
    assert ev == ["discard 0 r3", "turn 1", "draw 1 b1 b1 b1 b1"]


def test_hand_size_option_deals_and_refills():
    for hs in (3, 7):
        p = params(hand_size=hs)
        st = np.zeros(G.STATE_SIZE, np.int64)
        G.init(st, p, 4, 5)
        assert [int(st[G.HAND_N + s]) for s in range(4)] == [hs] * 4
        assert st[G.DRAW_POS] == 4 * hs
        log = G.trace_start(st, p, 4)
        assert [len(e.split()) - 2 for e in log[:4]] == [hs] * 4


# ----------------------------------------------------------------------------- block
def test_block_window_order_direction_and_only_holders():
    # 5 players, seat 2 on turn, direction reversed: opponents in turn order 1, 0, 4, 3;
    # seat 1 holds no block and is not asked.
    hands = {0: ["block", "r1"], 1: ["r1"], 2: ["r5", "b1"], 3: ["block"], 4: ["block", "b2"]}
    st, p = make_state(players=5, hands=hands, piles={"red.0": ["r1", "r2", "r3", "r4"]},
                       turn=2, direction=-1)
    ev = step(st, p, play_action("r5", "red.0"))
    assert ev == ["play 2 r5 hand red.0 5", "complete 2 red.0"]
    asked = []
    while st[G.WINDOW] >= 0:
        seat = G.current_player(st)
        asked.append(seat)
        assert seat != st[G.TURN]
        assert legal(st, p) == [G.A_BLOCK, G.A_PASS]
        ev = step(st, p, G.A_PASS)
    assert asked == [0, 4, 3]
    assert ev == ["chip 2 red"]
    assert st[G.CHIPS + 4] == 1 and G.current_player(st) == 2


def test_first_block_cancels_the_completion():
    hands = {0: ["block", "r1"], 1: ["r1"], 2: ["r5"], 3: ["block"], 4: ["block", "b2"]}
    st, p = make_state(players=5, hands=hands, piles={"red.0": ["r1", "r2", "r3", "rw"]},
                       turn=2, direction=-1, draw=["b1"] * 8)
    step(st, p, play_action("r5", "red.0"))
    assert G.current_player(st) == 0
    assert step(st, p, G.A_PASS) == []
    assert G.current_player(st) == 4
    ev = step(st, p, G.A_BLOCK)
    # the completer's hand was emptied by the play: the draw comes after the block
    assert ev == ["block 4", "draw 2 b1 b1 b1 b1 b1"]
    assert st[G.WINDOW] == -1 and G.current_player(st) == 2  # seat 3 is not asked
    assert st[G.CHIPS + 4] == 0 and st[G.SUPPLY] == 20
    assert st[G.PILE_TOP + slot("red.0")] == 0 and st[G.COMPLETED_N] == 5
    assert st[G.COMPLETED + C["rw"]] == 1
    assert st[G.STATS + G.ST_BLOCKED * G.MAX_PLAYERS + 2] == 1
    assert st[G.STATS + G.ST_BLOCKS * G.MAX_PLAYERS + 4] == 1
    assert st[G.SPECIAL + C["block"] - 12] == 1 and hand_of(st, 4) == Counter(b2=1)
    assert hand_of(st, 3) == Counter(block=1)


def test_no_window_without_block_holders_and_block_not_playable_in_turn():
    st, p = make_state(players=3, hands={0: ["r5", "block"], 1: ["r1"], 2: []},
                       piles={"red.0": ["r1", "r2", "r3", "r4"]})
    assert all(G.decode(a)[0] in ("play", "discard") for a in legal(st, p))
    ev = step(st, p, play_action("r5", "red.0"))
    assert ev == ["play 0 r5 hand red.0 5", "complete 0 red.0", "chip 0 red"]
    assert st[G.WINDOW] == -1 and G.current_player(st) == 0


def test_random_bot_receives_the_block_decision():
    from bots.registry import parse_bots
    from runtime.runner import choose

    hands = {0: ["r5"], 1: ["block"]}
    st, p = make_state(players=2, hands=hands, piles={"red.0": ["r1", "r2", "r3", "r4"]})
    G.apply(st, p, play_action("r5", "red.0"))
    assert G.current_player(st) == 1
    rng = np.array([7, 8], np.int64)
    rng2 = rng.copy()
    seen = set()
    imem = np.zeros((2, 1), np.int64)
    fmem = np.zeros((2, 1), np.float64)
    bots = parse_bots(G, "random", 2)
    for _ in range(40):
        a = G.random_action(st, p, rng, 1)
        assert choose("sequence-stacks", bots, st, p, rng2, 1, imem, fmem) == a
        seen.add(a)
    assert seen == {G.A_BLOCK, G.A_PASS}


def test_completion_with_empty_supply_gives_no_chip():
    st, p = make_state(players=2, hands={0: ["r5", "r5"]}, piles={"red.0": ["r1", "r2", "r3", "r4"]},
                       supply=(0, 3))
    ev = step(st, p, play_action("r5", "red.0"))
    assert ev == ["play 0 r5 hand red.0 5", "complete 0 red.0"]
    assert st[G.CHIPS] == 0 and st[G.STATS + G.ST_COMPLETED * G.MAX_PLAYERS] == 1


def test_chip_supply_option():
    st, p = make_state(players=2, hands={0: ["r5", "r1"]}, chip_supply=1)
    assert st[G.SUPPLY] == 1  # from init via the option
    p2 = params(chip_supply=7)
    s2 = np.zeros(G.STATE_SIZE, np.int64)
    G.init(s2, p2, 3, 1)
    assert s2[G.SUPPLY] == 7 and s2[G.SUPPLY + 1] == 7


# ----------------------------------------------------------------------------- actions
def test_skip_and_reverse_turn_order_with_four_players():
    draw = ["b1"] * 40
    # skip: the next seat (1) loses its turn
    st, p = make_state(players=4, hands={0: ["skip", "r3"]}, draw=draw)
    assert step(st, p, skip_a()) == ["skip 0 hand"]
    assert step(st, p, discard_a("r3")) == ["discard 0 r3", "skipped 1", "turn 2",
                                            "draw 2 b1 b1 b1 b1 b1"]
    assert st[G.SKIPS + 1] == 0 and st[G.STATS + G.ST_SKIP * G.MAX_PLAYERS] == 1
    # reverse: play goes 0 -> 3 -> 2
    st, p = make_state(players=4, hands={0: ["reverse", "r3"], 3: ["b2"] * 5}, draw=draw)
    step(st, p, reverse_a())
    assert step(st, p, discard_a("r3"))[:2] == ["discard 0 r3", "turn 3"]
    step(st, p, discard_a("b2"))
    assert G.current_player(st) == 2 and st[G.DIR] == -1
    # reverse then skip: the skip hits the new next seat (3)
    st, p = make_state(players=4, hands={0: ["reverse", "skip", "r3"]}, draw=draw)
    step(st, p, reverse_a())
    step(st, p, skip_a())
    assert step(st, p, discard_a("r3"))[:3] == ["discard 0 r3", "skipped 3", "turn 2"]
    # skip then reverse: seat 1 still loses its next turn, whenever it comes
    st, p = make_state(players=3, hands={0: ["skip", "reverse", "r3"], 2: ["b3"] * 5},
                       draw=draw)
    step(st, p, skip_a())
    step(st, p, reverse_a())
    assert step(st, p, discard_a("r3"))[:2] == ["discard 0 r3", "turn 2"]
    assert step(st, p, discard_a("b3"))[:3] == ["discard 2 b3", "skipped 1", "turn 0"]


def test_skip_with_two_players_replays_the_skipper():
    st, p = make_state(players=2, hands={0: ["skip", "r3"]}, discards={0: ["skip"]},
                       draw=["b1"] * 20)
    assert skip_a(0) in legal(st, p) and skip_a(1) in legal(st, p)
    step(st, p, skip_a(1))
    step(st, p, skip_a(0))
    assert step(st, p, discard_a("r3"))[:3] == ["discard 0 r3", "skipped 1", "turn 0"]
    assert step(st, p, discard_a(NAMES[int(np.flatnonzero(st[G.HAND:G.HAND + 17])[0])]))[1:3] \
        == ["skipped 1", "turn 0"]
    assert st[G.SPECIAL] == 2


def test_action_card_from_discard_top():
    st, p = make_state(players=3, hands={0: ["r2"]}, discards={0: ["r1", "reverse"]})
    assert reverse_a(1) in legal(st, p) and reverse_a(0) not in legal(st, p)
    assert step(st, p, reverse_a(1)) == ["reverse 0 discard"]
    assert st[G.DIR] == -1 and st[G.DISC_N] == 1


def test_steal_card_takes_the_top_of_an_opponents_discard():
    st, p = make_state(players=3, hands={0: ["steal-card", "r2"]},
                       discards={1: ["b1", "rw"], 2: []})
    acts = legal(st, p)
    assert steal_card_a(1) in acts and steal_card_a(2) not in acts and steal_card_a(0) not in acts
    assert step(st, p, steal_card_a(1)) == ["steal-card 0 hand 1 rw"]
    assert hand_of(st, 0) == Counter(r2=1, rw=1)
    assert st[G.DISC_N + 1] == 1 and st[G.STATS + G.ST_STEAL_CARD * G.MAX_PLAYERS] == 1


def test_steal_card_as_the_last_card_does_not_empty_the_hand():
    st, p = make_state(players=2, hands={0: ["steal-card"]}, discards={1: ["b2"]},
                       draw=["r1"] * 10)
    assert step(st, p, steal_card_a(1)) == ["steal-card 0 hand 1 b2"]
    assert hand_of(st, 0) == Counter(b2=1) and st[G.DRAW_POS] == 0
    # other action cards played as the last card do empty it: draw hand_size
    st, p = make_state(players=2, hands={0: ["skip"]}, draw=["r1"] * 10)
    assert step(st, p, skip_a()) == ["skip 0 hand", "draw 0 r1 r1 r1 r1 r1"]
    st, p = make_state(players=2, hands={0: ["steal-chip"]}, chips={1: (0, 1)}, draw=["r2"] * 10)
    assert step(st, p, steal_chip_a(1, 1)) == ["steal-chip 0 hand 1 blue", "draw 0 r2 r2 r2 r2 r2"]
    assert st[G.CHIPS + 1] == 1 and st[G.CHIPS + 3] == 0


def test_steal_chip_may_not_make_the_stealer_win():
    chips = {0: (2, 2), 1: (1, 1), 2: (0, 3)}
    st, p = make_state(players=3, hands={0: ["steal-chip", "r1"]}, chips=chips)
    assert [a for a in legal(st, p) if G.decode(a)[0] == "steal-chip"] == []
    chips = {0: (3, 1), 1: (1, 1), 2: (0, 3)}
    st, p = make_state(players=3, hands={0: ["steal-chip", "r1"]}, chips=chips)
    got = [G.decode(a)[1:] for a in legal(st, p) if G.decode(a)[0] == "steal-chip"]
    assert got == [(0, 1, 0)]  # only seat 1's red: any blue would be the 5th with 2 blue
    assert step(st, p, steal_chip_a(1, 0)) == ["steal-chip 0 hand 1 red"]
    assert st[G.CHIPS] == 4 and st[G.CHIPS + 2] == 0 and st[G.OVER] == 0
    # chips_to_win / min_each_colour change what counts as a win
    st, p = make_state(players=3, hands={0: ["steal-chip", "r1"]}, chips={0: (3, 1), 1: (1, 1)},
                       min_each_colour=0, chips_to_win=6)
    assert len([a for a in legal(st, p) if G.decode(a)[0] == "steal-chip"]) == 2


def test_lopsided_five_chips_has_not_won():
    st, p = make_state(players=2, hands={0: ["r5", "r1"]}, chips={0: (4, 0)},
                       piles={"red.0": ["r1", "r2", "r3", "r4"]})
    step(st, p, play_action("r5", "red.0"))
    assert st[G.CHIPS] == 5 and not G.is_terminal(st) and G.current_player(st) == 0
    # with min_each_colour 0 the same chips win at once, and the game ends
    st, p = make_state(players=2, hands={0: ["r5", "r1"]}, chips={0: (4, 0)},
                       piles={"red.0": ["r1", "r2", "r3", "r4"]}, min_each_colour=0)
    step(st, p, play_action("r5", "red.0"))
    assert G.is_terminal(st) and G.current_player(st) == -1 and st[G.WINNER] == 0


def test_win_by_completion_chip_and_summary_row():
    st, p = make_state(players=3, hands={0: ["b5", "r1"]}, chips={0: (2, 2), 1: (0, 1)},
                       piles={"blue.1": ["b1", "bw", "b3", "b4"]})
    step(st, p, play_action("b5", "blue.1"))
    assert G.is_terminal(st) and st[G.WINNER] == 0
    row = np.zeros(len(G.INFO.result_columns(3)), np.int64)
    G.summarize(st, p, 3, row)
    vals = dict(zip(G.INFO.result_columns(3), row.tolist()))
    assert vals["score_0"] == 5 and vals["score_1"] == 1 and vals["win_0"] == 1
    assert vals["win_1"] == 0 and vals["truncated"] == 0
    assert vals["red_0"] == 2 and vals["blue_0"] == 3 and vals["completed_0"] == 1


def test_chips_to_win_option():
    st, p = make_state(players=2, hands={0: ["r5", "r1"]}, chips={0: (1, 1)},
                       piles={"red.0": ["r1", "r2", "r3", "r4"]}, chips_to_win=3, min_each_colour=1)
    step(st, p, play_action("r5", "red.0"))
    assert G.is_terminal(st) and st[G.WINNER] == 0


# ----------------------------------------------------------------------------- draw pile
def test_reshuffle_completed_stack_when_drawing_from_an_empty_pile():
    completed = ["r1", "r2", "r3", "r4", "rw", "b1", "b2"]
    st, p = make_state(players=2, hands={0: ["r1"]}, draw=["b5", "b4"], completed=completed)
    ev = step(st, p, play_action("r1", "red.0"))
    assert ev[0] == "play 0 r1 hand red.0 1"
    assert ev[1] == "draw 0 b5 b4"
    assert ev[2].startswith("reshuffle ")
    reshuffled = ev[2].split()[1:]
    assert Counter(reshuffled) == Counter(completed)
    assert ev[3] == "draw 0 " + " ".join(reshuffled[:3])
    assert st[G.RESHUFFLES] == 1 and st[G.COMPLETED_N] == 0 and st[G.HAND_N] == 5
    assert st[G.DRAW_LEN] - st[G.DRAW_POS] == 4


def test_draws_stop_when_nothing_is_left():
    st, p = make_state(players=2, hands={0: ["r1"], 1: []}, draw=["b5"])
    ev = step(st, p, play_action("r1", "red.0"))
    assert ev == ["play 0 r1 hand red.0 1", "draw 0 b5"]
    st, p = make_state(players=2, hands={0: ["r1"], 1: []}, draw=[])
    assert step(st, p, play_action("r1", "red.0")) == ["play 0 r1 hand red.0 1"]
    assert legal(st, p) == [G.A_END] and st[G.RESHUFFLES] == 0


# ----------------------------------------------------------------------------- safeguards
def test_round_cap_truncates():
    st, p = make_state(players=2, hands={0: ["r1"], 1: ["r2"]}, round_cap=2)
    st[G.TURNS] = 3
    step(st, p, discard_a("r1"))
    assert not G.is_terminal(st) and st[G.TURNS] == 4
    assert step(st, p, discard_a("r2")) == ["discard 1 r2"]
    assert G.is_terminal(st) and st[G.TRUNCATED] == 1 and st[G.WINNER] == -1


def test_turn_play_cap_leaves_only_the_end_of_turn():
    st, p = make_state(players=2, hands={0: ["r1", "skip"]})
    st[G.PLAYS] = G.TURN_PLAY_CAP
    assert legal(st, p) == [discard_a("r1"), discard_a("skip")]


# ----------------------------------------------------------------------------- information
def test_observe_hides_other_hands_and_the_draw_pile():
    p = params()
    st = np.zeros(G.STATE_SIZE, np.int64)
    G.init(st, p, 4, 3)
    view = np.zeros_like(st)
    G.observe(st, 1, view)
    assert np.array_equal(view[G.HAND + 17:G.HAND + 34], st[G.HAND + 17:G.HAND + 34])
    for s in (0, 2, 3):
        assert (view[G.HAND + s * 17:G.HAND + (s + 1) * 17] == G.HIDDEN).all()
        assert view[G.HAND_N + s] == st[G.HAND_N + s]
    assert (view[G.DRAW:G.DRAW + G.DECK_MAX] == G.HIDDEN).all()
    assert view[G.RNG] == G.HIDDEN
    public = list(range(0, G.RNG)) + list(range(G.SUPPLY, G.HAND_MASK)) + list(range(G.DISC_N, G.HAND))
    assert np.array_equal(view[public], st[public])


def test_determinize_samples_a_consistent_state():
    p = params()
    st = np.zeros(G.STATE_SIZE, np.int64)
    G.init(st, p, 3, 8)
    rng = np.array([1, 2, 3], np.int64)
    # play a while so that discards, piles and the completed stack are filled
    for _ in range(120):
        G.apply(st, p, G.random_action(st, p, rng, G.current_player(st)))
        if st[G.COMPLETED_N] and st[G.WINDOW] < 0 and st[G.DISC_N + 2]:
            break
    assert not G.is_terminal(st) and st[G.COMPLETED_N] > 0
    view = np.zeros_like(st)
    out = np.zeros_like(st)
    G.observe(st, 0, view)
    samples = set()
    for k in range(5):
        G.determinize(view, p, 0, rng, 1, out)
        assert np.array_equal(out[G.HAND:G.HAND + 17], st[G.HAND:G.HAND + 17])
        for s in range(3):
            assert out[G.HAND + s * 17:G.HAND + (s + 1) * 17].sum() == st[G.HAND_N + s]
            mask = sum(1 << c for c in range(17) if out[G.HAND + s * 17 + c])
            assert out[G.HAND_MASK + s] == mask
        hidden = Counter()
        for s in (1, 2):
            hidden += hand_of(out, s)
        hidden += Counter(NAMES[c] for c in out[G.DRAW + out[G.DRAW_POS]:G.DRAW + out[G.DRAW_LEN]])
        truth = Counter()
        for s in (1, 2):
            truth += hand_of(st, s)
        truth += Counter(NAMES[c] for c in st[G.DRAW + st[G.DRAW_POS]:G.DRAW + st[G.DRAW_LEN]])
        assert hidden == truth
        samples.add(out[G.HAND + 17:G.HAND + 51].tobytes())
        # the sampled state is playable
        a = G.random_action(out, p, rng, 0)
        assert a in legal(out, p)
    assert len(samples) > 1
