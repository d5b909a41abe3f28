"""Counter-based random numbers for reproducible parallel simulation.

Every game owns independent streams derived from (run seed, game index, stream):
stream ``CHANCE_STREAM`` drives deals, shuffles and draws; stream ``bot_stream(seat)``
drives that seat's bot.  A stream's whole state is one 64-bit word (splitmix64), kept in
an ``int64`` array slot so it lives inside a game state or a bot-RNG vector and is copied
with it.  Because no stream is shared, game *i* is the same alone, in any batch, on any
thread count or machine, and changing a bot never changes the deals.

All arithmetic is done in ``uint64``; mixing ``int64`` and ``uint64`` in Numba silently
promotes to ``float64``, so every constant is wrapped.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
SEED_SALT = np.uint64(0x5EED5EED1234ABCD)
INDEX_SALT = np.uint64(0xD1B54A32D192ED03)
STREAM_SALT = np.uint64(0x8CB92BA72F3D8DD7)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S32 = np.uint64(32)

CHANCE_STREAM = 0


@njit(cache=True, inline="always")
def mix64(z):
    """The splitmix64 finaliser: a bijective scramble of a 64-bit word."""
    z = np.uint64(z)
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@njit(cache=True)
def stream_key(seed, index, stream):
    """Initial state (as int64) of stream ``stream`` of game ``index`` in run ``seed``."""
    k = mix64(np.uint64(seed) ^ SEED_SALT)
    k = mix64(k + np.uint64(index) * INDEX_SALT)
    k = mix64(k + np.uint64(stream + 1) * STREAM_SALT)
    return np.int64(k)


@njit(cache=True, inline="always")
def bot_stream(seat):
    return seat + 1


@njit(cache=True, inline="always")
def next_u64(slots, i):
    """Advance the stream stored in ``slots[i]`` and return 64 random bits."""
    s = np.uint64(slots[i]) + GOLDEN
    slots[i] = np.int64(s)
    return mix64(s)


@njit(cache=True, inline="always")
def below(slots, i, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32 (multiply-shift; bias < n / 2**32)."""
    x = next_u64(slots, i) >> S32
    return np.int64((x * np.uint64(n)) >> S32)


S11 = np.uint64(11)
INV53 = 1.0 / (1 << 53)


@njit(cache=True, inline="always")
def uniform(slots, i):
    """Uniform float in [0, 1) (the top 53 bits of one draw)."""
    return np.float64(next_u64(slots, i) >> S11) * INV53


DEBRUIJN64 = np.uint64(0x03F79D71B4CA8B09)
S58 = np.uint64(58)


def _debruijn_table():
    table = np.zeros(64, dtype=np.int64)
    for i in range(64):
        table[((int(DEBRUIJN64) << i) & 0xFFFFFFFFFFFFFFFF) >> 58] = i
    return table


DEBRUIJN_INDEX = _debruijn_table()


@njit(cache=True, inline="always")
def lowest_bit_index(m):
    """Index of the lowest set bit of a non-zero mask (de Bruijn multiply, no branches)."""
    low = np.uint64(m & -m)
    return DEBRUIJN_INDEX[(low * DEBRUIJN64) >> S58]


@njit(cache=True, inline="always")
def kth_set_bit(mask, k):
    """Index of the k-th (0-based) set bit of ``mask``."""
    m = np.int64(mask)
    for _ in range(k):
        m &= m - 1
    return lowest_bit_index(m)


@intrinsic
def _ctpop(typingctx, m):
    """LLVM's population count of a 64-bit word: one ``popcnt`` where the machine has it
    (a bit-twiddling sequence is recognised only where LLVM has not already simplified it
    around known-zero bits: measured, it stayed a dozen instructions in a bot's loop)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


@njit(cache=True, inline="always")
def popcount(m):
    """The number of set bits of the 64-bit word ``m``."""
    return _ctpop(np.int64(m))


@njit(cache=True, inline="always")
def random_set_bit(slots, i, mask):
    """A uniformly chosen set bit of a non-zero mask."""
    return kth_set_bit(mask, below(slots, i, popcount(mask)))
