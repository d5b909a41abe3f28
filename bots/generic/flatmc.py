"""``flatmc``: flat Monte Carlo, for every game.

For each legal action, ``playouts`` playouts: a world sampled with the game's
``determinize`` from the acting seat's ``observe`` view, the action applied, random play
to the end; the action with the best mean ``returns`` for the acting seat is chosen
(ties: the lowest action).  It reads only the view: the real state is touched once, by
``observe``.  Every draw comes from the seat's own bot stream (``rng[seat]``): the
samples directly, the rollouts through private per-seat streams derived from it, so
rollouts may use the game's ``random_run`` fast path without touching another seat's
stream.

Working memory (its seat's rows): int64 ``[view | sample | legal actions | rollout
streams]`` = 2 state sizes + the action count + players; float64 ``[returns]`` = players.
"""
import numpy as np

from bots.registry import BotParam, BotSpec, register_bot
from simcore.rng import GOLDEN, mix64, next_u64

P_PLAYOUTS = 0

SPEC = BotSpec(
    "flatmc",
    "flat Monte Carlo: per legal action, random playouts from worlds sampled from its own "
    "view; the best mean return wins (ties: lowest action)",
    (BotParam("playouts", 8, 1, 10000, "playouts per legal action", integer=True),),
    memory=lambda info, players, values: (2 * info.state_size(players) + info.num_actions + players,
                                          players),
)
REQUIRES = ("determinize", "legal_actions", "apply", "is_terminal", "current_player",
            "random_action", "returns")


def rollout(sim, params, rng, seat, streams):
    """Random play of ``sim`` to its end, every seat drawing from a stream derived from
    ``rng[seat]`` (which advances once)."""
    base = next_u64(rng, seat)
    for s in range(streams.shape[0]):
        streams[s] = np.int64(mix64(base + np.uint64(s + 1) * GOLDEN))
    while not is_terminal(sim):  # noqa: F821 (bound per game)
        if random_run(sim, params, streams) > 0:  # noqa: F821
            continue
        p = current_player(sim)  # noqa: F821
        apply(sim, params, random_action(sim, params, streams, p))  # noqa: F821


def choose(given_view, given_legal, given_n, bot_params, params, rng, seat, imem, fmem):
    players = imem.shape[0]
    size = given_view.shape[0]
    playouts = np.int64(bot_params[seat, P_PLAYOUTS])
    row = imem[seat]
    view = row[0:size]
    sample = row[size:2 * size]
    rest = row[2 * size:]
    legal = rest[0:rest.shape[0] - players]
    streams = rest[rest.shape[0] - players:]
    ret = fmem[seat]
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
            rollout(sample, params, rng, seat, streams)
            returns(sample, params, players, ret)  # noqa: F821
            total += ret[seat]
        if total > best:
            best = total
            best_action = legal[i]
    return best_action


# Numba compiles a callee with its caller's reference-counting setting unless the callee
# sets its own: the engine's loop runs without it, but a game's observe/determinize may
# need it (``out[:] = view`` checks for overlap and may copy), so this bot turns it back
# on for itself and the game kernels it calls; next to its playouts the counting is noise.
JIT_OPTIONS = {"choose": {"_nrt": True}}


register_bot(SPEC, choose, helpers=(rollout,), requires=REQUIRES, jit_options=JIT_OPTIONS)
