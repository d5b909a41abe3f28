"""Shifting Stones, replayed from a trace by an independent pure-Python rules engine.

Shares no code with the Numba kernel (``simcore.games.shifting_stones``): the grid is a list
of face letters, hands are sets of card ids, matching slides the card's rows over the grid.
Only the validated deck file is read through ``shifting_stones_deck.load_deck`` (data, not
rules).  Every event is checked against the rules (shared/rules/shifting_stones.md) and
the trace format (shared/spec/trace.md); the first illegal or inconsistent event raises
``ReplayError``.  ``replay`` returns the result these rules give, to be compared with the
trace's ``result``.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from simcore.games.shifting_stones_deck import load_deck
from simcore.options import OptionError
from simcore.replay import ReplayError

GAME = "shifting-stones"
DEFAULTS: dict[str, Any] = {
    "random_faces": True, "hand_size": 4, "skip_draw": 2, "end_trigger": 0, "bonus_points": 3,
    "bonus_if_no_ones": False, "skip_is_strike": True, "solo_strikes": 4, "round_cap": 200,
    "deck": "",
}
OTHER_FACE = {"S": "M", "M": "S", "F": "B", "B": "F", "H": "O", "O": "H", "E": "T", "T": "E"}
FACE_A = set("SFHE")
TILE_OF = {"S": "SM", "M": "SM", "F": "FB", "B": "FB", "H": "HO", "O": "HO", "E": "ET", "T": "ET"}
TILE_COPIES = {"SM": 1, "FB": 2, "HO": 3, "ET": 3}
TRIGGER = {2: 10, 3: 9, 4: 8, 5: 7}
SOLO_DECK = {1: 8, 2: 4, 3: 3, 5: 1}


def orthogonal(a: int, b: int) -> bool:
    ra, ca = divmod(a, 3)
    rb, cb = divmod(b, 3)
    return abs(ra - rb) + abs(ca - cb) == 1


def matches(rows: tuple[str, ...], grid: list[str]) -> bool:
    """The card's footprint fits somewhere in the grid with every stone equal."""
    h, w = len(rows), len(rows[0])
    for top in range(4 - h):
        for left in range(4 - w):
            if all(ch == "*" or grid[(top + i) * 3 + left + j] == ch
                   for i, row in enumerate(rows) for j, ch in enumerate(row)):
                return True
    return False


class _Replay:
    def __init__(self, trace: dict):
        if trace.get("game") != GAME:
            raise ReplayError(f"not a {GAME} trace: game {trace.get('game')!r}")
        n = trace.get("players")
        if not isinstance(n, int) or not 1 <= n <= 5:
            raise ReplayError(f"{GAME} is played by 1-5 players, not {n!r}")
        self.n = n
        variant = dict(DEFAULTS)
        for k, v in (trace.get("variant") or {}).items():
            if k not in DEFAULTS:
                raise ReplayError(f"unknown option {k!r} in the trace's variant")
            variant[k] = v
        self.v = variant
        try:
            deck = load_deck(variant["deck"] or None)
        except OptionError as exc:
            raise ReplayError(str(exc)) from None
        self.rows = {c.id: c.rows for c in deck}
        self.points = {c.id: c.points for c in deck}
        self.trigger = variant["end_trigger"] or TRIGGER.get(n, 0)
        # the game
        self.grid: list[str] | None = None
        self.hands: list[set[int]] = [set() for _ in range(n)]
        self.pile: list[int] = []
        self.discard: set[int] = set()
        self.scored: list[list[int]] = [[] for _ in range(n)]
        self.in_game: set[int] = set()
        self.seat = 0
        self.acted = False
        self.scored_this_turn = 0
        self.skipped_last = [False] * n
        self.turns = 0
        self.rounds = 0
        self.strikes = 0
        self.triggered = False
        self.over = False
        self.truncated = False
        # what the last end/skip still owes: a strike event, then draws for `drawer`
        self.strike_due = False
        self.drawer = -1
        self.owed = 0
        self.drew = False

    # ---- helpers ----------------------------------------------------------------------
    def fail(self, msg: str):
        raise ReplayError(f"event {self.pos} ({self.event!r}): {msg}")

    def ints(self, tokens: list[str], what: str = "number") -> list[int]:
        try:
            return [int(t) for t in tokens]
        except ValueError:
            self.fail(f"expected {what}s, got {' '.join(tokens)!r}")

    def seat_arg(self, token: str) -> int:
        s = self.ints([token], "seat")[0]
        if not 0 <= s < self.n:
            self.fail(f"no seat {s}")
        return s

    def card_ids(self, tokens: list[str]) -> list[int]:
        ids = self.ints(tokens, "card id")
        for c in ids:
            if c not in self.rows:
                self.fail(f"no card {c}")
        if len(set(ids)) != len(ids):
            self.fail("a card is listed twice")
        return ids

    def on_turn(self, s: int):
        if self.over:
            self.fail("the game is over")
        if self.owed or self.strike_due:
            self.fail("the previous turn's strike/draw is missing")
        if s != self.seat:
            self.fail(f"seat {self.seat} is on turn, not seat {s}")

    def hand_card(self, s: int, token: str) -> int:
        c = self.card_ids([token])[0]
        if c not in self.hands[s]:
            self.fail(f"card {c} is not in seat {s}'s hand")
        return c

    def cell(self, token: str) -> int:
        x = self.ints([token], "cell")[0]
        if not 0 <= x <= 8:
            self.fail(f"no cell {x}")
        return x

    def settle_draw(self):
        """Draws simply stop when both piles are empty."""
        if self.owed and not self.pile and not self.discard:
            self.owed = 0

    # ---- setup --------------------------------------------------------------------------
    def setup(self, events: list[str]):
        n = self.n
        expected = ["grid"] + ["hand"] * n + ["deck"]
        if len(events) < len(expected):
            raise ReplayError("the log is missing its setup (grid, hands, deck)")
        for i, kind in enumerate(expected):
            self.pos, self.event = i, events[i]
            tokens = events[i].split()
            if not tokens or tokens[0] != kind:
                self.fail(f"expected a {kind!r} event")
            if kind == "grid":
                if len(tokens) != 2 or len(tokens[1]) != 9 or any(ch not in TILE_OF for ch in tokens[1]):
                    self.fail("the grid is nine face letters")
                grid = list(tokens[1])
                if Counter(TILE_OF[ch] for ch in grid) != Counter(TILE_COPIES):
                    self.fail(f"the grid does not hold the 9 tiles {dict(TILE_COPIES)}")
                if not self.v["random_faces"] and any(ch not in FACE_A for ch in grid):
                    self.fail("random_faces is off: every tile starts face A up (S F H E)")
                self.grid = grid
            elif kind == "hand":
                s = self.seat_arg(tokens[1]) if len(tokens) > 1 else -1
                if s != i - 1:
                    self.fail(f"expected seat {i - 1}'s hand")
                ids = self.card_ids(tokens[2:])
                if len(ids) != self.v["hand_size"]:
                    self.fail(f"a starting hand has {self.v['hand_size']} cards, not {len(ids)}")
                self.hands[s] = set(ids)
            else:
                self.pile = self.card_ids(tokens[1:])
        dealt = [c for h in self.hands for c in h] + self.pile
        if len(set(dealt)) != len(dealt):
            raise ReplayError("a card is dealt twice")
        self.in_game = set(dealt)
        if n > 1:
            if self.in_game != set(self.rows):
                raise ReplayError(f"hands and deck do not hold the {len(self.rows)} cards")
        else:
            values = Counter(self.points[c] for c in dealt)
            if values != Counter(SOLO_DECK):
                raise ReplayError(f"the solo deck must hold 8/4/3/1 cards of 1/2/3/5 points, not {dict(values)}")
        return len(expected)

    # ---- turn events --------------------------------------------------------------------
    def shift(self, t: list[str]):
        if len(t) != 4:
            self.fail("shift takes a seat, two cells and a card")
        s = self.seat_arg(t[0])
        self.on_turn(s)
        a, b = self.cell(t[1]), self.cell(t[2])
        if not orthogonal(a, b):
            self.fail(f"cells {a} and {b} are not orthogonally adjacent")
        c = self.hand_card(s, t[3])
        self.hands[s].remove(c)
        self.discard.add(c)
        self.grid[a], self.grid[b] = self.grid[b], self.grid[a]
        self.acted = True

    def flip(self, t: list[str]):
        if len(t) != 3:
            self.fail("flip takes a seat, a cell and a card")
        s = self.seat_arg(t[0])
        self.on_turn(s)
        x = self.cell(t[1])
        c = self.hand_card(s, t[2])
        self.hands[s].remove(c)
        self.discard.add(c)
        self.grid[x] = OTHER_FACE[self.grid[x]]
        self.acted = True

    def score(self, t: list[str]):
        if len(t) != 2:
            self.fail("score takes a seat and a card")
        s = self.seat_arg(t[0])
        self.on_turn(s)
        c = self.hand_card(s, t[1])
        if not matches(self.rows[c], self.grid):
            self.fail(f"card {c} {list(self.rows[c])} does not match the grid {''.join(self.grid)}")
        self.hands[s].remove(c)
        self.scored[s].append(c)
        self.acted = True
        self.scored_this_turn += 1
        if self.n > 1 and len(self.scored[s]) >= self.trigger:
            self.triggered = True

    def end_turn(self, t: list[str], skip: bool):
        if len(t) != 1:
            self.fail("takes just a seat")
        s = self.seat_arg(t[0])
        self.on_turn(s)
        if skip:
            if self.acted:
                self.fail("a skip replaces the whole turn; actions were taken")
            if self.skipped_last[s]:
                self.fail(f"seat {s} skipped its previous turn")
            if not self.hands[s]:
                self.fail("a player with no cards must end the turn")
            strike = self.n == 1 and bool(self.v["skip_is_strike"])
            owed = self.v["skip_draw"]
        else:
            strike = self.n == 1 and self.scored_this_turn == 0
            owed = max(0, self.v["hand_size"] - len(self.hands[s]))
        self.skipped_last[s] = skip
        if strike:
            self.strikes += 1
        self.strike_due = strike
        self.drawer, self.owed, self.drew = s, owed, False
        self.settle_draw()
        self.next_turn()

    def next_turn(self):
        self.turns += 1
        self.acted = False
        self.scored_this_turn = 0
        cap = self.v["round_cap"]
        if self.n == 1:
            self.rounds += 1
            if self.strikes >= self.v["solo_strikes"]:
                self.over = True
            elif len(self.scored[0]) == len(self.in_game):
                self.over = True
            elif self.rounds >= cap:
                self.over = self.truncated = True
            return
        if self.seat < self.n - 1:
            self.seat += 1
            return
        self.rounds += 1
        if self.triggered:
            self.over = True
        elif self.rounds >= cap:
            self.over = self.truncated = True
        else:
            self.seat = 0

    def strike(self, t: list[str]):
        if len(t) != 1 or self.seat_arg(t[0]) != self.drawer or not self.strike_due:
            self.fail("no strike is due here")
        self.strike_due = False

    def draw(self, t: list[str]):
        if not t:
            self.fail("draw takes a seat and cards")
        s = self.seat_arg(t[0])
        if self.strike_due:
            self.fail("the strike comes before the draw")
        if s != self.drawer or not self.owed:
            self.fail(f"seat {s} has no draw due")
        ids = self.card_ids(t[1:])
        want = min(self.owed, len(self.pile))
        if not ids or len(ids) != want:
            self.fail(f"expected a draw of {want} cards (a draw is split only by a reshuffle)")
        if ids != self.pile[:want]:
            self.fail(f"the top of the draw pile is {self.pile[:want]}, not {ids}")
        del self.pile[:want]
        self.hands[s].update(ids)
        self.owed -= want
        self.drew = True
        self.settle_draw()

    def reshuffle(self, t: list[str]):
        if self.strike_due or not self.owed:
            self.fail("a reshuffle happens only when a card must be drawn")
        if self.pile:
            self.fail("the draw pile is not empty")
        ids = self.card_ids(t)
        if set(ids) != self.discard:
            self.fail(f"the discard pile is {sorted(self.discard)}, not {sorted(ids)}")
        self.pile = ids
        self.discard = set()

    # ---- the whole log --------------------------------------------------------------------
    def run(self, log: list[str]) -> dict:
        if not isinstance(log, list) or not all(isinstance(e, str) for e in log):
            raise ReplayError("the log must be a list of event strings")
        start = self.setup(log)
        handlers = {"shift": self.shift, "flip": self.flip, "score": self.score,
                    "end": lambda t: self.end_turn(t, False), "skip": lambda t: self.end_turn(t, True),
                    "strike": self.strike, "draw": self.draw, "reshuffle": self.reshuffle}
        for i in range(start, len(log)):
            self.pos, self.event = i, log[i]
            kind, *tokens = log[i].split() or [""]
            if kind not in handlers:
                self.fail(f"unknown event {kind!r}")
            handlers[kind](tokens)
        self.pos, self.event = len(log), "<end of log>"
        if not self.over:
            self.fail("the log ends before the game does")
        if self.strike_due:
            self.fail("the last turn's strike is missing")
        if self.owed and self.drew:
            self.fail("the last turn's draw is incomplete")
        return self.result()

    def result(self) -> dict:
        points = [sum(self.points[c] for c in sc) for sc in self.scored]
        if self.n == 1:
            win = not self.truncated and len(self.scored[0]) == len(self.in_game)
            return {"scores": points, "winners": [0] if win else [], "truncated": self.truncated,
                    "win": win, "cards": len(self.scored[0]), "points": points[0],
                    "strikes": self.strikes, "turns": self.turns}
        ones = [sum(1 for c in sc if self.points[c] == 1) for sc in self.scored]
        most = max(ones)
        scores = list(points)
        if most > 0 or self.v["bonus_if_no_ones"]:
            scores = [p + (self.v["bonus_points"] if o == most else 0) for p, o in zip(points, ones)]
        top = max(scores)
        winners = [] if self.truncated else [s for s in range(self.n) if scores[s] == top]
        return {"scores": scores, "winners": winners, "truncated": self.truncated}


def replay(trace: dict) -> dict:
    """Replay ``trace`` event by event; its result by these rules (ReplayError if illegal)."""
    return _Replay(trace).run(trace.get("log"))
