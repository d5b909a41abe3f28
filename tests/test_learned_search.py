"""``mcts-learned`` (bots/learned_search.py): the generic MCTS registered once more over the
game's learned policy through ``register_search``.  Its strength is measured by real runs
(docs/expert-play.md); here what it is made of."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bots.generic import mcts as M
from bots.learned import load_model
from bots.learned_search import GAMES, LINK, NAME
from bots.registry import bot_entry, bots_for, bound_policy
from simcore.games import load_game

from test_mcts import decide, greedy_game_decisions


@pytest.mark.parametrize("game", sorted(GAMES))
def test_its_policy_is_the_learned_bot_and_its_memory_holds_it(game):
    module = load_game(game)
    entry = bot_entry(game, NAME)
    extra = entry.extra(module)
    assert extra["HAS_POLICY"] and extra["POLICY"] is bound_policy(game, "learned")
    gi, gf = LINK.memory(module.INFO)
    learned = bot_entry(game, "learned").spec
    assert (gi, gf) == learned.memory(module.INFO, module.INFO.max_players, tuple(p.default for p in learned.params))
    values = tuple(p.default for p in entry.spec.params)
    assert entry.spec.memory(module.INFO, 2, values) == M.memory_for(LINK)(module.INFO, 2, values)
    # the mcts over greedy is another compiled copy, with another policy
    assert bot_entry(game, "mcts").extra(module)["POLICY"] is bound_policy(game, "greedy")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_its_parameters_name_the_learned_policy_not_greedy(game):
    """`playlab bots` and spec parsing describe what this search calls: its rollouts, prior
    and delegated decisions are the learned bot's, so `rollout` offers `learned` (the value
    the kernel reads as "the link's policy") and refuses `greedy`, which it never plays."""
    from bots.registry import BotError, parse_bot

    params = {p.name: p for p in bot_entry(game, NAME).spec.params}
    assert params["rollout"].choices == ("random", "learned")
    assert params["rollout"].shown(params["rollout"].default) == "learned"
    for name in ("rollout", "prior", "delegate"):
        assert "learned bot" in params[name].help and "greedy" not in params[name].help, name
    assert parse_bot(game, f"{NAME}:rollout=learned").values[M.P_ROLLOUT] == M.ROLLOUT_POLICY
    with pytest.raises(BotError, match="rollout must be one of random, learned"):
        parse_bot(game, f"{NAME}:rollout=greedy")
    # the plain search keeps its own words
    assert {p.name: p for p in bot_entry(game, "mcts").spec.params}["rollout"].choices == ("random", "greedy")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_its_compiled_copy_is_keyed_by_the_models_weights(game):
    # the weights are constants of the policy it calls; the cache is keyed by sources, so
    # the model's digest must be part of the search's key or a new model would run stale code
    key = bot_entry(game, NAME).key(game)
    assert load_model(game).digest() in key
    # it comes from the policy (RolloutPolicy.key: the learned bot's own key, its sources and
    # model), read when the copy is compiled, not restated by the registration
    assert key == bot_entry(game, NAME).digest + LINK.key(game)
    assert LINK.key(game).startswith(bot_entry(game, "learned").key(game))
    # the same for the plain search over greedy
    assert bot_entry(game, "mcts").key(game).startswith(bot_entry(game, "mcts").digest + bot_entry(game, "greedy").key(game))
    # and the compiled copy is named by it
    assert bound_policy(game, NAME).py_func.__qualname__.endswith(f"{NAME.replace('-', '_')}_{key}__choose")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_heavy_prior_plays_the_learned_move(game):
    """With a progressive bias far above any value the root's policy child, expanded first,
    takes every visit: the search plays the learned bot's moves, which are not greedy's."""
    decisions = greedy_game_decisions(game, 2, 3, 30)
    learned = [decide(game, s, p, "learned", 2) for s, p in decisions]
    greedy = [decide(game, s, p, "greedy", 2) for s, p in decisions]
    heavy = [decide(game, s, p, f"{NAME}:iterations=200:prior=1000", 2) for s, p in decisions]
    assert heavy == learned
    assert learned != greedy


ROOT = Path(__file__).resolve().parents[1]


def run_python(*args):
    """A fresh interpreter in the repository (tools/peek.py registers its bots on import,
    which must not reach this process's catalogue)."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=900)


def test_the_peeking_experiment_is_a_plugin_that_the_check_catches():
    """tools/peek.py (docs/expert-play.md's measure of what hidden information is worth to the
    expert's search) registers its bots only under --plugin, and the conformance battery
    a user runs finds that they read what their seat cannot know."""
    assert "peek-hands" not in [b.name for b in bots_for("shifting-stones")]
    assert "peek-hands" not in [b.name for b in bots_for("sequence-stacks")]
    # the bots' checks at one player count (the game's own are the conformance suite's), on
    # Sequence Stacks' peek: registered by the same code as Shifting Stones' and a copy of the
    # plain search, which compiles in about a third of the time of a copy of the search over
    # the learned network (33 s against 88 s here, the rest of the cache warm)
    r = run_python("-m", "playlab.cli", "--plugin", str(ROOT / "tools" / "peek.py"), "check",
                   "sequence-stacks", "--bots", "peek-hands:iterations=60", "--players", "2", "--no-protocol")
    assert r.returncode != 0 and "peek-hands" in r.stdout
    assert "the bot reads hidden information" in r.stdout, r.stdout + r.stderr


KEPT_CHECK = """
import sys
sys.path.insert(0, {tests!r})
import numpy as np
from test_mcts import greedy_game_decisions
from simcore.games import shifting_stones as S
from simcore.kernel_helpers import set_has
from tools.peek import kept_cards

def cards(lo, hi):
    return {{c for c in range(S.NUM_CARDS) if set_has(lo, hi, c)}}

def hand(state, s):
    return cards(state[S.HAND_LO + s], state[S.HAND_HI + s])

checked = drawn_seen = 0
for seed in range(16):
    states = [s for s, _ in greedy_game_decisions("shifting-stones", 2, seed, 400)]
    start = {{}}  # seat -> (its hand, reshuffles) at the start of its latest turn
    for state in states:
        p = int(state[S.CUR])
        if state[S.TURN_ACTIONS] != 0 or state[S.TURNS] == 0:
            continue
        other = 1 - p
        if other in start and start[other][1] == state[S.RESHUFFLES]:
            lo, hi, drawn = kept_cards(state, other)
            got = cards(lo, hi)
            now = hand(state, other)
            assert got == now & start[other][0], (seed, sorted(got), sorted(now & start[other][0]))
            assert drawn == len(now) - len(got)
            checked += 1
            drawn_seen += drawn > 0
        start[p] = (hand(state, p), state[S.RESHUFFLES])
assert checked > 100 and drawn_seen > 80, (checked, drawn_seen)

# where a peek has nothing to see it samples exactly as the fair search: the same world and
# the same streams after
from tools.peek import see_hands, see_kept

def samples_as_fair(sampler, players, states):
    for state, params in states:
        p = int(state[S.CUR])
        mine, fair = np.zeros_like(state), np.zeros_like(state)
        r1, r2 = np.arange(players, dtype=np.int64) + 11, np.arange(players, dtype=np.int64) + 11
        sampler(state, params, p, r1, p, mine)
        S.determinize(state, params, p, r2, p, fair)
        assert (mine == fair).all() and (r1 == r2).all()

samples_as_fair(see_kept, 3, greedy_game_decisions("shifting-stones", 3, 5, 30)[1:])  # no one other hand
samples_as_fair(see_hands, 1, greedy_game_decisions("shifting-stones", 1, 5, 30))  # solo: a chosen 16-card pile
print("checked", checked)
"""


def test_peek_kept_knows_exactly_the_cards_the_other_hand_kept():
    """``peek-kept`` (tools/peek.py) bounds what inference could learn by seeing the cards
    the other hand held through its whole last turn.  Against the truth read off real
    greedy games (the other's hand now, met with its hand when that turn began), at the
    start of every turn with no reshuffle in between; at three players, the fair sampling
    (as `peek-hands` in solo, where there is no other hand)."""
    r = run_python("-c", KEPT_CHECK.format(tests=str(ROOT / "tests")))
    assert r.returncode == 0 and "checked" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_new_model_renames_the_engine_chain_that_runs_the_search(game):
    """The engine's dispatch chain caches its bots' code with its own: a chain holding this
    search must be renamed when the model its policy carries changes, as the search's copy is,
    and so must a restricted bot whose base is the search."""
    from dataclasses import replace

    import bots.registry as R
    from runtime.kernels import chain_digest

    restricted = R.parse_bot(game, f"restricted:forbid=flip:base={NAME}").compiled_name
    bots = (NAME, "greedy", restricted)
    before = chain_digest(game, bots)
    keys = {b: R.bot_entry(game, b).key(game) for b in bots}
    i = next(i for i, e in enumerate(R._BOTS) if e.spec.name == "learned" and e.for_game(game))
    shipped = R._BOTS[i]
    try:
        # another model: the learned bot's fingerprint is its model's digest
        R._BOTS[i] = replace(shipped, digest=shipped.digest + "another-model")
        R._invalidate()
        assert chain_digest(game, bots) != before
        # every compiled copy that holds the model's code is renamed, the one that does not is not
        changed = {b for b in bots if R.bot_entry(game, b).key(game) != keys[b]}
        assert changed == {NAME, restricted}
    finally:
        R._BOTS[i] = shipped
        R._invalidate()
    assert chain_digest(game, bots) == before


def test_the_learned_copy_is_keyed_by_the_greedy_values_it_reads():
    """The learned bot reads greedy's move, compiled in with greedy's values as constants:
    a plugin's ``set_bot_defaults`` on greedy must rename its copy (and the search's over it),
    or the cache would hand back one that asks greedy with the old values."""
    import bots.registry as registry

    game = "shifting-stones"
    before = {b: registry.bot_entry(game, b).key(game) for b in ("learned", NAME)}
    saved = {k: dict(v) for k, v in registry._DEFAULTS.items() if k[0] == game}
    try:
        registry.set_bot_defaults(game, "greedy", card_value=1.0)
        after = {b: registry.bot_entry(game, b).key(game) for b in ("learned", NAME)}
        assert all(after[b] != before[b] for b in before)
    finally:
        for k in [k for k in registry._DEFAULTS if k[0] == game]:
            del registry._DEFAULTS[k]
        registry._DEFAULTS.update(saved)
        registry._invalidate()
    assert {b: registry.bot_entry(game, b).key(game) for b in before} == before
