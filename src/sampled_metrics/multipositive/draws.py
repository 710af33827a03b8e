"""Simulated draws of negatives, summarised by how many fall in prefixes of a ranking.

User u's N = N_u non-relevant items are in one total order (the recommender's ranking, ties
broken by a fixed rule). A cut c in 0..N names the prefix of its first c items; for the
laws of :mod:`sampled_metrics.multipositive.laws` a sampled list is known, for any metric,
from the number D(c) of drawn negatives in each prefix that matters (the items above a
positive, or tied with it). These functions draw the D(c) directly, without the items:

- uniform draws of M items: the counts in the gaps between consecutive cuts are
  Multinomial(M, gap / N) (with replacement) or multivariate hypergeometric (without,
  M <= N), drawn gap by gap, and D(c) sums the gaps up to c (:func:`uniform_counts`);
- popularity draws with replacement, item j with probability q_j: the counts per item are
  Multinomial(M, q) over the items in rank order (:func:`categorical_counts`), and
  :func:`prefix_sums` gives both D(c) and the weighted sum sum_{draws in the prefix} 1 / q_j
  of the Horvitz-Thompson rank estimate (:mod:`sampled_metrics.multipositive.weighted`).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> d = uniform_counts(rng, cuts=np.array([5, 0, 10]), row=np.array([0, 0, 1]),
...                    N=np.array([10, 10]), M=np.array([4, 3]), replace=False)
>>> int(d[1]), int(d[2])          # an empty prefix holds no draw, the whole list all of them
(0, 3)
"""
from __future__ import annotations

import numpy as np

__all__ = ["uniform_counts", "categorical_counts", "popularity_table", "prefix_sums"]


def uniform_counts(rng: np.random.Generator, cuts, row, N, M, replace: bool) -> np.ndarray:
    """D(c): uniform draws among the first c non-relevant items, for each cut.

    Parameters
    ----------
    rng : numpy.random.Generator
    cuts : int array (P,)
        Prefix lengths, 0 <= cuts <= N[row], in any order.
    row : int array (P,)
        The user (0..b-1) of each cut.
    N, M : int arrays (b,)
        Non-relevant items and draws per user (M <= N without replacement).
    replace : bool
        With replacement (binomial laws) or without (hypergeometric).

    Returns
    -------
    int64 array (P,): D(cuts), whose law is Binomial(M, c / N) or Hypergeom(N, c, M).
    """
    cuts, row = np.asarray(cuts, np.int64), np.asarray(row, np.int64)
    N, M = np.asarray(N, np.int64), np.asarray(M, np.int64)
    b = N.size
    srt = np.lexsort((cuts, row))
    k = np.bincount(row, minlength=b)
    kmax = int(k.max(initial=0))
    starts = np.concatenate([[0], np.cumsum(k)])
    col = np.arange(srt.size) - starts[row[srt]]
    X = np.zeros((b, kmax + 1), dtype=np.int64)
    X[row[srt], col] = cuts[srt]
    valid = np.arange(kmax)[None, :] < k[:, None]
    last = np.where(valid, X[:, :kmax], 0).max(axis=1, initial=0)
    X[:, kmax] = N
    X[:, :kmax] = np.where(valid, X[:, :kmax], last[:, None])
    gaps = np.diff(np.concatenate([np.zeros((b, 1), np.int64), X], axis=1), axis=1)
    if replace:
        counts = rng.multinomial(M, gaps / N[:, None])
    else:
        counts = np.zeros_like(gaps)
        left, pool = M.copy(), N.copy()
        for j in range(kmax + 1):
            g, live = gaps[:, j], left > 0          # live: left <= pool (M <= N)
            draw = rng.hypergeometric(np.where(live, g, 0), np.where(live, pool - g, 1),
                                      np.where(live, left, 1))
            counts[:, j] = np.where(live, draw, 0)
            left -= counts[:, j]
            pool -= g
    below = np.cumsum(counts, axis=1)              # draws in gaps 0..j: D at the j-th cut
    out = np.empty(srt.size, dtype=np.int64)
    out[srt] = below[row[srt], col]
    return out


def popularity_table(items, N, popularity, alpha: float) -> np.ndarray:
    """(b, width) probabilities q_j ∝ popularity_j^alpha of each user's N_i non-relevant
    items, in rank order (``items[i, :N[i]]``), then zeros.

    Items of zero popularity are never drawn; a user whose items all have zero popularity
    gets a ValueError.
    """
    items, N = np.asarray(items), np.asarray(N, np.int64)
    live = np.arange(items.shape[1])[None, :] < N[:, None]
    w = np.where(live, np.asarray(popularity, np.float64)[items] ** alpha, 0.0)
    total = w.sum(axis=1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError(f"user row {int(np.flatnonzero(total.ravel() <= 0)[0])}: no "
                         f"non-relevant item has a positive popularity to draw from")
    return w / total


def categorical_counts(rng: np.random.Generator, qn, N, M) -> np.ndarray:
    """(b, width) counts of M[i] draws from row i's probabilities qn[i, :N[i]] (inverse CDF
    on the rows laid end to end: row offset + cumulative probability)."""
    qn = np.asarray(qn, np.float64)
    N, M = np.asarray(N, np.int64), np.asarray(M, np.int64)
    b, width = qn.shape
    cdf = np.cumsum(qn, axis=1)
    row = np.repeat(np.arange(b), M)
    u = row + rng.random(row.size) * cdf[row, N[row] - 1]
    idx = np.searchsorted((cdf + np.arange(b)[:, None]).ravel(), u, side="right")
    idx = np.minimum(idx - row * width, N[row] - 1)
    return np.bincount(row * width + idx, minlength=b * width).reshape(b, width)


def prefix_sums(counts, qn) -> tuple[np.ndarray, np.ndarray]:
    """(D, W), each (b, width + 1): column c holds the draws among a row's first c items and
    their sum of 1 / q_j (draws of items with q_j = 0 cannot occur and weigh nothing)."""
    counts, qn = np.asarray(counts), np.asarray(qn, np.float64)
    b = counts.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(qn > 0, counts / qn, 0.0)
    D = np.concatenate([np.zeros((b, 1), np.int64), np.cumsum(counts, axis=1)], axis=1)
    W = np.concatenate([np.zeros((b, 1)), np.cumsum(ratio, axis=1)], axis=1)
    return D, W
