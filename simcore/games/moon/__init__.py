"""Three-Player Moon: a trick-taking domino game for exactly 3 players, first to 21.

Rules: shared/rules/moon.md (every [decision] and [variant] there is an option below).

Tiles are numbered 0..21: tile 0 is 0-0, then 1-1, 2-1, 2-2, 3-1, 3-2, 3-3, … 6-6 (high end
first, every a-b with 1 <= b <= a <= 6).  Sets of tiles are 22-bit masks.  Trump codes:
0..6 a number, 7 doubles, 8 no-trump.  Led-suit codes: 0..6 a plain suit, 7 trumps.

State (one int64 vector, STATE_SIZE = 147 slots; ``LAYOUT`` below, this table is its
``LAYOUT.table()``)::

    HAND               [0:3]       tiles in each seat's hand (mask)
    WIDOW              [3]         widow tile (id)
    DISCARDED          [4]         the bidder's discard (id), -1 before it
    SCORE              [5:8]       running totals
    TRICKS             [8:11]      tricks each seat took this hand
    PHASE              [11]        BID / DISCARD / TRUMP / PLAY / OVER
    ACTOR              [12]        seat to decide
    FIRST_BIDDER       [13]        this hand's first bidder
    HIGH_BID           [14]        0 until someone bids
    BIDDER             [15]        high bidder, -1
    SPOKEN             [16]        players who have bid or passed this hand
    TRUMP              [17]        trump code, -1 before it is named
    LEADER             [18]        leader of the current trick
    TRICK_NO           [19]        tricks completed this hand
    IN_TRICK           [20]        tiles on the table
    LED                [21]        led-suit code of the trick, -1
    TABLE              [22:25]     tile each seat played to the current trick, -1
    PLAYED             [25]        tiles played this hand, the table's included (mask)
    VOID               [26:29]     led-suit codes each seat failed to follow this hand (public, bit per code)
    HAND_NO            [29]        hands begun, redeals included
    RNG                [30]        chance stream (simcore.rng)
    WINNER             [31]        winning seat, -1
    TRUNCATED          [32]        1 if the hand cap ended the game
    TURNS              [33]        bids and passes + discards + plays (naming trump is not counted)
    REDEALS            [34]        hands redealt because all passed
    BIDS_MADE          [35:38]     contracts each seat made
    BIDS_FAILED        [38:41]     contracts each seat failed
    MOON_TRIES         [41:44]     21 bids each seat won the bidding with
    MOONS_MADE         [44:47]     21 bids each seat made
    WIDOW_TAKEN        [47]        1 once the bidder holds the widow
    DISCARD_DONE       [48]        1 once the bidder has discarded (public)
    HAND_POINTS        [49:52]     the last completed hand's points
    LAST_TRICK_WINNER  [52]        winner of the last completed trick, -1
    GAME_FIRST_BIDDER  [53]        first bidder of hand 1 (chosen at random)
    SAID               [54:57]     what each seat said this hand: -1 not yet, 0 pass, else its bid (public)
    PLAY_LOG           [57:78]     tiles played this hand in order (trick k's j-th at 3k + j), -1 after them (public)
    HAND_POINTS_POS    [78:81]     points of completed hands by bidding position k (0 = bid first)
    CONTRACTS_POS      [81:84]     contracts won by the bidder at position k
    MADE_POS           [84:87]     of those, contracts made
    DECK               [87:109]    this hand's deal order: seat s got DECK[7s..7s+6], widow DECK[21]
    CONTRACTS_BID      [109:117]   contracts won at each bid level: 1..7, then 21
    MADE_BID           [117:125]   of those, contracts made
    CONTRACTS_TRUMP    [125:134]   contracts played under each trump: 0..6, doubles, no-trump
    MADE_TRUMP         [134:143]   of those, contracts made
    CONTRACTS_WIDOW    [143:145]   contracts by the bidder's use of the widow: 0 discarded it, 1 kept it
    MADE_WIDOW         [145:147]   of those, contracts made

Observation (``observation``: OBS_SIZE = 263 float64, ``OBS_LAYOUT``).  r is a seat relative
to the observer (0 itself, 1 the next to play after it, 2 the one after); blocks "by r"
hold r = 0, 1, 2 in turn; tiles are indexed by tile id.  Only public slots and the
observer's own are read::

    OBS_PHASE         [0:5]       one-hot phase: bid, discard, trump, play, over
    OBS_TO_ACT        [5:8]       one-hot r of the seat to decide (all 0 when over)
    OBS_FIRST_BIDDER  [8:11]      one-hot r of this hand's first bidder
    OBS_HAND          [11:33]     the observer's tiles (multi-hot)
    OBS_HAND_SIZES    [33:36]     tiles held by r, / 8
    OBS_SAID          [36:66]     by r, one-hot of what r said this hand: not yet, pass, bid 1..7, bid 21
    OBS_BIDDER        [66:69]     one-hot r of the high bidder (all 0 before a bid)
    OBS_CONTRACT      [69:77]     one-hot high bid: 1..7, 21 (all 0 before a bid)
    OBS_TRUMP         [77:86]     one-hot trump: 0..6, doubles, no-trump (all 0 before named)
    OBS_WIDOW_TAKEN   [86]        1 once the bidder holds the widow
    OBS_DISCARD_DONE  [87]        1 once the bidder has discarded
    OBS_WIDOW         [88:110]    one-hot widow tile, for the bidder who took it only
    OBS_DISCARD       [110:132]   one-hot discard, for the bidder only
    OBS_PLAYED        [132:154]   tiles played to completed tricks this hand (multi-hot)
    OBS_TABLE         [154:220]   by r, one-hot tile r played to the current trick
    OBS_LEADER        [220:223]   one-hot r of the current trick's leader (play phase only)
    OBS_LED           [223:231]   one-hot led suit of the current trick: 0..6, trumps (0 if empty)
    OBS_VOID          [231:255]   by r, led suits r failed to follow this hand
    OBS_TRICKS        [255:258]   tricks taken this hand by r, / 7
    OBS_TRICK_NO      [258]       tricks completed this hand, / 7
    OBS_SCORE         [259:262]   running totals by r, / target_score (may be negative)
    OBS_HAND_NO       [262]       hands begun, / hand_cap

Actions (NUM_ACTIONS = 62)::

    0..21   play tile t               22..43  discard tile t (bidder, after the widow)
    44      pass                      45..51  bid 1..7 (only min_bid..7 are legal)
    52      bid 21 (shoot the moon)   53..61  name trump 0..6, doubles, no-trump

Parts (imports run down this list)
==================================
``declaration``  tiles, action codes, phases, the layouts, options, trick tables, columns, ``INFO``;
``rules``        the compiled rules (deal, bids, tricks, score): ``init`` … ``returns``, ``evaluate``;
``views``        what a seat may know: ``observe``, ``determinize``, ``observation``;
``words``        the Python side: action names, trace events, ``render`` and step texts.
"""
from __future__ import annotations

# a short summary for `playlab human` (`?`); the full rules: shared/rules/moon.md
RULES_SUMMARY = """\
Three-Player Moon: 22 dominoes (double-six set without blanks but 0-0), 7 tiles each, one
face-down widow. Bid once each in turn: pass, or higher than the high bid (min_bid..7, or
21 to shoot the moon). The high bidder takes the widow, discards one tile face down and
names trump (a number, doubles or no-trump), then leads. Follow the led suit if you can;
the highest trump, else the highest of the led suit, wins the trick. The bidder scores the
bid on making at least that many of the 7 tricks (21: all 7), else loses it; the others
score one point per trick. First to target_score (default 21) wins."""

# the package's namespace is the game's protocol module (simcore.protocol): every public
# name of its parts, layer by layer (declaration <- rules <- views <- words)
from .declaration import *  # noqa: F401,F403
from .rules import *  # noqa: F401,F403
from .views import *  # noqa: F401,F403
from .words import *  # noqa: F401,F403
