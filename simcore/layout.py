"""State layouts and result columns, each declared once per game.

A game lists its state fields in order (name, length, meaning); the ``Layout`` yields the
slot constants the kernels use, the state size, and the table drawn in the game's docstring
(a built-in game's package docstring; a test holds the drawing to the declaration).  A game lists its own result columns
the same way (``Column``: name, meaning, and the state field it is copied from, if any);
``Columns`` yields the column names for a player count, their descriptions for
``playlab games GAME``, and the copy plan that ``copy_columns`` follows inside
``summarize``, so no slot number or column position is written twice by hand.

Numba reads module globals as compile-time constants, so ``Layout.export(globals())``
makes ``HAND``, ``SCORE`` … ordinary integer constants of the module that declares them.

A layout that declares an observation vector (``OBS_LAYOUT`` or ``OBS`` of a game module,
``observation_layout``) also gives the range of every entry: each ``Field`` has ``low`` and
``high`` (0 and 1 unless declared: one-hot and multi-hot entries, fractions of a cap), a
number or a function of the rule options and the player count for a field scaled by an
option.  ``Layout.bounds(variant, players)`` turns them into the per-entry arrays the
reinforcement-learning spaces use (``simcore.pettingzoo``), so the range is declared once,
next to the field; a test plays random games and holds every observation to it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, MutableMapping, Sequence, Union

import numpy as np
from numba import njit

# a bound of an observation field: a number, one number per entry, or a function of the
# resolved rule options and the player count returning either
Bound = Union[float, Sequence[float], Callable[[Mapping[str, Any], int], Union[float, Sequence[float]]]]


@dataclass(frozen=True)
class Field:
    """``size`` consecutive int64 slots named ``name`` (an array when size > 1).

    In an observation layout, ``low`` and ``high`` bound every entry of the field (what
    ``Layout.bounds`` reports); state layouts leave them at their defaults, unused."""
    name: str
    size: int = 1
    doc: str = ""
    low: Bound = 0.0
    high: Bound = 1.0


class Layout:
    def __init__(self, *fields: Field, size_name: str = "STATE_SIZE"):
        self.fields = tuple(fields)
        self.size_name = size_name
        self.offsets: dict[str, int] = {}
        pos = 0
        for f in self.fields:
            if f.name in self.offsets:
                raise ValueError(f"field {f.name} declared twice")
            if f.size < 1:
                raise ValueError(f"field {f.name} has size {f.size}")
            self.offsets[f.name] = pos
            pos += f.size
        self.size = pos

    def export(self, namespace: MutableMapping[str, object]) -> None:
        """Define every field's first slot, and the size, as constants in ``namespace``."""
        namespace.update(self.offsets)
        namespace[self.size_name] = self.size

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)

    def slice(self, name: str) -> slice:
        start = self.offsets[name]
        return slice(start, start + self.field(name).size)

    def bounds(self, variant: Mapping[str, Any] | None = None, players: int | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """(low, high): float64 arrays of ``size`` entries, the declared range of every entry
        under the resolved rule options ``variant`` and ``players`` (a bound given as a
        function is called with them).  A bound that is not finite, or a low above its
        high, is a ``ValueError`` naming the field."""
        low = np.zeros(self.size, dtype=np.float64)
        high = np.zeros(self.size, dtype=np.float64)
        for f in self.fields:
            where = self.slice(f.name)
            for out, bound, what in ((low, f.low, "low"), (high, f.high, "high")):
                value = bound(variant if variant is not None else {}, players) if callable(bound) else bound
                arr = np.asarray(value, dtype=np.float64)
                if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != f.size):
                    raise ValueError(f"field {f.name}: {what} bound has shape {arr.shape}, not ({f.size},)")
                if not np.all(np.isfinite(arr)):
                    raise ValueError(f"field {f.name}: {what} bound {value!r} is not finite")
                out[where] = arr
            if np.any(low[where] > high[where]):
                raise ValueError(f"field {f.name}: low bound above the high bound")
        return low, high

    def table(self) -> str:
        """The layout as drawn in the game's docstring: one line a field, ``[start:stop]``."""
        width = max(len(f.name) for f in self.fields)
        lines = []
        for f in self.fields:
            start = self.offsets[f.name]
            where = f"[{start}]" if f.size == 1 else f"[{start}:{start + f.size}]"
            lines.append(f"    {f.name:<{width}}  {where:<11} {f.doc}".rstrip())
        return "\n".join(lines)


def observation_layout(module) -> Layout | None:
    """The observation layout a game module declares: ``OBS_LAYOUT`` or ``OBS`` (the names
    the games use), else the one module-level ``Layout`` whose size constant is
    ``OBS_SIZE``; None when it declares none."""
    for name in ("OBS_LAYOUT", "OBS"):
        layout = getattr(module, name, None)
        if isinstance(layout, Layout):
            return layout
    found = [v for v in vars(module).values() if isinstance(v, Layout) and v.size_name == "OBS_SIZE"]
    return found[0] if len(found) == 1 else None


def observation_bounds(module, players: int, variant: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """float32 (low, high) of the game's observation vector for ``players`` under the
    resolved ``variant``: from its observation layout, or -inf..inf for a game that
    declares none (or a layout of another length).  Rounding to float32 is monotone, so an
    entry within its float64 bounds stays within these."""
    n = module.INFO.observation_size(players)
    layout = observation_layout(module)
    if layout is None or layout.size != n:
        return np.full(n, -np.inf, np.float32), np.full(n, np.inf, np.float32)
    low, high = layout.bounds(variant, players)
    return low.astype(np.float32), high.astype(np.float32)


# ---- result columns ------------------------------------------------------------------------
COMPUTED = -1  # a column the game's summarize writes itself


@dataclass(frozen=True)
class Column:
    """A result column.  ``per_seat`` columns expand to ``name_0 … name_{n-1}``.
    ``field`` names the state field copied into it (seat s from slot ``field + s*stride``);
    without one the game's ``summarize`` computes it."""
    name: str
    doc: str
    per_seat: bool = False
    field: str | None = None
    stride: int = 1


# the columns every game's result row starts with (simcore.protocol documents them)
COMMON_COLUMNS = (
    Column("score", "final score (the game's own points)", per_seat=True),
    Column("win", "1 if the seat won (every seat of a shared win); all 0 when truncated", per_seat=True),
    Column("truncated", "1 if the game's cap ended it before a result (excluded from win rates)"),
    Column("turns", "turns played (the game's own definition; see its columns)"),
)


class Columns:
    def __init__(self, layout: Layout, *columns: Column, common: Iterable[Column] = COMMON_COLUMNS,
                 only_for: dict[str, tuple[int, ...]] | None = None):
        """``only_for`` maps a column name to the player counts that have it (e.g. a solo-only
        column); every other column exists at every count."""
        self.layout = layout
        self.columns = tuple(common) + tuple(columns)
        self.only_for = dict(only_for or {})
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError("a result column is declared twice")
        for c in self.columns:
            if c.field is not None and c.field not in layout.offsets:
                raise ValueError(f"column {c.name} copies unknown field {c.field}")

    def present(self, players: int) -> list[Column]:
        return [c for c in self.columns if players in self.only_for.get(c.name, (players,))]

    def names(self, players: int) -> list[str]:
        out: list[str] = []
        for c in self.present(players):
            out += [f"{c.name}_{s}" for s in range(players)] if c.per_seat else [c.name]
        return out

    def extra_names(self, players: int) -> list[str]:
        """The game's own columns (after the common ones): ``GameInfo.extra_columns``."""
        common = {c.name for c in COMMON_COLUMNS}
        out: list[str] = []
        for c in self.present(players):
            if c.name not in common:
                out += [f"{c.name}_{s}" for s in range(players)] if c.per_seat else [c.name]
        return out

    def docs(self) -> list[tuple[str, str]]:
        """(name pattern, meaning) for ``playlab games GAME``; per-seat names end in ``_S``."""
        out = []
        for c in self.columns:
            counts = self.only_for.get(c.name)
            note = f" (only with {', '.join(map(str, counts))} players)" if counts else ""
            out.append((f"{c.name}_S" if c.per_seat else c.name, c.doc + note))
        return out

    def index(self, name: str, players: int) -> int:
        """Position of column ``name`` (a per-seat column: of its seat 0) in the row after
        the runner's prefix, i.e. in ``summarize``'s ``row``."""
        pos = 0
        for c in self.present(players):
            if c.name == name:
                return pos
            pos += players if c.per_seat else 1
        raise KeyError(name)

    def plans(self, max_players: int) -> np.ndarray:
        """The copy plan of every player count, ``plans[players]`` being ``(K, 3)`` int64
        rows ``(slot or COMPUTED, stride, width)`` in column order, width ``ONE``,
        ``PER_SEAT`` or ``ABSENT`` (a column this player count lacks).  A game keeps it as
        a module constant and hands ``plans[players]`` to ``copy_columns``."""
        out = np.zeros((max_players + 1, len(self.columns), 3), dtype=np.int64)
        for n in range(max_players + 1):
            for k, c in enumerate(self.columns):
                slot = COMPUTED if c.field is None else self.layout.offsets[c.field]
                if n not in self.only_for.get(c.name, (n,)):
                    width = ABSENT
                else:
                    width = PER_SEAT if c.per_seat else ONE
                out[n, k] = (slot, c.stride, width)
        return out


ABSENT = 0
ONE = 1
PER_SEAT = 2


@njit(cache=True)
def copy_columns(state, players, row, plan):
    """Copy every planned column that comes from a state field into ``row``; computed
    columns are left for the caller.  ``plan`` is ``Columns.plans(...)[players]``."""
    pos = 0
    for k in range(plan.shape[0]):
        slot = plan[k, 0]
        width = plan[k, 2]
        if width == PER_SEAT:
            if slot != COMPUTED:
                for s in range(players):
                    row[pos + s] = state[slot + s * plan[k, 1]]
            pos += players
        elif width == ONE:
            if slot != COMPUTED:
                row[pos] = state[slot]
            pos += 1
