"""The smallest Python agent: always the lowest legal action id.

    playlab play moon --bots py:examples/agents/first_legal.py:FirstLegal,greedy,greedy --games 100 --seed 1

plays the same games, move for move, as the compiled bot of
``examples/plugins/first_legal_bot.py`` in seat 0."""


class FirstLegal:
    def __init__(self, game, players, seat, **params):
        self.seat = seat

    def act(self, view):
        return view.legal_actions[0]
