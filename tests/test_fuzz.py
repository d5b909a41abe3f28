"""Kernel fuzzing (issue 15): random legal action sequences, from random seeds, for every
game, player count and option combination drawn from the options' declared ranges, never
crash, never reach an illegal state (the per-game conservation rules of
``fuzz_checks.CHECKS``; exactly one actor) and end within the cap; illegal actions given to
the Python-facing ``Game`` are refused and change nothing.

The conformance suite plays a few fixed seeds under the default options; this file adds
breadth over options, player counts and seeds, and the conservation invariants.  Examples
are derandomized (the same cases every run, so CI is reproducible); ``-m slow`` runs a
deeper variant.  A failing case prints its game, players, options and seed: replay it with
``play(game, players, variant, seed)``.
"""
from __future__ import annotations

import types

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from runtime.check import SENTINEL
from simcore.game import Game, GameError
from simcore.games import available_games, load_game
from simcore.rng import CHANCE_STREAM, stream_key

from fuzz_checks import CHECKS, IllegalState

GAMES = available_games()
# caps (hand_cap / round_cap) stay small so that a drawn game is short
CAP_BOUND = 30
SEEDS = st.integers(0, 2**63 - 1)


def test_every_game_has_a_checker():
    assert set(GAMES) <= set(CHECKS), f"games without a fuzz checker: {set(GAMES) - set(CHECKS)}"


# ---- strategies over the declared options ---------------------------------------------------
def option_value(option, cap_name, cap_bound):
    if option.kind == "bool":
        return st.booleans()
    if option.kind == "choice":
        return st.sampled_from(option.choices)
    if option.kind == "int":
        high = min(option.high, cap_bound) if option.name == cap_name else option.high
        return st.integers(option.low, high)
    return None  # a path (a deck file): the default


def variants(info, cap_bound=CAP_BOUND):
    cap_name = info.truncation_option
    parts = {o.name: option_value(o, cap_name, cap_bound) for o in info.options}
    return st.fixed_dictionaries({k: v for k, v in parts.items() if v is not None})


def cases(game, cap_bound=CAP_BOUND):
    info = load_game(game).INFO
    return st.tuples(st.integers(info.min_players, info.max_players), variants(info, cap_bound), SEEDS)


# ---- one random game through the kernels, checked at every step ------------------------------
def play(game, players, variant, seed, index=0, module=None):
    """Play game ``index`` of run ``seed`` with uniformly random legal actions (numpy, seeded
    by seed and index), checking the state before every decision and at the end; returns
    the number of decisions and whether the game was truncated."""
    module = module or load_game(game)
    info = module.INFO
    check, cap = CHECKS[game]
    params = info.make_params(info.resolve_variant(variant))
    state = np.zeros(info.state_size(players), np.int64)
    module.init(state, params, players, stream_key(seed, index, CHANCE_STREAM))
    rng = np.random.default_rng([seed, index])
    buf = np.full(info.num_actions + 1, SENTINEL, np.int64)
    bound = min(info.max_decisions(players), cap(params, players))
    decisions = 0
    where = f"{game} players={players} variant={variant} seed={seed} index={index}"
    while True:
        try:
            check(state, params, players)
        except IllegalState as e:
            raise IllegalState(f"{where}, after {decisions} decisions: {e}") from None
        actor = int(module.current_player(state))
        if module.is_terminal(state):
            assert actor == -1, f"{where}: seat {actor} to act in a finished game"
            assert module.legal_actions(state, params, buf) == 0, f"{where}: legal actions after the end"
            break
        assert 0 <= actor < players, f"{where}, decision {decisions}: actor {actor}"
        buf[:] = SENTINEL
        n = module.legal_actions(state, params, buf)
        legal = buf[:n]
        assert n >= 1, f"{where}, decision {decisions}: no legal action before the end"
        assert legal[0] >= 0 and legal[-1] < info.num_actions and np.all(np.diff(legal) > 0), \
            f"{where}, decision {decisions}: legal actions {legal}"
        assert np.all(buf[n:] == SENTINEL), f"{where}: legal_actions wrote past its count"
        module.apply(state, params, int(legal[rng.integers(n)]))
        decisions += 1
        assert decisions <= bound, f"{where}: {decisions} decisions, more than the bound {bound}"
    row = np.zeros(len(info.result_columns(players)), np.int64)
    module.summarize(state, params, players, row)
    cols = info.result_columns(players)
    wins = row[cols.index("win_0"):cols.index("win_0") + players]
    truncated = row[cols.index("truncated")]
    assert truncated in (0, 1) and set(wins.tolist()) <= {0, 1}, f"{where}: result {row}"
    # a truncated game has no winner; otherwise somebody wins (solo may lose)
    assert not (truncated and wins.any()), f"{where}: wins {wins} in a truncated game"
    assert truncated or wins.any() or players == 1, f"{where}: nobody won a finished game"
    return decisions, bool(truncated)


FAST = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])
DEEP = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _fuzz_games(game, data):
    players, variant, seed = data.draw(cases(game), label="players, variant, seed")
    index = data.draw(st.integers(0, 2**20), label="index")
    decisions, truncated = play(game, players, variant, seed, index)
    # the statistics (--hypothesis-show-statistics) tell how many games ran to the cap
    event(f"{'truncated' if truncated else 'ended'} in {'<100' if decisions < 100 else '>=100'} decisions")


@pytest.mark.parametrize("game", GAMES)
@FAST
@given(data=st.data())
def test_random_legal_play_keeps_every_invariant(game, data):
    _fuzz_games(game, data)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@DEEP
@given(data=st.data())
def test_random_legal_play_keeps_every_invariant_deep(game, data):
    _fuzz_games(game, data)


# ---- illegal actions through the Python-facing Game -----------------------------------------
def snapshot(g):
    return g.state.copy(), list(g.actions), list(g.log)


def assert_refused(g, action, before):
    with pytest.raises(GameError):
        g.step(action)
    state, actions, log = before
    assert np.array_equal(g.state, state), f"refused action {action!r} changed the state"
    assert g.actions == actions and g.log == log, f"refused action {action!r} was recorded"


def _fuzz_refusals(game, data):
    players, variant, seed = data.draw(cases(game, cap_bound=8), label="players, variant, seed")
    g = Game(game, players, variant, seed, data.draw(st.integers(0, 2**20), label="index"))
    rng = np.random.default_rng(seed)
    n_actions = g.info.num_actions
    tried = 0
    while not g.is_over:
        legal = g.legal_actions()
        if not g.actions or rng.random() < 0.2:
            before = snapshot(g)
            illegal = [a for a in range(n_actions) if a not in legal]
            bad = [-1, n_actions, n_actions + 1, 2**70, -2**70, float(legal[0]), str(legal[0]), None]
            if illegal:
                bad += [int(a) for a in rng.choice(illegal, size=min(3, len(illegal)), replace=False)]
                bad.append(np.int64(illegal[0]))
            for a in bad:
                assert_refused(g, a, before)
            for seat in (-1, players, players + 1, 0.0, None):
                with pytest.raises(GameError):
                    g.view(seat)
            # the reading calls never fail at a legal position, whatever the options
            for seat in range(players):
                g.view(seat), g.observation(seat), g.render(seat)
            assert np.array_equal(g.state, before[0]) and g.legal_actions() == legal
            tried += 1
        g.step(int(rng.choice(legal)))
    assert tried >= 1 and g.current_player == -1 and g.legal_actions() == []
    done = snapshot(g)
    for a in (0, -1, n_actions, *range(min(n_actions, 5))):
        assert_refused(g, a, done)
    for seat in (-1, players):
        with pytest.raises(GameError):
            g.view(seat)
    g.result(), g.trace(), g.returns(), [g.render(seat) for seat in range(players)]
    assert np.array_equal(g.state, done[0])


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_illegal_actions_are_refused_and_change_nothing(game, data):
    _fuzz_refusals(game, data)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_illegal_actions_are_refused_and_change_nothing_deep(game, data):
    _fuzz_refusals(game, data)


# ---- the checkers can fail -------------------------------------------------------------------
def states_of(game, players, variant, seed=1, want=200):
    """Up to ``want`` states of one random legal game, in order."""
    module = load_game(game)
    info = module.INFO
    params = info.make_params(info.resolve_variant(variant))
    state = np.zeros(info.state_size(players), np.int64)
    module.init(state, params, players, stream_key(seed, 0, CHANCE_STREAM))
    rng = np.random.default_rng(seed)
    buf = np.zeros(info.num_actions, np.int64)
    out = [state.copy()]
    while not module.is_terminal(state) and len(out) < want:
        n = module.legal_actions(state, params, buf)
        module.apply(state, params, int(buf[rng.integers(n)]))
        out.append(state.copy())
    return params, out


def first(states, pred):
    found = next((s for s in states if pred(s)), None)
    assert found is not None, "no state of the kind the corruption needs"
    return found.copy()


def rejects(game, players, params, state, corrupt, match):
    check, _ = CHECKS[game]
    check(state, params, players)  # the uncorrupted state passes
    corrupt(state)
    with pytest.raises(IllegalState, match=match):
        check(state, params, players)


def low_bit(x):
    return int(x) & -int(x)


def test_moon_checker_rejects_corrupted_states():
    import simcore.games.moon as M

    params, states = states_of("moon", 3, {"hand_cap": 5}, want=400)
    bid = lambda: first(states, lambda s: s[M.PHASE] == M.PHASE_BID)
    play = lambda: first(states, lambda s: s[M.PHASE] == M.PHASE_PLAY and s[M.IN_TRICK] == 1 and s[M.TRICK_NO] >= 1)

    def dup(s):  # a tile of hand 0 also in hand 1
        s[M.HAND + 1] |= low_bit(s[M.HAND])

    def drop(s):
        s[M.HAND] &= s[M.HAND] - 1

    def widow_vanishes(s):  # marked taken while nobody took it
        s[M.WIDOW_TAKEN] = 1

    def discard_back(s):  # the discard counted as not made: its tile is lost
        s[M.DISCARD_DONE] = 0

    def played_twice(s):  # a held tile also in the played set
        s[M.PLAYED] |= low_bit(s[M.HAND + 2])

    def table_forgets(s):  # the table tile leaves the played set
        t = next(int(x) for x in s[M.TABLE:M.TABLE + 3] if x >= 0)
        s[M.PLAYED] &= ~(1 << t)

    rejects("moon", 3, params, bid(), dup, "more than one place")
    rejects("moon", 3, params, play(), dup, "more than one place")
    rejects("moon", 3, params, bid(), drop, "lost")
    rejects("moon", 3, params, bid(), widow_vanishes, "lost")
    rejects("moon", 3, params, play(), discard_back, "lost|discard")
    rejects("moon", 3, params, play(), played_twice, "more than one place")
    rejects("moon", 3, params, play(), table_forgets, "played set")
    second_actor = lambda s: s.__setitem__(M.ACTOR, (s[M.ACTOR] + 1) % 3)
    rejects("moon", 3, params, bid(), second_actor, "acts in phase")
    rejects("moon", 3, params, play(), second_actor, "acts in phase")


def test_shifting_stones_checker_rejects_corrupted_states():
    import simcore.games.shifting_stones as S

    for players in (1, 3):
        params, states = states_of("shifting-stones", players, {"round_cap": 20}, want=300)
        later = lambda: first(states, lambda s: s[S.SCORED_TOTAL] > 0 and s[S.DISCARD_N] > 0
                              and s[S.DRAW_END] > s[S.DRAW_TOP] and s[S.HAND_N] > 0)

        def draw_card_also_held(s):
            c = int(s[S.DECK + s[S.DRAW_TOP]])
            if c < S.HALF:
                s[S.HAND_LO + 1 % players] |= 1 << c
            else:
                s[S.HAND_HI + 1 % players] |= 1 << (c - S.HALF)
            s[S.HAND_N + 1 % players] += 1

        def card_lost(s):
            s[S.DRAW_TOP] += 1

        def held_card_scored(s):
            c = S.HALF + (low_bit(s[S.HAND_HI]).bit_length() - 1) if s[S.HAND_HI] else \
                low_bit(s[S.HAND_LO]).bit_length() - 1
            s[S.SCORED_BY + c] = 0

        def discard_forgotten(s):
            s[S.DISCARD_LO], s[S.DISCARD_HI] = (s[S.DISCARD_LO] & (s[S.DISCARD_LO] - 1), s[S.DISCARD_HI]) \
                if s[S.DISCARD_LO] else (s[S.DISCARD_LO], s[S.DISCARD_HI] & (s[S.DISCARD_HI] - 1))

        def tile_changes_kind(s):  # cell 0 turned into the other kind of its neighbour pair
            kind = (int(s[S.GRID]) & 7) >> 1
            s[S.GRID] = (int(s[S.GRID]) & ~7) | (2 * ((kind + 1) % 4))

        rejects("shifting-stones", players, params, later(), draw_card_also_held, "more than one place")
        rejects("shifting-stones", players, params, later(), card_lost, "lost")
        rejects("shifting-stones", players, params, later(), held_card_scored, "more than one place")
        rejects("shifting-stones", players, params, later(), discard_forgotten, "lost")
        rejects("shifting-stones", players, params, later(), tile_changes_kind, "tile kinds")


def test_sequence_stacks_checker_rejects_corrupted_states():
    import simcore.games.sequence_stacks as Q

    for players in (2, 4):
        params, states = states_of("sequence-stacks", players, {"round_cap": 20}, want=400)
        later = lambda: first(states, lambda s: s[Q.DISC_N] > 0 and s[Q.PILE_TOP:Q.PILE_TOP + 8].any()
                              and s[Q.DRAW_LEN] > s[Q.DRAW_POS] and s[Q.HAND_N] > 0)

        def extra_card(s):  # a second copy of a held card type appears in hand 0
            c = low_bit(s[Q.HAND_MASK]).bit_length() - 1
            s[Q.HAND + c] += 1
            s[Q.HAND_N] += 1

        def draw_card_lost(s):
            s[Q.DRAW_POS] += 1

        def special_from_nowhere(s):
            s[Q.SPECIAL + 3] += 1

        def pile_grows(s):
            slot = next(i for i in range(8) if 0 < s[Q.PILE_TOP + i] < 4)
            s[Q.PILE_TOP + slot] += 1

        def discard_duplicated(s):
            s[Q.DISC + s[Q.DISC_N]] = s[Q.DISC + s[Q.DISC_N] - 1]
            s[Q.DISC_N] += 1

        def chip_from_nowhere(s):
            s[Q.CHIPS + 1] += 1

        def chip_leaves_supply(s):
            s[Q.SUPPLY] -= 1

        for corrupt in (extra_card, draw_card_lost, special_from_nowhere, pile_grows, discard_duplicated):
            rejects("sequence-stacks", players, params, later(), corrupt, "card census")
        for corrupt in (chip_from_nowhere, chip_leaves_supply):
            rejects("sequence-stacks", players, params, later(), corrupt, "colour")


def test_kuhn_checker_rejects_a_dealt_twice_card():
    from simcore.games import load_game
    K = load_game("kuhn")

    params, states = states_of("kuhn", 2, {})
    s = states[0].copy()
    rejects("kuhn", 2, params, s, lambda s: s.__setitem__(K.CARD + 1, s[K.CARD]), "cards")


# ---- the fuzz loop itself notices a broken kernel -------------------------------------------
def broken(game, **kernels):
    real = load_game(game)
    fake = types.SimpleNamespace(**{k: getattr(real, k) for k in
                                    ("INFO", "init", "current_player", "legal_actions", "apply",
                                     "is_terminal", "summarize")})
    for k, f in kernels.items():
        setattr(fake, k, f(real))
    return fake


def test_play_catches_a_kernel_that_loses_a_tile():
    import simcore.games.moon as M

    def apply(real):
        def f(state, params, action):
            real.apply(state, params, action)
            if state[M.TURNS] == 10:
                state[M.HAND + state[M.ACTOR]] &= state[M.HAND + state[M.ACTOR]] - 1
        return f

    with pytest.raises(IllegalState, match="after [0-9]+ decisions: tile lost"):
        play("moon", 3, {"hand_cap": 3}, 5, module=broken("moon", apply=apply))


def test_play_catches_a_game_that_never_ends_or_has_no_actor():
    never_over = lambda real: (lambda state: False)
    with pytest.raises(AssertionError, match="actor -1|more than the bound|no legal action"):
        play("shifting-stones", 2, {"round_cap": 2}, 5, module=broken("shifting-stones", is_terminal=never_over))
    nobody = lambda real: (lambda state: -1)
    with pytest.raises(AssertionError, match="actor -1"):
        play("sequence-stacks", 3, {"round_cap": 2}, 5, module=broken("sequence-stacks", current_player=nobody))


def test_play_catches_too_many_decisions(monkeypatch):
    # a bound the real game cannot keep: the bound under the drawn options is enforced
    monkeypatch.setitem(CHECKS, "moon", (CHECKS["moon"][0], lambda params, players: 5))
    with pytest.raises(AssertionError, match="more than the bound 5"):
        play("moon", 3, {"hand_cap": 3}, 5)


def test_a_refusal_that_changed_the_state_is_caught(monkeypatch):
    g = Game("moon", seed=3)
    before = snapshot(g)

    def sloppy(self, action):  # applies a move, then refuses
        self.module.apply(self.state, self.params, self.legal_actions()[0])
        raise GameError("refused, too late")

    monkeypatch.setattr(Game, "step", sloppy)
    with pytest.raises(AssertionError, match="changed the state"):
        assert_refused(g, -1, before)
