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
        # boolean compression is row-major: row i's allowed items, ascending, fill its
        # first counts[i] cells
        self.items[np.arange(self.items.shape[1]) < self.counts[:, None]] = \
            np.broadcast_to(np.arange(n_items, dtype=dtype), (b, n_items))[allowed]

    def positions(self, m: int, rng: np.random.Generator, replace: bool) -> np.ndarray:
        """(b, m) uniform positions p in 0..c_i-1 per row: independent draws (with
        replacement), or a uniform m-subset (without; needs c_i >= m).

        Without replacement, rows with 4m <= c_i: m draws with replacement, then every
        repeated value is drawn again, uniformly over 0..c_i-1, until it hits a value not
        taken yet (a binary search in the sorted first draws); values are exchangeable
        in this process, so the set is a uniform m-subset (its order is not uniform, and
        does not matter). Rows with 4m > c_i: the m smallest of c_i uniform keys. A uniform
        position is floor(U c_i) with U uniform on [0, 1) in steps of 2^-53: each value has
        probability 1/c_i up to a relative 2^-53 c_i (< 1e-10 for any catalogue here).
        """
        c = self.counts
        if replace:
            return _uniform_below(rng, c[:, None], (c.size, m))
        pos = np.empty((c.size, m), dtype=np.int64)
        dense = np.flatnonzero(4 * m > c)
        sparse = np.flatnonzero(4 * m <= c)
        if sparse.size:
            pos[sparse] = self._rejection(rng, sparse, m)
        if dense.size:           # m of c keys: the m smallest of c_i uniform keys
            keys = rng.random((dense.size, int(c[dense].max())))
            keys[np.arange(keys.shape[1]) >= c[dense, None]] = 2.0
            pos[dense] = np.argpartition(keys, m - 1, axis=1)[:, :m]
        return pos

    def _rejection(self, rng, rows: np.ndarray, m: int) -> np.ndarray:
        """Uniform m-subsets of 0..c_i-1 for ``rows`` (4m <= c_i) by redrawing repeats.

        The first draws are sorted per row, so (row, value) keys are sorted overall and a
        redraw is tested against them by binary search (no table of the catalogue's size).
        """
        c = self.counts[rows]
        pos = _uniform_below(rng, c[:, None], (rows.size, m))
        pos.sort(axis=1)
        width = self.items.shape[1]
        keys = ((np.arange(rows.size) * width)[:, None] + pos).ravel()
        repeat = np.zeros(keys.size, dtype=bool)
        repeat[1:] = keys[1:] == keys[:-1]
        base = keys[~repeat]                       # sorted, distinct
        todo = np.flatnonzero(repeat)
        at, added = todo // m, np.zeros(0, dtype=np.int64)   # ``added``: sorted, distinct
        while todo.size:
            v = _uniform_below(rng, c[at], todo.size)
            key = at * width + v
            order = np.argsort(key, kind="stable")
            ok = np.ones(key.size, dtype=bool)            # first draw of each key this round
            ok[order[1:]] = key[order[1:]] != key[order[:-1]]
            ok &= ~_contains(base, key) & ~_contains(added, key)
            added = np.sort(np.concatenate([added, key[ok]]))
            pos.reshape(-1)[todo[ok]] = v[ok]
            todo, at = todo[~ok], at[~ok]
        return pos

    def candidate_values(self, values: np.ndarray) -> np.ndarray:
        """A (b, n_items) block of per-item values (scores, tie keys) in table order:
        entry [i, p] is ``values[i, items[i, p]]``."""
        return np.take_along_axis(values, self.items, axis=1)

    @staticmethod
    def pick(table_values: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """``table_values[i, positions[i, k]]`` (one flat gather)."""
        offsets = (np.arange(positions.shape[0]) * table_values.shape[1])[:, None]
        return table_values.ravel()[offsets + positions]

    def draw(self, m: int, rng: np.random.Generator, replace: bool) -> np.ndarray:
        """(b, m) uniform negatives (item indices) per row, see :meth:`positions`."""
        return self.pick(self.items, self.positions(m, rng, replace)).astype(np.int64)


def _contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each of ``keys`` is in the sorted array ``sorted_keys`` (binary search)."""
    if sorted_keys.size == 0:
        return np.zeros(keys.size, dtype=bool)
    hit = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[hit] == keys


def _uniform_below(rng: np.random.Generator, c, size) -> np.ndarray:
    """floor(U c) for U uniform on [0, 1): uniform integers in 0..c-1 (c broadcast to size),
    much faster than per-element bounded integers."""
    return np.floor(rng.random(size) * c).astype(np.int64)


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
