"""The report's ranked findings: every study's seat findings (the position furthest from its
fair share, per player count and setting, tested by the chi-square of equal seats on sole
wins) and every sweep's tested comparisons with its baseline, ranked together by
``reports.findings.rank_findings`` (Holm across the whole report).  The page shows the top
ones and folds the rest; the study sections' own notes stay below them.

The sweep's comparisons are the command's own (``reports.recomputed``: its study rebuilt from
``study.json`` and its collector fed the stored rows), so the report's p-values are those
`playlab sweep` printed.
"""
from __future__ import annotations

from dataclasses import replace

from reports import balance as B
from reports.recomputed import sweep_tests
from reports.findings import Finding, RankedFindings, rank_findings, seat_findings, sweep_findings


def study_findings(st: B.StudyData, info) -> list[Finding]:
    first_col = getattr(info, "first_player_column", None)
    found = seat_findings(B.seat_advantage(st, first_col), st.name, info.title,
                          "position" if first_col else "seat")
    if st.kind == "sweep" and "vary" in st.record:
        bots = tuple(sorted(set(st.record["bots"])))
        found += sweep_findings(sweep_tests(st), st.name, info.title, bots, positions=first_col is not None)
    # the same question under other rules is another question: studies are compared bot by
    # bot ("holds under …") only when they played the same rules
    rules = B.fixed_rules(st, info)
    return [replace(f, question=f.question + (rules,)) if f.question else f for f in found]


def ranked(studies: list[B.StudyData], infos: dict[str, object]) -> RankedFindings:
    found: list[Finding] = []
    for st in studies:
        found += study_findings(st, infos[st.game])
    return rank_findings(found)


def template_rows(r: RankedFindings) -> dict[str, list[dict]]:
    """What the template prints: the top findings and the rest, each as its sentence with
    rank, effect and Holm p."""
    def row(x):
        return {"rank": x.rank, "text": x.sentence(), "holds": x.holds}

    return {"top": [row(x) for x in r.top], "rest": [row(x) for x in r.rest]}
