"""`restricted`: restricted play (Jaffe et al. 2012).  Without a restriction it is its base,
game for game; with one, its seat never makes the forbidden move although the base does,
and it loses what the move was worth."""
import numpy as np
import pandas as pd
import pytest

from bots.registry import BotError, parse_bot
from runtime.runner import RunConfig, run_games

GAMES = 200


def play(game, players, bots, games=GAMES, seed=4, threads=None):
    return run_games(RunConfig.build(game, players, bots, {}, seed), games, threads=threads)


def outcome(frame: pd.DataFrame) -> pd.DataFrame:
    """The result columns (not the bot labels)."""
    return frame[[c for c in frame.columns if not c.startswith("bot")]].reset_index(drop=True)


@pytest.mark.parametrize("game,players", [("moon", 3), ("shifting-stones", 2), ("sequence-stacks", 2)])
def test_nothing_forbidden_plays_exactly_as_its_base(game, players):
    # random opponents: each run's compiled bots are then one bot, chains the conformance
    # suite compiles anyway (a greedy opponent made a chain of two only this test used)
    others = ",random" * (players - 1)
    pd.testing.assert_frame_equal(outcome(play(game, players, "restricted" + others)),
                                  outcome(play(game, players, "greedy" + others)))


def test_a_random_base_without_restriction_is_the_random_bot():
    pd.testing.assert_frame_equal(outcome(play("sequence-stacks", 2, "restricted:base=random,random")),
                                  outcome(play("sequence-stacks", 2, "random,random")))


@pytest.mark.parametrize("game,players,forbid,column", [
    ("moon", 3, "bid_21", "moon_attempts"),          # shooting the moon
    ("shifting-stones", 2, "skip", "skips"),
])
def test_the_restricted_seat_never_makes_the_move_its_base_makes(game, players, forbid, column):
    bots = ",".join(["greedy", f"restricted:forbid={forbid}"] + ["greedy"] * (players - 2))
    f = play(game, players, bots)
    assert f[f"{column}_0"].sum() > 0  # greedy does it in these games
    assert f[f"{column}_1"].sum() == 0


def test_giving_up_moves_costs_what_they_are_worth_and_is_reproducible():
    """Never blocking and never stealing in Sequence Stacks: the seat makes neither move
    although greedy makes both, and it loses clearly (never stealing alone: 0.21 of 2,000
    games against greedy, measured).  The random replacement moves come from the seat's
    stream, so any thread count gives the same games."""
    spec = "greedy,restricted:forbid=block+steal"
    f = play("sequence-stacks", 2, spec, games=400, threads=1)
    for column in ("blocks", "steal_card", "steal_chip"):
        assert f[f"{column}_0"].sum() > 0 and f[f"{column}_1"].sum() == 0, column
    assert f["win_1"].mean() < 0.35 < 0.65 < f["win_0"].mean()
    pd.testing.assert_frame_equal(f, play("sequence-stacks", 2, spec, games=400, threads=2))


@pytest.mark.parametrize("spec,words", [
    ("restricted:forbid=bogus", "names no action of sequence-stacks (actions start with: block, discard"),
    ("restricted:forbid=block:base=restricted", "would restrict itself"),
    ("restricted:forbid=block:base=nobody", "unknown bot 'nobody'"),
    ("restricted:forbid=block:forbid=steal", "given twice"),
])
def test_bad_restrictions_say_why(spec, words):
    with pytest.raises(BotError, match=words.replace("(", r"\(")):
        parse_bot("sequence-stacks", spec)


def test_kinds_match_whole_words_of_the_action_names():
    from bots.generic.restricted import forbidden_mask
    from simcore.games import load_game

    moon = load_game("moon")
    names = np.array([moon.action_name(a) for a in range(moon.INFO.num_actions)])
    assert list(names[forbidden_mask(moon, "bid_21") == 1]) == ["bid 21"]
    assert list(names[forbidden_mask(moon, "bid_2") == 1]) == ["bid 2"]
    assert set(names[forbidden_mask(moon, "trump_none+trump_doubles") == 1]) == {"trump none", "trump doubles"}
    assert (forbidden_mask(moon, "play") == 1).sum() == 22


def test_the_worth_of_a_move_pairs_each_restricted_bot_with_its_base():
    from experiments.restricted_play import restricted_play, restriction

    assert restriction("restricted:forbid=block", "sequence-stacks") == ("greedy", "block")
    assert restriction("restricted:forbid=block:base=mcts", "sequence-stacks") == ("mcts", "block")
    assert restriction("restricted", "sequence-stacks") is None and restriction("greedy", "moon") is None
    pairwise = pd.DataFrame([
        # greedy against itself without the block: 10 points better, SE 2 points
        {"bot_a": "restricted:forbid=block", "bot_b": "greedy", "games": 900, "win_rate_diff": -0.10, "se_paired": 0.02},
        # a move greedy never makes: every deal played alike
        {"bot_a": "greedy", "bot_b": "restricted:forbid=reverse", "games": 900, "win_rate_diff": 0.0, "se_paired": 0.0},
        # a restricted bot against another base: not a restricted-play pair
        {"bot_a": "random", "bot_b": "restricted:forbid=steal", "games": 900, "win_rate_diff": -0.4, "se_paired": 0.01},
    ])
    t = restricted_play("sequence-stacks", pairwise).set_index("forbidden")
    assert list(t.index) == ["block", "reverse"]
    # the same difference on each of 3 deals: a sign test (p = 1/4), not p = 0; one deal: untested
    few = pd.DataFrame([
        {"bot_a": "greedy", "bot_b": "restricted:forbid=block", "games": 18, "deals": 3, "win_rate_diff": 0.5,
         "se_paired": 0.0},
        {"bot_a": "greedy", "bot_b": "restricted:forbid=steal", "games": 6, "deals": 1, "win_rate_diff": 1.0,
         "se_paired": float("nan")},
    ])
    f = restricted_play("sequence-stacks", few).set_index("forbidden")
    assert f.loc["block", "p"] == pytest.approx(0.25) and f.loc["block", "verdict"] == "no measurable effect"
    assert np.isnan(f.loc["steal", "p"]) and f.loc["steal", "verdict"] == "too few deals to tell (one)"
    assert f.loc["block", "p_holm"] == pytest.approx(0.25)
    assert t.loc["block", "worth"] == pytest.approx(0.10)
    assert t.loc["block", "ci_low"] == pytest.approx(0.10 - 1.959964 * 0.02, abs=1e-6)
    assert t.loc["block", "verdict"] == "matters" and t.loc["block", "p_holm"] < 1e-5
    assert t.loc["reverse", "verdict"] == "the base never made this move here"


def test_its_compiled_copy_is_keyed_by_the_values_its_base_plays():
    """The base's parameter values are compiled into the copy (``BASE_PARAMS``) and a label
    names only what differs from the defaults: a plugin's ``set_bot_defaults`` on the base
    must rename the copy, or the cache would hand back one that plays the old values."""
    import bots.registry as registry

    game = "shifting-stones"
    name = parse_bot(game, "restricted:forbid=flip").compiled_name
    before = registry.bot_entry(game, name).key(game)
    saved = {k: dict(v) for k, v in registry._DEFAULTS.items() if k[0] == game}
    try:
        registry.set_bot_defaults(game, "greedy", card_value=1.0)
        assert registry.bot_entry(game, name).key(game) != before
    finally:
        for k in [k for k in registry._DEFAULTS if k[0] == game]:
            del registry._DEFAULTS[k]
        registry._DEFAULTS.update(saved)
        registry._invalidate()
    assert registry.bot_entry(game, name).key(game) == before
