"""Shifting Stones' section of `playlab report`: every card's scoring rate and round against its
value, the value classes, the 1-point bonus and skips (registered in simcore/games/__init__.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import balance as B
from .. import blocks as H
from .. import plots as P


def _cards_table(cards: pd.DataFrame, classes: pd.DataFrame) -> tuple[str, list[str]]:
    """Every Shifting Stones card: id, value, its pattern drawn, scored share and worth with
    intervals, mean round, and whether it is an outlier within its value class."""
    import html as html_mod

    from simcore.games.shifting_stones_deck import load_deck

    patterns = {c.id: "\n".join(c.rows) for c in load_deck()}
    by_class = classes.set_index("points")
    rows, outliers = [], []
    for _, c in cards.sort_values("card").iterrows():
        mean = float(by_class["scored_rate"].get(c.points, np.nan))
        flag = "above its class" if c.ci_low > mean else "below its class" if c.ci_high < mean else ""
        if flag:
            k = by_class.loc[c.points]
            outliers.append(f"card #{int(c.card)} ({int(c.points)} pt) scored {B.ci_text((c.scored_rate, c.ci_low, c.ci_high))}"
                            f", {flag} ({B.ci_text((k.scored_rate, k.ci_low, k.ci_high))})")
        rows.append(f"<tr><td>{int(c.card)}</td><td>{int(c.points)}</td>"
                    f"<td class=\"t\"><pre class=\"pattern\">{html_mod.escape(patterns.get(int(c.card), '?'))}</pre></td>"
                    f"<td>{B.ci_text((c.scored_rate, c.ci_low, c.ci_high))}</td>"
                    f"<td>{B.ci_text((c.expected_points, c.ep_low, c.ep_high), pct=False)}</td>"
                    f"<td>{'never scored' if c.mean_round != c.mean_round else f'{c.mean_round:.1f}'}</td>"
                    f"<td>{flag}</td></tr>")
    head = ("<tr><th>card</th><th>value</th><th>pattern</th><th>scored</th><th>worth (points per game)</th>"
            "<th>mean round</th><th>outlier</th></tr>")
    return f'<table class="sortable"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>', outliers



def section(st: B.StudyData, info):
    t = B.stones_tables(st)
    blocks, found = [], []
    if "cards" in t:
        cards = t["cards"]
        for n, part in cards.groupby("players"):
            blocks.append(H.block(f"Shifting Stones: the 72 cards at {n} players", None,
                                 P.scatter_cards(part, f"{n} players"),
                                 "Left: share of games each card is scored in. Right: mean round it is scored in."))
        cls = t["classes"]
        for n, part in cards.groupby("players"):
            table, outliers = _cards_table(part, cls[cls["players"] == n])
            blocks.append(H.block(f"Shifting Stones: every card at {n} players", None, None,
                                 "Click a column to sort. Scored: share of decided games in which the card was "
                                 "scored (95% Wilson); worth: its value times that share; outlier: its interval "
                                 "lies wholly above or below the mean share of its value class. Who scored each "
                                 "card is recorded (the card_N_scored columns), but how often a card decides the "
                                 "winner is not shown here.", table))
            if outliers:
                found.append(f"Shifting Stones ({st.name}, {n} players): outliers within their value class: "
                             + "; ".join(outliers[:6]) + (" …" if len(outliers) > 6 else ""))
        groups = {f"{n} players": (list(range(len(part))), part["expected_points_per_card"],
                                   part["points"] * part["ci_low"], part["points"] * part["ci_high"])
                  for n, part in cls.groupby("players")}
        svg = P.groups_plot(groups, "card face value (points)", "expected points per card per game",
                          "Is a 5-pointer worth 5? Face value x share of games scored",
                          xticklabels=[str(v) for v in sorted(cls["points"].unique())])
        blocks.append(H.block("Shifting Stones: points per value class", None, svg,
                             "A card's expected contribution per game is its value times the chance it is scored.",
                             H.table(cls, {"scored": ("scored_rate", "ci_low", "ci_high")})))
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
        svg = P.groups_plot({"winner changed by the bonus": (range(len(b)), b["changed_rate"] * 100,
                                                           b["ci_low"] * 100, b["ci_high"] * 100)},
                          "players", "decided games (%)", "How often the 1-point bonus changes the winner",
                          xticklabels=ticks)
        blocks.append(H.block("Shifting Stones: the 1-point bonus and skips", (
            "'Winner changed': the seats with the top score differ from those with the most card points, i.e. "
            "the bonus for the most 1-point cards decided (or split) the game."), svg, "",
            H.table(b, pct)))
        if "games_with_skip" in b:
            svg = P.groups_plot({"games with a skip": (range(len(b)), b["games_with_skip"] * 100, b["gws_low"] * 100,
                                                     b["gws_high"] * 100)},
                              "players", "decided games with at least one skip (%)", "How often a skip is used",
                              xticklabels=ticks)
            blocks.append(H.block(None, None, svg, "Skips per seat per game are in the table above.",
                                 alt="Shifting Stones: skip usage"))
        r = b.loc[b["changed_rate"].idxmax()]
        found.append(f"Shifting Stones ({st.name}): the 1-point bonus changes the winner in "
                     f"{B.ci_text((r.changed_rate, r.ci_low, r.ci_high))} of decided games at {int(r.players)} players")
        if "games_with_skip" in b:
            r = b.iloc[0]
            found.append(f"Shifting Stones ({st.name}): a skip is used in "
                         f"{B.ci_text((r.games_with_skip, r.gws_low, r.gws_high))} of games at {int(r.players)} players")
    return blocks, found

