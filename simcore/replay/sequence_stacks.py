"""Independent pure-Python replayer for Sequence Stacks traces (``sequence-stacks``).

Written from ``shared/rules/sequence_stacks.md`` and ``shared/spec/trace.md`` alone: it
shares no code or tables with the Numba kernel.  ``replay(trace)`` walks the log event by
event, checks each against the rules (whose turn it is, that the card is where the event
says, that the pile accepts it, that every owed draw is written out in full and matches
the draw pile, that reshuffles happen exactly when needed and hold exactly the completed
stack, that skipped seats and turn order follow the direction, …) and raises
``ReplayError`` at the first illegal or inconsistent event.  It returns the result its
own rules reach: ``{"scores", "winners", "truncated"}``.

Conventions shared with the kernel only through the written rules and trace format:
* the block window follows every completion; passes are not written, so any opponent
  holding a block may write ``block S`` right after ``complete``;
* a turn ends with ``discard S C``, or without an event when the hand is empty;
* with ``refill_each_turn`` off, a turn that starts with an empty hand draws
  ``hand_size`` cards (written as that turn's draw);
* at most ``PLAY_CAP`` plays in one turn (the simulator's safeguard);
* the game is truncated when a turn ends after ``round_cap × players`` turns.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from . import ReplayError

PLAY_CAP = 100

COLOURS = ("red", "blue")
NUMBER_CARDS = {f"{c[0]}{n}": (c, n) for c in COLOURS for n in range(1, 6)}
WILD_CARDS = {"rw": "red", "bw": "blue"}
ACTION_CARDS = ("skip", "reverse", "steal-card", "block", "steal-chip")
ALL_CARDS = set(NUMBER_CARDS) | set(WILD_CARDS) | set(ACTION_CARDS)

DEFAULTS = {
    "refill_each_turn": True,
    "hand_size": 5,
    "piles_per_colour": 2,
    "chips_to_win": 5,
    "min_each_colour": 2,
    "chip_supply": 20,
    "round_cap": 500,
}


def full_deck(players: int) -> Counter:
    deck: Counter = Counter()
    for colour in ("r", "b"):
        for n in range(1, 6):
            deck[f"{colour}{n}"] = 9
        deck[f"{colour}w"] = 7
    deck.update({"skip": 3, "reverse": 3, "steal-card": 3, "block": 3, "steal-chip": 4})
    if players == 2:
        deck.subtract({"reverse": 3, "block": 1, "steal-chip": 2, "steal-card": 1, "skip": 1})
    return +deck


def card_colour(card: str) -> str | None:
    if card in NUMBER_CARDS:
        return NUMBER_CARDS[card][0]
    return WILD_CARDS.get(card)


class _Replay:
    def __init__(self, trace: dict[str, Any]):
        try:
            self.n = int(trace["players"])
            log = trace["log"]
        except (KeyError, TypeError, ValueError):
            raise ReplayError("trace lacks players or log") from None
        if not 2 <= self.n <= 6:
            raise ReplayError(f"sequence-stacks needs 2-6 players, not {self.n}")
        if not isinstance(log, list):
            raise ReplayError("log is not a list")
        self.log = log
        variant = dict(DEFAULTS)
        given = trace.get("variant") or {}
        for key, value in given.items():
            if key not in DEFAULTS:
                raise ReplayError(f"unknown option {key!r}")
            if isinstance(DEFAULTS[key], bool):
                if not isinstance(value, bool):
                    raise ReplayError(f"option {key} must be true or false")
            elif isinstance(value, bool) or not isinstance(value, int):
                raise ReplayError(f"option {key} must be an integer")
            variant[key] = value
        self.refill = variant["refill_each_turn"]
        self.hand_size = variant["hand_size"]
        self.piles_per_colour = variant["piles_per_colour"]
        self.chips_to_win = variant["chips_to_win"]
        self.min_each = variant["min_each_colour"]
        self.turn_cap = variant["round_cap"] * self.n
        if self.hand_size < 1 or self.piles_per_colour < 1:
            raise ReplayError("hand_size and piles_per_colour must be positive")

        n = self.n
        self.hands = [Counter() for _ in range(n)]
        self.discards: list[list[str]] = [[] for _ in range(n)]
        self.draw_pile: list[str] = []  # top card first
        self.completed: Counter = Counter()
        self.special: Counter = Counter()
        self.piles = {(c, k): [] for c in COLOURS for k in range(self.piles_per_colour)}
        self.chips = [{"red": 0, "blue": 0} for _ in range(n)]
        self.supply = {"red": variant["chip_supply"], "blue": variant["chip_supply"]}
        self.skips = [0] * n
        self.direction = 1
        self.turn = -1  # seat on turn
        self.turns = 0
        self.plays = 0
        self.turn_open = False  # a turn is in progress (not ended by a discard)
        self.cursor = -1  # seat reached by skipped events during a turn change
        self.owed: tuple[int, int] | None = None  # (seat, cards still to draw)
        self.window: tuple[int, str, bool] | None = None  # (completer, pile, hand emptied)
        self.expect_complete: tuple[int, str, bool] | None = None
        self.pending_chip: tuple[int, str, bool] | None = None  # chip due right now
        self.winner: int | None = None
        self.i = 0

    # ------------------------------------------------------------------ helpers
    def fail(self, msg: str):
        raise ReplayError(f"event {self.i} ({self.event!r}): {msg}")

    def seat(self, token: str) -> int:
        try:
            s = int(token)
        except ValueError:
            self.fail(f"bad seat {token!r}")
        if not 0 <= s < self.n:
            self.fail(f"no seat {s}")
        return s

    def card(self, token: str) -> str:
        if token not in ALL_CARDS:
            self.fail(f"unknown card {token!r}")
        return token

    def pile(self, token: str) -> tuple[str, int]:
        colour, _, k = token.partition(".")
        if colour not in COLOURS or not k.isdigit() or (colour, int(k)) not in self.piles:
            self.fail(f"no pile {token!r}")
        return colour, int(k)

    def next_seat(self, s: int) -> int:
        return (s + self.direction) % self.n

    def wins(self, red: int, blue: int) -> bool:
        return red + blue >= self.chips_to_win and red >= self.min_each and blue >= self.min_each

    def owe_draw(self, seat: int, count: int):
        self.owed = (seat, count)
        self.settle_draw()

    def settle_draw(self):
        if self.owed is None:
            return
        if self.owed[1] == 0 or (not self.draw_pile and not self.completed):
            self.owed = None

    def in_turn(self, s: int):
        if self.winner is not None:
            self.fail("the game is over")
        if self.owed is not None:
            self.fail(f"seat {self.owed[0]} still has {self.owed[1]} card(s) to draw")
        if self.window is not None or self.expect_complete is not None:
            self.fail("a completion is unresolved")
        if not self.turn_open:
            self.fail("no turn in progress")
        if s != self.turn:
            self.fail(f"seat {self.turn} is on turn, not seat {s}")

    def take(self, s: int, card: str, src: str):
        if src == "hand":
            if self.hands[s][card] <= 0:
                self.fail(f"seat {s} holds no {card}")
            self.hands[s][card] -= 1
        elif src == "discard":
            if not self.discards[s] or self.discards[s][-1] != card:
                self.fail(f"{card} is not on top of seat {s}'s discard pile")
            self.discards[s].pop()
        else:
            self.fail(f"unknown source {src!r}")

    def hand_size_of(self, s: int) -> int:
        return sum(self.hands[s].values())

    def after_hand_play(self, s: int, src: str):
        if src == "hand" and self.hand_size_of(s) == 0:
            self.owe_draw(s, self.hand_size)

    def action_card(self, s: int, card: str, src: str):
        self.in_turn(s)
        if self.plays >= PLAY_CAP:
            self.fail("too many plays in one turn")
        self.take(s, card, src)
        self.special[card] += 1
        self.plays += 1

    # ------------------------------------------------------------------ events
    def run(self) -> dict[str, Any]:
        log = self.log
        n = self.n
        # setup: hands, deck, first turn
        if len(log) < n + 2:
            raise ReplayError("log too short for the deal")
        dealt: Counter = Counter()
        for s in range(n):
            self.i, self.event = s, log[s]
            tok = str(log[s]).split()
            if len(tok) < 2 or tok[0] != "hand" or self.seat(tok[1]) != s:
                self.fail(f"expected the hand of seat {s}")
            cards = [self.card(t) for t in tok[2:]]
            if len(cards) != self.hand_size:
                self.fail(f"a hand holds {self.hand_size} cards, not {len(cards)}")
            self.hands[s].update(cards)
            dealt.update(cards)
        self.i, self.event = n, log[n]
        tok = str(log[n]).split()
        if not tok or tok[0] != "deck":
            self.fail("expected the deck")
        self.draw_pile = [self.card(t) for t in tok[1:]]
        dealt.update(self.draw_pile)
        if dealt != full_deck(n):
            self.fail(f"hands and deck are not the {sum(full_deck(n).values())}-card deck")
        self.turn = n - 1 if self.direction == 1 else 1  # so that seat 0 comes next
        self.turn_open = False
        self.cursor = self.turn
        self.turns = 0
        first = True
        for self.i in range(n + 1, len(log)):
            self.event = log[self.i]
            if not isinstance(self.event, str):
                self.fail("an event must be a string")
            tok = self.event.split()
            if not tok:
                self.fail("empty event")
            if first and tok != ["turn", "0"]:
                self.fail("seat 0 plays first")
            first = False
            self.dispatch(tok)
        self.i, self.event = len(log), "<end of log>"
        return self.finish()

    def dispatch(self, tok: list[str]):
        kind = tok[0]
        if self.winner is not None:
            self.fail("event after the game was won")
        if self.expect_complete is not None and kind != "complete":
            self.fail("a completing play must be followed by complete")
        if self.window is not None and kind != "block":
            self.resolve_window(None)  # nobody blocked
        if self.pending_chip is not None and kind != "chip":
            s, colour, _ = self.pending_chip
            self.fail(f"expected chip {s} {colour}")
        handler = {
            "draw": self.draw, "reshuffle": self.reshuffle, "turn": self.turn_event,
            "skipped": self.skipped, "play": self.play, "complete": self.complete,
            "block": self.block, "chip": self.chip, "skip": self.skip_card,
            "reverse": self.reverse_card, "steal-card": self.steal_card,
            "steal-chip": self.steal_chip, "discard": self.discard,
        }.get(kind)
        if handler is None:
            self.fail(f"unknown event {kind!r}")
        handler(tok)

    def draw(self, tok):
        if len(tok) < 3:
            self.fail("a draw names a seat and at least one card")
        s = self.seat(tok[1])
        if self.owed is None or self.owed[0] != s:
            self.fail(f"seat {s} owes no draw")
        cards = [self.card(t) for t in tok[2:]]
        if len(cards) > self.owed[1]:
            self.fail(f"seat {s} draws {len(cards)} cards, only {self.owed[1]} owed")
        for c in cards:
            if not self.draw_pile:
                self.fail("the draw pile is empty (reshuffle missing)")
            top = self.draw_pile.pop(0)
            if top != c:
                self.fail(f"the top of the draw pile is {top}, not {c}")
            self.hands[s][c] += 1
        self.owed = (s, self.owed[1] - len(cards))
        if self.owed[1] > 0 and self.draw_pile:
            self.fail("a draw stopped short although the draw pile has cards")
        self.settle_draw()

    def reshuffle(self, tok):
        if self.owed is None or self.owed[1] == 0:
            self.fail("reshuffle while no card must be drawn")
        if self.draw_pile:
            self.fail("reshuffle while the draw pile still has cards")
        cards = [self.card(t) for t in tok[1:]]
        if not cards or Counter(cards) != self.completed:
            self.fail("the reshuffled cards are not the completed stack")
        self.draw_pile = cards
        self.completed = Counter()

    def end_turn_implicitly(self):
        """A turn-change event while a turn is open: the turn ended without a discard."""
        if self.turn_open:
            self.in_turn(self.turn)
            if self.hand_size_of(self.turn) != 0:
                self.fail(f"seat {self.turn} must discard to end the turn")
            self.close_turn()
        elif self.owed is not None:
            self.fail(f"seat {self.owed[0]} still has {self.owed[1]} card(s) to draw")

    def close_turn(self):
        self.turn_open = False
        self.cursor = self.turn

    def skipped(self, tok):
        if len(tok) != 2:
            self.fail("skipped takes a seat")
        s = self.seat(tok[1])
        self.end_turn_implicitly()
        self.check_can_continue()
        if s != self.next_seat(self.cursor) or self.skips[s] <= 0:
            self.fail(f"seat {s} is not the next seat to lose a turn")
        self.skips[s] -= 1
        self.cursor = s

    def turn_event(self, tok):
        if len(tok) != 2:
            self.fail("turn takes a seat")
        s = self.seat(tok[1])
        self.end_turn_implicitly()
        self.check_can_continue()
        if s != self.next_seat(self.cursor):
            self.fail(f"seat {self.next_seat(self.cursor)} is next, not seat {s}")
        if self.skips[s] > 0:
            self.fail(f"seat {s} must lose this turn (skipped)")
        self.turn = s
        self.turns += 1
        self.plays = 0
        self.turn_open = True
        have = self.hand_size_of(s)
        if self.refill:
            if have < self.hand_size:
                self.owe_draw(s, self.hand_size - have)
        elif have == 0:
            self.owe_draw(s, self.hand_size)

    def check_can_continue(self):
        if self.turns >= self.turn_cap:
            self.fail("the round cap was reached: the game is truncated")

    def play(self, tok):
        if len(tok) != 6:
            self.fail("play S C SRC PILE N")
        s = self.seat(tok[1])
        card = self.card(tok[2])
        src = tok[3]
        colour, k = self.pile(tok[4])
        self.in_turn(s)
        if self.plays >= PLAY_CAP:
            self.fail("too many plays in one turn")
        if card_colour(card) is None:
            self.fail(f"{card} cannot go on a pile")
        if card_colour(card) != colour:
            self.fail(f"{card} does not go on a {colour} pile")
        pile = self.piles[(colour, k)]
        number = len(pile) + 1
        if tok[5] != str(number):
            self.fail(f"{tok[4]} needs number {number}, the event says {tok[5]}")
        if card in NUMBER_CARDS and NUMBER_CARDS[card][1] != number:
            self.fail(f"{card} cannot stand for {number}")
        self.take(s, card, src)
        pile.append(card)
        self.plays += 1
        emptied = src == "hand" and self.hand_size_of(s) == 0
        if number == 5:
            self.expect_complete = (s, tok[4], emptied)
        elif emptied:
            self.owe_draw(s, self.hand_size)

    def complete(self, tok):
        if self.expect_complete is None:
            self.fail("no pile was just completed")
        s, pile, emptied = self.expect_complete
        if tok != ["complete", str(s), pile]:
            self.fail(f"expected complete {s} {pile}")
        self.expect_complete = None
        self.window = (s, pile, emptied)

    def block(self, tok):
        if len(tok) != 2:
            self.fail("block takes a seat")
        b = self.seat(tok[1])
        if self.window is None:
            self.fail("no completion to block")
        s = self.window[0]
        if b == s:
            self.fail("a player cannot block their own completion")
        if self.hands[b]["block"] <= 0:
            self.fail(f"seat {b} holds no block")
        self.hands[b]["block"] -= 1
        self.special["block"] += 1
        self.resolve_window(b)

    def resolve_window(self, blocker: int | None):
        s, pile_name, emptied = self.window
        self.window = None
        colour, k = self.pile(pile_name)
        self.completed.update(self.piles[(colour, k)])
        self.piles[(colour, k)] = []
        if blocker is None and self.supply[colour] > 0:
            self.pending_chip = (s, colour, emptied)  # the chip event must come now
        elif emptied:
            self.owe_draw(s, self.hand_size)

    def chip(self, tok):
        pending = self.pending_chip
        self.pending_chip = None
        if pending is None:
            self.fail("no chip is due")
        s, colour, emptied = pending
        if tok != ["chip", str(s), colour]:
            self.fail(f"expected chip {s} {colour}")
        self.supply[colour] -= 1
        self.chips[s][colour] += 1
        if self.wins(self.chips[s]["red"], self.chips[s]["blue"]):
            self.winner = s
            return
        if emptied:
            self.owe_draw(s, self.hand_size)

    def skip_card(self, tok):
        if len(tok) != 3:
            self.fail("skip S SRC")
        s = self.seat(tok[1])
        self.action_card(s, "skip", tok[2])
        self.skips[self.next_seat(s)] += 1
        self.after_hand_play(s, tok[2])

    def reverse_card(self, tok):
        if len(tok) != 3:
            self.fail("reverse S SRC")
        s = self.seat(tok[1])
        self.action_card(s, "reverse", tok[2])
        self.direction = -self.direction
        self.after_hand_play(s, tok[2])

    def steal_card(self, tok):
        if len(tok) != 5:
            self.fail("steal-card S SRC V C")
        s, v = self.seat(tok[1]), self.seat(tok[3])
        c = self.card(tok[4])
        if v == s:
            self.fail("steal-card needs an opponent")
        self.in_turn(s)
        if not self.discards[v] or self.discards[v][-1] != c:
            self.fail(f"{c} is not on top of seat {v}'s discard pile")
        self.action_card(s, "steal-card", tok[2])
        self.discards[v].pop()
        self.hands[s][c] += 1

    def steal_chip(self, tok):
        if len(tok) != 5:
            self.fail("steal-chip S SRC V COLOUR")
        s, v, colour = self.seat(tok[1]), self.seat(tok[3]), tok[4]
        if v == s:
            self.fail("steal-chip needs an opponent")
        if colour not in COLOURS:
            self.fail(f"no chip colour {colour!r}")
        self.in_turn(s)
        if self.chips[v][colour] <= 0:
            self.fail(f"seat {v} has no {colour} chip")
        after = dict(self.chips[s])
        after[colour] += 1
        if self.wins(after["red"], after["blue"]):
            self.fail("steal-chip may not give the stealer the win")
        self.action_card(s, "steal-chip", tok[2])
        self.chips[v][colour] -= 1
        self.chips[s][colour] += 1
        self.after_hand_play(s, tok[2])

    def discard(self, tok):
        if len(tok) != 3:
            self.fail("discard S C")
        s = self.seat(tok[1])
        c = self.card(tok[2])
        self.in_turn(s)
        self.take(s, c, "hand")
        self.discards[s].append(c)
        self.close_turn()

    # ------------------------------------------------------------------ end
    def finish(self) -> dict[str, Any]:
        if self.expect_complete is not None:
            self.fail("log ends before the completion is written")
        if self.window is not None:
            self.resolve_window(None)
        if self.pending_chip is not None:
            self.fail("log ends before the chip of the completion")
        scores = [self.chips[s]["red"] + self.chips[s]["blue"] for s in range(self.n)]
        if self.winner is not None:
            return {"scores": scores, "winners": [self.winner], "truncated": False}
        if self.owed is not None:
            self.fail(f"log ends with seat {self.owed[0]} owing a draw")
        if self.turns < self.turn_cap:
            self.fail("log ends before the game does")
        if self.turn_open:
            # the last turn may end without a discard only with an empty hand
            if self.hand_size_of(self.turn) != 0:
                self.fail("log ends in the middle of the last turn")
        return {"scores": scores, "winners": [], "truncated": True}


def replay(trace: dict) -> dict:
    """Replay a ``sequence-stacks`` trace; return its result (scores, winners,
    truncated) as this engine computes it.  Raises ``ReplayError`` on any illegal or
    inconsistent event."""
    if not isinstance(trace, dict):
        raise ReplayError("a trace is a JSON object")
    if trace.get("game", "sequence-stacks") != "sequence-stacks":
        raise ReplayError(f"not a sequence-stacks trace: {trace.get('game')!r}")
    return _Replay(trace).run()
