"""Building Moon positions by hand for rule tests."""
from __future__ import annotations

import numpy as np

from simcore.games import moon as m

DEFAULT_PARAMS = m.INFO.make_params(m.INFO.resolve_variant({}))


def params(**variant) -> np.ndarray:
    return m.INFO.make_params(m.INFO.resolve_variant({k: str(v) for k, v in variant.items()}))


def mask(*names: str) -> int:
    out = 0
    for n in names:
        out |= 1 << m.TILE_BY_NAME[n]
    return out


def names(bits: int) -> set[str]:
    return {m.TILE_NAMES[t] for t in range(m.NUM_TILES) if bits >> t & 1}


def fresh(seed: int = 1, p=DEFAULT_PARAMS) -> np.ndarray:
    state = np.zeros(m.STATE_SIZE, dtype=np.int64)
    m.init(state, p, 3, seed)
    return state


def play_position(hands: dict[int, list[str]], trump, leader: int, bidder: int = 0, bid: int = 4,
                  trick_no: int = 0, tricks=(0, 0, 0), scores=(0, 0, 0), p=DEFAULT_PARAMS) -> np.ndarray:
    """A position in the play phase with the given hands, the trick empty, ``leader`` to lead."""
    state = fresh(p=p)
    for s in range(3):
        state[m.HAND + s] = mask(*hands.get(s, []))
        state[m.TRICKS + s] = tricks[s]
        state[m.SCORE + s] = scores[s]
        state[m.TABLE + s] = -1
    code = {"doubles": m.TRUMP_DOUBLES, "none": m.TRUMP_NONE}.get(trump, trump)
    state[m.TRUMP] = code
    state[m.BIDDER] = bidder
    state[m.HIGH_BID] = bid
    state[m.PHASE] = m.PHASE_PLAY
    state[m.LEADER] = leader
    state[m.ACTOR] = leader
    state[m.TRICK_NO] = trick_no
    state[m.IN_TRICK] = 0
    state[m.WIDOW_TAKEN] = 1
    state[m.DISCARD_DONE] = 1
    return state


def play(state, tile: str, p=DEFAULT_PARAMS) -> None:
    action = m.PLAY_BASE + m.TILE_BY_NAME[tile]
    assert action in legal(state, p), f"{tile} is not legal for seat {state[m.ACTOR]}"
    m.apply(state, p, action)


def legal(state, p=DEFAULT_PARAMS) -> list[int]:
    out = np.zeros(m.NUM_ACTIONS, dtype=np.int64)
    n = m.legal_actions(state, p, out)
    return [int(a) for a in out[:n]]


def legal_tiles(state, p=DEFAULT_PARAMS) -> set[str]:
    return {m.TILE_NAMES[a - m.PLAY_BASE] for a in legal(state, p) if a < m.DISCARD_BASE}


def bid_action(n: int | None) -> int:
    if n is None:
        return m.PASS
    return m.BID_MOON_ACTION if n == 21 else m.BID_BASE + n
