"""`playlab fpa`: first-player advantage.  The same bot in every seat, per player count;
win rate by position with 95% Wilson intervals against the fair line 1/n, a chi-square
test of equal positions per player count, and the paired difference first minus last.

Position is the seat counted from the game's first player.  Shifting Stones and Sequence
Stacks: seat 0 plays first, so position = seat.  A game that draws its first player
(Moon's first bidder) records it in a result column named by
``GameInfo.first_player_column``; positions are then ``(seat - first) mod n``.

Everything is counted chunk by chunk: per player count the collector keeps one small
matrix of win flags by position (int8, one row per decided game) for the paired
comparison, and sums for the rest.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments import stats, tables
from simcore.games import load_game
from runtime.runner import RunConfig

from .results import seat_matrix
from .study import Study

MOON_POSITIONS = 3  # Moon's bidding positions: first, second and third to bid


def parse_players(text: str | None, info, what: str = "first-player studies") -> list[int]:
    """``2-5``, ``3`` or ``2,3,5``; every count must be one the game allows (and at least
    2: one seat has nobody to be ahead of).  ``what`` names the study in the message."""
    lo_game = max(2, info.min_players)
    if text is None:
        return list(range(lo_game, info.max_players + 1))
    counts: list[int] = []
    try:
        for part in str(text).split(","):
            a, sep, b = part.strip().partition("-")
            counts += list(range(int(a), int(b) + 1)) if sep else [int(a)]
    except ValueError:
        raise ValueError(f"--players takes N, A-B or a comma list, not {text!r}") from None
    if not counts:
        raise ValueError(f"--players {text!r} names no player count")
    span = (f"exactly {info.min_players}" if info.min_players == info.max_players
            else f"{lo_game}-{info.max_players}")
    for n in counts:
        if not (lo_game <= n <= info.max_players):
            raise ValueError(f"--players {text}: {info.name} {what} take {span} players, not {n}")
    return sorted(set(counts))


def first_player_column(info) -> str | None:
    return getattr(info, "first_player_column", None)


def build(game: str, bot: str, players: str | None, games: int, seed: int,
          variant: dict | None = None, chunk: int | None = None) -> Study:
    module = load_game(game)
    if "," in bot:
        raise ValueError("fpa puts the same bot in every seat: give one spec in --bots")
    counts = parse_players(players, module.INFO)
    configs = [RunConfig.build(game, n, bot, variant, seed) for n in counts]
    kw = {} if chunk is None else {"chunk": chunk}
    col = first_player_column(module.INFO)
    basis = f"position after the first player (result column {col})" if col else "seat (seat 0 plays first)"
    return Study("fpa", configs, games, seed, meta={"bot": configs[0].bot_labels[0], "players": counts,
                                                     "position_basis": basis}, **kw)


def positions_of(frame: pd.DataFrame, players: int, first_col: str | None) -> np.ndarray:
    """(games, players) seat number at each position: position k is the k-th seat to
    play, counted from the game's first player."""
    k = np.arange(players)
    if first_col is None:
        return np.broadcast_to(k, (len(frame), players))
    if first_col not in frame.columns:
        raise ValueError(f"results lack the first-player column {first_col!r}")
    first = frame[first_col].to_numpy(np.int64)
    return (first[:, None] + k[None, :]) % players


def by_position(matrix: np.ndarray, seats_at: np.ndarray) -> np.ndarray:
    return np.take_along_axis(matrix, seats_at, axis=1)


class Collector:
    def __init__(self, study: Study):
        self.study = study
        self.first_col = first_player_column(study.configs[0].info)
        # per player count, decided games by their win pattern (bit k: position k won):
        # everything the tables need, in 2**n numbers whatever the number of games
        self.patterns: dict[int, np.ndarray] = {}
        self.games: dict[int, int] = {}
        self.truncated: dict[int, int] = {}
        self.moon: dict[str, float] = {}

    def __call__(self, task, frame: pd.DataFrame) -> None:
        n = task.config.players
        self.games[n] = self.games.get(n, 0) + len(frame)
        trunc = frame["truncated"].astype(bool).to_numpy()
        self.truncated[n] = self.truncated.get(n, 0) + int(trunc.sum())
        decided = frame[~trunc]
        seats_at = positions_of(decided, n, self.first_col)
        wins = by_position(seat_matrix(decided, "win", n), seats_at)
        counts = self.patterns.setdefault(n, np.zeros(1 << n, np.int64))
        counts += tables.win_pattern_counts(wins)
        for key, value in moon_position_sums(frame).items():  # {} unless the results carry them
            self.moon[key] = self.moon.get(key, 0) + value

    def win_patterns(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(every win pattern as a 0/1 row by position, decided games with it)."""
        return tables.pattern_rows(n), self.patterns.get(n, np.zeros(1 << n, np.int64))


def moon_position_sums(frame: pd.DataFrame) -> dict[str, float]:
    """Sums over games (truncated ones too: their completed hands were played) of the
    per-bidding-position Moon columns, when the results carry them."""
    out: dict[str, float] = {}
    cols = [f"{stem}_pos_{k}" for stem in ("hand_points", "contracts", "made") for k in range(MOON_POSITIONS)]
    if not all(c in frame.columns for c in cols):
        return out
    for c in cols:
        out[c] = float(frame[c].sum())
    hands = frame["hands"].to_numpy(np.int64)
    if "redeals" in frame.columns:  # a redealt hand is never played out
        hands = hands - frame["redeals"].to_numpy(np.int64)
    out["hands"] = float(hands.sum())
    return out


def moon_position_table(sums: dict[str, float]) -> pd.DataFrame | None:
    """Points per hand and make rate (95% Wilson) by bidding position."""
    if not sums:
        return None
    rows = []
    for k in range(MOON_POSITIONS):
        contracts = int(sums[f"contracts_pos_{k}"])
        made = int(sums[f"made_pos_{k}"])
        lo, hi = stats.wilson_interval(made, contracts)
        rows.append({"bid_position": k, "hands": int(sums["hands"]),
                     "points_per_hand": sums[f"hand_points_pos_{k}"] / sums["hands"] if sums["hands"] else np.nan,
                     "contracts": contracts, "made": made,
                     "make_rate": made / contracts if contracts else np.nan, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def win_shares(w: np.ndarray) -> np.ndarray:
    """Each game's win split among its winners (a shared win of two is half each): the
    shares of a game add up to 1, so their means are comparable with 1/n."""
    winners = w.sum(axis=1, keepdims=True)
    return np.divide(w, winners, out=np.zeros(w.shape), where=winners > 0)


def first_vs_fair(share0: np.ndarray, n: int, counts: np.ndarray | None = None) -> float:
    """p-value of seat 0's mean win share against 1/n (one-sample t-test over games: the
    shares take fractional values when wins are shared, so no binomial test applies).
    With ``counts``, ``share0[i]`` stands for ``counts[i]`` games (the test of the games
    written out, from their distinct values)."""
    from scipy.stats import ttest_1samp

    if counts is None:
        if len(share0) < 2 or np.all(share0 == share0[0]):
            return float("nan")
        return float(ttest_1samp(share0, 1.0 / n).pvalue)
    total = counts.sum()
    values = share0[counts > 0]
    if total < 2 or np.all(values == values[0]):
        return float("nan")
    return float(_frequency_stats(share0, counts).ttest_mean(1.0 / n)[1])


def _frequency_stats(x: np.ndarray, counts: np.ndarray):
    """``x[i]`` repeated ``counts[i]`` times, as statsmodels' descriptive statistics
    (frequency weights, sample variance with ddof = 1: the statistics of the games written out)."""
    from statsmodels.stats.weightstats import DescrStatsW

    return DescrStatsW(np.asarray(x, np.float64), weights=np.asarray(counts, np.float64), ddof=1)


def _weighted_mean_sem(x: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of ``x[i]`` repeated ``counts[i]`` times."""
    d = _frequency_stats(x, counts)
    return float(d.mean), float(d.std_mean)


#: fpa.csv: the seat table of ``experiments.tables.seat_table`` per player count (the report's
#: seat advantage is the same function on the same tally, counted from the stored rows)
FPA_COLUMNS = ["players", "seat", "games", "wins", "shared_wins", "win_rate", "ci_low", "ci_high", "win_share",
               "share_low", "share_high", "fair"]


def summarize(study: Study, collector: Collector) -> dict[str, pd.DataFrame]:
    rows, tests = [], []
    for config in study.configs:
        n = config.players
        w, c = collector.win_patterns(n)
        decided = int(c.sum())
        seat = tables.seat_table(c, n)
        seat.insert(0, "players", n)
        rows.append(seat[FPA_COLUMNS])
        share = win_shares(w)
        sole, shared_games = tables.seat_sole_wins(c, n)
        chi2, p = (np.nan, np.nan)
        if sole.sum():
            chi2, p = stats.seat_equality_test(sole)
        test = {"players": n, "games": collector.games.get(n, 0), "decided": decided,
                "truncated": collector.truncated.get(n, 0), "sole_wins": int(sole.sum()),
                "shared": shared_games, "chi2": chi2, "p_equal_seats": p,
                "p_first_vs_fair": first_vs_fair(share[:, 0], n, c)}
        if decided >= 2:
            diff, se_paired = _weighted_mean_sem(w[:, 0] - w[:, n - 1], c)
            se_first, se_last = _weighted_mean_sem(w[:, 0], c)[1], _weighted_mean_sem(w[:, n - 1], c)[1]
            test.update({"first_minus_last": diff, "se_paired": se_paired,
                         "se_unpaired": math.sqrt(se_first ** 2 + se_last ** 2)})
        tests.append(test)
    tests_df = pd.DataFrame(tests)
    reject, adjusted = stats.adjust_pvalues(tests_df["p_equal_seats"].to_numpy(), method="holm")
    tests_df["p_holm"] = adjusted
    tests_df["unequal"] = reject
    out = {"fpa": pd.concat(rows, ignore_index=True), "fpa_tests": tests_df}
    moon = moon_position_table(collector.moon)
    if moon is not None:
        out["fpa_moon_positions"] = moon
    return out


def format_tables(study: Study, collector: Collector, tables: dict[str, pd.DataFrame]) -> str:
    c0 = study.configs[0]
    lines = [f"{c0.info.title} first-player advantage: {study.meta['bot']} in every seat, "
             f"players {', '.join(map(str, study.meta['players']))}, {study.games} games each, seed {study.seed}"]
    if collector.first_col:
        lines.append(f"seat = position counted from the game's first player ({collector.first_col}, "
                     f"drawn at random by the game and recorded in the results), not the seat number")
    elif c0.info.first_player_column:
        lines.append(f"note: {c0.info.title} draws its first player at random and these results do not record "
                     "it, so seats here are seat numbers, not positions (expect no advantage)")
    else:
        lines.append("seat 0 plays first")
    fpa = tables["fpa"].copy()
    fpa["ci"] = [f"[{a:.4f}, {b:.4f}]" for a, b in zip(fpa["ci_low"], fpa["ci_high"])]
    fpa["share ci"] = [f"[{a:.4f}, {b:.4f}]" for a, b in zip(fpa["share_low"], fpa["share_high"])]
    lines.append(fpa[["players", "seat", "games", "wins", "shared_wins", "win_rate", "ci", "win_share", "share ci",
                      "fair"]]
                 .to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    trunc = int(tables["fpa_tests"]["truncated"].sum())
    if trunc:  # the header's games per player count include them
        lines.append(f"games: the decided games each rate is over; the {trunc} truncated game(s) (below, "
                     "by player count) are left out of the rates")
    if int(fpa["shared_wins"].sum()):
        lines.append("shared wins count as a win for every sharer (in `wins`, and on their own in "
                     "`shared_wins`), so a player count's win rates add up to more than 1; `win_share` splits "
                     "each shared win among its sharers and is the figure to hold against the fair 1/n")
    lines.append("")
    lines.append("equal seats (chi-square on the games one seat won alone, `sole_wins`: exactly multinomial under "
                 "equal seats; the `shared` games are left out of it; Holm-adjusted over player counts); seat 0's win "
                 "share vs 1/n (t-test); first minus last seat's win rate on the same games with its paired SE "
                 "(the seats compete in each game, so pairing widens it) and the unpaired one:")
    cols = [c for c in ("players", "decided", "truncated", "sole_wins", "shared", "chi2", "p_equal_seats", "p_holm", "p_first_vs_fair",
                        "first_minus_last", "se_paired", "se_unpaired") if c in tables["fpa_tests"]]
    lines.append(tables["fpa_tests"][cols].to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    if trunc:
        from .results import truncation_option

        opt = truncation_option(c0.info)
        lines.append(f"truncated games (stopped by {opt}={c0.variant.get(opt)}) have no winner and are left out")
    moon = tables.get("fpa_moon_positions")
    if moon is not None:
        lines.append("")
        lines.append("Moon by bidding position (0 = first to bid in the hand): points per played hand, "
                     "contracts won and make rate:")
        lines.append(moon.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    return "\n".join(lines)
