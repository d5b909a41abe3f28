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
hand's settled points), which doubles its iterations/s; a rollout also stops at the hand's
end (the game's ``new_deal``), where the next 8 decisions were the next hand's bidding, the
costliest of the greedy bidder's and nothing ``evaluate`` reads: same strength, about 1.6
times the iterations/s.  Sequence Stacks searches flat
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
                 values the state (0: play to the end and use ``returns``); a cut-off
                 rollout also stops at the game's ``new_deal`` (Moon: the next hand)
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

The code reads like mctx's ``tree.py`` and OpenSpiel's ``ismcts.py``: the tree is a set of
named arrays of documented shapes (``Tree``), one iteration is ``simulate`` (``select`` a
child while every legal action has one, else ``expand`` one) then the shared ``rollout``
(``bots/generic/rollout.py``, also flatmc's) then ``backup``.  The rollout policy (also the
policy the prior and delegated decisions consult) is passed in at registration:
``POLICY_LINK``, the game's ``greedy`` bot.  ``register_search(name, link, …)`` registers the
same search again over another policy, as its own compiled copy with the same parameters
(``mcts-learned``, bots/learned_search.py, over the learned network; a plugin may do the
same with a policy of its own, and with an opponent model, ``RolloutPolicy.others``, that
plays the other seats' rollouts and gives their prior moves: ``ask_policy``).

The tree (``N`` = iterations + 1 nodes, ``P`` = players); node ``ROOT_INDEX`` is the root,
children are a linked list (``CHILD`` the newest, ``SIBLING`` the next older).  Its int
fields are the columns of one ``[N, NODE_INTS]`` table, so the fields of a node that a
selection step reads share a cache line; each column is a ``Tree`` array of shape ``[N]``::

    ACTION     [0]         the action its parent took to reach it (-1: the root)
    PARENT     [1]         its parent (NO_NODE: the root)
    CHILD      [2]         its newest child (NO_NODE: none yet)
    SIBLING    [3]         the next older child of its parent (NO_NODE: none)
    VISITS     [4]         iterations backed up through it
    AVAIL      [5]         walks through its parent in whose world its action was legal
    MOVER      [6]         the seat that chose its action (-1: the root)
    SUGGESTED  [7]         1: the policy move of its mover in the world that expanded it

and ``sums`` ``[N, P]``: per node, per seat, the summed values backed up through it.

Working memory (its seat's rows, in order; ``G``/``GF`` = the policy bot's int/float
memory at the game's most players, ``S`` = state size, ``A`` = action count)::

    int64   policy ints [P, G]    the policy bot's scratch, one row per seat it plays for
            header [HEADER]       LAST_ITERATIONS: iterations the last decision ran
                                  (0: forced or delegated)
            view, world, sample [S]  the seat's view, a PIMC world, the walked world
            legal [A]             the legal actions of the walked world's decision
            mark, seen [A]        per action: the stamp of the node visit where it is legal /
                                  has a child (UNVISITED: none yet)
            streams [P]           rollout streams
            tree [N, NODE_INTS]   the node table
    float64 policy floats [P, GF] the policy bot's scratch
            value [P]             returns / evaluate of the last rollout
            votes [A]             PIMC votes
            sums [N, P]           the tree's summed values

``int_row`` / ``float_row`` give where each region starts: ``memory`` sizes the rows by
them and ``choose`` cuts them by them.  At the default budget (3,000 iterations) that is
about 200 KB + 72 KB (3 players) per seat, allocated once per chunk and reused by every
decision.
"""
import math

import numpy as np
from collections import namedtuple

from bots.generic.rollout import ROLLOUT_FUNCTIONS, Rollout, RolloutPolicy, ask_policy, rollout
from bots.registry import ALL_GAMES, BotParam, BotSpec, register_bot, source_digest
from simcore.layout import Field, Layout
from simcore.rng import below

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
ROLLOUT_POLICY = 1  # the policy bot of the link (mcts: greedy; mcts-learned: learned)

# the rollout policy, passed in here rather than looked up by the search: the game's greedy
# bot plays the rollouts, gives the prior's move and makes the delegated decisions
POLICY_LINK = RolloutPolicy("greedy")

# one row of the node table per node (the module docstring draws it; a test holds the two
# together)
NODE = Layout(
    Field("ACTION", 1, "the action its parent took to reach it (-1: the root)"),
    Field("PARENT", 1, "its parent (NO_NODE: the root)"),
    Field("CHILD", 1, "its newest child (NO_NODE: none yet)"),
    Field("SIBLING", 1, "the next older child of its parent (NO_NODE: none)"),
    Field("VISITS", 1, "iterations backed up through it"),
    Field("AVAIL", 1, "walks through its parent in whose world its action was legal"),
    Field("MOVER", 1, "the seat that chose its action (-1: the root)"),
    Field("SUGGESTED", 1, "1: the policy move of its mover in the world that expanded it"),
    size_name="NODE_INTS",
)
NODE.export(globals())
ROOT_INDEX = 0
NO_NODE = -1
UNVISITED = -1  # a mark/seen stamp no node visit has

LAST_ITERATIONS = 0  # header slot
HEADER = 1

# the tree (N nodes, P players): each int field an [N] column of the node table (NODE)
Tree = namedtuple("Tree", (
    "action",     # int64 [N]  ACTION: the action its parent took to reach it
    "parent",     # int64 [N]  PARENT (NO_NODE: the root)
    "child",      # int64 [N]  CHILD: its newest child (NO_NODE: none yet)
    "sibling",    # int64 [N]  SIBLING: the next older child of its parent
    "visits",     # int64 [N]  VISITS: iterations backed up through it
    "avail",      # int64 [N]  AVAIL: walks through its parent in whose world it was legal
    "mover",      # int64 [N]  MOVER: the seat that chose its action
    "suggested",  # int64 [N]  SUGGESTED: 1 when it holds the policy's move
    "sums",       # float64 [N, P]  per node, per seat: the values backed up through it
))
# what one search walks with besides the tree (arrays cut from the seat's memory)
Work = namedtuple("Work", (
    "seat_view",  # int64 [S]  the seat's view (not "view": Numba reads .view as ndarray.view)
    "world",   # int64 [S]  PIMC: the world every iteration of this search walks
    "sample",  # int64 [S]  the walked world
    "mark",    # int64 [A]  per action: the stamp of the node visit in whose world it is legal
    "seen",    # int64 [A]  per action: the stamp of the node visit where it has a child
    "ro",      # Rollout    the rollout's scratch (its legal list is also the walk's)
))
# the search's settings, read once per decision from the seat's parameters
Config = namedtuple("Config", ("c", "prior", "widening", "smoothing", "depth", "tree_depth",
                               "use_policy"))
# where each region of the seat's int64 / float64 row starts (``end``: the row's length)
IntRow = namedtuple("IntRow", ("policy", "header", "seat_view", "world", "sample", "legal", "mark",
                               "seen", "streams", "tree", "end"))
FloatRow = namedtuple("FloatRow", ("policy", "value", "votes", "sums", "end"))

DEFAULT_ITERATIONS = 3000
# log(k) for the availability counts of UCB (log_count)
LOG_TABLE = 1 << 14
# the values the compiled np.log gives (tests/test_mcts.py compares them), so play is unchanged:
# the C library's scalar log, as compiled code calls it; numpy's vectorised log differs from it
# in the last bit of some values on CPUs with AVX-512 (one of these 16,384 on an AMD EPYC)
LOG_COUNTS = np.array([math.log(max(k, 1)) for k in range(LOG_TABLE)], dtype=np.float64)


def params_for(link):
    """The search's parameters, their help naming ``link``'s policy bot (what ``rollout``'s
    second value, the prior and delegation play): mcts's own say greedy, a search registered
    over another policy (``register_search``) names that one, never a bot it does not call."""
    bot = link.bot or "random"
    return (
        BotParam("iterations", DEFAULT_ITERATIONS, 1, 1_000_000, "iterations per decision", integer=True),
        BotParam("exploration", 0.3, 0.0, 10.0, "UCB exploration constant (values are in [0, 1])"),
        BotParam("rollout", ROLLOUT_POLICY, 0, 1, f"rollout policy ({bot}: the game's {bot} bot; "
                 "random where it has none)", integer=True, choices=("random", bot)),
        BotParam("depth", 30, 0, 100_000, "rollout decisions before the game's evaluate values "
                 "the state (0: to the end; a rollout also stops at a new deal, Moon's next hand)",
                 integer=True),
        BotParam("worlds", 0, 0, 10_000, "0: information-set search; k: PIMC over k determinized "
                 "worlds, votes combined", integer=True),
        BotParam("delegate", 0, 0, 100_000, "decisions whose lowest legal action is >= this go to "
                 f"the game's {bot} bot (0: none)", integer=True),
        BotParam("prior", 1.0, 0.0, 1000.0, f"progressive bias towards the {bot} bot's move, which a "
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


PARAMS = params_for(POLICY_LINK)


def int_row(players, policy_ints, size, actions, nodes):
    """Where each region of the seat's int64 row starts (module docstring)."""
    policy = 0
    header = policy + players * policy_ints
    seat_view = header + HEADER
    world = seat_view + size
    sample = world + size
    legal = sample + size
    mark = legal + actions
    seen = mark + actions
    streams = seen + actions
    tree = streams + players
    return IntRow(policy, header, seat_view, world, sample, legal, mark, seen, streams, tree,
                  tree + nodes * NODE_INTS)


def float_row(players, policy_floats, actions, nodes):
    """Where each region of the seat's float64 row starts (module docstring)."""
    policy = 0
    value = policy + players * policy_floats
    votes = value + players
    sums = votes + actions
    return FloatRow(policy, value, votes, sums, sums + nodes * players)


def memory_for(link):
    """A search over ``link``'s policy: its working memory per seat (module docstring)."""
    def memory(info, players, values):
        gi, gf = link.memory(info)
        nodes = int(values[P_ITERATIONS]) + 1
        ints = int_row(players, gi, info.state_size(players), info.num_actions, nodes).end
        floats = float_row(players, gf, info.num_actions, nodes).end
        return ints, floats
    return memory


memory = memory_for(POLICY_LINK)


def iterations_slot(info, players):
    """The int64 slot of a seat's row holding the iterations its last decision ran."""
    gi, _ = POLICY_LINK.memory(info)
    return int_row(players, gi, 0, 0, 0).header + LAST_ITERATIONS


SPEC = BotSpec(
    "mcts",
    "information-set MCTS (single observer, UCB with availability counts) over worlds "
    "sampled from its own view; rollouts cut off by the game's evaluate",
    PARAMS,
    memory=memory,
)
REQUIRES = ("determinize", "legal_actions", "apply", "is_terminal", "current_player",
            "random_action", "returns")


# ---- the tree ------------------------------------------------------------------------------
def reset(tree, work):
    """An empty tree (the root alone) and no stamps."""
    tree.action[ROOT_INDEX] = -1
    tree.parent[ROOT_INDEX] = NO_NODE
    tree.child[ROOT_INDEX] = NO_NODE
    tree.sibling[ROOT_INDEX] = NO_NODE
    tree.visits[ROOT_INDEX] = 0
    tree.avail[ROOT_INDEX] = 0
    tree.mover[ROOT_INDEX] = -1
    tree.suggested[ROOT_INDEX] = 0
    for s in range(tree.sums.shape[1]):
        tree.sums[ROOT_INDEX, s] = 0.0
    for a in range(work.mark.shape[0]):
        work.mark[a] = UNVISITED
        work.seen[a] = UNVISITED


def add_child(tree, node, new, action, mover, suggested):
    """Node ``new`` (the next free index): ``mover``'s ``action`` below ``node``, the
    newest of its children, available once (the walk that adds it)."""
    tree.action[new] = action
    tree.parent[new] = node
    tree.child[new] = NO_NODE
    tree.sibling[new] = tree.child[node]
    tree.visits[new] = 0
    tree.avail[new] = 1
    tree.mover[new] = mover
    tree.suggested[new] = suggested
    for s in range(tree.sums.shape[1]):
        tree.sums[new, s] = 0.0
    tree.child[node] = new


def select(tree, work, cfg, node, p, stamp):
    """UCB1 with availability counts over ``node``'s children that ``p`` chose and whose
    action is legal in this world (``mark == stamp``): each is counted available and noted
    as tried (``seen = stamp``).  A child's mean starts from ``smoothing`` virtual visits
    at the node's mean; the policy's child gets ``prior / (visits + 1)`` more.  Returns
    (the best child, NO_NODE when none, and how many there were)."""
    players = tree.sums.shape[1]
    nv = tree.visits[node]
    q = tree.sums[node, p] / nv if nv > 0 else 1.0 / players
    tried = 0
    first = np.int64(NO_NODE)
    best = np.int64(NO_NODE)
    best_value = -np.inf
    ch = tree.child[node]
    while ch != NO_NODE:
        a = tree.action[ch]
        if work.mark[a] == stamp and tree.mover[ch] == p:
            work.seen[a] = stamp
            tried += 1
            tree.avail[ch] += 1
            # a lone candidate is chosen without its value (below the root most nodes have
            # one child): values are computed from the second on, the first's then too
            if tried == 1:
                first = ch
            else:
                if tried == 2:
                    best_value = ucb(tree, cfg, first, p, q)
                    best = first
                v = ucb(tree, cfg, ch, p, q)
                if v > best_value:
                    best_value = v
                    best = ch
        ch = tree.sibling[ch]
    if tried == 1:
        best = first
    return best, tried


def ucb(tree, cfg, ch, p, q):
    """Child ``ch``'s UCB value for its mover ``p`` (``q``: its parent's mean for ``p``)."""
    n = tree.visits[ch]
    v = ((tree.sums[ch, p] + cfg.smoothing * q) / (n + cfg.smoothing)
         + cfg.c * np.sqrt(log_count(tree.avail[ch]) / n))
    if tree.suggested[ch] != 0:
        v += cfg.prior / (n + 1)
    return v


def log_count(k):
    """log(k) of a count k >= 1: from ``LOG_COUNTS`` below ``LOG_TABLE`` (every UCB term of a
    walk takes one; the table holds the same values, so play is unchanged; its own share of
    the speed-up was not measured apart)."""
    if k < LOG_TABLE:
        return LOG_COUNTS[k]
    return np.log(np.float64(k))


def may_expand(tree, cfg, node, m, tried):
    """Whether ``node``, with ``tried`` of its ``m`` legal actions holding a child, may open
    another: it may have all at the root or without widening, else at most 1 + widening *
    sqrt(visits) (the root of that only taken when an action is left)."""
    if tried >= m:
        return False
    if cfg.widening > 0 and node != ROOT_INDEX:
        return tried < 1 + np.int64(cfg.widening * np.sqrt(np.float64(tree.visits[node])))
    return True


def expansion(work, cfg, params, rng, seat, p, m, tried, stamp):
    """The action a new child of the walked node takes, and whether it is the policy's:
    with a prior, the policy's move for ``p`` in this world when it has no child yet;
    else one of the ``m - tried`` legal actions without one, at random."""
    legal = work.ro.legal
    if cfg.prior > 0:
        # the move of the policy playing p (the opponent model's for another seat)
        g = ask_policy(work.sample, legal, m, params, seat, p, work.ro.streams, work.ro.ints, work.ro.floats)
        if g >= 0 and work.mark[g] == stamp and work.seen[g] != stamp:
            return g, 1
    k = below(rng, seat, m - tried)
    for i in range(m):
        if work.seen[legal[i]] != stamp:
            if k == 0:
                return legal[i], 0
            k -= 1
    return -1, 0


def simulate(tree, work, cfg, params, rng, seat, count, stamp):
    """Walk ``work.sample`` down the tree from the root: at each node, ``select`` among
    its children legal in this world, until a node may have another child (``expand``
    one and stop), the world ends or the walk is ``tree_depth`` deep.  Returns (the node
    reached, the node count, the last stamp)."""
    sample = work.sample
    legal = work.ro.legal
    node = np.int64(ROOT_INDEX)
    level = 0
    while not is_terminal(sample) and (cfg.tree_depth == 0 or level < cfg.tree_depth):  # noqa: F821
        level += 1
        p = current_player(sample)  # noqa: F821
        m = legal_actions(sample, params, legal)  # noqa: F821
        stamp += 1
        for i in range(m):
            work.mark[legal[i]] = stamp
        best, tried = select(tree, work, cfg, node, p, stamp)
        if may_expand(tree, cfg, node, m, tried):
            # expand
            action, suggested = expansion(work, cfg, params, rng, seat, p, m, tried, stamp)
            add_child(tree, node, count, action, p, suggested)
            apply(sample, params, action)  # noqa: F821
            return count, count + 1, stamp
        apply(sample, params, tree.action[best])  # noqa: F821
        node = best
    return node, count, stamp


def backup(tree, node, value):
    """Add the rollout's per-seat ``value`` to ``node`` and every node above it."""
    while node != NO_NODE:
        tree.visits[node] += 1
        for s in range(value.shape[0]):
            tree.sums[node, s] += value[s]
        node = tree.parent[node]


def search(tree, work, cfg, fresh, params, rng, seat, iterations):
    """``iterations`` iterations of one tree from the root; each walks a fresh
    determinization of the view (``fresh``) or a copy of ``work.world``."""
    reset(tree, work)
    # counters and nodes start as typed values, never as the literals they are: Numba would
    # compile each callee once more for the literal its first typing pass sees (the
    # search's kernels were compiled twice, about a sixth of the suite's compile time)
    count = np.int64(1)
    stamp = np.int64(0)
    for _ in range(iterations):
        if fresh:
            determinize(work.seat_view, params, seat, rng, seat, work.sample)  # noqa: F821
        else:
            for i in range(work.sample.shape[0]):
                work.sample[i] = work.world[i]
        node, count, stamp = simulate(tree, work, cfg, params, rng, seat, count, stamp)
        rollout(work.sample, params, rng, seat, cfg.use_policy, cfg.depth, work.ro)
        backup(tree, node, work.ro.value)


def most_visited(tree):
    """The root child with the most visits (ties: the lowest action)."""
    best_action = -1
    best_visits = -1
    ch = tree.child[ROOT_INDEX]
    while ch != NO_NODE:
        n = tree.visits[ch]
        a = tree.action[ch]
        if n > best_visits or (n == best_visits and a < best_action):
            best_visits = n
            best_action = a
        ch = tree.sibling[ch]
    return best_action


def vote(tree, votes, weight):
    """A PIMC world's votes: every root child's visits, and ``weight`` (more than all
    visits) for its most visited action."""
    ch = tree.child[ROOT_INDEX]
    while ch != NO_NODE:
        votes[tree.action[ch]] += tree.visits[ch]
        ch = tree.sibling[ch]
    votes[most_visited(tree)] += weight


# ---- the decision ------------------------------------------------------------------------
def config(bot_params, seat):
    """The search's settings from the seat's parameters (a game without the policy bot
    rolls out at random and has no prior)."""
    use_policy = HAS_POLICY and np.int64(bot_params[seat, P_ROLLOUT]) == ROLLOUT_POLICY  # noqa: F821
    prior = bot_params[seat, P_PRIOR] if HAS_POLICY else 0.0  # noqa: F821
    return Config(bot_params[seat, P_EXPLORATION], prior, bot_params[seat, P_WIDENING],
                  bot_params[seat, P_SMOOTHING], np.int64(bot_params[seat, P_DEPTH]),
                  np.int64(bot_params[seat, P_TREE_DEPTH]), use_policy)


def choose(given_view, given_legal, given_n, bot_params, params, rng, seat, imem, fmem):
    players = imem.shape[0]
    size = given_view.shape[0]
    na = NUM_ACTIONS  # noqa: F821
    iterations = np.int64(bot_params[seat, P_ITERATIONS])
    worlds = np.int64(bot_params[seat, P_WORLDS])
    delegate = np.int64(bot_params[seat, P_DELEGATE])
    cfg = config(bot_params, seat)
    nodes = iterations + 1

    # the seat's memory as named arrays
    row = imem[seat]
    frow = fmem[seat]
    at = int_row(players, POLICY_INTS, size, na, nodes)  # noqa: F821
    fat = float_row(players, POLICY_FLOATS, na, nodes)  # noqa: F821
    table = row[at.tree:at.end].reshape((nodes, NODE_INTS))
    tree = Tree(table[:, ACTION], table[:, PARENT], table[:, CHILD], table[:, SIBLING],
                table[:, VISITS], table[:, AVAIL], table[:, MOVER], table[:, SUGGESTED],
                frow[fat.sums:fat.end].reshape((nodes, players)))
    ro = Rollout(row[at.legal:at.mark], row[at.streams:at.tree],
                 row[at.policy:at.header].reshape((players, POLICY_INTS)),  # noqa: F821
                 frow[fat.policy:fat.value].reshape((players, POLICY_FLOATS)),  # noqa: F821
                 frow[fat.value:fat.votes])
    work = Work(row[at.seat_view:at.world], row[at.world:at.sample], row[at.sample:at.legal],
                row[at.mark:at.seen], row[at.seen:at.streams], ro)
    votes = frow[fat.votes:fat.sums]
    row[at.header + LAST_ITERATIONS] = 0

    view = work.seat_view
    sample = work.sample
    legal = ro.legal
    for i in range(size):
        view[i] = given_view[i]
    determinize(view, params, seat, rng, seat, sample)  # noqa: F821
    # the sample shows the actor the same legal actions as the real state
    n = legal_actions(sample, params, legal)  # noqa: F821
    if n == 1:
        return legal[0]
    if HAS_POLICY and delegate > 0 and legal[0] >= delegate:  # noqa: F821
        return POLICY(sample, legal, n, POLICY_BOT_PARAMS, params, ro.streams, seat,  # noqa: F821
                      ro.ints, ro.floats)
    fresh = worlds == 0  # a typed bool: one compiled search for both calls
    if fresh:
        search(tree, work, cfg, fresh, params, rng, seat, iterations)
        row[at.header + LAST_ITERATIONS] = iterations
        return most_visited(tree)
    per_world = max(1, iterations // worlds)
    for a in range(na):
        votes[a] = 0.0
    for _ in range(worlds):
        determinize(view, params, seat, rng, seat, work.world)  # noqa: F821
        search(tree, work, cfg, fresh, params, rng, seat, per_world)
        # the world's vote outweighs every visit count
        vote(tree, votes, iterations + 1.0)
    row[at.header + LAST_ITERATIONS] = per_world * worlds
    best = 0
    for a in range(1, na):
        if votes[a] > votes[best]:
            best = a
    return best


def extra_for(link):
    """A search over ``link``'s policy: the compiled copy's globals (the policy's and the
    game's action count)."""
    def bind_extra(game):
        return {**link.globals(game), "NUM_ACTIONS": game.INFO.num_actions}
    return bind_extra


bind_extra = extra_for(POLICY_LINK)

# callees first (bots.registry.register_bot)
HELPERS = (*ROLLOUT_FUNCTIONS, int_row, float_row, reset, add_child, log_count, ucb, select, may_expand,
           expansion, simulate, backup, search, most_visited, vote, config)
# like flatmc: reference counting on for ``choose`` and the game kernels it calls
# (observe/determinize copies, the row reshapes).  Every helper, ``search`` and ``rollout``
# included, only reads and writes views ``choose`` holds and allocates nothing: without it a
# call does not count references to the twenty-odd arrays of ``tree`` and ``work`` (with it
# in ``search`` and ``rollout`` Moon ran about 10% slower); the game kernels they call keep
# their own setting
JIT_OPTIONS = {"choose": {"_nrt": True}, **{f.__name__: {"_nrt": False} for f in HELPERS}}


def register_search(name, link, description, games=ALL_GAMES, defaults=None, sampler=None, evaluate=None,
                    sees="view"):
    """Register this search as bot ``name`` over ``link``'s policy (rollouts, the prior's
    move, delegated decisions): the same code compiled once more with that policy's
    globals, with the same parameters (``defaults``: per-game defaults, as register_bot).
    Its compiled copy is keyed by the policy's key too (``RolloutPolicy.key``: e.g. a
    model's digest, which no source of the search shows).  ``sampler``: a compiled function
    of ``determinize``'s signature that deals the search's worlds instead of the game's
    (e.g. weighted by inference; tools/peek.py's read the real state, with ``sees="state"``);
    ``evaluate``: one of ``evaluate``'s signature that values a rollout's cut-off instead of
    the game's (the search alone: the game's other searches keep its own).  Both are compiled
    into the copy, so their sources (and what they reach) key it as well."""
    spec = BotSpec(name, description, params_for(link), memory=memory_for(link))
    bind = extra_for(link)
    swapped = {k: f for k, f in (("determinize", sampler), ("evaluate", evaluate)) if f is not None}
    extra = (lambda game: {**bind(game), **swapped}) if swapped else bind
    digest = source_digest([getattr(f, "py_func", f) for f in swapped.values()]) if swapped else ""
    return register_bot(spec, choose, games=games, helpers=HELPERS, requires=REQUIRES,
                        extra=extra, jit_options=JIT_OPTIONS, defaults=defaults,
                        fingerprint=lambda game: link.key(game) + digest, sees=sees)


register_bot(SPEC, choose, helpers=HELPERS, requires=REQUIRES, extra=bind_extra,
             jit_options=JIT_OPTIONS, fingerprint=POLICY_LINK.key)
