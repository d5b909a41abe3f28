"""The rollout the generic search bots share (``flatmc``, ``mcts``), and the link to the
policy it plays.

``rollout`` finishes a world: up to ``depth`` decisions (0: to the end) of the rollout
policy, or of the game's ``random_action`` (``random_run``, its fast path, when it plays
to the end), every seat drawing from a private stream derived from the deciding seat's
bot stream; then it values the world for every seat, with ``returns`` at the end or the
game's ``evaluate`` at a cut-off.  A cut-off rollout also stops where chance deals afresh
(the game's ``new_deal``: Moon's next hand).  The sampled world deals it from a fresh
stream, so play beyond it only adds noise: in Moon the 8 decisions after a hand's end were
the next hand's bids, discard and trump, the greedy bidder's costliest decisions, which
``evaluate`` (the running totals until tiles are played) does not read.

The rollout policy is not looked up by the bot at compile time: the bot's registration
passes a ``RolloutPolicy`` (``RolloutPolicy("greedy")`` for mcts, ``RANDOM_ROLLOUT`` for
flatmc), whose ``globals`` become the compiled copy's ``extra`` globals and whose
``memory`` sizes the policy's scratch in the bot's working memory.  A game without the
named bot gets ``no_policy`` and ``HAS_POLICY`` False: its rollouts are random.

Globals of a compiled copy (``RolloutPolicy.globals``)::

    POLICY              the policy bot's compiled policy (``no_policy``: none)
    HAS_POLICY          whether the game has it
    POLICY_LEGAL        whether it is handed the legal actions (False for a policy that
                        finds its own moves, ``register_bot(legal=False)``: the rollout then
                        does not list them, as the engine does not)
    POLICY_BOT_PARAMS   float64 [max players, MAX_BOT_PARAMS]: its default parameters
    POLICY_INTS         int64 slots of its scratch per seat (G)
    POLICY_FLOATS       float64 slots of its scratch per seat (GF)
    OTHERS, HAS_OTHERS, OTHERS_LEGAL, OTHERS_BOT_PARAMS
                        the policy the other seats play (``RolloutPolicy.others``: an
                        opponent model; HAS_OTHERS False: every seat plays POLICY)
    FINISH_TURN         cut off only where the seat to move changes (``finish_turn``)

G and GF cover both policies: a seat's row is used by the one policy that plays that seat.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from simcore.rng import GOLDEN, mix64, next_u64

# a rollout's scratch, cut from the searching seat's working memory (P = players,
# A = the game's action count, G / GF = the policy's scratch per seat)
Rollout = namedtuple("Rollout", (
    "legal",    # int64 [A]      the legal actions of the world's decision
    "streams",  # int64 [P]      the private per-seat streams of this rollout
    "ints",     # int64 [P, G]   the policy's int scratch, one row per seat it plays for
    "floats",   # float64 [P, GF] its float scratch
    "value",    # float64 [P]    per seat: what the rollout's end is worth (returns / evaluate)
))


def rollout(sim, params, rng, seat, use_policy, depth, work):
    """Finish ``sim`` (the rollout policy for every seat when ``use_policy``, the opponent
    model for seats other than ``seat`` when there is one, else random play; every seat on
    a stream derived from ``rng[seat]``, which advances once) up to ``depth`` decisions (0:
    to the end; FINISH_TURN: on to the next change of seat), then value it into
    ``work.value``: ``returns`` at the end, the game's ``evaluate`` at a cut-off (also
    where a cut-off rollout reaches a ``new_deal``)."""
    streams = work.streams
    legal = work.legal
    value = work.value
    players = value.shape[0]
    base = next_u64(rng, seat)
    for s in range(streams.shape[0]):
        streams[s] = np.int64(mix64(base + np.uint64(s + 1) * GOLDEN))
    steps = 0
    if use_policy and not (HAS_OTHERS or FINISH_TURN):  # noqa: F821 (bound per copy)
        # the plain loop (mcts, flatmc): this one's shape is what Moon's search was timed with
        # (through policy_move and the cut-off test below, Moon's games ran about 10% slower)
        while not is_terminal(sim) and (depth == 0 or (steps < depth and not new_deal(sim))):  # noqa: F821
            p = current_player(sim)  # noqa: F821
            # listing the moves is a good part of a step's cost; a policy that finds its own skips it
            m = legal_actions(sim, params, legal) if POLICY_LEGAL else np.int64(0)  # noqa: F821
            apply(sim, params, POLICY(sim, legal, m, POLICY_BOT_PARAMS, params,  # noqa: F821
                                      streams, p, work.ints, work.floats))
            steps += 1
    elif use_policy:
        last = -1
        while not is_terminal(sim):  # noqa: F821 (bound per game)
            p = current_player(sim)  # noqa: F821
            # the cut-off: after ``depth`` decisions, or (FINISH_TURN) at the first change
            # of seat after them, so that no seat is valued half-way through its turn
            if depth != 0 and (new_deal(sim) or steps >= depth and not (FINISH_TURN and p == last)):  # noqa: F821
                break
            apply(sim, params, policy_move(sim, params, legal, seat, p, streams, work.ints, work.floats))
            last = p
            steps += 1
    elif depth == 0:
        while not is_terminal(sim):  # noqa: F821
            if random_run(sim, params, streams) > 0:  # noqa: F821
                continue
            p = current_player(sim)  # noqa: F821
            apply(sim, params, random_action(sim, params, streams, p))  # noqa: F821
    else:
        while not is_terminal(sim) and steps < depth and not new_deal(sim):  # noqa: F821
            p = current_player(sim)  # noqa: F821
            apply(sim, params, random_action(sim, params, streams, p))  # noqa: F821
            steps += 1
    if is_terminal(sim):  # noqa: F821
        returns(sim, params, players, value)  # noqa: F821
    else:
        evaluate(sim, params, players, value)  # noqa: F821


def _entry(game: str, bot: str | None):
    """Bot ``bot``'s catalogue entry in ``game`` (None: random, or a game without it)."""
    if bot is None:
        return None
    from bots.registry import catalogue_entries

    return next((e for e in catalogue_entries(game) if e.spec.name == bot), None)


def _defaults_key(entry) -> str:
    """The parameter values a compiled copy plays ``entry``'s bot with (its defaults, as
    ``globals`` compiles them in as constants)."""
    from bots.registry import values_key

    return values_key(p.default for p in entry.spec.params)


def policy_move(sim, params, legal, seat, p, streams, ints, floats):
    """The rollout policy's move for ``p`` in ``sim`` when ``seat`` searches (``ask_policy``),
    the legal actions listed first for a policy that is handed them."""
    # listing the moves is a good part of a step's cost; a policy that finds its own skips it
    listed = OTHERS_LEGAL if HAS_OTHERS and p != seat else POLICY_LEGAL  # noqa: F821 (bound per copy)
    m = legal_actions(sim, params, legal) if listed else np.int64(0)  # noqa: F821
    return ask_policy(sim, legal, m, params, seat, p, streams, ints, floats)


def ask_policy(sim, legal, m, params, seat, p, streams, ints, floats):
    """The move of the policy that plays ``p`` when ``seat`` searches, given the ``m``
    legal actions in ``legal``: the opponent model's (``OTHERS``) for another seat when
    there is one, else ``POLICY``'s."""
    if HAS_OTHERS and p != seat:  # noqa: F821 (bound per copy)
        return OTHERS(sim, legal, m, OTHERS_BOT_PARAMS, params, streams, p, ints, floats)  # noqa: F821
    return POLICY(sim, legal, m, POLICY_BOT_PARAMS, params, streams, p, ints, floats)  # noqa: F821


# what a compiled copy that calls ``rollout`` binds with it, callees first (mcts, flatmc and
# the training kernels list this, never the functions one by one: a helper missing from one
# list fails only when that copy compiles afresh)
ROLLOUT_FUNCTIONS = (ask_policy, policy_move, rollout)


@dataclass(frozen=True)
class RolloutPolicy:
    """The bot a search bot's rollouts (and whatever else it consults the policy for)
    play, named at the search bot's registration: ``bot`` is one of the game's bots,
    played with its default parameters; None plays random.  ``others``, when given, is
    the bot the *other* seats play (an opponent model: e.g. the searching seat's rollouts
    by the learned network, its opponents' by greedy); None: every seat plays ``bot``."""
    bot: str | None
    others: str | None = None
    finish_turn: bool = False

    def spec(self, game: str):
        """The policy bot's spec in ``game`` (None: random, or a game without it)."""
        e = self.entry(game)
        return None if e is None else e.spec

    def entry(self, game: str):
        """The policy bot's catalogue entry in ``game`` (None: random, or a game without it)."""
        return _entry(game, self.bot)

    def _others(self, game: str):
        """The opponent model's entry in ``game`` (None: none, every seat plays ``bot``)."""
        if self.others is None or self.entry(game) is None:
            return None
        e = _entry(game, self.others)
        if e is None:
            from bots.registry import BotError
            raise BotError(f"rollout policy: {game} has no bot {self.others!r} to model the other seats")
        return e

    def key(self, game: str) -> str:
        """What keys a compiled copy that calls this policy in ``game``: the policy bot's own
        key there (its sources' hash and the data its copy carries, e.g. the learned bot's
        model digest; "" for random).  The caller's copy has the policy's globals compiled
        in, while the on-disk cache is keyed by the caller's sources: without this, new
        weights would run under the old copy.  Read when the copy is compiled, not at
        registration (the policy bot may register later)."""
        e = self.entry(game)
        o = self._others(game)
        return (("" if e is None else e.key(game) + _defaults_key(e))
                + ("" if o is None else f"|others:{o.key(game)}{_defaults_key(o)}")
                + ("|finish_turn" if self.finish_turn else ""))

    def memory(self, info) -> tuple[int, int]:
        """(G, GF): the policy's int64 / float64 scratch per seat, at the game's most
        players (at least 1 each, so the scratch is never empty); with an opponent model,
        the larger of the two (a seat's row serves the one policy that plays it)."""
        ints, floats = 1, 1
        for e in (self.entry(info.name), self._others(info.name)):
            if e is not None:
                i, f = e.spec.memory(info, info.max_players, tuple(p.default for p in e.spec.params))
                ints, floats = max(ints, int(i)), max(floats, int(f))
        return ints, floats

    def globals(self, game) -> dict:
        """The compiled copy's globals for ``game`` (module docstring)."""
        from bots.registry import MAX_BOT_PARAMS, bound_policy
        from simcore.protocol import no_policy

        info = game.INFO
        spec = self.spec(info.name)
        table = np.zeros((info.max_players, MAX_BOT_PARAMS), np.float64)
        ints, floats = self.memory(info)
        common = {"POLICY_BOT_PARAMS": table, "POLICY_INTS": ints, "POLICY_FLOATS": floats,
                  "OTHERS": no_policy, "HAS_OTHERS": False, "OTHERS_LEGAL": True,
                  "OTHERS_BOT_PARAMS": np.zeros((info.max_players, MAX_BOT_PARAMS), np.float64),
                  "FINISH_TURN": self.finish_turn}
        if spec is None:
            return {"POLICY": no_policy, "HAS_POLICY": False, "POLICY_LEGAL": True, **common}
        table[:, :len(spec.params)] = [p.default for p in spec.params]
        o = self._others(info.name)
        if o is not None:
            common["OTHERS_BOT_PARAMS"][:, :len(o.spec.params)] = [p.default for p in o.spec.params]
            common.update(OTHERS=bound_policy(info.name, self.others), HAS_OTHERS=True,
                          OTHERS_LEGAL=o.legal)
        return {"POLICY": bound_policy(info.name, self.bot), "HAS_POLICY": True,
                "POLICY_LEGAL": self.entry(info.name).legal, **common}


RANDOM_ROLLOUT = RolloutPolicy(None)
