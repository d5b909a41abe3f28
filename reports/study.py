"""The generic section of one study in `playlab report`: seat advantage, win rates per bot and
ratings, a balance search's variants, score and length distributions and truncation; then the
game's own section from its registration."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from . import balance as B
from . import blocks as H
from . import plots as P
from . import recomputed


def bots_text(run: dict) -> str:
    bots = run["bots"]
    return bots[0] if len(set(bots)) == 1 else ", ".join(bots)


def options_text(study: B.StudyData) -> str:
    from simcore.games import load_game

    info = load_game(study.game).INFO
    settings = pd.unique(B.setting_labels(study.record, study.runs, np.arange(len(study.runs))))
    # a varied option is named in every setting the study ran, the one at its default too (a
    # sweep's baseline, a balance variant); listing only the values away from the defaults
    # would leave that setting out
    vary = set(study.record.get("vary") or ()) if settings[0] else set()
    changed = set()
    for r in study.runs:
        changed.update(B.changed_options(info, {k: v for k, v in r["variant"].items() if k not in vary}))
    text = ", ".join(sorted(changed))
    if vary:
        return (text + "; " if text else "") + f"{len(settings)} settings: " + "; ".join(settings)
    return text or "defaults"



def section(st: B.StudyData, info, game_section=None) -> tuple[dict, list[str]]:
    """The study's section (a dict the template reads) and its findings; ``game_section``
    is the game's own ``section(study, info) -> (blocks, findings)`` or None."""
    blocks, found = [], []
    first_col = getattr(info, "first_player_column", None)
    pos_word = "bidding position (0 bids first)" if first_col else "seat (0 plays first)"
    title = f"{info.title}: {st.name} ({st.kind})"
    # seat advantage
    adv = B.seat_advantage(st, first_col)
    if len(adv):
        labels = [f"{r.players} players, {'position' if first_col else 'seat'} {r.position}"
                  + (f", {r.setting}" if "setting" in adv else "") for r in adv.itertuples()]
        svg = P.forest(labels, adv["advantage"] * 100, adv["adv_low"] * 100, adv["adv_high"] * 100, 0.0,
                     "win share minus the fair 1/n (percentage points)",
                     f"Seat advantage by {pos_word}", "fair (0)")
        blocks.append(H.block("Seat advantage", None, svg,
                             f"The figure: the win share of each {pos_word} minus 1/n over the decided games; the "
                             "table: the win share itself beside the fair 1/n; 95% intervals"
                             + ("; each deal counts once, its seatings averaged (they replay the same cards), "
                                "so the intervals are over deals." if "deals" in adv else "."),
                             H.table(adv[[c for c in ("players", "setting", "position", "games", "deals", "win_share",
                                                     "ci_low", "ci_high", "fair") if c in adv]],
                                    {"win share": ("win_share", "ci_low", "ci_high")})))
        worst = adv.loc[adv["advantage"].abs().idxmax()]
        found.append(f"{info.title} ({_named(st, worst)}): {pos_word.split(' (')[0]} {int(worst.position)} at "
                     f"{int(worst.players)} players takes a win share of "
                     f"{B.ci_text((worst.win_share, worst.ci_low, worst.ci_high))} (a shared win split among its "
                     f"winners), fair is {100 / worst.players:.1f}%"
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
        svg = P.groups_plot(groups, "players", "win share per seat (%)", "Win share per bot",
                          ref, "fair 1/n" if ref else None, [str(n) for n in counts])
        blocks.append(H.block("Win rates per bot", None, svg, "Each bot's win share per seat it held, 95% intervals.",
                             H.table(wr, {"win share per seat": ("win_share_per_seat", "ci_low", "ci_high")})))
    if st.kind == "tournament" and "ratings" not in st.tournament_tables():
        found.append(f"{info.title} ({st.name}): every game of the tournament was truncated, so no bot is rated")
    elif st.kind == "tournament":
        r = st.tournament_tables()["ratings"].sort_values("rating", ascending=False)
        svg = P.forest(list(r["bot"]), r["rating"], r["ci_low"], r["ci_high"], 0.0,
                     "rating (Elo points, mean 0)", "Ratings with 95% bootstrap intervals over deals", "mean rating")
        blocks.append(H.block("Ratings", None, svg, "Bradley-Terry / Plackett-Luce ratings on the Elo scale.",
                             r.to_html(index=False, float_format=lambda x: f"{x:.1f}", border=0)))
        top = r.iloc[0]
        found.append(f"{info.title} ({st.name}): {top.bot} rates {top.rating:.0f} Elo "
                     f"[{top.ci_low:.0f}, {top.ci_high:.0f}] above the field mean"
                     + (_runner_up(r, st.tournament_tables().get("pairwise")) if len(r) > 1 else ""))
        found += _restricted_play_block(st, info, blocks)
    found += _balance_search_block(st, blocks)
    _sweep_tests_block(st, blocks)
    # scores and lengths
    d = st.decided()
    panels: dict[str, dict] = {}  # one panel per setting of a sweep: its name is the panel's title
    for (n, g), part in d.groupby(["players", "setting"], sort=False):
        n = int(n)
        seats = B.position_seats(part, n, first_col)
        sc = np.take_along_axis(part[B.seat_cols("score", n)].to_numpy(np.float64), seats, axis=1)
        for k in range(n):
            panels.setdefault(g or "", {})[f"{n}p {'pos' if first_col else 'seat'} {k}"] = sc[:, k]
    boxes = sum(len(p) for p in panels.values())
    if boxes and boxes <= 24:
        blocks.append(H.block("Score distributions", None,
                             P.box_plot(panels, pos_word, "final score (game points)", "Final score by " + pos_word),
                             "Decided games; the diamond is the mean."))
    ln = B.lengths(st)
    lseries = {f"{int(n)} players" + (f", {g}" if g else ""): part["turns"].to_numpy(np.float64)
               for (n, g), part in d.groupby(["players", "setting"], sort=False)}
    blocks.append(H.block("Game length and truncated games", None,
                         P.hist_plot(lseries, "turns per game (the game's own turns)", "Game length (decided games)"),
                         "Share of decided games by length, one line per player count (and setting).",
                         H.table(ln, {"mean turns": ("mean_turns", "turns_low", "turns_high", False),
                                     "truncated": ("truncated_share", "trunc_low", "trunc_high")})))
    if (ln["truncated_share"] >= 0.001).any():
        r = ln.loc[ln["truncated_share"].idxmax()]
        found.append(f"{info.title} ({_named(st, r)}): {B.ci_text((r.truncated_share, r.trunc_low, r.trunc_high))} of the "
                     f"games at {int(r.players)} players hit the cap and are left out of the win rates")
    # the game's own section: once per rule setting of a sweep or balance search, each
    # setting's figures headed and its findings named by it (pooled, a finding quoted one
    # setting's figure as the study's), once for any other study
    if game_section is not None:
        for setting, part in B.split_settings(st):
            if setting:
                part = replace(part, name=f"{st.name}, {setting}")
            game_blocks, game_found = game_section(part, info)
            pooled = B.pooled_text(part)  # a tournament's seatings: its bots together
            if game_blocks and pooled:
                game_blocks.insert(0, H.block(None, f"The figures below pool {pooled}."))
            blocks += [_headed(b, setting) for b in game_blocks] if setting else game_blocks
            found += game_found
    return {"id": "study-" + st.name.replace("/", "-"), "title": title, "intro": intro(st), "blocks": blocks}, found


def _named(st: B.StudyData, row) -> str:
    """The study's name for a finding about one row of its tables, with the row's rule
    setting when it has one (a sweep's or balance search's rows are per setting)."""
    setting = getattr(row, "setting", "")
    return f"{st.name}, {setting}" if isinstance(setting, str) and setting else st.name


def _headed(block: dict, setting: str) -> dict:
    """A block of one setting's game section, its heading (or figure text) naming the setting."""
    out = dict(block)
    if out.get("heading"):
        out["heading"] = f"{out['heading']} ({setting})"
    out["alt"] = f"{out.get('alt') or ''} ({setting})".strip()
    return out


def _runner_up(ratings: pd.DataFrame, pairwise: pd.DataFrame | None) -> str:
    """What the top rating is worth against the second: the difference of their win rates
    over the deals both played (``win_rate_diff``, each deal's seatings averaged) with the
    command's 95% interval from the paired standard error over deals (``diff_low`` /
    ``diff_high``: a deal's seatings replay its cards).  Two bots that play alike (Moon's
    ``bidder`` at its defaults is ``greedy``) come out in either order; a finding naming
    one of them the best must say when their games do not tell them apart."""
    first, second = ratings.iloc[0].bot, ratings.iloc[1].bot
    if pairwise is None:
        return ""
    row = pairwise[((pairwise.bot_a == first) & (pairwise.bot_b == second))
                   | ((pairwise.bot_a == second) & (pairwise.bot_b == first))]
    if not len(row):
        return f"; it never met {second}, the second"
    row = row.iloc[0]
    if not np.isfinite(row.diff_low):
        return f"; against {second}, the second, too few deals to tell them apart"
    diff, lo, hi = ((row.win_rate_diff, row.diff_low, row.diff_high) if row.bot_a == first
                    else (-row.win_rate_diff, -row.diff_high, -row.diff_low))
    verdict = "ahead of" if lo > 0 else "not told apart from"
    return (f"; {verdict} {second}, the second: its win rate minus {second}'s over the deals both "
            f"played {100 * diff:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}] percentage points (95%, paired by deal)")


def _restricted_play_block(st: B.StudyData, info, blocks: list) -> list[str]:
    """Restricted play (Jaffe et al. 2012): what each forbidden kind of move was worth to
    its base bot in this tournament, as the tournament command printed it."""
    from experiments import restricted_play as rp

    t = st.tournament_tables().get(rp.RESTRICTED_PLAY)
    if t is None or not len(t):
        return []
    labels = [f"never {r.forbidden.replace('_', ' ')} ({r.base})" for r in t.itertuples()]
    svg = P.forest(labels, t["worth"] * 100, t["ci_low"] * 100, t["ci_high"] * 100, 0.0,
                   "the base's win rate minus the restricted bot's (points)",
                   "What each move is worth: the base against itself without it", "no difference")
    shown = t.assign(worth=t["worth"] * 100, ci_low=t["ci_low"] * 100, ci_high=t["ci_high"] * 100)[
        ["forbidden", "base", "games", "worth", "ci_low", "ci_high", "p_holm", "verdict"]]
    shown["p_holm"] = ["untested (one deal)" if p != p else "< 0.001" if p < 0.001 else f"{p:.3f}"
                       for p in shown["p_holm"]]
    blocks.append(H.block("Restricted play: what each move is worth", None, svg,
                         "Restricted play (Jaffe et al. 2012): each restricted bot plays its base with one kind of "
                         "move taken away (a random allowed move where the base would have made it), on the same "
                         "deals; worth is the base's win rate minus the restricted bot's in the games both played "
                         "(points, a shared win counted half), 95% interval from the paired standard error, Holm "
                         "over the restrictions.",
                         H.table(shown, {"worth (points)": ("worth", "ci_low", "ci_high", False)})))
    return [f"{rp.sentence(info.title, r)} ({st.name})" for r in t.itertuples()]


def _sweep_tests_block(st: B.StudyData, blocks: list) -> None:
    """`playlab sweep`: each setting against the baseline on the same deals, every measure
    tested, as the command computed it (sweep_tests.csv, recomputed from the store).  The
    summary's findings quote these differences; their p-values there are adjusted again,
    over every finding of the report."""
    if st.kind != "sweep":
        return
    t = recomputed.sweep_tests(st)
    tested = t[t["tested"].astype(bool)]
    if not len(tested):
        return
    shown = tested[["setting", "metric", "value", "baseline_value", "pairs", "diff", "se_paired", "p", "p_holm"]]
    blocks.append(H.block("Each setting against the baseline",
                         "Every measure of each setting against the baseline on the same deals (paired), as "
                         "`playlab sweep` computed it (sweep_tests.csv): the difference, its paired standard error "
                         "and p-value, Holm-adjusted over the sweep's tests. The summary's findings adjust again, "
                         "over every finding of this report, so their p-values are larger.", None, "",
                         shown.to_html(index=False, float_format=lambda x: f"{x:.4g}", border=0)))


def _balance_search_block(st: B.StudyData, blocks: list) -> list[str]:
    """`playlab balance`: the variants, whether each meets the targets, and the games each
    was given, as the command printed them (recomputed from the store, not balance.csv)."""
    if st.kind != "balance":
        return []
    from experiments.balance_search import BUDGET, NO_GAME_ENDED, undecided_by_reason

    why_undecided = {BUDGET: "as the next round would pass the budget",
                     NO_GAME_ENDED: "as no game of theirs ended at some player count: every one hit the cap, so "
                                    "they were not played further"}
    t = recomputed.balance_table(st)
    targets = st.record.get("targets", [])
    rows = []
    for _, r in t.iterrows():
        row = {"variant": r["variant"], "meets every target": r["meets"], "games": r["games"]}
        if r["meets"] == "undecided" and r.get("undecided_because"):
            row["undecided because"] = r["undecided_because"]
        for col in t.columns:
            if col.endswith(":value") and not pd.isna(r[col]):
                key = col[: -len(":value")]
                row[key] = (f"{float(r[col]):.4g} [{float(r[key + ':ci_low']):.4g}, "
                            f"{float(r[key + ':ci_high']):.4g}] {r[key + ':meets']}")
        rows.append(row)
    table = pd.DataFrame(rows).fillna("").to_html(index=False, border=0, escape=True)
    met = [r["variant"] for r in rows if r["meets every target"] == "true"]
    verdict = (f"{len(met)} of {len(rows)} variants meet every target"
               + (f": {'; '.join(met[:5])}{' …' if len(met) > 5 else ''}" if met else "")
               + "".join(f"; {len(names)} undecided ({'; '.join(names[:5])}{' …' if len(names) > 5 else ''}), "
                         + why_undecided[reason] for reason, names in undecided_by_reason(t).items()) + ".")
    blocks.append(H.block("Rule variants against the targets", f"The search's answer: {verdict}", None,
                         f"Targets {'; '.join(targets)}, each at every player count. A variant is raced in rounds "
                         f"(the first of {st.record.get('first_round', st.record.get('chunk', '?'))} games, each "
                         "next one doubling its games) until every target's 95% interval lies wholly inside or "
                         "outside it; the intervals are per look, not corrected for the rounds. "
                         f"{st.record.get('games_spent', '?')} games spent of a budget of {st.record.get('budget')}.",
                         table))
    return [f"{st.name}: {verdict[:-1]}"]


def intro(st: B.StudyData) -> str:
    kinds = {"play": "one configuration played", "fpa": "the same bot in every seat per player count",
             "tournament": "every seating of the bots over the same deals",
             "sweep": "the same deals under each rule value",
             "balance": "rule variants raced against targets on the same deals"}
    return (f"{kinds.get(st.kind, st.kind)}; {len(st.frame):,} games in {H.runs_text(st.frame['run'].nunique())}, "
            f"{int(st.frame['truncated'].sum()):,} truncated.")

