"""Shifting Stones pattern cards: loading and validating a deck file (pure Python).

The deck ships as package data (``simcore/data/shifting_stones_cards.json``, a copy of
``shared/data/shifting_stones_cards.json``).  Its layouts are a third-party transcription
that no second source confirms, so a user may play with a corrected file of the same
format (``--variant deck=PATH``).  ``load_deck`` checks such a file completely and raises
``OptionError`` with one clear message for the first problem it finds:

* the file is readable JSON: an object with a ``cards`` list (other keys are ignored);
* every card has an integer ``id``, ``points`` in {1, 2, 3, 5} and ``rows``: 1-3 strings
  of equal length 1-3 (a rectangular footprint inside 3x3) made of the face letters
  ``S M F B H O E T`` and the grey wildcard ``*``, with at least one face;
* the ids are exactly 1..72, each once (72 unique cards), and no two layouts are equal;
* 28 / 26 / 13 / 5 cards are worth 1 / 2 / 3 / 5 points;
* every pattern can be built with the real tiles: a tile shows one face at a time, so a
  pattern uses at most 1 S/M cell, 2 F/B cells, 3 H/O cells and 3 E/T cells.

This module knows nothing about kernels; the game module turns a deck into its match
tables and the independent replayer reads the same validated cards.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from simcore.options import OptionError

FACES = "SMFBHOET"  # face code = index; the two faces of a tile differ in the lowest bit
WILDCARD = "*"
DECK_SIZE = 72
POINT_COUNTS = {1: 28, 2: 26, 3: 13, 5: 5}
# tiles by kind (face code >> 1): faces and copies
TILE_FACES = ("SM", "FB", "HO", "ET")
TILE_COPIES = (1, 2, 3, 3)
PACKAGED_DECK = Path(__file__).resolve().parent.parent / "data" / "shifting_stones_cards.json"


@dataclass(frozen=True)
class Card:
    id: int
    points: int
    rows: tuple[str, ...]

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_card(raw: Any, where: str, fail) -> Card:
    if not isinstance(raw, dict):
        fail(f"{where} is not an object")
    for key in ("id", "points", "rows"):
        if key not in raw:
            fail(f"{where} has no {key!r}")
    cid = raw["id"]
    if not _is_int(cid):
        fail(f"{where} has a non-integer id {cid!r}")
    name = f"card {cid}"
    points = raw["points"]
    if not _is_int(points) or points not in POINT_COUNTS:
        fail(f"{name}: points must be 1, 2, 3 or 5, not {points!r}")
    rows = raw["rows"]
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        fail(f"{name}: rows must be a non-empty list of strings")
    if len(rows) > 3:
        fail(f"{name}: footprint has {len(rows)} rows; it must fit inside 3x3")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        fail(f"{name}: footprint is not rectangular (row lengths {[len(r) for r in rows]})")
    width = widths.pop()
    if not 1 <= width <= 3:
        fail(f"{name}: footprint is {width} wide; it must fit inside 3x3")
    for r in rows:
        for ch in r:
            if ch != WILDCARD and ch not in FACES:
                fail(f"{name}: unknown face {ch!r} (faces are {' '.join(FACES)} and {WILDCARD})")
    cells = [ch for r in rows for ch in r if ch != WILDCARD]
    if not cells:
        fail(f"{name}: the pattern has no stone (only {WILDCARD} cells)")
    per_tile = Counter(FACES.index(ch) >> 1 for ch in cells)
    for kind, used in sorted(per_tile.items()):
        if used > TILE_COPIES[kind]:
            tile = "/".join(TILE_FACES[kind])
            have = TILE_COPIES[kind]
            there = f"there is only 1 {tile} tile" if have == 1 else f"there are only {have} {tile} tiles"
            fail(f"{name}: needs {used} {tile} stones but {there}, so the pattern is impossible")
    return Card(cid, points, tuple(rows))


def parse_deck(data: Any, source: str) -> tuple[Card, ...]:
    """Validate a decoded deck file; the cards sorted by id (card index = id - 1)."""

    def fail(msg: str):
        raise OptionError(f"deck file {source}: {msg}")

    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        fail("expected a JSON object with a 'cards' list")
    cards = [_check_card(raw, f"card #{i + 1} of the list", fail) for i, raw in enumerate(data["cards"])]
    seen: dict[int, Card] = {}
    for c in cards:
        if c.id in seen:
            fail(f"card id {c.id} appears more than once")
        if not 1 <= c.id <= DECK_SIZE:
            fail(f"card id {c.id} is outside 1..{DECK_SIZE}")
        seen[c.id] = c
    if len(cards) != DECK_SIZE:
        fail(f"has {len(cards)} cards; a deck has {DECK_SIZE}")
    layouts: dict[tuple[str, ...], int] = {}
    for c in sorted(cards, key=lambda c: c.id):
        if c.rows in layouts:
            fail(f"cards {layouts[c.rows]} and {c.id} have the same layout {list(c.rows)}")
        layouts[c.rows] = c.id
    counts = Counter(c.points for c in cards)
    if any(counts.get(p, 0) != n for p, n in POINT_COUNTS.items()):
        got = ", ".join(f"{counts.get(p, 0)}x{p}" for p in POINT_COUNTS)
        want = ", ".join(f"{n}x{p}" for p, n in POINT_COUNTS.items())
        fail(f"point values are {got}; a deck has {want}")
    return tuple(sorted(cards, key=lambda c: c.id))


@lru_cache(maxsize=16)
def _load_cached(path: str, mtime_ns: int, size: int) -> tuple[Card, ...]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OptionError(f"cannot read deck file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OptionError(f"deck file {path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    return parse_deck(data, path)


def load_deck(path: str | os.PathLike | None = None) -> tuple[Card, ...]:
    """The validated deck in ``path`` (``None`` or ``""``: the packaged deck)."""
    p = str(path) if path else str(PACKAGED_DECK)
    try:
        st = os.stat(p)
    except OSError as exc:
        raise OptionError(f"cannot read deck file {p}: {exc.strerror or exc}") from None
    if not os.path.isfile(p):
        raise OptionError(f"cannot read deck file {p}: not a file")
    return _load_cached(p, st.st_mtime_ns, st.st_size)


def placements(card: Card) -> list[dict[int, str]]:
    """Every offset of the footprint inside the grid: {cell: face} of its non-grey cells."""
    out = []
    for r0 in range(4 - card.height):
        for c0 in range(4 - card.width):
            cells = {}
            for i, row in enumerate(card.rows):
                for j, ch in enumerate(row):
                    if ch != WILDCARD:
                        cells[(r0 + i) * 3 + c0 + j] = ch
            out.append(cells)
    return out
