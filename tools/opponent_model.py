"""A plugin for two rollout designs measured for Shifting Stones' expert and not kept
(docs/expert-play.md): an opponent model in the rollouts, and cut-offs only between
turns.  Each bot is the expert's search (``mcts-learned``: the same compiled ISMCTS, the
same defaults) or ``mcts`` registered once more through ``register_search`` with another
``RolloutPolicy``:

    playlab --plugin tools/opponent_model.py tune shifting-stones --bot model-greedy-turns \\
        --grid depth=6 --against greedy --games 150 --seed 406

- ``model-greedy``: the searching seat's rollouts (and prior) by the learned network, the
  other seats' by greedy, cut off after ``depth`` decisions as the expert's are.
- ``model-greedy-turns``: the same, but a rollout is cut off only where the seat to move
  changes, at the first such point after ``depth`` decisions (``finish_turn``).
- ``learned-turns``: the expert's search with that cut-off alone.
- ``greedy-turns``: ``mcts`` (greedy rollouts for every seat) with that cut-off;
  ``stacks-turns`` the same in Sequence Stacks (flat, as the game's ``mcts``).

They read only what their seat may see, like the search they copy; they are not built in
because none was stronger than the expert on the same deals.
"""
from bots.generic.mcts import register_search
from bots.generic.rollout import RolloutPolicy

GAME = "shifting-stones"
EXPERT = {GAME: {"iterations": 500, "depth": 6}}  # the expert's defaults (bots/learned_search.py)

for _name, _link, _defaults, _what in (
        ("model-greedy", RolloutPolicy("learned", others="greedy"), EXPERT,
         "the expert's search, the other seats' rollouts by greedy"),
        ("model-greedy-turns", RolloutPolicy("learned", others="greedy", finish_turn=True), EXPERT,
         "the expert's search, the other seats' rollouts by greedy, cut off between turns"),
        ("learned-turns", RolloutPolicy("learned", finish_turn=True), EXPERT,
         "the expert's search, its rollouts cut off between turns"),
        ("greedy-turns", RolloutPolicy("greedy", finish_turn=True), None,
         "mcts, its rollouts cut off between turns")):
    register_search(_name, _link, _what, games=(GAME,), defaults=_defaults)
# Sequence Stacks' expert (mcts: flat, greedy rollouts) with that cut-off
register_search("stacks-turns", RolloutPolicy("greedy", finish_turn=True), "mcts, its rollouts cut off between "
                "turns", games=("sequence-stacks",), defaults={"sequence-stacks": {"tree_depth": 1}})
