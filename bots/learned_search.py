"""``mcts-learned``: the information-set MCTS of ``bots/generic/mcts.py`` over the game's
shipped ``learned`` policy instead of its greedy bot: its rollouts, the prior's move and
delegated decisions are the network's (temperature 0).  It is registered through the same
``register_search`` a plugin would call with a policy of its own.

Why: the search stops gaining past a few thousand iterations over greedy rollouts (README,
*Expert play*), so a stronger rollout policy buys more than more iterations of a weak one.
Shifting Stones' network was taught by the 12,000-iteration search and plays about as well
as it at a thousandth of the cost; a short search over it (500 iterations, rollouts cut off
after 6 decisions) is the game's ``expert``.
"""
from bots.generic.mcts import register_search
from bots.generic.rollout import RolloutPolicy
from bots.registry import register_alias

NAME = "mcts-learned"
LINK = RolloutPolicy("learned")
# the games with a shipped model worth searching over, and their defaults
# (Sequence Stacks' network, 0.62 against greedy, is no better than greedy as a rollout policy
# for the search: 0.44 of 200 games against mcts, README)
GAMES = {
    "shifting-stones": {"iterations": 500, "depth": 6},
}

for _game, _defaults in GAMES.items():
    # the model's weights are compiled into the policy this search calls: register_search
    # keys the search's copy by the learned bot's key, which carries the model's digest
    register_search(NAME, LINK, "information-set MCTS as mcts, its rollouts, prior and delegated decisions "
                    "played by the game's learned policy", games=(_game,), defaults={_game: _defaults})

# the strongest bot measured in Shifting Stones (README, *Expert play*)
register_alias("shifting-stones", "expert", NAME)
