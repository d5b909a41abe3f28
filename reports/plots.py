"""Every plot playlab draws (matplotlib; no display needed).

The commands' figures (``ratings_plot``, ``pairwise_heatmap``, ``fpa_plot``, ``sweep_plot``)
are written to files.  The report's figures (``forest``, ``groups_plot``, ``box_plot``,
``hist_plot``, ``scatter_cards``, ``spread_plot``) return inline SVG with its text left as
text (``svg.fonttype`` "none": small, sharp at any zoom, and measurable in a browser, which
tests/test_report.py does).  They are laid out without a second drawing pass: the margins
are computed from the sizes of the labels themselves (``_fit``) instead of ``tight_layout``,
which draws the whole figure once more (a third of a figure's cost), and their ticks are
drawn as a few plain artists (``_plain_ticks``) instead of matplotlib's five per tick.  While
a report is built they are deferred (``collecting``): each goes to a forked worker (one per
core) as soon as the page asks for it, so they are drawn while the rest of the page is
computed; a whole job (a study's section, ``in_workers``) can go to a worker too.
"""
from __future__ import annotations

import contextlib
import functools
import io
import math
import os
import re
import textwrap
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
    panels += [(c, c.replace("win_rate:", "win rate ")) for c in summary.columns
               if c.startswith("win_rate:") and not c.endswith((":low", ":high"))]  # those are its interval
    # each measure's 95% interval, as sweep.csv holds it beside the measure
    bounds = {"seat0_win_rate": ("ci_low", "ci_high"), "seat0_share": ("seat0_share_low", "seat0_share_high"),
              "mean_turns": ("turns_low", "turns_high"), "mean_decisions": ("decisions_low", "decisions_high"),
              "mean_margin": ("margin_low", "margin_high"), "truncated_share": ("trunc_low", "trunc_high")}

    def interval(col, y):
        lo, hi = bounds.get(col, (f"{col}:low", f"{col}:high"))  # a bot's win rate: win_rate:BOT:low
        if lo not in summary or hi not in summary:
            return None
        return np.vstack([y - summary[lo].to_numpy(float), summary[hi].to_numpy(float) - y])
    cols = 3
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    x = np.arange(len(summary))
    base = summary["baseline"].to_numpy(bool)
    for ax, (col, name) in zip(axes.flat, panels):
        y = summary[col].to_numpy(float)
        ax.errorbar(x, y, yerr=interval(col, y), fmt="o", capsize=3, label="win rate" if col == "seat0_win_rate" else None)
        if col == "seat0_win_rate":
            share = summary["seat0_share"].to_numpy(float)
            ax.errorbar(x + 0.12, share, yerr=interval("seat0_share", share), fmt="D", color="tab:orange", capsize=3,
                        label="win share")
            ax.axhline(summary["fair"].iloc[0], color="k", ls="--", lw=1, label="fair 1/n")
        ax.plot(x[base], y[base], "s", color="tab:red", label="baseline")
        ax.set_title(name)
        ax.set_xticks(x, labels, rotation=30, ha="right", fontsize="small")
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    # one legend for every panel, in a band of its own under the title: inside a panel it
    # covered points (where it lands depends on the data)
    handles, names = axes[0, 0].get_legend_handles_labels()
    top = 1 - 0.75 / fig.get_figheight()  # inches of the band, title and legend
    fig.suptitle(title, y=1 - 0.1 / fig.get_figheight(), va="top")
    fig.legend(handles, names, loc="lower center", bbox_to_anchor=(0.5, top), ncol=len(names),
               fontsize="small", frameon=False)
    fig.tight_layout(rect=(0, 0, 1, top))
    _save(fig, path)


# ==== the report's figures: inline SVG ===========================================================
# black and greys with marker shapes and line styles, so that they read in grey-scale and in print
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")
GREYS = ("black", "0.45", "0.7", "0.25", "0.55", "0.85")
LINES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 2)))
MAX_LINES_PER_PANEL = 4  # more step lines than this on one panel cannot be told apart: one panel each
FONT = "DejaVu Sans"  # matplotlib's own font; the SVG names it, so a browser draws the measured glyphs
STYLE = {"font.size": 9, "font.family": "sans-serif", "font.sans-serif": [FONT], "axes.grid": True,
         "grid.color": "0.88", "grid.linewidth": 0.6, "axes.axisbelow": True, "savefig.facecolor": "white",
         "svg.fonttype": "none", "legend.fontsize": "small",
         # a title at a fixed height: the automatic one measures the axis again on every draw
         "axes.titley": 1.0}
PT = 1 / 72  # inches per point


def _figure(w: float, h: float, nrows: int = 1, ncols: int = 1, **kw):
    """A bare ``Figure`` (no pyplot bookkeeping) with the report's style."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    matplotlib.rcParams.update(STYLE)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h))
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    return fig, axes


@functools.lru_cache(maxsize=None)
def _font():
    from matplotlib.font_manager import FontProperties, findfont, get_font

    return get_font(findfont(FontProperties(family=FONT)))


@functools.lru_cache(maxsize=4096)
def text_size(s: str, size: float) -> tuple[float, float]:
    """(width, height) in inches of ``s`` at ``size`` points, lines stacked as matplotlib
    stacks them (1.2 line spacing), measured from the font itself as Agg draws it."""
    font = _font()
    font.set_size(size, 72)
    widths = []
    for line in s.split("\n"):
        font.set_text(line or " ", 0.0)
        widths.append(font.get_width_height()[0] / 64)
    lines = s.count("\n") + 1
    # a browser's box of a line is its ascent + descent, about 1.17 em in DejaVu Sans
    return max(widths) * PT, size * 1.2 * lines * PT


def _size(text) -> float:
    return float(text.get_fontsize())


def _ticks(ax, which: str) -> list[tuple[float, str]]:
    """(position, label) of each tick the axis would draw (its major ticks within the view),
    formatted as the axis formats them (the formatter sees every location, as in a draw)."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    locs = list(axis.get_majorticklocs())
    if not locs:
        return []
    labels = axis.get_major_formatter().format_ticks(locs)
    lo, hi = sorted(axis.get_view_interval())
    span = (hi - lo) or 1.0
    return [(float(v), s) for v, s in zip(locs, labels) if lo - 1e-9 * span <= v <= hi + 1e-9 * span]


def _tick_labels(ax, which: str) -> list[str]:
    """The labels the axis will draw (its ticks within the view), without drawing it."""
    return [s for _, s in _ticks(ax, which) if s]


def _wrap_label(label, room: float, horizontal: bool) -> float:
    """Wrap an axis label (or title) onto more lines until it fits ``room`` inches; returns
    its height (its width when vertical) in inches across the text direction."""
    s = label.get_text()
    if not s:
        return 0.0
    size = _size(label)
    w, h = text_size(s, size)
    if w > room:
        words = s.replace("\n", " ")
        for width in range(len(words), 8, -4):
            wrapped = "\n".join(textwrap.wrap(words, width))
            w, h = text_size(wrapped, size)
            if w <= room:
                break
        label.set_text(wrapped)
    return h


def _ticks_extent(ax, which: str, rotation: float) -> tuple[float, float, float]:
    """(extent across the axis, overhang past the axes' first end, past its last end) of
    the tick labels in inches."""
    labels = _tick_labels(ax, which)
    size = float(STYLE["font.size"])  # tick labels are "medium": the font size
    if not labels:
        return 0.0, 0.0, 0.0
    sizes = [text_size(s, size) for s in labels]
    if which == "y":
        return max(w for w, _ in sizes), sizes[0][1] / 2, sizes[-1][1] / 2
    r = math.radians(rotation)
    across = max(w * math.sin(r) + h * math.cos(r) for w, h in sizes)
    if rotation:  # right-aligned: the labels hang out to the left
        return across, sizes[0][0] * math.cos(r), 0.0
    return across, sizes[0][0] / 2, sizes[-1][0] / 2


def _fit(fig, axes, rotation: float = 0.0, pad: float = 0.06) -> None:
    """Margins and spacing (inches) from the labels' sizes: tick labels, axis labels,
    titles and the figure title, each wrapped onto more lines when it is longer than its
    room; the figure grows wider when its y labels leave too little room for the plot.
    Twice: how many ticks an axis gets depends on its length, which the margins set."""
    for _ in range(2):
        _fit_once(fig, axes, rotation, pad)
    _plain_ticks(fig, axes, rotation)


TICK_LENGTH, TICK_PAD, LABEL_PAD = 3.5, 3.5, 4.0  # points: matplotlib's defaults, which _fit assumes


def _plain_ticks(fig, axes, rotation: float) -> None:
    """Draw each axis's ticks, tick labels and grid lines as a few plain artists and switch
    the axis's own ticks off.  matplotlib builds five artists per tick (two marks, a grid
    line, two labels) and lays every one out on each draw: about two thirds of the time a
    report figure takes to draw.  The artists here sit where matplotlib puts its own (the
    same lengths and pads, which ``_fit`` measured the margins by), and the axis labels are
    placed beyond the tick labels as matplotlib would place them.  Each label keeps
    matplotlib's group id (``xtick_N`` / ``ytick_N``) in the SVG."""
    import matplotlib
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.markers import TICKDOWN, TICKLEFT
    from matplotlib.ticker import NullLocator
    from matplotlib.transforms import ScaledTranslation

    rc = matplotlib.rcParams
    w, h = fig.get_size_inches()
    size = float(STYLE["font.size"])
    plan = []
    for ax in axes.flat:
        if not ax.get_visible() or not ax.axison:
            continue
        ax.set_xlim(ax.get_xlim())  # fixed now: nothing rescales an axis after its ticks are drawn
        ax.set_ylim(ax.get_ylim())
        plan.append((ax, _ticks(ax, "x"), _ticks(ax, "y"), ax.xaxis.get_tick_params(), ax.yaxis.get_tick_params()))
    for ax, *_ in plan:  # shared axes share one locator: every axis is read before any is switched off
        ax.xaxis.set_major_locator(NullLocator())
        ax.yaxis.set_major_locator(NullLocator())
    out = ScaledTranslation
    for ax, xt, yt, xp, yp in plan:
        pos = ax.get_position()
        cell_w, cell_h = pos.width * w, pos.height * h
        gap = (TICK_LENGTH + TICK_PAD) / 72
        grid = {"colors": rc["grid.color"], "linewidths": rc["grid.linewidth"], "zorder": 0.5}
        extent = {}
        for which, ticks, params in (("x", xt, xp), ("y", yt, yp)):
            tr = ax.get_xaxis_transform() if which == "x" else ax.get_yaxis_transform()
            locs = [v for v, _ in ticks]
            if params.get("gridOn") and locs:
                segs = [[(v, 0), (v, 1)] if which == "x" else [(0, v), (1, v)] for v in locs]
                ax.add_collection(LineCollection(segs, transform=tr, **grid), autolim=False)
            if locs and params.get("bottom" if which == "x" else "left", True):
                pts = ([locs, [0] * len(locs)] if which == "x" else [[0] * len(locs), locs])
                ax.add_line(Line2D(*pts, transform=tr, ls="none", marker=TICKDOWN if which == "x" else TICKLEFT,
                                   ms=TICK_LENGTH, mew=rc["xtick.major.width"], color="black", clip_on=False))
            shown = params.get("labelbottom" if which == "x" else "labelleft", True)
            labels = [(i, v, t) for i, (v, t) in enumerate(ticks) if t] if shown else []
            if which == "x":
                offset = tr + out(0, -gap, fig.dpi_scale_trans)
                kw = {"ha": "right" if rotation else "center", "va": "top", "rotation": rotation}
                extent["x"] = max((text_size(t, size)[0] * math.sin(math.radians(rotation))
                                   + text_size(t, size)[1] * math.cos(math.radians(rotation)) for _, _, t in labels),
                                  default=0.0)
            else:
                offset = tr + out(-gap, 0, fig.dpi_scale_trans)
                kw = {"ha": "right", "va": "center_baseline"}
                extent["y"] = max((text_size(t, size)[0] for _, _, t in labels), default=0.0)
            for i, v, t in labels:
                xy = (v, 0) if which == "x" else (0, v)
                ax.text(*xy, t, transform=offset, fontsize=size, clip_on=False, gid=f"{which}tick_{i + 1}", **kw)
        # the axis labels beyond the tick labels (matplotlib measures the drawn ones for this)
        ax.xaxis.set_label_coords(0.5, -(gap + extent["x"] + LABEL_PAD / 72) / cell_h)
        ax.yaxis.set_label_coords(-(gap + extent["y"] + LABEL_PAD / 72) / cell_w, 0.5)


def _fit_once(fig, axes, rotation: float, pad: float) -> None:
    w, h = fig.get_size_inches()
    nrows, ncols = axes.shape
    tick = (3.5 + 3.5) * PT  # tick length + pad (rcParams defaults)
    label_pad = 4 * PT
    lefts, bottoms, tops, rights = [], [], [], []
    for ax in axes.flat:
        if not ax.get_visible() or not ax.axison:
            continue
        ax.autoscale_view()
        yw, y0, y1 = _ticks_extent(ax, "y", 0)
        xh, x0, x1 = _ticks_extent(ax, "x", rotation)
        pos = ax.get_position()
        cell_w, cell_h = pos.width * w, pos.height * h
        ylab = _wrap_label(ax.yaxis.label, cell_h, horizontal=False)
        xlab = _wrap_label(ax.xaxis.label, cell_w, horizontal=True)
        title = _wrap_label(ax.title, cell_w + 0.5, horizontal=True)
        lefts.append(max(yw + tick + (ylab + label_pad if ylab else 0), x0) + pad)
        bottoms.append(max(xh + tick, y0) + (xlab + label_pad if xlab else 0) + pad)
        tops.append(max(title + 6 * PT if title else 0, y1) + pad)
        rights.append(max(x1, 0.1) + pad)
    if not lefts:
        return
    left, bottom, top, right = max(lefts), max(bottoms), max(tops), max(rights)
    sup = getattr(fig, "_suptitle", None)
    sup_h = _wrap_label(sup, w - 0.2, horizontal=True) + 6 * PT if sup is not None else 0.0
    if ncols == 1 and w - left - right < 3.0:  # long y labels: keep the plot readable
        w = left + right + 3.0
        fig.set_size_inches(w, h)
    inner_w = (w - ncols * (left + right)) / ncols
    inner_h = (h - sup_h - nrows * (top + bottom)) / nrows
    fig.subplots_adjust(left=left / w, right=1 - right / w, bottom=bottom / h, top=1 - (top + sup_h) / h,
                        wspace=(left + right) / max(inner_w, 0.5), hspace=(top + bottom) / max(inner_h, 0.5))
    if sup is not None:
        sup.set_y(1 - 0.04 / h)
        sup.set_va("top")


def _floor_span(ax, which: str = "y", ref=None, floor: float | None = None) -> None:
    """Keep an axis from zooming onto one point: at least ``floor`` (default a fifth of
    the largest magnitude shown, and 1) across, centred on the data, with ``ref`` inside."""
    get, put = (ax.get_ylim, ax.set_ylim) if which == "y" else (ax.get_xlim, ax.set_xlim)
    ax.autoscale_view()
    lo, hi = get()
    if ref is not None:
        lo, hi = min(lo, ref), max(hi, ref)
    need = floor if floor is not None else max(1.0, 0.2 * max(abs(lo), abs(hi)))
    if hi - lo < need:
        mid = (lo + hi) / 2
        lo, hi = mid - need / 2, mid + need / 2
    put(lo, hi)


_SALT = ["report"]
_SCOPE: list = []  # [salt prefix, figures drawn] while a job of in_workers runs


def _svg(fig) -> str:
    """The figure as an inline ``<svg>`` element: no XML prologue, no date, element ids
    turned into classes (a page holds many figures, and ids must be unique in it) except
    the clip paths', which are salted per figure."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": _SALT[0]}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    s = buf.getvalue()
    s = s[s.index("<svg"):]
    s = re.sub(r"\s*<metadata>.*?</metadata>", "", s, count=1, flags=re.S)
    s = s.replace('<g id="', '<g class="')
    return s.replace("<svg ", '<svg class="plot" ', 1)


# ---- deferring: figures drawn by forked workers while the page is laid out --------------------
_PENDING: "_Drawing | None" = None
TOKEN = "@@playlab-plot-{}@@"
TOKEN_RE = re.compile(r"@@playlab-plot-(\d+)@@")


def deferred(fn):
    """While ``collecting``, a call returns a placeholder and hands the figure to the
    drawing workers; otherwise it draws at once."""
    @functools.wraps(fn)
    def plot(*args, **kwargs):
        if _PENDING is None:
            if _SCOPE:  # within a job: the figure's salt from the job's scope and its count
                _SALT[0] = f"{_SCOPE[0]}{_SCOPE[1]}"
                _SCOPE[1] += 1
            return fn(*args, **kwargs)
        return TOKEN.format(_PENDING.add((fn.__name__, args, kwargs)))
    return plot


class _Drawing:
    """The figures of one report.  With two or more workers (one per core, or
    ``PLAYLAB_REPORT_WORKERS``) each figure goes to a forked worker as soon as the page asks
    for it, so the figures are drawn while the rest of the page is computed (drawing is about
    80% of a report's CPU); with one, or without ``fork``, they are drawn here at the end."""

    def __init__(self):
        import multiprocessing

        self.jobs: list = []
        self.futures: list = []
        self.pool = None
        workers = int(os.environ.get("PLAYLAB_REPORT_WORKERS") or os.cpu_count() or 1)
        if workers >= 2 and "fork" in multiprocessing.get_all_start_methods():
            from concurrent.futures import ProcessPoolExecutor

            _figure(1, 1)  # matplotlib imported and styled once here, inherited by the workers
            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                            initializer=_own_fonts)

    def add(self, job) -> int:
        index = len(self.jobs)
        self.jobs.append(job)
        if self.pool is not None:
            self.futures.append(self.pool.submit(_draw, (index, job)))
        return index

    def results(self) -> list[str]:
        if self.pool is None:
            return [_draw(j) for j in enumerate(self.jobs)]
        return [f.result() for f in self.futures]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def in_workers(scope: str, fn, *args):
    """``fn(*args)`` in a drawing worker while ``collecting`` (a future: the page's own work
    goes on meanwhile), else here; ``fn`` is a module-level function, and the figures it
    asks for are drawn where it runs, their clip-path ids salted ``scope`` + their number
    in the job (unique in the page, the same on every build).  The workers are forked at
    the first job, so they hold what the parent had read by then."""
    global _PENDING

    pool = _PENDING.pool if _PENDING is not None else None
    if pool is not None:
        return pool.submit(_scoped, scope, fn, args)
    from concurrent.futures import Future

    pending, _PENDING = _PENDING, None  # run here: its figures drawn at once, as in a worker
    try:
        result = _scoped(scope, fn, args)
    finally:
        _PENDING = pending
    done = Future()
    done.set_result(result)
    return done


def _scoped(scope: str, fn, args):
    _SCOPE[:] = [scope, 0]
    try:
        return fn(*args)
    finally:
        _SCOPE[:] = []


@contextlib.contextmanager
def collecting():
    """Within the block, report figures are placeholders; ``fill(text)`` afterwards puts
    the drawn SVGs in their places."""
    global _PENDING

    drawing = _Drawing()
    _PENDING = drawing
    try:
        yield lambda text: _fill(text, drawing)
    finally:
        _PENDING = None
        drawing.close()


def _fill(text: str, drawing: "_Drawing") -> str:
    global _PENDING

    _PENDING = None
    svgs = drawing.results()
    return TOKEN_RE.sub(lambda m: svgs[int(m.group(1))], text)


def _draw(job) -> str:
    index, (name, args, kwargs) = job
    _SALT[0] = f"f{index}"  # clip-path ids unique within the page, the same on every build
    return globals()[name].__wrapped__(*args, **kwargs)


def _own_fonts() -> None:
    """A forked worker opens its own font files: FreeType reads a face through its file's
    offset, which a forked copy shares with its parent and siblings ("failed to load glyph")."""
    from matplotlib import font_manager

    global _PENDING
    _PENDING = None  # a figure drawn here draws at once, never deferred again
    _font.cache_clear()
    text_size.cache_clear()
    font_manager._get_font.cache_clear()


def _set_ticks(axis, locs, labels=None) -> None:
    """``Axes.set_xticks``/``set_yticks`` without building the axis's tick artists (it returns
    them, so builds one per location; ``_plain_ticks`` draws the ticks instead): fixed
    locations (the view widened to them, as ``set_ticks`` does), and fixed labels if given."""
    from matplotlib.ticker import FixedFormatter, FixedLocator

    locs = [float(v) for v in locs]
    if locs:
        axis.set_view_interval(min(locs), max(locs))
    axis.set_major_locator(FixedLocator(locs))
    if labels is not None:
        axis.set_major_formatter(FixedFormatter([str(s) for s in labels]))


def _errorbars(ax, x, y, lo, hi, vertical: bool, **kw):
    """Points with 95% intervals (a Wilson bound at 0 or 1 can sit a rounding error beyond
    the estimate, hence the clip)."""
    x, y, lo, hi = (np.asarray(v, float) for v in (x, y, lo, hi))
    err = np.clip([y - lo, hi - y], 0, None)
    if vertical:
        return ax.errorbar(x, y, yerr=err, **kw)
    return ax.errorbar(y, x, xerr=err, **kw)


@deferred
def forest(labels, est, lo, hi, ref, xlabel, title, ref_label="fair", xlim=None):
    """Point and 95% interval per row, with the reference line: one message per plot (how
    far each row is from the reference).  ``xlim``: a fixed axis (a share's 0-100), else one
    fitted to the rows."""
    fig, axes = _figure(7.0, max(2.4, 0.28 * len(labels) + 1.3))
    ax = axes[0, 0]
    y = np.arange(len(labels))[::-1]
    _errorbars(ax, y, est, lo, hi, vertical=False, fmt="o", color="black", ecolor="0.3", capsize=3, ms=4,
               label="estimate, 95% interval")
    ax.axvline(ref, color="0.4", ls="--", lw=1, label=ref_label)
    _set_ticks(ax.yaxis, y, labels)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    if xlim is None:
        _floor_span(ax, "x", ref=ref)
    else:
        ax.set_xlim(*xlim)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="best")
    _fit(fig, axes)
    return _svg(fig)


@deferred
def groups_plot(groups: dict, xlabel, ylabel, title, ref=None, ref_label=None, xticklabels=None):
    """Several series (one per group: marker and grey) of points with 95% intervals over
    a shared x; ``groups[name] = (x, est, lo, hi)``."""
    fig, axes = _figure(7.0, 3.4)
    ax = axes[0, 0]
    width = 0.6 / max(len(groups), 1)
    for i, (name, (x, est, lo, hi)) in enumerate(groups.items()):
        xs = np.asarray(x, float) + (i - (len(groups) - 1) / 2) * width
        _errorbars(ax, xs, est, lo, hi, vertical=True, fmt=MARKERS[i % len(MARKERS)], color=GREYS[i % len(GREYS)],
                   mec="black", ecolor="0.3", capsize=3, ms=5, ls="none", label=str(name))
    if ref is not None:
        ax.axhline(ref, color="0.4", ls="--", lw=1, label=ref_label)
    rotation = 0.0
    if xticklabels is not None:
        xticklabels = [str(s) for s in xticklabels]
        rotation = _xtick_rotation(xticklabels, 7.0 - 1.2)
        _set_ticks(ax.xaxis, range(len(xticklabels)), xticklabels)  # rotated by _fit, which draws them
        ax.set_xlim(-0.6, len(xticklabels) - 0.4)
    _floor_span(ax, "y", ref=ref)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(loc="best")
    _fit(fig, axes, rotation)
    return _svg(fig)


def _xtick_rotation(labels: list[str], room: float) -> float:
    """0 when the labels fit side by side in their slots, else 35 degrees (and wider
    labels wrap onto lines by the caller's data, not here)."""
    slot = room / max(len(labels), 1)
    widest = max((text_size(s, STYLE["font.size"])[0] for s in labels), default=0.0)
    return 0.0 if widest <= 0.9 * slot else 35.0


@deferred
def box_plot(panels: dict, xlabel, ylabel, title):
    """Box plots of the series of each panel (``panels[title][label] = values``; one panel
    titled "" draws as a plain figure), the panels side by side on a shared y."""
    titles = list(panels)
    cols = 1 if len(titles) == 1 else 2
    rows = (len(titles) + cols - 1) // cols
    fig, axes = _figure(7.0, 3.2 if rows == 1 else 2.3 * rows + 0.7, rows, cols, sharey=True)
    rotation = 0.0
    for ax, name in zip(axes.flat, titles):
        series = panels[name]
        labels = [str(n) for n in series]
        values = list(series.values())
        ax.boxplot(values, showfliers=False, whis=(2.5, 97.5), widths=0.5,
                   medianprops={"color": "black", "lw": 1.5}, boxprops={"color": "0.3"})
        means = [float(np.mean(v)) if len(v) else np.nan for v in values]
        ax.plot(range(1, len(labels) + 1), means, "D", color="white", mec="black", ms=5, label="mean")
        rotation = max(rotation, _xtick_rotation(labels, 7.0 / cols - 1.2))
        _set_ticks(ax.xaxis, range(1, len(labels) + 1), labels)
        if name:
            ax.set_title(name, fontsize=9)
    for ax in axes.flat[len(titles):]:
        ax.set_visible(False)
    for i, ax in enumerate(axes.flat[:len(titles)]):
        if i // cols == rows - 1 or i + cols >= len(titles):
            ax.set_xlabel(xlabel)
        if i % cols == 0:
            ax.set_ylabel(ylabel)
    axes.flat[0].legend()
    head = title + "\n(box: quartiles; whiskers: 2.5th-97.5th percentile)"
    if len(titles) == 1 and not titles[0]:
        axes[0, 0].set_title(head, fontsize=9)
    else:
        fig.suptitle(head, fontsize=9)
    _fit(fig, axes, rotation)
    return _svg(fig)


def integer_bins(values: np.ndarray, max_bins: int = 60) -> np.ndarray:
    """Bin edges for an integer quantity: each bin holds the same number of whole values
    (edges halfway between integers), at most ``max_bins`` bins over the central 99%.
    When bins must hold several values, the width is the one (up to twice the least) whose
    histogram is smoothest: a quantity on a lattice (Moon's turns bunch at whole hands,
    about 25 apart) aliases into a sawtooth in bins of an incommensurate width."""
    lo, hi = np.percentile(values, [0.5, 99.5])
    lo, hi = math.floor(lo), math.ceil(hi)
    least = max(1, int(math.ceil((hi - lo + 1) / max_bins)))
    step = least
    if least > 1:
        v = np.asarray(values, np.int64)
        counts = np.bincount(v[(v >= lo) & (v <= hi)] - lo, minlength=hi - lo + 1).astype(float)
        # roughness against what counting noise alone gives (about 1 for a smooth histogram,
        # far above for a sawtooth); the narrowest width within a tenth of the smoothest
        scores = {}
        for width in range(least, 2 * least + 1):
            m = (len(counts) // width) * width
            if m < 4 * width:
                break
            binned = counts[:m].reshape(-1, width).sum(axis=1)
            noise = math.sqrt(6 * max(binned.sum(), 1.0) * len(binned))
            scores[width] = np.abs(np.diff(binned, 2)).sum() / noise
        if scores:
            best = min(scores.values())
            step = min(w for w, sc in scores.items() if sc <= 1.1 * best)
    return np.arange(lo, hi + step + 1, step) - 0.5


@deferred
def hist_plot(series: dict, xlabel, title):
    """Share of games per value of an integer quantity, one step line per series (line
    styles, not colours); more series than can be told apart get one panel each."""
    series = {str(k): np.asarray(v, float) for k, v in series.items()}
    allv = np.concatenate(list(series.values())) if series else np.zeros(0)
    per_panel = len(series) <= MAX_LINES_PER_PANEL
    n = 1 if per_panel else len(series)
    cols = 1 if per_panel else 2
    rows = (n + cols - 1) // cols
    fig, axes = _figure(7.0, 3.2 if per_panel else 1.9 * rows + 0.6, rows, cols, sharex=True, sharey=True)
    if len(allv):
        bins = integer_bins(allv)
        for i, (name, v) in enumerate(series.items()):
            ax = axes.flat[0 if per_panel else i]
            w = np.full(len(v), 1.0 / max(len(v), 1))
            ax.hist(v, bins=bins, weights=w, histtype="step", color=GREYS[i % 4] if per_panel else "black",
                    ls=LINES[i % len(LINES)] if per_panel else "-", lw=1.6, label=name)
            if not per_panel:
                ax.set_title(name, fontsize=9)
        if bins[1] - bins[0] == 1 and len(bins) <= 25:  # one bar per value: ticks on whole values
            axes.flat[0].xaxis.get_major_locator().set_params(integer=True)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for i, ax in enumerate(axes.flat[:n]):
        if i // cols == rows - 1:
            ax.set_xlabel(xlabel)
        if i % cols == 0:
            ax.set_ylabel("share of games per bin")
    if per_panel:
        axes[0, 0].set_title(title)
        if series:
            axes[0, 0].legend()
    else:
        fig.suptitle(title)
    _fit(fig, axes)
    return _svg(fig)


@deferred
def scatter_cards(cards: pd.DataFrame, title):
    """Each card's share of games it is scored in, and the mean round it is scored in,
    against its face value (jittered), 95% intervals."""
    fig, axes = _figure(8.4, 3.4, 1, 2)
    rng = np.random.default_rng(0)
    jitter = rng.uniform(-0.18, 0.18, len(cards))
    ax = axes[0, 0]
    _errorbars(ax, cards["points"] + jitter, cards["scored_rate"] * 100, cards["ci_low"] * 100,
               cards["ci_high"] * 100, vertical=True, fmt="o", color="black", ms=3, ecolor="0.5", capsize=0)
    _set_ticks(ax.xaxis, [1, 2, 3, 5])
    ax.set_xlabel("card face value (points)")
    ax.set_ylabel("games in which it is scored (%)")
    ax.set_title("how often each card is scored")
    ax = axes[0, 1]
    ok = (cards["scored"] > 1).to_numpy()
    c = cards[ok]
    _errorbars(ax, c["points"] + jitter[ok], c["mean_round"], c["round_low"], c["round_high"], vertical=True,
               fmt="s", color="0.4", mec="black", ms=3, ecolor="0.5", capsize=0)
    _set_ticks(ax.xaxis, [1, 2, 3, 5])
    ax.set_xlabel("card face value (points)")
    ax.set_ylabel("mean round when scored (rounds)")
    ax.set_title("how early it is scored")
    fig.suptitle(title + " (one point per card, 95% intervals)")
    _fit(fig, axes)
    return _svg(fig)


@deferred
def spread_plot(span, entropy, max_entropy: float, seatings: int):
    """Per deal under rotated seatings: the span of the bots' win rates and the entropy of
    the winner, as histograms of the deals."""
    fig, axes = _figure(8.4, 3.0, 1, 2)
    n = len(span)
    axes[0, 0].hist(span, bins=np.linspace(0, 1, 11), weights=np.full(n, 100 / n), color="0.6", edgecolor="black")
    axes[0, 0].set_xlabel("per-deal win-rate span (best bot minus worst, share of seatings)")
    axes[0, 0].set_ylabel("deals (%)")
    axes[0, 1].hist(entropy, bins=np.linspace(0, max_entropy, 11), weights=np.full(n, 100 / n), color="0.85",
                    edgecolor="black", hatch="//")
    axes[0, 1].set_xlabel(f"entropy of the deal's winner over seatings (bits, max {max_entropy:.2f})")
    axes[0, 1].set_ylabel("deals (%)")
    fig.suptitle(f"Does the deal or the bot decide? ({seatings} seatings per deal)")
    _fit(fig, axes)
    return _svg(fig)
