"""Sequence Stacks: shared 1→5 runs per colour, chips, action cards and the out-of-turn
block (rules: ``shared/rules/sequence_stacks.md``; trace events: ``shared/spec/trace.md``).

Cards
=====
17 card types, coded 0…16 (a hand is a count vector over them)::

    0 r1   1 r2   2 r3   3 r4   4 r5   5 rw        colour = code // 6 (0 red, 1 blue)
    6 b1   7 b2   8 b3   9 b4  10 b5  11 bw        number index = code % 6 (5 = wild)
   12 skip  13 reverse  14 steal-card  15 block  16 steal-chip   (action kind = code - 12)

Pile slots: slot = colour * MAX_PILES + k (k < piles_per_colour ≤ MAX_PILES = 4), named
``red.k`` / ``blue.k``.  A pile is its top number (0 = empty) and a bitmask of the
positions (bit n-1 = number n) filled by a wild; that is enough to put its exact cards on
the completed stack.

Action encoding (NUM_ACTIONS = 156, legal lists ascending)
==========================================================
::

      0 …  95  play a number/wild:  ((src * 12 + card) * MAX_PILES + k)
                 src 0 = hand, 1 = top of the own discard pile; card 0…11; the pile is
                 slot k of the card's colour; the number it stands for is top + 1
     96 …  97  skip        96 + src
     98 …  99  reverse     98 + src
    100 … 111  steal-card  100 + src * 6 + victim
    112 … 135  steal-chip  112 + (src * 6 + victim) * 2 + colour
    136 … 152  end the turn discarding card type c from hand: 136 + c
    153        end the turn without a discard (only with an empty hand)
    154        block (out of turn, in the block window)
    155        pass  (decline to block)

State layout (1-D int64, STATE_SIZE slots, the same for every player count; ``LAYOUT``)
===================================================================================
::

    PLAYERS          [0]         player count
    OVER             [1]         1 once the game has ended
    WINNER           [2]         the winning seat, -1 none
    TRUNCATED        [3]         1 if the round cap ended the game
    TURN             [4]         seat on turn
    DIR              [5]         +1 clockwise / -1 anticlockwise
    TURNS            [6]         turns begun (turns lost to skips not counted)
    PLAYS            [7]         in-turn plays this turn
    WINDOW           [8]         seat asked to block, -1 = no block window open
    WINDOW_SLOT      [9]         pile slot of the completion being resolved, -1
    PENDING_DRAW     [10]        the completing play emptied the hand: draw after the window
    DRAW_POS         [11]        draw pile = DRAW[DRAW_POS:DRAW_LEN], top first
    DRAW_LEN         [12]        end of the draw pile in DRAW
    COMPLETED_N      [13]        cards on the completed stack
    RESHUFFLES       [14]        times the completed stack became the draw pile
    RNG              [15]        chance stream (simcore.rng)
    SUPPLY           [16:18]     chips left in the supply, per colour
    SPECIAL          [18:23]     played action cards (out of the game), per kind
    COMPLETED        [23:35]     completed stack as counts of the 12 number/wild types
    PILE_TOP         [35:43]     top number of each pile slot (0 = empty)
    PILE_WILD        [43:51]     wild-position bitmask of each slot
    HAND_N           [51:57]     hand sizes (public)
    HAND_MASK        [57:63]     bit c set when the hand holds card type c
    DISC_N           [63:69]     personal discard pile sizes
    SKIPS            [69:75]     turns each seat still has to lose to skips
    CHIPS            [75:87]     seat * 2 + colour
    STAT_COMPLETED   [87:93]     piles completed (blocked ones included)
    STAT_BLOCKED     [93:99]     own completions blocked
    STAT_BLOCKS      [99:105]    blocks played
    STAT_SKIP        [105:111]   skips played
    STAT_REVERSE     [111:117]   reverses played
    STAT_STEAL_CARD  [117:123]   steal-cards played
    STAT_STEAL_CHIP  [123:129]   steal-chips played
    HAND             [129:231]   seat * 17 + card type: counts
    DISC             [231:951]   seat * 120 + i: personal discard stacks (i = 0 bottom)
    DRAW             [951:1071]  the draw pile array (after a reshuffle it starts at 0)

STATS = STAT_COMPLETED: counter kind ``ST_*`` of seat s is ``STATS + kind * MAX_PLAYERS + s``.

Observation (``observation``: OBS_SIZE float64 for every player count; ``OBS``)
===============================================================================
Seats are relative to the observer (0 = itself, 1 = the next seat clockwise, ...); rows
of relative seats >= players stay 0.  "/ copies" divides a count by that card type's
copies in the deck for the player count (0 for a type the deck lacks)::

    O_PLAYERS       [0:5]       one-hot player count 2..6
    O_RULES         [5:11]      the options in table order but round_cap, each / its maximum
    O_PHASE         [11:15]     one-hot: my in-turn play, my block decision, another seat decides, over
    O_TURN          [15:21]     one-hot relative seat on turn
    O_ASKED         [21:27]     one-hot relative seat asked to block (all 0: no window)
    O_WINDOW_PILE   [27:35]     one-hot pile slot whose completion is resolved
    O_PENDING_DRAW  [35]        the completer draws hand_size after the window
    O_DIR           [36]        1 clockwise, 0 anticlockwise
    O_PLAYS         [37]        plays this turn / TURN_PLAY_CAP
    O_PROGRESS      [38]        turns / (round_cap x players): nearness of truncation
    O_HAND          [39:56]     own hand: count of each card type / copies
    O_HAND_N        [56:62]     hand size / hand_size, per relative seat
    O_CHIPS         [62:74]     relative seat * 2 + colour: chips / chips_to_win
    O_SUPPLY        [74:76]     chips left in the supply / chip_supply, per colour
    O_SKIPS         [76:82]     turns still to lose to skips / 3, per relative seat
    O_PILE_TOP      [82:130]    slot * 6 + top: one-hot top 0..5 of each slot in use
    O_PILE_WILD     [130:170]   slot * 5 + i: number i + 1 of the pile is a wild
    O_DISC_TOP      [170:272]   relative seat * 17 + card: one-hot discard top
    O_DISC_NEXT     [272:374]   the same for the card under the top
    O_DISC          [374:476]   relative seat * 17 + card: discard pile counts / copies
    O_COMPLETED     [476:488]   completed stack counts / copies
    O_SPECIAL       [488:493]   action cards out of the game, per kind / copies
    O_UNSEEN        [493:510]   cards in other hands or the draw pile / copies
    O_DRAW_N        [510]       draw pile size / 120

Decisions and safeguards
========================
* The block window is offered after every completion (also when that colour's chip
  supply is empty); opponents holding a ``block`` are asked in turn order starting with
  the next seat in the current direction; the first block cancels it.
* With ``refill_each_turn`` off, a turn that begins with an empty hand draws
  ``hand_size`` (the empty-hand draw), so a player is never stuck without cards.
* A turn lost to a skip is not a turn played: it counts neither in ``turns`` nor
  towards the round cap.  Skips accumulate per seat (two skips cost two turns).
* A steal-card played as the last card of the hand does not empty it (the stolen card
  arrives), so it causes no draw; any other last card played from hand does.
* Truncation: a game ends as truncated when a turn ends and ``round_cap × players``
  turns have been played.  Simulation safeguard: at most TURN_PLAY_CAP plays in one
  turn (then only the end-of-turn discard is legal), so every game is finite and
  ``max_decisions`` is a true bound.

Parts (imports run down this list)
==================================
``declaration``  cards, options, action codes, the layouts above, precomputed tables, columns, ``INFO``;
``rules``        the compiled rules: helpers, ``init`` … ``returns``, ``evaluate``;
``views``        what a seat may know: ``observe``, ``determinize``, ``observation``;
``words``        the Python side: action names, trace events, ``render`` and step texts.
"""
from __future__ import annotations

# a short summary for `playlab human` (`?`); the full rules: shared/rules/sequence_stacks.md
RULES_SUMMARY = """\
Sequence Stacks: build shared runs 1-5 in red or blue (two piles per colour; a wild of the
colour stands for the next number). Completing a pile earns a chip of its colour unless an
opponent blocks it with a block card. On your turn refill to 5, play cards from your hand
or the top of your own discard pile onto piles, play action cards (skip, reverse,
steal-card, steal-chip), then end by discarding one card. First to 5 chips with at least
2 red and 2 blue wins."""

# the package's namespace is the game's protocol module (simcore.protocol): every public
# name of its parts, layer by layer (declaration <- rules <- views <- words)
from .declaration import *  # noqa: F401,F403
from .rules import *  # noqa: F401,F403
from .views import *  # noqa: F401,F403
from .words import *  # noqa: F401,F403
