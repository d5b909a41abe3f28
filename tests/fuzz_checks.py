"""State checkers for the kernel fuzz tests (tests/test_fuzz.py): for each game, what a
legal state must satisfy whatever the options, read straight from the state layout in the
game module's header.  Each checker raises ``IllegalState`` naming the broken rule; the
fuzz tests corrupt states by hand to prove every rule can fire."""
from __future__ import annotations

from collections import Counter

import numpy as np

import simcore.games.moon as M
import simcore.games.sequence_stacks as Q
import simcore.games.shifting_stones as S


class IllegalState(AssertionError):
    """A state no legal play can reach."""


def require(ok, what: str) -> None:
    if not ok:
        raise IllegalState(what)


def bits(mask: int) -> list[int]:
    mask = int(mask)
    return [i for i in range(mask.bit_length()) if (mask >> i) & 1]


def require_partition(places: dict[str, list[int]], universe: list[int], thing: str) -> None:
    """Every item of ``universe`` in exactly one place, and nothing else anywhere."""
    seen = Counter()
    where: dict[int, list[str]] = {}
    for name, items in places.items():
        for x in items:
            seen[x] += 1
            where.setdefault(x, []).append(name)
    twice = {x: w for x, w in where.items() if len(w) > 1}
    require(not twice, f"{thing} in more than one place: {twice}")
    stray = sorted(set(seen) - set(universe))
    require(not stray, f"{thing} not of this game: {stray} (in {[where[x] for x in stray]})")
    lost = sorted(set(universe) - set(seen))
    require(not lost, f"{thing} lost: {lost}")


# ---- Three-Player Moon ------------------------------------------------------------------------
def check_moon(s, params, players):
    """The 22 tiles are exactly partitioned among the hands, the widow (while nobody holds it),
    the discard (once made), the current trick and the tiles of completed tricks."""
    phase = int(s[M.PHASE])
    require(M.PHASE_BID <= phase <= M.PHASE_OVER, f"phase {phase}")
    taken, done = int(s[M.WIDOW_TAKEN]), int(s[M.DISCARD_DONE])
    require(taken in (0, 1) and done in (0, 1), f"widow taken {taken}, discard done {done}")
    # the widow slot keeps the tile's id after the bidder takes it into the hand; the
    # discard slot means something only once the discard is made
    require(not done or taken, "discarded without taking the widow")
    require(int(s[M.WIDOW]) == int(s[M.DECK + M.NUM_TILES - 1]), "the widow is not the deal's last tile")
    table = [int(s[M.TABLE + i]) for i in range(3)]
    on_table = [t for t in table if t >= 0]
    played = int(s[M.PLAYED])
    require(all(0 <= t < M.NUM_TILES for t in on_table), f"table {table}")
    require(all((played >> t) & 1 for t in on_table), f"a tile on the table {table} is not in the played set")
    require(len(on_table) == int(s[M.IN_TRICK]), f"{len(on_table)} tiles on the table, IN_TRICK {s[M.IN_TRICK]}")
    places = {f"hand {i}": bits(s[M.HAND + i]) for i in range(3)}
    places["widow"] = [int(s[M.WIDOW])] if not taken else []
    places["discard"] = [int(s[M.DISCARDED])] if done else []
    places["trick"] = on_table
    places["completed tricks"] = [t for t in bits(played) if t not in on_table]
    require_partition(places, list(range(M.NUM_TILES)), "tile")
    require(len(places["completed tricks"]) == 3 * int(s[M.TRICK_NO]),
            f"{len(places['completed tricks'])} tiles in {s[M.TRICK_NO]} completed tricks")
    require(sum(int(s[M.TRICKS + i]) for i in range(3)) == int(s[M.TRICK_NO]) <= M.TRICKS_PER_HAND,
            "tricks taken do not add up to tricks completed")
    sizes = [len(places[f"hand {i}"]) for i in range(3)]
    bidder = int(s[M.BIDDER])
    if phase == M.PHASE_BID:
        require(not taken and not done and sizes == [7, 7, 7], f"bidding with hands {sizes}, widow {taken}")
        require(int(s[M.TRUMP]) == -1, "trump named while bidding")
    elif phase in (M.PHASE_DISCARD, M.PHASE_TRUMP):
        require(0 <= bidder < 3 and int(s[M.ACTOR]) == bidder, "the bidder does not decide")
        require(int(s[M.TRICK_NO]) == 0 and not on_table, "tricks before play")
        want = [7, 7, 7]
        want[bidder] += taken - done
        require(sizes == want, f"hands {sizes} in phase {phase}, widow {taken}, discard {done}")
        if phase == M.PHASE_DISCARD:
            require(taken and not done, "discard phase without the widow in hand")
    elif phase == M.PHASE_PLAY:
        require(taken and done and 0 <= int(s[M.TRUMP]) < M.NUM_TRUMPS, "play before widow, discard and trump")
        for i in range(3):
            require(sizes[i] == 7 - int(s[M.TRICK_NO]) - (table[i] >= 0),
                    f"seat {i} holds {sizes[i]} tiles in trick {s[M.TRICK_NO]}")
    # exactly one actor, the one the phase names
    actor = int(s[M.ACTOR])
    if phase == M.PHASE_BID:
        want_actor = (int(s[M.FIRST_BIDDER]) + int(s[M.SPOKEN])) % 3
    elif phase == M.PHASE_PLAY:
        want_actor = (int(s[M.LEADER]) + int(s[M.IN_TRICK])) % 3
    else:
        want_actor = bidder if phase != M.PHASE_OVER else actor
    require(actor == want_actor, f"seat {actor} acts in phase {phase}, not seat {want_actor}")
    require(int(s[M.HAND_NO]) <= params[M.OPT_HAND_CAP], f"hand {s[M.HAND_NO]} past the cap")
    if s[M.TRUNCATED]:
        require(phase == M.PHASE_OVER and int(s[M.HAND_NO]) == params[M.OPT_HAND_CAP] and s[M.WINNER] == -1,
                "truncated before the hand cap, or with a winner")


def moon_cap(params, players):
    return int(params[M.OPT_HAND_CAP]) * M.MAX_DECISIONS_PER_HAND


# ---- Shifting Stones ------------------------------------------------------------------------
def _card_set(lo, hi):
    return [c for c in bits(lo) if c < S.HALF] + [S.HALF + c for c in bits(hi) if c < S.HALF]


def check_shifting_stones(s, params, players):
    """Every card of the game in exactly one of draw pile, hands, discard pile, scored; the
    grid holds the 9 tiles (kinds S/M once, F/B twice, H/O and E/T three times each)."""
    require(int(s[S.PLAYERS]) == players, "player count")
    grid = int(s[S.GRID])
    require(0 <= grid < 1 << 27, f"grid {grid:#x} outside 27 bits")
    kinds = sorted((grid >> (3 * cell) & 7) >> 1 for cell in range(9))
    require(kinds == sorted(S.TILE_KINDS.tolist()), f"grid tile kinds {kinds}")
    game = _card_set(s[S.GAME_LO], s[S.GAME_HI])
    require(len(game) == int(s[S.NCARDS]) == (S.NUM_CARDS if players > 1 else 16),
            f"{len(game)} cards in the game, NCARDS {s[S.NCARDS]}")
    top, end = int(s[S.DRAW_TOP]), int(s[S.DRAW_END])
    require(0 <= top <= end <= S.NUM_CARDS, f"draw pile [{top}:{end}]")
    places = {"draw pile": [int(c) for c in s[S.DECK + top:S.DECK + end]],
              "discard pile": _card_set(s[S.DISCARD_LO], s[S.DISCARD_HI]),
              "scored": [c for c in range(S.NUM_CARDS) if s[S.SCORED_BY + c] >= 0]}
    for i in range(S.MAX_PLAYERS):
        hand = _card_set(s[S.HAND_LO + i], s[S.HAND_HI + i])
        require(len(hand) == int(s[S.HAND_N + i]), f"seat {i} holds {len(hand)} cards, HAND_N {s[S.HAND_N + i]}")
        require(i < players or not hand, f"absent seat {i} holds cards")
        places[f"hand {i}"] = hand
    require_partition(places, game, "card")
    require(len(places["discard pile"]) == int(s[S.DISCARD_N]), "DISCARD_N")
    scored = places["scored"]
    require(len(scored) == int(s[S.SCORED_TOTAL]), "SCORED_TOTAL")
    for i in range(players):
        mine = [c for c in scored if s[S.SCORED_BY + c] == i]
        require(len(mine) == int(s[S.CARDS + i]), f"seat {i} CARDS")
        require(sum(int(params[S.P_POINTS + c]) for c in mine) == int(s[S.POINTS + i]), f"seat {i} POINTS")
        require(sum(params[S.P_POINTS + c] == 1 for c in mine) == int(s[S.ONES + i]), f"seat {i} ONES")
    require(all(0 <= s[S.SCORED_BY + c] < players for c in scored), "SCORED_BY seat")
    pending = int(s[S.PENDING])
    require(pending == -1 or pending in places["discard pile"], f"pending card {pending} not on the discard pile")
    require(int(s[S.ROUND]) <= params[S.OPT_ROUND_CAP], f"round {s[S.ROUND]} past the cap")
    require(bool(s[S.OVER]) == (int(s[S.CUR]) == -1), f"seat {s[S.CUR]} on turn, over {s[S.OVER]}")
    require(s[S.OVER] or 0 <= int(s[S.CUR]) < players, f"seat {s[S.CUR]} on turn")
    if s[S.TRUNCATED]:
        require(s[S.OVER] and int(s[S.ROUND]) == params[S.OPT_ROUND_CAP], "truncated before the round cap")


def shifting_stones_cap(params, players):
    return int(params[S.OPT_ROUND_CAP]) * players * (2 * S.NUM_CARDS + 1)


# ---- Sequence Stacks -----------------------------------------------------------------------
def check_sequence_stacks(s, params, players):
    """Every card of the deck in exactly one of draw pile, hands, discard piles, piles in
    progress, completed stack, played action cards; each colour's chips in supply + held =
    chip_supply."""
    require(int(s[Q.PLAYERS]) == players, "player count")
    deck = np.array(Q.DECK_TWO if players == 2 else Q.DECK_FULL, np.int64)
    places: dict[str, np.ndarray] = {}
    pos, end = int(s[Q.DRAW_POS]), int(s[Q.DRAW_LEN])
    require(0 <= pos <= end <= Q.DECK_MAX, f"draw pile [{pos}:{end}]")
    draw = s[Q.DRAW + pos:Q.DRAW + end]
    require(((draw >= 0) & (draw < Q.NCARD)).all(), "draw pile card codes")
    places["draw pile"] = np.bincount(draw, minlength=Q.NCARD)
    for i in range(Q.MAX_PLAYERS):
        hand = s[Q.HAND + i * Q.NCARD:Q.HAND + (i + 1) * Q.NCARD]
        require((hand >= 0).all(), f"seat {i} negative card count")
        require(hand.sum() == s[Q.HAND_N + i], f"seat {i} HAND_N")
        require(int((1 << np.arange(Q.NCARD))[hand > 0].sum()) == int(s[Q.HAND_MASK + i]), f"seat {i} HAND_MASK")
        n = int(s[Q.DISC_N + i])
        require(0 <= n <= Q.DISC_CAP, f"seat {i} DISC_N {n}")
        disc = s[Q.DISC + i * Q.DISC_CAP:Q.DISC + i * Q.DISC_CAP + n]
        require(((disc >= 0) & (disc < Q.NCARD)).all(), f"seat {i} discard card codes")
        require(i < players or (hand.sum() == 0 and n == 0), f"absent seat {i} holds cards")
        places[f"hand {i}"] = hand.copy()
        places[f"discard {i}"] = np.bincount(disc, minlength=Q.NCARD)
    piles = np.zeros(Q.NCARD, np.int64)
    for slot in range(2 * Q.MAX_PILES):
        top, wild = int(s[Q.PILE_TOP + slot]), int(s[Q.PILE_WILD + slot])
        require(0 <= top <= 5 and 0 <= wild < 1 << top, f"pile {slot}: top {top}, wilds {wild:b}")
        require(slot % Q.MAX_PILES < params[Q.P_PILES] or top == 0, f"pile slot {slot} beyond piles_per_colour")
        require(top < 5 or slot == int(s[Q.WINDOW_SLOT]), f"complete pile {slot} left outside its block window")
        base = (slot // Q.MAX_PILES) * 6
        for k in range(top):
            piles[base + (5 if (wild >> k) & 1 else k)] += 1
    places["piles"] = piles
    completed = np.zeros(Q.NCARD, np.int64)
    completed[:Q.NUMBER_TYPES] = s[Q.COMPLETED:Q.COMPLETED + Q.NUMBER_TYPES]
    require(completed.sum() == s[Q.COMPLETED_N], "COMPLETED_N")
    places["completed stack"] = completed
    special = np.zeros(Q.NCARD, np.int64)
    special[Q.SKIP_CARD:] = s[Q.SPECIAL:Q.SPECIAL + 5]
    places["played action cards"] = special
    for name, counts in places.items():
        require((counts >= 0).all(), f"negative count in {name}")
    total = sum(places.values())
    require(np.array_equal(total, deck),
            "card census " + ", ".join(f"{Q.CARD_NAMES[c]} {total[c]} of {deck[c]}"
                                       for c in range(Q.NCARD) if total[c] != deck[c]))
    for col in range(2):
        held = s[Q.CHIPS + col:Q.CHIPS + 2 * Q.MAX_PLAYERS:2]
        require((held >= 0).all() and s[Q.SUPPLY + col] >= 0, f"negative chips of colour {col}")
        require(held[players:].sum() == 0, "an absent seat holds chips")
        require(held.sum() + s[Q.SUPPLY + col] == params[Q.P_SUPPLY],
                f"colour {col}: {held.sum()} held + {s[Q.SUPPLY + col]} in supply != {params[Q.P_SUPPLY]}")
    require(int(s[Q.TURNS]) <= params[Q.P_ROUND_CAP] * players, f"turn {s[Q.TURNS]} past the cap")
    if s[Q.TRUNCATED]:
        require(s[Q.OVER] and int(s[Q.TURNS]) == params[Q.P_ROUND_CAP] * players and s[Q.WINNER] == -1,
                "truncated before the round cap, or with a winner")
    if not s[Q.OVER]:
        window = int(s[Q.WINDOW])
        require(Q.current_player(s) == (window if window >= 0 else int(s[Q.TURN])), "the actor is neither the turn nor the window")


def sequence_stacks_cap(params, players):
    completions = (Q.TURN_PLAY_CAP + 4 * 2 * Q.MAX_PILES) // 5 + 1
    return int(params[Q.P_ROUND_CAP]) * players * (Q.TURN_PLAY_CAP + completions * (players - 1) + 1)


# ---- Kuhn poker (the test game) ------------------------------------------------------------
def check_kuhn(s, params, players):
    from simcore.games import load_game
    K = load_game("kuhn")

    cards = sorted([int(s[K.CARD]), int(s[K.CARD + 1]), int(s[K.SPARE])])
    require(cards == [0, 1, 2], f"cards {cards}")


def kuhn_cap(params, players):
    return 3


# game name -> (state checker, decisions bound under the drawn options)
CHECKS = {
    "moon": (check_moon, moon_cap),
    "shifting-stones": (check_shifting_stones, shifting_stones_cap),
    "sequence-stacks": (check_sequence_stacks, sequence_stacks_cap),
    "kuhn": (check_kuhn, kuhn_cap),
}
