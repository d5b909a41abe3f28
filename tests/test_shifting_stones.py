"""Shifting Stones kernel: hand-built scenarios for every rule and option, and invariants.

States are built by hand (``build``) and driven through the compiled protocol functions;
every action is checked against ``legal_actions`` before it is applied.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.games import shifting_stones as g
from simcore.games.shifting_stones_deck import load_deck
from simcore.protocol import HIDDEN
from simcore.replay.shifting_stones import matches as replay_matches

DECK = load_deck()
POINTS = {c.id: c.points for c in DECK}
ROWS = {c.id: c.rows for c in DECK}
KIND = {ch: i >> 1 for i, ch in enumerate("SMFBHOET")}


def make_params(**variant):
    return g.INFO.make_params(g.INFO.resolve_variant(variant))


PARAMS = make_params()


# ---- helpers ------------------------------------------------------------------------------
def ids_of(lo, hi):
    lo, hi = int(lo), int(hi)
    return sorted([c + 1 for c in range(36) if lo >> c & 1] + [c + 37 for c in range(36) if hi >> c & 1])


def hand(state, s):
    return ids_of(state[g.HAND_LO + s], state[g.HAND_HI + s])


def discard(state):
    return ids_of(state[g.DISCARD_LO], state[g.DISCARD_HI])


def pile(state):
    return [int(c) + 1 for c in state[g.DECK + state[g.DRAW_TOP]:g.DECK + state[g.DRAW_END]]]


def scored(state, s):
    return [c + 1 for c in range(72) if state[g.SCORED_BY + c] == s]


def masks(ids):
    lo = hi = 0
    for i in ids:
        c = i - 1
        if c < 36:
            lo |= 1 << c
        else:
            hi |= 1 << (c - 36)
    return lo, hi


def new_state(players, params=PARAMS, key=1):
    state = np.zeros(g.STATE_SIZE, dtype=np.int64)
    g.init(state, params, players, key)
    return state


def build(players, grid, hands, pile_ids=None, discard_ids=(), scored_ids=None, params=PARAMS, cur=0):
    """A game at the start of seat ``cur``'s turn: grid letters, hands, draw pile (top first;
    default: every other card in id order), discard pile and scored cards per seat."""
    state = new_state(players, params)
    state[g.GRID] = g.grid_code(grid)
    scored_ids = scored_ids or [[] for _ in range(players)]
    used = set(discard_ids) | {c for h in hands for c in h} | {c for sc in scored_ids for c in sc}
    if pile_ids is None:
        pile_ids = [c for c in range(1, 73) if c not in used]
    for s in range(g.MAX_PLAYERS):
        ids = hands[s] if s < len(hands) else []
        state[g.HAND_LO + s], state[g.HAND_HI + s] = masks(ids)
        state[g.HAND_N + s] = len(ids)
        sc = scored_ids[s] if s < len(scored_ids) else []
        state[g.CARDS + s] = len(sc)
        state[g.POINTS + s] = sum(POINTS[c] for c in sc)
        state[g.ONES + s] = sum(POINTS[c] == 1 for c in sc)
        for c in sc:
            state[g.SCORED_BY + c - 1] = s
            state[g.SCORED_ROUND + c - 1] = 0
    state[g.SCORED_TOTAL] = sum(len(sc) for sc in scored_ids)
    state[g.DECK:g.DECK + 72] = -1
    state[g.DECK:g.DECK + len(pile_ids)] = [c - 1 for c in pile_ids]
    state[g.DRAW_TOP] = 0
    state[g.DRAW_END] = len(pile_ids)
    state[g.DISCARD_LO], state[g.DISCARD_HI] = masks(discard_ids)
    state[g.DISCARD_N] = len(discard_ids)
    game = used | set(pile_ids)
    state[g.GAME_LO], state[g.GAME_HI] = masks(game)
    state[g.NCARDS] = len(game)
    state[g.CUR] = cur
    return state


def legal(state, params=PARAMS):
    out = np.zeros(g.NUM_ACTIONS, dtype=np.int64)
    n = g.legal_actions(state, params, out)
    return [int(a) for a in out[:n]]


def act(state, *actions, params=PARAMS):
    for a in actions:
        assert a in legal(state, params), f"{g.action_name(a)} is not legal"
        g.apply(state, params, a)


def discard_for(card):
    return g.DISCARD_BASE + card - 1


def SHIFT(a, b, card):
    return [discard_for(card), g.SHIFT_BASE + g.PAIRS.index((a, b))]


def FLIP(x, card):
    return [discard_for(card), g.FLIP_BASE + x]


def SCORE(card):
    return g.SCORE_BASE + card - 1


def summary(state, params=PARAMS):
    players = int(state[g.PLAYERS])
    cols = g.INFO.result_columns(players)
    row = np.zeros(len(cols), dtype=np.int64)
    g.summarize(state, params, players, row)
    return dict(zip(cols, (int(v) for v in row)))


def kernel_matches(letters, card_id):
    return bool(g.card_matches(PARAMS, g.grid_code(letters), card_id - 1))


# a legal grid none of whose faces appears in the cards used below (filler)
GRID = "SFBHHOETT"


# ---- matching ---------------------------------------------------------------------------------
def test_centre_only_card():
    assert ROWS[1] == ("***", "*B*", "***")
    assert kernel_matches("SFHHBOETT", 1)  # bird in the centre
    for cell in (0, 1, 2, 3, 5, 6, 7, 8):
        letters = list("SFHHFOETT")
        letters[cell] = "B"
        assert not kernel_matches("".join(letters), 1)


def test_one_by_three_card_at_each_row_and_no_wrapping():
    assert ROWS[61] == ("TFO",)
    rows = ["TFO", "HHE", "ESB"]
    for r in range(3):
        others = [x for x in rows[1:]]
        grid_rows = others[:r] + ["TFO"] + others[r:]
        assert kernel_matches("".join(grid_rows), 61)
    assert not kernel_matches("HTF" + "OHE" + "ESB", 61)  # cells 1,2,3 are not a row
    assert ROWS[60] == ("F", "T", "H")  # the 3x1 card in each column
    for c in range(3):
        letters = ["B", "E", "E", "O", "H", "S"][::-1]
        grid = [letters.pop() if cell % 3 != c else "FTH"[cell // 3] for cell in range(9)]
        assert kernel_matches("".join(grid), 60)


def test_two_by_two_diagonal_card_at_each_offset():
    assert ROWS[3] == ("*E", "O*")
    for r in range(2):
        for c in range(2):
            grid = [None] * 9
            grid[r * 3 + c + 1] = "E"
            grid[(r + 1) * 3 + c] = "O"
            filler = iter("SFBHHTT")
            letters = "".join(x or next(filler) for x in grid)
            assert kernel_matches(letters, 3), letters
            # the other diagonal does not match
            grid = [None] * 9
            grid[r * 3 + c] = "E"
            grid[(r + 1) * 3 + c + 1] = "O"
            filler = iter("SFBHHTT")
            assert not kernel_matches("".join(x or next(filler) for x in grid), 3)


def test_three_by_three_five_pointer():
    assert ROWS[68] == ("*E*", "H*H", "*M*") and POINTS[68] == 5
    assert kernel_matches("FEBHOHTMT", 68)
    assert not kernel_matches("FEBHOHTST", 68)  # sun instead of moon
    assert not kernel_matches("EFBHOHTMT", 68)  # seed moved


def test_grey_wildcards_constrain_position_only():
    assert ROWS[39] == ("**S",) and ROWS[46] == ("S", "*", "*") and ROWS[31][0] == "S**"
    for cell in range(9):
        letters = list("FBHHOETTE")
        letters.insert(cell, "S")
        letters = "".join(letters[:9])
        assert kernel_matches(letters, 39) == (cell % 3 == 2)  # sun in the right column
        assert kernel_matches(letters, 46) == (cell < 3)  # sun in the top row
        assert kernel_matches(letters, 31) == (cell == 0)  # sun in the top-left corner


def test_kernel_matching_agrees_with_the_replayer_on_random_grids():
    rs = np.random.default_rng(5)
    for _ in range(300):
        letters = "".join("SMFBHOET"[f] for f in rs.integers(0, 8, 9))
        lo, hi = g.matching_cards(PARAMS, g.grid_code(letters))
        got = ids_of(lo, hi)
        want = [c for c in range(1, 73) if replay_matches(ROWS[c], list(letters))]
        assert got == want, letters
        for c in range(1, 73):
            assert kernel_matches(letters, c) == (c in want)


def test_placement_tables_count_offsets():
    start = PARAMS[g.P_PL_START:g.P_PL_START + 73]
    counts = {c.id: int(start[c.id] - start[c.id - 1]) for c in DECK}
    for c in DECK:
        assert counts[c.id] == (4 - c.height) * (4 - c.width)
    assert int(start[72]) == 282


# ---- flips and shifts -------------------------------------------------------------------------------
@pytest.mark.parametrize("a,b", [("S", "M"), ("F", "B"), ("H", "O"), ("E", "T")])
def test_flip_pairs(a, b):
    for x in range(9):
        letters = list(GRID)
        letters[x] = a
        grid = g.grid_code("".join(letters))
        flipped = g.grid_letters(g.flip_cell(grid, x))
        assert flipped[x] == b and flipped[:x] + flipped[x + 1:] == "".join(letters[:x] + letters[x + 1:])
        assert g.flip_cell(g.flip_cell(grid, x), x) == grid


def test_flip_action_turns_the_tile_and_discards_the_card():
    state = build(2, "SFBHHOETT", [[10, 11, 12, 13], [20, 21, 22, 23]])
    act(state, *FLIP(0, 11))
    assert g.grid_letters(state[g.GRID]) == "MFBHHOETT"
    assert hand(state, 0) == [10, 12, 13] and discard(state) == [11]
    act(state, *FLIP(0, 12))
    assert g.grid_letters(state[g.GRID]) == "SFBHHOETT"


def test_exactly_the_twelve_orthogonal_pairs():
    ortho = {(a, b) for a in range(9) for b in range(a + 1, 9)
             if abs(a // 3 - b // 3) + abs(a % 3 - b % 3) == 1}
    assert set(g.PAIRS) == ortho and len(g.PAIRS) == 12
    assert (0, 4) not in g.PAIRS and (2, 4) not in g.PAIRS  # no diagonals
    letters = "SFBHOETTE"
    for p, (a, b) in enumerate(g.PAIRS):
        state = build(2, letters, [[10, 11], [20]])
        act(state, discard_for(10))
        assert legal(state) == list(range(g.MOVES))  # 12 shifts and 9 flips, nothing else
        act(state, g.SHIFT_BASE + p)
        want = list(letters)
        want[a], want[b] = want[b], want[a]
        assert g.grid_letters(state[g.GRID]) == "".join(want)
        assert discard(state) == [10] and hand(state, 0) == [11]


# ---- turn structure ----------------------------------------------------------------------------------
def test_score_only_when_matching_and_scored_cards_are_kept():
    state = build(2, "SFHHBOETT", [[1, 2, 70], [20]])  # card 1 (bird centre) matches, 2 does not
    acts = legal(state)
    assert SCORE(1) in acts and SCORE(2) not in acts and SCORE(70) not in acts
    act(state, SCORE(1))
    assert scored(state, 0) == [1] and state[g.POINTS] == 1 and state[g.CARDS] == 1
    act(state, *FLIP(4, 2))  # the bird turns into a fish: the scored card stays scored
    assert scored(state, 0) == [1] and SCORE(70) not in legal(state)


def test_player_without_cards_must_end_and_end_refills():
    state = build(2, GRID, [[10], [20]], pile_ids=[30, 31, 32, 33, 34])
    act(state, *FLIP(0, 10))
    assert legal(state) == [g.END]
    act(state, g.END)
    assert hand(state, 0) == [30, 31, 32, 33] and pile(state) == [34]
    assert state[g.CUR] == 1
    # a hand of 4 or more draws nothing
    state = build(2, GRID, [[10, 11, 12, 13, 14], [20]], pile_ids=[30])
    act(state, g.END)
    assert hand(state, 0) == [10, 11, 12, 13, 14] and pile(state) == [30]


def test_skip_rules():
    state = build(2, GRID, [[10, 11, 12, 13], [20, 21, 22, 23]], pile_ids=list(range(30, 40)))
    assert g.SKIP in legal(state)
    act(state, g.SKIP)  # draws 2 and ends the turn at once
    assert hand(state, 0) == [10, 11, 12, 13, 30, 31] and state[g.CUR] == 1
    act(state, *FLIP(3, 20))
    assert g.SKIP not in legal(state)  # not after an action
    act(state, g.END)
    assert state[g.CUR] == 0 and g.SKIP not in legal(state)  # never twice running
    act(state, g.END)
    assert hand(state, 0) == [10, 11, 12, 13, 30, 31]  # no hand limit, no refill above 4
    act(state, g.SKIP)  # seat 1 may skip now (its last turn was not a skip)
    assert state[g.CUR] == 0 and g.SKIP in legal(state)  # seat 0 ended normally last time
    # a player with no cards cannot skip
    state = build(2, GRID, [[], [20]], pile_ids=[], discard_ids=[])
    assert legal(state) == [g.END]


def test_reshuffle_when_the_draw_pile_is_empty():
    state = build(2, GRID, [[10, 11], [20]], pile_ids=[30], discard_ids=[40, 41, 42, 43, 44])
    act(state, g.END)  # needs 2: the last card of the pile, then the reshuffled discards
    assert state[g.RESHUFFLES] == 1 and discard(state) == []
    h = hand(state, 0)
    assert len(h) == 4 and 30 in h
    assert sorted(h + pile(state)) == [10, 11, 30, 40, 41, 42, 43, 44]
    # both piles empty: the draw simply stops
    state = build(2, GRID, [[10], [20]], pile_ids=[30], discard_ids=[])
    act(state, g.END)
    assert hand(state, 0) == [10, 30] and state[g.RESHUFFLES] == 0


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("who", ["first", "last"])
def test_end_trigger_and_round_completion(players, who):
    t = {2: 10, 3: 9, 4: 8, 5: 7}[players]
    k = 0 if who == "first" else players - 1
    ones = [c for c in range(2, 29) if POINTS[c] == 1]
    scored_ids = [[] for _ in range(players)]
    scored_ids[k] = ones[:t - 1]
    hands = [[40 + s] for s in range(players)]
    hands[k] = [1, 40 + k]  # card 1 (bird in the centre) matches "SFHHBOETT"
    state = build(players, "SFHHBOETT", hands, scored_ids=scored_ids)
    for s in range(k):
        act(state, g.END)
    act(state, SCORE(1))
    assert state[g.TRIGGER_SEAT] == k and state[g.CARDS + k] == t
    for s in range(k, players):
        assert not g.is_terminal(state) and state[g.CUR] == s
        act(state, g.END)
    assert g.is_terminal(state) and g.current_player(state) == -1
    r = summary(state)
    assert r["rounds"] == 1 and r["turns"] == players and r["truncated"] == 0
    assert r[f"cards_{k}"] == t and r[f"win_{k}"] == 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_one_card_short_of_the_trigger_plays_on(players):
    t = {2: 10, 3: 9, 4: 8, 5: 7}[players]
    ones = [c for c in range(2, 29) if POINTS[c] == 1]
    scored_ids = [ones[:t - 2]] + [[] for _ in range(players - 1)]
    hands = [[1, 40]] + [[41 + s] for s in range(1, players)]
    state = build(players, "SFHHBOETT", hands, scored_ids=scored_ids)
    act(state, SCORE(1), g.END)
    for s in range(1, players):
        act(state, g.END)
    assert not g.is_terminal(state) and state[g.CUR] == 0 and state[g.ROUND] == 1


def test_end_trigger_option():
    params = make_params(end_trigger=1)
    state = build(3, "SFHHBOETT", [[40], [1, 41], [42]], params=params)
    act(state, g.END, SCORE(1), g.END, params=params)
    assert not g.is_terminal(state)
    act(state, g.END, params=params)
    assert g.is_terminal(state) and summary(state, params)["win_1"] == 1


# ---- final score ------------------------------------------------------------------------------------
def finished(players, scored_ids, params=PARAMS):
    state = build(players, GRID, [[] for _ in range(players)], scored_ids=scored_ids, params=params)
    state[g.OVER] = 1
    state[g.CUR] = -1
    return state


def test_bonus_goes_to_every_seat_tied_on_most_one_point_cards():
    # seat 0: two 1s (2 pts); seat 1: two 1s + a 2 (4 pts); seat 2: one 1 + a 5 (6 pts)
    state = finished(3, [[2, 5], [6, 7, 29], [8, 68]])
    r = summary(state)
    assert [r["bonus_0"], r["bonus_1"], r["bonus_2"]] == [1, 1, 0]
    assert [r["points_0"], r["points_1"], r["points_2"]] == [2, 4, 6]
    assert [r["score_0"], r["score_1"], r["score_2"]] == [5, 7, 6]
    assert [r["win_0"], r["win_1"], r["win_2"]] == [0, 1, 0]
    assert [r["cards_0"], r["cards_1"], r["cards_2"]] == [2, 3, 2]
    params = make_params(bonus_points=5)
    r = summary(finished(3, [[2, 5], [6, 7, 29], [8, 68]], params), params)
    assert [r["score_0"], r["score_1"], r["score_2"]] == [7, 9, 6]


def test_shared_win():
    r = summary(finished(2, [[2, 29], [5, 30]]))
    assert r["score_0"] == r["score_1"] == 6 and r["win_0"] == r["win_1"] == 1


def test_no_bonus_when_nobody_has_a_one_point_card_unless_the_option_says_so():
    r = summary(finished(2, [[29], [55]]))
    assert (r["bonus_0"], r["bonus_1"], r["score_0"], r["score_1"]) == (0, 0, 2, 3)
    params = make_params(bonus_if_no_ones=True)
    r = summary(finished(2, [[29], [55]], params), params)
    assert (r["bonus_0"], r["bonus_1"], r["score_0"], r["score_1"]) == (1, 1, 5, 6)


def test_round_cap_truncates():
    params = make_params(round_cap=1)
    state = build(2, GRID, [[10], [20]], params=params)
    act(state, g.END, g.END, params=params)
    r = summary(state, params)
    assert g.is_terminal(state) and r["truncated"] == 1 and r["win_0"] == r["win_1"] == 0
    assert r["rounds"] == 1
    state = build(2, GRID, [[10], [20]])
    act(state, g.END, g.END)
    assert not g.is_terminal(state)


# ---- solo ---------------------------------------------------------------------------------------------
SOLO_PILE = [2, 3, 4, 5, 6, 7, 8, 29, 30, 31, 55, 56]  # with the hand below: 8/4/3/1


def solo(params=PARAMS, hand_ids=(1, 32, 57, 68), **kw):
    return build(1, "SFHHBOETT", [list(hand_ids)], pile_ids=kw.pop("pile_ids", SOLO_PILE),
                 params=params, **kw)


def test_solo_deal_is_sixteen_cards_8_4_3_1():
    for key in range(20):
        state = new_state(1, key=key)
        game = ids_of(state[g.GAME_LO], state[g.GAME_HI])
        assert len(game) == 16 == state[g.NCARDS]
        assert sorted(POINTS[c] for c in game) == [1] * 8 + [2] * 4 + [3] * 3 + [5]
        assert sorted(hand(state, 0) + pile(state)) == game


def test_solo_strikes_and_loss():
    state = solo()
    act(state, g.END)  # nothing scored: strike
    assert state[g.STRIKES] == 1
    act(state, SCORE(1), g.END)  # scored: no strike
    assert state[g.STRIKES] == 1
    act(state, g.SKIP)  # a skip is a strike
    assert state[g.STRIKES] == 2
    act(state, g.END, g.END)
    assert g.is_terminal(state) and state[g.STRIKES] == 4
    r = summary(state)
    assert r["win_0"] == 0 and r["strikes"] == 4 and r["turns"] == 5 and r["rounds"] == 5
    assert r["score_0"] == r["points_0"] == 1 and r["cards_0"] == 1 and r["bonus_0"] == 0


def test_solo_skip_is_strike_option_and_solo_strikes_option():
    params = make_params(skip_is_strike=False)
    state = solo(params)
    act(state, g.SKIP, params=params)
    assert state[g.STRIKES] == 0
    params = make_params(solo_strikes=2)
    state = solo(params)
    act(state, g.END, params=params)
    assert not g.is_terminal(state)
    act(state, g.END, params=params)
    assert g.is_terminal(state) and summary(state, params)["win_0"] == 0


def test_solo_win_by_scoring_all_sixteen():
    others = SOLO_PILE + [32, 57, 68]
    state = solo(hand_ids=(1,), pile_ids=[], scored_ids=[others])
    assert state[g.NCARDS] == 16
    act(state, SCORE(1))
    assert legal(state) == [g.END]
    act(state, g.END)
    assert g.is_terminal(state)
    r = summary(state)
    assert r["win_0"] == 1 and r["cards_0"] == 16 and r["strikes"] == 0
    assert r["score_0"] == r["points_0"] == sum(POINTS[c] for c in others + [1])


def test_solo_round_cap():
    params = make_params(round_cap=1)
    state = solo(params)
    act(state, SCORE(1), g.END, params=params)
    r = summary(state, params)
    assert g.is_terminal(state) and r["truncated"] == 1 and r["win_0"] == 0


# ---- options at setup ------------------------------------------------------------------------------------
def test_random_faces_option():
    faces = set()
    for key in range(30):
        faces |= set(g.grid_letters(new_state(2, key=key)[g.GRID]))
    assert faces == set("SMFBHOET")
    params = make_params(random_faces=False)
    for key in range(30):
        letters = g.grid_letters(new_state(2, params, key)[g.GRID])
        assert set(letters) <= set("SFHE") and sorted(letters) == sorted("SFFHHHEEE")


def test_hand_size_and_skip_draw_options():
    params = make_params(hand_size=6, skip_draw=3)
    state = new_state(3, params)
    assert [len(hand(state, s)) for s in range(3)] == [6, 6, 6] and len(pile(state)) == 72 - 18
    act(state, g.SKIP, params=params)
    assert len(hand(state, 0)) == 9
    act(state, *FLIP(0, hand(state, 1)[0]), params=params)
    act(state, g.END, params=params)
    assert len(hand(state, 1)) == 6
    params = make_params(skip_draw=0)
    state = new_state(2, params)
    act(state, g.SKIP, params=params)
    assert len(hand(state, 0)) == 4


def test_deal_order_matches_the_deck_array():
    state = new_state(3, key=9)
    deck = [int(c) + 1 for c in state[g.DECK:g.DECK + 72]]
    for s in range(3):
        assert hand(state, s) == sorted(deck[4 * s:4 * s + 4])
    assert pile(state) == deck[12:]


# ---- random action, observe, determinize ---------------------------------------------------------------------
def test_random_action_is_uniform_over_the_legal_actions():
    state = build(2, "SFHHBOETT", [[1, 2, 3, 70], [20]])  # card 1 matches
    acts = legal(state)
    assert acts == [discard_for(c) for c in (1, 2, 3, 70)] + [SCORE(1), g.END, g.SKIP]
    rng = np.array([12345], dtype=np.int64)
    n = 14000
    counts = {}
    for _ in range(n):
        a = int(g.random_action(state, PARAMS, rng, 0))
        counts[a] = counts.get(a, 0) + 1
    assert set(counts) == set(acts)
    expect = n / len(acts)
    assert all(abs(c - expect) < 5 * expect ** 0.5 for c in counts.values()), counts
    act(state, discard_for(2))
    for _ in range(200):
        assert 0 <= g.random_action(state, PARAMS, rng, 0) < g.MOVES


def observed(state, player):
    out = np.empty_like(state)
    g.observe(state, player, out)
    return out


def midgame(players, key, steps):
    state = new_state(players, key=key)
    rng = np.array([key + 99], dtype=np.int64)
    for _ in range(steps):
        if g.is_terminal(state):
            break
        g.apply(state, PARAMS, g.random_action(state, PARAMS, rng, 0))
    return state


def test_observe_hides_other_hands_draw_order_and_chance():
    state = midgame(3, 4, 150)
    view = observed(state, 1)
    assert view[g.RNG] == HIDDEN and (view[g.DECK:g.DECK + 72] == HIDDEN).all()
    for s in (0, 2):
        assert view[g.HAND_LO + s] == HIDDEN and view[g.HAND_HI + s] == HIDDEN
        assert view[g.HAND_N + s] == state[g.HAND_N + s]
    assert hand(view, 1) == hand(state, 1) and discard(view) == discard(state)
    assert view[g.GRID] == state[g.GRID] and view[g.DRAW_END] - view[g.DRAW_TOP] == len(pile(state))
    solo_state = midgame(1, 4, 5)
    assert observed(solo_state, 0)[g.GAME_LO] == HIDDEN


@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_determinize_deals_unseen_cards_consistently(players):
    checked = 0
    for key in range(6):
        state = midgame(players, key, 6 if players == 1 else 40 * players)
        if g.is_terminal(state):
            continue
        checked += 1
        me = int(state[g.CUR])
        view = observed(state, me)
        out = np.empty_like(state)
        rng = np.array([key], dtype=np.int64)
        g.determinize(view, PARAMS, me, rng, 0, out)
        check_invariants(out)
        assert hand(out, me) == hand(state, me) and discard(out) == discard(state)
        assert len(pile(out)) == len(pile(state))
        for s in range(players):
            assert len(hand(out, s)) == len(hand(state, s))
            assert scored(out, s) == scored(state, s)
        if players == 1:
            game = ids_of(out[g.GAME_LO], out[g.GAME_HI])
            assert sorted(POINTS[c] for c in game) == [1] * 8 + [2] * 4 + [3] * 3 + [5]
        play_out(out, key)
    assert checked >= 3


# ---- invariants ---------------------------------------------------------------------------------------------
def check_invariants(state, params=PARAMS):
    players = int(state[g.PLAYERS])
    hands = [hand(state, s) for s in range(players)]
    places = hands + [pile(state), discard(state), [c for c in range(1, 73) if state[g.SCORED_BY + c - 1] >= 0]]
    flat = [c for p in places for c in p]
    assert len(flat) == len(set(flat)), "a card is in two places"
    game = ids_of(state[g.GAME_LO], state[g.GAME_HI])
    assert sorted(flat) == game and len(game) == state[g.NCARDS]
    assert len(game) == (16 if players == 1 else 72)
    for s in range(players):
        assert state[g.HAND_N + s] == len(hands[s])
        mine = scored(state, s)
        assert state[g.CARDS + s] == len(mine)
        assert state[g.POINTS + s] == sum(POINTS[c] for c in mine)
        assert state[g.ONES + s] == sum(POINTS[c] == 1 for c in mine)
    assert state[g.DISCARD_N] == len(places[-2])
    if state[g.PENDING] >= 0:
        assert state[g.PENDING] + 1 in places[-2]
    letters = g.grid_letters(state[g.GRID])
    assert sorted(KIND[ch] for ch in letters) == [0, 1, 1, 2, 2, 2, 3, 3, 3]
    assert (state[g.SCORED_ROUND:g.SCORED_ROUND + 72] <= state[g.ROUND]).all()


def play_out(state, key, params=PARAMS, check=True):
    rng = np.array([key], dtype=np.int64)
    n = 0
    while not g.is_terminal(state):
        a = int(g.random_action(state, params, rng, 0))
        if check:
            assert a in legal(state, params)
        g.apply(state, params, a)
        n += 1
        if check:
            check_invariants(state, params)
    return n


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 40), players=st.integers(1, 5), hand_size=st.integers(1, 6),
       skip_draw=st.integers(0, 4), random_faces=st.booleans(), end_trigger=st.integers(0, 6),
       bonus_if_no_ones=st.booleans())
def test_invariants_over_random_games(seed, players, hand_size, skip_draw, random_faces, end_trigger,
                                      bonus_if_no_ones):
    params = make_params(hand_size=hand_size, skip_draw=skip_draw, random_faces=random_faces,
                         end_trigger=end_trigger, bonus_if_no_ones=bonus_if_no_ones, round_cap=60)
    state = new_state(players, params, seed)
    check_invariants(state, params)
    play_out(state, seed, params)
    r = summary(state, params)
    bonus = [r[f"bonus_{s}"] for s in range(players)]
    for s in range(players):
        assert r[f"score_{s}"] == r[f"points_{s}"] + bonus[s] * 3
        assert r[f"points_{s}"] == sum(POINTS[c] for c in scored(state, s))
    assert r["truncated"] == int(state[g.TRUNCATED])
    if players > 1:
        assert r["turns"] == r["rounds"] * players
        ones = [state[g.ONES + s] for s in range(players)]
        if max(ones) > 0 or bonus_if_no_ones:
            assert bonus == [int(o == max(ones)) for o in ones]
        else:
            assert bonus == [0] * players
        if not r["truncated"]:
            t = end_trigger or {2: 10, 3: 9, 4: 8, 5: 7}[players]
            assert max(r[f"cards_{s}"] for s in range(players)) >= t
            top = max(r[f"score_{s}"] for s in range(players))
            assert [r[f"win_{s}"] for s in range(players)] == [int(r[f"score_{s}"] == top) for s in range(players)]
    else:
        assert r["turns"] == r["rounds"]
        if not r["truncated"]:
            assert r["win_0"] == int(r["cards_0"] == 16) and (r["win_0"] or r["strikes"] == 4)


# ---- declaration --------------------------------------------------------------------------------------------
def test_info_options_columns_and_action_names():
    info = g.INFO
    assert info.name == "shifting-stones" and (info.min_players, info.max_players) == (1, 5)
    assert [o.name for o in info.options] == [
        "random_faces", "hand_size", "skip_draw", "end_trigger", "bonus_points", "bonus_if_no_ones",
        "skip_is_strike", "solo_strikes", "round_cap", "deck"]
    assert info.resolve_variant({})["deck"] == ""
    # the v1 columns, then the ones added since (ones, reshuffles, trigger_seat; skips and the
    # per-card record of the balance report)
    cards = [f"card_{c}_scored" for c in range(1, 73)]
    assert info.result_columns(1)[-80:] == ["cards_0", "points_0", "bonus_0", "rounds", "strikes",
                                            "ones_0", "reshuffles", "skips_0"] + cards
    assert info.result_columns(2) == ["score_0", "score_1", "win_0", "win_1", "truncated", "turns",
                                      "cards_0", "cards_1", "points_0", "points_1", "bonus_0", "bonus_1",
                                      "rounds", "ones_0", "ones_1", "reshuffles", "trigger_seat",
                                      "skips_0", "skips_1"] + cards
    assert info.num_actions == g.NUM_ACTIONS == 167
    assert g.action_name(g.SHIFT_BASE + 5) == "shift 3-4"
    assert g.action_name(g.FLIP_BASE + 8) == "flip 8"
    assert g.action_name(discard_for(17)) == "discard 17 to shift or flip"
    assert g.action_name(SCORE(72)) == "score 72"
    assert (g.action_name(g.END), g.action_name(g.SKIP)) == ("end turn", "skip")
    names = {g.action_name(a) for a in range(g.NUM_ACTIONS)}
    assert len(names) == g.NUM_ACTIONS
    with pytest.raises(ValueError):
        g.action_name(g.NUM_ACTIONS)
