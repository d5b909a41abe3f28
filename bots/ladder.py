"""Skill levels of a game's bots, from a measured ladder (``bots/ladders/<game>.csv``,
written by ``tools/ladder.py``: one tournament of the game's bots and a speed bench of each).

Levels are relative to the game's ``greedy`` bot, the heuristic every game ships:

- **strong**: the bot's 95% rating interval lies wholly above greedy's rating;
- **novice**: wholly below it;
- **intermediate**: the interval holds greedy's rating (greedy itself, and bots the ladder
  cannot tell from it).

A game without a ladder file (a plugin's, say) has no levels: ``level`` answers ``None``.
An alias (``expert``) takes the level of the bot it names.

``study_bots(game)`` is what ``--ladder`` runs a study under: per level, the strongest bot
of that level that plays at least ``STUDY_GAMES_PER_S`` games a second on one thread (the
speed a study of 100,000 games needs), else the fastest of the level.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LADDER_DIR = Path(__file__).resolve().parent / "ladders"
LADDER_COLUMNS = ("bot", "rating", "ci_low", "ci_high", "games", "games_per_s", "measured", "command",
                  "speed_command")
LEVELS = ("novice", "intermediate", "strong")
REFERENCE = "greedy"
STUDY_GAMES_PER_S = 200.0


@dataclass(frozen=True)
class Rung:
    bot: str
    rating: float
    ci_low: float
    ci_high: float
    games: int
    games_per_s: float
    level: str
    measured: str
    command: str


def ladder_path(game: str) -> Path:
    return LADDER_DIR / f"{game}.csv"


def chance_path(game: str) -> Path:
    """The ladder tournament's skill-against-chance table (``experiments.skill_chance``)."""
    return LADDER_DIR / f"{game}-chance.csv"


def chance_table(game: str):
    """The ladder's skill-against-chance table, one row per pair and ``(all pairs)`` last
    (None without a measured ladder). A fresh frame each call: callers may alter it."""
    path = chance_path(game)
    if not path.exists():
        return None
    import pandas as pd

    return pd.read_csv(path)


def coin_flip(game: str) -> tuple[float, float, float] | None:
    """The share of games a coin flip decides between the ladder's bots, with its 95%
    bootstrap interval (None without a measured ladder)."""
    table = chance_table(game)
    if table is None:
        return None
    row = table.iloc[-1]
    return float(row["coin_flip"]), float(row["ci_low"]), float(row["ci_high"])


def level_of(ci_low: float, ci_high: float, reference: float) -> str:
    if ci_low > reference:
        return "strong"
    if ci_high < reference:
        return "novice"
    return "intermediate"


def ladder(game: str) -> tuple[Rung, ...]:
    """The game's measured rungs, best first (empty when the game has no ladder)."""
    return _rungs(ladder_path(game))


# Cached on the file's path, not the game's name: whoever points LADDER_DIR elsewhere (a test,
# a user's ladder folder) reads that folder's ladder, never one cached from the other.
@lru_cache(maxsize=None)
def _rungs(path: Path) -> tuple[Rung, ...]:
    if not path.exists():
        return ()
    import pandas as pd

    frame = pd.read_csv(path)
    ref = frame.loc[frame["bot"] == REFERENCE, "rating"]
    if ref.empty:
        raise ValueError(f"{path}: the ladder has no {REFERENCE} rung to set levels against")
    reference = float(ref.iloc[0])
    rungs = [Rung(r.bot, float(r.rating), float(r.ci_low), float(r.ci_high), int(r.games), float(r.games_per_s),
                  level_of(float(r.ci_low), float(r.ci_high), reference), str(r.measured), str(r.command))
             for r in frame.itertuples()]
    return tuple(sorted(rungs, key=lambda r: -r.rating))


def rung(game: str, bot: str) -> Rung | None:
    from bots.registry import alias_of

    name = alias_of(game, bot) or bot
    for r in ladder(game):
        if r.bot == name:
            return r
    return None


def level(game: str, bot: str) -> str | None:
    r = rung(game, bot)
    return r.level if r else None


def study_bots(game: str) -> list[str]:
    """One bot per measured level, novice first (see the module's docstring)."""
    chosen = []
    for lv in LEVELS:
        rungs = [r for r in ladder(game) if r.level == lv]
        if not rungs:
            continue
        fast = [r for r in rungs if r.games_per_s >= STUDY_GAMES_PER_S]
        pick = max(fast, key=lambda r: r.rating) if fast else max(rungs, key=lambda r: r.games_per_s)
        chosen.append(pick.bot)
    return chosen
