"""``mcts``: information-set Monte Carlo tree search, for every game.

Variant: single-observer ISMCTS (Cowling, Powley & Whitehouse 2012).  One tree per
decision, over the acting seat's information set: every iteration samples a world with
the game's ``determinize`` from the seat's ``observe`` view (its own hand and everything
public fixed, the rest dealt at random), walks the tree choosing among the children whose
action is legal *in that world* by UCB1 with availability counts (a child's exploration
term uses how often it was available, not its parent's visits), expands one untried legal
action (the game's greedy move in that world first, with ``prior`` virtual wins; else one
at random), finishes the world with a rollout and backs up the whole
per-seat value vector; a node's value is read for the seat that chose its action, so each
seat maximises its own value (2-6 players, general sum).  Single-observer because it needs
no per-seat trees and is the paper's baseline; its known weakness (opponents' nodes pool
their information sets with ours) matters least against non-adaptive opponents like the
greedy bots.  The decision: the root child with the most visits (ties: lowest action).

A node is keyed by (seat to move, action): a decision whose seat depends on hidden
information (none today) stays separate.  Every shape of decision the games have goes
through ``current_player`` and ``legal_actions`` alone.

Parameters (``bot_params[seat, P_*]``)
    iterations   iterations per decision (the tree holds iterations + 1 nodes)
    exploration  UCB constant c (values are in [0, 1])
    rollout      random (the game's ``random_action``; ``random_run`` when depth = 0) or
                 greedy (the game's own ``greedy`` bot, with its default parameters; a game
                 without one falls back to random)
    depth        rollout decisions before the cut-off, where the game's ``evaluate``
                 values the state (0: play to the end and use ``returns``)
    worlds       0: ISMCTS as above; k >= 1: determinized search (PIMC) for comparison, k
                 worlds each searched alone with iterations // k iterations, each world's
                 most-visited action one vote (ties: summed visits, then lowest action)
    delegate     hybrid: a decision whose lowest legal action id is >= delegate is made
                 by the game's greedy bot instead of the search (0: search every decision;
                 -1: the game's suggestion ``MCTS_DELEGATE_FROM`` in ``bots/<game>.py``,
                 0 if it has none).  Moon suggests 22 (= DISCARD_BASE): bids, widow
                 discard and trump are the greedy bidder's, the search plays the tiles;
                 see the README's MCTS section for why and for the measurements.
    prior        progressive bias from the game's greedy bot (none without one): when a
                 node expands a child and the greedy move of the walked world (for the
                 seat to move; it reads only that seat's part) is untried, that child
                 comes first and starts with ``prior`` virtual visits valued 1 for its
                 mover.  The search then starts from greedy's choice and leaves it only
                 when the rollouts say better.  Default 40 (10 was weaker in Sequence
                 Stacks: 0.37 against 0.53 vs greedy, 100 games per seating).

Defaults (measured; README): 1,000 iterations, exploration 0.7, random rollouts cut off
after 30 decisions by ``evaluate``, prior 40.  Greedy rollouts (``rollout=greedy``) were
much weaker with the prior on: 0.18 vs greedy in both Shifting Stones and Sequence Stacks
(100 games per seating), against about 0.5 with random rollouts.  Exploration 0.4 instead
of 0.7 changed nothing measurable (300 games per seating: Moon 0.402, Stones 0.493,
Stacks 0.537 against 0.411, 0.495, 0.540).

It reads only the view: the real state is touched once, by ``observe``; delegated
decisions are the greedy bot's on a determinized sample (it reads only its own seat's
part).  Every draw comes from the seat's own bot stream ``rng[seat]``: samples and
expansions directly, each rollout through private per-seat streams derived from it.

Working memory (its seat's rows; ``G``/``GF`` = the greedy bot's int/float memory at the
game's most players, ``S`` = state size, ``A`` = action count, ``P`` = players,
``N`` = iterations + 1 nodes)::

    int64  [0 : P*G]           greedy scratch, one G-slot row per seat it plays for
           [LAST_ITERATIONS]   iterations the last decision ran (0: forced or delegated)
           view[S] world[S] sample[S]      the seat's view, a PIMC world, the walked world
           legal[A] mark[A] seen[A]        legal actions; per action: stamp of the node
                                           visit where it is legal / has a child
           streams[P]          rollout streams
           tree[N * NODE_INTS] node i at i * NODE_INTS: ACTION, PARENT, CHILD (first),
                               SIBLING (next), VISITS, AVAIL, MOVER (seat that chose it)
    float64 [0 : P*GF]         greedy scratch
           value[P]            returns / evaluate of the last rollout
           votes[A]            PIMC votes
           sums[N * P]         per node, per seat: summed values

At the default budget (1,000 iterations) that is about 56 KB + 24 KB (3 players) per seat.
"""
import numpy as np

from bots.registry import BotParam, BotSpec
from simcore.rng import GOLDEN, below, mix64, next_u64

P_ITERATIONS = 0
P_EXPLORATION = 1
P_ROLLOUT = 2
P_DEPTH = 3
P_WORLDS = 4
P_DELEGATE = 5
P_PRIOR = 6

ROLLOUT_RANDOM = 0
ROLLOUT_GREEDY = 1

# node fields
ACTION = 0
PARENT = 1
CHILD = 2
SIBLING = 3
VISITS = 4
AVAIL = 5
MOVER = 6
NODE_INTS = 7
ROOT_INDEX = 0
NO_NODE = -1
UNVISITED = -1  # a mark/seen stamp no node visit has

LAST_ITERATIONS = 0  # header slot after the greedy scratch
HEADER = 1

DEFAULT_ITERATIONS = 1000

PARAMS = (
    BotParam("iterations", DEFAULT_ITERATIONS, 1, 1_000_000, "iterations per decision", integer=True),
    BotParam("exploration", 0.7, 0.0, 10.0, "UCB exploration constant (values are in [0, 1])"),
    BotParam("rollout", ROLLOUT_RANDOM, 0, 1, "rollout policy (greedy: the game's greedy bot; "
             "random where it has none)", integer=True, choices=("random", "greedy")),
    BotParam("depth", 30, 0, 100_000, "rollout decisions before the game's evaluate values "
             "the state (0: to the end)", integer=True),
    BotParam("worlds", 0, 0, 10_000, "0: information-set search; k: PIMC over k determinized "
             "worlds, votes combined", integer=True),
    BotParam("delegate", -1, -1, 100_000, "decisions whose lowest legal action is >= this go to "
             "the game's greedy bot (0: none; -1: the game's suggestion)", integer=True),
    BotParam("prior", 40, 0, 1_000_000, "virtual wins given to the greedy bot's move when a node "
             "expands it, which it does first (0: no prior, random expansion)", integer=True),
)


def _greedy(game):
    """The game's greedy bot spec with its kind (None when it has none)."""
    from bots.registry import bots_for
    return next((b for b in bots_for(game) if b.name == "greedy"), None)


def _greedy_memory(info):
    from simcore.games import load_game
    spec = _greedy(load_game(info.name))
    if spec is None:
        return 1, 1
    ints, floats = spec.memory(info, info.max_players, tuple(p.default for p in spec.params))
    return max(1, int(ints)), max(1, int(floats))


def memory(info, players, values):
    gi, gf = _greedy_memory(info)
    size = info.state_size(players)
    actions = info.num_actions
    nodes = int(values[P_ITERATIONS]) + 1
    ints = players * gi + HEADER + 3 * size + 3 * actions + players + nodes * NODE_INTS
    floats = players * gf + players + actions + nodes * players
    return ints, floats


SPEC = BotSpec(
    "mcts",
    "information-set MCTS (single observer, UCB with availability counts) over worlds "
    "sampled from its own view; rollouts cut off by the game's evaluate",
    PARAMS,
    memory=memory,
)
REQUIRES = ("observe", "determinize", "legal_actions", "apply", "is_terminal", "current_player",
            "random_action", "returns")


def bind_extra(game):
    """The game's greedy bot (policy, kind, default parameters, scratch size) and its
    suggested delegation threshold."""
    from bots.registry import MAX_BOT_PARAMS, bot_module
    from simcore.kernels import no_policy

    info = game.INFO
    module = bot_module(game)
    spec = _greedy(game)
    table = np.zeros((info.max_players, MAX_BOT_PARAMS), np.float64)
    gi, gf = _greedy_memory(info)
    if module is None or spec is None:
        return {"policy": no_policy, "HAS_GREEDY": False, "GREEDY_KIND": -1,
                "GREEDY_BOT_PARAMS": table, "GREEDY_INTS": gi, "GREEDY_FLOATS": gf,
                "DELEGATE_FROM": 0, "NUM_ACTIONS": info.num_actions}
    table[:, :len(spec.params)] = [p.default for p in spec.params]
    return {"policy": module.policy, "HAS_GREEDY": True, "GREEDY_KIND": spec.kind,
            "GREEDY_BOT_PARAMS": table, "GREEDY_INTS": gi, "GREEDY_FLOATS": gf,
            "DELEGATE_FROM": int(getattr(module, "MCTS_DELEGATE_FROM", 0)),
            "NUM_ACTIONS": info.num_actions}


def rollout(sim, params, rng, seat, streams, greedy, depth, gi, gf, out):
    """Finish ``sim`` (random or greedy play, every seat on a stream derived from
    ``rng[seat]``, which advances once) up to ``depth`` decisions, then value it into
    ``out``: ``returns`` at the end, the game's ``evaluate`` at a cut-off."""
    players = out.shape[0]
    base = next_u64(rng, seat)
    for s in range(streams.shape[0]):
        streams[s] = np.int64(mix64(base + np.uint64(s + 1) * GOLDEN))
    steps = 0
    if greedy:
        while not is_terminal(sim) and (depth == 0 or steps < depth):  # noqa: F821
            p = current_player(sim)  # noqa: F821
            apply(sim, params, policy(GREEDY_KIND, GREEDY_BOT_PARAMS, sim, params,  # noqa: F821
                                      streams, p, gi, gf))
            steps += 1
    elif depth == 0:
        while not is_terminal(sim):  # noqa: F821
            if random_run(sim, params, streams) > 0:  # noqa: F821
                continue
            p = current_player(sim)  # noqa: F821
            apply(sim, params, random_action(sim, params, streams, p))  # noqa: F821
    else:
        while not is_terminal(sim) and steps < depth:  # noqa: F821
            p = current_player(sim)  # noqa: F821
            apply(sim, params, random_action(sim, params, streams, p))  # noqa: F821
            steps += 1
    if is_terminal(sim):  # noqa: F821
        returns(sim, params, players, out)  # noqa: F821
    else:
        evaluate(sim, params, players, out)  # noqa: F821


def search(world, fresh, view, params, rng, seat, iterations, c, greedy, depth, prior, sample,
           legal, mark, seen, streams, tree, sums, out, gi, gf):
    """``iterations`` iterations of one tree from the root; each walks ``sample``, a
    fresh determinization (``fresh``) or a copy of ``world``."""
    players = out.shape[0]
    tree[ROOT_INDEX * NODE_INTS + ACTION] = -1
    tree[ROOT_INDEX * NODE_INTS + PARENT] = NO_NODE
    tree[ROOT_INDEX * NODE_INTS + CHILD] = NO_NODE
    tree[ROOT_INDEX * NODE_INTS + SIBLING] = NO_NODE
    tree[ROOT_INDEX * NODE_INTS + VISITS] = 0
    tree[ROOT_INDEX * NODE_INTS + AVAIL] = 0
    tree[ROOT_INDEX * NODE_INTS + MOVER] = -1
    for s in range(players):
        sums[ROOT_INDEX * players + s] = 0.0
    for a in range(mark.shape[0]):
        mark[a] = UNVISITED
        seen[a] = UNVISITED
    count = 1
    stamp = 0
    for _ in range(iterations):
        if fresh:
            determinize(view, params, seat, rng, seat, sample)  # noqa: F821
        else:
            for i in range(sample.shape[0]):
                sample[i] = world[i]
        node = ROOT_INDEX
        while not is_terminal(sample):  # noqa: F821
            p = current_player(sample)  # noqa: F821
            m = legal_actions(sample, params, legal)  # noqa: F821
            stamp += 1
            for i in range(m):
                mark[legal[i]] = stamp
            tried = 0
            best = NO_NODE
            best_value = -np.inf
            ch = tree[node * NODE_INTS + CHILD]
            while ch != NO_NODE:
                b = ch * NODE_INTS
                a = tree[b + ACTION]
                if mark[a] == stamp and tree[b + MOVER] == p:
                    seen[a] = stamp
                    tried += 1
                    tree[b + AVAIL] += 1
                    n = tree[b + VISITS]
                    v = sums[ch * players + p] / n + c * np.sqrt(np.log(tree[b + AVAIL]) / n)
                    if v > best_value:
                        best_value = v
                        best = ch
                ch = tree[b + SIBLING]
            if tried < m:
                action = -1
                virtual = 0
                if prior > 0:
                    # progressive bias: the greedy move of this world first, with
                    # ``prior`` virtual wins for its mover
                    g = policy(GREEDY_KIND, GREEDY_BOT_PARAMS, sample, params,  # noqa: F821
                               streams, p, gi, gf)
                    if g >= 0 and mark[g] == stamp and seen[g] != stamp:
                        action = g
                        virtual = prior
                if action < 0:
                    k = below(rng, seat, m - tried)
                    for i in range(m):
                        if seen[legal[i]] != stamp:
                            if k == 0:
                                action = legal[i]
                                break
                            k -= 1
                new = count
                count += 1
                b = new * NODE_INTS
                tree[b + ACTION] = action
                tree[b + PARENT] = node
                tree[b + CHILD] = NO_NODE
                tree[b + SIBLING] = tree[node * NODE_INTS + CHILD]
                tree[b + VISITS] = virtual
                tree[b + AVAIL] = 1
                tree[b + MOVER] = p
                for s in range(players):
                    sums[new * players + s] = 0.0
                sums[new * players + p] = np.float64(virtual)
                tree[node * NODE_INTS + CHILD] = new
                apply(sample, params, action)  # noqa: F821
                node = new
                break
            apply(sample, params, tree[best * NODE_INTS + ACTION])  # noqa: F821
            node = best
        rollout(sample, params, rng, seat, streams, greedy, depth, gi, gf, out)
        while node != NO_NODE:
            tree[node * NODE_INTS + VISITS] += 1
            for s in range(players):
                sums[node * players + s] += out[s]
            node = tree[node * NODE_INTS + PARENT]


def most_visited(tree):
    """The root child with the most visits (ties: the lowest action)."""
    best_action = -1
    best_visits = -1
    ch = tree[ROOT_INDEX * NODE_INTS + CHILD]
    while ch != NO_NODE:
        n = tree[ch * NODE_INTS + VISITS]
        a = tree[ch * NODE_INTS + ACTION]
        if n > best_visits or (n == best_visits and a < best_action):
            best_visits = n
            best_action = a
        ch = tree[ch * NODE_INTS + SIBLING]
    return best_action


def choose(bot_params, state, params, rng, seat, imem, fmem):
    players = imem.shape[0]
    size = state.shape[0]
    iterations = np.int64(bot_params[seat, P_ITERATIONS])
    c = bot_params[seat, P_EXPLORATION]
    greedy = HAS_GREEDY and np.int64(bot_params[seat, P_ROLLOUT]) == ROLLOUT_GREEDY  # noqa: F821
    depth = np.int64(bot_params[seat, P_DEPTH])
    worlds = np.int64(bot_params[seat, P_WORLDS])
    delegate = np.int64(bot_params[seat, P_DELEGATE])
    prior = np.int64(bot_params[seat, P_PRIOR]) if HAS_GREEDY else np.int64(0)  # noqa: F821
    if delegate < 0:
        delegate = DELEGATE_FROM  # noqa: F821
    row = imem[seat]
    frow = fmem[seat]
    o = players * GREEDY_INTS  # noqa: F821
    gi = row[0:o].reshape((players, GREEDY_INTS))  # noqa: F821
    header = o
    row[header + LAST_ITERATIONS] = 0
    o += HEADER
    view = row[o:o + size]
    o += size
    world = row[o:o + size]
    o += size
    sample = row[o:o + size]
    o += size
    na = NUM_ACTIONS  # noqa: F821
    legal = row[o:o + na]
    o += na
    mark = row[o:o + na]
    o += na
    seen = row[o:o + na]
    o += na
    streams = row[o:o + players]
    o += players
    tree = row[o:]
    f = players * GREEDY_FLOATS  # noqa: F821
    gf = frow[0:f].reshape((players, GREEDY_FLOATS))  # noqa: F821
    out = frow[f:f + players]
    f += players
    votes = frow[f:f + na]
    f += na
    sums = frow[f:]

    observe(state, seat, view)  # noqa: F821
    determinize(view, params, seat, rng, seat, sample)  # noqa: F821
    # the sample shows the actor the same legal actions as the real state
    n = legal_actions(sample, params, legal)  # noqa: F821
    if n == 1:
        return legal[0]
    if HAS_GREEDY and delegate > 0 and legal[0] >= delegate:  # noqa: F821
        return policy(GREEDY_KIND, GREEDY_BOT_PARAMS, sample, params, streams, seat,  # noqa: F821
                      gi, gf)
    if worlds == 0:
        search(world, True, view, params, rng, seat, iterations, c, greedy, depth, prior, sample,
               legal, mark, seen, streams, tree, sums, out, gi, gf)
        row[header + LAST_ITERATIONS] = iterations
        return most_visited(tree)
    per_world = max(1, iterations // worlds)
    for a in range(na):
        votes[a] = 0.0
    for _ in range(worlds):
        determinize(view, params, seat, rng, seat, world)  # noqa: F821
        search(world, False, view, params, rng, seat, per_world, c, greedy, depth, prior, sample,
               legal, mark, seen, streams, tree, sums, out, gi, gf)
        ch = tree[ROOT_INDEX * NODE_INTS + CHILD]
        while ch != NO_NODE:
            votes[tree[ch * NODE_INTS + ACTION]] += tree[ch * NODE_INTS + VISITS]
            ch = tree[ch * NODE_INTS + SIBLING]
        # the world's vote outweighs every visit count
        votes[most_visited(tree)] += iterations + 1.0
    row[header + LAST_ITERATIONS] = per_world * worlds
    best = 0
    for a in range(1, na):
        if votes[a] > votes[best]:
            best = a
    return best


TEMPLATES = ("rollout", "search", "most_visited", "choose")
# like flatmc: reference counting on for itself and the game kernels it calls
# (observe/determinize copies, the row reshapes)
JIT_OPTIONS = {"choose": {"_nrt": True}}


def iterations_rate(config, seconds: float = 1.0) -> float:
    """Iterations per second of the config's mcts seats on one thread (``playlab bench``'s
    ``iterations_per_s``): its games stepped from Python through the compiled engine, the
    search calls timed and their ``LAST_ITERATIONS`` summed (forced and delegated
    decisions run none and are not counted)."""
    import time

    from bots.registry import allocate_memory, bot_arrays
    from simcore.kernels import kernels_for
    from simcore.rng import CHANCE_STREAM, bot_stream, stream_key

    module, info, players = config.module, config.info, config.players
    k = kernels_for(config.game)
    params = config.params()
    kinds, bp = bot_arrays(config.bots)
    imem, fmem = allocate_memory(config.bots, info, players)
    gi, _ = _greedy_memory(info)
    header = players * gi + LAST_ITERATIONS
    seats = [s for s, b in enumerate(config.bots) if b.spec.name == SPEC.name]
    state = np.zeros(info.state_size(players), np.int64)
    rng = np.zeros(players, np.int64)
    spent, done, g = 0.0, 0, 0
    while spent < seconds and g < 1000:
        module.init(state, params, players, stream_key(config.seed, g, CHANCE_STREAM))
        for s in range(players):
            rng[s] = stream_key(config.seed, g, bot_stream(s))
        while not module.is_terminal(state) and spent < seconds:
            p = int(module.current_player(state))
            t0 = time.perf_counter()
            a = k.choose_action(kinds, bp, state, params, rng, p, imem, fmem)
            t1 = time.perf_counter()
            if p in seats and imem[p, header] > 0:
                spent += t1 - t0
                done += int(imem[p, header])
            module.apply(state, params, a)
        g += 1
    return done / spent if spent > 0 else 0.0
