"""Moon's section of `playlab report`: make rate by bid and trump, the widow's worth, moons and
points by bidding position (registered in simcore/games/__init__.py)."""
from __future__ import annotations

from .. import balance as B
from .. import blocks as H
from .. import plots as P


def section(st: B.StudyData, info):
    t = B.moon_tables(st)
    blocks, found = [], []
    if "by_bid" in t:
        bb = t["by_bid"][t["by_bid"]["contracts"] > 0]
        svg = P.groups_plot({"make rate": (range(len(bb)), bb["make_rate"] * 100, bb["ci_low"] * 100,
                                         bb["ci_high"] * 100)},
                          "winning bid (tricks promised; 21 = shoot the moon)", "contracts made (%)",
                          "Make rate by bid level", xticklabels=list(bb["bid"]))
        blocks.append(H.block("Moon: make rate by bid level", None, svg,
                             "Share of won contracts the bidder made, per bid, 95% Wilson intervals; a bid no "
                             "contract was won at is listed, not dropped.",
                             H.table_with_never(t["by_bid"], {"make rate": ("make_rate", "ci_low", "ci_high")})))
        tr = t["by_trump"][t["by_trump"]["contracts"] > 0]
        svg = P.groups_plot({"make rate": (range(len(tr)), tr["make_rate"] * 100, tr["ci_low"] * 100,
                                         tr["ci_high"] * 100)},
                          "trump named by the bidder", "contracts made (%)", "Make rate by trump",
                          xticklabels=list(tr["trump"]))
        blocks.append(H.block("Moon: make rate by trump", None, svg,
                             "Suits 0-6, doubles as trump, or no trump; a trump never named is listed, not dropped.",
                             H.table_with_never(t["by_trump"], {"make rate": ("make_rate", "ci_low", "ci_high")})))
        w = t["widow"].set_index("widow")
        kept, disc = w.loc["kept"], w.loc["discarded"]
        dd = B.diff_ci((kept["made"], kept["contracts"]), (disc["made"], disc["contracts"]))
        blocks.append(H.block("Moon: what the widow is worth", (
            "The bidder takes the widow tile and discards one tile. The widow is 'kept' when the bidder discards "
            "another tile (the widow improved the hand) and 'discarded' when it goes straight back. Its worth: "
            f"the make rate with the widow kept minus with it discarded, {B.ci_pp(dd)} "
            f"(widow kept in {B.ci_text(B.wilson(kept['contracts'], kept['contracts'] + disc['contracts']))} of "
            "contracts). The bots choose, so this is "
            "the worth of a useful widow, not a controlled experiment."), None, "",
            H.table(t["widow"], {"make rate": ("make_rate", "ci_low", "ci_high")})))
        best = bb.loc[bb["contracts"].idxmax()]
        found.append(f"Moon ({st.name}): the most common contract, a bid of {best.bid}, is made "
                     f"{B.ci_text((best.make_rate, best.ci_low, best.ci_high))} of the time")
        found.append(f"Moon ({st.name}): keeping the widow tile changes the bidder's make rate by {B.ci_pp(dd)} "
                     f"({B.ci_text((kept.make_rate, kept.ci_low, kept.ci_high))} kept vs "
                     f"{B.ci_text((disc.make_rate, disc.ci_low, disc.ci_high))} discarded)")
    m = t["moon"].iloc[0]
    blocks.append(H.block("Moon: shooting the moon", (
        f"{int(m.attempts):,} moon contracts in {int(m.hands):,} played hands: "
        f"{B.ci_text((m.attempts_per_100_hands, m.per100_low, m.per100_high), pct=False, digits=2)} per 100 hands; "
        f"made {B.ci_text((m.success_rate, m.ci_low, m.ci_high))}."), None, "", None))
    if m.attempts:
        found.append(f"Moon ({st.name}): {m.attempts_per_100_hands:.2f} moon attempts per 100 hands, made "
                     f"{B.ci_text((m.success_rate, m.ci_low, m.ci_high))}")
    p = t["positions"]
    svg = P.groups_plot({"points per hand": (p["position"], p["points_per_hand"], p["pts_low"], p["pts_high"])},
                      "bidding position in the hand (0 bids first)", "points per played hand (game points)",
                      "Points per hand by bidding position", xticklabels=["0", "1", "2"])
    blocks.append(H.block("Moon: points per hand by bidding position", None, svg,
                         "Mean points a seat scores per played hand by its bidding position; 95% intervals over games.",
                         H.table(p, {"points/hand": ("points_per_hand", "pts_low", "pts_high", False),
                                    "make rate": ("make_rate", "ci_low", "ci_high")})))
    return blocks, found

