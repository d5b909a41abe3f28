"""``mcts``: information-set Monte Carlo tree search, for every game.

Variant: single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) with progressive
widening below the root, a progressive bias towards the game's greedy move, and greedy
rollouts cut off by the game's ``evaluate``.  One tree per decision, over the acting seat's
information set: every iteration samples a world with the game's ``determinize`` from the
seat's ``observe`` view (its own hand and everything public fixed, the rest dealt at
random), walks the tree choosing among the children whose action is legal *in that world*
by UCB1 with availability counts (a child's exploration term uses how often it was
available, not its parent's visits), expands one action (the game's greedy move in that
world first, else one at random), finishes the world with a rollout and backs up the whole
per-seat value vector; a node's value is read for the seat that chose its action, so each
seat maximises its own value (2-6 players, general sum).  Single-observer because it needs
no per-seat trees and is the paper's baseline; its known weakness (opponents' nodes pool
their information sets with ours) matters least against non-adaptive opponents like the
greedy bots.  The decision: the root child with the most visits (ties: lowest action).

Why the additions (measured, README's MCTS section).  The games' turns are chains of the
same seat's decisions (Shifting Stones: score, pay, move, ... end; Sequence Stacks: play,
play, ... discard).  Plain ISMCTS expands every legal action of a node before it chooses
again, so a move that continues the turn is valued through its own seat's first, mostly
random, follow-ups, while ending the turn is valued through the *opponent's* random
follow-ups: the search learns to end turns early.  Full-width trees lost to greedy badly
(Sequence Stacks 0.17-0.18 and Shifting Stones 0.27 with trees 3 deep; 0.02 without prior
or widening).  So below the root a node opens a new child only every so often (at most
1 + ``widening`` * sqrt(visits) children; the first is the greedy move of the walked world),
which keeps a chain's value close to its best continuation; the root tries every action.
Random rollouts are poor judges of these games' positions; the greedy bot's are good, cut
off after ``depth`` decisions where the game's ``evaluate`` (a soft win probability from
the scores) is smoother than a played-out 0/1 result (Shifting Stones 0.65 against 0.55 to
the end).  A child's mean starts from ``smoothing`` virtual visits at its parent's mean, so
one unlucky world does not bury it under a low exploration constant.

Each game sets its own defaults where one setting does not fit all (``GENERIC_DEFAULTS`` in
``bots/<game>.py``, listed by ``playlab bots GAME``).  Moon delegates bidding, widow and trump
to its greedy bidder and cuts rollouts off after 8 decisions (its ``evaluate`` counts the
hand's settled points), which doubles its iterations/s.  Sequence Stacks searches flat
(``tree_depth=1``): there the decisions below the root are mostly the opponent's replies,
which depend on its hidden hand, and a node keeps the reply of the world that expanded it;
flat search beat the tree clearly (0.690 against 0.585-0.610).  In Moon, where the same holds,
flat search was as strong as the tree and twice as fast, but not stronger; Shifting Stones'
turns are chains of the mover's own decisions, which the tree follows.

A node is keyed by (seat to move, action): a decision whose seat depends on hidden
information (none today) stays separate.  Every shape of decision the games have goes
through ``current_player`` and ``legal_actions`` alone.

Parameters (``bot_params[seat, P_*]``)
    iterations   iterations per decision (the tree holds iterations + 1 nodes)
    exploration  UCB constant c (values are in [0, 1])
    rollout      greedy (the game's own ``greedy`` bot, with its default parameters, for
                 every seat; a game without one falls back to random) or random (the
                 game's ``random_action``; ``random_run`` when depth = 0)
    depth        rollout decisions before the cut-off, where the game's ``evaluate``
                 values the state (0: play to the end and use ``returns``)
    worlds       0: ISMCTS as above; k >= 1: determinized search (PIMC) for comparison, k
                 worlds each searched alone with iterations // k iterations, each world's
                 most-visited action one vote (ties: summed visits, then lowest action)
    delegate     hybrid: a decision whose lowest legal action id is >= delegate is made
                 by the game's greedy bot instead of the search (0: search every decision).
                 Moon's default is 22 (= DISCARD_BASE): bids, widow discard and trump are
                 the greedy bidder's, the search plays the tiles.
    prior        progressive bias (Chaslot et al. 2008): the child holding the greedy move
                 of the world that expanded it gets prior / (visits + 1) on its UCB value
    widening     progressive widening below the root (0: full width everywhere)
    smoothing    virtual visits at the parent's mean in every child's mean
    tree_depth   nodes deeper than this are not expanded (0: no limit; 1: flat UCB over
                 the root's actions with rollouts, for comparison)

It reads only the view: the real state is touched once, by ``observe``; delegated
decisions and the greedy moves it consults are the greedy bot's on a determinized sample
(it reads only its own seat's part).  Every draw comes from the seat's own bot stream
``rng[seat]``: samples and expansions directly, each rollout through private per-seat
streams derived from it.

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
                               SIBLING (next), VISITS, AVAIL, MOVER (seat that chose it),
                               SUGGESTED (1: the greedy move)
    float64 [0 : P*GF]         greedy scratch
           value[P]            returns / evaluate of the last rollout
           votes[A]            PIMC votes
           sums[N * P]         per node, per seat: summed values

At the default budget (3,000 iterations) that is about 200 KB + 72 KB (3 players) per
seat, allocated once per chunk and reused by every decision.
"""
import numpy as np

from bots.registry import BotParam, BotSpec, register_bot
from simcore.rng import GOLDEN, below, mix64, next_u64

P_ITERATIONS = 0
P_EXPLORATION = 1
P_ROLLOUT = 2
P_DEPTH = 3
P_WORLDS = 4
P_DELEGATE = 5
P_PRIOR = 6
P_WIDENING = 7
P_SMOOTHING = 8
P_TREE_DEPTH = 9

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
SUGGESTED = 7  # 1: the game's greedy move for its mover in the world that expanded it
NODE_INTS = 8
ROOT_INDEX = 0
NO_NODE = -1
UNVISITED = -1  # a mark/seen stamp no node visit has

LAST_ITERATIONS = 0  # header slot after the greedy scratch
HEADER = 1

DEFAULT_ITERATIONS = 3000

PARAMS = (
    BotParam("iterations", DEFAULT_ITERATIONS, 1, 1_000_000, "iterations per decision", integer=True),
    BotParam("exploration", 0.3, 0.0, 10.0, "UCB exploration constant (values are in [0, 1])"),
    BotParam("rollout", ROLLOUT_GREEDY, 0, 1, "rollout policy (greedy: the game's greedy bot; "
             "random where it has none)", integer=True, choices=("random", "greedy")),
    BotParam("depth", 30, 0, 100_000, "rollout decisions before the game's evaluate values "
             "the state (0: to the end)", integer=True),
    BotParam("worlds", 0, 0, 10_000, "0: information-set search; k: PIMC over k determinized "
             "worlds, votes combined", integer=True),
    BotParam("delegate", 0, 0, 100_000, "decisions whose lowest legal action is >= this go to "
             "the game's greedy bot (0: none)", integer=True),
    BotParam("prior", 1.0, 0.0, 1000.0, "progressive bias towards the greedy bot's move, which a "
             "node expands first: prior / (visits + 1) added to its UCB value (0: none, random "
             "expansion)"),
    BotParam("widening", 0.05, 0.0, 1000.0, "progressive widening below the root: a node with n visits "
             "has at most 1 + widening * sqrt(n) children (0: every legal action at once; the root "
             "always tries them all)"),
    BotParam("smoothing", 3.0, 0.0, 1000.0, "virtual visits valued at the parent's mean that every "
             "child's mean starts from (0: none)"),
    BotParam("tree_depth", 0, 0, 100_000, "nodes below this depth are not expanded: the rollout "
             "takes over (1: UCB over the root's actions only; 0: no limit)", integer=True),
)


def _greedy(game):
    """The game's greedy bot spec (None when it has none)."""
    from bots.registry import bots_for
    return next((b for b in bots_for(game) if b.name == "greedy"), None)


def _greedy_memory(info):
    spec = _greedy(info.name)
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
REQUIRES = ("determinize", "legal_actions", "apply", "is_terminal", "current_player",
            "random_action", "returns")


def bind_extra(game):
    """The game's greedy bot (compiled policy, default parameters, scratch size)."""
    from bots.registry import MAX_BOT_PARAMS, bound_policy
    from simcore.protocol import no_policy

    info = game.INFO
    spec = _greedy(info.name)
    table = np.zeros((info.max_players, MAX_BOT_PARAMS), np.float64)
    gi, gf = _greedy_memory(info)
    common = {"GREEDY_BOT_PARAMS": table, "GREEDY_INTS": gi, "GREEDY_FLOATS": gf,
              "NUM_ACTIONS": info.num_actions}
    if spec is None:
        return {"greedy_policy": no_policy, "HAS_GREEDY": False, **common}
    table[:, :len(spec.params)] = [p.default for p in spec.params]
    return {"greedy_policy": bound_policy(info.name, "greedy"), "HAS_GREEDY": True, **common}


def rollout(sim, params, rng, seat, streams, greedy, depth, gi, gf, legal, out):
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
            m = legal_actions(sim, params, legal)  # noqa: F821
            apply(sim, params, greedy_policy(sim, legal, m, GREEDY_BOT_PARAMS, params,  # noqa: F821
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


def search(world, fresh, view, params, rng, seat, iterations, c, greedy, depth, prior, widening,
           smoothing, tree_depth, sample, legal, mark, seen, streams, tree, sums, out, gi, gf):
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
    tree[ROOT_INDEX * NODE_INTS + SUGGESTED] = 0
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
        level = 0
        while not is_terminal(sample) and (tree_depth == 0 or level < tree_depth):  # noqa: F821
            level += 1
            p = current_player(sample)  # noqa: F821
            m = legal_actions(sample, params, legal)  # noqa: F821
            stamp += 1
            for i in range(m):
                mark[legal[i]] = stamp
            tried = 0
            best = NO_NODE
            best_value = -np.inf
            nv = tree[node * NODE_INTS + VISITS]
            q = sums[node * players + p] / nv if nv > 0 else 1.0 / players
            ch = tree[node * NODE_INTS + CHILD]
            while ch != NO_NODE:
                b = ch * NODE_INTS
                a = tree[b + ACTION]
                if mark[a] == stamp and tree[b + MOVER] == p:
                    seen[a] = stamp
                    tried += 1
                    tree[b + AVAIL] += 1
                    n = tree[b + VISITS]
                    v = ((sums[ch * players + p] + smoothing * q) / (n + smoothing)
                         + c * np.sqrt(np.log(tree[b + AVAIL]) / n))
                    if tree[b + SUGGESTED] != 0:
                        v += prior / (n + 1)
                    if v > best_value:
                        best_value = v
                        best = ch
                ch = tree[b + SIBLING]
            limit = m
            if widening > 0 and node != ROOT_INDEX:
                limit = min(m, 1 + np.int64(widening * np.sqrt(np.float64(nv))))
            if tried < limit:
                action = -1
                suggested = 0
                if prior > 0:
                    # the greedy move of this world first, with a progressive bias
                    g = greedy_policy(sample, legal, m, GREEDY_BOT_PARAMS, params,  # noqa: F821
                                      streams, p, gi, gf)
                    if g >= 0 and mark[g] == stamp and seen[g] != stamp:
                        action = g
                        suggested = 1
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
                tree[b + VISITS] = 0
                tree[b + AVAIL] = 1
                tree[b + MOVER] = p
                tree[b + SUGGESTED] = suggested
                for s in range(players):
                    sums[new * players + s] = 0.0
                tree[node * NODE_INTS + CHILD] = new
                apply(sample, params, action)  # noqa: F821
                node = new
                break
            apply(sample, params, tree[best * NODE_INTS + ACTION])  # noqa: F821
            node = best
        rollout(sample, params, rng, seat, streams, greedy, depth, gi, gf, legal, out)
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


def choose(given_view, given_legal, given_n, bot_params, params, rng, seat, imem, fmem):
    players = imem.shape[0]
    size = given_view.shape[0]
    iterations = np.int64(bot_params[seat, P_ITERATIONS])
    c = bot_params[seat, P_EXPLORATION]
    greedy = HAS_GREEDY and np.int64(bot_params[seat, P_ROLLOUT]) == ROLLOUT_GREEDY  # noqa: F821
    depth = np.int64(bot_params[seat, P_DEPTH])
    worlds = np.int64(bot_params[seat, P_WORLDS])
    delegate = np.int64(bot_params[seat, P_DELEGATE])
    prior = bot_params[seat, P_PRIOR] if HAS_GREEDY else 0.0  # noqa: F821
    widening = bot_params[seat, P_WIDENING]
    smoothing = bot_params[seat, P_SMOOTHING]
    tree_depth = np.int64(bot_params[seat, P_TREE_DEPTH])
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

    for i in range(size):
        view[i] = given_view[i]
    determinize(view, params, seat, rng, seat, sample)  # noqa: F821
    # the sample shows the actor the same legal actions as the real state
    n = legal_actions(sample, params, legal)  # noqa: F821
    if n == 1:
        return legal[0]
    if HAS_GREEDY and delegate > 0 and legal[0] >= delegate:  # noqa: F821
        return greedy_policy(sample, legal, n, GREEDY_BOT_PARAMS, params, streams, seat,  # noqa: F821
                             gi, gf)
    if worlds == 0:
        search(world, True, view, params, rng, seat, iterations, c, greedy, depth, prior, widening, smoothing, tree_depth, sample,
               legal, mark, seen, streams, tree, sums, out, gi, gf)
        row[header + LAST_ITERATIONS] = iterations
        return most_visited(tree)
    per_world = max(1, iterations // worlds)
    for a in range(na):
        votes[a] = 0.0
    for _ in range(worlds):
        determinize(view, params, seat, rng, seat, world)  # noqa: F821
        search(world, False, view, params, rng, seat, per_world, c, greedy, depth, prior, widening, smoothing, tree_depth, sample,
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


# like flatmc: reference counting on for itself and the game kernels it calls
# (observe/determinize copies, the row reshapes)
JIT_OPTIONS = {"choose": {"_nrt": True}}


register_bot(SPEC, choose, helpers=(rollout, search, most_visited), requires=REQUIRES, extra=bind_extra,
             jit_options=JIT_OPTIONS)
