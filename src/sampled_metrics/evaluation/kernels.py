"""Compiled loops of the ranking engine (numba): the candidate table, uniform subsets drawn
without replacement, and the counts of the scores above and equal to the held-out item's.

Notation as in :mod:`sampled_metrics.evaluation`: a block of b users; user i has c_i
candidates other than its held-out item (its *table* row lists their values, ascending by
item), s_i is the held-out item's score, and a ranking among a set S of candidates needs

    g_i = #{j in S : y_j > s_i},    e_i = #{j in S : y_j = s_i},
    a_i = #{j in S : y_j = s_i and key_j > key_i}      (tie='random' with keys).

The exact ranking codes each candidate in one byte (:func:`candidate_codes`), so the m
gathers of every sampled ranking read a row of c_i bytes that stays in cache. These
functions only loop; the draws themselves (the uniforms) come from numpy Generators
in :mod:`sampled_metrics.evaluation.negatives`, so the compiled and the numpy paths consume the same
streams. Each is compiled on first use and cached on disk (``NUMBA_CACHE_DIR`` moves the
cache); none allocates more than its outputs and a scratch row.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ABOVE", "EQUAL", "KEY_ABOVE", "gather_candidates", "candidate_codes",
           "count_positions", "uniform_positions", "first_distinct", "redraw_repeats"]


@njit(cache=True, nogil=True)
def gather_candidates(values, indptr, indices, test_items, out):  # pragma: no cover - jit
    """Row i of ``out`` gets ``values[i, j]`` for j = 0..n-1 ascending, skipping the row's
    training items (CSR ``indptr``/``indices``, sorted) and its held-out item; returns c_i.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros((1, 4))
    >>> gather_candidates(np.array([[5., 6., 7., 8., 9.]]), np.array([0, 1]),
    ...                   np.array([1]), np.array([3]), out)
    array([3])
    >>> out[0, :3]
    array([5., 7., 9.])
    """
    b, n = values.shape
    counts = np.empty(b, np.int64)
    for i in range(b):
        t, end, test, p = indptr[i], indptr[i + 1], test_items[i], 0
        for j in range(n):
            while t < end and indices[t] < j:
                t += 1
            if (t < end and indices[t] == j) or j == test:
                continue
            out[i, p] = values[i, j]
            p += 1
        counts[i] = p
    return counts


#: bits of a candidate's code: its score is above the held-out item's, equal to it, and
#: (equal and) its tie key is above the held-out item's
ABOVE, EQUAL, KEY_ABOVE = 1, 2, 4


@njit(cache=True, nogil=True)
def candidate_codes(scores, keys, indptr, indices, test_items, out):  # pragma: no cover
    """Code every candidate of each row against its held-out item, in table order, and
    count over the whole row (the exact rank's g, e, a).

    ``out[i, p] = ABOVE [y > s] + EQUAL [y = s] + KEY_ABOVE [y = s and key > key_i]``
    for the p-th candidate (ascending item, training items and the held-out item skipped);
    ``keys`` is used only when it has a row per user (pass a (0, 0) array otherwise). One
    byte per candidate: the sampled rankings gather from a row that stays in cache.

    Returns
    -------
    g, e, a : int64 arrays (b,)

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros((1, 4), np.uint8)
    >>> g, e, a = candidate_codes(np.array([[0.5, 0.9, 0.5, 0.1, 0.7]]), np.zeros((0, 0)),
    ...                           np.array([0, 1]), np.array([4]), np.array([0]), out)
    >>> out[0, :3], int(g[0]), int(e[0])
    (array([1, 2, 0], dtype=uint8), 1, 1)
    """
    b, n = scores.shape
    keyed = keys.shape[0] == b
    g, e, a = np.zeros(b, np.int64), np.zeros(b, np.int64), np.zeros(b, np.int64)
    for i in range(b):
        t, end, test, p = indptr[i], indptr[i + 1], test_items[i], 0
        s = scores[i, test]
        k = keys[i, test] if keyed else 0.0
        gi, ei, ai = 0, 0, 0
        for j in range(n):
            while t < end and indices[t] < j:
                t += 1
            if (t < end and indices[t] == j) or j == test:
                continue
            v = scores[i, j]
            above, equal = v > s, v == s
            key_above = equal and keyed and keys[i, j] > k
            out[i, p] = ABOVE * above + EQUAL * equal + KEY_ABOVE * key_above
            gi += above
            ei += equal
            ai += key_above
            p += 1
        g[i], e[i], a[i] = gi, ei, ai
    return g, e, a


@njit(cache=True, nogil=True)
def count_positions(codes, positions):  # pragma: no cover - jit
    """g, e, a of (repeats, b) rankings: repeat r of user i ranks the held-out item among
    the candidates at ``positions[r, i, k]``, k < m, of its coded row
    (:func:`candidate_codes`); duplicates count. Rows are the outer loop, so a user's row
    is read from cache for all its repeats.

    Examples
    --------
    >>> import numpy as np
    >>> g, e, a = count_positions(np.array([[1, 2, 0]], np.uint8), np.array([[[0, 0, 1]]]))
    >>> int(g[0, 0]), int(e[0, 0]), int(a[0, 0])
    (2, 1, 0)
    """
    repeats, b, m = positions.shape
    g = np.zeros((repeats, b), np.int64)
    e = np.zeros((repeats, b), np.int64)
    a = np.zeros((repeats, b), np.int64)
    for i in range(b):
        for r in range(repeats):
            gi, ei, ai = 0, 0, 0
            for k in range(m):
                code = codes[i, positions[r, i, k]]
                gi += code & ABOVE
                ei += (code & EQUAL) >> 1
                ai += code >> 2
            g[r, i], e[r, i], a[r, i] = gi, ei, ai
    return g, e, a


@njit(cache=True, nogil=True)
def uniform_positions(uniforms, counts, out):  # pragma: no cover - jit
    """``out[i, k] = floor(uniforms[i, k] * counts[i])``: uniform positions 0..c_i-1 (the
    same float64 product and floor as numpy's).

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros((1, 2), np.int32)
    >>> uniform_positions(np.array([[0.0, 0.99]]), np.array([10]), out)
    >>> out
    array([[0, 9]], dtype=int32)
    """
    b, m = uniforms.shape
    for i in range(b):
        c = np.float64(counts[i])
        for k in range(m):
            out[i, k] = np.int64(np.floor(uniforms[i, k] * c))


@njit(cache=True, nogil=True)
def first_distinct(uniforms, counts, out, scratch):  # pragma: no cover - jit
    """First round of a uniform m-subset per row: ``out[i, k] = floor(u c_i)`` if that value
    is new in the row, else -1 (a repeat, to draw again); returns the repeats per row.
    ``scratch``: zeroed uint8 of length >= max c_i, left zeroed.

    Examples
    --------
    >>> import numpy as np
    >>> out, scratch = np.zeros((1, 3), np.int32), np.zeros(10, np.uint8)
    >>> first_distinct(np.array([[0.31, 0.5, 0.35]]), np.array([10]), out, scratch)
    array([1])
    >>> out
    array([[ 3,  5, -1]], dtype=int32)
    """
    b, m = uniforms.shape
    repeats = np.zeros(b, np.int64)
    for i in range(b):
        c = np.float64(counts[i])
        for k in range(m):
            v = np.int64(np.floor(uniforms[i, k] * c))
            if scratch[v]:
                out[i, k] = -1
                repeats[i] += 1
            else:
                scratch[v] = 1
                out[i, k] = v
        for k in range(m):
            if out[i, k] >= 0:
                scratch[out[i, k]] = 0
    return repeats


@njit(cache=True, nogil=True)
def redraw_repeats(uniforms, counts, out, repeats, scratch):  # pragma: no cover - jit
    """One round of redraws: the pending cells (-1) of ``out``, rows in order and cells in
    order within a row, take ``floor(u c_i)`` from ``uniforms`` in turn (one per pending
    cell), kept if the value is not yet in the row (nor taken earlier in this round),
    else left pending. Updates ``repeats``; returns how many cells are still pending.

    Examples
    --------
    >>> import numpy as np
    >>> out, pending = np.array([[3, 5, -1]], np.int32), np.array([1])
    >>> redraw_repeats(np.array([0.55]), np.array([10]), out, pending, np.zeros(10, np.uint8))
    1
    >>> redraw_repeats(np.array([0.75]), np.array([10]), out, pending, np.zeros(10, np.uint8))
    0
    >>> out
    array([[3, 5, 7]], dtype=int32)
    """
    b, m = out.shape
    t, left = 0, 0
    for i in range(b):
        if repeats[i] == 0:
            continue
        c = np.float64(counts[i])
        for k in range(m):
            if out[i, k] >= 0:
                scratch[out[i, k]] = 1
        for k in range(m):
            if out[i, k] < 0:
                v = np.int64(np.floor(uniforms[t] * c))
                t += 1
                if not scratch[v]:
                    scratch[v] = 1
                    out[i, k] = v
                    repeats[i] -= 1
        for k in range(m):
            if out[i, k] >= 0:
                scratch[out[i, k]] = 0
        left += repeats[i]
    return left
