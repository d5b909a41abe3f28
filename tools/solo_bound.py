"""An exhaustive upper bound for solo Shifting Stones, on the deals a bot played.

    python tools/solo_bound.py [--bots planner] [--games 400] [--seed 41] [--cards 5]
                               [--budget 0] [--json]

The bot plays games ``0 .. games-1`` of run ``seed`` exactly as ``playlab play
shifting-stones --players 1 --bots BOT --games N --seed S`` does (same deals, same play).
Each game is replayed to the first start of a turn with at most ``--cards`` cards left to
score (the bot's own position there, with the real deck).  From it the exact search
(``bots.shifting_stones.endgame`` in bound mode) asks whether *any* play can still win when
the player may also choose every card a refill or a skip draws (among the cards that can
be in the draw pile then).  The actual draws, whatever the deck order and the reshuffles,
are among those choices, so this bounds the play of anyone who knew the whole deck and
every reshuffle in advance (and ignores the 200-turn cap, never near).

What it bounds: the win rate of the best possible play, even clairvoyant, from the bot's
own positions at ``--cards`` cards left, on these deals.  A game the bot won before any
such turn start counts as a win of the bound; a game it lost before one counts as a loss
(the bound is of the bot's play up to that point, replaced by anything from there on).
The bot's own win rate on the same deals can only be at or below it (checked per game).
A search that hits ``--budget`` (millions of paths; 0: none) is counted as a win
(undecided), so the bound stays an upper bound.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bots.shifting_stones import endgame as E  # noqa: E402
from experiments import tables  # noqa: E402
from simcore.games import shifting_stones as S  # noqa: E402
from simcore.kernel_helpers import HALF  # noqa: E402
from simcore.rng import CHANCE_STREAM, stream_key  # noqa: E402

TT_BITS = 21
SEEN_BITS = 13


def _cards(lo: int, hi: int) -> list[int]:
    lo, hi = int(lo), int(hi)
    return [c for c in range(HALF) if lo >> c & 1] + [HALF + c for c in range(HALF) if hi >> c & 1]


def position_at(state: np.ndarray, params: np.ndarray, actions, cards_left: int):
    """Step ``state`` (just dealt) through ``actions`` to the first turn start with at most
    ``cards_left`` cards to score; returns that state (or None if the game ended first)."""
    for a in actions:
        if state[S.OVER]:
            return None
        if (state[S.PENDING] < 0 and state[S.TURN_ACTIONS] == 0
                and state[S.NCARDS] - state[S.SCORED_TOTAL] <= cards_left):
            return state.copy()
        S.apply(state, params, int(a))
    if not state[S.OVER] and state[S.NCARDS] - state[S.SCORED_TOTAL] <= cards_left:
        return state.copy()
    return None


class Searcher:
    """The search's tables, reused from position to position (cleared each time)."""

    def __init__(self):
        self.tk = np.zeros(1 << TT_BITS, np.int64)
        self.tv = np.zeros(1 << TT_BITS, np.float64)
        self.seen = np.zeros(2 << SEEN_BITS, np.int64)
        self.work = np.zeros(E.WORK_SIZE + E.PLAN_SIZE, np.int64)

    def run(self, params, univ, hs, grid, H, P, X, sl, budget, mode):
        E.clear_tables(self.tk, self.seen)
        cards = np.zeros(E.UMAX, np.int64)
        cards[:len(univ)] = univ
        v = E.solve(params, cards, np.int64(hs), np.int64(grid), np.int64(H), np.int64(P), np.int64(X),
                    np.int64(sl), np.int64(E.MAXD), self.tk, self.tv, self.seen, self.work, np.int64(budget),
                    np.int64(E.MAXD), np.int64(mode))
        return float(v), int(self.work[E.W_NODES]), bool(self.work[E.W_ABORT])


def bound_of_state(state: np.ndarray, params: np.ndarray, searcher: Searcher, budget: int = 0, mode: int = 1):
    """(value, paths tried, aborted) of the exhaustive search from a solo turn start with
    at most ``E.UMAX`` cards left: mode 1 the bound (draws chosen, skips), mode 0 the best
    play that knows which cards are left but not their order (the draw averaged)."""
    game = set(_cards(state[S.GAME_LO], state[S.GAME_HI]))
    scored = {c for c in range(S.NUM_CARDS) if state[S.SCORED_BY + c] >= 0}
    univ = sorted(game - scored)
    if len(univ) > E.UMAX:
        raise ValueError(f"{len(univ)} cards left: the search takes at most {E.UMAX}")
    idx = {c: i for i, c in enumerate(univ)}

    def local(cards):
        m = 0
        for c in cards:
            if c in idx:
                m |= 1 << idx[c]
        return m

    H = local(_cards(state[S.HAND_LO], state[S.HAND_HI]))
    X = local(_cards(state[S.DISCARD_LO], state[S.DISCARD_HI]))
    P = ((1 << len(univ)) - 1) & ~H & ~X
    sl = int(params[S.OPT_SOLO_STRIKES] - state[S.STRIKES])
    if mode == 1 and state[S.SKIPPED]:
        sl |= 64  # its last turn was a skip: no skip now
    return searcher.run(params, univ, int(params[S.OPT_HAND_SIZE]), int(state[S.GRID]), H, P, X, sl, budget, mode)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bots", default="planner")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--cards", type=int, default=5, help=f"cards left at the position searched (1..{E.UMAX})")
    ap.add_argument("--budget", type=float, default=20.0, help="millions of paths per search (0: no limit)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from runtime.runner import Batch, RunConfig

    config = RunConfig.build("shifting-stones", 1, args.bots, {}, args.seed)
    batch = Batch(config)
    params = config.params()
    cols = config.columns()
    searcher = Searcher()
    budget = int(args.budget * 1e6)
    play_seconds = 0.0
    bot_wins = bound_wins = reached = undecided = won_before = 0
    per_game = []
    t1 = time.time()
    for i in range(args.games):
        t = time.time()
        actions, row = batch.record(i)  # the game as the batch plays it (same deal, same play)
        play_seconds += time.time() - t
        win = int(row[cols.index("win_0")])
        bot_wins += win
        state = np.zeros(S.STATE_SIZE, np.int64)
        S.init(state, params, 1, stream_key(args.seed, i, CHANCE_STREAM))
        pos = position_at(state, params, actions, args.cards)
        if pos is None:
            b = win
            won_before += win
            info = {"game": i, "bot_win": win, "reached": False, "bound": b}
        else:
            reached += 1
            v, nodes, aborted = bound_of_state(pos, params, searcher, budget)
            b = 1 if (v >= 1 - 1e-9 or aborted) else 0
            undecided += int(aborted)
            info = {"game": i, "bot_win": win, "reached": True, "bound": b, "paths": nodes, "undecided": aborted,
                    "strikes": int(pos[S.STRIKES]), "left": int(pos[S.NCARDS] - pos[S.SCORED_TOTAL])}
            if win and not b:
                raise AssertionError(f"game {i}: the bot won where the bound says no play can")
        bound_wins += b
        per_game.append(info)
        print(json.dumps(info), file=sys.stderr, flush=True)
    search_seconds = time.time() - t1 - play_seconds
    n = args.games
    # rates with their 95% Wilson intervals (statsmodels', through experiments.tables)
    p, lo, hi = map(float, tables.wilson(bot_wins, n))
    bp, blo, bhi = map(float, tables.wilson(bound_wins, n))
    out = {"bots": args.bots, "games": n, "seed": args.seed, "cards": args.cards,
           "bot_wins": bot_wins, "bot_rate": p, "bot_ci": [lo, hi],
           "bound_wins": bound_wins, "bound_rate": bp, "bound_ci": [blo, bhi],
           "reached": reached, "won_before": won_before, "undecided": undecided,
           "play_seconds": play_seconds, "games_per_second": n / play_seconds if play_seconds else None,
           "search_seconds": search_seconds}
    if args.json:
        out["per_game"] = per_game
        print(json.dumps(out))
    else:
        print(f"{args.bots}: {bot_wins}/{n} solo wins = {p:.3f} (95% Wilson {lo:.3f}-{hi:.3f}), "
              f"{out['games_per_second']:.2f} games/s")
        print(f"bound from its positions at <= {args.cards} cards left: {bound_wins}/{n} = {bp:.3f} "
              f"(95% Wilson {blo:.3f}-{bhi:.3f}); reached {reached}, won before {won_before}, "
              f"undecided (counted as wins) {undecided}; search {search_seconds:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
