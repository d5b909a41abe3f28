"""``flatmc``: flat Monte Carlo, for every game.

For each legal action, ``playouts`` playouts: a world sampled with the game's
``determinize`` from the acting seat's ``observe`` view, the action applied, random play
to the end; the action with the best mean ``returns`` for the acting seat is chosen
(ties: the lowest action).  It reads only the view: the real state is touched once, by
``observe``.  Every draw comes from the seat's own bot stream (``rng[seat]``): the
samples directly, the rollouts through private per-seat streams derived from it, so
rollouts may use the game's ``random_run`` fast path without touching another seat's
stream.

The playouts are the rollout mcts uses too (``bots/generic/rollout.py``), here with the
random policy its registration passes (``RANDOM_ROLLOUT``) and no cut-off: every playout
goes to the end.

Working memory (its seat's rows): int64 ``[view | sample | legal actions | rollout
streams | the rollout policy's scratch]`` = 2 state sizes + the action count + 2 players
(random play keeps one unused slot a seat); float64 ``[returns | the policy's scratch]`` =
2 players.
"""
import numpy as np

from bots.generic.rollout import RANDOM_ROLLOUT, ROLLOUT_FUNCTIONS, Rollout, rollout
from bots.registry import BotParam, BotSpec, register_bot

P_PLAYOUTS = 0
# the policy its playouts play, passed in here: random (the game's random_action)
POLICY_LINK = RANDOM_ROLLOUT


def memory(info, players, values):
    gi, gf = POLICY_LINK.memory(info)
    return (2 * info.state_size(players) + info.num_actions + players + players * gi,
            players + players * gf)


SPEC = BotSpec(
    "flatmc",
    "flat Monte Carlo: per legal action, random playouts from worlds sampled from its own "
    "view; the best mean return wins (ties: lowest action)",
    (BotParam("playouts", 8, 1, 10000, "playouts per legal action", integer=True),),
    memory=memory,
)
REQUIRES = ("determinize", "legal_actions", "apply", "is_terminal", "current_player",
            "random_action", "returns")


def choose(given_view, given_legal, given_n, bot_params, params, rng, seat, imem, fmem):
    players = imem.shape[0]
    size = given_view.shape[0]
    na = NUM_ACTIONS  # noqa: F821 (bound per game)
    playouts = np.int64(bot_params[seat, P_PLAYOUTS])
    row = imem[seat]
    frow = fmem[seat]
    view = row[0:size]
    sample = row[size:2 * size]
    o = 2 * size
    work = Rollout(row[o:o + na], row[o + na:o + na + players],
                   row[o + na + players:o + na + players + players * POLICY_INTS].reshape(  # noqa: F821
                       (players, POLICY_INTS)),  # noqa: F821
                   frow[players:players + players * POLICY_FLOATS].reshape(  # noqa: F821
                       (players, POLICY_FLOATS)),  # noqa: F821
                   frow[0:players])
    legal = work.legal
    for i in range(size):
        view[i] = given_view[i]
    determinize(view, params, seat, rng, seat, sample)  # noqa: F821
    # the sample shows the actor the same legal actions as the real state
    n = legal_actions(sample, params, legal)  # noqa: F821
    if n == 1:
        return legal[0]
    best = -1.0
    best_action = legal[0]
    for i in range(n):
        total = 0.0
        for _ in range(playouts):
            determinize(view, params, seat, rng, seat, sample)  # noqa: F821
            apply(sample, params, legal[i])  # noqa: F821
            # random play to the end, valued by returns
            rollout(sample, params, rng, seat, False, np.int64(0), work)
            total += work.value[seat]
        if total > best:
            best = total
            best_action = legal[i]
    return best_action


def bind_extra(game):
    """The compiled copy's globals: the rollout policy's and the game's action count."""
    return {**POLICY_LINK.globals(game), "NUM_ACTIONS": game.INFO.num_actions}


# Numba compiles a callee with its caller's reference-counting setting unless the callee
# sets its own: the engine's loop runs without it, but a game's observe/determinize may
# need it (``out[:] = view`` checks for overlap and may copy), so this bot turns it back
# on for itself and the game kernels it calls; next to its playouts the counting is noise.
JIT_OPTIONS = {"choose": {"_nrt": True}}


register_bot(SPEC, choose, helpers=ROLLOUT_FUNCTIONS, requires=REQUIRES, extra=bind_extra,
             jit_options=JIT_OPTIONS)
