"""Sequence Stacks in words, on the Python side: action names, trace events
(shared/spec/trace.md), the step descriptions and views of ``playlab show`` and
``playlab human``.
"""
from __future__ import annotations

from simcore.trace import parse_event
from .declaration import (A_DISCARD, A_END, A_REVERSE, A_SKIP, A_STEAL_CARD, A_STEAL_CHIP, CARD_NAMES, CHIPS,
                          COLOUR_NAMES, COMPLETED_N, DIR, DISC, DISC_CAP, DISC_N, DRAW, DRAW_LEN, DRAW_POS,
                          HAND, HAND_N, MAX_PILES, NCARD, NUM_ACTIONS, OVER, PILE_TOP, PILE_WILD, PLAYS,
                          PLAYS_PER_SOURCE, P_CHIPS_TO_WIN, P_HAND, P_MIN_EACH, P_PILES, RESHUFFLES, SKIPS,
                          SKIP_CARD, SOURCE_NAMES, SPECIAL, SUPPLY, TRUNCATED, TURN, TURNS, TURN_PLAY_CAP,
                          WINDOW, WINDOW_SLOT, WINNER)

# `playlab show`: events that start a new block of the printed log
SECTION_EVENTS = ("hand", "deck", "turn", "skipped")


def pile_name(slot: int) -> str:
    return f"{COLOUR_NAMES[slot // MAX_PILES]}.{slot % MAX_PILES}"


def decode(action: int) -> tuple:
    """Action id -> (kind, fields...).  Kinds: ("play", src, card, k), ("skip", src),
    ("reverse", src), ("steal-card", src, victim), ("steal-chip", src, victim, colour),
    ("discard", card), ("end",), ("block",), ("pass",)."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"no sequence-stacks action {action}")
    if a < A_SKIP:
        src, rem = divmod(a, PLAYS_PER_SOURCE)
        card, k = divmod(rem, MAX_PILES)
        return ("play", src, card, k)
    if a < A_REVERSE:
        return ("skip", a - A_SKIP)
    if a < A_STEAL_CARD:
        return ("reverse", a - A_REVERSE)
    if a < A_STEAL_CHIP:
        src, v = divmod(a - A_STEAL_CARD, 6)
        return ("steal-card", src, v)
    if a < A_DISCARD:
        r, col = divmod(a - A_STEAL_CHIP, 2)
        src, v = divmod(r, 6)
        return ("steal-chip", src, v, col)
    if a < A_END:
        return ("discard", a - A_DISCARD)
    return (("end",), ("block",), ("pass",))[a - A_END]


def action_name(action: int) -> str:
    d = decode(action)
    kind = d[0]
    if kind == "play":
        _, src, card, k = d
        return f"play {CARD_NAMES[card]} from {SOURCE_NAMES[src]} on {pile_name((card // 6) * MAX_PILES + k)}"
    if kind in ("skip", "reverse"):
        return f"{kind} from {SOURCE_NAMES[d[1]]}"
    if kind == "steal-card":
        return f"steal-card from {SOURCE_NAMES[d[1]]}: top of seat {d[2]}'s discard pile"
    if kind == "steal-chip":
        return f"steal-chip from {SOURCE_NAMES[d[1]]}: a {COLOUR_NAMES[d[3]]} chip of seat {d[2]}"
    if kind == "discard":
        return f"discard {CARD_NAMES[d[1]]}"
    if kind == "end":
        return "end the turn (empty hand)"
    return kind


def _cards(seq) -> str:
    return " ".join(CARD_NAMES[int(c)] for c in seq)


def _draw_events(before, after, seat: int) -> list[str]:
    """The draw (and reshuffle) events between two states: at most one draw per action."""
    b_pos, b_len = int(before[DRAW_POS]), int(before[DRAW_LEN])
    a_pos, a_len = int(after[DRAW_POS]), int(after[DRAW_LEN])
    ev: list[str] = []
    if int(after[RESHUFFLES]) == int(before[RESHUFFLES]):
        if a_pos > b_pos:
            ev.append(f"draw {seat} " + _cards(before[DRAW + b_pos:DRAW + a_pos]))
        return ev
    if b_len > b_pos:
        ev.append(f"draw {seat} " + _cards(before[DRAW + b_pos:DRAW + b_len]))
    ev.append("reshuffle " + _cards(after[DRAW:DRAW + a_len]))
    if a_pos > 0:
        ev.append(f"draw {seat} " + _cards(after[DRAW:DRAW + a_pos]))
    return ev


def _completion_events(before, after, seat: int, slot: int) -> list[str]:
    """Chip (if any) and the owed draw after a completion resolved unblocked."""
    ev = []
    col = slot // MAX_PILES
    if int(after[CHIPS + 2 * seat + col]) > int(before[CHIPS + 2 * seat + col]):
        ev.append(f"chip {seat} {COLOUR_NAMES[col]}")
    return ev + _draw_events(before, after, seat)


def trace_start(state, params, players) -> list[str]:
    hs = int(params[P_HAND])
    ev = [f"hand {s} " + _cards(state[DRAW + s * hs:DRAW + (s + 1) * hs]) for s in range(players)]
    dealt = players * hs
    ev.append("deck " + _cards(state[DRAW + dealt:DRAW + int(state[DRAW_LEN])]))
    ev.append(f"turn {int(state[TURN])}")
    if int(state[DRAW_POS]) > dealt:
        ev.append(f"draw {int(state[TURN])} " + _cards(state[DRAW + dealt:DRAW + int(state[DRAW_POS])]))
    return ev


def trace_step(before, action, after, params, players) -> list[str]:
    d = decode(action)
    kind = d[0]
    turn = int(before[TURN])
    if kind in ("block", "pass"):
        w = int(before[WINDOW])
        slot = int(before[WINDOW_SLOT])
        if kind == "block":
            return [f"block {w}"] + _draw_events(before, after, turn)
        if int(after[WINDOW]) >= 0:
            return []  # passes are not recorded; the next holder is asked
        return _completion_events(before, after, turn, slot)
    s = turn
    if kind == "play":
        _, src, card, k = d
        slot = (card // 6) * MAX_PILES + k
        num = int(before[PILE_TOP + slot]) + 1
        ev = [f"play {s} {CARD_NAMES[card]} {SOURCE_NAMES[src]} {pile_name(slot)} {num}"]
        if num == 5:
            ev.append(f"complete {s} {pile_name(slot)}")
            if int(after[WINDOW]) >= 0:
                return ev
            return ev + _completion_events(before, after, s, slot)
        return ev + _draw_events(before, after, s)
    if kind in ("skip", "reverse"):
        return [f"{kind} {s} {SOURCE_NAMES[d[1]]}"] + _draw_events(before, after, s)
    if kind == "steal-card":
        _, src, v = d
        taken = int(before[DISC + v * DISC_CAP + int(before[DISC_N + v]) - 1])
        return [f"steal-card {s} {SOURCE_NAMES[src]} {v} {CARD_NAMES[taken]}"]
    if kind == "steal-chip":
        _, src, v, col = d
        return ([f"steal-chip {s} {SOURCE_NAMES[src]} {v} {COLOUR_NAMES[col]}"]
                + _draw_events(before, after, s))
    # end of turn: discard (or nothing with an empty hand), skipped seats, next turn
    ev = [f"discard {s} {CARD_NAMES[d[1]]}"] if kind == "discard" else []
    if int(after[OVER]):
        return ev
    n = players
    t = int(after[TURN])
    dirn = int(after[DIR])
    x = (s + dirn) % n
    while x != t:
        ev.append(f"skipped {x}")
        x = (x + dirn) % n
    ev.append(f"turn {t}")
    return ev + _draw_events(before, after, t)


def trace_result(values: dict, players: int) -> dict:
    return {}


# ============================================================================ show, render
# field names of the tokens after each event kind (shared/spec/trace.md); a last name in the
# plural takes the remaining tokens as a list
EVENT_FIELDS = {
    "hand": ("seat", "cards*"),
    "deck": ("cards*",),
    "turn": ("seat",),
    "draw": ("seat", "cards*"),
    "play": ("seat", "card", "source", "pile", "number"),
    "complete": ("seat", "pile"),
    "block": ("seat",),
    "chip": ("seat", "colour"),
    "skip": ("seat", "source"),
    "reverse": ("seat", "source"),
    "skipped": ("seat",),
    "steal-card": ("seat", "source", "victim", "card"),
    "steal-chip": ("seat", "source", "victim", "colour"),
    "discard": ("seat", "card"),
    "reshuffle": ("cards*",),
}


def _direction(d: int) -> str:
    return "clockwise" if int(d) == 1 else "anticlockwise"


def _pile_cards(slot: int, top: int, wild: int) -> str:
    col = COLOUR_NAMES[slot // MAX_PILES][0]
    return " ".join(f"{col}w={i + 1}" if (wild >> i) & 1 else f"{col}{i + 1}" for i in range(top))


def _pile_line(state, slot: int) -> str:
    top = int(state[PILE_TOP + slot])
    if top == 0:
        return f"{pile_name(slot)}: empty"
    return f"{pile_name(slot)}: top {top} ({_pile_cards(slot, top, int(state[PILE_WILD + slot]))})"


def _chips_needed(r: int, b: int, params) -> int:
    need, m = int(params[P_CHIPS_TO_WIN]), int(params[P_MIN_EACH])
    return max(need - r - b, max(m - r, 0) + max(m - b, 0))


def _chip_totals(state, players: int) -> str:
    return "chips: " + ", ".join(
        f"seat {s} {int(state[CHIPS + 2 * s])} red + {int(state[CHIPS + 2 * s + 1])} blue"
        for s in range(players))


def _pile_tops(state, params) -> str:
    ppc = int(params[P_PILES])
    return "piles: " + ", ".join(
        f"{pile_name(sl)} {int(state[PILE_TOP + sl]) or '-'}"
        for col in range(2) for sl in range(col * MAX_PILES, col * MAX_PILES + ppc))


def _hand_words(counts) -> str:
    parts = [CARD_NAMES[c] + (f" x{int(k)}" if k > 1 else "") for c, k in enumerate(counts) if k > 0]
    return ", ".join(parts) if parts else "(empty)"


def render(view, seat, params, players) -> str:
    """``seat``'s view in words: whose turn and what is to decide, the piles, then every
    seat's chips, hand (the others' as sizes), discard pile and skips owed."""
    v = [int(x) for x in view]
    n = int(players)
    seat = int(seat)
    t, w = v[TURN], v[WINDOW]
    ctw, m = int(params[P_CHIPS_TO_WIN]), int(params[P_MIN_EACH])

    def you(s: int) -> str:
        return f"seat {s}" + (" (you)" if s == seat else "")

    order = [t]
    for _ in range(n - 1):
        order.append((order[-1] + v[DIR]) % n)
    lines = [f"Sequence Stacks, {n} players: seat {seat}'s view"]
    if v[OVER]:
        if v[TRUNCATED]:
            lines.append(f"Game over after {v[TURNS]} turns: truncated by the round cap, no winner")
        else:
            lines.append(f"Game over after {v[TURNS]} turns: {you(v[WINNER])} won")
    else:
        lines.append(f"Turn {v[TURNS]}: {you(t)} is on turn, {v[PLAYS]} play(s) so far; "
                     f"play goes {_direction(v[DIR])} ({' -> '.join(map(str, order))})")
        if w >= 0:
            lines.append(f"Block window: {you(t)} completed {pile_name(v[WINDOW_SLOT])}; "
                         f"{you(w)} is asked: block (cancels the chip) or pass")
        elif v[PLAYS] >= TURN_PLAY_CAP:
            lines.append(f"{you(t)} to decide: the play cap is reached, only a discard ends the turn")
        elif v[HAND_N + t] == 0:
            lines.append(f"{you(t)} to decide: play from the discard pile or end the turn (empty hand)")
        else:
            lines.append(f"{you(t)} to decide: play a card or end the turn with a discard")
    lines.append("Piles:")
    ppc = int(params[P_PILES])
    for col in range(2):
        lines.append("  " + "   ".join(_pile_line(v, col * MAX_PILES + k) for k in range(ppc)))
    lines.append(f"Chips: {ctw} to win, at least {m} red and {m} blue; "
                 f"supply {v[SUPPLY]} red, {v[SUPPLY + 1]} blue")
    for s in range(n):
        r, b = v[CHIPS + 2 * s], v[CHIPS + 2 * s + 1]
        need = _chips_needed(r, b, params)
        if s == seat:
            hand = f"hand ({v[HAND_N + s]}): " + _hand_words(v[HAND + s * NCARD:HAND + (s + 1) * NCARD])
        else:
            hand = f"hand: {v[HAND_N + s]} card{'s' if v[HAND_N + s] != 1 else ''} (hidden)"
        dn = v[DISC_N + s]
        disc = (f"discard pile {dn}, top {CARD_NAMES[v[DISC + s * DISC_CAP + dn - 1]]}" if dn
                else "discard pile empty")
        line = (f"  {you(s)}: {r} red + {b} blue" + (f" (needs {need} more)" if need else "")
                + f"; {hand}; {disc}")
        if v[SKIPS + s]:
            line += f"; skips pending: loses {v[SKIPS + s]} turn{'s' if v[SKIPS + s] > 1 else ''}"
        lines.append(line)
    special = ", ".join(f"{CARD_NAMES[SKIP_CARD + j]} {v[SPECIAL + j]}" for j in range(5) if v[SPECIAL + j])
    lines.append(f"Draw pile {v[DRAW_LEN] - v[DRAW_POS]} cards; completed stack {v[COMPLETED_N]} cards "
                 f"(reshuffled {v[RESHUFFLES]}x); out of the game: {special or 'nothing'}")
    return "\n".join(lines)


def describe_step(before, action, after, params, players) -> list[str]:
    """What one action changed, in words (from its trace events): the pile tops after a
    play, the chip totals after a chip changes hands, completions and blocks, turn order."""
    n = int(players)
    lines: list[str] = []
    kind = decode(action)[0]
    completer = int(before[TURN])
    if kind == "pass":
        lines.append(f"seat {int(before[WINDOW])} does not block")
    completed = int(before[WINDOW_SLOT])  # the pile being resolved, -1 none
    blocked = chips_moved = played = False
    for e in trace_step(before, action, after, params, n):
        f = parse_event(EVENT_FIELDS, e)
        ev, s = f["event"], f.get("seat")
        if ev == "play":
            lines.append(f"seat {s} plays {f['card']} from {f['source']} on {f['pile']} as {f['number']}")
            played = True
        elif ev == "complete":
            lines.append(f"seat {s} completes {f['pile']}")
            colour, k = f["pile"].split(".")
            completed = COLOUR_NAMES.index(colour) * MAX_PILES + int(k)
        elif ev == "block":
            lines.append(f"seat {s} blocks seat {completer}'s completion of {pile_name(completed)}: "
                         "no chip, the pile goes to the completed stack")
            blocked = True
        elif ev == "chip":
            lines.append(f"seat {s} takes a {f['colour']} chip for {pile_name(completed)}")
            chips_moved = True
        elif ev == "skip":
            lines.append(f"seat {s} plays skip: seat {(s + int(before[DIR])) % n} loses its next turn")
        elif ev == "reverse":
            lines.append(f"seat {s} plays reverse: play now goes {_direction(after[DIR])}")
        elif ev == "skipped":
            lines.append(f"seat {s} loses this turn to a skip")
        elif ev == "steal-card":
            lines.append(f"seat {s} takes {f['card']} from the top of seat {f['victim']}'s discard pile")
        elif ev == "steal-chip":
            lines.append(f"seat {s} takes a {f['colour']} chip from seat {f['victim']}")
            chips_moved = True
        elif ev == "discard":
            lines.append(f"seat {s} discards {f['card']} and ends the turn")
        elif ev == "turn":
            lines.append(f"seat {s}'s turn")
        elif ev == "draw":
            k = len(f["cards"])
            lines.append(f"seat {s} draws {k} card{'s' if k != 1 else ''}: {' '.join(f['cards'])}")
        elif ev == "reshuffle":
            lines.append(f"the completed stack ({len(f['cards'])} cards) becomes the new draw pile")
    if completed >= 0:
        if int(after[WINDOW]) >= 0:
            lines.append(f"block window on {pile_name(completed)}: seat {int(after[WINDOW])} "
                         "is asked whether to block")
        elif not blocked and not chips_moved:
            lines.append(f"no chip for {pile_name(completed)}: the "
                         f"{COLOUR_NAMES[completed // MAX_PILES]} supply is empty")
    if played or blocked or (completed >= 0 and int(after[WINDOW]) < 0):
        lines.append(_pile_tops(after, params))
    if chips_moved:
        lines.append(_chip_totals(after, n))
    if int(after[OVER]) and not int(before[OVER]):
        if int(after[TRUNCATED]):
            lines.append(f"the game is truncated: round cap reached after {int(after[TURNS])} turns")
        else:
            wn = int(after[WINNER])
            lines.append(f"seat {wn} wins with {int(after[CHIPS + 2 * wn])} red and "
                         f"{int(after[CHIPS + 2 * wn + 1])} blue chips")
    return lines
