"""Shifting Stones bots (run inside the Numba kernels).

``random`` is kind 0 (the game's own ``random_action``, which the engine calls directly).

``greedy`` (kind 1) plays one turn at a time:

1. it scores every card of its hand that matches the grid, one decision each;
2. it searches the sequences of 1..``depth`` moves (shifts and flips, each paid with a
   card) for the one worth most: the points of the hand cards that would match on the way
   (each scored as soon as it matches) minus ``card_value`` per card spent.  A plan must
   keep enough cards to pay for its moves: the cards it scores cannot be spent;
3. if the best plan is worth more than nothing (and, when a skip is legal, more than
   ``skip_threshold``) it discards a card the plan does not score and makes the plan's
   first move; otherwise it skips when a skip is legal (two more cards beat ending the
   turn on the same hand) and ends the turn when not.

It plans again at every decision, so a turn runs on as long as a step pays.  With
``replan=0`` (the default), after the turn's first move it first looks one move ahead and
takes the best single move if that pays, searching the full depth only when none does
(measured about as strong, and much cheaper); ``replan=1`` searches the full depth at
every step.  Ties go to the lowest move index; ``card_value`` carries a tiny extra cost
per move, so of two plans that score as much the shorter wins.

A shift or flip is two decisions (the discard, then the move).  At a discard the bot
leaves in ``scratch`` the move it plans, which cards will match after it and, for a
two-move plan, the second move (the best single move there); each is used only in the
state it was worked out for, as what a search there finds again, so it only saves work.
The planned move is played whenever the state is the one it was planned for (always, in
a game); a search from the move decision (with the card spent, the move free) finds it
too, except in rare positions (about 1 in 1000 moves) where one move would complete more
cards than the hand could keep while paying for it, which the search rules out.

Defaults (``playlab tune``, greedy against greedy): ``card_value`` 0.25 (every value
below 0.5 plays alike at depth 2, and wins about 60% against 0.5), ``skip_threshold`` 0
(1 and more lose), ``depth`` 2 (depth 1 loses about 85-15; depth 3 is stronger still but
many times slower).

The package, by layer (each imports only the ones above it):

- ``simcore.bits``: bit intrinsics (a float's bits, ``pext`` and the 3-bit-field compress);
- ``grid``: move tables, ``do_move`` and ``analyse`` (the moves completing a placement);
- ``scratch``: the bot's working memory, declared with ``Layout``;
- ``plain``: the plain search (depth 1 and 3, large hands; the tests' oracle);
- ``listsearch``: the depth-2 search over a placement list (``plan``);
- ``payer``: which card pays for a plan's first move;
- ``policy``: the decision, its parameters and memos (``greedy``);
- ``endgame``: the exact search of a solo endgame over known cards (``value``/``solve``);
- ``planner``: the solo bot that plays greedy, then the endgame search (``planner``);

Its measurements (cost, profiles, what was tried and not done) are in
``docs/shifting-stones-greedy.md``.
"""
from bots.registry import register_bot

from .grid import do_move
from .listsearch import plan
from .plain import search
from .planner import HELPERS as PLANNER_HELPERS, JIT_OPTIONS as PLANNER_JIT, SPEC as PLANNER_SPEC, planner_policy
from .policy import GREEDY_SPEC, greedy, greedy_policy
from .scratch import SCRATCH, SCRATCH_SIZE

__all__ = ["GREEDY_SPEC", "SCRATCH", "SCRATCH_SIZE", "do_move", "greedy", "greedy_policy", "plan", "search"]

# the policy is a call of ``greedy``: inlined into the engine's link (one compiled copy less);
# it finds its own moves
register_bot(GREEDY_SPEC, greedy_policy, games=("shifting-stones",), legal=False,
             jit_options={"greedy_policy": {"inline": "always", "_nrt": False}})
# solo: greedy with an exact search of the endgame (planner.py)
register_bot(PLANNER_SPEC, planner_policy, games=("shifting-stones",), legal=False, helpers=PLANNER_HELPERS,
             jit_options=PLANNER_JIT)
# ``expert`` is registered by bots/learned_search.py: the search over the learned policy

