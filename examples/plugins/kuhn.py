"""Kuhn poker as a plugin game: a complete game outside the package, with a bot of its own.

    playlab --plugin examples/plugins/kuhn.py play kuhn --bots nash,random --games 10000 --seed 1

Three cards J < Q < K, two players, ante ``ante`` each, one betting round with a bet of
``bet`` chips.  Seat 0 acts first: pass (check) or bet; facing a check, seat 1 checks (to
the showdown) or bets; facing a bet, a seat calls (to the showdown) or passes (folds, the
bettor takes the pot).  Showdown: the higher card takes the pot.

It registers itself (the last lines of this file) through playlab's public API, exactly as
the built-in games do: its kernels (this module), its independent replay engine
(``replay``), its report section (``report_section``), its rules summary for ``playlab
human`` and its bot ``nash`` (Kuhn's equilibrium family, one parameter).  It then works in
every command: ``play``, ``show``, ``tournament``, ``check``, traces and replay, PettingZoo,
``report``.

State::

{layout}

Actions: 0 pass (check or fold), 1 bet (bet or call).

``returns`` is the win share (1 to the winner, 0 to the loser; Kuhn has no ties), as the
protocol defines it; ``score_S`` is the seat's net chips.

Observation (``INFO.observation_size(2)`` = {obs_size} floats)::

{obs_layout}
"""
from __future__ import annotations

import numpy as np
from numba import njit

import sys

import playlab
from simcore.layout import Column, Columns, Field, Layout
from simcore.rng import below, uniform

Option, GameInfo, HIDDEN = playlab.Option, playlab.GameInfo, playlab.HIDDEN

PLAYERS = 2
CARDS = 3
CARD_NAMES = ("J", "Q", "K")
PASS = 0
BET = 1
NUM_ACTIONS = 2
MAX_HISTORY = 3

LAYOUT = Layout(
    Field("CARD", 2, "each seat's card (0 J, 1 Q, 2 K)"),
    Field("SPARE", 1, "the undealt card"),
    Field("HISTORY", MAX_HISTORY, "actions so far (0 pass, 1 bet), -1 after the last"),
    Field("NACTIONS", 1, "actions taken"),
    Field("ACTOR", 1, "seat to act, -1 once over"),
    Field("CONTRIB", 2, "chips each seat has put in the pot"),
    Field("OVER", 1, "1 once the game is over"),
    Field("WINNER", 1, "winning seat, -1 before the end"),
    Field("SHOWDOWN", 1, "1 if the cards were shown"),
    Field("TURNS", 1, "actions taken (the turns column)"),
    Field("RNG", 1, "chance stream"),
)
LAYOUT.export(globals())

# every entry is 0/1 or a fraction (the contributions are at most ante + bet), the Field
# default range [0, 1] that the RL spaces take (simcore.layout: Field low/high)
OBS = Layout(
    Field("O_OWN", CARDS, "one-hot: the seat's card"),
    Field("O_OTHER", CARDS, "one-hot: the opponent's card once shown, else zeros"),
    Field("O_HISTORY", 2 * MAX_HISTORY, "per action so far: one-hot pass / bet"),
    Field("O_TO_ACT", 1, "1 when the seat is to act"),
    Field("O_CONTRIB", 2, "chips in the pot, own then opponent's, over ante + bet"),
    size_name="OBS_SIZE",
)
OBS.export(globals())

OPTIONS = (
    Option("ante", "int", 1, "chips each player antes", 1, 5),
    Option("bet", "int", 1, "chips a bet or call puts in", 1, 5),
)
OPT_ANTE = 0
OPT_BET = 1

COLUMNS = Columns(
    LAYOUT,
    Column("pot", "chips in the pot at the end"),
    Column("showdown", "1 if the cards were shown, 0 if a seat folded", field="SHOWDOWN"),
)

COL_TRUNCATED = COLUMNS.index("truncated", PLAYERS)
COL_TURNS = COLUMNS.index("turns", PLAYERS)
COL_POT = COLUMNS.index("pot", PLAYERS)
COL_SHOWDOWN = COLUMNS.index("showdown", PLAYERS)

__doc__ = __doc__.format(layout=LAYOUT.table(), obs_size=OBS_SIZE, obs_layout=OBS.table())


@njit(cache=True)
def init(state, params, players, chance_key):
    state[:] = 0
    state[RNG] = chance_key
    # deal: a random permutation of the three cards, seat 0, seat 1, then the spare
    first = below(state[RNG:RNG + 1], 0, 3)
    second = below(state[RNG:RNG + 1], 0, 2)
    if second >= first:
        second += 1
    state[CARD] = first
    state[CARD + 1] = second
    state[SPARE] = 3 - first - second
    for i in range(MAX_HISTORY):
        state[HISTORY + i] = -1
    state[ACTOR] = 0
    state[CONTRIB] = params[OPT_ANTE]
    state[CONTRIB + 1] = params[OPT_ANTE]
    state[WINNER] = -1


@njit(cache=True)
def current_player(state):
    return -1 if state[OVER] else state[ACTOR]


@njit(cache=True)
def is_terminal(state):
    return state[OVER] == 1


@njit(cache=True)
def legal_actions(state, params, out):
    if state[OVER]:
        return 0
    out[0] = PASS
    out[1] = BET
    return 2


@njit(cache=True)
def random_action(state, params, rng, slot):
    return below(rng, slot, 2)


@njit(cache=True)
def _finish(state, winner, showdown):
    state[OVER] = 1
    state[WINNER] = winner
    state[SHOWDOWN] = showdown
    state[ACTOR] = -1


@njit(cache=True)
def apply(state, params, action):
    p = state[ACTOR]
    k = state[NACTIONS]
    state[HISTORY + k] = action
    state[NACTIONS] = k + 1
    state[TURNS] += 1
    facing_bet = state[CONTRIB + 1 - p] > state[CONTRIB + p]
    high = 0 if state[CARD] > state[CARD + 1] else 1
    if action == BET:
        state[CONTRIB + p] += params[OPT_BET]
        if facing_bet:
            _finish(state, high, 1)  # a call
            return
    elif facing_bet:
        _finish(state, 1 - p, 0)  # a fold
        return
    elif k == 1:
        _finish(state, high, 1)  # check, check
        return
    state[ACTOR] = 1 - p


@njit(cache=True)
def summarize(state, params, players, row):
    pot = state[CONTRIB] + state[CONTRIB + 1]
    w = state[WINNER]
    for s in range(PLAYERS):
        row[s] = (pot if s == w else 0) - state[CONTRIB + s]
        row[PLAYERS + s] = 1 if s == w else 0
    row[COL_TRUNCATED] = 0
    row[COL_TURNS] = state[TURNS]
    row[COL_POT] = pot
    row[COL_SHOWDOWN] = state[SHOWDOWN]


@njit(cache=True)
def returns(state, params, players, out):
    for s in range(PLAYERS):
        out[s] = 0.0
    if state[OVER]:
        out[state[WINNER]] = 1.0


@njit(cache=True)
def observe(state, player, out):
    for i in range(STATE_SIZE):
        out[i] = state[i]
    if not state[SHOWDOWN]:
        out[CARD + 1 - player] = HIDDEN
    out[SPARE] = HIDDEN
    out[RNG] = HIDDEN


@njit(cache=True)
def determinize(view, params, player, rng, slot, out):
    out[:] = view
    mine = view[CARD + player]
    other = view[CARD + 1 - player]
    if other == HIDDEN:
        k = below(rng, slot, 2)
        other = k if k < mine else k + 1
        out[CARD + 1 - player] = other
    out[SPARE] = 3 - mine - other
    out[RNG] = rng[slot] ^ 0x5DEECE66D


@njit(cache=True)
def observation(view, params, seat, out):
    for i in range(OBS_SIZE):
        out[i] = 0.0
    out[O_OWN + view[CARD + seat]] = 1.0
    other = view[CARD + 1 - seat]
    if other != HIDDEN:
        out[O_OTHER + other] = 1.0
    for k in range(view[NACTIONS]):
        out[O_HISTORY + 2 * k + view[HISTORY + k]] = 1.0
    out[O_TO_ACT] = 1.0 if view[OVER] == 0 and view[ACTOR] == seat else 0.0
    scale = params[OPT_ANTE] + params[OPT_BET]
    out[O_CONTRIB] = view[CONTRIB + seat] / scale
    out[O_CONTRIB + 1] = view[CONTRIB + 1 - seat] / scale


INFO = GameInfo(
    name="kuhn",
    title="Kuhn poker",
    min_players=2,
    max_players=2,
    options=OPTIONS,
    num_actions=NUM_ACTIONS,
    state_size=lambda players: STATE_SIZE,
    extra_columns=COLUMNS.extra_names,
    max_decisions=lambda players: MAX_HISTORY,
    chance="the deal, inside init",
    information="imperfect (the opponent's card)",
    utility="net chips; one winner",
    description="three-card poker, one bet round (an example plugin game)",
    column_docs=tuple(COLUMNS.docs()),
    observation_size=lambda players: OBS_SIZE,
)


# ---- words ----------------------------------------------------------------------------------
def action_name(action: int) -> str:
    return ("pass", "bet")[action]


def trace_start(state, params, players) -> list[str]:
    return [f"deal {s} {CARD_NAMES[state[CARD + s]]}" for s in range(PLAYERS)]


def trace_step(before, action, after, params, players) -> list[str]:
    p = int(before[ACTOR])
    events = [f"{action_name(action)} {p}"]
    if after[OVER]:
        if after[SHOWDOWN]:
            events.append(f"showdown {int(after[WINNER])}")
        else:
            events.append(f"fold {1 - int(after[WINNER])}")
    return events


def trace_result(values: dict, players: int) -> dict:
    return {"pot": values["pot"]}


EVENT_FIELDS = {"deal": ("seat", "card"), "pass": ("seat",), "bet": ("seat",),
                "showdown": ("winner",), "fold": ("seat",)}


def render(view, seat, params, players) -> str:
    lines = [f"Kuhn poker, you are seat {seat}"]
    for s in range(PLAYERS):
        card = view[CARD + s]
        shown = CARD_NAMES[card] if card != HIDDEN else "hidden card"
        lines.append(f"seat {s}: {shown}, {int(view[CONTRIB + s])} chips in the pot")
    history = " ".join(action_name(int(view[HISTORY + k])) for k in range(int(view[NACTIONS])))
    lines.append("actions: " + (history or "none yet"))
    if view[OVER]:
        lines.append(f"over: seat {int(view[WINNER])} takes the pot")
    else:
        lines.append(f"seat {int(view[ACTOR])} to act: pass or bet")
    return "\n".join(lines)


RULES_SUMMARY = """\
Kuhn poker: three cards J < Q < K, one each, ante 1. Seat 0 acts first: pass (check) or
bet 1. Facing a check: check (showdown) or bet. Facing a bet: bet (call, showdown) or pass
(fold: the bettor takes the pot). At the showdown the higher card takes the pot."""


# ---- its own bot: Kuhn's equilibrium family ----------------------------------------------------
NASH_PARAMS = (playlab.BotParam("alpha", 0.2, 0.0, 1.0 / 3.0,
                                "seat 0's bluff rate with the jack (every equilibrium: 0 .. 1/3)"),)
P_ALPHA = 0


def nash_policy(view, legal, n, bot_params, params, rng, seat, imem, fmem):
    """Kuhn's equilibrium strategies (Kuhn 1950): seat 0 bets J with alpha, K with 3 alpha,
    calls with Q with alpha + 1/3; seat 1 bets J after a check with 1/3, calls Q with 1/3,
    always bets or calls with K.  It reads its own card and the public actions only."""
    alpha = bot_params[seat, P_ALPHA]
    card = view[CARD + seat]
    facing = view[CONTRIB + 1 - seat] > view[CONTRIB + seat]
    if seat == 0 and not facing:
        p_bet = alpha if card == 0 else (0.0 if card == 1 else 3.0 * alpha)
    elif seat == 0:
        p_bet = 0.0 if card == 0 else (alpha + 1.0 / 3.0 if card == 1 else 1.0)
    elif not facing:
        p_bet = 1.0 / 3.0 if card == 0 else (0.0 if card == 1 else 1.0)
    else:
        p_bet = 0.0 if card == 0 else (1.0 / 3.0 if card == 1 else 1.0)
    return BET if uniform(rng, seat) < p_bet else PASS


# ---- its report section (``playlab report``) -------------------------------------------------
def report_section(study, info):
    """Per bot setting: how often the hand went to a showdown, with a 95% Wilson interval."""
    from statsmodels.stats.proportion import proportion_confint

    frame = study.frame
    rows = []
    for bots, part in frame.groupby([c for c in frame.columns if c.startswith("bot_")], dropna=False):
        k, n = int(part["showdown"].sum()), len(part)
        lo, hi = proportion_confint(k, n, method="wilson")
        rows.append({"bots": ", ".join(map(str, bots if isinstance(bots, tuple) else (bots,))), "games": n,
                     "showdown": f"{k / n:.1%} [{lo:.1%}, {hi:.1%}]"})
    import pandas as pd

    table = pd.DataFrame(rows).to_html(index=False, border=0)
    block = {"heading": "Kuhn poker: showdowns", "text": "Hands that reached a showdown (the rest were folded).",
             "png": None, "caption": "", "table": table, "alt": "showdowns"}
    return [block], []


# ---- the Python reference: replays a trace with no kernel code ------------------------------
def replay(trace: dict) -> dict:
    """The result a trace leads to, by the rules above in plain Python (raises ValueError
    on an illegal event)."""
    ante = trace["variant"]["ante"]
    bet = trace["variant"]["bet"]
    cards: dict[int, int] = {}
    put = [ante, ante]
    turn, acted, over = 0, 0, None
    for event in trace["log"]:
        kind, *rest = event.split()
        if kind == "deal":
            cards[int(rest[0])] = CARD_NAMES.index(rest[1])
        elif kind in ("pass", "bet"):
            seat = int(rest[0])
            if over is not None or seat != turn or len(cards) != 2 or cards[0] == cards[1]:
                raise ValueError(f"illegal {event!r}")
            facing = put[1 - seat] > put[seat]
            acted += 1
            if kind == "bet":
                put[seat] += bet
                if facing:
                    over = ("showdown", None)
            elif facing:
                over = ("fold", 1 - seat)
            elif acted == 2:
                over = ("showdown", None)
            turn = 1 - seat
        elif kind == "showdown":
            if over is None or over[0] != "showdown":
                raise ValueError(f"unexpected {event!r}")
        elif kind == "fold":
            if over is None or over[0] != "fold" or int(rest[0]) != 1 - over[1]:
                raise ValueError(f"unexpected {event!r}")
        else:
            raise ValueError(f"unknown event {event!r}")
    if over is None:
        raise ValueError("the trace ends before the game does")
    winner = over[1] if over[0] == "fold" else (0 if cards[0] > cards[1] else 1)
    pot = sum(put)
    return {"scores": [(pot if s == winner else 0) - put[s] for s in range(2)],
            "winners": [winner], "truncated": False, "pot": pot}


# ---- joining playlab: one game, one bot ------------------------------------------------------
playlab.register_game("kuhn", sys.modules[__name__], replay=replay, report=report_section, rules=RULES_SUMMARY)
playlab.register_bot(playlab.BotSpec("nash", "Kuhn's equilibrium strategies (alpha: the jack bluff rate)",
                                     NASH_PARAMS), nash_policy, games=("kuhn",))
