"""reports.findings: findings ranked by effect size, Holm-corrected across the report, the top
ten shown and the rest kept; a finding holding under one bot says so."""
import math

import pytest
from statsmodels.stats.multitest import multipletests

from reports.findings import Finding, rank_findings


def f(text, effect, p, bots=("greedy",), lo=None, hi=None, **kw):
    lo = effect - 0.01 if lo is None else lo
    hi = effect + 0.01 if hi is None else hi
    return Finding(text=text, effect=effect, ci_low=lo, ci_high=hi, p=p, test="t-test", bots=bots, **kw)


def test_ranked_by_effect_among_those_that_hold_after_holm():
    found = [f("small but sure", 0.02, 1e-9), f("big", -0.30, 1e-6), f("big but alone untested", 0.5, math.nan),
             f("medium", 0.10, 0.004), f("big and noisy", 0.40, 0.02)]
    ranked = rank_findings(found)
    # Holm over the four tested ones only (the untested one is not in the family)
    _, expected, _, _ = multipletests([1e-9, 1e-6, 0.004, 0.02], method="holm")
    got = {r.finding.text: r.p_holm for r in ranked.top + ranked.rest}
    assert [got[t] for t in ("small but sure", "big", "medium", "big and noisy")] == pytest.approx(list(expected))
    assert math.isnan(got["big but alone untested"])
    holds = [r.finding.text for r in ranked.top]
    assert holds == ["big and noisy", "big", "medium", "small but sure"]  # |effect| order; the largest p: 0.02*1
    assert [r.rank for r in ranked.top] == [1, 2, 3, 4]
    assert [r.finding.text for r in ranked.rest] == ["big but alone untested"]


def test_a_finding_that_fails_holm_goes_to_the_rest_whatever_its_size():
    found = [f("huge, p 0.03", 0.9, 0.03), f("tiny, p 0.001", 0.01, 0.001), f("mid, p 0.02", 0.2, 0.02)]
    ranked = rank_findings(found)
    # Holm: 0.001*3 = 0.003 holds; 0.02*2 = 0.04 holds; 0.03*1 -> max(0.04, 0.03) = 0.04 holds
    assert [r.finding.text for r in ranked.top] == ["huge, p 0.03", "mid, p 0.02", "tiny, p 0.001"]
    found.append(f("another, p 0.04", 0.5, 0.04))
    ranked = rank_findings(found)
    # now four tests: 0.001*4, 0.02*3 = 0.06 fails, and everything above it fails too
    assert [r.finding.text for r in ranked.top] == ["tiny, p 0.001"]
    assert [r.finding.text for r in ranked.rest] == ["huge, p 0.03", "another, p 0.04", "mid, p 0.02"]
    assert not any(r.holds for r in ranked.rest)


def test_at_most_top_on_top_and_nothing_lost():
    found = [f(f"finding {i}", 0.01 * (i + 1), 1e-8) for i in range(25)]
    ranked = rank_findings(found)
    assert len(ranked.top) == 10 and len(ranked.rest) == 15
    assert [r.finding.effect for r in ranked.top] == sorted((x.effect for x in found), reverse=True)[:10]
    t = ranked.table()
    assert len(t) == 25 and t["shown"].sum() == 10 and t["rank"].tolist() == list(range(1, 26))
    assert len(rank_findings(found, top=3).top) == 3


def test_only_one_bot_is_flagged_and_said():
    one = f("seat 0 wins more", 0.05, 1e-4, bots=("greedy",), settings=("bonus=2, skip=1",))
    two = f("games are longer", 0.2, 1e-4, bots=("greedy", "mcts"))
    assert one.only_one_bot and not two.only_one_bot
    ranked = rank_findings([one, two])
    text = {r.finding.text: r.sentence() for r in ranked.top}
    assert "studied under greedy only" in text["seat 0 wins more"]
    assert "settings: bonus=2, skip=1" in text["seat 0 wins more"]
    assert "only" not in text["games are longer"].split("Holm")[1] and "bots: greedy, mcts" in text["games are longer"]
    assert "Holm-adjusted p" in text["games are longer"]


def test_one_question_under_several_bots_says_where_it_holds():
    q = ("Shifting Stones", "seat", 3, "")
    greedy = f("seat 0 greedy", 0.05, 1e-6, bots=("greedy",), question=q)
    learned = f("seat 0 learned", 0.01, 0.4, bots=("learned",), question=q)
    mcts = f("seat 0 mcts", 0.04, 1e-5, bots=("mcts",), question=q)
    alone = f("games are longer", 0.2, 1e-4, bots=("greedy",))
    said = {r.finding.text: r for r in rank_findings([greedy, learned, mcts, alone]).top}
    assert said["seat 0 greedy"].scope == ("significant under greedy; mcts, not significant under learned, which "
                                           "does not show that it differs between them")
    assert said["seat 0 mcts"].studied_under == ("greedy", "learned", "mcts")
    assert said["games are longer"].scope == "studied under greedy only"
    both = rank_findings([greedy, mcts])
    assert all(r.scope == "holds under every bot studied (greedy; mcts)" for r in both.top)
    rest = {r.finding.text: r for r in rank_findings([greedy, learned]).rest}
    assert rest["seat 0 learned"].scope == ""  # not significant: the sentence says so already


def test_bad_findings_are_refused():
    with pytest.raises(ValueError):
        f("outside its interval", 0.5, 0.01, lo=0.0, hi=0.1)
    with pytest.raises(ValueError):
        f("no bots", 0.1, 0.01, bots=())
    with pytest.raises(TypeError):
        f("a string of bots", 0.1, 0.01, bots="greedy")
    with pytest.raises(ValueError):
        f("p above 1", 0.1, 1.5)
    with pytest.raises(ValueError):
        rank_findings([], top=-1)
    assert rank_findings([]).top == [] and len(rank_findings([]).table()) == 0


def test_seat_findings_from_the_seat_table():
    import pandas as pd

    from experiments import tables as T
    from reports.findings import SEAT_TEST, seat_findings

    rows = []
    for setting, wins in (("bonus=2, skip=1", [[1, 0]] * 70 + [[0, 1]] * 30), ("bonus=0, skip=1", [[1, 0]] * 50 + [[0, 1]] * 50)):
        t = T.seat_table(T.win_pattern_counts(pd.DataFrame(wins).to_numpy()), 2)
        t = t.rename(columns={"seat": "position", "ci_low": "rate_low", "ci_high": "rate_high",
                              "share_low": "ci_low", "share_high": "ci_high"})
        t["players"], t["setting"], t["bots"] = 2, setting, "greedy"
        t["p_equal_seats"] = T.equal_seats_p(T.win_pattern_counts(pd.DataFrame(wins).to_numpy()), 2)
        rows.append(t)
    found = seat_findings(pd.concat(rows, ignore_index=True), "stones-sweep", "Shifting Stones")
    assert len(found) == 2
    a = found[0]
    assert a.effect == pytest.approx(0.2) and a.test == SEAT_TEST and a.settings == ("bonus=2, skip=1",)
    assert a.p == pytest.approx(6.3e-05, rel=0.01)  # chi-square of 70 : 30
    assert "seat 0 at 2 players (bonus=2, skip=1) takes a win share of 70.0%" in a.text and a.only_one_bot
    ranked = rank_findings(found)
    assert [r.finding.settings for r in ranked.top] == [("bonus=2, skip=1",)]


def test_sweep_findings_put_shares_and_lengths_on_one_scale():
    import pandas as pd

    from reports.findings import PAIRED_TEST, sweep_findings

    tests = pd.DataFrame([
        {"setting": "bonus=2, skip=1", "metric": "turns", "value": 12.0, "baseline_value": 10.0, "pairs": 400,
         "diff": 2.0, "se_paired": 0.1, "p": 1e-20, "tested": True},
        {"setting": "bonus=2, skip=1", "metric": "seat0_share", "value": 0.55, "baseline_value": 0.5, "pairs": 400,
         "diff": 0.05, "se_paired": 0.02, "p": 0.01, "tested": True},
        {"setting": "bonus=2, skip=1", "metric": "truncated", "value": 0.0, "baseline_value": 0.0, "pairs": 400,
         "diff": 0.0, "se_paired": 0.0, "p": float("nan"), "tested": False},
    ])
    found = sweep_findings(tests, "sweep", "Shifting Stones", ("greedy", "mcts"))
    assert len(found) == 2 and all(f.test == PAIRED_TEST for f in found)  # the untested row claims nothing
    turns, seat = found
    assert turns.effect == pytest.approx(0.2) and turns.unit == "relative to the baseline"
    assert turns.ci_low == pytest.approx((2.0 - 1.966 * 0.1) / 10, abs=1e-4)
    assert seat.effect == pytest.approx(0.05) and seat.unit == "proportion"
    assert "changes the win share of seat 0 by +5.0 points" in seat.text and "bonus=2, skip=1" in seat.text
    # where the seat table is by position from the first player (Moon), a seat says it is the seat number
    moon = sweep_findings(tests, "sweep", "Three-Player Moon", ("greedy",), positions=True)[1]
    assert "win share of seat 0 (the seat number, not the position from the first player) by" in moon.text
    assert not seat.only_one_bot and seat.settings == ("bonus=2, skip=1",)
    assert [r.finding is turns for r in rank_findings(found).top] == [True, False]
