"""Reading result rows the way every study reports them: decided and truncated games,
shared wins, finishing order."""
from __future__ import annotations

import numpy as np
import pandas as pd

from runtime.runner import RunConfig

def truncation_option(info) -> str | None:
    """The option whose cap ends a game unfinished (``GameInfo.truncation_option``)."""
    return info.truncation_option


def seat_matrix(frame: pd.DataFrame, prefix: str, players: int) -> np.ndarray:
    return frame[[f"{prefix}_{s}" for s in range(players)]].to_numpy(dtype=np.int64)


def shared_wins_note(shared: int) -> str | None:
    if not shared:
        return None
    return ("shared wins: every seat of a tied win is counted as a winner (in `wins` and in "
            "`shared`), so win rates can add up to more than 1")


def truncation_record(config: RunConfig, frame: pd.DataFrame) -> dict:
    option = truncation_option(config.info)
    truncated = frame[frame["truncated"].astype(bool)]
    record = {"games": int(len(truncated)), "share": float(len(truncated) / len(frame)) if len(frame) else 0.0,
              "cap_option": option, "cap": config.variant.get(option) if option else None}
    if len(truncated):
        record["mean_scores"] = [float(truncated[f"score_{s}"].mean()) for s in range(config.players)]
    return record


def truncation_note(config: RunConfig, frame: pd.DataFrame) -> str:
    """One line: how many games the cap cut off, which cap, and that they are excluded."""
    return format_truncation(truncation_record(config, frame), len(frame))


def format_truncation(r: dict, games: int) -> str:
    pct = 100.0 * r["share"]
    line = f"truncated games: {r['games']} ({pct:.1f}%)"
    if r["games"]:
        cap = f"{r['cap_option']}={r['cap']}" if r["cap_option"] else "the game's cap"
        scores = ", ".join(f"{m:.2f}" for m in r["mean_scores"])
        line += (f", stopped unfinished by {cap}; they have no winner and are left out: win rates"
                 f" and mean scores are over the {games - r['games']} decided games"
                 f" (mean scores in truncated games: {scores})")
    else:
        line += f"; win rates and mean scores are over the {games} decided games"
    return line


def finishing_places(frame: pd.DataFrame, players: int) -> np.ndarray:
    """Place of every seat in every game (0 = best, equal places = tie): the winners
    first (win flags), then the others by score, higher first.  Truncated games must be
    removed first (they have no order)."""
    wins = seat_matrix(frame, "win", players) > 0
    scores = seat_matrix(frame, "score", players)
    # a seat is behind every winner when it did not win, and behind every fellow loser
    # with a higher score; its place is the number of seats ahead of it
    ahead = np.zeros(wins.shape, np.int64)
    for s in range(players):
        for t in range(players):
            if s == t:
                continue
            beats = (wins[:, t] & ~wins[:, s]) | ((wins[:, t] == wins[:, s]) & ~wins[:, s]
                                                  & (scores[:, t] > scores[:, s]))
            ahead[:, s] += beats
    return ahead


def long_frame(frame: pd.DataFrame, players: int, seating_column: str = "run") -> pd.DataFrame:
    """One row per (game, seat) of decided games: ``deal`` (the game index: the same deal
    under every seating), ``game`` (unique per seating and deal), ``seating``, ``seat``,
    ``bot``, ``place``."""
    decided = frame[~frame["truncated"].astype(bool)]
    n = len(decided)
    places = finishing_places(decided, players)
    deal = decided["index"].to_numpy(np.int64)
    seating = decided[seating_column].to_numpy(np.int64)
    span = int(deal.max()) + 1 if n else 1
    game = seating * span + deal
    bots = decided[[f"bot_{s}" for s in range(players)]].to_numpy()
    return pd.DataFrame({
        "deal": np.repeat(deal, players),
        "game": np.repeat(game, players),
        "seating": np.repeat(seating, players),
        "seat": np.tile(np.arange(players), n),
        "bot": bots.reshape(-1),
        "place": places.reshape(-1),
    })
