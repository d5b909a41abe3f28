"""A compiled plugin bot for every game: the lowest legal action id.

    playlab --plugin examples/plugins/first_legal_bot.py play moon --bots first-legal,greedy,greedy --games 100 --seed 1

writes the same result rows as ``py:examples/agents/first_legal.py:FirstLegal`` in seat 0.
The policy is plain Python with the bot signature (README, "Bring your own bot"); playlab
compiles it with Numba for each game it plays."""
import playlab


def first_legal(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    return legal[0]


playlab.register_bot(playlab.BotSpec("first-legal", "the lowest legal action id"), first_legal,
                     games=playlab.ALL_GAMES)
