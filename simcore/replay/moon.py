"""Three-Player Moon traces replayed by a plain-Python rules engine (no kernel code).

Written from rules/moon.md directly, with tiles as (high, low) pairs and explicit suit
logic, so that agreement with the bitmask kernel means something.
"""
from __future__ import annotations

from . import ReplayError

DEFAULTS = {"doubles_trump": True, "trump_before_widow": False, "all_pass": "redeal",
            "moon_instant_win": True, "bidder_goes_out": False, "min_bid": 4,
            "target_score": 21, "hand_cap": 300}
ALL_TILES = {(0, 0)} | {(a, b) for a in range(1, 7) for b in range(1, a + 1)}


def parse_tile(text: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in text.split("-"))
    except ValueError:
        raise ReplayError(f"bad tile {text!r}") from None
    if (a, b) not in ALL_TILES:
        raise ReplayError(f"no such tile {text!r}")
    return a, b


def is_trump(tile, trump) -> bool:
    a, b = tile
    if trump == "none":
        return False
    if trump == "doubles":
        return a == b
    return trump in (a, b)


def follows(tile, led, trump) -> bool:
    """Whether ``tile`` belongs to the led suit (``"trump"`` or a number)."""
    if led == "trump":
        return is_trump(tile, trump)
    if is_trump(tile, trump):
        return False
    return led in tile


def led_suit(tile, trump):
    return "trump" if is_trump(tile, trump) else max(tile)


def strength(tile, led, trump) -> tuple[int, int]:
    """Orderable strength in the trick: (2, rank) trump, (1, rank) led suit, (0, 0)."""
    a, b = tile
    if is_trump(tile, trump):
        if trump == "doubles":
            return (2, a)
        return (2, 7 if a == b else (b if a == trump else a))
    if follows(tile, led, trump):
        return (1, 8 if a == b else (b if a == led else a))
    return (0, 0)


class _Log:
    def __init__(self, events: list[str]):
        self.events = events
        self.i = 0

    def peek(self) -> list[str] | None:
        return self.events[self.i].split() if self.i < len(self.events) else None

    def take(self, kind: str) -> list[str]:
        ev = self.peek()
        if ev is None:
            raise ReplayError(f"log ended; expected {kind!r}")
        if ev[0] != kind:
            raise ReplayError(f"event {self.i}: expected {kind!r}, got {' '.join(ev)!r}")
        self.i += 1
        return ev[1:]


def _int(tok: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise ReplayError(f"not an integer: {tok!r}") from None


def _seat(tok: str, want: int | None = None) -> int:
    s = _int(tok)
    if s not in (0, 1, 2):
        raise ReplayError(f"bad seat {tok!r}")
    if want is not None and s != want:
        raise ReplayError(f"seat {s} acted, seat {want} was due")
    return s


def replay(trace: dict) -> dict:
    if trace.get("game") != "moon" or trace.get("players") != 3:
        raise ReplayError("not a 3-player moon trace")
    v = dict(DEFAULTS)
    v.update(trace.get("variant", {}))
    log = _Log(list(trace["log"]))
    scores = [0, 0, 0]
    hand_no = 0
    prev_first = None
    winner = None
    truncated = False
    while True:
        k, _, first_tok = log.take("hand")
        first = _seat(first_tok)
        if _int(k) != hand_no + 1:
            raise ReplayError(f"hand {k} follows hand {hand_no}")
        if prev_first is not None and first != (prev_first + 1) % 3:
            raise ReplayError(f"hand {k}: seat {first} bids first, expected {(prev_first + 1) % 3}")
        hand_no, prev_first = hand_no + 1, first
        hands = []
        for s in range(3):
            ev = log.take("deal")
            _seat(ev[0], s)
            if len(ev) != 8:
                raise ReplayError("a deal is 7 tiles")
            hands.append({parse_tile(t) for t in ev[1:]})
        widow = parse_tile(log.take("widow")[0])
        dealt = hands[0] | hands[1] | hands[2] | {widow}
        if len(dealt) != 22:
            raise ReplayError(f"hand {k}: the deal does not hold 22 different tiles")
        # bidding: each seat once, from the first bidder
        high, bidder = 0, None
        for j in range(3):
            seat = (first + j) % 3
            ev = log.peek()
            if ev is None:
                raise ReplayError("log ended in the bidding")
            if ev[0] == "pass":
                log.take("pass")
                _seat(ev[1], seat)
                if v["all_pass"] == "force" and j == 2 and high == 0:
                    raise ReplayError("all_pass=force: the last to speak may not pass")
            else:
                s_tok, n_tok = log.take("bid")
                _seat(s_tok, seat)
                n = _int(n_tok)
                if not (v["min_bid"] <= n <= 7 or n == 21) or n <= high:
                    raise ReplayError(f"illegal bid {n} over {high}")
                high, bidder = n, seat
                if n == 21:
                    break
        if high == 0:
            log.take("redeal")
            if hand_no >= v["hand_cap"]:
                truncated = True
                break
            continue
        b = bidder
        if v["trump_before_widow"]:
            trump = _trump(log, b, v)
            _seat(log.take("take")[0], b)
            hands[b].add(widow)
            _discard(log, b, hands)
        else:
            _seat(log.take("take")[0], b)
            hands[b].add(widow)
            _discard(log, b, hands)
            trump = _trump(log, b, v)
        tricks = [0, 0, 0]
        leader = b
        for _trick in range(7):
            table = []
            led = None
            for j in range(3):
                seat = (leader + j) % 3
                s_tok, t_tok = log.take("play")
                _seat(s_tok, seat)
                tile = parse_tile(t_tok)
                if tile not in hands[seat]:
                    raise ReplayError(f"seat {seat} does not hold {t_tok}")
                if led is None:
                    led = led_suit(tile, trump)
                elif not follows(tile, led, trump) and any(follows(t, led, trump) for t in hands[seat]):
                    raise ReplayError(f"seat {seat} played {t_tok} but could follow suit")
                hands[seat].discard(tile)
                table.append((strength(tile, led, trump), seat))
            w = max(table)[1]
            _seat(log.take("trick")[0], w)
            tricks[w] += 1
            leader = w
        need = 7 if high == 21 else high
        made = tricks[b] >= need
        points = list(tricks)
        points[b] = high if made else -high
        if [_int(x) for x in log.take("score")] != points:
            raise ReplayError(f"hand {k}: score should be {points}")
        scores = [scores[s] + points[s] for s in range(3)]
        if [_int(x) for x in log.take("total")] != scores:
            raise ReplayError(f"hand {k}: totals should be {scores}")
        target = v["target_score"]
        if high == 21 and made and v["moon_instant_win"]:
            winner = b
        elif v["bidder_goes_out"] and made and scores[b] >= target and any(
                scores[s] >= target for s in range(3) if s != b):
            winner = b
        else:
            top = max(scores)
            if top >= target and scores.count(top) == 1:
                winner = scores.index(top)
        if winner is not None:
            break
        if hand_no >= v["hand_cap"]:
            truncated = True
            break
    if log.peek() is not None:
        raise ReplayError(f"events after the end of the game: {' '.join(log.peek())!r}")
    return {"scores": scores, "winners": [] if winner is None else [winner], "truncated": truncated}


def _trump(log: _Log, b: int, v: dict):
    s_tok, x = log.take("trump")
    _seat(s_tok, b)
    if x in ("none", "doubles"):
        if x == "doubles" and not v["doubles_trump"]:
            raise ReplayError("doubles may not be trump in this variant")
        return x
    n = _int(x)
    if not 0 <= n <= 6:
        raise ReplayError(f"bad trump {x!r}")
    return n


def _discard(log: _Log, b: int, hands) -> None:
    s_tok, t_tok = log.take("discard")
    _seat(s_tok, b)
    tile = parse_tile(t_tok)
    if tile not in hands[b]:
        raise ReplayError(f"the bidder cannot discard {t_tok}: not in hand")
    hands[b].discard(tile)

