"""A sequential recommender: the first-order Markov chain over each user's items in time
order (the MC part of FPMC, Rendle et al. 2010), backed off to popularity.

    yhat(u, i) = (C[l_u, i] + alpha pop(i) / sum_j pop(j)) / (sum_j C[l_u, j] + alpha)

C[j, i] counts how often item i directly follows item j in a user's training sequence, l_u
is user u's last training item and pop(i) the number of training interactions of item i: the
next-item probability of the chain, smoothed towards popularity with ``alpha`` pseudo-counts.
It predicts the *next* item, so its rank distribution is as sharp as a sequential model's.

It is fitted from ordered sequences, which a :class:`~sampled_metrics.datasets.split.Split`
does not keep, so it is not one of the workflow's recommender kinds
(:data:`sampled_metrics.recommenders.KINDS`); :func:`training_sequences` gives its input.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = ["MarkovChain", "training_sequences"]


def training_sequences(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The training interactions of a leave-last-out split, each user's in time order.

    ``frame`` is :func:`~sampled_metrics.datasets.split.index_interactions`' output (0-based
    ``user, item, timestamp``, file order); the order is (user, timestamp, file position),
    stably, and each user's last interaction in it is held out when the user has at least 2
    (the rule of :func:`~sampled_metrics.datasets.split.leave_last_out`).

    Returns
    -------
    users, items : int64 arrays
        Grouped by user, in time order within a user.

    Examples
    --------
    >>> frame = pd.DataFrame({"user": [0, 1, 0, 0], "item": [5, 6, 7, 8],
    ...                       "timestamp": [3, 1, 1, 3]})
    >>> [a.tolist() for a in training_sequences(frame)]     # user 0: 7, 5 (8 held out)
    [[0, 0, 1], [7, 5, 6]]
    """
    user, item, ts = (frame[c].to_numpy(dtype=np.int64) for c in ("user", "item", "timestamp"))
    order = np.lexsort((np.arange(user.size), ts, user))
    user, item = user[order], item[order]
    last = np.r_[user[1:] != user[:-1], True]                 # last row of each user
    first = np.r_[True, user[1:] != user[:-1]]
    held = last & ~first                                      # users with >= 2 rows
    return user[~held], item[~held]


class MarkovChain:
    """First-order Markov chain with popularity back-off (module docstring).

    Parameters
    ----------
    alpha : float
        Pseudo-counts of the popularity back-off (> 0).

    Examples
    --------
    >>> model = MarkovChain(alpha=1.0).fit(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]),
    ...                                    n_users=2, n_items=3)
    >>> model.score(np.array([0])).round(3).tolist()   # after item 1: no successor seen
    [[0.5, 0.5, 0.0]]
    """

    def __init__(self, alpha: float = 10.0):
        if not alpha > 0:
            raise ValueError(f"alpha must be > 0, got {alpha!r}")
        self.alpha = float(alpha)

    def fit(self, users, items, *, n_users: int, n_items: int) -> "MarkovChain":
        """Fit from training interactions grouped by user, in time order within a user
        (:func:`training_sequences`)."""
        users = np.asarray(users, dtype=np.int64)
        items = np.asarray(items, dtype=np.int64)
        if users.shape != items.shape or users.ndim != 1:
            raise ValueError("users and items must be 1-d arrays of one length")
        if users.size and (users.min() < 0 or users.max() >= n_users
                           or items.min() < 0 or items.max() >= n_items):
            raise ValueError(f"users must lie in 0..{n_users - 1} and items in "
                             f"0..{n_items - 1}")
        if users.size and (np.diff(users) < 0).any():
            raise ValueError("interactions must be grouped by user, ascending")
        follows = users[1:] == users[:-1]
        self.transitions_ = sp.csr_matrix(
            (np.ones(int(follows.sum())), (items[:-1][follows], items[1:][follows])),
            shape=(n_items, n_items))
        self.transitions_.sum_duplicates()
        self.out_counts_ = np.asarray(self.transitions_.sum(axis=1)).ravel()
        pop = np.bincount(items, minlength=n_items).astype(np.float64)
        self.popularity_ = pop / max(pop.sum(), 1.0)
        self.last_ = np.full(n_users, -1, dtype=np.int64)
        self.last_[users] = items                      # the last row of each user wins
        self.train_ = sp.csr_matrix((np.ones(users.size), (users, items)),
                                    shape=(n_users, n_items))
        return self

    def score(self, users) -> np.ndarray:
        """yhat(u, i) of every item for each user index in ``users``, float64
        (len(users), n_items); training items are not masked."""
        if getattr(self, "train_", None) is None:
            raise ValueError("MarkovChain is not fitted; call fit first")
        last = self.last_[np.asarray(users, dtype=np.int64)]
        counts = np.zeros((last.size, self.popularity_.size))
        seen = last >= 0
        counts[seen] = self.transitions_[last[seen]].toarray()
        total = np.where(seen, self.out_counts_[np.maximum(last, 0)], 0.0)
        return (counts + self.alpha * self.popularity_) / (total + self.alpha)[:, None]
