"""Typed rule options (the `--variant` table) and their encoding for kernels.

A game lists its options once, in the order of ``rules/<game>.md``; kernels read them from
an ``int64`` parameter vector by position (named constants in the game module), so a
variant is a runtime value and never forces a recompile.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np


class OptionError(ValueError):
    """A variant name or value the game does not accept (reported as one error line)."""


@dataclass(frozen=True)
class Option:
    name: str
    kind: str  # "bool", "int", "choice" or "path"
    default: Any
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = field(default_factory=tuple)

    def describe_range(self) -> str:
        if self.kind == "bool":
            return "true|false"
        if self.kind == "choice":
            return "|".join(self.choices)
        if self.kind == "int":
            return f"{self.low}..{self.high}"
        return "file path"

    def parse(self, raw: Any) -> Any:
        """Convert a CLI string (or a Python value) to the option's typed value."""
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("true", "1", "yes", "on"):
                return True
            if text in ("false", "0", "no", "off"):
                return False
            raise OptionError(f"option {self.name} takes true or false, not {raw!r}")
        if self.kind == "int":
            if isinstance(raw, bool):
                raise OptionError(f"option {self.name} takes an integer {self.describe_range()}, not {raw!r}")
            try:
                value = int(str(raw).strip())
            except ValueError:
                raise OptionError(
                    f"option {self.name} takes an integer {self.describe_range()}, not {raw!r}"
                ) from None
            if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
                raise OptionError(f"option {self.name} must be in {self.describe_range()}, not {value}")
            return value
        if self.kind == "choice":
            text = str(raw).strip()
            if text not in self.choices:
                raise OptionError(f"option {self.name} takes one of {self.describe_range()}, not {raw!r}")
            return text
        if self.kind == "path":
            text = str(raw).strip()
            if not text:
                raise OptionError(f"option {self.name} needs a file path")
            return text
        raise AssertionError(self.kind)

    def encode(self, value: Any) -> int:
        """The option's slot in the kernel parameter vector (paths are loaded by the game)."""
        if self.kind == "bool":
            return int(bool(value))
        if self.kind == "int":
            return int(value)
        if self.kind == "choice":
            return self.choices.index(value)
        return 0


def resolve_variant(options: Sequence[Option], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every option with its value: defaults overridden by ``given`` (validated)."""
    by_name = {o.name: o for o in options}
    given = dict(given or {})
    unknown = [k for k in given if k not in by_name]
    if unknown:
        known = ", ".join(o.name for o in options)
        raise OptionError(f"unknown option {unknown[0]!r} (options: {known})")
    return {o.name: (o.parse(given[o.name]) if o.name in given else o.default) for o in options}


def set_options(options: Sequence[Option], variant: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a resolved ``variant`` set away from their defaults: what resolves
    again to the same variant (a default such as the packaged deck's "" is no value a user
    could give, so a resolved variant is not itself a valid ``given``)."""
    defaults = {o.name: o.default for o in options}
    return {k: v for k, v in variant.items() if k not in defaults or v != defaults[k]}


def parse_variant_args(items: Sequence[str]) -> dict[str, str]:
    """``["name=value", ...]`` from the command line into a dict (values still strings)."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"malformed --variant {item!r}: expected name=value")
        if name.strip() in out:
            # the later value would silently win: a typo or a leftover, never what was meant
            raise OptionError(f"--variant {name.strip()} given twice ({out[name.strip()]!r} and "
                              f"{value.strip()!r}): give each option once")
        if not value.strip():
            raise OptionError(f"--variant {name.strip()}= has no value: give name=value")
        out[name.strip()] = value.strip()
    return out


def format_value(value: Any) -> str:
    """An option value as the command line takes it (booleans as true/false everywhere)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return '""' if value == "" else str(value)


def players_text(n: int) -> str:
    """"1 player", "3 players"."""
    return f"{n} player" if n == 1 else f"{n} players"


def encode_options(options: Sequence[Option], variant: Mapping[str, Any]) -> np.ndarray:
    return np.array([o.encode(variant[o.name]) for o in options], dtype=np.int64)
