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

from ..sampling import check_sampling
from ..seeds import generator
from . import kernels

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
    uniform position p in 0..c_i-1 is a uniform candidate: ``items[i, p]``. The table is
    not built until asked for: :meth:`candidate_values` gathers any per-item values (scores,
    tie keys) straight into table order.

    Parameters
    ----------
    train_rows : sparse (b, n_items)
        The users' training items H_u.
    test_items : int array (b,)
        Their held-out items.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> table = CandidateTable(sp.csr_matrix(np.array([[0, 1, 0, 0, 0]])), [3])
    >>> table.counts, table.items
    (array([3]), array([[0, 2, 4]], dtype=int32))
    """

    def __init__(self, train_rows, test_items):
        train_rows = sp.csr_matrix(train_rows, copy=True)
        train_rows.sum_duplicates()                    # sorted, distinct indices per row
        self.shape = train_rows.shape
        self.indptr = train_rows.indptr.astype(np.int64)
        self.indices = train_rows.indices.astype(np.int64)
        self.test_items = np.asarray(test_items, dtype=np.int64).reshape(-1)
        b, n_items = self.shape
        rows = np.repeat(np.arange(b), np.diff(self.indptr))
        test_in_train = np.bincount(rows, self.indices == self.test_items[rows], minlength=b)
        self.counts = (n_items - np.diff(self.indptr) - (test_in_train == 0)).astype(np.int64)
        self.width = max(int(self.counts.max(initial=0)), 1)
        self._items = None

    @property
    def items(self) -> np.ndarray:
        """(b, width) int32 (int64 beyond 2^31 items): row i's candidates, then zeros."""
        if self._items is None:
            dtype = np.int32 if self.shape[1] < 2**31 else np.int64
            ids = np.broadcast_to(np.arange(self.shape[1], dtype=dtype), self.shape)
            self._items = self.candidate_values(ids)
        return self._items

    def positions(self, m: int, rng: np.random.Generator, replace: bool) -> np.ndarray:
        """(b, m) uniform positions p in 0..c_i-1 per row: independent draws (with
        replacement), or a uniform m-subset (without; needs c_i >= m).

        With replacement, p = floor(U c_i) for m uniforms U per row (``rng.random((b, m))``).
        Without replacement, rows with 4m <= c_i come first: m draws with replacement
        (``rng.random((rows, m))``), then, in rounds, every repeated value is drawn again
        (one uniform per pending cell, rows in order), kept if new to its row, until none is
        pending; values are exchangeable in this process, so each row's set is a uniform
        m-subset (its order is not uniform, and does not matter). Then rows with 4m > c_i:
        the m smallest of c_i uniform keys. A uniform position is floor(U c_i) with U
        uniform on [0, 1) in steps of 2^-53: each value has probability 1/c_i up to a
        relative 2^-53 c_i (< 1e-10 for any catalogue here).
        """
        return self.positions_many(m, [rng], replace)[0].astype(np.int64)

    def positions_many(self, m: int, rngs, replace: bool) -> np.ndarray:
        """(len(rngs), b, m) int32 positions: :meth:`positions` for each generator."""
        c, m = self.counts, int(m)
        out = np.empty((len(rngs), c.size, m), dtype=np.int32 if self.width < 2**31
                       else np.int64)
        if replace:
            uniforms = np.empty((c.size, m))
            for r, rng in enumerate(rngs):
                kernels.uniform_positions(rng.random(out=uniforms), c, out[r])
            return out
        sparse, dense = np.flatnonzero(4 * m <= c), np.flatnonzero(4 * m > c)
        uniforms = np.empty((sparse.size, m))
        block = np.empty((sparse.size, m), dtype=out.dtype)
        scratch = np.zeros(self.width, dtype=np.uint8)
        for r, rng in enumerate(rngs):
            if sparse.size:
                pending = kernels.first_distinct(rng.random(out=uniforms), c[sparse], block,
                                                 scratch)
                left = int(pending.sum())
                while left:
                    left = kernels.redraw_repeats(rng.random(left), c[sparse], block, pending,
                                                  scratch)
                out[r, sparse] = block
            if dense.size:       # m of c keys: the m smallest of c_i uniform keys
                keys = rng.random((dense.size, int(c[dense].max())))
                keys[np.arange(keys.shape[1]) >= c[dense, None]] = 2.0
                out[r, dense] = np.argpartition(keys, m - 1, axis=1)[:, :m]
        return out

    def candidate_values(self, values: np.ndarray) -> np.ndarray:
        """A (b, n_items) block of per-item values (scores, tie keys) in table order:
        entry [i, p] is ``values[i, items[i, p]]`` (zeros past c_i)."""
        values = np.asarray(values)
        if values.shape != self.shape:
            raise ValueError(f"values must have the table's shape {self.shape}, got "
                             f"{values.shape}")
        out = np.zeros((self.shape[0], self.width), dtype=values.dtype)
        kernels.gather_candidates(values, self.indptr, self.indices, self.test_items, out)
        return out

    def codes(self, scores: np.ndarray, keys: np.ndarray | None = None):
        """Each candidate's score (and tie key) against its held-out item's, one byte each
        in table order (:func:`~sampled_metrics.evaluation.kernels.candidate_codes`).

        Returns
        -------
        codes : uint8 array (b, width)
        g, e, a : int64 arrays (b,)
            Candidates above, tied with, and tied with a larger key than the held-out item,
            over all c_i candidates (``a`` is zero without keys).
        """
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        if scores.shape != self.shape:
            raise ValueError(f"scores must have the table's shape {self.shape}, got "
                             f"{scores.shape}")
        keys = (np.zeros((0, 0)) if keys is None
                else np.ascontiguousarray(keys, dtype=np.float64))
        out = np.empty((self.shape[0], self.width), dtype=np.uint8)
        g, e, a = kernels.candidate_codes(scores, keys, self.indptr, self.indices,
                                          self.test_items, out)
        return out, g, e, a

    @staticmethod
    def pick(table_values: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """``table_values[i, positions[i, k]]`` (one flat gather)."""
        offsets = (np.arange(positions.shape[0]) * table_values.shape[1])[:, None]
        return table_values.ravel()[offsets + positions]

    def draw(self, m: int, rng: np.random.Generator, replace: bool) -> np.ndarray:
        """(b, m) uniform negatives (item indices) per row, see :meth:`positions`."""
        return self.pick(self.items, self.positions(m, rng, replace)).astype(np.int64)


def check_sample_size(n_u, m: int, sampling: str) -> None:
    """ValueError (one line) unless every user can get m negatives under ``sampling``.

    Without replacement a user needs m + 1 candidates (its held-out item and m others),
    with replacement 2.
    """
    sampling = check_sampling(sampling)
    if isinstance(m, bool) or int(m) != m or m < 1:
        raise ValueError(f"number of negatives m must be a positive integer, got {m!r}")
    n_u = np.asarray(n_u, dtype=np.int64)
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
    check_sample_size(split.n_u(), m, "binomial" if replace else "hypergeometric")
    out = np.empty((split.users.size, int(m)), dtype=np.int64)
    for block, lo in enumerate(range(0, split.users.size, BLOCK_USERS)):
        rows = slice(lo, lo + BLOCK_USERS)
        table = CandidateTable(split.train[split.users[rows]], split.test_items[rows])
        out[rows] = table.draw(int(m), negatives_generator(seed, int(m), int(repeat), block),
                               replace)
    return out
