"""Shifting Stones: rearrange a 3x3 grid of two-faced stones to match pattern cards; 1-5 players.

Rules: shared/rules/shifting_stones.md (every [decision] there is an option below, plus
``deck``: a corrected deck file, see ``shifting_stones_deck``).

Faces are coded S=0 M=1 F=2 B=3 H=4 O=5 E=6 T=7: the two faces of a tile differ only in
the lowest bit (kind = code >> 1), so a flip is ``grid ^ (1 << 3*cell)``.  The grid is one
27-bit integer, 3 bits a cell, cell 0 (top-left) in the lowest bits.  Cards are indexed
0..71 (index = id - 1).  Sets of cards are two 36-bit words (LO: cards 0..35, HI: 36..71)
so no sign bit is ever touched.

A card matches the grid when one of its placements satisfies ``grid & mask == value``.
The placements (every offset of the footprint inside the grid; grey cells have mask 0)
are built from the deck in Python and travel in ``params`` after the option values,
because the deck is a runtime input (``--variant deck=PATH``):

    params: OPTIONS[10]   option values in table order (deck: 0)
            POINTS[72]    points of each card
            PL_START[73]  card c's placements are PL_START[c] .. PL_START[c+1]-1
            PL_MASK[648]  PL_VALUE[648]   placement i matches when grid & mask == value
            PL_BITLO[648] PL_BITHI[648]   the bit of placement i's card in the LO/HI word
            BY_VALUE[72]  card indices by point value: 28 ones, 26 twos, 13 threes, 5 fives

State (one int64 vector, STATE_SIZE = 279 slots; seat regions are sized for 5 seats;
this table is ``LAYOUT.table()``)::

    RNG           [0]         chance stream (simcore.rng)
    PLAYERS       [1]         seats in this game
    CUR           [2]         seat on turn; -1 once over
    GRID          [3]         27-bit grid, 3 bits a cell, cell 0 lowest
    OVER          [4]         1 once the game has ended
    TRUNCATED     [5]         1 if the round cap ended it
    ROUND         [6]         rounds completed (solo: turns)
    TURNS         [7]         player turns completed
    TURN_ACTIONS  [8]         discards and scores this turn
    TURN_SCORED   [9]         cards scored this turn
    TRIGGER_SEAT  [10]        seat whose score triggered the end; -1 not yet (2-5 players)
    STRIKES       [11]        solo strikes
    SCORED_TOTAL  [12]        cards scored by anyone
    DRAW_TOP      [13]        the draw pile is DECK[DRAW_TOP:DRAW_END], top card first
    DRAW_END      [14]
    DISCARD_LO    [15]        discard pile (set, two words)
    DISCARD_HI    [16]
    DISCARD_N     [17]        its size
    GAME_LO       [18]        the cards in this game (all 72; solo: the 16 chosen)
    GAME_HI       [19]
    NCARDS        [20]        their count
    RESHUFFLES    [21]        discard piles reshuffled so far
    PENDING       [22]        card just discarded for a shift/flip still to choose; -1
    HAND_LO       [23:28]     each seat's hand (set), LO word
    HAND_HI       [28:33]     HI word
    HAND_N        [33:38]     hand sizes (public)
    SKIPPED       [38:43]     1 if the seat's last turn was a skip
    CARDS         [43:48]     cards scored
    POINTS        [48:53]     their points
    ONES          [53:58]     1-point cards among them
    DECK          [58:130]    the shuffled deck (seat s dealt DECK[s*h:(s+1)*h]); after a reshuffle the pile
    SCORED_BY     [130:202]   seat that scored each card; -1
    SCORED_ROUND  [202:274]   round each card was scored in; -1
    SKIPS_TAKEN   [274:279]   skips each seat took

Actions (NUM_ACTIONS = 167; c = card index 0..71).  A shift or a flip takes two decisions:
first the card to discard, then the move it pays for::

    0   .. 11    shift pair p (only right after a discard)
    12  .. 20    flip cell x = action - 12 (only right after a discard)
    21  .. 92    discard c to shift or flip (c leaves the hand at once; PENDING = c)
    93  .. 164   score c (it must match the grid now)
    165          end turn
    166          skip

The 12 orthogonal pairs, in order: 0-1 0-3 1-2 1-4 2-5 3-4 3-6 4-5 4-7 5-8 6-7 7-8.

Why two decisions: a flat "move x card" encoding offers 21 discards per card in hand
against one end turn, so the uniformly random bot almost never scores or ends a turn
early (measured: 99.8% of 2-player random games hit the 200-round cap).  Split, the
random bot picks among cards, scores and end turn, which plays like the game.  Actions
name cards rather than hand slots, so the hand (which has no limit: a skip adds cards)
needs no cap: it can hold any of the 72 cards and every id stays valid.

Observation (``observation``: OBS_SIZE = 420 float64 entries, the same at every player
count; seat blocks are relative to the observer, absent seats 0; everything in it is
public or the observer's own; this table is ``OBS_LAYOUT.table()``)::

    OBS_GRID      [0:72]      face up in each cell, one-hot [8*cell + face] (S M F B H O E T); beneath: face ^ 1
    OBS_HAND      [72:144]    own hand, multi-hot by card index (id - 1)
    OBS_MATCH     [144:216]   own hand cards that match the grid now (may be scored)
    OBS_DISCARD   [216:288]   discard pile, multi-hot (returns at a reshuffle)
    OBS_SCORED    [288:360]   cards scored by anyone, multi-hot (gone for good)
    OBS_PHASE     [360:364]   a discard awaits its shift/flip; the turn has an action; it scored; its seat may skip
    OBS_ON_TURN   [364:369]   seat on turn, one-hot; seat blocks: [k] is seat (seat + k) % players
    OBS_PRESENT   [369:374]   1 for the relative seats in the game
    OBS_HAND_N    [374:379]   hand sizes / hand_size (above 1 after a skip)
    OBS_CARDS     [379:384]   cards scored / end trigger (solo: / cards in the game)
    OBS_POINTS    [384:389]   points of the scored cards / 30
    OBS_ONES      [389:394]   1-point cards scored / 10 (the bonus race)
    OBS_BONUS     [394:399]   1 if the seat would get the bonus if the game ended now
    OBS_SKIPPED   [399:404]   1 if the seat's last turn was a skip (it may not skip next)
    OBS_TRIGGER   [404:409]   the seat that triggered the end, one-hot
    OBS_PILES     [409:411]   draw pile and discard pile sizes / cards in the game
    OBS_PROGRESS  [411:414]   rounds / round_cap; 1 once the end is triggered; solo strikes / solo_strikes
    OBS_PLAYERS   [414:419]   player count, one-hot at [players - 1]
    OBS_OVER      [419]       1 once the game is over

Parts (imports run down this list)
==================================
``declaration``  constants, action codes, the layouts, options, deck tables, result columns, ``INFO``;
``rules``        the compiled rules: helpers, ``init`` … ``returns``, ``evaluate``;
``views``        what a seat may know: ``observe``, ``determinize``, ``observation``;
``words``        the Python side: action names, trace events, ``render`` and step texts.
"""
from __future__ import annotations

# a short summary for `playlab human` (`?`); the full rules: shared/rules/shifting_stones.md
RULES_SUMMARY = """\
Shifting Stones: a 3x3 grid of two-faced stones (S/M sun-moon, F/B fish-bird, H/O
horse-boat, E/T seed-tree). On your turn either skip (draw 2; not twice running) or take
actions, then end the turn and refill your hand to 4. Actions: pay with a card from your
hand to swap two adjacent stones or flip one stone; or score a card whose pattern (grey =
any stone) appears on the grid now, for its points. The end is triggered when someone has
scored enough cards (10/9/8/7 cards at 2/3/4/5 players); the round is finished, and the
most points wins (a bonus for the most 1-point cards). Solo: score all 16 before the
strikes run out."""

# the package's namespace is the game's protocol module (simcore.protocol): every public
# name of its parts, layer by layer (declaration <- rules <- views <- words)
from .declaration import *  # noqa: F401,F403
from .rules import *  # noqa: F401,F403
from .views import *  # noqa: F401,F403
from .words import *  # noqa: F401,F403
