"""`playlab report DIR`: every study written into DIR (play --out, tournament, fpa, sweep)
turned into one self-contained HTML file a designer opens offline or prints.

Layout: what was run; a summary of findings, each with its 95% interval; per study the
seat advantage (forest plot against the fair line), win rates per bot and ratings, score
and length distributions and truncated games; the game's balance section (Moon: make
rate by bid, trump and widow use, moons, points by bidding position; Shifting Stones: each
card's scoring rate and timing against its value, value classes, the 1-point bonus,
skips; Sequence Stacks: chips by colour, blocked sequences, action cards, length by player
count); luck and skill where a tournament or several bots allow it.  Plots are PNG from
matplotlib's Agg backend embedded as data URIs, drawn in black and greys with marker
shapes so that they read in grey-scale and in print.  The page is written to a temporary
file and renamed, so a failure never leaves a partial report.
"""
from __future__ import annotations

import base64
import functools
import html
import io
import json
import math
import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from . import balance as B

STUDY_FILE = "study.json"
MARKERS = ("o", "s", "^", "D", "v", "P")
GREYS = ("black", "0.45", "0.7", "0.25", "0.55", "0.85")
LINES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 2)))


class ReportError(ValueError):
    pass


# ---- finding the studies ----------------------------------------------------------------
def discover(root: str | Path) -> list[B.StudyData]:
    """Every study under ``root``: a directory with ``study.json`` and its results store,
    or a bare store (``play --out``: ``_study.json`` and Parquet chunks).  The store reads
    and verifies them; files in a store that are not its chunks are named in a warning."""
    import warnings

    from experiments.store import MANIFEST, RESULTS_DIR, ResultsError, ResultsWarning, check_record, find_stores, \
        open_results

    root = Path(root)
    if not root.is_dir():
        raise ReportError(f"{root} is not a directory")
    found: list[B.StudyData] = []
    for store in find_stores(root):
        results = open_results(store, warn=False)
        message = results.warning()
        if message:
            warnings.warn(ResultsWarning(message), stacklevel=2)
        data = results.manifest
        parent = store.parent
        record_file = parent / STUDY_FILE
        if record_file.exists() and store.name == RESULTS_DIR:
            try:
                record = json.loads(record_file.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise ResultsError(f"corrupt study record {record_file}: {exc}") from None
            check_record(record, data["study"], record_file)
            home = parent
        else:
            record = {"kind": "play", "seed": data["study"]["seed"], "runs": data["study"]["runs"]}
            home = store
        name = str(home.relative_to(root)) if home != root else home.name
        found.append(B.load_study(name, home, results, record))
    if not found:
        raise ReportError(f"{root} holds no playlab studies (no {MANIFEST} below it)")
    return found


# ---- plots ---------------------------------------------------------------------------------
def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.grid": True, "grid.color": "0.88", "grid.linewidth": 0.6,
                         "axes.axisbelow": True, "savefig.facecolor": "white"})
    return plt


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


# ---- drawing the figures side by side ------------------------------------------------------
# While a report is built, a plot function returns a placeholder and records its call; the
# page is laid out first and the figures are drawn at the end in worker processes (about
# 0.1-0.2 s of matplotlib per figure, and a dozen studies have about a hundred of them).
_PENDING: list | None = None
_TOKEN = "@@playlab-plot-{}@@"


def _deferred(fn):
    @functools.wraps(fn)
    def plot(*args, **kwargs):
        if _PENDING is None:
            return fn(*args, **kwargs)
        _PENDING.append((fn.__name__, args, kwargs))
        return _TOKEN.format(len(_PENDING) - 1)
    return plot


def _draw(job) -> str:
    name, args, kwargs = job
    return globals()[name].__wrapped__(*args, **kwargs)


def _draw_all(jobs: list) -> list[str]:
    """The figures' PNGs (base64), drawn by up to one worker process per core (forked,
    so they start with matplotlib and the data already loaded); in this process when
    there is one core or processes cannot be forked."""
    import multiprocessing

    workers = min(len(jobs), os.cpu_count() or 1)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [_draw(j) for j in jobs]
    from concurrent.futures import ProcessPoolExecutor

    _plt()  # imported once here, inherited by the workers
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(_draw, jobs, chunksize=max(1, len(jobs) // (4 * workers))))


@_deferred
def forest(labels, est, lo, hi, ref, xlabel, title, ref_label="fair"):
    """Point and 95% interval per row, with the reference line: one message per plot (how
    far each row is from the reference)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.0, max(2.4, 0.28 * len(labels) + 1.3)))
    y = np.arange(len(labels))[::-1]
    ax.errorbar(est, y, xerr=np.clip([np.subtract(est, lo), np.subtract(hi, est)], 0, None), fmt="o", color="black",
                ecolor="0.3", capsize=3, ms=4, label="estimate, 95% interval")
    ax.axvline(ref, color="0.4", ls="--", lw=1, label=ref_label)
    ax.set_yticks(y, labels)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="best", fontsize="small")
    return _png(fig)


@_deferred
def groups_plot(groups: dict, xlabel, ylabel, title, ref=None, ref_label=None, xticklabels=None):
    """Several series (one per group: marker and grey) of points with 95% intervals over
    a shared x; ``groups[name] = (x, est, lo, hi)``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 3.4))
    width = 0.6 / max(len(groups), 1)
    for i, (name, (x, est, lo, hi)) in enumerate(groups.items()):
        xs = np.asarray(x, float) + (i - (len(groups) - 1) / 2) * width
        est, lo, hi = (np.asarray(v, float) for v in (est, lo, hi))
        # clip: a Wilson bound at 0 or 1 can sit a rounding error beyond the estimate
        ax.errorbar(xs, est, yerr=np.clip([est - lo, hi - est], 0, None), fmt=MARKERS[i % 6], color=GREYS[i % 6],
                    mec="black", ecolor="0.3", capsize=3, ms=5, ls="none", label=str(name))
    if ref is not None:
        ax.axhline(ref, color="0.4", ls="--", lw=1, label=ref_label)
    if xticklabels is not None:
        ax.set_xticks(range(len(xticklabels)), xticklabels)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="best")
    return _png(fig)


@_deferred
def box_plot(series: dict, xlabel, ylabel, title):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 3.2))
    names = list(series)
    ax.boxplot([series[n] for n in names], showfliers=False, whis=(2.5, 97.5), widths=0.5,
               medianprops={"color": "black", "lw": 1.5}, boxprops={"color": "0.3"})
    means = [float(np.mean(series[n])) if len(series[n]) else np.nan for n in names]
    ax.plot(range(1, len(names) + 1), means, "D", color="white", mec="black", ms=5, label="mean")
    ax.set_xticks(range(1, len(names) + 1), names)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title + "\n(box: quartiles; whiskers: 2.5th-97.5th percentile)", fontsize=9)
    ax.legend(fontsize="small")
    return _png(fig)


@_deferred
def hist_plot(series: dict, xlabel, title):
    """Share of games per value, one step line per series (line styles, not colours)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 3.2))
    allv = np.concatenate([np.asarray(v, float) for v in series.values()]) if series else np.zeros(0)
    if len(allv):
        lo, hi = np.percentile(allv, [0.5, 99.5])
        step = max(1, int(math.ceil((hi - lo + 1) / 60)))  # whole turns per bin: no aliasing
        bins = np.arange(math.floor(lo), hi + step + 1, step)
        for i, (name, v) in enumerate(series.items()):
            w = np.full(len(v), 1.0 / max(len(v), 1))
            ax.hist(v, bins=bins, weights=w, histtype="step", color=GREYS[i % 4] if i < 4 else "black",
                    ls=LINES[i % 6], lw=1.6, label=str(name))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games per bin")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return _png(fig)


@_deferred
def scatter_cards(cards: pd.DataFrame, title):
    """Each card's expected points per game (value x share of games it is scored in)
    against its face value."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.4))
    rng = np.random.default_rng(0)
    jitter = rng.uniform(-0.18, 0.18, len(cards))
    ax = axes[0]
    ax.errorbar(cards["points"] + jitter, cards["scored_rate"] * 100,
                yerr=[(cards["scored_rate"] - cards["ci_low"]) * 100, (cards["ci_high"] - cards["scored_rate"]) * 100],
                fmt="o", color="black", ms=3, ecolor="0.5", capsize=0)
    ax.set_xticks([1, 2, 3, 5])
    ax.set_xlabel("card face value (points)")
    ax.set_ylabel("games in which it is scored (%)")
    ax.set_title("how often each card is scored")
    ax = axes[1]
    ok = cards["scored"] > 1
    c = cards[ok]
    ax.errorbar(c["points"] + jitter[ok.to_numpy()], c["mean_round"],
                yerr=[c["mean_round"] - c["round_low"], c["round_high"] - c["mean_round"]],
                fmt="s", color="0.4", mec="black", ms=3, ecolor="0.5", capsize=0)
    ax.set_xticks([1, 2, 3, 5])
    ax.set_xlabel("card face value (points)")
    ax.set_ylabel("mean round when scored (rounds)")
    ax.set_title("how early it is scored")
    fig.suptitle(title + " (one point per card, 95% intervals)")
    return _png(fig)


# ---- the page ------------------------------------------------------------------------------
TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{ title }}</title>
<style>
 body { font-family: sans-serif; max-width: 60em; margin: 1.5em auto; padding: 0 1em; color: #111; line-height: 1.4; }
 h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #444; margin-top: 2em; } h3 { margin-top: 1.4em; }
 table { border-collapse: collapse; font-size: 0.82em; margin: 0.5em 0 1em; }
 th, td { border: 1px solid #bbb; padding: 0.15em 0.45em; text-align: right; } th { background: #eee; }
 td:first-child, th:first-child, td.t { text-align: left; }
 figure { margin: 0.8em 0; page-break-inside: avoid; } figure img { max-width: 100%; border: 1px solid #ddd; }
 figcaption { font-size: 0.85em; color: #333; }
 .findings li { margin: 0.3em 0; } .note { font-size: 0.85em; color: #333; }
 @media print { h2 { page-break-before: auto; } body { max-width: none; } }
 table.sortable th { cursor: pointer; } pre.pattern { margin: 0; font-size: 0.9em; line-height: 1.05; }
</style>
<script>
// click a header of a sortable table to sort by it (numbers by value, text as text; again to reverse)
document.addEventListener("click", function (e) {
  var th = e.target.closest("table.sortable th"); if (!th) return;
  var table = th.closest("table"), body = table.tBodies[0], k = Array.prototype.indexOf.call(th.parentNode.children, th);
  var rows = Array.prototype.slice.call(body.rows), up = th.dataset.dir !== "up";
  var key = function (r) { var t = r.cells[k].innerText.trim(), x = parseFloat(t); return isNaN(x) ? t : x; };
  rows.sort(function (a, b) { var x = key(a), y = key(b); return (x > y ? 1 : x < y ? -1 : 0) * (up ? 1 : -1); });
  rows.forEach(function (r) { body.appendChild(r); }); th.dataset.dir = up ? "up" : "down";
});
</script></head><body>
<h1>{{ title }}</h1>
<p class="note">Built by playlab {{ version }} from {{ n_studies }} stud{{ 'y' if n_studies == 1 else 'ies' }} in
<code>{{ source }}</code>. Every rate carries its 95% interval in brackets; win shares split a shared
win among its winners, so the fair share of a seat is 1/n.</p>
<section id="run"><h2>What was run</h2>
<table><tr><th>study</th><th>kind</th><th>game</th><th>players</th><th>bots</th><th>options</th><th>seed</th><th>games</th><th>playlab</th></tr>
{% for r in runs %}<tr><td>{{ r.name }}</td><td>{{ r.kind }}</td><td>{{ r.game }}</td><td>{{ r.players }}</td><td>{{ r.bots }}</td><td>{{ r.options }}</td><td>{{ r.seed }}</td><td>{{ r.games }}</td><td>{{ r.version }}</td></tr>
{% endfor %}</table></section>
<section id="summary"><h2>Summary of findings</h2>
<ul class="findings">{% for f in findings %}<li>{{ f }}</li>{% endfor %}</ul></section>
{% for s in sections %}<section id="{{ s.id }}"><h2>{{ s.title }}</h2>
{% if s.intro %}<p>{{ s.intro }}</p>{% endif %}
{% for b in s.blocks %}{% if b.heading %}<h3>{{ b.heading }}</h3>{% endif %}
{% if b.text %}<p>{{ b.text }}</p>{% endif %}
{% if b.png %}<figure><img alt="{{ b.alt }}" src="data:image/png;base64,{{ b.png }}"><figcaption>{{ b.caption }}</figcaption></figure>{% endif %}
{% if b.table %}{{ b.table | safe }}{% endif %}
{% endfor %}</section>
{% endfor %}
</body></html>
"""


def _table(df: pd.DataFrame, pct: dict | None = None) -> str:
    """An HTML table; ``pct`` maps a label to (estimate, low, high) column names shown as
    'p% [lo, hi]'."""
    df = df.copy()
    for label, spec in (pct or {}).items():
        m, lo, hi = spec[:3]
        as_pct = spec[3] if len(spec) > 3 else True
        df[label] = [B.ci_text((a, b, c), pct=as_pct) for a, b, c in zip(df[m], df[lo], df[hi])]
        df = df.drop(columns=[m, lo, hi])
    return df.to_html(index=False, float_format=lambda x: f"{x:.3f}", border=0, escape=True)


def _cards_table(cards: pd.DataFrame, classes: pd.DataFrame) -> tuple[str, list[str]]:
    """Every Shifting Stones card: id, value, its pattern drawn, scored share and worth with
    intervals, mean round, and whether it is an outlier within its value class."""
    import html as html_mod

    from simcore.games.shifting_stones_deck import load_deck

    patterns = {c.id: "\n".join(c.rows) for c in load_deck()}
    class_rate = classes.set_index("points")["scored_rate"]
    rows, outliers = [], []
    for _, c in cards.sort_values("card").iterrows():
        mean = float(class_rate.get(c.points, np.nan))
        flag = "above its class" if c.ci_low > mean else "below its class" if c.ci_high < mean else ""
        if flag:
            outliers.append(f"card #{int(c.card)} ({int(c.points)} pt) scored {B.ci_text((c.scored_rate, c.ci_low, c.ci_high))}"
                            f", {flag} ({100 * mean:.1f}%)")
        rows.append(f"<tr><td>{int(c.card)}</td><td>{int(c.points)}</td>"
                    f"<td class=\"t\"><pre class=\"pattern\">{html_mod.escape(patterns.get(int(c.card), '?'))}</pre></td>"
                    f"<td>{B.ci_text((c.scored_rate, c.ci_low, c.ci_high))}</td>"
                    f"<td>{B.ci_text((c.expected_points, c.ep_low, c.ep_high), pct=False)}</td>"
                    f"<td>{'never scored' if c.mean_round != c.mean_round else f'{c.mean_round:.1f}'}</td>"
                    f"<td>{flag}</td></tr>")
    head = ("<tr><th>card</th><th>value</th><th>pattern</th><th>scored</th><th>worth (points per game)</th>"
            "<th>mean round</th><th>outlier</th></tr>")
    return f'<table class="sortable"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>', outliers


NEVER = "never happened with these bots"


def _table_with_never(df: pd.DataFrame, pct: dict, count: str = "contracts") -> str:
    """``_table`` with the rows whose ``count`` is 0 kept and their rate written out as
    never happening (a designer reads an absent row as a missing one)."""
    df = df.copy()
    never = df[count].to_numpy() == 0
    for label, spec in pct.items():
        df.loc[never, list(spec[:3])] = np.nan
    html = _table(df, pct)
    return html.replace("<td>n/a</td>", f"<td>{NEVER}</td>")


def _block(heading=None, text=None, png=None, caption="", table=None, alt=None):
    return {"heading": heading, "text": text, "png": png, "caption": caption, "table": table,
            "alt": alt or heading or caption}


def _bots_text(run: dict) -> str:
    bots = run["bots"]
    return bots[0] if len(set(bots)) == 1 else ", ".join(bots)


def _options_text(study: B.StudyData) -> str:
    from simcore.games import load_game
    from simcore.options import format_value

    info = load_game(study.game).INFO
    defaults = {o.name: o.default for o in info.options}
    changed = set()
    for r in study.runs:
        for k, v in r["variant"].items():
            if defaults.get(k) != v:
                changed.add(f"{k}={format_value(v)}")
    vary = study.record.get("vary")
    text = ", ".join(sorted(changed)) or "defaults"
    if vary:
        text += "; varied: " + "; ".join(f"{k} in {', '.join(v)}" for k, v in vary.items())
    return text


def build_report(root: str | Path) -> str:
    """The report's HTML for every study under ``root``."""
    global _PENDING

    _PENDING = []
    try:
        text = _build_report(root)
        jobs, _PENDING = _PENDING, None
        pngs = _draw_all(jobs)
    finally:
        _PENDING = None
    return re.sub(r"@@playlab-plot-(\d+)@@", lambda m: pngs[int(m.group(1))], text)


def _build_report(root: str | Path) -> str:
    import jinja2

    from simcore.games import load_game

    studies = discover(root)
    runs, sections, findings = [], [], []
    for st in studies:
        counts = sorted({r["players"] for r in st.runs})
        bots = sorted({_bots_text(r) for r in st.runs})
        runs.append({"name": st.name, "kind": st.kind, "game": st.game, "players": ", ".join(map(str, counts)),
                     "bots": "; ".join(bots) if st.kind != "tournament" else f"{len(st.runs)} seatings of "
                     + ", ".join(sorted({b for r in st.runs for b in r["bots"]})),
                     "options": _options_text(st), "seed": st.record.get("seed"),
                     "games": f"{len(st.frame):,} ({st.frame['run'].nunique()} runs)",
                     "version": st.record.get("playlab_version", "n/a")})
        info = load_game(st.game).INFO
        sec, found = study_section(st, info)
        sections.append(sec)
        findings += found
    sections += luck_skill_sections(studies, findings)
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("playlab")
    except PackageNotFoundError:
        v = "unknown"
    games = sorted({st.game for st in studies})
    return env.from_string(TEMPLATE).render(
        title=f"playlab balance report: {', '.join(load_game(g).INFO.title for g in games)}",
        version=v, n_studies=len(studies), source=html.escape(str(root)), runs=runs,
        findings=findings, sections=sections)


def study_section(st: B.StudyData, info) -> tuple[dict, list[str]]:
    blocks, found = [], []
    first_col = getattr(info, "first_player_column", None)
    pos_word = "bidding position (0 bids first)" if first_col else "seat (0 plays first)"
    title = f"{info.title}: {st.name} ({st.kind})"
    # seat advantage
    adv = B.seat_advantage(st, first_col)
    if len(adv):
        labels = [f"{r.players} players, {'position' if first_col else 'seat'} {r.position}"
                  + (f", {r.setting}" if "setting" in adv else "") for r in adv.itertuples()]
        png = forest(labels, adv["advantage"] * 100, adv["adv_low"] * 100, adv["adv_high"] * 100, 0.0,
                     "win share minus the fair 1/n (percentage points)",
                     f"Seat advantage by {pos_word}", "fair (0)")
        blocks.append(_block("Seat advantage", None, png,
                             f"Win share of each {pos_word} minus 1/n over the decided games, 95% intervals.",
                             _table(adv[[c for c in ("players", "setting", "position", "games", "win_share", "ci_low",
                                                     "ci_high", "fair") if c in adv]],
                                    {"win share": ("win_share", "ci_low", "ci_high")})))
        worst = adv.loc[adv["advantage"].abs().idxmax()]
        found.append(f"{info.title} ({st.name}): {pos_word.split(' (')[0]} {int(worst.position)} at "
                     f"{int(worst.players)} players wins {B.ci_text((worst.win_share, worst.ci_low, worst.ci_high))} "
                     f"of the games, fair is {100 / worst.players:.1f}%"
                     + (" (the largest deviation)" if len(adv) > 1 else ""))
    # win rates per bot, ratings
    wr = B.bot_win_rates(st)
    if len(wr) and wr["bot"].nunique() > 1:
        groups = {}
        counts = sorted(wr["players"].unique())
        for b, part in wr.groupby("bot"):
            x = [counts.index(n) for n in part["players"]]
            groups[b] = (x, part["win_share_per_seat"] * 100, part["ci_low"] * 100, part["ci_high"] * 100)
        ref = 100 / counts[0] if len(counts) == 1 else None
        png = groups_plot(groups, "players", "win share per seat (%)", "Win share per bot",
                          ref, "fair 1/n" if ref else None, [str(n) for n in counts])
        blocks.append(_block("Win rates per bot", None, png, "Each bot's win share per seat it held, 95% intervals.",
                             _table(wr, {"win share per seat": ("win_share_per_seat", "ci_low", "ci_high")})))
    ratings = st.path / "ratings.csv"
    if st.kind == "tournament" and ratings.exists():
        r = pd.read_csv(ratings).sort_values("rating", ascending=False)
        png = forest(list(r["bot"]), r["rating"], r["ci_low"], r["ci_high"], 0.0,
                     "rating (Elo points, mean 0)", "Ratings with 95% bootstrap intervals over deals", "mean rating")
        blocks.append(_block("Ratings", None, png, "Bradley-Terry / Plackett-Luce ratings on the Elo scale.",
                             r.to_html(index=False, float_format=lambda x: f"{x:.1f}", border=0)))
        top = r.iloc[0]
        found.append(f"{info.title} ({st.name}): {top.bot} rates {top.rating:.0f} Elo "
                     f"[{top.ci_low:.0f}, {top.ci_high:.0f}] above the field mean")
    found += _balance_search_block(st, blocks)
    # scores and lengths
    d = st.decided()
    series = {}
    for (n, g), part in d.groupby(["players", "setting"], sort=False):
        n = int(n)
        seats = B.position_seats(part, n, first_col)
        sc = np.take_along_axis(part[B.seat_cols("score", n)].to_numpy(np.float64), seats, axis=1)
        for k in range(n):
            series[f"{n}p {'pos' if first_col else 'seat'} {k}" + (f"\n{g}" if g else "")] = sc[:, k]
    if series and len(series) <= 24:
        blocks.append(_block("Score distributions", None,
                             box_plot(series, pos_word, "final score (game points)", "Final score by " + pos_word),
                             "Decided games; the diamond is the mean."))
    ln = B.lengths(st)
    lseries = {f"{int(n)} players" + (f", {g}" if g else ""): part["turns"].to_numpy(np.float64)
               for (n, g), part in d.groupby(["players", "setting"], sort=False)}
    blocks.append(_block("Game length and truncated games", None,
                         hist_plot(lseries, "turns per game (the game's own turns)", "Game length (decided games)"),
                         "Share of decided games by length, one line per player count.",
                         _table(ln, {"mean turns": ("mean_turns", "turns_low", "turns_high", False),
                                     "truncated": ("truncated_share", "trunc_low", "trunc_high")})))
    if (ln["truncated_share"] >= 0.001).any():
        r = ln.loc[ln["truncated_share"].idxmax()]
        found.append(f"{info.title} ({st.name}): {B.ci_text((r.truncated_share, r.trunc_low, r.trunc_high))} of the "
                     f"games at {int(r.players)} players hit the cap and are left out of the win rates")
    # the game's own section
    from simcore.games import entry

    section = entry(st.game).resolve("report")  # the game's own section, from its registration
    game_blocks, game_found = section(st, info) if section is not None else ([], [])
    if game_blocks and st.kind == "sweep":
        game_blocks.insert(0, _block(None, "The balance figures below pool every setting of the sweep; "
                                     "see the sections above and sweep.csv for the settings apart."))
    blocks += game_blocks
    found += game_found
    return {"id": "study-" + st.name.replace("/", "-"), "title": title, "intro": _intro(st), "blocks": blocks}, found


def _balance_search_block(st: B.StudyData, blocks: list) -> list[str]:
    """`playlab balance`: the variants, whether each meets the targets, and the games each
    was given (balance.csv, as the command printed it)."""
    path = st.path / "balance.csv"
    if st.kind != "balance" or not path.exists():
        return []
    t = pd.read_csv(path, dtype=str)
    targets = st.record.get("targets", [])
    rows = []
    for _, r in t.iterrows():
        row = {"variant": r["variant"], "meets every target": r["meets"], "games": r["games"]}
        for col in t.columns:
            if col.endswith(":value") and not pd.isna(r[col]):
                key = col[: -len(":value")]
                row[key] = (f"{float(r[col]):.4g} [{float(r[key + ':ci_low']):.4g}, "
                            f"{float(r[key + ':ci_high']):.4g}] {r[key + ':meets']}")
        rows.append(row)
    table = pd.DataFrame(rows).to_html(index=False, border=0, escape=True)
    blocks.append(_block("Rule variants against the targets", None, None,
                         f"Targets {'; '.join(targets)}, each at every player count, 95% intervals per look; "
                         f"{st.record.get('games_spent', '?')} games spent of a budget of {st.record.get('budget')}.",
                         table))
    met = [r["variant"] for r in rows if r["meets every target"] == "true"]
    return [f"{st.name}: {len(met)} of {len(rows)} variants meet every target"
            + (f" ({'; '.join(met[:5])}{' …' if len(met) > 5 else ''})" if met else "")]


def _intro(st: B.StudyData) -> str:
    kinds = {"play": "one configuration played", "fpa": "the same bot in every seat per player count",
             "tournament": "every seating of the bots over the same deals",
             "sweep": "the same deals under each rule value",
             "balance": "rule variants raced against targets on the same deals"}
    return (f"{kinds.get(st.kind, st.kind)}; {len(st.frame):,} games in {st.frame['run'].nunique()} runs, "
            f"{int(st.frame['truncated'].sum()):,} truncated.")


# ---- per-game sections -------------------------------------------------------------------------
def moon_section(st: B.StudyData, info):
    t = B.moon_tables(st)
    blocks, found = [], []
    if "by_bid" in t:
        bb = t["by_bid"][t["by_bid"]["contracts"] > 0]
        png = groups_plot({"make rate": (range(len(bb)), bb["make_rate"] * 100, bb["ci_low"] * 100,
                                         bb["ci_high"] * 100)},
                          "winning bid (tricks promised; 21 = shoot the moon)", "contracts made (%)",
                          "Make rate by bid level", xticklabels=list(bb["bid"]))
        blocks.append(_block("Moon: make rate by bid level", None, png,
                             "Share of won contracts the bidder made, per bid, 95% Wilson intervals; a bid no "
                             "contract was won at is listed, not dropped.",
                             _table_with_never(t["by_bid"], {"make rate": ("make_rate", "ci_low", "ci_high")})))
        tr = t["by_trump"][t["by_trump"]["contracts"] > 0]
        png = groups_plot({"make rate": (range(len(tr)), tr["make_rate"] * 100, tr["ci_low"] * 100,
                                         tr["ci_high"] * 100)},
                          "trump named by the bidder", "contracts made (%)", "Make rate by trump",
                          xticklabels=list(tr["trump"]))
        blocks.append(_block("Moon: make rate by trump", None, png,
                             "Suits 0-6, doubles as trump, or no trump; a trump never named is listed, not dropped.",
                             _table_with_never(t["by_trump"], {"make rate": ("make_rate", "ci_low", "ci_high")})))
        w = t["widow"].set_index("widow")
        kept, disc = w.loc["kept"], w.loc["discarded"]
        dd = B.diff_ci((kept["made"], kept["contracts"]), (disc["made"], disc["contracts"]))
        blocks.append(_block("Moon: what the widow is worth", (
            "The bidder takes the widow tile and discards one tile. The widow is 'kept' when the bidder discards "
            "another tile (the widow improved the hand) and 'discarded' when it goes straight back. Its worth: "
            f"the make rate with the widow kept minus with it discarded, {B.ci_pp(dd)} "
            f"(widow kept in {100 * kept['share_of_contracts']:.1f}% of contracts). The bots choose, so this is "
            "the worth of a useful widow, not a controlled experiment."), None, "",
            _table(t["widow"], {"make rate": ("make_rate", "ci_low", "ci_high")})))
        best = bb.loc[bb["contracts"].idxmax()]
        found.append(f"Moon ({st.name}): the most common contract, a bid of {best.bid}, is made "
                     f"{B.ci_text((best.make_rate, best.ci_low, best.ci_high))} of the time")
        found.append(f"Moon ({st.name}): keeping the widow tile changes the bidder's make rate by {B.ci_pp(dd)} "
                     f"({B.ci_text((kept.make_rate, kept.ci_low, kept.ci_high))} kept vs "
                     f"{B.ci_text((disc.make_rate, disc.ci_low, disc.ci_high))} discarded)")
    m = t["moon"].iloc[0]
    blocks.append(_block("Moon: shooting the moon", (
        f"{int(m.attempts):,} moon contracts in {int(m.hands):,} played hands: "
        f"{B.ci_text((m.attempts_per_100_hands, m.per100_low, m.per100_high), pct=False, digits=2)} per 100 hands; "
        f"made {B.ci_text((m.success_rate, m.ci_low, m.ci_high))}."), None, "", None))
    if m.attempts:
        found.append(f"Moon ({st.name}): {m.attempts_per_100_hands:.2f} moon attempts per 100 hands, made "
                     f"{B.ci_text((m.success_rate, m.ci_low, m.ci_high))}")
    p = t["positions"]
    png = groups_plot({"points per hand": (p["position"], p["points_per_hand"], p["pts_low"], p["pts_high"])},
                      "bidding position in the hand (0 bids first)", "points per played hand (game points)",
                      "Points per hand by bidding position", xticklabels=["0", "1", "2"])
    blocks.append(_block("Moon: points per hand by bidding position", None, png,
                         "Mean points a seat scores per played hand by its bidding position; 95% intervals over games.",
                         _table(p, {"points/hand": ("points_per_hand", "pts_low", "pts_high", False),
                                    "make rate": ("make_rate", "ci_low", "ci_high")})))
    return blocks, found


def stones_section(st: B.StudyData, info):
    t = B.stones_tables(st)
    blocks, found = [], []
    if "cards" in t:
        cards = t["cards"]
        for n, part in cards.groupby("players"):
            blocks.append(_block(f"Shifting Stones: the 72 cards at {n} players", None,
                                 scatter_cards(part, f"{n} players"),
                                 "Left: share of games each card is scored in. Right: mean round it is scored in."))
        cls = t["classes"]
        for n, part in cards.groupby("players"):
            table, outliers = _cards_table(part, cls[cls["players"] == n])
            blocks.append(_block(f"Shifting Stones: every card at {n} players", None, None,
                                 "Click a column to sort. Scored: share of decided games in which the card was "
                                 "scored (95% Wilson); worth: its value times that share; outlier: its interval "
                                 "lies wholly above or below the mean share of its value class. Who scored a card "
                                 "is not recorded, so how often a card decides the winner is not shown.", table))
            if outliers:
                found.append(f"Shifting Stones ({st.name}, {n} players): outliers within their value class: "
                             + "; ".join(outliers[:6]) + (" …" if len(outliers) > 6 else ""))
        groups = {f"{n} players": (list(range(len(part))), part["expected_points_per_card"],
                                   part["points"] * part["ci_low"], part["points"] * part["ci_high"])
                  for n, part in cls.groupby("players")}
        png = groups_plot(groups, "card face value (points)", "expected points per card per game",
                          "Is a 5-pointer worth 5? Face value x share of games scored",
                          xticklabels=[str(v) for v in sorted(cls["points"].unique())])
        blocks.append(_block("Shifting Stones: points per value class", None, png,
                             "A card's expected contribution per game is its value times the chance it is scored.",
                             _table(cls, {"scored": ("scored_rate", "ci_low", "ci_high")})))
        n0 = int(cls["players"].min())
        c = cls[cls["players"] == n0].set_index("points")
        found.append(f"Shifting Stones ({st.name}, {n0} players): a 5-point card is scored in "
                     f"{B.ci_text((c.loc[5, 'scored_rate'], c.loc[5, 'ci_low'], c.loc[5, 'ci_high']))} of games "
                     f"(worth {c.loc[5, 'expected_points_per_card']:.2f} points per game), a 1-point card in "
                     f"{B.ci_text((c.loc[1, 'scored_rate'], c.loc[1, 'ci_low'], c.loc[1, 'ci_high']))}")
        spread = cards[cards["players"] == n0]
        lo_c = spread.loc[spread["scored_rate"].idxmin()]
        hi_c = spread.loc[spread["scored_rate"].idxmax()]
        found.append(f"Shifting Stones ({st.name}, {n0} players): card #{int(lo_c.card)} ({int(lo_c.points)} pt) is "
                     f"scored in {B.ci_text((lo_c.scored_rate, lo_c.ci_low, lo_c.ci_high))} of games, card "
                     f"#{int(hi_c.card)} ({int(hi_c.points)} pt) in {B.ci_text((hi_c.scored_rate, hi_c.ci_low, hi_c.ci_high))}")
    b = t["bonus"]
    if len(b):
        pct = {"bonus changes the winner": ("changed_rate", "ci_low", "ci_high")}
        if "skips_per_seat" in b:
            pct["games with a skip"] = ("games_with_skip", "gws_low", "gws_high")
            pct["skips per seat"] = ("skips_per_seat", "skips_low", "skips_high", False)
        ticks = [str(n) for n in b["players"]]
        png = groups_plot({"winner changed by the bonus": (range(len(b)), b["changed_rate"] * 100,
                                                           b["ci_low"] * 100, b["ci_high"] * 100)},
                          "players", "decided games (%)", "How often the 1-point bonus changes the winner",
                          xticklabels=ticks)
        blocks.append(_block("Shifting Stones: the 1-point bonus and skips", (
            "'Winner changed': the seats with the top score differ from those with the most card points, i.e. "
            "the bonus for the most 1-point cards decided (or split) the game."), png, "",
            _table(b, pct)))
        if "games_with_skip" in b:
            png = groups_plot({"games with a skip": (range(len(b)), b["games_with_skip"] * 100, b["gws_low"] * 100,
                                                     b["gws_high"] * 100)},
                              "players", "decided games with at least one skip (%)", "How often a skip is used",
                              xticklabels=ticks)
            blocks.append(_block(None, None, png, "Skips per seat per game are in the table above.",
                                 alt="Shifting Stones: skip usage"))
        r = b.loc[b["changed_rate"].idxmax()]
        found.append(f"Shifting Stones ({st.name}): the 1-point bonus changes the winner in "
                     f"{B.ci_text((r.changed_rate, r.ci_low, r.ci_high))} of decided games at {int(r.players)} players")
        if "games_with_skip" in b:
            r = b.iloc[0]
            found.append(f"Shifting Stones ({st.name}): a skip is used in "
                         f"{B.ci_text((r.games_with_skip, r.gws_low, r.gws_high))} of games at {int(r.players)} players")
    return blocks, found


def stacks_section(st: B.StudyData, info):
    t = B.stacks_tables(st)
    blocks, found = [], []
    ch = t["chips"]
    if not len(ch):
        return blocks, found
    counts = sorted(ch["players"].unique())
    groups = {}
    for colour, part in ch.groupby("colour"):
        groups[colour] = ([counts.index(n) for n in part["players"]], part["chips_per_seat"],
                                          part["ci_low"], part["ci_high"])
    blocks.append(_block("Sequence Stacks: chips by colour", None,
                         groups_plot(groups, "players", "chips a seat holds at the end (chips)", "Chips by colour",
                                     xticklabels=[str(n) for n in counts]),
                         "Mean chips per seat by colour, 95% intervals; the table adds the winners' chips.",
                         _table(ch, {"per seat": ("chips_per_seat", "ci_low", "ci_high", False),
                                     "per winner": ("winner_chips", "w_low", "w_high", False)})))
    bl = t["blocked"]
    blocks.append(_block("Sequence Stacks: sequences blocked", None,
                         groups_plot({"blocked": ([counts.index(n) for n in bl["players"]], bl["blocked_share"] * 100,
                                                  bl["ci_low"] * 100, bl["ci_high"] * 100)},
                                     "players", "completed sequences blocked (%)",
                                     "Share of completed sequences an opponent blocked",
                                     xticklabels=[str(n) for n in counts]), "",
                         _table(bl, {"blocked": ("blocked_share", "ci_low", "ci_high"),
                                     "completions per game": ("completions_per_game", "comp_low", "comp_high", False)})))
    r = bl.iloc[-1]
    found.append(f"Sequence Stacks ({st.name}): {B.ci_text((r.blocked_share, r.ci_low, r.ci_high))} of completed "
                 f"sequences are blocked at {int(r.players)} players")
    ac = t["actions"]
    groups = {f"{n} players": (list(range(len(part))), part["difference"] * 100, part["diff_low"] * 100,
                               part["diff_high"] * 100) for n, part in ac.groupby("players")}
    blocks.append(_block("Sequence Stacks: action cards", (
        "Per seat and game: the win rate of seats that played the card at least once minus that of seats that "
        "did not. Holding and playing a card goes with longer games and more turns, so this measures "
        "association, not the card's causal worth."),
        groups_plot(groups, "action card", "win rate, users minus non-users (percentage points)",
                    "Win rate of users vs non-users per action card", 0.0, "no difference",
                    list(B.STACKS_ACTIONS)), "",
        _table(ac, {"users": ("win_users", "users_low", "users_high"),
                    "non-users": ("win_nonusers", "non_low", "non_high"),
                    "difference": ("difference", "diff_low", "diff_high")})))
    big = ac.loc[ac["difference"].abs().idxmax()]
    found.append(f"Sequence Stacks ({st.name}): seats that play {big.card} win "
                 f"{B.ci_text((big.win_users, big.users_low, big.users_high))} against "
                 f"{B.ci_text((big.win_nonusers, big.non_low, big.non_high))} for those that do not "
                 f"({int(big.players)} players)")
    ln = t["length"]
    blocks.append(_block("Sequence Stacks: game length by player count", None,
                         groups_plot({"mean turns": ([counts.index(n) for n in ln["players"]], ln["mean_turns"],
                                                     ln["ci_low"], ln["ci_high"])},
                                     "players", "turns per game (turns)", "Game length by player count",
                                     xticklabels=[str(n) for n in counts]), "",
                         _table(ln, {"mean turns": ("mean_turns", "ci_low", "ci_high", False)})))
    if len(ln) > 1:
        a, z = ln.iloc[0], ln.iloc[-1]
        found.append(f"Sequence Stacks ({st.name}): games last {a.mean_turns:.1f} [{a.ci_low:.1f}, {a.ci_high:.1f}] "
                     f"turns at {int(a.players)} players and {z.mean_turns:.1f} [{z.ci_low:.1f}, {z.ci_high:.1f}] at "
                     f"{int(z.players)}")
    return blocks, found


# ---- luck and skill ------------------------------------------------------------------------
def luck_skill_sections(studies: list[B.StudyData], findings: list[str]) -> list[dict]:
    from simcore.games import load_game

    blocks = []
    for st in studies:
        title = load_game(st.game).INFO.title
        ww = B.weaker_wins(st)
        if ww is not None and len(ww):
            labels = [f"{r.weaker} vs {r.stronger}" for r in ww.itertuples()]
            png = forest(labels, ww["weaker_ahead"] * 100, ww["ci_low"] * 100, ww["ci_high"] * 100, 50.0,
                         "games the weaker bot finished ahead (%, ties half)",
                         "How often the weaker bot wins", "a coin flip (50%)")
            blocks.append(_block(f"{title} ({st.name}): how often the weaker bot wins", None, png, "",
                                 _table(ww, {"weaker ahead": ("weaker_ahead", "ci_low", "ci_high")})))
            r = ww.loc[ww["weaker_ahead"].idxmin()]  # the widest gap: strongest against weakest
            findings.append(f"{title} ({st.name}): the weaker bot {r.weaker} finishes ahead of {r.stronger} in "
                            f"{B.ci_text((r.weaker_ahead, r.ci_low, r.ci_high))} of their games")
        sp = B.deal_spread(st)
        if sp is not None and len(sp):
            ent = B.mean_ci(sp["entropy"])
            span = B.mean_ci(sp["span"])
            plt = _plt()
            fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.0))
            axes[0].hist(sp["span"], bins=np.linspace(0, 1, 11), weights=np.full(len(sp), 100 / len(sp)),
                         color="0.6", edgecolor="black")
            axes[0].set_xlabel("per-deal win-rate span (best bot minus worst, share of seatings)")
            axes[0].set_ylabel("deals (%)")
            mx = float(sp["max_entropy"].iloc[0])
            axes[1].hist(sp["entropy"], bins=np.linspace(0, mx, 11), weights=np.full(len(sp), 100 / len(sp)),
                         color="0.85", edgecolor="black", hatch="//")
            axes[1].set_xlabel(f"entropy of the deal's winner over seatings (bits, max {mx:.2f})")
            axes[1].set_ylabel("deals (%)")
            fig.suptitle(f"Does the deal or the bot decide? ({int(sp['seatings'].iloc[0])} seatings per deal)")
            blocks.append(_block(f"{title} ({st.name}): outcome spread per deal under rotated seatings", (
                f"Each deal is played under every seating. Mean span {B.ci_text(span, pct=False, digits=3)} "
                f"(1: the same bot wins every seating, skill decides; 0: every bot wins equally often, the seat "
                f"dealt decides); mean entropy {B.ci_text(ent, pct=False, digits=3)} bits of {mx:.2f}."),
                _png(fig), f"{len(sp):,} deals decided in every seating."))
            findings.append(f"{title} ({st.name}): per deal under rotated seatings the best bot's win rate exceeds "
                            f"the worst's by {B.ci_text(span, pct=False, digits=3)} on average (1 = skill decides "
                            f"every deal), winner entropy {ent[0]:.3f} [{ent[1]:.3f}, {ent[2]:.3f}] of {mx:.2f} bits")
    # first-player advantage by bot skill: studies with one bot in every seat
    rows = []
    for st in studies:
        info = load_game(st.game).INFO
        first_col = getattr(info, "first_player_column", None)
        for n, part in B.by_players(st):
            for bot, sub in part.groupby("bot_0"):
                same = (sub[B.seat_cols("bot", n)].to_numpy() == bot).all(axis=1)
                sub = sub[same & ~sub["truncated"].astype(bool).to_numpy()]
                if n < 2 or len(sub) < 100:
                    continue
                share = np.take_along_axis(B.win_share(sub, n), B.position_seats(sub, n, first_col), axis=1)
                m = B.mean_ci(share[:, 0])
                rows.append({"game": st.game, "players": n, "bot": bot, "games": len(sub),
                             "first_advantage": m[0] - 1 / n, "low": m[1] - 1 / n, "high": m[2] - 1 / n})
    fp = pd.DataFrame(rows)
    if len(fp):
        fp = fp.drop_duplicates(["game", "players", "bot"])
        for game, part in fp.groupby("game"):
            if part["bot"].nunique() < 2:
                continue
            title = load_game(game).INFO.title
            labels = [f"{r.players} players, {r.bot}" for r in part.itertuples()]
            png = forest(labels, part["first_advantage"] * 100, part["low"] * 100, part["high"] * 100, 0.0,
                         "first player's win share minus 1/n (percentage points)",
                         f"{title}: first-player advantage by bot skill", "fair (0)")
            blocks.append(_block(f"{title}: first-player advantage by bot skill", None, png,
                                 "Studies with the same bot in every seat.",
                                 _table(part, {"advantage": ("first_advantage", "low", "high")})))
    if not blocks:
        return []
    return [{"id": "luck-skill", "title": "Luck and skill", "intro": (
        "How much the deal and the seat decide against the bots' skill: the weaker bot's wins, the spread of "
        "outcomes over the seatings of each deal, and the first player's edge by bot strength."),
        "blocks": blocks}]


# ---- writing -------------------------------------------------------------------------------
def write_report(root: str | Path, out: str | Path) -> Path:
    """Build the report and write it to ``out`` atomically: a temporary file beside it,
    renamed when complete; nothing is left behind on failure."""
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if out.is_dir():
        raise ReportError(f"--out {out} is a directory")
    if not parent.is_dir():
        raise ReportError(f"cannot write {out}: {parent} is not a directory")
    # fail on an unwritable place before the work, not after it
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + out.name + ".", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise ReportError(f"cannot write {out}: {exc.strerror or exc}") from None
    try:
        text = build_report(root)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fd = -1
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return out
