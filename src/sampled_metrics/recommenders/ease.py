"""EASE (Steck 2019, "Embarrassingly Shallow Autoencoders"), the fourth recommender of the
Jin et al. (AAAI'21) experiments.

Closed form: with the binary users x items matrix X and G = XᵀX + λI,

    P = G⁻¹,    B = I - P · diag(1 / diag(P))      (so diag(B) = 0),
    ŷ(u, ·) = X_u B.

B is a dense items x items matrix (the model is dense by construction): 110 MB for ML-1M
(3,706 items), 5.7 GB at ML-20M width (26,744 items) in float64. The fit holds one float64
matrix at a time (plus the float32 copy at the end): G is counted dense by a multi-threaded
kernel (exact integers), inverted in place by Cholesky in LAPACK (threads: the BLAS's; the
same bits as ``scipy.linalg.inv``, see :func:`spd_inverse_inplace`), scaled in place and
stored in C order as ``dtype`` (float32 by default, 2.9 GB at ML-20M width). Scores are
summed in float64 by the multi-threaded :func:`.dense_kernels.sparse_dense_product`, the
same bits whatever the number of threads (and, for float64 B, the bits of scipy's X_u @ B).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits

from .base import Recommender, check_train
from .dense_kernels import (check_dtype, check_threads, cooccurrence, sparse_dense_product,
                            symmetrize_from_lower, to_c_order)

__all__ = ["EASE", "spd_inverse_inplace"]

#: Matrices of this size or more are inverted on one BLAS thread: OpenBLAS 0.3.31's
#: multi-threaded ``dpotrf`` (and ``scipy.linalg.inv``) end in a segmentation fault on them
#: (measured: n = 16,000 runs on 2 threads, n = 20,000 and 26,744 crash; one thread runs).
THREADED_LAPACK_MAX_BYTES = 2 ** 31


def spd_inverse_inplace(G: np.ndarray, threads: int | None = None) -> np.ndarray:
    """G⁻¹ of an exactly symmetric positive definite C-ordered G, overwriting G.

    Cholesky G = UᵀU (LAPACK ``dpotrf``, upper), then G⁻¹ = U⁻¹U⁻ᵀ (``dpotri``), which
    fills one triangle; the other is copied from it. This is what ``scipy.linalg.inv``
    (1.17) does for such a matrix, bit for bit (it recognises the structure), but without
    its copy of G; from 2 GB (16,384 items) on, it runs on one BLAS thread, see
    :data:`THREADED_LAPACK_MAX_BYTES`. G's memory read in Fortran order is Gᵀ = G, so
    LAPACK works on it in place; its upper triangle is the lower one of the C view.
    """
    n = G.shape[0]
    if G.shape != (n, n) or G.dtype != np.float64 or not G.flags.c_contiguous:
        raise ValueError("G must be a square C-contiguous float64 array")
    F = G.T                                     # the same matrix, Fortran order: no copy
    with threadpool_limits(1 if G.nbytes >= THREADED_LAPACK_MAX_BYTES else None, "blas"):
        U, info = lapack.dpotrf(F, lower=0, clean=0, overwrite_a=1)
        if info == 0:
            U, info = lapack.dpotri(U, lower=0, overwrite_c=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"XᵀX + λI is not positive definite (LAPACK info {info})")
    if not np.shares_memory(U, G):              # f2py copied after all: write it back
        F[...] = U
    return symmetrize_from_lower(G, threads)


class EASE(Recommender):
    """EASE with L2 regularisation ``lam`` (λ).

    Parameters
    ----------
    lam : float
        λ > 0.
    threads : int or None
        Threads (numba) of the Gram counts and of the scoring; None: numba's default (all
        cores, or ``NUMBA_NUM_THREADS``). The results do not depend on it. The inverse runs
        on the BLAS/LAPACK threads (``threadpoolctl`` limits them).
    dtype : {'float32', 'float64'}
        Storage of B: computed in float64 and stored rounded to ``dtype``; scores are
        summed in float64. float32 halves the model (2.9 GB instead of 5.7 GB at 26,744
        items) and leaves every exact and sampled rank on MovieLens-1M unchanged, under
        every tie policy (tests/test_dense_kernels.py); the fit then briefly holds both
        (8.6 GB at 26,744 items).

    Attributes
    ----------
    weights_ : numpy.ndarray
        B, (n_items, n_items) of ``dtype``, C order.
    """

    @classmethod
    def dense_items_matrix(cls, params) -> bool:
        """B is dense whatever the parameters."""
        return True

    def __init__(self, lam: float = 500.0, threads: int | None = None,
                 dtype: str = "float32"):
        if not lam > 0:
            raise ValueError(f"EASE needs lam > 0, got {lam!r}")
        self.lam = float(lam)
        self.threads = check_threads(threads)
        self.dtype = check_dtype(dtype)

    def __repr__(self) -> str:
        return f"EASE(lam={self.lam:g})"

    def _gram(self, train) -> np.ndarray:
        """G = XᵀX + λI, dense float64 (exactly symmetric: integer counts plus λ)."""
        gram = cooccurrence(train, threads=self.threads)
        gram[np.diag_indices_from(gram)] += self.lam
        return gram

    def fit(self, train) -> "EASE":
        """B = I - P diag(1/diag(P)), P = (XᵀX + λI)⁻¹, with one dense matrix in memory."""
        train = check_train(train)
        P = spd_inverse_inplace(self._gram(train), self.threads)
        P /= (-np.diag(P))[None, :]                 # B = P / (-diag(P)) column-wise ...
        P[np.diag_indices_from(P)] = 0.0            # ... = I - P diag(1/diag(P))
        self.weights_ = to_c_order(P, self.dtype)
        self.train_ = train
        return self

    def _score(self, users: np.ndarray) -> np.ndarray:
        """ŷ(u, ·) = X_u B."""
        return sparse_dense_product(self.train_[users], self.weights_, self.threads)
