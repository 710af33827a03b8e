"""Samplers of negatives: the m items a held-out item is ranked against (KDD'20 Sec. 2, 6.1).

User u's candidates are the items not in its training set H_u (n_u of them, the held-out
item included). The ``uniform`` sampler draws m negatives uniformly among the c_u = n_u - 1
candidates other than the held-out item, with replacement (``binomial`` law of the sampled
rank) or without (``hypergeometric``); the ``fixed`` protocol takes given negatives (NCF's
``.test.negative``) as a single repeat.

Draws are made per *draw block* of :data:`BLOCK_USERS` consecutive evaluated users, each
from its own stream ``seeds.generator(seed, "negatives", m, repeat, block)``: the negatives
of a repeat are the same for every recommender of a dataset, and any user block, repeat or
sample size can be drawn on its own, in any order or process.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .sampling import SAMPLING_LAWS
from .seeds import generator

__all__ = ["BLOCK_USERS", "CandidateTable", "negatives_generator", "draw_negatives",
           "check_sample_size"]

#: evaluated users per draw block (a constant of the protocol: draws are keyed by block)
BLOCK_USERS = 1024


def negatives_generator(seed: int, m: int, repeat: int, block: int) -> np.random.Generator:
    """The stream of the negatives of (m, repeat, draw block)."""
    return generator(seed, "negatives", m, repeat, block)


class CandidateTable:
    """The candidates other than the held-out item of a block of users, as a padded table.

    Row i lists, ascending, the c_i items outside H_u ∪ {held-out} (then padding), so that a
    uniform position p in 0..c_i-1 is a uniform candidate: ``items[i, p]``.

    Parameters
    ----------
    train_rows : sparse (b, n_items)
        The users' training items H_u.
    test_items : int array (b,)
        Their held-out items.
    """

    def __init__(self, train_rows, test_items):
        train_rows = sp.csr_matrix(train_rows)
        b, n_items = train_rows.shape
        allowed = np.ones((b, n_items), dtype=bool)
        rows = np.repeat(np.arange(b), np.diff(train_rows.indptr))
        allowed[rows, train_rows.indices] = False
        allowed[np.arange(b), np.asarray(test_items, dtype=np.int64)] = False
        self.counts = allowed.sum(axis=1).astype(np.int64)
        dtype = np.int32 if n_items < 2**31 else np.int64
        self.items = np.zeros((b, max(int(self.counts.max(initial=0)), 1)), dtype=dtype)
        r, col = np.nonzero(allowed)
        self.items[r, np.cumsum(allowed, axis=1, dtype=np.int64)[r, col] - 1] = col

    def draw(self, m: int, rng: np.random.Generator, replace: bool) -> np.ndarray:
        """(b, m) uniform negatives per row: with replacement, or m distinct ones.

        Without replacement, rows with 2m <= c draw with replacement and redraw duplicates
        until none are left (a uniform m-subset by symmetry); other rows take the m smallest
        of c uniform keys. Requires c >= m (without replacement) or c >= 1 (with).
        """
        c = self.counts
        if replace:
            positions = rng.integers(0, c[:, None], size=(c.size, m))
        else:
            positions = _distinct_positions(rng, c, m)
        return np.take_along_axis(self.items, positions, axis=1).astype(np.int64)


def _distinct_positions(rng: np.random.Generator, c: np.ndarray, m: int) -> np.ndarray:
    """m distinct uniform positions in 0..c_i-1 per row (c_i >= m), sorted."""
    out = np.empty((c.size, m), dtype=np.int64)
    sparse_rows, dense_rows = np.flatnonzero(2 * m <= c), np.flatnonzero(2 * m > c)
    p = rng.integers(0, c[sparse_rows, None], size=(sparse_rows.size, m))
    while True:
        p.sort(axis=1)
        dup = np.zeros(p.shape, dtype=bool)
        dup[:, 1:] = p[:, 1:] == p[:, :-1]
        if not dup.any():
            break
        r, col = np.nonzero(dup)
        p[r, col] = rng.integers(0, c[sparse_rows[r]])
    out[sparse_rows] = p
    if dense_rows.size:
        keys = rng.random((dense_rows.size, int(c[dense_rows].max())))
        keys[np.arange(keys.shape[1]) >= c[dense_rows, None]] = 2.0
        out[dense_rows] = np.sort(np.argpartition(keys, m - 1, axis=1)[:, :m], axis=1)
    return out


def check_sample_size(n_candidates, m: int, sampling: str) -> None:
    """ValueError (one line) unless every user can get m negatives under ``sampling``.

    Without replacement a user needs m + 1 candidates (its held-out item and m others),
    with replacement 2.
    """
    if sampling not in SAMPLING_LAWS:
        raise ValueError(f"unknown sampling law {sampling!r}; expected one of "
                         f"{', '.join(SAMPLING_LAWS)}")
    if isinstance(m, bool) or int(m) != m or m < 1:
        raise ValueError(f"number of negatives m must be a positive integer, got {m!r}")
    n_u = np.asarray(n_candidates, dtype=np.int64)
    need = 2 if sampling == "binomial" else m + 1
    short = n_u < need
    if short.any():
        raise ValueError(
            f"{int(short.sum())} of {n_u.size} users have fewer than {need} candidates "
            f"(smallest: {int(n_u.min())}) for m={m} negatives"
            + ("" if sampling == "binomial" else " without replacement")
            + "; use a smaller m" + ("" if sampling == "binomial" else
                                     ", sampling with replacement (binomial),")
            + " or drop those users")


def draw_negatives(split, m: int, repeat: int = 0, seed: int = 0,
                   replace: bool = False) -> np.ndarray:
    """The negatives of one repeat for every evaluated user, block by block.

    Row i holds the m negatives of user ``split.users[i]``, drawn from
    :func:`negatives_generator` (seed, m, repeat, block of row i): exactly what
    :func:`sampled_metrics.evaluation.evaluate` ranks for that repeat.

    Returns
    -------
    numpy.ndarray
        (len(split.users), m) int64 item indices.
    """
    if isinstance(seed, bool) or int(seed) != seed or seed < 0 or int(repeat) != repeat \
            or repeat < 0:
        raise ValueError(f"seed and repeat must be non-negative integers, got {seed!r}, "
                         f"{repeat!r}")
    check_sample_size(split.n_candidates(), m, "binomial" if replace else "hypergeometric")
    out = np.empty((split.users.size, int(m)), dtype=np.int64)
    for block, lo in enumerate(range(0, split.users.size, BLOCK_USERS)):
        rows = slice(lo, lo + BLOCK_USERS)
        table = CandidateTable(split.train[split.users[rows]], split.test_items[rows])
        out[rows] = table.draw(int(m), negatives_generator(seed, int(m), int(repeat), block),
                               replace)
    return out
