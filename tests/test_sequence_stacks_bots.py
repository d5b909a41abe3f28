"""Sequence Stacks greedy bot: each heuristic in a hand-built position, legality, what it
reads, determinism, no truncated games between greedy bots, and strength against random."""
from __future__ import annotations

import numpy as np
import pytest

import simcore.games.sequence_stacks as G
from bots import sequence_stacks as B
from bots.registry import BotError, bot_arrays, parse_bots
from experiments.stats import wilson_interval
from simcore.rng import stream_key
from runtime.runner import Batch, RunConfig

from bot_helpers import policy_on
from test_sequence_stacks import legal, make_state, play_action, slot

# per-seat working memory, as the runner passes it (the greedy bot keeps none)
IMEM = np.zeros((G.MAX_PLAYERS, 1), dtype=np.int64)
FMEM = np.zeros((G.MAX_PLAYERS, 1), dtype=np.float64)


def decide(st, p, spec="greedy"):
    """The greedy action of the seat to move (the state is not changed)."""
    players = int(st[G.PLAYERS])
    bots = parse_bots(G, spec, players)
    seat = int(G.current_player(st))
    rng = np.arange(1, players + 1, dtype=np.int64)
    before = st.copy()
    a = policy_on("sequence-stacks", bots, st, p, seat, rng, IMEM[:players], FMEM[:players])
    assert np.array_equal(st, before)
    assert a in legal(st, p), G.action_name(a)
    return a


def name(a):
    return G.action_name(a)


def play_out_turn(st, p, spec="greedy", limit=50):
    """Apply the greedy choices of the seat on turn until its turn ends (or a window
    opens); return the action names."""
    seat = int(st[G.TURN])
    out = []
    for _ in range(limit):
        if G.is_terminal(st) or G.current_player(st) != seat or st[G.TURN] != seat:
            break
        a = decide(st, p, spec)
        out.append(name(a))
        G.apply(st, p, a)
        if a >= G.A_DISCARD:
            break
    return out


# ----------------------------------------------------------------------------- parameters
def test_greedy_is_listed_with_its_parameters():
    spec = B.GREEDY_SPEC
    assert [q.name for q in spec.params] == ["block_threshold", "wild_reserve", "leave_four_from"]
    bots = parse_bots(G, "greedy:block_threshold=4:wild_reserve=2", 2)
    assert bots[0].values == (4.0, 2.0, 3.0)
    with pytest.raises(BotError, match="must be in"):
        parse_bots(G, "greedy:wild_reserve=9", 2)
    with pytest.raises(BotError, match="unknown parameter"):
        parse_bots(G, "greedy:aggression=1", 2)


# ----------------------------------------------------------------------------- plays
def test_completes_a_sequence_first():
    st, p = make_state(players=2, hands={0: ["b1", "r2", "skip", "r5", "b2"]},
                       piles={"red.1": ["r1", "r2", "r3", "r4"]}, draw=["b3"] * 10)
    assert name(decide(st, p)) == "play r5 from hand on red.1"


def test_natural_five_before_a_wild_and_discard_top_before_hand():
    st, p = make_state(players=2, hands={0: ["rw", "r5", "b3"]}, discards={0: ["b4", "r5"]},
                       piles={"red.0": ["r1", "r2", "r3", "r4"]}, draw=["b3"] * 10)
    assert name(decide(st, p)) == "play r5 from discard on red.0"


@pytest.mark.parametrize("chips, first", [((2, 0), "b5"), ((0, 2), "r5"), ((2, 2), "r5")])
def test_prefers_the_colour_it_still_needs(chips, first):
    st, p = make_state(players=2, hands={0: ["b5", "r5", "b2"]}, chips={0: chips},
                       piles={"red.0": ["r1", "r2", "r3", "r4"], "blue.1": ["b1", "b2", "b3", "b4"]},
                       draw=["b3"] * 10)
    assert name(decide(st, p)).startswith(f"play {first} ")


def test_prefers_the_needed_colour_among_chains():
    piles = {"red.0": ["r1", "r2"], "blue.0": ["b1", "b2"]}
    hand = ["r3", "r4", "r5", "b3", "b4"]
    st, p = make_state(players=2, hands={0: hand + ["b5"]}, chips={0: (2, 0)}, piles=piles,
                       draw=["skip"] * 10)
    assert name(decide(st, p)) == "play b3 from hand on blue.0"
    st, p = make_state(players=2, hands={0: hand + ["b5"]}, chips={0: (0, 2)}, piles=piles,
                       draw=["skip"] * 10)
    assert name(decide(st, p)) == "play r3 from hand on red.0"


def test_keeps_a_wild_that_does_not_complete():
    st, p = make_state(players=2, hands={0: ["rw", "b4", "block"]}, piles={"red.0": ["r1", "r2"]},
                       draw=["b3"] * 10)
    assert name(decide(st, p)) == "discard b4"  # the wild stays in hand
    # with a lower reserve the wild goes on a pile that high
    assert name(decide(st, p, "greedy:wild_reserve=2")) == "play rw from hand on red.0"
    # on a pile at 4 the wild completes
    st, p = make_state(players=2, hands={0: ["rw", "b4", "block"]},
                       piles={"red.0": ["r1", "r2", "r3", "r4"]}, draw=["b3"] * 10)
    assert name(decide(st, p)) == "play rw from hand on red.0"


def test_wild_fills_the_gap_of_a_chain_it_finishes():
    st, p = make_state(players=2, hands={0: ["r5", "rw", "r3", "b4", "block"]},
                       piles={"red.0": ["r1", "r2"]}, draw=["b3"] * 10)
    assert play_out_turn(st, p) == ["play r3 from hand on red.0", "play rw from hand on red.0",
                                    "play r5 from hand on red.0", "discard b4"]
    assert st[G.CHIPS] == 1


def test_holds_back_a_fourth_card_it_cannot_finish_with_two_players():
    hands = {0: ["r4", "r1", "block", "b3"]}
    piles = {"red.0": ["r1", "r2", "r3"]}
    st, p = make_state(players=2, hands=hands, piles=piles, draw=["b3"] * 10)
    assert play_out_turn(st, p) == ["play r1 from hand on red.1", "discard b3"]
    assert st[G.PILE_TOP + slot("red.0")] == 3
    # three players: every fitting card is played (leave_four_from=3)
    st, p = make_state(players=3, hands=hands, piles=piles, draw=["b3"] * 10)
    assert "play r4 from hand on red.0" in play_out_turn(st, p)
    st, p = make_state(players=3, hands=hands, piles=piles, draw=["b3"] * 10)
    assert "play r4 from hand on red.0" not in play_out_turn(st, p, "greedy:leave_four_from=4")


# ----------------------------------------------------------------------------- block
def window(players, completer_chips, blocker=1, supply=None, completer_card="r5"):
    """Seat 0 completes red.0 (or blue.0); ``blocker`` holds a block and is asked."""
    hands = {0: [completer_card, "b2"], blocker: ["block", "b1"]}
    colour = "red" if completer_card[0] == "r" else "blue"
    piles = {f"{colour}.0": [completer_card[0] + str(i) for i in range(1, 5)]}
    st, p = make_state(players=players, hands=hands, piles=piles, chips={0: completer_chips},
                       supply=supply, draw=["b3"] * 10)
    G.apply(st, p, play_action(completer_card, f"{colour}.0"))
    assert G.current_player(st) == blocker and st[G.WINDOW] == blocker
    return st, p


def test_blocks_a_winning_completion():
    st, p = window(2, (1, 3))
    assert decide(st, p) == G.A_BLOCK
    assert decide(st, p, "greedy:block_threshold=40") == G.A_BLOCK  # always, whatever the threshold


def test_passes_on_a_harmless_completion():
    # below the threshold: 1 red, 0 blue -> 2 red
    st, p = window(3, (1, 0))
    assert decide(st, p, "greedy:block_threshold=3") == G.A_PASS
    assert decide(st, p, "greedy:block_threshold=2") == G.A_BLOCK
    # a fifth red chip brings 5 red / 0 blue no closer to winning
    st, p = window(2, (4, 0))
    assert decide(st, p) == G.A_PASS
    # the red supply is empty: the completion earns nothing
    st, p = window(2, (1, 3), supply=(0, 20))
    assert decide(st, p) == G.A_PASS


# ----------------------------------------------------------------------------- action cards
def test_steal_chip_targets_the_leader():
    hands = {0: ["steal-chip", "b4", "block"]}
    st, p = make_state(players=4, hands=hands, chips={1: (1, 0), 2: (2, 1), 3: (0, 2)},
                       draw=["b3"] * 10)
    d = G.decode(decide(st, p))
    assert d[0] == "steal-chip" and d[2] == 2  # seat 2 is two chips from winning
    # the colour it still needs: 3 red held, so blue
    st, p = make_state(players=4, hands=hands, chips={0: (3, 0), 1: (1, 0), 2: (2, 1), 3: (0, 2)},
                       draw=["b3"] * 10)
    assert G.decode(decide(st, p)) == ("steal-chip", 0, 2, 1)


def test_holds_steal_chip_when_no_steal_helps():
    # only a red chip to take: a fifth red brings 4 red / 0 blue no closer to winning, and
    # the opponent's 4 red / 0 blue is no further from it with one red fewer
    st, p = make_state(players=2, hands={0: ["steal-chip", "b4", "block"]},
                       chips={0: (4, 0), 1: (4, 0)}, draw=["b3"] * 10)
    assert name(decide(st, p)) == "discard b4"


def test_skip_against_the_leader():
    hands = {0: ["skip", "b4", "block"]}
    st, p = make_state(players=3, hands=hands, chips={1: (2, 1), 2: (1, 0)}, draw=["b3"] * 10)
    assert name(decide(st, p)) == "skip from hand"  # seat 1 plays next and leads
    st, p = make_state(players=3, hands=hands, chips={1: (1, 0), 2: (2, 1)}, draw=["b3"] * 10)
    assert name(decide(st, p)) == "discard b4"  # seat 2 leads: keep the skip
    # two players: a skip is an extra turn
    st, p = make_state(players=2, hands=hands, draw=["b3"] * 10)
    assert name(decide(st, p)) == "skip from hand"


def test_reverse_then_skip_reaches_the_leader():
    st, p = make_state(players=4, hands={0: ["skip", "reverse", "b4", "block"]},
                       chips={1: (1, 0), 3: (2, 1)}, draw=["b3"] * 10)
    assert play_out_turn(st, p) == ["reverse from hand", "skip from hand", "discard b4"]
    assert st[G.DIR] == -1 and st[G.TURN] == 2  # seat 3, the leader, lost its turn


def test_steals_a_useful_discard():
    piles = {"red.0": ["r1", "r2", "r3", "r4"]}
    hand = ["steal-card", "b5", "block"]
    discards = {1: ["r5"], 2: ["b4"]}
    st, p = make_state(players=3, hands={0: hand}, piles=piles, discards=discards, draw=["b3"] * 10)
    assert play_out_turn(st, p)[:2] == [
        "steal-card from hand: top of seat 1's discard pile", "play r5 from hand on red.0"]
    # nothing worth taking: keep the steal-card
    st, p = make_state(players=3, hands={0: hand}, discards={1: ["b4"], 2: ["r4"]},
                       draw=["b3"] * 10)
    assert name(decide(st, p)) == "discard b5"


def test_discards_the_card_it_is_least_likely_to_need():
    # red.0 waits for a 4, blue is empty: b5 is four cards from playable
    st, p = make_state(players=2, hands={0: ["b5", "r4", "bw", "block", "r5"]},
                       piles={"red.0": ["r1", "r2"]}, draw=["b3"] * 10)
    assert name(decide(st, p)) == "discard b5"
    # of two cards equally far from a pile, a second copy goes first
    st, p = make_state(players=2, hands={0: ["b3", "b3", "r3", "block", "rw"]},
                       piles={"red.0": ["r1"], "blue.0": ["b1"]}, draw=["b3"] * 10)
    assert name(decide(st, p)) == "discard b3"


def test_plays_from_its_discard_top_and_ends_with_an_empty_hand():
    st, p = make_state(players=2, hands={0: ["r2"]}, discards={0: ["b4", "r1"]}, draw=[])
    assert play_out_turn(st, p) == ["play r1 from discard on red.0", "play r2 from hand on red.0",
                                    "end the turn (empty hand)"]


# ----------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_choice_is_legal_and_reads_only_its_own_view(players):
    """Greedy games stepped one decision at a time: every action is legal, and the same
    after the other hands and the draw pile are shuffled among themselves."""
    p = G.INFO.make_params(G.INFO.resolve_variant({}))
    bots = parse_bots(G, "greedy", players)
    st = np.zeros(G.STATE_SIZE, np.int64)
    out = np.zeros(G.NUM_ACTIONS, np.int64)
    mix = np.random.default_rng(players)
    checked = 0
    for g in range(8):
        G.init(st, p, players, stream_key(11, g, 0))
        rng = np.arange(players, dtype=np.int64)
        while not G.is_terminal(st):
            seat = int(G.current_player(st))
            a = policy_on("sequence-stacks", bots, st, p, seat, rng, IMEM[:players], FMEM[:players])
            assert a in out[:G.legal_actions(st, p, out)]
            if checked % 3 == 0:
                # hide what the seat may not see: scramble the others' hands and the draw pile
                other = st.copy()
                unseen = [c for s in range(players) if s != seat
                          for c in range(G.NCARD) for _ in range(st[G.HAND + s * G.NCARD + c])]
                unseen += list(st[G.DRAW + st[G.DRAW_POS]:G.DRAW + st[G.DRAW_LEN]])
                mix.shuffle(unseen)
                i = 0
                for s in range(players):
                    if s == seat:
                        continue
                    other[G.HAND + s * G.NCARD:G.HAND + (s + 1) * G.NCARD] = 0
                    other[G.HAND_MASK + s] = 0
                    for _ in range(st[G.HAND_N + s]):
                        other[G.HAND + s * G.NCARD + unseen[i]] += 1
                        other[G.HAND_MASK + s] |= 1 << int(unseen[i])
                        i += 1
                other[G.DRAW + st[G.DRAW_POS]:G.DRAW + st[G.DRAW_LEN]] = unseen[i:]
                other[G.RNG] = 12345
                assert policy_on("sequence-stacks", bots, other, p, seat, rng.copy(), IMEM[:players],
                                 FMEM[:players]) == a
            checked += 1
            G.apply(st, p, a)
        assert st[G.TRUNCATED] == 0
    assert checked > 100


def test_deterministic_for_a_seed():
    config = RunConfig.build("sequence-stacks", 3, "greedy,random,greedy", {}, 9)
    a = Batch(config).run(0, 40)
    b = Batch(config).run(0, 40)
    assert np.array_equal(a, b)
    assert np.array_equal(Batch(config).run(10, 5), a[10:15])
    c = Batch(RunConfig.build("sequence-stacks", 3, "greedy,random,greedy", {}, 10)).run(0, 40)
    assert not np.array_equal(a[:, 2:], c[:, 2:])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_greedy_games_are_never_truncated(players):
    config = RunConfig.build("sequence-stacks", players, "greedy", {}, 100 + players)
    rows = Batch(config).run(0, 40)
    cols = config.columns()
    assert rows[:, cols.index("truncated")].sum() == 0
    assert rows[:, [cols.index(f"win_{s}") for s in range(players)]].sum() == 40


@pytest.mark.parametrize("seat", [0, 1])
def test_greedy_beats_random_in_both_seats(seat):
    specs = ["random", "random"]
    specs[seat] = "greedy"
    config = RunConfig.build("sequence-stacks", 2, specs, {}, 30 + seat)
    rows = Batch(config).run(0, 300)
    cols = config.columns()
    decided = rows[rows[:, cols.index("truncated")] == 0]
    lo, _ = wilson_interval(decided[:, cols.index(f"win_{seat}")].sum(), len(decided))
    assert lo >= 0.60
