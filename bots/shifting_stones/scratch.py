"""The greedy bot's working memory: one row of int64 per seat (the runner's ``imem``).

Declared once here with ``Layout``; the constants are its slots.  The table:

    PLAN_SEAT    [0]         the move planned at the last discard: the seat,
    PLAN_GRID    [1]         the grid,
    PLAN_CARD    [2]         the card discarded,
    PLAN_LO      [3]         the hand left (two words),
    PLAN_HI      [4]
    PLAN_MOVE    [5]         and the move
    MC_GRID      [6]         a grid (-1: none), some cards, and which of them match it
    MC_KNOWN_LO  [7]         (known after a move)
    MC_KNOWN_HI  [8]
    MC_MATCH_LO  [9]
    MC_MATCH_HI  [10]
    NX_SEAT      [11]        after a two-move plan's first move: the state expected,
    NX_GRID      [12]
    NX_LO        [13]
    NX_HI        [14]
    NX_MOVE      [15]        the second move (the best single move there),
    NX_KEEP_LO   [16]        the cards it completes
    NX_KEEP_HI   [17]
    NX_PAY       [18]        and the card that will pay for it
    FC_SEAT      [19]        a turn's first decision that found nothing paying, and the state
    FC_GRID      [20]        it was for (solo: the next turn may start from the same one):
    FC_LO        [21]        grid, hand,
    FC_HI        [22]
    FC_BOT       [23]        hand size | depth << 8,
    FC_CV        [24]        card_value's bits
    PU           [25:105]    list: per cell z, face f (8 z + f): moves that put f on z
    R0           [105:126]   list: per move, (points << 5) + count of the cards it completes
    U0           [126]       list: the moves completing some card
    GAIN         [127:148]   list: per first move, points that may gain after it
    BASE         [148:324]   list: the cards, then their placements

Two regions are shared in time, never at once: the plain search's accumulators
(``ACC``, 21 slots) are the first slots of ``PU`` (the list search rebuilds PU before
it reads it), and after a list search ``PU`` holds the best first move's changed cards,
second move and their completions for the payer (``BEST_*``).
"""
from simcore.games.shifting_stones import MOVES
from simcore.layout import Field, Layout

CARD_W = 4  # slots per card in the list
MAX_LIST = 64  # placements in the list (bits of a word)
MAX_CARDS = 60  # cards in the list (bits of a word)
LIST_CARDS = 12  # the list fits the placements of a hand of this many cards (else: plain search)
PU_SIZE = 8 * 10  # per cell z (and a dummy cell 9) and face f

SCRATCH = Layout(
    Field("PLAN_SEAT", 1, "the move planned at the last discard: the seat,"),
    Field("PLAN_GRID", 1, "the grid,"),
    Field("PLAN_CARD", 1, "the card discarded,"),
    Field("PLAN_LO", 1, "the hand left (two words),"),
    Field("PLAN_HI", 1),
    Field("PLAN_MOVE", 1, "and the move"),
    Field("MC_GRID", 1, "a grid (-1: none), some cards, and which of them match it"),
    Field("MC_KNOWN_LO", 1, "(known after a move)"),
    Field("MC_KNOWN_HI", 1),
    Field("MC_MATCH_LO", 1),
    Field("MC_MATCH_HI", 1),
    Field("NX_SEAT", 1, "after a two-move plan's first move: the state expected,"),
    Field("NX_GRID", 1),
    Field("NX_LO", 1),
    Field("NX_HI", 1),
    Field("NX_MOVE", 1, "the second move (the best single move there),"),
    Field("NX_KEEP_LO", 1, "the cards it completes"),
    Field("NX_KEEP_HI", 1),
    Field("NX_PAY", 1, "and the card that will pay for it"),
    Field("FC_SEAT", 1, "a turn's first decision that found nothing paying, and the state"),
    Field("FC_GRID", 1, "it was for (solo: the next turn may start from the same one):"),
    Field("FC_LO", 1, "grid, hand,"),
    Field("FC_HI", 1),
    Field("FC_BOT", 1, "hand size | depth << 8,"),
    Field("FC_CV", 1, "card_value's bits"),
    # the moves after which cell z shows face f and did not before
    Field("PU", PU_SIZE, "list: per cell z, face f (8 z + f): moves that put f on z"),
    Field("R0", MOVES, "list: per move, (points << 5) + count of the cards it completes"),
    Field("U0", 1, "list: the moves completing some card"),
    # per first move: the points of the cards that may gain after it, and << GAIN_SHIFT
    # those of the cards with completions from the search's grid that it completes or
    # after which they may gain
    Field("GAIN", MOVES, "list: per first move, points that may gain after it"),
    # per card k (CARD_W slots): card | points << 8 | first placement << 16 | end of its
    # placements << 24; its completions at the search's grid; its completions after the
    # first move tried (when they may have changed); the first moves after which a
    # placement of it may gain completions | those after which one may gain or lose some
    # << 21.  Then per placement e (2 slots): its completions at the search's grid | its
    # index in params << 21 | k << 40; the first moves after which it may gain or lose
    # completions (what ``cards_after_move`` asks of it)
    Field("BASE", CARD_W * LIST_CARDS + 2 * MAX_LIST, "list: the cards, then their placements"),
    size_name="SCRATCH_SIZE",
)
SCRATCH.export(globals())

ACC = PU  # noqa: F821  (the plain search: per move (points << 8) + count of the cards it completes)
GAIN_SHIFT = 16  # GAIN's high part: the points of the cards with a completion whose R share is void
GAIN_LOW = (1 << GAIN_SHIFT) - 1
# after the list search, for the payer: the best first move's changed cards, second move
# and their completions (up to BEST_ROOM cards)
BEST_CHANGED = PU  # noqa: F821
BEST_M2 = PU + 1  # noqa: F821
BEST_COMPS = PU + 2  # noqa: F821
BEST_ROOM = 28
FILL = 6  # build_list: list entries written per card at once (most cards have at most 6 placements)
