"""Bit and random-number helpers of the numba kernels (``uint64`` card bitmasks).

Card sets are ``uint64`` bitmasks (bit ``c`` = card id ``c``, as in ``core.cards``);
action masks are arrays of ``uint64`` words (bit ``a % 64`` of word ``a // 64``).
Every constant that meets a ``uint64`` is a ``uint64`` too: numba, like numpy, turns
``uint64 op int64`` into ``float64``.  ``ctz`` and ``popcount`` are LLVM's own
instructions (``cttz`` / ``ctpop``).  ``next64`` is the splitmix64 of
``vector.batch``, bit for bit, so the kernels draw the reference's deals and actions.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

#: numba options of kernel functions that allocate nothing (PufferLib's plain step):
#: compiled without numba's reference counting (NRT), which otherwise spends two atomic
#: operations per array argument of every call and per row view (a third of a Crazy
#: Rummy step).  Without NRT numba refuses to compile an allocation (``np.empty``), so
#: "no allocation in the step" is checked when the kernel compiles.
PLAIN = {"cache": True, "_nrt": False}
U0 = np.uint64(0)
U1 = np.uint64(1)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)
SUIT_BITS = np.uint64(0x1FFF)  #: the 13 rank bits of one suit


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(inline="always", cache=True)
def bit(c):
    """The bitmask of card (or bit) ``c``."""
    return U1 << np.uint64(c)


@njit(inline="always", cache=True)
def ctz(m):
    """Index of the lowest set bit of a non-zero ``uint64``."""
    return np.int64(trailing_zeros(np.uint64(m)))


@njit(inline="always", cache=True)
def popcount(m):
    """Number of set bits of a ``uint64``."""
    return np.int64(_ctpop(np.uint64(m)))


@njit(inline="always", cache=True)
def has(m, c):
    """Whether bit ``c`` of ``m`` is set."""
    return (m >> np.uint64(c)) & U1 == U1


@njit(inline="always", cache=True)
def suit_pattern(hand, suit):
    """The 13-bit rank pattern of ``suit`` (0..3) in a card bitmask."""
    return np.int64((hand >> np.uint64(13 * suit)) & SUIT_BITS)


@njit(inline="always", cache=True)
def mix64(z):
    """splitmix64's output mix of a uint64 state ``z`` (Steele, Lea and Flood, OOPSLA 2014)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(inline="always", cache=True)
def next64(rng, i):
    """Advance generator ``rng[i]`` and return its next ``uint64`` (``batch.next64``)."""
    s = rng[i] + GOLDEN
    rng[i] = s
    return mix64(s)


@njit(inline="always", cache=True)
def below(rng, i, k):
    """A draw in ``0..k-1`` from generator ``rng[i]`` (``next64 % k``)."""
    return np.int64(next64(rng, i) % np.uint64(k))


@njit(cache=True)
def shuffle_into(rng, i, deck):
    """Fill ``deck`` (int8, 52) with a deck shuffled by generator ``rng[i]``: the
    Fisher-Yates of ``batch.draw_deck``, draw for draw."""
    for k in range(52):
        deck[k] = k
    for k in range(51, 0, -1):
        j = below(rng, i, k + 1)
        t = deck[k]
        deck[k] = deck[j]
        deck[j] = t


@njit(inline="always", cache=True)
def kth_set_bit(words, k):
    """Index of the ``k``-th (0-based, ascending) set bit of an array of ``uint64`` words."""
    for w in range(words.shape[0]):
        m = words[w]
        n = popcount(m)
        if k < n:
            for _ in range(k):
                m &= m - U1
            return 64 * w + ctz(m)
        k -= n
    return -1


@njit(inline="always", cache=True)
def count_bits(words):
    """Set bits of a uint64 word array ``(w,)`` (a game's legal-action bits): int."""
    total = 0
    for w in range(words.shape[0]):
        total += popcount(words[w])
    return total


@njit(inline="always", cache=True)
def write_mask(words, row):
    """Write the bits of ``words`` as 0/1 int8 entries of ``row`` (its whole length)."""
    row[:] = 0
    for w in range(words.shape[0]):
        m = words[w]
        while m:
            row[64 * w + ctz(m)] = 1
            m &= m - U1


@njit(inline="always", cache=True)
def kth_set_bit_at(words, i, k):
    """:func:`kth_set_bit` of row ``i`` of a 2-d array of words.  The ``*_at`` helpers
    index rows instead of taking row views: a view costs two atomic reference-count
    updates, a large share of a kernel step."""
    for w in range(words.shape[1]):
        m = words[i, w]
        n = popcount(m)
        if k < n:
            for _ in range(k):
                m &= m - U1
            return 64 * w + ctz(m)
        k -= n
    return -1


@njit(inline="always", cache=True)
def count_bits_at(words, i):
    """:func:`count_bits` of row ``i`` of a 2-d array of words."""
    total = 0
    for w in range(words.shape[1]):
        total += popcount(words[i, w])
    return total


@njit(inline="always", cache=True)
def write_mask_at(words, i, rows):
    """:func:`write_mask` of row ``i``: the bits of ``words[i]`` as 0/1 int8 entries of
    ``rows[i]`` (its whole length)."""
    for a in range(rows.shape[1]):
        rows[i, a] = 0
    for w in range(words.shape[1]):
        m = words[i, w]
        while m:
            rows[i, 64 * w + ctz(m)] = 1
            m &= m - U1


@njit(inline="always", cache=True)
def set_plane_at(rows, i, start, m):
    """:func:`set_plane` of row ``i``: ``rows[i, start + c] = 1`` for each card ``c`` of ``m``."""
    while m:
        rows[i, start + ctz(m)] = 1.0
        m &= m - U1


@njit(inline="always", cache=True)
def set_plane(row, start, m):
    """Set ``row[start + c] = 1`` for each card ``c`` of bitmask ``m`` (a zeroed plane)."""
    while m:
        row[start + ctz(m)] = 1.0
        m &= m - U1


@njit(cache=True)
def first_illegal(ended, legal, actions, num_actions):
    """Index of the first live game (``ended[i] == 0``) whose action is not one of its
    legal ids (bits of ``legal[i]``), or -1."""
    for i in range(actions.shape[0]):
        if ended[i] != 0:
            continue
        a = actions[i]
        if a < 0 or a >= num_actions or not has(legal[i, a >> 6], a & 63):
            return i
    return -1
