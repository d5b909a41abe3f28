"""Small kernel helpers the games share: seats in turn order, ranged shuffles, draw piles,
action lists from bitmasks, and card sets of two 36-bit words.

All ``@njit(inline="always")`` and allocation-free, so a game calling them pays nothing
over writing them itself.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .rng import GOLDEN, S32, mix64, popcount


# ---- seats ---------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def next_seat(seat, direction, players):
    """The seat ``direction`` (+1 clockwise, -1 anticlockwise) places after ``seat``."""
    seat += direction
    if seat < 0:
        seat += players
    elif seat >= players:
        seat -= players
    return seat


# ---- shuffles and draw piles ------------------------------------------------------------------
@njit(cache=True, inline="always")
def shuffle_range(slots, i, arr, lo, n):
    """Fisher-Yates shuffle of ``arr[lo:lo+n]`` in place with stream ``slots[i]``, without
    making a slice.  The stream word is kept in a local for the loop (``arr`` may be the
    array holding the stream, and stepping it in memory would serialise every draw); the
    draws are exactly those of ``simcore.rng.below``."""
    s = np.uint64(slots[i])
    for j in range(n - 1, 0, -1):
        s += GOLDEN
        x = mix64(s) >> S32
        k = np.int64((x * np.uint64(j + 1)) >> S32)
        t = arr[lo + j]
        arr[lo + j] = arr[lo + k]
        arr[lo + k] = t
    slots[i] = np.int64(s)


@njit(cache=True, inline="always")
def pile_pop(state, base, top_slot, end_slot):
    """The top card of the draw pile ``state[base + top : base + end]`` (top first), taken
    off; -1 when the pile is empty (the caller reshuffles and asks again)."""
    top = state[top_slot]
    if top == state[end_slot]:
        return -1
    state[top_slot] = top + 1
    return state[base + top]


@njit(cache=True, inline="always")
def pile_refill(state, rng_slot, base, n, top_slot, end_slot):
    """The ``n`` cards the caller wrote to ``state[base:base+n]`` become the draw pile,
    shuffled with the chance stream ``state[rng_slot]``."""
    shuffle_range(state, rng_slot, state, base, n)
    state[top_slot] = 0
    state[end_slot] = n


# ---- utilities ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def win_share_returns(out, players, over, truncated, winners):
    """The protocol's ``returns``: before the end 0 for every seat; a truncated game 1/players
    each; otherwise 1 shared equally among the seats of the ``winners`` bitmask (none: 0)."""
    for s in range(players):
        out[s] = 0.0
    if not over:
        return
    if truncated:
        for s in range(players):
            out[s] = 1.0 / players
        return
    k = popcount(winners)
    for s in range(players):
        if (winners >> s) & 1:
            out[s] = 1.0 / k


# ---- action lists --------------------------------------------------------------------------
@njit(cache=True, inline="always")
def mask_to_actions(mask, base, out, n):
    """Append ``base + b`` for every set bit b of ``mask``, ascending, to ``out[n:]``;
    return the new length."""
    m = np.int64(mask)
    while m:
        out[n] = base + trailing_zeros(m)
        n += 1
        m &= m - 1
    return n


# ---- card sets of two words ------------------------------------------------------------------
# Cards 0..71 live in two int64 words of 36 bits (LO: 0..35, HI: 36..71), so no sign bit
# is ever touched and a set travels in two state slots.
HALF = 36


@njit(cache=True, inline="always")
def set_has(lo, hi, c):
    if c < HALF:
        return (lo >> c) & 1
    return (hi >> (c - HALF)) & 1


@njit(cache=True, inline="always")
def set_with(lo, hi, c):
    """The set (lo, hi) with card c added."""
    if c < HALF:
        return lo | (np.int64(1) << c), hi
    return lo, hi | (np.int64(1) << (c - HALF))


@njit(cache=True, inline="always")
def set_without(lo, hi, c):
    """The set (lo, hi) with card c removed."""
    if c < HALF:
        return lo & ~(np.int64(1) << c), hi
    return lo, hi & ~(np.int64(1) << (c - HALF))


@njit(cache=True, inline="always")
def set_size(lo, hi):
    return popcount(lo) + popcount(hi)


@njit(cache=True, inline="always")
def set_kth(lo, hi, k):
    """The k-th (0-based, ascending) card of the set (lo, hi); k < set_size(lo, hi)."""
    m = lo
    base = 0
    nlo = popcount(lo)
    if k >= nlo:
        m = hi
        base = HALF
        k -= nlo
    for _ in range(k):
        m &= m - 1
    return base + trailing_zeros(m)


@njit(cache=True, inline="always")
def set_list(lo, hi, base, out, n):
    """Append ``base + c`` for every card c of the set (lo, hi), ascending, to ``out[n:]``;
    return the new length."""
    n = mask_to_actions(lo, base, out, n)
    return mask_to_actions(hi, base + HALF, out, n)
