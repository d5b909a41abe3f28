"""The same study under several bots: does the answer change with skill?

`playlab fpa` and `playlab sweep` take ``--bots`` more than once (or ``--ladder``: one bot
per measured skill level, ``bots.ladder.study_bots``).  Each bot's study is an ordinary
study of its own (in ``OUT/<bot>/`` with ``--out``: resumable, verified, read by the report);
this module sets their tables side by side and tests whether they differ.

- fpa: per player count, the first position's win rate (Wilson interval) and win share
  under each bot, and a chi-square test of homogeneity (scipy ``chi2_contingency``) of the
  first position's share of the sole wins across the bots, Holm-adjusted over player counts.
  (Sole wins: the games one seat won alone, as in fpa's own seat test.)
- sweep: per setting and metric, each bot's paired difference from the baseline, and
  Cochran's Q test of homogeneity of those differences across the bots (statsmodels
  ``combine_effects``), Holm-adjusted over every (setting, metric) with a non-zero
  difference under some bot.

Every bot's study plays the same seeds, so the deals are shared; the tests treat the
bots' studies as independent samples, which is conservative when deals correlate the
answers (the usual case: a deal good for seat 0 tends to be good for it under each bot).
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from experiments import stats

FPA_BY_BOT = "fpa_by_bot"
FPA_BY_BOT_TESTS = "fpa_by_bot_tests"
SWEEP_BY_BOT = "sweep_by_bot"
SWEEP_BY_BOT_TESTS = "sweep_by_bot_tests"


def folder_name(label: str) -> str:
    """A bot label as a folder name (``mcts:iterations=400`` -> ``mcts_iterations=400``)."""
    name = re.sub(r"[^A-Za-z0-9=._-]+", "_", label).strip("_.")
    return name or "bot"


def folder_names(labels: list[str]) -> list[str]:
    names = [folder_name(x) for x in labels]
    if len(set(names)) != len(names):
        raise ValueError(f"--bots {', '.join(labels)}: give each bot once")
    return names


def _holm(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=float)
    ok = ~np.isnan(p)
    reject, adjusted = np.zeros(len(p), bool), np.full(len(p), np.nan)
    if ok.any():
        r, a = stats.adjust_pvalues(p[ok], method="holm")
        reject[ok], adjusted[ok] = r, a
    return reject, adjusted


def fpa_by_bot(tables: dict[str, dict[str, pd.DataFrame]], levels: dict[str, str | None]) -> dict[str, pd.DataFrame]:
    """``tables``: bot label -> that bot's fpa tables (``experiments.fpa.summarize``)."""
    from scipy.stats import chi2_contingency

    rows, tests = [], []
    counts = sorted({int(n) for t in tables.values() for n in t["fpa"]["players"]})
    for n in counts:
        table = []
        for bot, t in tables.items():
            fpa = t["fpa"][t["fpa"]["players"] == n]
            first = fpa[fpa["seat"] == 0].iloc[0]
            sole_all = int((fpa["wins"] - fpa["shared_wins"]).sum())
            sole_first = int(first["wins"] - first["shared_wins"])
            test = t["fpa_tests"][t["fpa_tests"]["players"] == n].iloc[0]
            rows.append({"players": n, "bot": bot, "level": levels.get(bot) or "", "games": int(first["games"]),
                         "first_win_rate": float(first["win_rate"]), "ci_low": float(first["ci_low"]),
                         "ci_high": float(first["ci_high"]), "first_win_share": float(first["win_share"]),
                         "fair": float(first["fair"]), "p_equal_seats_holm": float(test["p_holm"])})
            table.append([sole_first, sole_all - sole_first])
        # a bot without a sole win at this count (every game truncated or shared) tells
        # nothing of where wins go: it is left out of the test (a zero row has no expectation)
        table = np.array(table).reshape(-1, 2)
        table = table[table.sum(axis=1) > 0]
        chi2, p = np.nan, np.nan
        if len(table) > 1 and (table.sum(axis=0) > 0).all():
            chi2, p, _, _ = chi2_contingency(table, correction=False)
        shares = np.array([r["first_win_share"] for r in rows if r["players"] == n], float)
        shares = shares[~np.isnan(shares)]  # a bot without a decided game has no share
        tests.append({"players": n, "bots": len(table), "sole_wins": int(table.sum()), "chi2": chi2, "p": p,
                      "first_share_spread": float(shares.max() - shares.min()) if len(shares) else np.nan})
    tests = pd.DataFrame(tests)
    tests["changes_with_skill"], tests["p_holm"] = _holm(tests["p"].to_numpy())
    return {FPA_BY_BOT: pd.DataFrame(rows), FPA_BY_BOT_TESTS: tests}


def sweep_by_bot(tables: dict[str, dict[str, pd.DataFrame]], levels: dict[str, str | None]) -> dict[str, pd.DataFrame]:
    """``tables``: bot label -> that bot's sweep tables (``experiments.sweep.summarize``)."""
    from statsmodels.stats.meta_analysis import combine_effects

    frames = []
    for bot, t in tables.items():
        f = t["sweep_tests"].copy()
        f.insert(0, "bot", bot)
        f.insert(1, "level", levels.get(bot) or "")
        frames.append(f)
    rows = pd.concat(frames, ignore_index=True)
    keys = [c for c in rows.columns if c not in {"bot", "level", "value", "baseline_value", "pairs", "diff",
                                                  "se_paired", "se_unpaired", "p", "p_holm", "differs", "tested", "untested"}]
    tests = []
    for key, part in rows.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        d, se = part["diff"].to_numpy(float), part["se_paired"].to_numpy(float)
        rec = dict(zip(keys, key))
        rec.update({"bots": len(part), "diff_min": float(d.min()), "diff_max": float(d.max()), "q": np.nan, "p": np.nan})
        # a metric that no bot moves (zero difference, zero SE everywhere) has nothing to test
        if len(part) > 1 and (se > 0).all():
            res = combine_effects(d, se ** 2)
            q, p = res.test_homogeneity()[:2]
            rec.update({"q": float(q), "p": float(p)})
        tests.append(rec)
    tests = pd.DataFrame(tests)
    tests["changes_with_skill"], tests["p_holm"] = _holm(tests["p"].to_numpy())
    return {SWEEP_BY_BOT: rows, SWEEP_BY_BOT_TESTS: tests}


def format_fpa(tables: dict[str, pd.DataFrame]) -> str:
    rows = tables[FPA_BY_BOT].copy()
    rows["ci"] = [f"[{a:.4f}, {b:.4f}]" for a, b in zip(rows["ci_low"], rows["ci_high"])]
    lines = ["first position by bot (win rate with 95% Wilson interval; win share splits shared wins):",
             rows[["players", "bot", "level", "games", "first_win_rate", "ci", "first_win_share", "fair",
                   "p_equal_seats_holm"]].to_string(index=False, float_format=lambda x: f"{x:.4f}"),
             "",
             "does the first position's advantage change with the bot? (chi-square homogeneity of its share of "
             "the sole wins across the bots; Holm over player counts; the bots' studies share their deals, "
             "which makes the test conservative):",
             tables[FPA_BY_BOT_TESTS].to_string(index=False, float_format=lambda x: f"{x:.4g}")]
    return "\n".join(lines)


def format_sweep(tables: dict[str, pd.DataFrame]) -> str:
    tests = tables[SWEEP_BY_BOT_TESTS]
    lines = ["does each setting's effect change with the bot? (per setting and metric: the range of the bots' "
             "paired differences from the baseline; Cochran's Q homogeneity, Holm over the tested rows):",
             tests.to_string(index=False, float_format=lambda x: f"{x:.4g}")]
    return "\n".join(lines)
