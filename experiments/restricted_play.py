"""Restricted play (Jaffe et al. 2012): what a kind of move is worth, from a tournament in
which a ``restricted`` bot (``bots/generic/restricted.py``) sits with the bot it restricts.

For each such pair of the tournament's ``pairwise`` table: the base's win rate minus the
restricted bot's on the same deals (a shared win counted half), its 95% interval and a
two-sided test of "no difference" from the paired standard error (normal, scipy.stats),
Holm-corrected over the restrictions of the tournament (statsmodels).  A gap whose
interval excludes 0 says the move matters to the base's play; one that does not, that
this sample cannot tell giving it up from keeping it; exactly 0 with no spread, that the
base never made the move in these games (so the rule, for these bots, changes nothing).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

RESTRICTED_PLAY = "restricted_play"
BASE_KEY, FORBID_KEY = "base", "forbid"
NAME = "restricted"


def restriction(label: str, game: str) -> tuple[str, str] | None:
    """(base label, forbidden kinds) of a restricted bot's label, or None for another bot
    (or the unrestricted control)."""
    name, *pairs = label.split(":")
    if name != NAME:
        return None
    given = dict(p.partition("=")[::2] for p in pairs)
    if FORBID_KEY not in given:
        return None
    from bots.generic.restricted import default_base

    return given.get(BASE_KEY) or default_base(game), given[FORBID_KEY]


def restricted_play(game: str, pairwise: pd.DataFrame) -> pd.DataFrame:
    """One row per (base, restricted bot) pair of ``pairwise`` (the tournament's table)."""
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests

    from .stats import alike_on_every_deal

    rows = []
    for r in pairwise.itertuples():
        for base, other, sign in ((r.bot_a, r.bot_b, 1.0), (r.bot_b, r.bot_a, -1.0)):
            got = restriction(other, game)
            if got is None or got[0] != base:
                continue
            diff, se = sign * float(r.win_rate_diff), float(r.se_paired)
            deals = int(getattr(r, "deals", 0))
            if se > 0:
                lo, hi = sps.norm.interval(0.95, loc=diff, scale=se)
                p = float(2 * sps.norm.sf(abs(diff) / se))
            elif se == 0:  # no spread: every deal gave the same difference
                lo = hi = diff
                # none (the base never made the move), or the same one on every deal
                p = 1.0 if diff == 0 else alike_on_every_deal(deals)
            else:  # one deal: its difference has no spread to test against
                lo = hi = p = float("nan")
            rows.append({"forbidden": got[1], "base": base, "restricted": other, "games": int(r.games),
                         "worth": diff, "ci_low": float(lo), "ci_high": float(hi), "p": p,
                         "never_made": bool(se == 0 and diff == 0)})
    table = pd.DataFrame(rows, columns=["forbidden", "base", "restricted", "games", "worth", "ci_low", "ci_high",
                                        "p", "never_made"])
    if len(table):
        table["p_holm"] = np.nan
        tested = table["p"].notna().to_numpy()
        if tested.any():
            table.loc[tested, "p_holm"] = multipletests(table["p"].to_numpy()[tested], method="holm")[1]
        table["verdict"] = [verdict(r) for r in table.itertuples()]
    return table


def verdict(r) -> str:
    if r.never_made:
        return "the base never made this move here"
    if r.p_holm != r.p_holm:
        return "too few deals to tell (one)"
    if r.p_holm < 0.05:
        return "matters" if r.worth > 0 else "giving it up helps"
    return "no measurable effect"


def format_table(table: pd.DataFrame) -> str:
    shown = table[["forbidden", "base", "games", "worth"]].copy()
    shown["95% CI"] = [f"[{a:+.4f}, {b:+.4f}]" for a, b in zip(table["ci_low"], table["ci_high"])]
    shown["p_holm"] = table["p_holm"]
    shown["verdict"] = table["verdict"]
    return ("restricted play (Jaffe et al. 2012: worth = the base's win rate minus the restricted bot's on the "
            "same deals, a shared win counted half; 95% normal interval from the paired SE; Holm over the "
            "restrictions):\n" + shown.to_string(index=False, float_format=lambda x: f"{x:+.4f}"))


def sentence(title: str, r) -> str:
    what = r.forbidden.replace("_", " ").replace("+", " and ")
    if r.never_made:
        return f"{title}: {r.base} never plays {what} in these games, so giving it up changes nothing"
    spread = (f"95% interval {r.ci_low * 100:+.1f} to {r.ci_high * 100:+.1f} points" if r.ci_low == r.ci_low
              else "no interval from one deal")
    return (f"{title}: a {r.base} player that never plays {what} wins "
            f"{abs(r.worth) * 100:.1f} points {'less' if r.worth > 0 else 'more'} often than one that does "
            f"({spread}; {r.verdict})")
