"""`playlab human`: play one game in the terminal as one seat against the engine's bots.

The game is ``simcore.game.Game`` (game ``index`` of run ``seed``: the deal ``playlab play``
gives that index).  The bots choose through the engine's own compiled dispatch
(``Batch.bot_action``) with the engine's streams (seat s:
``stream_key(seed, index, bot_stream(s))``, advanced only by its own decisions) and their
own memory rows, so a bot's choice in any position is the one it makes in ``playlab play``;
fed the choices the engine's bot would have made for the person's seat, the game is the
engine's game ``index``, move for move (tests/test_human.py checks it).

The person sees only their seat's view (the game's ``render`` of ``observe``), the legal
moves numbered in the game's words (``action_name``), and each bot move as it happens.
A bot move is named only when the person could tell it from every other move the bot
had (their view after it differs from the view after each alternative); otherwise only
its kind is shown ("discard (hidden from you)": Moon's face-down discard).  At the end the
game is written as a trace (shared/spec/trace.md; the person's seat is ``human``), which
the replay engines (``simcore.replay``) accept.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from bots.registry import BotError, allocate_memory
from simcore.game import Game
from simcore.games import entry
from simcore.rng import bot_stream, stream_key
from runtime.runner import Batch, RunConfig
from simcore.trace import write_traces

HUMAN = "human"



class HumanError(ValueError):
    pass


def seat_bots(bots: str, players: int, seat: int) -> list[str]:
    """The bot spec of every seat, ``human`` at ``seat``: one spec fills every other seat;
    ``players - 1`` specs are the other seats in order; ``players`` specs name ``human``
    at ``seat``."""
    items = [b.strip() for b in bots.split(",")]
    if any(not b for b in items):
        raise BotError(f"empty bot spec in {bots!r}")
    if players == 1 and len(items) == 1:
        return [HUMAN]  # solo: one spec, for every other seat, fills none (`human` itself also reads so)
    if len(items) == players:
        if items[seat] != HUMAN or items.count(HUMAN) != 1:
            raise HumanError(f"with {players} specs, seat {seat}'s must be 'human' (and only it)")
        return items
    if HUMAN in items:
        raise HumanError(f"'human' stands for seat {seat} only, with one spec per seat")
    if len(items) == 1:
        items = items * (players - 1)
    if len(items) != players - 1:
        raise HumanError(f"{len(items)} bot specs for the {players - 1} other seats "
                         "(give one, one per other seat, or one per seat with 'human')")
    return items[:seat] + [HUMAN] + items[seat:]


def infer_players(players: int | None, bots: str) -> int | None:
    if players is not None or "," not in bots:
        return players
    items = [b.strip() for b in bots.split(",")]
    return len(items) if HUMAN in items else len(items) + 1


def check_inferred_players(game: str, players: int | None, bots: str) -> None:
    """Players counted from --bots that the game does not take: say how they were counted
    (the specs given, and the person's seat added when 'human' is not among them), not only
    the total, which the user never typed."""
    from simcore.games import load_game

    n = infer_players(players, bots)
    if players is not None or n is None:
        return
    info = load_game(game).INFO
    try:
        info.check_players(n)
    except ValueError as exc:
        k = len(bots.split(","))
        lo, hi = max(info.min_players - 1, 1), info.max_players - 1
        others = str(lo) if lo == hi else f"{lo}-{hi}"
        how = (f"{k} specs in --bots (one per seat, 'human' at yours) make {n} players" if HUMAN in
               [b.strip() for b in bots.split(",")] else
               f"{k} bot specs in --bots for the other seats make {n} players with yours")
        raise HumanError(f"{how}, but {exc}: give one spec for all the other seats, or {others}, one per "
                         "other seat") from None


class Session:
    """One game: seat ``seat`` is a person, every other seat the engine's bot."""

    def __init__(self, game: str, players: int | None, bots: str, seat: int, seed: int = 0,
                 index: int = 0, variant: dict | None = None):
        check_inferred_players(game, players, bots)
        self.game = Game(game, infer_players(players, bots), variant, seed, index)
        n = self.game.players
        if not 0 <= seat < n:
            raise HumanError(f"no seat {seat}: seats are 0..{n - 1}")
        self.seat = seat
        self.my_moves = 0  # the person's own moves so far (the game's actions count every seat's)
        self.labels = seat_bots(bots, n, seat)
        # the person's seat gets a placeholder bot that is never asked
        specs = [("random" if s == seat else b) for s, b in enumerate(self.labels)]
        self.config = RunConfig.build(game, n, specs, variant, seed)
        self.labels = [(HUMAN if s == seat else label) for s, label in enumerate(self.config.bot_labels)]
        self.batch = Batch(self.config)
        self.rng = np.array([stream_key(seed, index, bot_stream(s)) for s in range(n)], dtype=np.int64)
        self.imem, self.fmem = allocate_memory(self.config.bots, self.config.info, n)
        self.agents = None
        if self.config.has_agents:  # Python agents in other seats: asked as in any run
            from runtime.agents import agent_stream, seats_for

            self.agents = seats_for(self.config)
            self.streams = {s: agent_stream(seed, index, s) for s in self.agents.agents}
            self.agents.start(index)

    def bot_move(self) -> int:
        g = self.game
        p = g.current_player
        if self.agents is not None and p in self.agents.agents:
            from runtime.agents import ask_agent

            return ask_agent(self.agents, g.state, g.params, p, g.index, self.streams[p])
        return self.batch.bot_action(g.state, p, self.rng, self.imem, self.fmem, g.index)

    def words_for(self, action: int) -> str:
        """``action`` as the person may know it (see the module docstring)."""
        g = self.game
        name = g.action_name(action)
        if g.current_player == self.seat:
            return name
        legal = g.legal_actions()
        if len(legal) == 1:
            return name
        after = {}
        for a in legal:
            twin = g.clone()
            twin.module.apply(twin.state, twin.params, a)  # a throw-away copy: no trace needed
            after[a] = twin.view(self.seat)
        mine = after[action]
        if any(np.array_equal(mine, v) for a, v in after.items() if a != action):
            return f"{name.split(' ')[0]} (hidden from you)"
        return name

    def trace(self) -> dict:
        return self.game.trace(self.labels)


def result_lines(session: Session) -> list[str]:
    g = session.game
    r = g.result()
    n = g.players
    scores = [r[f"score_{s}"] for s in range(n)]
    winners = [s for s in range(n) if r[f"win_{s}"]]
    lines = ["game over: scores " + ", ".join(
        f"seat {s}{' (you)' if s == session.seat else ''} {scores[s]}" for s in range(n))]
    if r["truncated"]:
        cap = g.info.truncation_option
        lines.append(f"the game was truncated by its cap{f' ({cap})' if cap else ''}: no winner")
    elif not winners:
        lines.append("nobody wins")
    else:
        who = ", ".join(f"seat {s}" for s in winners)
        if session.seat in winners:
            lines.append("you win" + (f" (shared with {who})" if len(winners) > 1 else "") + "!")
        else:
            lines.append(f"{who} win{'s' if len(winners) == 1 else ''}; you lose")
    return lines


def _moves(n: int) -> str:
    return f"{n} move{'' if n == 1 else 's'}"


def progress_words(session: Session) -> str:
    """How far the person got: their own moves, and the game's (which count every seat's)."""
    return f"{_moves(session.my_moves)} of yours ({_moves(len(session.game.actions))} in the game)"


def default_trace_path(session: Session) -> str:
    g = session.game
    return f"human-{g.name}-seed{g.seed}-game{g.index}.jsonl"


def play(session: Session, read: Callable[[str], str] = input, write: Callable[[str], None] = print,
         delay: float = 0.5, trace_path: str | None = None) -> str | None:
    """Play the session to its end or to ``q``; returns the trace file written (None on
    quitting: an unfinished game leaves no trace a later run could take for a whole one)."""
    g = session.game
    me = session.seat
    write(f"{g.info.title}, {g.players} player{'s' if g.players != 1 else ''}, seed {g.seed}, game {g.index}: you are seat {me}")
    write("bots: " + ", ".join(f"seat {s} {b}" for s, b in enumerate(session.labels) if s != me))
    write("enter a move's number, ? for the rules, q to quit")
    while not g.is_over:
        p = g.current_player
        if p != me:
            a = session.bot_move()
            words = session.words_for(a)
            g.step(a)
            write(f"seat {p} ({session.labels[p]}): {words}")
            if delay > 0:
                time.sleep(delay)
            continue
        legal = g.legal_actions()
        write("")
        write(g.render(me))
        write("your moves:")
        for k, a in enumerate(legal, 1):
            write(f"  {k:>2}. {g.action_name(a)}")
        names = {g.action_name(a).lower(): a for a in legal}
        while True:
            try:
                raw = read(f"your move (1-{len(legal)}, ? rules, q quit): ").strip()
            except EOFError:
                raw = "q"
            if raw in ("q", "quit"):
                write(f"you quit after {progress_words(session)}; no trace written")
                return None
            if raw in ("?", "help"):
                write(entry(g.name).rules_summary() or g.info.description or "(no rules summary for this game)")
                continue
            if raw.isdigit() and 1 <= int(raw) <= len(legal):
                choice = legal[int(raw) - 1]
            elif raw.lower() in names:
                choice = names[raw.lower()]
            else:
                write(f"not a move: {raw!r}; enter a number from 1 to {len(legal)}, ? or q")
                continue
            break
        g.step(choice)
        session.my_moves += 1
        write(f"you: {g.action_name(choice)}")
    write("")
    write(g.render(me))
    for line in result_lines(session):
        write(line)
    path = trace_path or default_trace_path(session)
    write_traces(path, [session.trace()])
    write(f"trace: {Path(path).resolve()}")
    return path
