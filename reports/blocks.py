"""The pieces of a report section: a block (heading, text, figure, caption, table) and the
HTML tables with their 95% intervals written out as the CLI writes them."""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import balance as B

NEVER = "never happened in these games"  # the bots chose otherwise, or the rules forbid it


def whole_or_decimal(x) -> str:
    """A median (or any statistic) of an integer quantity: '225', not '225.000'; a
    half-way median '224.5'."""
    if x != x:
        return "n/a"
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"


def table(df: pd.DataFrame, pct: dict | None = None) -> str:
    """An HTML table; ``pct`` maps a label to (estimate, low, high[, as percent]) column
    names shown as 'p% [lo, hi]'.  Medians (of integer quantities) print as integers."""
    df = df.copy()
    for label, spec in (pct or {}).items():
        m, lo, hi = spec[:3]
        as_pct = spec[3] if len(spec) > 3 else True
        df[label] = [B.ci_text((a, b, c), pct=as_pct) for a, b, c in zip(df[m], df[lo], df[hi])]
        df = df.drop(columns=[m, lo, hi])
    formatters = {c: whole_or_decimal for c in df.columns if str(c).startswith("median")}
    return df.to_html(index=False, float_format=lambda x: f"{x:.3f}", formatters=formatters, border=0, escape=True)


def table_with_never(df: pd.DataFrame, pct: dict, count: str = "contracts") -> str:
    """``table`` with the rows whose ``count`` is 0 kept and their rate written out as
    never happening (a designer reads an absent row as a missing one)."""
    df = df.copy()
    never = df[count].to_numpy() == 0
    for label, spec in pct.items():
        df.loc[never, list(spec[:3])] = np.nan
    return table(df, pct).replace("<td>n/a</td>", f"<td>{NEVER}</td>")


def block(heading=None, text=None, svg=None, caption="", table=None, alt=None) -> dict:
    """One block of a section.  ``svg`` is a figure from ``reports.plots`` (a plugin's
    section may give ``png``, base64 PNG, instead)."""
    return {"heading": heading, "text": text, "svg": svg, "png": None, "caption": caption, "table": table,
            "alt": alt or heading or caption}


def runs_text(n: int) -> str:
    return f"{n} run" if n == 1 else f"{n} runs"
