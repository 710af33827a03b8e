"""Random holdout split: a fraction of each user's items are its test positives.

From a leave-last-out :class:`~sampled_metrics.datasets.Split` (all of an evaluated user's
interactions are its training items plus its held-out item), each evaluated user with c
interactions keeps k = min(c - 1, max(1, round(fraction c))) uniformly chosen ones as test
positives (seeded: ``seeds.generator(seed, "holdout", block)`` per block of 1024 users), the
rest as training items. Users with one interaction are not evaluated (as in the split).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..seeds import generator

__all__ = ["Positives", "SPLITS", "leave_last_out_positives", "random_holdout"]

BLOCK = 1024
#: The splits into positives: ``last`` (:func:`leave_last_out_positives`) and ``holdout``
#: (:func:`random_holdout`).
SPLITS = ("last", "holdout")


class Positives:
    """Test positives of the evaluated users: ``train`` (users x items CSR), ``users``
    (evaluated user indices, ascending) and flat ``user_row`` (row in ``users``), ``item``,
    sorted by row."""

    def __init__(self, train, users, user_row, item):
        self.train = sp.csr_matrix(train)
        self.users = np.asarray(users, dtype=np.int64)
        self.user_row = np.asarray(user_row, dtype=np.int64)
        self.item = np.asarray(item, dtype=np.int64)
        self.k = np.bincount(self.user_row, minlength=self.users.size)

    def n_nonrelevant(self) -> np.ndarray:
        """N_u = |I| - |H_u| - k_u per evaluated user."""
        return self.train.shape[1] - np.diff(self.train.indptr)[self.users] - self.k


def leave_last_out_positives(split) -> Positives:
    """One positive per user: the split's held-out item."""
    return Positives(split.train, split.users, np.arange(split.users.size), split.test_items)


def random_holdout(split, fraction: float, seed: int) -> Positives:
    """The random holdout of the module docstring."""
    if not 0 < fraction < 1:
        raise ValueError(f"holdout fraction must lie in (0, 1), got {fraction!r}")
    full = sp.csr_matrix(split.train, copy=True)
    full = full + sp.csr_matrix((np.ones(split.users.size), (split.users, split.test_items)),
                                shape=full.shape)
    full.sum_duplicates()
    rows, items, keep_train = [], [], np.ones(full.nnz, dtype=bool)
    for block, lo in enumerate(range(0, split.users.size, BLOCK)):
        rng = generator(seed, "holdout", block)
        for r in range(lo, min(lo + BLOCK, split.users.size)):
            u = split.users[r]
            a, b = full.indptr[u], full.indptr[u + 1]
            c = b - a
            k = min(c - 1, max(1, int(round(fraction * c))))
            chosen = a + np.sort(rng.choice(c, size=k, replace=False))
            keep_train[chosen] = False
            rows.append(np.full(k, r))
            items.append(full.indices[chosen])
    row_of = np.repeat(np.arange(full.shape[0]), np.diff(full.indptr))
    train = sp.csr_matrix((np.ones(int(keep_train.sum())),
                           (row_of[keep_train], full.indices[keep_train])), shape=full.shape)
    return Positives(train, split.users, np.concatenate(rows), np.concatenate(items))
