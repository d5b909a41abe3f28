"""``restricted``: a bot that never makes one kind of move, for every game — restricted
play (Jaffe et al., "Evaluating competitive game balance with restricted play", AIIDE
2012): how much a player loses by giving up a move measures what the move is worth to the
game ("is the block worth having?", "does anyone need to shoot the moon?").

``restricted:forbid=KIND[+KIND…][:base=BOT]`` plays ``BOT`` (default ``greedy``, or
``random`` where a game has no greedy bot; at its default parameters, or an alias's) with
every action whose name starts with a ``KIND`` taken away (``_`` stands for a space:
``forbid=bid_21`` is Moon's shoot-the-moon bid, ``forbid=block`` Sequence Stacks' out-of-
turn block, ``forbid=flip`` Shifting Stones' flips).  The base is handed only the allowed moves
(the random base then plays uniformly among them); a base that lists its moves itself
(the greedy bots, mcts and flatmc, which search from a sampled world) may still pick a
forbidden one, and then the bot plays a uniformly random allowed move instead (from the
seat's own stream, so it stays reproducible).  So a restricted greedy bot is "greedy,
except a random allowed move where it would have made the forbidden one": a lower bound
on what a player who gives the move up could achieve.  When every legal move is
forbidden the restriction cannot hold and the base's move stands.
``restricted`` without ``forbid`` plays exactly as its base: the control row of a
restricted-play study.

Compare it with its base on the same deals (``playlab tournament GAME --bots
greedy,restricted:forbid=block``): the win-rate gap with its interval is the move's worth.

Working memory: the base's, and the action count of int64 slots at the end of the seat's
row for the allowed moves.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np
from numba import njit

from bots.registry import MAX_BOT_PARAMS, ALL_GAMES, BotError, BotSpec, bots_for, parse_bot, register_bot
from simcore.rng import below

NAME = "restricted"
FORBID_KEY, BASE_KEY = "forbid", "base"


@njit(cache=True)
def random_base(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    """The random bot as a base: uniform over the moves it is handed."""
    return legal[below(rng, seat, n)]


def restricted_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    forbid = FORBID  # noqa: F821 (bound per copy: 1 for each forbidden action id)
    width = imem.shape[1]
    allowed = imem[seat, width - NUM_ACTIONS:width]  # noqa: F821
    m = 0
    for i in range(n):
        if forbid[legal[i]] == 0:
            allowed[m] = legal[i]
            m += 1
    if m == 0 or m == n:  # nothing to take away here (or everything: the rule cannot hold)
        return base_policy(view, legal, n, BASE_PARAMS, params, rng, seat, imem, fmem)  # noqa: F821
    if BASE_LEGAL:  # noqa: F821 (a base that may choose among the moves it is handed gets the allowed ones)
        a = base_policy(view, allowed, m, BASE_PARAMS, params, rng, seat, imem, fmem)  # noqa: F821
    else:
        a = base_policy(view, legal, n, BASE_PARAMS, params, rng, seat, imem, fmem)  # noqa: F821
    if forbid[a] == 0:  # a base that lists its own moves (greedy, searches) may still pick a forbidden one
        return a
    return allowed[below(rng, seat, m)]


def action_names(game) -> list[str]:
    return [game.action_name(a) for a in range(game.INFO.num_actions)]


def forbidden_mask(game, text: str) -> np.ndarray:
    """1 for each action whose name starts with one of the ``+``-separated kinds of
    ``text`` (``_`` for a space, case ignored), else 0; a kind that names no action is an
    error that lists the game's kinds."""
    names = [n.lower() for n in action_names(game)]
    mask = np.zeros(len(names), np.uint8)
    for kind in text.split("+"):
        words = kind.replace("_", " ").strip().lower()
        hit = [i for i, n in enumerate(names) if words and (n == words or n.startswith(words + " ")
                                                             or n.startswith(words + "-"))]
        if not hit:
            kinds = sorted({re.split(r"[\s\-]", n)[0] for n in names})
            raise BotError(f"bot {NAME}: forbid={kind!r} names no action of {game.INFO.name} "
                           f"(actions start with: {', '.join(kinds)}; '_' stands for a space, '+' joins kinds)")
        mask[hit] = 1
    return mask


def default_base(game_name: str) -> str:
    return "greedy" if any(b.name == "greedy" for b in bots_for(game_name)) else "random"


def _base(game_name: str, text: str | None):
    """The base as a configured bot, its policy, its parameter table and whether it
    chooses among the moves it is handed."""
    from bots.registry import bot_entry, bound_policy

    text = text or default_base(game_name)
    if text == NAME or text.startswith(NAME + "-"):
        raise BotError(f"bot {NAME}: base={text} would restrict itself")
    bot = parse_bot(game_name, text)
    if bot.is_agent or bot.text:
        raise BotError(f"bot {NAME}: base={text}: the base is a compiled bot named without text parameters")
    from simcore.games import load_game

    table = np.zeros((load_game(game_name).INFO.max_players, MAX_BOT_PARAMS), np.float64)
    table[:, :len(bot.values)] = bot.values
    if bot.compiled_name == "random":
        return bot, random_base, table, True
    return bot, bound_policy(game_name, bot.compiled_name), table, bot_entry(game_name, bot.compiled_name).legal


def _base_key(base_text: str | None):
    """game name -> the key of the base's compiled copy there (its sources and the data it
    carries, e.g. a model): the base's code is compiled into this bot's copy, so its key
    names that copy too ("" for random), and so do the parameter values it plays (compiled in
    as ``BASE_PARAMS``: a plugin's ``set_bot_defaults`` changes them, not the label)."""
    def key(game_name: str) -> str:
        from bots.registry import bot_entry, values_key

        bot = parse_bot(game_name, base_text or default_base(game_name))
        if bot.compiled_name == "random":
            return ""
        return bot_entry(game_name, bot.compiled_name).key(game_name) + values_key(bot.values)
    return key


def _memory(base_bot):
    def memory(info, players, values):
        ints, floats = base_bot.memory(info, players)
        return ints + info.num_actions, floats
    return memory


def _extra(forbid_text: str | None, base_text: str | None):
    def extra(game):
        _, policy, table, legal = _base(game.INFO.name, base_text)
        mask = (forbidden_mask(game, forbid_text) if forbid_text
                else np.zeros(game.INFO.num_actions, np.uint8))
        return {"base_policy": policy, "BASE_PARAMS": table, "BASE_LEGAL": bool(legal), "FORBID": mask,
                "NUM_ACTIONS": game.INFO.num_actions}
    return extra


def parse_restricted(game: str, pairs: list[tuple[str, str]], values: dict[str, float]):
    """``restricted:forbid=…[:base=…]``: the kinds and the base are checked now (one error
    line if they name nothing), and a compiled copy named after them is registered."""
    from simcore.games import load_game

    given = dict(pairs)
    forbid, base_text = given.get(FORBID_KEY), given.get(BASE_KEY)
    module = load_game(game)
    if forbid is not None:
        forbidden_mask(module, forbid)
    base_bot, *_ = _base(game, base_text)
    key = f"{game}|{forbid}|{base_bot.label}"
    name = f"{NAME}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    what = f"{base_bot.label} never playing {forbid}" if forbid else f"{base_bot.label}, nothing forbidden"
    spec = BotSpec(name, what, (), memory=_memory(base_bot))
    base_key = _base_key(base_text)
    register_bot(spec, restricted_policy, games=(game,), extra=_extra(forbid, base_text),
                 fingerprint=lambda g: key + base_key(g), listed=False)
    shown = [(k, v) for k, v in ((FORBID_KEY, forbid), (BASE_KEY, base_text)) if v is not None]
    return spec, shown


def _listed_memory(info, players, values):
    base = parse_bot(info.name, default_base(info.name))
    return _memory(base)(info, players, values)


SPEC = BotSpec(NAME, "restricted play: its base bot (greedy) with one kind of move taken away "
               "(forbid=KIND, e.g. forbid=block; base=BOT plays another bot); without forbid, the base itself",
               (), memory=_listed_memory, text_params=(FORBID_KEY, BASE_KEY), resolve=parse_restricted,
               text_help=("kinds of move it never makes: the start of the actions' names, '_' for a space, "
                          "'+' between kinds (e.g. restricted:forbid=block, forbid=bid_21+trump_none)",
                          "the bot it plays, by name at its defaults (default greedy; e.g. base=mcts)"))

register_bot(SPEC, restricted_policy, games=ALL_GAMES, extra=_extra(None, None), fingerprint=_base_key(None))
