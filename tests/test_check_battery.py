"""The conformance battery's game checks (runtime/check.py) catch each kind of fault.

tests/test_conformance.py runs these checks over every game; here each check meets a game
with one fault planted, so a check that stopped looking would fail here.  The battery reads
a game module's functions from Python, so a module with one function wrapped is a game with
that fault.  Kuhn poker (the plugin game, cheap to compile) carries the faults.
"""
from __future__ import annotations

import numpy as np
import pytest

from runtime import check as C
from simcore.games import load_game


class Planted:
    """``module`` with some of its functions replaced."""

    def __init__(self, module, **replaced):
        self._module = module
        self.__dict__.update(replaced)

    def __getattr__(self, name):
        return getattr(self._module, name)


@pytest.fixture(scope="module")
def kuhn():
    return load_game("kuhn")


def test_the_unplanted_game_passes_every_game_check(kuhn):
    C.check_legal_actions(kuhn)
    assert C.check_information(kuhn) >= 20
    C.check_results(kuhn)


def legal_reversed(kuhn):
    def legal_actions(state, params, out):
        n = kuhn.legal_actions(state, params, out)
        out[:n] = out[:n][::-1].copy()
        return n
    return legal_actions


def random_illegal(kuhn):
    def random_action(state, params, rng, slot):
        return kuhn.INFO.num_actions  # one past the last action
    return random_action


def legal_past_count(kuhn):
    def legal_actions(state, params, out):
        n = kuhn.legal_actions(state, params, out)
        out[n] = 0
        return n
    return legal_actions


@pytest.mark.parametrize("fault,replace,message", [
    ("legal actions in descending order", {"legal_actions": legal_reversed}, "not ascending"),
    ("random_action returns an action no seat may take", {"random_action": random_illegal}, "is not legal"),
    ("legal_actions writes past its count", {"legal_actions": legal_past_count}, "wrote past its count"),
])
def test_check_legal_actions_catches(kuhn, fault, replace, message):
    game = Planted(kuhn, **{name: make(kuhn) for name, make in replace.items()})
    with pytest.raises(C.CheckFailed, match=message):
        C.check_legal_actions(game)


def test_check_init_catches_a_word_left_unset(kuhn):
    """Sequence Stacks' init left its piles' unused slots unset, and a bot reading its whole
    view played game i differently after other games; every game passes now."""
    from simcore.games import game_names, load_game

    def init(state, params, players, chance_key):
        keep = state[-1]
        kuhn.init(state, params, players, chance_key)
        state[-1] = keep  # the last word: whatever the buffer held
    with pytest.raises(C.CheckFailed, match=r"init leaves 1 state word\(s\) unset"):
        C.check_init_sets_every_word(Planted(kuhn, init=init))
    for game in game_names():
        C.check_init_sets_every_word(load_game(game))


def test_check_information_catches_a_sample_the_seat_would_not_recognise(kuhn):
    def determinize(view, params, player, rng, slot, out):
        out[:] = 0  # a sample that is not drawn from the seat's view at all
    with pytest.raises(C.CheckFailed, match="changes what seat"):
        C.check_information(Planted(kuhn, determinize=determinize))


def test_check_information_catches_an_observation_with_unwritten_entries(kuhn):
    def observation(view, params, seat, out):
        kuhn.observation(view, params, seat, out)
        out[-1] = np.nan
    with pytest.raises(C.CheckFailed, match="unwritten"):
        C.check_information(Planted(kuhn, observation=observation))


def test_check_results_catches_an_unwritten_column(kuhn):
    def summarize(state, params, players, row):
        kuhn.summarize(state, params, players, row)
        row[len(kuhn.INFO.result_columns(players)) - 1] = C.SENTINEL
    with pytest.raises(C.CheckFailed, match="left columns unwritten"):
        C.check_results(Planted(kuhn, summarize=summarize))


def test_check_results_catches_returns_that_disagree_with_the_winner(kuhn):
    def returns(state, params, players, out):
        kuhn.returns(state, params, players, out)
        if kuhn.is_terminal(state):
            out[:] = out[::-1].copy()  # the loser's share given to the winner
    with pytest.raises(C.CheckFailed, match="disagree with the win flags"):
        C.check_results(Planted(kuhn, returns=returns))


def test_check_results_catches_returns_before_the_end(kuhn):
    def returns(state, params, players, out):
        kuhn.returns(state, params, players, out)
        out[0] += 0.5
    with pytest.raises(C.CheckFailed, match="before the end are not 0"):
        C.check_results(Planted(kuhn, returns=returns))


def test_check_results_catches_returns_of_a_game_nobody_won():
    # solo Shifting Stones is lost as often as not: returns there must be 0
    stones = load_game("shifting-stones")

    def returns(state, params, players, out):
        stones.returns(state, params, players, out)
        if stones.is_terminal(state) and players == 1:
            out[0] = 1.0 - out[0]  # a lost solo game paid as a win (and a won one as a loss)
    with pytest.raises(C.CheckFailed, match="nobody won"):
        C.check_results(Planted(stones, returns=returns))
