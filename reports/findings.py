"""Findings a designer acts on: each one a claim with its effect size, 95% interval, test and
p-value, and the bots and settings it holds for; ranked by effect size with the p-values
Holm-corrected across the whole report, so the page can show the top ten and fold the rest.

Use::

    from reports.findings import Finding, rank_findings

    found = [Finding(text="seat 0 wins 56.8% [49.8, 63.4] of 2-player games (fair 50%)",
                     effect=0.068, ci_low=-0.002, ci_high=0.134, p=0.057,
                     test="chi-square on sole wins", bots=("greedy",), settings=("end_trigger=6",),
                     study="stones-fpa", unit="proportion"), ...]
    ranked = rank_findings(found, top=10)
    ranked.top      # at most ten RankedFinding, the largest effects that hold after Holm
    ranked.rest     # every other finding, in rank order (the page folds them)
    ranked.table()  # one row per finding: what the page's table of findings shows

Effect sizes are compared across the report, so give every finding its effect on one scale:
a difference of proportions (a win share minus 1/n, a make rate minus another) as a
proportion, a change of an unbounded quantity (turns, points) relative to its reference
(diff / baseline).  ``unit`` says which, for the reader.  A finding with no test (``p`` nan)
is shown among the rest and kept out of the Holm family.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from experiments import stats, tables

__all__ = ["Finding", "RankedFinding", "RankedFindings", "rank_findings", "seat_findings", "sweep_findings", "TOP"]

#: findings shown on top of the report; the rest are one click away
TOP = 10


@dataclass(frozen=True)
class Finding:
    """One claim of the report.

    ``text``: the sentence, with its figure and interval, as the designer reads it.
    ``effect``: its size on the report's common scale (see the module docstring), signed;
    ``ci_low``/``ci_high``: the 95% interval of ``effect``.  ``p``: the unadjusted p-value of
    ``test`` (the test's name, e.g. "chi-square on sole wins"), nan when nothing was tested.
    ``bots``: the bots it holds for; ``settings``: the full settings (every varied option,
    "bonus=2, skip=1") it holds for, empty for a study's one configuration.  ``study`` names the
    study it comes from; ``unit`` the scale of ``effect``.  ``question``: what it answers
    regardless of the bots (e.g. (game, "seat", players, setting)); findings of one question
    under different bots are compared, so the page can say whether a finding holds under every
    bot the report studied it with or under one only.
    """

    text: str
    effect: float
    ci_low: float
    ci_high: float
    p: float
    test: str
    bots: tuple[str, ...]
    settings: tuple[str, ...] = ()
    study: str = ""
    unit: str = "proportion"
    question: tuple = ()

    def __post_init__(self):
        if not self.text:
            raise ValueError("a finding needs its text")
        if not self.bots:
            raise ValueError(f"finding {self.text!r}: name the bots it holds for")
        if isinstance(self.bots, str) or isinstance(self.settings, str):
            raise TypeError("bots and settings are tuples of names, not one string")
        if math.isnan(self.effect):
            raise ValueError(f"finding {self.text!r}: its effect is nan")
        if not (math.isnan(self.p) or 0.0 <= self.p <= 1.0):
            raise ValueError(f"finding {self.text!r}: p = {self.p} is not a probability")
        if self.ci_low == self.ci_low and self.ci_high == self.ci_high and not \
                self.ci_low <= self.effect <= self.ci_high:
            raise ValueError(f"finding {self.text!r}: effect {self.effect} lies outside its interval "
                             f"[{self.ci_low}, {self.ci_high}]")

    @property
    def only_one_bot(self) -> bool:
        """It holds under one bot only (say so: it may be that bot's play, not the game)."""
        return len(set(self.bots)) == 1

    @property
    def tested(self) -> bool:
        return not math.isnan(self.p)


@dataclass(frozen=True)
class RankedFinding:
    """A finding with its place in the report: ``rank`` (1 = the largest effect that holds),
    ``p_holm`` (Holm-adjusted over every tested finding of the report; nan when untested) and
    ``holds`` (p_holm below alpha)."""

    finding: Finding
    rank: int
    p_holm: float
    holds: bool
    #: the bot sets (each as "a, b") the report answered this finding's question with, and
    #: those under which it holds; just this finding's own when it has no question
    studied_under: tuple[str, ...] = ()
    held_under: tuple[str, ...] = ()

    @property
    def scope(self) -> str:
        """Which bots the finding holds for, in words: a finding one bot's play gives may be
        that bot's, not the game's."""
        f = self.finding
        own = ", ".join(f.bots)
        if len(self.studied_under) <= 1:
            return f"studied under {own} only" if f.only_one_bot else ""
        if not self.holds:
            return ""
        others = [b for b in self.studied_under if b not in self.held_under]
        if not others:
            return f"holds under every bot studied ({'; '.join(self.studied_under)})"
        # not significant under the others is no evidence that the effect differs there (the
        # by-bot homogeneity tests of fpa/sweep --bots … test that)
        return (f"significant under {'; '.join(self.held_under)}, not significant under {'; '.join(others)}, "
                "which does not show that it differs between them")

    def sentence(self) -> str:
        """The text with its test and what it holds for, as the page prints it."""
        f = self.finding
        if f.tested:
            test = f"{f.test}, Holm-adjusted p = {self.p_holm:.3g}" + ("" if self.holds else ", not significant")
        else:
            test = "not tested"
        where = f"bots: {', '.join(f.bots)}" + (f"; settings: {'; '.join(f.settings)}" if f.settings else "")
        scope = f"; {self.scope}" if self.scope else ""
        return f"{f.text} ({test}; {where}{scope})"


@dataclass
class RankedFindings:
    top: list[RankedFinding] = field(default_factory=list)
    rest: list[RankedFinding] = field(default_factory=list)

    def table(self) -> pd.DataFrame:
        """One row per finding in rank order, ``shown`` True for the top ones."""
        rows = []
        for shown, group in ((True, self.top), (False, self.rest)):
            for r in group:
                f = r.finding
                rows.append({"rank": r.rank, "shown": shown, "text": f.text, "effect": f.effect, "ci_low": f.ci_low,
                             "ci_high": f.ci_high, "unit": f.unit, "test": f.test, "p": f.p, "p_holm": r.p_holm,
                             "holds": r.holds, "bots": ", ".join(f.bots), "settings": "; ".join(f.settings),
                             "only_one_bot": f.only_one_bot, "scope": r.scope, "study": f.study})
        return pd.DataFrame(rows)


def rank_findings(findings, top: int = TOP, alpha: float = 0.05) -> RankedFindings:
    """Rank every finding of a report.

    The p-values of the tested findings form one family, Holm-corrected by statsmodels
    ``multipletests`` (``experiments.stats.adjust_pvalues``): a finding *holds* when its
    adjusted p is below ``alpha``.  Order: the findings that hold by |effect|, largest first;
    then the rest (tested but not holding, then untested) by |effect|.  Ties keep the given
    order.  ``top``: how many of the holding findings go on top (at most; never one that does
    not hold); every other finding is in ``rest``, in rank order."""
    findings = list(findings)
    if top < 0:
        raise ValueError("top must be >= 0")
    p = np.array([f.p for f in findings], dtype=float)
    reject, adjusted = stats.adjust_pvalues(p, method="holm", alpha=alpha) if len(p) else (np.zeros(0, bool),
                                                                                          np.zeros(0))
    group = [0 if reject[i] else (1 if findings[i].tested else 2) for i in range(len(findings))]
    order = sorted(range(len(findings)), key=lambda i: (group[i], -abs(findings[i].effect), i))
    studied: dict = {}
    held: dict = {}
    for i, f in enumerate(findings):
        q = f.question or ("finding", i)
        label = ", ".join(f.bots)
        studied.setdefault(q, {})[label] = None  # dicts keep the report's order
        if reject[i]:
            held.setdefault(q, {})[label] = None
    out = RankedFindings()
    for rank, i in enumerate(order, start=1):
        q = findings[i].question or ("finding", i)
        r = RankedFinding(findings[i], rank, float(adjusted[i]), bool(reject[i]), tuple(studied[q]),
                          tuple(held.get(q, {})))
        (out.top if r.holds and len(out.top) < top else out.rest).append(r)
    return out


SEAT_TEST = tables.SEAT_TEST


def seat_findings(adv: pd.DataFrame, study: str, title: str, word: str = "seat") -> list[Finding]:
    """One finding per player count (and sweep setting) of a ``reports.balance.seat_advantage``
    table: the position furthest from 1/n, its advantage (win share - 1/n, a proportion) with
    its interval, tested by the table's ``test`` (the chi-square of equal seats on sole wins,
    the p-value ``fpa``/``sweep`` print; over deals in a tournament, whose seatings replay each
    deal).  ``title``: the game's title; ``word``: "seat" or "position"."""
    out = []
    if not len(adv):
        return out
    keys = ["players"] + (["setting"] if "setting" in adv else [])
    for _, part in adv.groupby(keys, sort=False):
        r = part.loc[part["advantage"].abs().round(12).idxmax()]  # a tie (2 players): the first position
        setting = str(r["setting"]) if "setting" in part and r["setting"] else ""
        where = f" ({setting})" if setting else ""
        text = (f"{title} ({study}): {word} {int(r['position'])} at {int(r['players'])} players{where} takes a "
                f"win share of {100 * r['win_share']:.1f}% [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}] "
                f"(a shared win split among its winners), fair {100 / r['players']:.1f}%")
        out.append(Finding(text=text, effect=float(r["advantage"]), ci_low=float(r["adv_low"]),
                           ci_high=float(r["adv_high"]), p=float(r["p_equal_seats"]), test=str(r.get("test", SEAT_TEST)),
                           bots=tuple(str(r["bots"]).split(", ")), settings=(setting,) if setting else (),
                           study=study, question=(title, word, int(r["players"]), setting)))
    return out


PAIRED_TEST = "paired t-test against the baseline on the same deals"
_PROPORTIONS = ("truncated",)  # metrics that are shares already (seat and bot shares by prefix)


def sweep_findings(tests: pd.DataFrame, study: str, title: str, bots: tuple[str, ...],
                   positions: bool = False) -> list[Finding]:
    """One finding per tested row of a sweep's ``sweep_tests`` table (its untested rows stay
    out: nothing to claim).  Shares (a seat's or a bot's win share, the truncated share) keep
    their difference as the effect, a proportion; turns, decisions and margin are relative to
    the baseline (diff / baseline), so they rank on one scale with the shares.  The interval is
    the paired t interval of the difference, scaled alike; ``p`` the unadjusted paired p
    (rank_findings corrects across the report).  ``positions``: the game's seat table is by
    position from the first player (Moon's bidding order), so a seat here says it is the seat
    number."""
    import re

    from scipy import stats as sps

    out = []
    if not len(tests) or "tested" not in tests:
        return out
    for r in tests[tests["tested"].astype(bool)].itertuples():
        m = str(r.metric)
        share = m.startswith(("seat", "win:")) or m in _PROPORTIONS
        half = float(sps.t.ppf(0.975, max(int(r.pairs) - 1, 1)) * r.se_paired)
        scale = 1.0 if share else (abs(r.baseline_value) or float("nan"))
        if scale != scale:
            continue  # a relative change of a zero baseline has no size
        effect = r.diff / scale
        seat = re.fullmatch(r"seat_?(\d+)_share", m)
        what = {"turns": "turns per game", "decisions": "decisions per game", "margin": "winner's margin",
                "truncated": "truncated share"}.get(m, m.replace("win:", "win share of "))
        if seat:
            what = f"win share of seat {seat.group(1)}" + (" (the seat number, not the position from the first "
                                                          "player)" if positions else "")
        if share:
            size = f"{100 * r.diff:+.1f} points [{100 * (r.diff - half):+.1f}, {100 * (r.diff + half):+.1f}]"
        else:
            size = (f"{r.diff:+.2f} [{r.diff - half:+.2f}, {r.diff + half:+.2f}] "
                    f"({100 * effect:+.1f}% of the baseline's {r.baseline_value:.2f})")
        out.append(Finding(text=f"{title} ({study}): {r.setting} changes the {what} by {size}",
                           effect=float(effect), ci_low=float((r.diff - half) / scale),
                           ci_high=float((r.diff + half) / scale), p=float(r.p), test=PAIRED_TEST, bots=tuple(bots),
                           settings=(str(r.setting),), study=study,
                           unit="proportion" if share else "relative to the baseline",
                           question=(title, "sweep", str(r.setting), m)))
    return out
