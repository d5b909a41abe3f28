"""Sequence Stacks' section of `playlab report`: chips by colour, blocked sequences, action cards
and length by player count (registered in simcore/games/__init__.py)."""
from __future__ import annotations

from .. import balance as B
from .. import blocks as H
from .. import plots as P


def section(st: B.StudyData, info):
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
    blocks.append(H.block("Sequence Stacks: chips by colour", None,
                         P.groups_plot(groups, "players", "chips a seat holds at the end (chips)", "Chips by colour",
                                     xticklabels=[str(n) for n in counts]),
                         "Mean chips per seat by colour, 95% intervals; the table adds the winners' chips.",
                         H.table(ch, {"per seat": ("chips_per_seat", "ci_low", "ci_high", False),
                                     "per winner": ("winner_chips", "w_low", "w_high", False)})))
    bl = t["blocked"]
    blocks.append(H.block("Sequence Stacks: sequences blocked", None,
                         P.groups_plot({"blocked": ([counts.index(n) for n in bl["players"]], bl["blocked_share"] * 100,
                                                  bl["ci_low"] * 100, bl["ci_high"] * 100)},
                                     "players", "completed sequences blocked (%)",
                                     "Share of completed sequences an opponent blocked",
                                     xticklabels=[str(n) for n in counts]), "",
                         H.table(bl, {"blocked": ("blocked_share", "ci_low", "ci_high"),
                                     "completions per game": ("completions_per_game", "comp_low", "comp_high", False)})))
    r = bl.iloc[-1]
    found.append(f"Sequence Stacks ({st.name}): {B.ci_text((r.blocked_share, r.ci_low, r.ci_high))} of completed "
                 f"sequences are blocked at {int(r.players)} players")
    ac = t["actions"]
    groups = {f"{n} players": (list(range(len(part))), part["difference"] * 100, part["diff_low"] * 100,
                               part["diff_high"] * 100) for n, part in ac.groupby("players")}
    blocks.append(H.block("Sequence Stacks: action cards", (
        "Per seat and game: the win rate of seats that played the card at least once minus that of seats that "
        "did not. Holding and playing a card goes with longer games and more turns, so this measures "
        "association, not the card's causal worth."),
        P.groups_plot(groups, "action card", "win rate, users minus non-users (percentage points)",
                    "Win rate of users vs non-users per action card", 0.0, "no difference",
                    list(B.STACKS_ACTIONS)), "",
        H.table(ac, {"users": ("win_users", "users_low", "users_high"),
                    "non-users": ("win_nonusers", "non_low", "non_high"),
                    "difference": ("difference", "diff_low", "diff_high")})))
    big = ac.loc[ac["difference"].abs().idxmax()]
    found.append(f"Sequence Stacks ({st.name}): seats that play {big.card} win "
                 f"{B.ci_text((big.win_users, big.users_low, big.users_high))} against "
                 f"{B.ci_text((big.win_nonusers, big.non_low, big.non_high))} for those that do not "
                 f"({int(big.players)} players)")
    ln = t["length"]
    blocks.append(H.block("Sequence Stacks: game length by player count", None,
                         P.groups_plot({"mean turns": ([counts.index(n) for n in ln["players"]], ln["mean_turns"],
                                                     ln["ci_low"], ln["ci_high"])},
                                     "players", "turns per game (turns)", "Game length by player count",
                                     xticklabels=[str(n) for n in counts]), "",
                         H.table(ln, {"mean turns": ("mean_turns", "ci_low", "ci_high", False)})))
    if len(ln) > 1:
        a, z = ln.iloc[0], ln.iloc[-1]
        found.append(f"Sequence Stacks ({st.name}): decided games last {a.mean_turns:.1f} [{a.ci_low:.1f}, {a.ci_high:.1f}] "
                     f"turns at {int(a.players)} players and {z.mean_turns:.1f} [{z.ci_low:.1f}, {z.ci_high:.1f}] at "
                     f"{int(z.players)}")
    return blocks, found

