"""Generic game loop and parallel batch kernel, written once against the protocol.

These are plain-Python templates; ``runtime.kernels.kernels_for(game, bots)`` compiles one
copy per game and set of bots with ``protocol.bind`` (the names ``init``, ``apply``,
``dispatch`` … below are that game's kernels and that run's bots).  The batch kernel
crosses the Python boundary once per batch; bots are called by integer kind inside the
loop: kind 0 is the game's ``random_action`` (the engine's own, deciding from the legal
moves alone), kinds 1..k the run's compiled bots through ``dispatch``, a chain of
``link_view`` / ``link_state`` copies, one per bot.  A link hands its bot the seat's view
(the game's ``observe``) and the legal actions, never the real state (``link_state``, for
bots registered with ``sees="state"``, hands the state; ``playlab check`` verifies them).
Kind ``AGENT_KIND`` marks a seat played by a Python agent: ``advance`` stops there and
``runtime.agents`` asks the agent.

Each bot seat has its own working memory: rows ``seat`` of ``imem`` (int64) and ``fmem``
(float64), ``(players, n)`` arrays zeroed every ``GAMES_PER_CHUNK`` games, handed to the
loop with the view and legal-action buffers.  The arrays are passed whole with the seat,
never as row slices.

The game loop (``play_games``, the links and the replay loop) is compiled without Numba's
reference counting (``_nrt=False``): it allocates nothing (the runner hands it its buffers),
and with reference counting every call it makes would increment and decrement the count of
each array it passes (measured: about a third of a random decision).  The entry points that
allocate their buffers keep it.
"""
import numpy as np
from numba import njit

from .rng import CHANCE_STREAM, bot_stream, stream_key

RANDOM_BOT = 0
AGENT_KIND = -1  # a Python agent's seat (bots.registry.AGENT_KIND)
CONTINUE = -1  # play_games' start for "the game already in state goes on" (games are numbered from 0)
NO_LIMIT = 1 << 62  # a count of decisions no game reaches
# games are handed to threads in chunks: lengths vary a lot, so small chunks balance
# the threads; each chunk starts with zeroed working memory
GAMES_PER_CHUNK = 16
# result row prefix written by the runner itself
COL_INDEX = 0
COL_DECISIONS = 1
ROW_PREFIX = 2


# What the engine's dispatch returns instead of a compiled bot's action that is not legal
# (no compiled bot has the kind, or the bot answered with a move the rules do not allow):
# the loop stops the game there rather than hand the rules a move that may index outside
# the state.  ``advance`` then returns ``REFUSED_BY_SEAT - seat``.
REFUSED = -1
REFUSED_BY_SEAT = -2


@njit(cache=True, inline="always")
def is_listed(a, legal, n):
    """Whether action ``a`` is among ``legal[:n]`` (ascending): a binary search."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if legal[mid] < a:
            lo = mid + 1
        else:
            hi = mid
    return lo < n and legal[lo] == a


def no_bot(kind, bot_params, state, params, rng, seat, imem, fmem, view, legal):
    """The end of the dispatch chain: no compiled bot has this kind."""
    return REFUSED


def legal_answer(a, state, params, legal, n):
    """Bot answer ``a`` if the engine takes it, else ``REFUSED`` (bound per link, with its
    bot's ``LISTS_LEGAL`` and ``LISTS_AFTER``).  The same check for every compiled bot,
    built-in or a plugin's: among the ``legal[:n]`` it was handed.  A bot that finds its own
    moves (``legal=False``) is handed none: a plugin's answer is then checked against the
    legal moves listed after it answered (``LISTS_AFTER``; an illegal move applied breaks the
    game's state, even the process), a built-in one's, which the test suite plays through
    ``playlab check``, only against the action ids."""
    if LISTS_LEGAL:  # noqa: F821 (a constant per link: the other branches are compiled away)
        return a if is_listed(a, legal, n) else REFUSED
    if LISTS_AFTER:  # noqa: F821
        return a if is_listed(a, legal, legal_actions(state, params, legal)) else REFUSED  # noqa: F821
    return a if 0 <= a < NUM_ACTIONS else REFUSED  # noqa: F821


def link_view(kind, bot_params, state, params, rng, seat, imem, fmem, view, legal):
    """Bot ``KIND`` of the run (bound per link), handed the seat's view and its legal
    actions; other kinds go down the chain (``rest``)."""
    if kind == KIND:  # noqa: F821 (bound per link)
        observe(state, seat, view)  # noqa: F821
        n = 0
        if LISTS_LEGAL:  # noqa: F821 (bound per link: a constant, so the other branch is compiled away)
            n = legal_actions(state, params, legal)  # noqa: F821
        return legal_answer(bot(view, legal, n, bot_params, params, rng, seat, imem, fmem), state, params, legal, n)  # noqa: F821
    return rest(kind, bot_params, state, params, rng, seat, imem, fmem, view, legal)  # noqa: F821


def link_state(kind, bot_params, state, params, rng, seat, imem, fmem, view, legal):
    """As ``link_view`` for a bot registered with ``sees="state"``: it is handed the state."""
    if kind == KIND:  # noqa: F821
        n = 0
        if LISTS_LEGAL:  # noqa: F821
            n = legal_actions(state, params, legal)  # noqa: F821
        return legal_answer(bot(state, legal, n, bot_params, params, rng, seat, imem, fmem), state, params, legal, n)  # noqa: F821
    return rest(kind, bot_params, state, params, rng, seat, imem, fmem, view, legal)  # noqa: F821


def choose_action(bot_kind, bot_params, state, params, rng, seat, imem, fmem, view, legal):
    """The action of ``seat``'s bot.  Bot parameters and memory stay 2-D arrays (rows are
    not sliced out per decision)."""
    kind = bot_kind[seat]
    if kind == RANDOM_BOT:
        return random_action(state, params, rng, seat)  # noqa: F821 (bound per game)
    return dispatch(kind, bot_params, state, params, rng, seat, imem, fmem, view, legal)  # noqa: F821


def start_game(state, params, players, seed, index, rng):
    """Deal game ``index`` of run ``seed`` and seed every seat's bot stream.  The state
    buffer is reused from game to game: a game's ``init`` sets every word of it (``playlab
    check`` tests that), or a bot reading its view would see the game before."""
    init(state, params, players, stream_key(seed, index, np.int64(CHANCE_STREAM)))  # noqa: F821 (typed, not a literal: one copy of stream_key)
    for s in range(players):
        rng[s] = stream_key(seed, index, bot_stream(s))


def advance(state, params, bot_kind, bot_params, rng, imem, fmem, view, legal, record, limit, max_decisions,
            fast, stop_at_agent):
    """The engine's one loop of decisions, over the game in ``state``: until it ends, ``limit``
    decisions were taken or (``stop_at_agent``) a Python agent's seat must decide.  Returns
    how many were taken (the caller reads ``current_player``); -1 once they pass
    ``max_decisions`` (a game overran its cap: only a kernel bug can cause it);
    ``REFUSED_BY_SEAT - seat`` when ``seat``'s bot chose a move that is not legal (not
    applied).  With ``fast`` (every seat random, nothing recorded) the game may take many
    decisions in one call of its ``random_run`` (the same draws, the same result).  The
    first ``len(record)`` actions are written to ``record``.

    Each copy of this loop inlines the whole chain of bots (``choose_action``), so
    ``play_games`` calls it in one place, for new games and for a game under way (a second
    copy there cost about a tenth of the CPU time of compiling a chain whose bots were
    cached: README, *Cold start*)."""
    n = 0
    while n < limit and not is_terminal(state):  # noqa: F821
        if fast:
            k = random_run(state, params, rng)  # noqa: F821
            if k > 0:
                n += k
                continue
        p = current_player(state)  # noqa: F821
        if stop_at_agent and bot_kind[p] == AGENT_KIND:
            break
        a = choose_action(bot_kind, bot_params, state, params, rng, p, imem, fmem, view, legal)
        if a < 0:
            return REFUSED_BY_SEAT - p
        if n < record.shape[0]:
            record[n] = a
        apply(state, params, a)  # noqa: F821
        n += 1
        if n > max_decisions:
            return -1
    return n


def play_games(params, players, seed, start, count, bot_kind, bot_params, state, rng, imem, fmem,
               view, legal, max_decisions, actions, out):
    """Play games ``start … start+count-1`` into ``out[g]`` (one result row each), on the
    calling thread, in the buffers it is handed (``runtime.runner.Batch`` allocates them
    per call; ``Batch.run`` spreads pieces of a batch over threads: compiled with ``nogil``,
    not as a Numba ``prange`` loop, whose parallel compile took about a fifth of a cold
    compile).  The seats' working memory is zeroed every ``GAMES_PER_CHUNK`` games from
    ``start``, where pieces start.

    With ``actions`` not empty the games are also recorded, their actions back to back,
    and play stops after the first game whose actions did not fit whole: returns how many
    did (``count`` when ``actions`` is empty).

    With ``start`` = ``CONTINUE`` the game already in ``state`` goes on instead, with no deal
    and no memory zeroed: ``advance`` for at most ``count`` decisions (``out`` unused).  That
    is how Python agents' games, the Gymnasium environment and one bot decision at a time
    (``Batch.bot_action``: ``playlab check``, ``human``, ``bench``) run.

    One entry point for all of these: each entry point compiles again everything inlined into
    it, the whole chain of bots, so a chain used several ways compiles once, not once per
    way (the suite's cold compiles were most of CI's time)."""
    continuing = start == CONTINUE
    recording = actions.shape[0] > 0
    all_random = True
    for s in range(players):
        if bot_kind[s] != RANDOM_BOT:
            all_random = False
    pos = 0
    for g in range(1 if continuing else count):
        if continuing:
            limit = count
            cap = NO_LIMIT
        else:
            if g % GAMES_PER_CHUNK == 0:
                imem[:] = 0
                fmem[:] = 0
            start_game(state, params, players, seed, start + g, rng)
            limit = NO_LIMIT
            cap = max_decisions
        # past the end of a full buffer the slice is empty: the game plays unrecorded
        record = actions[pos:]
        # recording needs each action, so a game of random seats takes the fast path only unrecorded
        fast = all_random and record.shape[0] == 0 and not continuing
        n = advance(state, params, bot_kind, bot_params, rng, imem, fmem, view, legal, record, limit, cap, fast,
                    continuing)
        if continuing:
            return REFUSED if n <= REFUSED_BY_SEAT else n
        out[g, COL_INDEX] = start + g
        out[g, COL_DECISIONS] = n
        summarize(state, params, players, out[g, ROW_PREFIX:])  # noqa: F821
        if recording:
            if n < 0 or pos + n > actions.shape[0]:
                return g
            pos += n
    return count


def replay_loop(params, players, seed, start, count, actions, state, rng, bot_kind,
                bot_params, imem, fmem, view, legal):
    pos = 0
    for g in range(count):
        start_game(state, params, players, seed, start + g, rng)
        while not is_terminal(state):  # noqa: F821
            if pos == actions.shape[0]:
                return -1
            choose_action(bot_kind, bot_params, state, params, rng, current_player(state),  # noqa: F821
                          imem, fmem, view, legal)
            apply(state, params, actions[pos])  # noqa: F821
            pos += 1
    return pos


def replay_with_random(params, players, seed, start, count, actions, state_size):
    """The games ``play_games`` recorded, played again from their actions while the random
    bot also chooses in every position (its choice is thrown away): the same engine work
    plus one random decision per position.  Timed against the bots' own run it gives what
    their decisions cost next to random ones in the same positions.  Returns the actions
    used (all of them when the replay ends every game where it ended; -1 if they ran out)."""
    state = np.empty(state_size, np.int64)
    rng = np.empty(players, np.int64)
    imem = np.zeros((players, 1), np.int64)
    fmem = np.zeros((players, 1), np.float64)
    # random seats, chosen through the same dispatch as in play_games
    bot_kind = np.full(players, RANDOM_BOT, np.int64)
    bot_params = np.zeros((players, 1), np.float64)
    view = np.empty(state_size, np.int64)
    legal = np.empty(NUM_ACTIONS, np.int64)  # noqa: F821
    return replay_loop(params, players, seed, start, count, actions, state, rng, bot_kind,
                       bot_params, imem, fmem, view, legal)


TEMPLATES = ("choose_action", "start_game", "advance", "play_games", "replay_loop",
             "replay_with_random")
# what Python calls (``runtime.kernels.kernels_for`` exposes only these): every other template
# is inlined into them, and each further entry point would compile the chain of bots again
ENTRY_POINTS = ("start_game", "play_games", "replay_with_random")
LINK_TEMPLATES = {"view": "link_view", "state": "link_state"}
NO_NRT = {"_nrt": False}
# Every separately compiled function is optimised again, and turned into machine code again,
# with all it calls linked in: the links are inlined into the loop (Numba's own inlining)
# so that a bot's code is not compiled once more per link of the chain.
INLINE = {"inline": "always"}
JIT_OPTIONS = {"play_games": {"nogil": True, **NO_NRT}, "choose_action": {**INLINE, **NO_NRT},
               "replay_loop": NO_NRT, "advance": {**INLINE, **NO_NRT},
               "link_view": {**INLINE, **NO_NRT}, "link_state": {**INLINE, **NO_NRT}, "no_bot": NO_NRT,
               "legal_answer": {**INLINE, **NO_NRT}}
