"""The luck-and-skill section of `playlab report`: where each game sits between skill and chance
(the "X%-coin-flip" figure of its tournaments, beside the one over its measured skill ladder),
how often the weaker bot wins, the spread of outcomes per deal under rotated seatings, and the
first-player advantage by bot skill."""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import balance as B
from . import blocks as H
from . import plots as P


def skill_chance_blocks(studies: list[B.StudyData], findings: list[str]) -> list[dict]:
    """Per game: each tournament's skill-against-chance figure (the table the tournament
    command printed, recomputed from the stored rows) pair by pair and over all pairs, with the figure over
    the game's measured skill ladder (shipped in ``bots/ladders``) as the reference row."""
    from bots.ladder import chance_table
    from simcore.games import load_game

    per_game: dict[str, list] = {}
    for st in studies:
        table = st.tournament_tables().get("skill_chance") if st.kind == "tournament" else None
        if table is not None:
            per_game.setdefault(st.game, []).append((st.name, table))
    blocks = []
    for game, tables in per_game.items():
        title = load_game(game).INFO.title
        rows = []
        for name, t in tables:
            for r in t.itertuples():
                rows.append({"study": name, "pair": r.pair, "games": r.games, "coin_flip": float(r.coin_flip),
                             "ci_low": float(r.ci_low), "ci_high": float(r.ci_high)})
            r = t.iloc[-1]  # over all pairs
            findings.append(f"{title} ({name}): between these bots a coin flip decides "
                            f"{B.ci_text((r.coin_flip, r.ci_low, r.ci_high))} of the games and skill the rest "
                            "(the \"X%-coin-flip\" scale: 0% = the stronger bot always wins, 100% = pure chance)")
        ladder = chance_table(game)
        if ladder is not None:
            r = ladder.iloc[-1]  # over all pairs
            rows.append({"study": "skill ladder (shipped)", "pair": "(all pairs)", "games": int(r.games),
                         "coin_flip": float(r.coin_flip), "ci_low": float(r.ci_low), "ci_high": float(r.ci_high)})
        table = pd.DataFrame(rows)
        labels = [f"{r.study}: {r.pair}" for r in table.itertuples()]
        svg = P.forest(labels, table["coin_flip"] * 100, table["ci_low"] * 100, table["ci_high"] * 100, 50.0,
                       "share of games a coin flip decides (%): 0 = skill always decides, 100 = pure chance",
                       f"{title}: skill against chance", "half skill, half chance", xlim=(-2, 102))
        blocks.append(H.block(f"{title}: skill against chance (the X%-coin-flip scale)", (
            "Each pair of bots as a game in which a coin decides a share X of the games and the stronger "
            "bot wins the rest (X = 2 × (1 − the stronger bot's win rate); Duersch, Lambrecht & Oechssler "
            "2020, where poker comes out near 75%). The figure depends on the bots: the further apart, the "
            "smaller X. The last row is over the game's measured skill ladder."), svg,
            "95% intervals: percentile intervals over the tournament's Poisson bootstrap over deals.",
            H.table(table, {"coin flip decides": ("coin_flip", "ci_low", "ci_high")})))
    return blocks


def sections(studies: list[B.StudyData], findings: list[str]) -> list[dict]:
    from simcore.games import load_game

    blocks = skill_chance_blocks(studies, findings)
    for st in studies:
        title = load_game(st.game).INFO.title
        ww = B.weaker_wins(st)
        if ww is not None and len(ww):
            labels = [f"{r.weaker} vs {r.stronger}" + ("" if r.told_apart else " (not told apart)")
                      for r in ww.itertuples()]
            svg = P.forest(labels, ww["weaker_ahead"] * 100, ww["ci_low"] * 100, ww["ci_high"] * 100, 50.0,
                         "games the weaker bot finished ahead (%, ties half)",
                         "How often the weaker bot wins", "a coin flip (50%)")
            blocks.append(H.block(f"{title} ({st.name}): how often the weaker bot wins", None, svg, "",
                                 H.table(ww, {"weaker ahead": ("weaker_ahead", "ci_low", "ci_high")})))
            apart = ww[ww["told_apart"]]
            if len(apart):
                r = apart.loc[apart["weaker_ahead"].idxmin()]  # the widest gap: strongest against weakest
                findings.append(f"{title} ({st.name}): the weaker bot {r.weaker} finishes ahead of {r.stronger} in "
                                f"{B.ci_text((r.weaker_ahead, r.ci_low, r.ci_high))} of their games (a game they "
                                "finish level counted as half)")
            else:
                findings.append(f"{title} ({st.name}): no two bots are told apart by their games together "
                                "(the difference of their win rates over the deals both played holds 0)")
        sp = B.deal_spread(st)
        if sp is not None and len(sp):
            ent = B.mean_ci(sp["entropy"])
            span = B.mean_ci(sp["span"])
            mx = float(sp["max_entropy"].iloc[0])
            svg = P.spread_plot(sp["span"].to_numpy(float), sp["entropy"].to_numpy(float), mx,
                                int(sp["seatings"].iloc[0]))
            blocks.append(H.block(f"{title} ({st.name}): outcome spread per deal under rotated seatings", (
                f"Each deal is played under every seating. Mean span {B.ci_text(span, pct=False, digits=3)} "
                f"(1: the same bot wins every seating, skill decides; 0: every bot wins equally often, the seat "
                f"dealt decides); mean entropy {B.ci_text(ent, pct=False, digits=3)} bits of {mx:.2f}."),
                svg, f"{len(sp):,} deals decided in every seating."))
            findings.append(f"{title} ({st.name}): per deal under rotated seatings the best bot's win rate exceeds "
                            f"the worst's by {B.ci_text(span, pct=False, digits=3)} on average (1 = skill decides "
                            f"every deal), winner entropy {ent[0]:.3f} [{ent[1]:.3f}, {ent[2]:.3f}] of {mx:.2f} bits")
    # first-player advantage by bot skill: configurations with one bot in every seat, compared
    # only under the same rules (a rule change is no skill difference), each named by its study
    rows = []
    for st in studies:
        info = load_game(st.game).INFO
        first_col = getattr(info, "first_player_column", None)
        for n, part in B.by_players(st):
            for (run, bot), sub in part.groupby(["run", "bot_0"]):
                same = (sub[B.seat_cols("bot", n)].to_numpy() == bot).all(axis=1)
                sub = sub[same & ~sub["truncated"].astype(bool).to_numpy()]
                if n < 2 or len(sub) < 100:
                    continue
                share = np.take_along_axis(B.win_share(sub, n), B.position_seats(sub, n, first_col), axis=1)
                m = B.mean_ci(share[:, 0])
                rows.append({"game": st.game, "rules": B.rules_text(info, st.runs[int(run)]["variant"]),
                             "players": n, "bot": bot, "study": st.name, "games": len(sub),
                             "first_advantage": m[0] - 1 / n, "low": m[1] - 1 / n, "high": m[2] - 1 / n})
    fp = pd.DataFrame(rows)
    if len(fp):
        for (game, rules), part in fp.groupby(["game", "rules"], sort=False):
            if part["bot"].nunique() < 2:
                continue
            title = load_game(game).INFO.title
            labels = [f"{r.players} players, {r.bot} ({r.study})" for r in part.itertuples()]
            heading = f"{title} ({rules}): first-player advantage by bot skill"
            svg = P.forest(labels, part["first_advantage"] * 100, part["low"] * 100, part["high"] * 100, 0.0,
                         "first player's win share minus 1/n (percentage points)",
                         f"{title}: first-player advantage by bot skill", "fair (0)")
            blocks.append(H.block(heading, None, svg,
                                 f"Configurations with the same bot in every seat, all under {rules}; each "
                                 "row names the study it comes from. The interval is the t interval of the mean "
                                 "per-game win share (fpa prints a Wilson interval of the win rate).",
                                 H.table(part.drop(columns=["game", "rules"]),
                                         {"advantage": ("first_advantage", "low", "high")})))
    if not blocks:
        return []
    return [{"id": "luck-skill", "title": "Luck and skill", "intro": (
        "How much the deal and the seat decide against the bots' skill: where each game sits between skill "
        "and chance, the weaker bot's wins, the spread of outcomes over the seatings of each deal, and the first "
        "player's edge by bot strength."),
        "blocks": blocks}]

