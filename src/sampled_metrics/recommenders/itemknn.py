"""Item-based collaborative filtering, recommenders Y and Z of KDD'20 (appendix, eq. 27-30).

With H the training pairs, U_i = {u : (u, i) in H} and n_i = |U_i|:

    s_ij   = ( |U_i ∩ U_j| / sqrt(n_i n_j) )^q                                      (27)
    s'_ij  = s_ij δ(i ∈ N_k(j)) δ(j ∈ N_k'(i))                                      (28)
    s''_ij = s'_ij / ||s'_i||                                                       (29)
    ŷ(u,i) = Σ_{j:(u,j) ∈ H} s''_ij / Σ_{j ∈ I} s''_ij                              (30)

N_k(j) is the set of the k items with the largest s_j· (ties: lower item index first;
items with s = 0 are never neighbours); k = None means no sparsification. Choices the paper
leaves open are parameters:

- ``diagonal``: ``'keep'`` s_ii = 1 (an item is its own nearest neighbour and counts in
  the norm), ``'exclude'`` (s_ii = 0 before eq. 28), or ``'auto'``: an item is never its
  own neighbour, so s'_ii = s_ii δ(i ∈ N_k(i)) δ(i ∈ N_k'(i)) is 1 without sparsification
  (both δ ≡ 1: same as ``'keep'``) and 0 otherwise (same as ``'exclude'``).
- ``neighbours``: ``'literal'`` reads eq. 28 as written (row i keeps its k' nearest, column j
  its k nearest); ``'column'`` swaps the roles: s'_ij is kept iff i ∈ N_k'(j) (and
  j ∈ N_k(i)), i.e. each *history* item j votes only for its k' nearest candidates.
- ``norm``: the row norm of eq. 29, ``'l2'``, ``'l1'`` or ``'none'``.
- ``denominator``: divide by Σ_j s''_ij as in eq. 30, or not. With the denominator the
  row norm cancels, so ``norm`` only matters when ``denominator=False``.

Defaults are the reading that reproduces Table 3 exactly on ML-1M (workflow/ablations/ablation_itemknn.py):
``diagonal='auto'``, ``neighbours='column'``, ``norm='l2'``, ``denominator=False``, i.e.
ŷ(u,i) = Σ_{j ∈ H_u} s''_ij. Y (q=3) gives 8.84/4.59/4.32/85.33 (Recall@10/NDCG@10/AP/AUC %)
and Z (q=1, k'=10) 9.42/4.79/4.42-4.44/74.4-75.0 (random ties), as in the paper; with eq. 30's
denominator or the literal row reading of eq. 28 neither matches.

Zero rows (items never co-rated, or left without neighbours) score 0 (0/0 := 0).

Memory: similarity rows are built in item blocks from the co-occurrence X_B^T X, counted
by a multi-threaded kernel (:func:`.dense_kernels.cooccurrence`, exact integers). Without
sparsification (k = k' = None) the model is a dense items x items matrix W, computed in
float64 (the row norms of eq. 29 taken block by block, no second dense matrix) and stored
as ``dtype`` (float32 by default: 2.9 GB instead of 5.7 GB at 26,744 items; the fit briefly
holds both); with sparsification it is sparse (float64). Scoring is done per user block; a
dense W scores through the multi-threaded :func:`.dense_kernels.sparse_dense_product`,
summed in float64 in scipy's order (for float64 W, the bits of scipy's ``X_u @ W``),
the same bits whatever the number of threads.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..registry import resolve_name
from .base import Recommender, check_train
from .dense_kernels import (check_dtype, check_threads, cooccurrence, sparse_dense_product,
                            to_c_order)

__all__ = ["ItemKNN", "topk_mask"]

_CHOICES = {"diagonal": ("auto", "keep", "exclude"), "neighbours": ("literal", "column"),
            "norm": ("l2", "l1", "none")}


def topk_mask(block: np.ndarray, k: int) -> np.ndarray:
    """Boolean mask of the ``k`` largest positive entries of each row of ``block``.

    Ties at the k-th value are broken towards the lower column index, so the result is
    deterministic. Rows with fewer than k positive entries keep all of them.
    """
    positive = block > 0
    if k >= block.shape[1]:
        return positive
    kth = -np.partition(-block, k - 1, axis=1)[:, k - 1:k]
    above, tied = block > kth, block == kth
    need = k - above.sum(axis=1, keepdims=True)
    return (above | (tied & (np.cumsum(tied, axis=1) <= need))) & positive


class ItemKNN(Recommender):
    """Item-based CF with cosine^q similarity (eq. 27-30).

    Parameters
    ----------
    q : float
        Exponent sharpening the cosine (eq. 27). Paper: Y q=3, Z q=1.
    k, k_prime : int or None
        Neighbourhood sizes of eq. 28 (None = infinity). Paper: Y k=k'=None; Z k'=10.
    diagonal, neighbours, norm, denominator
        Readings of eq. 27-30, see the module docstring.
    block_size : int
        Items per block when building the similarity.
    threads : int or None
        Threads (numba) of the co-occurrence counts in :meth:`fit` and of the scoring with a
        dense W; None: numba's default (all cores, or ``NUMBA_NUM_THREADS``). Weights and
        scores are the same bits whatever the number (each sum has one fixed order).
    dtype : {'float32', 'float64'}
        Storage of a dense W (k = k' = None): W is computed in float64 and stored rounded
        to ``dtype``; scores are summed in float64. float32 halves the model (2.9 GB
        instead of 5.7 GB at 26,744 items) and leaves every exact and sampled rank of Y on
        MovieLens-1M unchanged, under every tie policy (tests/test_dense_kernels.py).
        A sparse W stays float64.

    Attributes
    ----------
    weights_ : numpy.ndarray or scipy.sparse.csr_matrix
        W = S''^T (W[j, i] = s''_ij), so that scores are X_u W; dense: ``dtype``, C order.
    row_sums_ : numpy.ndarray
        Σ_j s''_ij per item i, the denominator of eq. 30 (float64, from the float64 W).
    """

    def __init__(self, q: float = 1.0, k: int | None = None, k_prime: int | None = None,
                 diagonal: str = "auto", neighbours: str = "column", norm: str = "l2",
                 denominator: bool = False, block_size: int = 1024,
                 threads: int | None = None, dtype: str = "float32"):
        diagonal, neighbours, norm = (resolve_name(f"ItemKNN {name}", value, _CHOICES[name])
                                      for name, value in (("diagonal", diagonal),
                                                          ("neighbours", neighbours),
                                                          ("norm", norm)))
        for name, value in (("k", k), ("k_prime", k_prime)):
            if value is not None and (int(value) != value or value < 1):
                raise ValueError(f"ItemKNN {name} must be a positive integer or None, "
                                 f"got {value!r}")
        if not np.isfinite(q) or q <= 0:
            raise ValueError(f"ItemKNN q must be a positive number, got {q!r}")
        self.q, self.k, self.k_prime = float(q), k, k_prime
        self.diagonal, self.neighbours, self.norm = diagonal, neighbours, norm
        self.denominator, self.block_size = bool(denominator), int(block_size)
        self.threads = check_threads(threads)
        self.dtype = check_dtype(dtype)

    def __repr__(self) -> str:
        return (f"ItemKNN(q={self.q:g}, k={self.k}, k_prime={self.k_prime}, "
                f"diagonal={self.diagonal!r}, neighbours={self.neighbours!r}, "
                f"norm={self.norm!r}, denominator={self.denominator})")

    # ------------------------------------------------------------------ similarity
    def _similarity_rows(self, item_users: sp.csr_matrix, train: sp.csr_matrix,
                         counts: np.ndarray, start: int, stop: int) -> np.ndarray:
        """Dense rows start..stop of s (eq. 27), diagonal handled."""
        co = cooccurrence(train, start, stop, item_users=item_users,
                          threads=self.threads)   # (X_Bᵀ X).toarray(), same bits
        denom = np.sqrt(np.outer(counts[start:stop], counts))
        s = np.divide(co, denom, out=np.zeros_like(co), where=denom > 0)
        if self.q != 1.0:
            s **= self.q
        if self._excludes_diagonal():
            rows = np.arange(stop - start)
            s[rows, rows + start] = 0.0
        return s

    @classmethod
    def dense_items_matrix(cls, params) -> bool:
        """Without sparsification (k = k' = None, the defaults) W is dense."""
        return params.get("k") is None and params.get("k_prime") is None

    def _excludes_diagonal(self) -> bool:
        if self.diagonal == "auto":
            return not self.dense_items_matrix(vars(self))
        return self.diagonal == "exclude"

    def _sparsified(self, train: sp.csr_matrix) -> np.ndarray | sp.csr_matrix:
        """s' of eq. 28: dense if k = k' = None, else CSR."""
        n = train.shape[1]
        counts = np.diff(train.tocsc().indptr).astype(np.float64)
        item_users = train.T.tocsr()
        row_k, col_k = ((self.k_prime, self.k) if self.neighbours == "literal"
                        else (self.k, self.k_prime))
        dense = np.empty((n, n)) if self.dense_items_matrix(vars(self)) else None
        kept = {row_k: [], col_k: []}
        for start in range(0, n, self.block_size):
            stop = min(start + self.block_size, n)
            s = self._similarity_rows(item_users, train, counts, start, stop)
            if dense is not None:
                dense[start:stop] = s
            for k in {row_k, col_k} - {None}:
                kept[k].append(sp.csr_matrix(np.where(topk_mask(s, k), s, 0.0)))
        if dense is not None:
            return dense
        top = {k: sp.vstack(blocks, format="csr") for k, blocks in kept.items() if k}
        if col_k is None:                     # s ∘ δ(j ∈ N_row_k(i))
            return top[row_k]
        by_column = top[col_k].T.tocsr()      # s ∘ δ(i ∈ N_col_k(j)), s symmetric
        if row_k is None:
            return by_column
        return top[row_k].multiply(by_column > 0).tocsr()

    def _row_norms(self, s) -> np.ndarray:
        if self.norm == "none":
            return np.ones(s.shape[0])
        power = 2 if self.norm == "l2" else 1
        if sp.issparse(s):
            sums = np.asarray(abs(s).power(power).sum(axis=1)).ravel()
        else:   # row by row, so in blocks: the same sums without a second dense matrix
            sums = np.concatenate([(np.abs(s[a:a + self.block_size]) ** power).sum(axis=1)
                                   for a in range(0, s.shape[0], self.block_size)])
        return np.sqrt(sums) if power == 2 else sums

    def fit(self, train) -> "ItemKNN":
        """Build s'' (eq. 27-29) from the binary users x items training matrix."""
        train = check_train(train)
        s = self._sparsified(train)
        norms = self._row_norms(s)
        inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        if sp.issparse(s):
            self.weights_ = (sp.diags(inv) @ s).T.tocsr()
        else:  # s' = s is exactly symmetric here, so W = (diag(inv) s)ᵀ = s diag(inv), in place
            s *= inv[None, :]
            self.weights_ = s
        self.row_sums_ = np.asarray(self.weights_.sum(axis=0)).ravel()   # in float64
        if not sp.issparse(s):
            self.weights_ = to_c_order(s, self.dtype)
        self.train_ = train
        return self

    # ------------------------------------------------------------------ scoring
    def _score(self, users: np.ndarray) -> np.ndarray:
        """ŷ(u, ·) = X_u W, divided by Σ_j s''_ij when ``denominator`` (eq. 30)."""
        if sp.issparse(self.weights_):
            scores = (self.train_[users] @ self.weights_).toarray()
        else:
            scores = sparse_dense_product(self.train_[users], self.weights_,
                                          self.threads)
        if self.denominator:
            sums = self.row_sums_
            scores = np.divide(scores, sums, out=np.zeros_like(scores), where=sums > 0)
        return scores
