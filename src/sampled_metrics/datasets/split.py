"""Binarising, indexing and the leave-last-out split, with its own file format.

Data flow (KDD'20 Sec. 6, the NCF protocol of He et al. 2017)::

    ratings frame -> index_interactions -> leave_last_out -> Split -> save_split / load_split

Every rating is an interaction (binarised MovieLens, as in NCF). For each user the latest
interaction is held out for testing; the rest is the training set H.

Tie rule for "latest" (stated once, applied everywhere): interactions are ordered by
(user, timestamp, position in the file), stably; the held-out item is the *last* one in
that order, i.e. among interactions in the same second the one appearing last in the file.
The same rule picks the kept copy of a duplicated (user, item) pair.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..atomic import atomic_output
from .errors import DataError

__all__ = ["COLUMNS", "Split", "index_interactions", "leave_last_out", "split_ratings",
           "without_evaluated", "save_split", "load_split"]

log = logging.getLogger(__name__)

#: the columns of the ratings frame every reader gives (raw ids, rows in file order)
COLUMNS = ("user", "item", "rating", "timestamp")


@dataclass
class Split:
    """A leave-last-out split.

    Attributes
    ----------
    train : scipy.sparse.csr_matrix
        Users x items, float64 ones at the training interactions H (all users' rows; users
        with fewer than 2 interactions keep theirs here but are not evaluated).
    test_items : numpy.ndarray
        Held-out item of each evaluated user, aligned with ``users``.
    users : numpy.ndarray
        Indices of the evaluated users, ascending.
    n_dropped : int
        Users with fewer than 2 interactions (not evaluated).
    negatives : numpy.ndarray or None
        Fixed negatives shipped with the data (NCF's ``.test.negative``), int64
        (len(users), K), row r for user ``users[r]``; None when the data has none.
    """

    train: sp.csr_matrix
    test_items: np.ndarray
    users: np.ndarray
    n_dropped: int = 0
    negatives: np.ndarray | None = None

    @property
    def n_users(self) -> int:
        return self.train.shape[0]

    @property
    def n_items(self) -> int:
        return self.train.shape[1]

    def n_u(self) -> np.ndarray:
        """n_u = |I| - |H_u| for each evaluated user (the held-out item is a candidate)."""
        return self.n_items - np.diff(self.train.indptr)[self.users]


# ----------------------------------------------------------------------------- indexing

def _dense_ids(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct values, index of each value among them): ``np.unique`` with
    ``return_inverse``, by a lookup table when the values are small non-negative ints."""
    if values.size and values.min() >= 0 and values.max() < max(4 * values.size, 1 << 20):
        present = np.zeros(int(values.max()) + 1, dtype=bool)
        present[values] = True
        return np.flatnonzero(present).astype(values.dtype), np.cumsum(present)[values] - 1
    ids, inverse = np.unique(values, return_inverse=True)
    return ids, inverse.ravel()


def _last_of_groups(sorted_keys: np.ndarray) -> np.ndarray:
    """Boolean mask of the last element of each run of equal keys (input already sorted)."""
    last = np.ones(sorted_keys.size, dtype=bool)
    last[:-1] = sorted_keys[1:] != sorted_keys[:-1]
    return last


def _duplicate_copies(key: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Rows that repeat an earlier-kept key: all copies of a key but its latest (tie rule)."""
    sorted_key = np.sort(key)
    if not (sorted_key[1:] == sorted_key[:-1]).any():
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(key, kind="stable")
    repeated = key[order][1:] == key[order][:-1]
    in_group = np.zeros(key.size, dtype=bool)
    in_group[1:] |= repeated
    in_group[:-1] |= repeated
    rows = order[in_group]                                  # rows of duplicated pairs
    rows = rows[np.lexsort((rows, ts[rows], key[rows]))]    # by key, time, file position
    return rows[~_last_of_groups(key[rows])]


def index_interactions(df: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Binarise ratings and map raw ids to contiguous 0-based indices.

    Every rating is an interaction. A duplicated (user, item) pair keeps its latest copy
    (ties: the one appearing last in the file). Index ``u`` stands for raw id
    ``user_ids[u]``, with ``user_ids`` sorted ascending (same for items).

    Returns
    -------
    interactions : pandas.DataFrame
        Columns ``user, item, timestamp`` (int64), rows in file order.
    user_ids, item_ids : numpy.ndarray
        Raw ids of the indices.
    """
    missing = {"user", "item", "timestamp"} - set(df.columns)
    if missing:
        raise ValueError(f"interactions need columns user, item, timestamp; missing "
                         f"{sorted(missing)}")
    user, item, ts = (df[c].to_numpy(dtype=np.int64) for c in ("user", "item", "timestamp"))
    user_ids, u = _dense_ids(user)
    item_ids, i = _dense_ids(item)
    drop = _duplicate_copies(u * max(len(item_ids), 1) + i, ts)
    if drop.size:  # every pair keeps one copy: the id maps stay the same
        log.warning("%d duplicate (user, item) rows collapsed: each pair is one interaction, "
                    "its latest row kept (split_info.json: ratings - interactions)", drop.size)
        keep = np.ones(user.size, dtype=bool)
        keep[drop] = False
        u, i, ts = u[keep], i[keep], ts[keep]
    out = pd.DataFrame({"user": u.astype(np.int64, copy=False),
                        "item": i.astype(np.int64, copy=False), "timestamp": ts}, copy=False)
    return out, user_ids, item_ids


# ----------------------------------------------------------------------------- split

def leave_last_out(df: pd.DataFrame, n_users: int, n_items: int) -> Split:
    """Hold out each user's latest interaction (NCF protocol).

    The held-out interaction of a user is the last in the order (timestamp, file position):
    same-second ties go to the interaction appearing last in the file. Users with fewer
    than 2 interactions are not evaluated (counted in ``n_dropped``).

    Parameters
    ----------
    df : pandas.DataFrame
        Output of :func:`index_interactions` (0-based ``user``, ``item``, ``timestamp``, file
        order, no duplicate pairs).
    n_users, n_items : int
        Matrix shape.

    Examples
    --------
    >>> df = pd.DataFrame({"user": [0, 0, 0], "item": [0, 1, 2], "timestamp": [5, 7, 7]})
    >>> leave_last_out(df, 1, 3).test_items.tolist()     # items 1 and 2 tie: 2 is last
    [2]
    """
    if n_users < 1 or n_items < 1:
        raise ValueError(f"n_users and n_items must be >= 1, got {n_users}, {n_items}")
    user, item, ts = (df[c].to_numpy(dtype=np.int64) for c in ("user", "item", "timestamp"))
    for label, idx, size in (("user", user, n_users), ("item", item, n_items)):
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise ValueError(f"{label} indices must lie in 0..{size - 1}, got "
                             f"{idx.min()}..{idx.max()}")
    latest = np.full(n_users, np.iinfo(np.int64).min)
    np.maximum.at(latest, user, ts)
    tied = np.flatnonzero(ts == latest[user])               # rows at their user's latest time
    last = np.full(n_users, -1)
    np.maximum.at(last, user[tied], tied)                   # ... the last of them in the file
    counts = np.bincount(user, minlength=n_users)
    users = np.flatnonzero(counts >= 2)
    held = last[users]
    is_test = np.zeros(user.size, dtype=bool)
    is_test[held] = True
    train = sp.csr_matrix((np.ones(user.size - held.size), (user[~is_test], item[~is_test])),
                          shape=(n_users, n_items))
    if train.nnz != user.size - held.size or (
            users.size and np.asarray(train[users, item[held]]).any()):
        raise ValueError("duplicate (user, item) pairs; run index_interactions first")
    n_dropped = int((counts < 2).sum())
    if n_dropped:
        log.info("leave_last_out: %d users with < 2 interactions are not evaluated", n_dropped)
    return Split(train, item[held], users, n_dropped)


def split_ratings(ratings: pd.DataFrame,
                  source: str = "ratings") -> tuple[Split, np.ndarray, np.ndarray, dict]:
    """Index a ratings frame and split it leave-last-out (``source`` names it in errors).

    Returns
    -------
    split : Split
    user_ids, item_ids : numpy.ndarray
        Raw id of each user and item index; the original labels when the reader ranked
        string ids (``ratings.attrs['user_ids']`` / ``['item_ids']``).
    counts : dict
        ``ratings`` (rows read) and ``interactions`` (distinct (user, item) pairs).

    Raises
    ------
    DataError
        The frame holds no rating.
    """
    if len(ratings) == 0:
        raise DataError(f"{source}: no ratings to split")
    interactions, user_ids, item_ids = index_interactions(ratings)
    if "user_ids" in ratings.attrs:      # string ids: keep the original labels
        user_ids = np.asarray(ratings.attrs["user_ids"])[user_ids].astype(str)
    if "item_ids" in ratings.attrs:      # (users and items each on their own)
        item_ids = np.asarray(ratings.attrs["item_ids"])[item_ids].astype(str)
    split = leave_last_out(interactions, len(user_ids), len(item_ids))
    return split, user_ids, item_ids, {"ratings": int(len(ratings)),
                                       "interactions": int(len(interactions))}


def without_evaluated(split: Split, rows) -> Split:
    """``split`` without the evaluated users ``split.users[rows]``: they are no longer
    evaluated, and their held-out item joins their training items (as for a user with too
    few interactions to hold one out); every other user is unchanged.

    Examples
    --------
    >>> df = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 0, 2], "timestamp": [1, 2, 1, 2]})
    >>> split = without_evaluated(leave_last_out(df, 2, 3), [0])
    >>> split.users.tolist(), split.train.toarray().tolist()
    ([1], [[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    """
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == 0:
        return split
    held = sp.csr_matrix((np.ones(rows.size), (split.users[rows], split.test_items[rows])),
                         shape=split.train.shape)
    train = (split.train + held).tocsr()
    train.sum_duplicates()
    train.sort_indices()
    keep = np.ones(split.users.size, dtype=bool)
    keep[rows] = False
    return Split(train, split.test_items[keep], split.users[keep], split.n_dropped,
                 None if split.negatives is None else split.negatives[keep])


# ----------------------------------------------------------------------------- files

def save_split(split: Split, path, user_ids=None, item_ids=None) -> None:
    """Write ``split`` to ``path`` (npz, atomically).

    Keys: ``indptr, indices, shape`` (the training CSR), ``test_items, users, n_dropped``,
    ``user_ids, item_ids`` (raw id of each index; default the indices themselves) and, if
    the split has them, ``negatives``.
    """
    train = split.train.tocsr()
    user_ids = np.arange(split.n_users) if user_ids is None else np.asarray(user_ids)
    item_ids = np.arange(split.n_items) if item_ids is None else np.asarray(item_ids)
    extra = {} if split.negatives is None else {"negatives": split.negatives}
    with atomic_output(path, ".npz") as tmp:
        np.savez(tmp, indptr=train.indptr, indices=train.indices, shape=np.array(train.shape),
                 test_items=split.test_items, users=split.users,
                 n_dropped=np.array(split.n_dropped), user_ids=user_ids, item_ids=item_ids,
                 **extra)


def load_split(path) -> Split:
    """Read a split written by :func:`save_split` (``negatives`` None if it has none)."""
    with np.load(path) as z:
        train = sp.csr_matrix((np.ones(z["indices"].size), z["indices"], z["indptr"]),
                              shape=tuple(z["shape"]))
        negatives = z["negatives"].astype(np.int64) if "negatives" in z.files else None
        return Split(train, z["test_items"], z["users"], int(z["n_dropped"]), negatives)
