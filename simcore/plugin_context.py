"""Which plugin is being loaded: registrations made meanwhile (games here, bots in
``bots.registry``) are recorded as that plugin's.  ``runtime.plugins`` sets it."""
from __future__ import annotations

from contextlib import contextmanager

_CURRENT: list[str | None] = [None]


def current_plugin() -> str | None:
    return _CURRENT[-1]


@contextmanager
def registering_for(plugin: str | None):
    _CURRENT.append(plugin)
    try:
        yield
    finally:
        _CURRENT.pop()
