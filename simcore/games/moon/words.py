"""Moon in words, on the Python side: action names, trace events (shared/spec/trace.md), and
the step descriptions and views of ``playlab show`` and ``playlab human``.
"""
from __future__ import annotations

from .declaration import (ACTOR, BIDDER, BID_BASE, BID_MOON_ACTION, DECK, DISCARDED, DISCARD_BASE,
                          DISCARD_DONE, FIRST_BIDDER, HAND, HAND_NO, HAND_POINTS, HIGH_BID, IN_TRICK,
                          LAST_TRICK_WINNER, LEADER, LED, MOON_BID, NOT_SAID, NUM_ACTIONS, NUM_TILES,
                          OPT_TARGET_SCORE, OPT_TRUMP_BEFORE_WIDOW, PASS, PHASE, PHASE_BID, PHASE_DISCARD,
                          PHASE_OVER, PHASE_PLAY, PHASE_TRUMP, PLAYERS, PLAY_BASE, SAID, SCORE, TABLE,
                          TILES_PER_HAND, TILE_NAMES, TRICKS, TRICKS_PER_HAND, TRICK_NO, TRUMP, TRUMP_BASE,
                          TRUMP_DOUBLES, TRUMP_NAMES, TRUMP_NONE, TRUNCATED, WIDOW, WIDOW_TAKEN, WINNER)
from .views import tiles_in_hand

# ---- words ------------------------------------------------------------------------------------
def action_name(action: int) -> str:
    if PLAY_BASE <= action < DISCARD_BASE:
        return f"play {TILE_NAMES[action - PLAY_BASE]}"
    if DISCARD_BASE <= action < PASS:
        return f"discard {TILE_NAMES[action - DISCARD_BASE]}"
    if action == PASS:
        return "pass"
    if BID_BASE < action < BID_MOON_ACTION:
        return f"bid {action - BID_BASE}"
    if action == BID_MOON_ACTION:
        return "bid 21"
    if TRUMP_BASE <= action < NUM_ACTIONS:
        return f"trump {TRUMP_NAMES[action - TRUMP_BASE]}"
    raise ValueError(f"no Moon action {action}")


def _hand_events(state) -> list[str]:
    deck = [int(t) for t in state[DECK:DECK + NUM_TILES]]
    events = [f"hand {int(state[HAND_NO])} first {int(state[FIRST_BIDDER])}"]
    for s in range(PLAYERS):
        tiles = deck[TILES_PER_HAND * s: TILES_PER_HAND * (s + 1)]
        events.append(f"deal {s} " + " ".join(TILE_NAMES[t] for t in tiles))
    events.append(f"widow {TILE_NAMES[deck[NUM_TILES - 1]]}")
    return events


def trace_start(state, params, players) -> list[str]:
    return _hand_events(state)


def _next_hand_events(after) -> list[str]:
    return [] if after[PHASE] == PHASE_OVER else _hand_events(after)


def trace_step(before, action, after, params, players) -> list[str]:
    p = int(before[ACTOR])
    phase = before[PHASE]
    tbw = params[OPT_TRUMP_BEFORE_WIDOW] != 0
    if phase == PHASE_BID:
        events = ["pass %d" % p if action == PASS else
                  "bid %d %d" % (p, MOON_BID if action == BID_MOON_ACTION else action - BID_BASE)]
        if after[HAND_NO] != before[HAND_NO] or (after[PHASE] == PHASE_OVER and after[BIDDER] < 0):
            events.append("redeal")
            events += _next_hand_events(after)
        elif after[PHASE] == PHASE_DISCARD:
            events.append(f"take {int(after[BIDDER])}")
        return events
    if phase == PHASE_DISCARD:
        return [f"discard {p} {TILE_NAMES[action - DISCARD_BASE]}"]
    if phase == PHASE_TRUMP:
        events = [f"trump {p} {TRUMP_NAMES[action - TRUMP_BASE]}"]
        if tbw:
            events.append(f"take {p}")
        return events
    events = [f"play {p} {TILE_NAMES[action - PLAY_BASE]}"]
    if before[IN_TRICK] == PLAYERS - 1:
        events.append(f"trick {int(after[LAST_TRICK_WINNER])}")
        if before[TRICK_NO] == TRICKS_PER_HAND - 1:
            events.append("score " + " ".join(str(int(x)) for x in after[HAND_POINTS:HAND_POINTS + 3]))
            events.append("total " + " ".join(str(int(x)) for x in after[SCORE:SCORE + 3]))
            events += _next_hand_events(after)
    return events


def trace_result(values: dict, players: int) -> dict:
    return {}


# ---- for `playlab show`: event fields, step descriptions, a seat's view in words ----------------
# Field names for the tokens after an event's kind, in order.  "=word" is a literal token
# (checked, not stored); a last name ending in "*" takes the remaining tokens as a list.
EVENT_FIELDS = {
    "hand": ("hand", "=first", "first"),
    "deal": ("seat", "tiles*"),
    "widow": ("tile",),
    "bid": ("seat", "bid"),
    "pass": ("seat",),
    "redeal": (),
    "take": ("seat",),
    "discard": ("seat", "tile"),
    "trump": ("seat", "trump"),
    "play": ("seat", "tile"),
    "trick": ("seat",),
    "score": ("points_0", "points_1", "points_2"),
    "total": ("total_0", "total_1", "total_2"),
}


PHASE_WORDS = ("bid", "discard", "trump", "play", "over")
LED_WORDS = ("0s", "1s", "2s", "3s", "4s", "5s", "6s", "trumps")


def _trump_words(code: int) -> str:
    if code < 0:
        return "not named yet"
    if code == TRUMP_DOUBLES:
        return "doubles"
    if code == TRUMP_NONE:
        return "no-trump (follow me)"
    return f"{code}s"


def _tiles_high_first(mask: int) -> str:
    # tile ids ascend with (high end, low end), so descending ids read 6-6 6-5 … 0-0
    tiles = [TILE_NAMES[t] for t in range(NUM_TILES - 1, -1, -1) if (mask >> t) & 1]
    return " ".join(tiles) if tiles else "(none)"


def _said_words(said: int) -> str:
    if said == NOT_SAID:
        return "-"
    return "pass" if said == 0 else f"bid {said}"


def _bid_order(first: int) -> list[int]:
    return [(first + k) % PLAYERS for k in range(PLAYERS)]


def render(view, seat, params, players) -> str:
    """``seat``'s view (from ``observe``) in words, for `playlab show` and human play."""
    v = [int(x) for x in view]
    phase = v[PHASE]
    target = int(params[OPT_TARGET_SCORE])
    you = lambda s: f"seat {s}" + (" (you)" if s == seat else "")  # noqa: E731
    lines = [f"Three-Player Moon: hand {v[HAND_NO]}, seen by seat {seat}"]
    lines.append("Totals (to " + str(target) + "): "
                 + "   ".join(f"{you(s)} {v[SCORE + s]}" for s in range(PLAYERS)))
    if phase == PHASE_OVER:
        if v[TRUNCATED]:
            lines.append(f"Game over: truncated at the hand cap ({v[HAND_NO]} hands)")
        else:
            lines.append(f"Game over: {you(v[WINNER])} wins")
        return "\n".join(lines)
    first = v[FIRST_BIDDER]
    lines.append("Bids (from seat %d): " % first
                 + ", ".join(f"seat {s} {_said_words(v[SAID + s])}" for s in _bid_order(first)))
    bidder = v[BIDDER]
    if bidder >= 0:
        need = "all 7 tricks" if v[HIGH_BID] == MOON_BID else f"{v[HIGH_BID]} tricks"
        lines.append(f"Contract: {you(bidder)} bid {v[HIGH_BID]} (needs {need}); "
                     f"trump: {_trump_words(v[TRUMP])}")
    if seat == bidder and v[WIDOW_TAKEN]:
        widow = f"{TILE_NAMES[v[WIDOW]]} (you took it)"
    elif v[WIDOW_TAKEN]:
        widow = f"taken by seat {bidder}, hidden"
    else:
        widow = "hidden, face down"
    lines.append(f"Widow: {widow}")
    if v[DISCARD_DONE]:
        if seat == bidder:
            lines.append(f"Discard: {TILE_NAMES[v[DISCARDED]]} (yours, face down)")
        else:
            lines.append(f"Discard: seat {bidder} discarded one tile face down")
    if phase == PHASE_PLAY or v[TRICK_NO] > 0:
        lines.append(f"Trick {v[TRICK_NO] + 1} of {TRICKS_PER_HAND}"
                     + (f", {LED_WORDS[v[LED]]} led by seat {v[LEADER]}:" if v[IN_TRICK] else ":"))
        leader = v[LEADER]
        order = [(leader + k) % PLAYERS for k in range(PLAYERS)]
        lines.append("  " + "   ".join(
            f"seat {s} " + (TILE_NAMES[v[TABLE + s]] if v[TABLE + s] >= 0 else "-") for s in order))
        lines.append("Tricks this hand: " + "   ".join(f"seat {s} {v[TRICKS + s]}" for s in range(PLAYERS))
                     + (f"   (last won by seat {v[LAST_TRICK_WINNER]})" if v[TRICK_NO] > 0 else ""))
    lines.append(f"Your hand (seat {seat}): {_tiles_high_first(v[HAND + seat])}")
    sizes = {s: int(tiles_in_hand(view, s)) for s in range(PLAYERS)}
    others = [f"seat {s}: {sizes[s]} tile{'' if sizes[s] == 1 else 's'}" for s in range(PLAYERS) if s != seat]
    lines.append("Others: " + "   ".join(others))
    actor = v[ACTOR]
    doing = {PHASE_BID: "to bid or pass", PHASE_DISCARD: "to discard a tile",
             PHASE_TRUMP: "to name trump", PHASE_PLAY: "to play a tile"}[phase]
    lines.append(f"Phase: {PHASE_WORDS[phase]}. {you(actor)} {doing}.")
    return "\n".join(lines)


def describe_step(before, action, after, params, players) -> list[str]:
    """What ``action`` changed, in words, for a designer following a whole game (full
    states: discards and deals are named)."""
    p = int(before[ACTOR])
    phase = int(before[PHASE])
    lines: list[str] = []
    if phase == PHASE_BID:
        lines.append(f"seat {p} " + ("passes" if action == PASS else f"bids {action_name(action)[4:]}"))
        if after[HAND_NO] != before[HAND_NO] or (after[PHASE] == PHASE_OVER and after[BIDDER] < 0):
            lines.append("all three passed: the hand is redealt")
        elif after[PHASE] != PHASE_BID:
            b = int(after[BIDDER])
            lines.append(f"seat {b} wins the contract at {int(after[HIGH_BID])}"
                         + ("; the widow was " + TILE_NAMES[int(after[WIDOW])] if after[WIDOW_TAKEN] else ""))
    elif phase == PHASE_DISCARD:
        lines.append(f"seat {p} discards {TILE_NAMES[action - DISCARD_BASE]}; hand now "
                     + _tiles_high_first(int(after[HAND + p])))
    elif phase == PHASE_TRUMP:
        lines.append(f"seat {p} names trump: {_trump_words(action - TRUMP_BASE)}")
        if after[WIDOW_TAKEN] and not before[WIDOW_TAKEN]:
            lines.append(f"seat {p} takes the widow {TILE_NAMES[int(after[WIDOW])]}")
    else:
        t = action - PLAY_BASE
        lines.append(f"seat {p} plays {TILE_NAMES[t]}")
        if before[IN_TRICK] == PLAYERS - 1:
            w = int(after[LAST_TRICK_WINNER])
            leader = int(before[LEADER])
            table = [int(before[TABLE + s]) for s in range(PLAYERS)]
            table[p] = t
            order = [(leader + k) % PLAYERS for k in range(PLAYERS)]
            trick = ", ".join(f"{TILE_NAMES[table[s]]} (seat {s})" for s in order)
            tricks = [int(before[TRICKS + s]) + (1 if s == w else 0) for s in range(PLAYERS)]
            lines.append(f"trick {int(before[TRICK_NO]) + 1}: {trick}: seat {w} wins it; "
                         f"tricks {tricks[0]}-{tricks[1]}-{tricks[2]}")
            if before[TRICK_NO] == TRICKS_PER_HAND - 1:
                b = int(before[BIDDER])
                bid = int(before[HIGH_BID])
                points = [int(x) for x in after[HAND_POINTS:HAND_POINTS + PLAYERS]]
                made = points[b] > 0
                lines.append(f"hand {int(before[HAND_NO])}: seat {b} {'made' if made else 'failed'} "
                             f"{bid} with {tricks[b]} tricks; points "
                             + " ".join(f"{x:+d}" for x in points)
                             + "; totals " + " ".join(str(int(x)) for x in after[SCORE:SCORE + PLAYERS]))
    if after[PHASE] == PHASE_OVER:
        if after[TRUNCATED]:
            lines.append(f"the game is truncated at the hand cap ({int(after[HAND_NO])} hands)")
        else:
            w = int(after[WINNER])
            lines.append(f"seat {w} wins the game with {int(after[SCORE + w])}")
    elif after[HAND_NO] != before[HAND_NO]:
        lines.append(f"hand {int(after[HAND_NO])} dealt, seat {int(after[FIRST_BIDDER])} bids first: "
                     + "; ".join(f"seat {s} {_tiles_high_first(int(after[HAND + s]))}"
                                 for s in range(PLAYERS))
                     + f"; widow {TILE_NAMES[int(after[WIDOW])]}")
    return lines
