"""Plots of study tables (matplotlib, written to files; no display needed)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)  # files only: never needs a display
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: str | Path) -> None:
    """Write the figure whole or not at all (a later run or a reader never sees half a
    PNG), then free it."""
    from experiments.store import write_atomically

    path = Path(path)
    try:
        write_atomically(path, lambda tmp: fig.savefig(tmp, dpi=110, format=path.suffix.lstrip(".") or "png"))
    finally:
        _pyplot().close(fig)


def ratings_plot(ratings: pd.DataFrame, path: str | Path, title: str = "") -> None:
    plt = _pyplot()
    r = ratings.sort_values("rating")
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * len(r) + 1.6))
    y = np.arange(len(r))
    err = np.vstack([r["rating"] - r["ci_low"], r["ci_high"] - r["rating"]])
    ax.errorbar(r["rating"], y, xerr=err, fmt="o", capsize=4)
    ax.set_yticks(y, r["bot"])
    ax.axvline(0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("rating (Elo scale, mean 0) with 95% bootstrap interval")
    ax.set_title(title)
    fig.tight_layout()
    _save(fig, path)


def pairwise_heatmap(pairwise: pd.DataFrame, path: str | Path, title: str = "") -> None:
    """Row bot's win rate against the column bot (games between them)."""
    plt = _pyplot()
    bots = sorted(set(pairwise["bot_a"]) | set(pairwise["bot_b"]))
    idx = {b: i for i, b in enumerate(bots)}
    m = np.full((len(bots), len(bots)), np.nan)
    for r in pairwise.itertuples():
        m[idx[r.bot_a], idx[r.bot_b]] = r.win_rate_a
        m[idx[r.bot_b], idx[r.bot_a]] = 1.0 - r.win_rate_a
    fig, ax = plt.subplots(figsize=(1.1 * len(bots) + 3, 1.0 * len(bots) + 2))
    im = ax.imshow(m, vmin=0, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(len(bots)), bots, rotation=30, ha="right")
    ax.set_yticks(range(len(bots)), bots)
    for i in range(len(bots)):
        for j in range(len(bots)):
            if m[i, j] == m[i, j]:
                ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center")
    fig.colorbar(im, ax=ax, label="win rate of row bot against column bot")
    ax.set_title(title)
    fig.tight_layout()
    _save(fig, path)


def fpa_plot(fpa: pd.DataFrame, path: str | Path, title: str = "", xlabel: str = "seat") -> None:
    """Win rate by seat (or position) per player count, with the fair line 1/n."""
    plt = _pyplot()
    counts = sorted(fpa["players"].unique())
    fig, axes = plt.subplots(1, len(counts), figsize=(2.6 * len(counts) + 1, 3.4), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], counts):
        t = fpa[fpa["players"] == n]
        err = np.vstack([t["win_rate"] - t["ci_low"], t["ci_high"] - t["win_rate"]])
        ax.bar(t["seat"], t["win_rate"], yerr=err, capsize=3, color="tab:blue", alpha=0.8,
               label="win rate (shared wins count)")
        if "win_share" in t:
            ax.plot(t["seat"], t["win_share"], "D", color="tab:orange", label="win share (shared split)")
        ax.axhline(1.0 / n, color="k", ls="--", lw=1, label="fair 1/n")
        ax.set_title(f"{n} players")
        ax.set_xticks(list(t["seat"]))
        ax.set_xlabel(xlabel)
    axes[0][0].set_ylabel("win rate (95% Wilson)")
    axes[0][0].legend(loc="upper right", fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    _save(fig, path)


def sweep_plot(summary: pd.DataFrame, labels: list[str], path: str | Path, title: str = "") -> None:
    """One panel per measure, one point per setting (the baseline marked)."""
    plt = _pyplot()
    panels = [("seat0_win_rate", "seat 0 win rate"), ("mean_turns", "turns"), ("mean_decisions", "decisions"),
              ("mean_margin", "winner - runner-up"), ("truncated_share", "truncated share")]
    panels += [(c, c.replace("win_rate:", "win rate ")) for c in summary.columns if c.startswith("win_rate:")]
    cols = 3
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    x = np.arange(len(summary))
    base = summary["baseline"].to_numpy(bool)
    for ax, (col, name) in zip(axes.flat, panels):
        y = summary[col].to_numpy(float)
        if col == "seat0_win_rate":
            err = np.vstack([y - summary["ci_low"], summary["ci_high"] - y])
            ax.errorbar(x, y, yerr=err, fmt="o", capsize=3, label="win rate")
            ax.plot(x, summary["seat0_share"], "D", color="tab:orange", label="win share")
            ax.axhline(summary["fair"].iloc[0], color="k", ls="--", lw=1, label="fair 1/n")
            ax.legend(fontsize="small")
        else:
            ax.plot(x, y, "o")
        ax.plot(x[base], y[base], "s", color="tab:red", label="baseline")
        ax.set_title(name)
        ax.set_xticks(x, labels, rotation=30, ha="right", fontsize="small")
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    _save(fig, path)
