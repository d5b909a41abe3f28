"""Shifting Stones greedy bot: each heuristic in a hand-built position, its parameters, the
exactness of the fast depth-2 search, legality, what it reads, determinism, no truncated
games between greedy bots, and strength against random."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from bot_helpers import policy_on
from bots import shifting_stones as B
from bots.shifting_stones.payer import _fodder2
from bots.registry import BotError, bot_arrays, parse_bots
from experiments.stats import wilson_interval
from simcore import bits
from simcore.games import shifting_stones as g
from simcore.rng import stream_key
from runtime.runner import Batch, RunConfig

from test_shifting_stones import PARAMS, build, hand, legal, masks, scored

# per-seat working memory, as the runner passes it: one row per seat
SCRATCH = np.zeros((g.MAX_PLAYERS, B.SCRATCH_SIZE), dtype=np.int64)
FMEM = np.zeros((g.MAX_PLAYERS, 1), dtype=np.float64)


def decide(state, spec="greedy", scratch=SCRATCH):
    """The greedy action of the seat to move (the state is not changed; the action is
    legal)."""
    players = int(state[g.PLAYERS])
    bots = parse_bots(g, spec, players)
    seat = int(g.current_player(state))
    rng = np.arange(1, players + 1, dtype=np.int64)
    before = state.copy()
    a = policy_on("shifting-stones", bots, state, PARAMS, seat, rng, scratch[:players], FMEM[:players])
    assert np.array_equal(state, before)
    assert a in legal(state), g.action_name(a)
    return a


def play_out_turn(state, spec="greedy", limit=80):
    """Apply the greedy choices of the seat on turn until its turn ends; the action names."""
    seat = int(state[g.CUR])
    out = []
    for _ in range(limit):
        a = decide(state, spec)
        out.append(g.action_name(a))
        g.apply(state, PARAMS, a)
        if a >= g.END or g.is_terminal(state) or state[g.CUR] != seat:
            break
    return out


def moves_to(grid, card, most=2):
    """The fewest moves (up to ``most``) after which card ``card`` (an id) matches, by
    brute force; most + 1 if more."""
    c = card - 1
    level = {int(grid)}
    for d in range(most + 1):
        if any(g.card_matches(PARAMS, x, c) for x in level):
            return d
        level = {int(B.do_move(x, m)) for x in level for m in range(g.MOVES)}
    return most + 1


def first_moves_completing_in_two(grid, card):
    c = card - 1
    return {m for m in range(g.MOVES)
            if any(g.card_matches(PARAMS, B.do_move(B.do_move(grid, m), m2), c) for m2 in range(g.MOVES))}


# grids (cell 0 top-left, row by row); each holds 1 S/M, 2 F/B, 3 H/O and 3 E/T tiles
SUN_BOTTOM_MIDDLE = "HOETFBHSE"  # card 29 (a moon bottom right) is exactly two moves away
BIRD_TWO_AWAY = "FHBEOTSHE"  # card 1 (a bird in the centre) is exactly two moves away
BIRD_ONE_AWAY = "FBHEOTSHE"  # ... one move away (swap 1-4)
FAR = [68, 70, 71]  # five-pointers that none of these grids brings within two moves
POINTS_OF = {c: int(PARAMS[g.P_POINTS + c]) for c in range(72)}


@pytest.mark.parametrize("letters", [SUN_BOTTOM_MIDDLE, BIRD_TWO_AWAY, BIRD_ONE_AWAY])
def test_positions_are_as_described(letters):
    grid = g.grid_code(letters)
    assert sum(ch in "SM" for ch in letters) == 1 and sum(ch in "FB" for ch in letters) == 2
    assert sum(ch in "HO" for ch in letters) == 3 and sum(ch in "ET" for ch in letters) == 3
    for card in FAR:
        assert moves_to(grid, card) == 3
    assert moves_to(g.grid_code(SUN_BOTTOM_MIDDLE), 29) == 2
    assert moves_to(g.grid_code(BIRD_TWO_AWAY), 1) == 2
    assert moves_to(g.grid_code(BIRD_ONE_AWAY), 1) == 1


# ----------------------------------------------------------------------------- parameters
def test_greedy_is_listed_with_its_parameters():
    spec = B.GREEDY_SPEC
    assert [(q.name, q.default) for q in spec.params] == [
        ("depth", 2), ("card_value", 0.25), ("skip_threshold", 0.0), ("replan", 0)]
    bots = parse_bots(g, "greedy:depth=1:card_value=0.5", 2)
    assert bots[0].values == (1.0, 0.5, 0.0, 0.0)
    with pytest.raises(BotError, match="must be in"):
        parse_bots(g, "greedy:depth=4", 2)
    with pytest.raises(BotError, match="takes an integer"):
        parse_bots(g, "greedy:depth=1.5", 2)


# ----------------------------------------------------------------------------- positions
def test_scores_a_matching_card_at_once():
    state = build(2, "HOETFBHEM", [[68, 29, 70], []])  # moon bottom right: card 29 matches
    assert decide(state) == g.SCORE_BASE + 29 - 1


def test_scores_every_matching_card_then_ends():
    state = build(2, "HOETBFHEM", [[1, 29, 70], []])  # bird centre and moon bottom right
    assert play_out_turn(state) == ["score 1", "score 29", "end turn"]
    assert scored(state, 0) == [1, 29]


def test_plays_the_first_move_of_a_two_move_score():
    grid = g.grid_code(SUN_BOTTOM_MIDDLE)
    state = build(2, SUN_BOTTOM_MIDDLE, [[29, 68, 70], []])
    first = decide(state)
    # it pays with a card the plan does not score (the farther five-pointer) ...
    assert first == g.DISCARD_BASE + 68 - 1
    g.apply(state, PARAMS, first)
    move = decide(state)
    # ... and plays a move after which one more completes card 29
    assert move in first_moves_completing_in_two(grid, 29)
    assert moves_to(grid, 29) == 2
    g.apply(state, PARAMS, move)
    rest = play_out_turn(state)
    assert rest[0] == "discard 70 to shift or flip" and rest[2:] == ["score 29", "end turn"]
    assert scored(state, 0) == [29]


def test_the_move_after_the_discard_is_the_planned_one_even_when_not_remembered():
    state = build(2, SUN_BOTTOM_MIDDLE, [[29, 68, 70], []])
    g.apply(state, PARAMS, decide(state))
    remembered = decide(state)
    assert decide(state, scratch=np.zeros_like(SCRATCH)) == remembered


def test_skips_when_nothing_is_reachable_and_ends_when_it_skipped_last_turn():
    state = build(2, SUN_BOTTOM_MIDDLE, [FAR, []])
    assert decide(state) == g.SKIP
    state[g.SKIPPED + 0] = 1
    assert decide(state) == g.END
    assert hand(state, 0) == FAR  # no card spent


def test_does_not_skip_after_acting():
    state = build(2, SUN_BOTTOM_MIDDLE, [[29, 68, 70], []])
    assert play_out_turn(state)[-1] == "end turn"


@pytest.mark.parametrize("spec, acts", [
    ("greedy", True),  # card_value 0.25: one point for two cards is worth it
    ("greedy:card_value=0", True),
    ("greedy:card_value=0.5", False),  # ... not at 0.5 a card
    ("greedy:depth=1", False),  # one move does not reach it
])
def test_card_value_and_depth_against_a_two_move_one_pointer(spec, acts):
    state = build(2, BIRD_TWO_AWAY, [[1] + FAR, []])
    a = decide(state, spec)
    if acts:
        assert a in [g.DISCARD_BASE + c - 1 for c in FAR]
        g.apply(state, PARAMS, a)
        assert decide(state, spec) in first_moves_completing_in_two(g.grid_code(BIRD_TWO_AWAY), 1)
    else:
        assert a == g.SKIP


def kind_of(a):
    if a == g.SKIP:
        return "skip"
    if a == g.END:
        return "end"
    return "discard" if g.DISCARD_BASE <= a < g.SCORE_BASE else g.action_name(a)


@pytest.mark.parametrize("spec, skipped, expected", [
    ("greedy", 0, "discard"),
    ("greedy:card_value=0.9", 0, "discard"),
    ("greedy:card_value=1", 0, "skip"),  # the point is not worth the card
    ("greedy:card_value=1", 1, "end"),
    ("greedy:skip_threshold=1", 0, "skip"),  # not worth more than the threshold
    ("greedy:skip_threshold=1", 1, "discard"),  # ... but a skip is not legal
    ("greedy:skip_threshold=0.5", 0, "discard"),
    ("greedy:depth=0", 0, "skip"),  # never shifts or flips
    ("greedy:depth=0", 1, "end"),
])
def test_parameters_against_a_one_move_one_pointer(spec, skipped, expected):
    state = build(2, BIRD_ONE_AWAY, [[1] + FAR, []])
    state[g.SKIPPED + 0] = skipped
    a = decide(state, spec)
    assert kind_of(a) == expected
    if expected == "discard":
        g.apply(state, PARAMS, a)
        assert decide(state, spec) == g.SHIFT_BASE + g.PAIRS.index((1, 4))


def test_with_one_card_it_never_moves():
    state = build(2, BIRD_ONE_AWAY, [[1], []])  # the bird is one move away, but no card pays
    assert decide(state) == g.SKIP


def test_empty_hand_ends():
    state = build(2, BIRD_ONE_AWAY, [[], [5]])
    assert decide(state) == g.END


# ----------------------------------------------------------------------------- the search
def _random_grid(rng):
    kinds = [0, 1, 1, 2, 2, 2, 3, 3, 3]
    rng.shuffle(kinds)
    return sum((2 * k + int(rng.integers(2))) << (3 * x) for x, k in enumerate(kinds))


def test_cell_bits_are_packed_alike_by_shifts_and_by_pext():
    """``simcore.bits.compress3`` (pext where the machine runs it in one instruction, else
    shifts) packs bits 0, 3, ..., 27 into bits 0..9, whatever the other bits hold."""
    rng = np.random.default_rng(11)
    values = [0, (1 << 28) - 1, bits.LOW_BITS, ~bits.LOW_BITS & ((1 << 62) - 1)] + \
        [int(v) for v in rng.integers(0, 1 << 62, 500)]
    for v in values:
        want = sum(((v >> (3 * x)) & 1) << x for x in range(10))
        assert bits.compress3_shifts(np.int64(v)) == want
        assert bits.compress3(np.int64(v)) == want
    if bits.FAST_PEXT:
        assert bits.compress3 is bits.compress3_pext


def _payer_by_rule(grid, cards):
    """The card the rule picks (farthest from matching: most wrong cells in its best
    placement, then most points, then lowest id), worked out here cell by cell."""
    def far(c):
        return min(sum(1 for x in range(9) if (int(PARAMS[g.P_PL_MASK + i]) >> (3 * x)) & 7
                       and (grid >> (3 * x)) & 7 != (int(PARAMS[g.P_PL_VALUE + i]) >> (3 * x)) & 7)
                   for i in range(int(PARAMS[g.P_PL_START + c]), int(PARAMS[g.P_PL_START + c + 1])))
    return max(cards, key=lambda c: (far(c), int(PARAMS[g.P_POINTS + c]), -c), default=-1)


def test_the_payer_of_a_second_move_is_the_second_choice_of_the_first():
    """The payer's rule, and a two-move plan's second card (chosen with the plan, see
    ``paying_card_over_list``): the card the rule picks at the same grid among the same cards less
    the first one paid."""
    rng = np.random.default_rng(13)
    for _ in range(300):
        grid = _random_grid(rng)
        cards = sorted(int(c) for c in rng.choice(72, int(rng.integers(1, 7)), replace=False))
        lo, hi = masks([c + 1 for c in cards])
        first, second = _fodder2(PARAMS, np.int64(grid), np.int64(lo), np.int64(hi))
        assert first == _payer_by_rule(grid, cards)
        assert second == _payer_by_rule(grid, [c for c in cards if c != first])


def test_fast_depth_two_search_equals_the_plain_search():
    """The placement-list search (first moves pruned, placements analysed again only when
    the first move can change them) gives the plain search's value, and its move whenever
    a plan pays, on random grids and hands, for several card values, with the first move
    paid or free."""
    rng = np.random.default_rng(5)
    s = np.zeros(B.SCRATCH_SIZE, dtype=np.int64)
    listed = 0
    for i in range(400):
        grid = np.int64(_random_grid(rng))
        n = int(rng.integers(3, 8))
        lo, hi = masks([int(c) + 1 for c in rng.choice(72, n, replace=False)])
        lo, hi = np.int64(lo), np.int64(hi)
        cv = float(rng.choice([0.0, 0.25, 0.5, 1.0]))
        cost, spare = (cv, n) if i % 2 else (0.0, n + 1)
        if any(g.card_matches(PARAMS, grid, c) for c in range(72) if (int(lo) | int(hi) << 36) >> c & 1):
            continue  # searches start where nothing matches
        v_fast, m_fast, slots = B.plan(PARAMS, grid, lo, hi, spare, 2, cost, cv, s)
        v_plain, m_plain = B.search(PARAMS, grid, lo, hi, spare, 2, cost, cv, s)
        listed += slots >= 0
        assert v_fast == pytest.approx(v_plain, abs=1e-9)
        if v_plain > 1e-9:
            assert m_fast == m_plain
    assert listed > 200


def test_plain_search_agrees_with_brute_force():
    """Depth 1 and 2 values of the plain search against trying every move (pair)."""
    rng = np.random.default_rng(6)
    s = np.zeros(B.SCRATCH_SIZE, dtype=np.int64)
    for _ in range(25):
        grid = _random_grid(rng)
        cards = [int(c) for c in rng.choice(72, 4, replace=False)]
        if any(g.card_matches(PARAMS, grid, c) for c in cards):
            continue
        lo, hi = (np.int64(x) for x in masks([c + 1 for c in cards]))
        pts = {c: POINTS_OF[c] for c in cards}

        def value(seq):
            scored_ = set()
            x = grid
            for m in seq:
                x = int(B.do_move(x, m))
                scored_ |= {c for c in cards if c not in scored_ and g.card_matches(PARAMS, x, c)}
            if len(scored_) + len(seq) > len(cards):
                return None  # not enough cards to pay
            return sum(pts[c] for c in scored_) - 0.5 * len(seq)

        best1 = max(v for m in range(g.MOVES) if (v := value([m])) is not None)
        best2 = max(v for seq in itertools.product(range(g.MOVES), repeat=2)
                    if (v := value(seq)) is not None)
        assert B.search(PARAMS, np.int64(grid), lo, hi, 4, 1, 0.5, 0.5, s)[0] == pytest.approx(best1)
        assert B.search(PARAMS, np.int64(grid), lo, hi, 4, 2, 0.5, 0.5, s)[0] == pytest.approx(max(best1, best2))


# ----------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_every_choice_is_legal_and_reads_only_its_own_view(players):
    """Greedy games stepped one decision at a time: every action is legal, and the same
    after the other hands, the draw pile and the chance stream are shuffled.  What the bot
    remembers between decisions only saves work: away from the move after a discard,
    a fresh scratch gives the same action."""
    bots = parse_bots(g, "greedy", players)
    state = np.zeros(g.STATE_SIZE, np.int64)
    scratch = np.zeros_like(SCRATCH)[:players]
    mix = np.random.default_rng(players)
    checked = 0
    for game in range(6):
        g.init(state, PARAMS, players, stream_key(12, game, 0))
        rng = np.arange(players, dtype=np.int64)
        while not g.is_terminal(state):
            seat = int(g.current_player(state))
            before = scratch.copy()  # what the bot remembers (the move planned at a discard)
            a = policy_on("shifting-stones", bots, state, PARAMS, seat, rng, scratch, FMEM[:players])
            assert a in legal(state), g.action_name(a)
            if state[g.PENDING] < 0:
                fresh = np.zeros_like(scratch)
                assert policy_on("shifting-stones", bots, state, PARAMS, seat, rng, fresh, FMEM[:players]) == a
            if checked % 2 == 0 or state[g.PENDING] >= 0:
                other = state.copy()
                unseen = [c for s in range(players) if s != seat for c in hand(state, s)]
                unseen += [int(c) + 1 for c in state[g.DECK + state[g.DRAW_TOP]:g.DECK + state[g.DRAW_END]]]
                mix.shuffle(unseen)
                i = 0
                for s in range(players):
                    if s != seat:
                        n = int(state[g.HAND_N + s])
                        other[g.HAND_LO + s], other[g.HAND_HI + s] = masks(unseen[i:i + n])
                        i += n
                other[g.DECK + state[g.DRAW_TOP]:g.DECK + state[g.DRAW_END]] = [c - 1 for c in unseen[i:]]
                other[g.RNG] = 12345
                assert policy_on("shifting-stones", bots, other, PARAMS, seat, rng.copy(), before,
                                 FMEM[:players]) == a
            checked += 1
            g.apply(state, PARAMS, a)
        assert state[g.TRUNCATED] == 0
    assert checked > 300


def test_depth_zero_never_shifts_or_flips():
    config = RunConfig.build("shifting-stones", 2, "greedy:depth=0,random", {}, 3)
    batch = Batch(config)
    state = np.zeros(g.STATE_SIZE, np.int64)
    for index in range(5):
        actions, _ = batch.record(index)
        g.init(state, PARAMS, 2, stream_key(3, index, 0))
        for a in actions:
            if g.current_player(state) == 0:
                assert not (g.DISCARD_BASE <= a < g.SCORE_BASE)
            g.apply(state, PARAMS, int(a))


def test_deterministic_for_a_seed():
    config = RunConfig.build("shifting-stones", 3, "greedy,random,greedy:depth=1", {}, 9)
    a = Batch(config).run(0, 40)
    assert np.array_equal(a, Batch(config).run(0, 40))
    assert np.array_equal(Batch(config).run(10, 5), a[10:15])
    c = Batch(RunConfig.build("shifting-stones", 3, "greedy,random,greedy:depth=1", {}, 10)).run(0, 40)
    assert not np.array_equal(a[:, 2:], c[:, 2:])


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_greedy_games_are_never_truncated(players):
    config = RunConfig.build("shifting-stones", players, "greedy", {}, 100 + players)
    rows = Batch(config).run(0, 50)
    assert rows[:, config.columns().index("truncated")].sum() == 0


@pytest.mark.parametrize("seat", [0, 1])
def test_greedy_beats_random_in_both_seats(seat):
    specs = ["random", "random"]
    specs[seat] = "greedy"
    config = RunConfig.build("shifting-stones", 2, specs, {}, 30 + seat)
    rows = Batch(config).run(0, 300)
    cols = config.columns()
    decided = rows[rows[:, cols.index("truncated")] == 0]
    lo, _ = wilson_interval(decided[:, cols.index(f"win_{seat}")].sum(), len(decided))
    assert lo >= 0.75


# ----------------------------------------------------------------------------- the package
# sha256 (first 16 hex digits) of the result rows of seeded greedy games, recorded from the
# single-module bot before it became a package: a change of play anywhere changes them
FINGERPRINTS = [
    (1, "greedy", 300, "c3614538b85a5a71"),
    (2, "greedy", 300, "b91aae5c9d8b81b6"),
    (5, "greedy", 100, "ed52828a565db56b"),
    (2, "greedy:depth=3,greedy:depth=1:replan=1", 40, "ab5d40e64427dce6"),
]


@pytest.mark.parametrize("players,spec,games,digest", FINGERPRINTS)
def test_play_is_the_play_recorded_before_the_split(players, spec, games, digest):
    import hashlib
    rows = Batch(RunConfig.build("shifting-stones", players, spec, {}, 7)).run(0, games)
    assert hashlib.sha256(np.ascontiguousarray(rows).tobytes()).hexdigest()[:16] == digest


def test_scratch_header_is_its_layout():
    from bots.shifting_stones import scratch
    assert scratch.SCRATCH.table() in scratch.__doc__
    assert scratch.SCRATCH_SIZE == scratch.SCRATCH.size == B.SCRATCH_SIZE
    # the plain search's accumulators and the payer's notes share PU, inside the scratch
    assert scratch.PU <= scratch.ACC and scratch.ACC + g.MOVES <= scratch.PU + scratch.PU_SIZE
    assert scratch.BEST_COMPS + scratch.BEST_ROOM <= scratch.PU + scratch.PU_SIZE
