"""Generic game loop and parallel batch kernel, written once against the protocol.

These are plain-Python templates; ``runtime.kernels.kernels_for(game)`` compiles one copy
per game with ``protocol.bind`` (the names ``init``, ``apply``, ``policy`` … below are
that game's kernels).  The batch kernel crosses the Python boundary once per batch; bots
are called by integer id inside the loop: kind 0 is the game's ``random_action``, kinds
below ``GENERIC_BASE`` the game's own ``policy``, the rest the generic bots
(``generic_policy``, ``bots/generic``).

Each bot seat has its own working memory: rows ``seat`` of ``imem`` (int64) and ``fmem``
(float64), ``(players, n)`` arrays allocated once per chunk of games.  The arrays are
passed whole with the seat, never as row slices.

The game loop (``play_game`` and the replay loop) is compiled without Numba's reference
counting (``_nrt=False``): it allocates nothing, and with reference counting every call
it makes would increment and decrement the count of each array it passes (measured: about
a third of a random decision).  The entry points that allocate the per-chunk buffers
keep it.
"""
import numpy as np
from numba import prange

from .rng import CHANCE_STREAM, bot_stream, stream_key

RANDOM_BOT = 0
# games are handed to threads in chunks: lengths vary a lot, so small chunks balance
# the threads, and each chunk allocates its buffers once
GAMES_PER_CHUNK = 16
# result row prefix written by the runner itself
COL_INDEX = 0
COL_DECISIONS = 1
ROW_PREFIX = 2


def choose_action(bot_kind, bot_params, state, params, rng, seat, imem, fmem):
    """The action of ``seat``'s bot.  Bot parameters and memory stay 2-D arrays (rows are
    not sliced out per decision)."""
    kind = bot_kind[seat]
    if kind == RANDOM_BOT:
        return random_action(state, params, rng, seat)  # noqa: F821 (bound per game)
    if kind < GENERIC_BASE:  # noqa: F821
        return policy(kind, bot_params, state, params, rng, seat, imem, fmem)  # noqa: F821
    return generic_policy(kind - GENERIC_BASE, bot_params, state, params, rng, seat,  # noqa: F821
                          imem, fmem)


def play_game(state, params, players, seed, index, bot_kind, bot_params, rng, imem, fmem,
              record, max_decisions):
    """Play game ``index`` of run ``seed`` to the end; return the number of decisions
    (-1 if the game overran ``max_decisions``, which only a kernel bug can cause).
    The first ``len(record)`` actions are written to ``record``."""
    init(state, params, players, stream_key(seed, index, CHANCE_STREAM))  # noqa: F821
    for s in range(players):
        rng[s] = stream_key(seed, index, bot_stream(s))
    cap = record.shape[0]
    # when every seat plays at random the game may take many decisions in one fast call
    # (same draws, same result); recording needs each action, so it steps one by one
    fast = cap == 0
    for s in range(players):
        if bot_kind[s] != RANDOM_BOT:
            fast = False
    n = 0
    while not is_terminal(state):  # noqa: F821
        if fast:
            k = random_run(state, params, rng)  # noqa: F821
            if k > 0:
                n += k
                continue
        p = current_player(state)  # noqa: F821
        a = choose_action(bot_kind, bot_params, state, params, rng, p, imem, fmem)
        if n < cap:
            record[n] = a
        apply(state, params, a)  # noqa: F821
        n += 1
        if n > max_decisions:
            return -1
    return n


def run_batch(params, players, seed, start, count, bot_kind, bot_params, state_size,
              imem_size, fmem_size, max_decisions, out):
    """Play games ``start … start+count-1`` into ``out[g]`` (one result row each)."""
    nchunks = (count + GAMES_PER_CHUNK - 1) // GAMES_PER_CHUNK
    for c in prange(nchunks):
        state = np.empty(state_size, np.int64)
        rng = np.empty(players, np.int64)
        imem = np.zeros((players, imem_size), np.int64)
        fmem = np.zeros((players, fmem_size), np.float64)
        record = np.empty(0, np.int64)
        lo = c * GAMES_PER_CHUNK
        hi = min(count, lo + GAMES_PER_CHUNK)
        for g in range(lo, hi):
            n = play_game(state, params, players, seed, start + g, bot_kind, bot_params,
                          rng, imem, fmem, record, max_decisions)
            out[g, COL_INDEX] = start + g
            out[g, COL_DECISIONS] = n
            summarize(state, params, players, out[g, ROW_PREFIX:])  # noqa: F821


def play_recorded(params, players, seed, index, bot_kind, bot_params, state_size,
                  imem_size, fmem_size, max_decisions, record, out_row):
    """Game ``index`` alone, with its action sequence (for traces and ``show``)."""
    state = np.empty(state_size, np.int64)
    rng = np.empty(players, np.int64)
    imem = np.zeros((players, imem_size), np.int64)
    fmem = np.zeros((players, fmem_size), np.float64)
    n = play_game(state, params, players, seed, index, bot_kind, bot_params, rng, imem, fmem,
                  record, max_decisions)
    out_row[COL_INDEX] = index
    out_row[COL_DECISIONS] = n
    summarize(state, params, players, out_row[ROW_PREFIX:])  # noqa: F821
    return n


def record_batch(params, players, seed, start, count, bot_kind, bot_params, state_size,
                 imem_size, fmem_size, max_decisions, actions):
    """Games ``start …`` one after another (one thread), their actions back to back in
    ``actions``; returns how many games fitted whole (for ``playlab bench``)."""
    state = np.empty(state_size, np.int64)
    rng = np.empty(players, np.int64)
    imem = np.zeros((players, imem_size), np.int64)
    fmem = np.zeros((players, fmem_size), np.float64)
    pos = 0
    for g in range(count):
        record = actions[pos:]
        n = play_game(state, params, players, seed, start + g, bot_kind, bot_params, rng,
                      imem, fmem, record, max_decisions)
        if n < 0 or n > record.shape[0]:
            return g
        pos += n
    return count


def replay_loop(params, players, seed, start, count, actions, state, rng, bot_kind,
                bot_params, imem, fmem):
    pos = 0
    for g in range(count):
        init(state, params, players, stream_key(seed, start + g, CHANCE_STREAM))  # noqa: F821
        for s in range(players):
            rng[s] = stream_key(seed, start + g, bot_stream(s))
        while not is_terminal(state):  # noqa: F821
            if pos == actions.shape[0]:
                return -1
            choose_action(bot_kind, bot_params, state, params, rng, current_player(state),  # noqa: F821
                          imem, fmem)
            apply(state, params, actions[pos])  # noqa: F821
            pos += 1
    return pos


def replay_with_random(params, players, seed, start, count, actions, state_size):
    """The games ``record_batch`` kept, played again from their actions while the random
    bot also chooses in every position (its choice is thrown away): the same engine work
    plus one random decision per position.  Timed against the bots' own run it gives what
    their decisions cost next to random ones in the same positions.  Returns the actions
    used (all of them when the replay ends every game where it ended; -1 if they ran out)."""
    state = np.empty(state_size, np.int64)
    rng = np.empty(players, np.int64)
    imem = np.zeros((players, 1), np.int64)
    fmem = np.zeros((players, 1), np.float64)
    # random seats, chosen through the same dispatch as in play_game
    bot_kind = np.full(players, RANDOM_BOT, np.int64)
    bot_params = np.zeros((players, 1), np.float64)
    return replay_loop(params, players, seed, start, count, actions, state, rng, bot_kind,
                       bot_params, imem, fmem)


TEMPLATES = ("choose_action", "play_game", "run_batch", "play_recorded", "record_batch",
             "replay_loop", "replay_with_random")
NO_NRT = {"_nrt": False}
JIT_OPTIONS = {"run_batch": {"parallel": True}, "choose_action": {"inline": "always", **NO_NRT},
               "play_game": NO_NRT, "replay_loop": NO_NRT}
