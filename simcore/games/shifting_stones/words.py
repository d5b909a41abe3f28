"""Shifting Stones in words, on the Python side: action names, trace events
(shared/spec/trace.md), and the cards, grid and step texts of ``playlab show`` and
``playlab human``.
"""
from __future__ import annotations


import numpy as np

from simcore.kernel_helpers import HALF
from simcore.games.shifting_stones_deck import FACES
from .declaration import (BONUS_COL, CARDS, CUR, DECK, DISCARD_BASE, DISCARD_N, DRAW_END, DRAW_TOP, END,
                          FLIP_BASE, GRID, HAND_HI, HAND_LO, HAND_N, INFO, MOVES, NCARDS, NUM_CARDS, ONES,
                          OPT_BONUS_IF_NO_ONES, OPT_BONUS_POINTS, OPT_END_TRIGGER, OPT_HAND_SIZE,
                          OPT_SOLO_STRIKES, OVER, PAIRS, PENDING, POINTS, P_PL_MASK, P_PL_START, P_PL_VALUE,
                          P_POINTS, RESHUFFLES, ROUND, SCORED_BY, SCORE_BASE, SCORE_COL, SKIP, SKIPPED,
                          STRIKES, TRIGGER_BY_PLAYERS, TRIGGER_SEAT, TRUNCATED, TURN_ACTIONS, TURN_SCORED,
                          WIN_COL, grid_letters)
from .rules import card_matches, may_skip, summarize

# ---- words ------------------------------------------------------------------------------------------
def action_name(action: int) -> str:
    action = int(action)
    if 0 <= action < FLIP_BASE:
        a, b = PAIRS[action]
        return f"shift {a}-{b}"
    if FLIP_BASE <= action < MOVES:
        return f"flip {action - FLIP_BASE}"
    if DISCARD_BASE <= action < SCORE_BASE:
        return f"discard {action - DISCARD_BASE + 1} to shift or flip"
    if SCORE_BASE <= action < END:
        return f"score {action - SCORE_BASE + 1}"
    if action == END:
        return "end turn"
    if action == SKIP:
        return "skip"
    raise ValueError(f"no Shifting Stones action {action}")


def _ids(cards) -> str:
    return " ".join(str(int(c) + 1) for c in cards)


def trace_start(state, params, players) -> list[str]:
    h = int(params[OPT_HAND_SIZE])
    deck = [int(c) for c in state[DECK:DECK + int(state[DRAW_END])]]
    events = [f"grid {grid_letters(state[GRID])}"]
    for s in range(players):
        events.append(f"hand {s} {_ids(deck[s * h:(s + 1) * h])}".rstrip())
    events.append(f"deck {_ids(deck[int(state[DRAW_TOP]):])}".rstrip())
    return events


def trace_step(before, action, after, params, players) -> list[str]:
    s = int(before[CUR])
    action = int(action)
    if action < MOVES:
        c = int(before[PENDING]) + 1
        if action < FLIP_BASE:
            return [f"shift {s} {PAIRS[action][0]} {PAIRS[action][1]} {c}"]
        return [f"flip {s} {action - FLIP_BASE} {c}"]
    if action < SCORE_BASE:
        return []  # the discard is written with the move it pays for
    if action < END:
        return [f"score {s} {action - SCORE_BASE + 1}"]
    events = [f"{'end' if action == END else 'skip'} {s}"]
    if after[STRIKES] > before[STRIKES]:
        events.append(f"strike {s}")
    k = int(after[HAND_N + s] - before[HAND_N + s])
    top, end = int(before[DRAW_TOP]), int(before[DRAW_END])
    if after[RESHUFFLES] == before[RESHUFFLES]:
        first, rest = before[DECK + top:DECK + top + k], []
    else:
        first = before[DECK + top:DECK + end]
        rest = after[DECK:DECK + int(after[DRAW_TOP])]
    if len(first):
        events.append(f"draw {s} {_ids(first)}")
    if after[RESHUFFLES] != before[RESHUFFLES]:
        events.append(f"reshuffle {_ids(after[DECK:DECK + int(after[DRAW_END])])}")
        if len(rest):
            events.append(f"draw {s} {_ids(rest)}")
    return events


def trace_result(values: dict, players: int) -> dict:
    if players != 1:
        return {}
    return {"win": bool(values["win_0"]), "cards": values["cards_0"], "points": values["points_0"],
            "strikes": values["strikes"], "turns": values["turns"]}


# ---- for `playlab show` and humans --------------------------------------------------------------------
# fields of every trace event (shared/spec/trace.md); a name starting with "*" takes the
# remaining tokens as a list
EVENT_FIELDS = {
    "grid": ("faces",),
    "hand": ("seat", "cards*"),
    "deck": ("cards*",),
    "shift": ("seat", "a", "b", "card"),
    "flip": ("seat", "cell", "card"),
    "score": ("seat", "card"),
    "end": ("seat",),
    "skip": ("seat",),
    "draw": ("seat", "cards*"),
    "reshuffle": ("cards*",),
    "strike": ("seat",),
}


FACE_NAMES = dict(zip(FACES, ("sun", "moon", "fish", "bird", "horse", "boat", "seed", "tree")))
GREY = "."  # a grey "any stone" cell of a card, as drawn here


def card_rows(params, c: int) -> tuple[str, ...]:
    """Card ``c``'s footprint (top row first, ``*`` grey) rebuilt from its placements in
    ``params``, so the drawing is of the deck the game really uses.  Placements run over
    offsets row by row, so the second is one cell right of the first unless the footprint
    is 3 wide; the count of placements is (4 - height) * (4 - width)."""
    start, stop = int(params[P_PL_START + c]), int(params[P_PL_START + c + 1])
    n = stop - start
    m0, v0 = int(params[P_PL_MASK + start]), int(params[P_PL_VALUE + start])
    cols = 1
    if n > 1 and int(params[P_PL_MASK + start + 1]) == m0 << 3:
        cols = 2
        if n > 2 and int(params[P_PL_MASK + start + 2]) == m0 << 6:
            cols = 3
    height, width = 4 - n // cols, 4 - cols
    return tuple("".join(FACES[(v0 >> (3 * (3 * i + j))) & 7] if (m0 >> (3 * (3 * i + j))) & 7 else "*"
                         for j in range(width)) for i in range(height))


def _points_word(p: int) -> str:
    return f"{p} point" + ("" if p == 1 else "s")


def _card_label(params, c: int) -> str:
    return f"#{c + 1} ({int(params[P_POINTS + c])}p)"


def _cards_block(params, cards, per_line: int = 8) -> list[str]:
    """Cards side by side: the label, then the pattern (grey cells as ``GREY``)."""
    lines: list[str] = []
    cards = list(cards)
    for k in range(0, len(cards), per_line):
        chunk = cards[k:k + per_line]
        labels = [_card_label(params, c) for c in chunk]
        pats = [[r.replace("*", GREY) for r in card_rows(params, c)] for c in chunk]
        widths = [max(len(lab), 3) + 2 for lab in labels]
        lines.append("".join(lab.ljust(w) for lab, w in zip(labels, widths)).rstrip())
        for i in range(max(len(p) for p in pats)):
            lines.append("".join((p[i] if i < len(p) else "").ljust(w) for p, w in zip(pats, widths)).rstrip())
    return lines


def grid_lines(grid: int) -> list[str]:
    """The grid as a board: each cell ``S/m`` (face up capital, the face beneath lower-case),
    with the cell numbers alongside."""
    grid = int(grid)
    sep = "+-----+-----+-----+"
    lines = [sep]
    for r in range(3):
        cells = []
        for col in range(3):
            f = (grid >> (3 * (3 * r + col))) & 7
            cells.append(f" {FACES[f]}/{FACES[f ^ 1].lower()} ")
        lines.append("|" + "|".join(cells) + f"|   {3 * r} {3 * r + 1} {3 * r + 2}")
        lines.append(sep)
    return lines


def _set_cards(lo: int, hi: int) -> list[int]:
    lo, hi = int(lo), int(hi)
    return [c for c in range(HALF) if lo >> c & 1] + [HALF + c for c in range(HALF) if hi >> c & 1]


def _scored_cards(state, s: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if int(state[SCORED_BY + c]) == s]


def _trigger_of(params, players: int) -> int:
    t = int(params[OPT_END_TRIGGER])
    return t if t > 0 else int(TRIGGER_BY_PLAYERS[players])


def _result_words(state, params, players) -> str:
    """The final scores (bonus included), who got the bonus and who won."""
    row = np.zeros(len(INFO.result_columns(players)), dtype=np.int64)
    summarize(np.asarray(state, dtype=np.int64), np.asarray(params), players, row)
    scores = [int(row[SCORE_COL[players] + k]) for k in range(players)]
    wins = [k for k in range(players) if row[WIN_COL[players] + k]]
    bonus = [k for k in range(players) if row[BONUS_COL[players] + k]]
    if state[TRUNCATED]:
        verdict = "truncated at the round cap (no result)"
    elif players == 1:
        verdict = "won: every card scored" if wins else f"lost: {int(state[STRIKES])} strikes"
    else:
        verdict = "winner" + ("s " if len(wins) > 1 else " ") + ", ".join(map(str, wins))
    extra = f"; bonus to seat{'s' if len(bonus) > 1 else ''} {', '.join(map(str, bonus))}" if bonus else ""
    return f"scores {scores}{extra}; {verdict}"


def render(view, seat, params, players) -> str:
    """Seat ``seat``'s view in words: the grid with both faces, its hand with the cards'
    patterns, the other hands as counts, the piles, scores, bonus race, whose turn and what
    is pending, and how close the end is.  Reads only what the seat may know."""
    v = [int(x) for x in view]
    seat = int(seat)
    cur = v[CUR]
    out = [f"Shifting Stones, {players} player{'s' if players > 1 else ''}: seat {seat}'s view"]
    if v[OVER]:
        out.append(f"Game over after {v[ROUND]} rounds: " + _result_words(np.asarray(view), params, players))
    else:
        who = "you" if cur == seat else f"seat {cur}"
        out.append(f"Round {v[ROUND] + 1}: {who} to play")
        if v[PENDING] >= 0:
            out.append(f"  pending: {_card_label(params, v[PENDING])} was discarded; "
                       "choose the shift or flip it pays for")
        else:
            doing = f"{v[TURN_ACTIONS]} action(s) this turn, {v[TURN_SCORED]} card(s) scored"
            skip = "may skip" if may_skip(np.asarray(view), cur) else "may not skip"
            out.append(f"  {doing}; {skip}")
    out.append("")
    out.append("Grid (capital: face up, lower-case: the face beneath):")
    out += ["  " + line for line in grid_lines(v[GRID])]
    out.append("  " + ", ".join(f"{f} {name}" for f, name in FACE_NAMES.items()))
    out.append("")
    hand = _set_cards(v[HAND_LO + seat], v[HAND_HI + seat])
    out.append(f"Your hand (seat {seat}): {len(hand)} card{'s' if len(hand) != 1 else ''}"
               + (f"  ({GREY} = any stone)" if hand else ""))
    out += ["  " + line for line in _cards_block(params, hand)]
    scorable = [c for c in hand if card_matches(params, v[GRID], c)]
    if hand:
        out.append("  scorable now: " + (" ".join(f"#{c + 1}" for c in scorable) if scorable else "none"))
    out.append("")
    for s in range(players):
        sc = _scored_cards(v, s)
        held = "you" if s == seat else f"{v[HAND_N + s]} cards in hand (hidden)"
        flags = ", skipped last turn" if v[SKIPPED + s] else ""
        out.append(f"Seat {s}: {held}; scored {v[CARDS + s]} card(s), {v[POINTS + s]} points, "
                   f"{v[ONES + s]} one-point card(s){flags}")
        if sc:
            out.append("  scored: " + " ".join(_card_label(params, c) for c in sc))
    out.append("")
    out.append(f"Draw pile: {v[DRAW_END] - v[DRAW_TOP]} cards; discard pile: {v[DISCARD_N]} cards"
               f" (reshuffled {v[RESHUFFLES]} time{'s' if v[RESHUFFLES] != 1 else ''})")
    if players == 1:
        out.append(f"Solo: {v[CARDS]} of {v[NCARDS]} cards scored; strikes {v[STRIKES]} of "
                   f"{int(params[OPT_SOLO_STRIKES])}")
    else:
        best = max(v[ONES + s] for s in range(players))
        leaders = [s for s in range(players) if v[ONES + s] == best]
        if best == 0 and not params[OPT_BONUS_IF_NO_ONES]:
            out.append(f"Bonus race (+{int(params[OPT_BONUS_POINTS])} for the most 1-point cards): nobody has one yet")
        else:
            out.append(f"Bonus race (+{int(params[OPT_BONUS_POINTS])} for the most 1-point cards): "
                       f"seat{'s' if len(leaders) > 1 else ''} {', '.join(map(str, leaders))} with {best}")
        goal = _trigger_of(params, players)
        if v[TRIGGER_SEAT] >= 0:
            left = [] if v[OVER] else list(range(cur, players))
            rest = f"; still to play: seat{'s' if len(left) > 1 else ''} {', '.join(map(str, left))}" if left else ""
            out.append(f"End triggered by seat {v[TRIGGER_SEAT]} ({goal} cards): the round is finished{rest}")
        else:
            most = max(v[CARDS + s] for s in range(players))
            out.append(f"End: triggered at {goal} scored cards; most so far {most}")
    return "\n".join(out)


def describe_step(before, action, after, params, players) -> list[str]:
    """What one action changed, in words: the grid after every shift and flip, a scored card
    with its points and pattern, draws, reshuffles, strikes, the end trigger and the result."""
    b = [int(x) for x in before]
    a = [int(x) for x in after]
    s = b[CUR]
    action = int(action)
    lines: list[str] = []
    if action < MOVES:
        paid = _card_label(params, b[PENDING])
        if action < FLIP_BASE:
            x, y = PAIRS[action]
            lines.append(f"seat {s} swaps cells {x} and {y} (paid with {paid}):")
        else:
            x = action - FLIP_BASE
            was, now = FACES[(b[GRID] >> (3 * x)) & 7], FACES[(a[GRID] >> (3 * x)) & 7]
            lines.append(f"seat {s} flips cell {x}, {FACE_NAMES[was]} to {FACE_NAMES[now]} (paid with {paid}):")
        lines += ["  " + line for line in grid_lines(a[GRID])]
        return lines
    if action < SCORE_BASE:
        c = action - DISCARD_BASE
        return [f"seat {s} discards {_card_label(params, c)} to pay for a shift or flip"]
    if action < END:
        c = action - SCORE_BASE
        pts = int(params[P_POINTS + c])
        n = a[CARDS + s]
        lines.append(f"seat {s} scores #{c + 1}, {_points_word(pts)}: now {n} card{'s' if n != 1 else ''}, "
                     f"{_points_word(a[POINTS + s])}")
        lines += ["  " + r.replace("*", GREY) for r in card_rows(params, c)]
        if a[TRIGGER_SEAT] >= 0 and b[TRIGGER_SEAT] < 0:
            lines.append(f"seat {s} reached {a[CARDS + s]} cards: the end is triggered, the round is finished")
        return lines
    if action == SKIP:
        lines.append(f"seat {s} skips")
    else:
        lines.append(f"seat {s} ends the turn" + ("" if b[TURN_ACTIONS] else " without an action"))
    if a[STRIKES] > b[STRIKES]:
        lines.append(f"strike {a[STRIKES]} of {int(params[OPT_SOLO_STRIKES])}")
    if a[RESHUFFLES] > b[RESHUFFLES]:
        lines.append(f"the discard pile ({b[DISCARD_N]} cards) is shuffled into a new draw pile")
    drawn = sorted(set(_set_cards(a[HAND_LO + s], a[HAND_HI + s])) - set(_set_cards(b[HAND_LO + s], b[HAND_HI + s])))
    if drawn:
        lines.append(f"seat {s} draws {' '.join(f'#{c + 1}' for c in drawn)} (hand {a[HAND_N + s]}; "
                     f"draw pile {a[DRAW_END] - a[DRAW_TOP]})")
    if a[OVER]:
        lines.append("game over: " + _result_words(after, params, players))
    else:
        lines.append(f"seat {a[CUR]} to play")
    return lines
