"""`playlab report DIR`: every study written into DIR (play --out, tournament, fpa, sweep,
balance) turned into one self-contained HTML file a designer opens offline or prints.

Layout (reports/template.html.j2): what was run; a summary of findings, each with its 95%
interval; per study its generic section (reports/study.py: seat advantage, win rates per bot
and ratings, score and length distributions, truncated games) and the game's own balance
section, which the game's registration names (``report=`` in simcore/games/__init__.py;
reports/sections/ for the built-in games); luck and skill where a tournament or several
bots allow it (reports/luck_skill.py).  Figures come from reports/plots.py as inline SVG,
drawn in black and greys with marker shapes so that they read in grey-scale and in print.
Each study's section is computed in a forked worker (its figures drawn there), the summary
and the luck-and-skill sections here while the workers draw their figures; the page is the
same byte for byte with one process or several.  The page is written atomically (the store's ``write_atomically``), so a failure never leaves
a partial report.
"""
from __future__ import annotations

import html
import os
from pathlib import Path

from . import balance as B
from . import blocks as H
from . import luck_skill, plots, study

TEMPLATE = "template.html.j2"


class ReportError(ValueError):
    pass


# ---- finding the studies ----------------------------------------------------------------
def discover(root: str | Path) -> list[B.StudyData]:
    """Every study under ``root``: a directory with ``study.json`` and its results store,
    or a bare store (``play --out``: ``_study.json`` and Parquet chunks).  The store reads
    and verifies them; files in a store that are not its chunks are named in a warning."""
    import warnings

    from experiments.store import MANIFEST, ResultsWarning, find_stores, open_results

    root = Path(root)
    if not root.is_dir():
        raise ReportError(f"{root} is not a directory")
    found: list[B.StudyData] = []
    for store in find_stores(root):
        results = open_results(store, warn=False)
        message = results.warning()
        if message:
            warnings.warn(ResultsWarning(message), stacklevel=2)
        record = results.command_record()
        home = store.parent if results.record is not None else store
        name = str(home.relative_to(root)) if home != root else home.name
        found.append(B.load_study(name, home, results, record))
    if not found:
        raise ReportError(f"{root} holds no playlab studies (no {MANIFEST} below it)")
    return found



def _template():
    """The page's template, read as package data (an installed copy has it too)."""
    from importlib.resources import files

    return files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")


def _blank(b: dict) -> dict:
    """A block with every key the template reads (a plugin's section may leave some out)."""
    return {"heading": None, "text": None, "svg": None, "png": None, "caption": "", "table": None, "alt": "", **b}


def build_report(root: str | Path) -> str:
    """The report's HTML for every study under ``root``: laid out first with placeholders
    for the figures, which are drawn at the end (side by side where a core is free)."""
    from bots.learned import ModelError
    from bots.registry import BotError
    from simcore.games import UnknownGame

    with plots.collecting() as fill:
        try:
            text = _build_report(root)
        except (UnknownGame, BotError) as exc:
            # the report takes no bots or games of its own: one it does not know was named
            # by a stored study, most likely one a plugin of the run that wrote it registered
            # (a model file that is gone or changed says so itself)
            if isinstance(exc, ModelError):
                raise
            what = "game" if isinstance(exc, UnknownGame) else "bot"
            raise ReportError(f"{str(exc).splitlines()[0]} (a plugin's {what}? give the same --plugin FILE "
                              f"as the run that wrote {root})") from None
        return fill(text)


#: the studies of the report being built, for the workers that compute their sections
_STUDIES: list = []
#: the tables a study's section computes and keeps on it that the summary reads again
_MEMOS = ("_tournament", "_seat_advantage")


def _study_section(i: int):
    """Study ``i``'s section (its figures drawn here), its candidates for the ranked
    findings and the tables it kept on the study."""
    from reports.ranked import study_findings
    from simcore.games import entry, load_game

    st = _STUDIES[i]
    info = load_game(st.game).INFO
    sec, found = study.section(st, info, entry(st.game).resolve("report"))
    return sec, found, study_findings(st, info), {k: st.__dict__[k] for k in _MEMOS if k in st.__dict__}


def _build_report(root: str | Path) -> str:
    import jinja2

    from simcore.games import load_game

    studies = discover(root)
    # each study's section is computed (and its figures drawn) in a worker; the workers are
    # forked at the first job and read the studies from the memory they inherit
    _STUDIES[:] = studies
    jobs = [plots.in_workers(f"s{i}-", _study_section, i) for i in range(len(studies))]
    runs, sections, findings, candidates = [], [], [], []
    for st, job in zip(studies, jobs):
        counts = sorted({r["players"] for r in st.runs})
        bots = sorted({study.bots_text(r) for r in st.runs})
        runs.append({"name": st.name, "kind": st.kind, "game": st.game, "players": ", ".join(map(str, counts)),
                     "bots": "; ".join(bots) if st.kind != "tournament" else f"{len(st.runs)} seatings of "
                     + ", ".join(sorted({b for r in st.runs for b in r["bots"]})),
                     "options": study.options_text(st), "seed": st.record.get("seed"),
                     "games": f"{len(st.frame):,} ({H.runs_text(st.frame['run'].nunique())})",
                     "version": st.record.get("playlab_version", "n/a")})
        sec, found, ranked, memo = job.result()
        candidates += ranked
        st.__dict__.update(memo)  # what the section computed that the summary asks for again
        sections.append(sec)
        findings += found
    sections += luck_skill.sections(studies, findings)
    from reports.findings import rank_findings
    from reports.ranked import template_rows

    top = template_rows(rank_findings(candidates))
    for sec in sections:
        sec["blocks"] = [_blank(b) for b in sec["blocks"]]
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("playlab")
    except PackageNotFoundError:
        v = "unknown"
    games = sorted({st.game for st in studies})
    return env.from_string(_template()).render(
        title=f"playlab balance report: {', '.join(load_game(g).INFO.title for g in games)}",
        version=v, n_studies=len(studies), source=html.escape(str(root)), runs=runs,
        findings=findings, ranked=top, sections=sections)


# ---- writing -------------------------------------------------------------------------------
def write_report(root: str | Path, out: str | Path) -> Path:
    """Build the report and write it to ``out`` atomically (a hidden file beside it,
    renamed when complete; nothing is left behind on failure).  An unwritable place is
    refused before the work, not after it."""
    from experiments.store import write_atomically

    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if out.is_dir():
        raise ReportError(f"--out {out} is a directory")
    if not parent.is_dir():
        raise ReportError(f"cannot write {out}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise ReportError(f"cannot write {out}: Permission denied")
    text = build_report(root)
    write_atomically(out, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return out
