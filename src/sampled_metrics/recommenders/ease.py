"""EASE (Steck 2019, "Embarrassingly Shallow Autoencoders"), the fourth recommender of the
Jin et al. (AAAI'21) experiments.

Closed form: with the binary users x items matrix X and G = XᵀX + λI,

    P = G⁻¹,    B = I - P · diag(1 / diag(P))      (so diag(B) = 0),
    ŷ(u, ·) = X_u B.

B is a dense items x items matrix (the model is dense by construction): 110 MB for ML-1M
(3,706 items), 5.7 GB at ML-20M width (26,744 items) in float64. The fit holds one matrix of
``precision`` at a time (plus, in float64, the float32 copy at the end): G is counted dense by
a multi-threaded kernel (exact integers), inverted in place by Cholesky (LAPACK on one thread,
the same bits as ``scipy.linalg.inv``; or tiled on ``threads`` threads, the same bits for any
number of them, see :func:`spd_inverse_inplace`), scaled in place and stored in C order as
``dtype`` (float32 by default, 2.9 GB at ML-20M width). Scores are
summed in float64 by the multi-threaded :func:`.dense_kernels.sparse_dense_product`, the
same bits whatever the number of threads (and, for float64 B, the bits of scipy's X_u @ B).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits

from ..registry import resolve_name
from .base import Recommender, check_train
from .dense_kernels import (WEIGHT_DTYPES, check_dtype, check_threads, cooccurrence,
                            sparse_dense_product, symmetrize_from_lower, to_c_order)
from .tiled_inverse import check_gram, not_positive_definite, tiled_spd_inverse

__all__ = ["EASE", "INVERSES", "check_inverse", "spd_inverse_inplace"]

#: How G is inverted (:func:`spd_inverse_inplace`).
INVERSES = ("lapack", "tiled")


def check_inverse(inverse, name: str = "inverse") -> str:
    """The canonical name of the inverse of :data:`INVERSES` that ``inverse`` names (in any
    case); the registries' one-line ValueError calling it ``name`` otherwise."""
    return resolve_name(name, inverse, INVERSES)


def spd_inverse_inplace(G: np.ndarray, threads: int | None = None,
                        inverse: str = "lapack") -> np.ndarray:
    """G⁻¹ of an exactly symmetric positive definite C-ordered G, overwriting G (float64, or
    float32 with LAPACK's single-precision routines ``spotrf``/``spotri``).

    ``inverse='lapack'``: Cholesky G = UᵀU (LAPACK ``dpotrf``, upper), then
    G⁻¹ = U⁻¹U⁻ᵀ (``dpotri``), which fills one triangle; the other is copied from it. This
    is what ``scipy.linalg.inv`` (1.17) does for such a matrix, bit for bit (it recognises
    the structure), but without its copy of G, on one BLAS thread (OpenBLAS's threads give
    other last bits). G's
    memory read in Fortran order is Gᵀ = G, so LAPACK works on it in place; its upper
    triangle is the lower one of the C view. ``inverse='tiled'``:
    :func:`.tiled_spd_inverse` on ``threads`` threads, the same bits for any number of
    them (2.8e-15 from LAPACK's, relative; 1.36x LAPACK's speed on 2 threads, 0.79x on
    one, at 16,384 items: ``workflow/benchmarks/bench_spd_inverse.py``).
    """
    check_gram(G)
    if check_inverse(inverse) == "tiled":
        return tiled_spd_inverse(G, threads)
    F = G.T                                     # the same matrix, Fortran order: no copy
    potrf, potri = lapack.get_lapack_funcs(("potrf", "potri"), dtype=G.dtype)
    with threadpool_limits(1, "blas"):          # its bits would depend on the threads
        U, info = potrf(F, lower=0, clean=0, overwrite_a=1)
        if info == 0:
            U, info = potri(U, lower=0, overwrite_c=1)
    if info != 0:
        raise not_positive_definite(info)
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
        Threads (numba) of the Gram counts and of the scoring, and from 16,384 items on of
        the tiled inverse; None: all cores (numba: ``NUMBA_NUM_THREADS``). The results do
        not depend on it.
    dtype : {'float32', 'float64'}
        Storage of B: computed in float64 and stored rounded to ``dtype``; scores are
        summed in float64. float32 halves the model (2.9 GB instead of 5.7 GB at 26,744
        items) and leaves every exact and sampled rank on MovieLens-1M unchanged, under
        every tie policy (tests/test_dense_kernels.py); the fit then briefly holds both
        (8.6 GB at 26,744 items).

    inverse : {'lapack', 'tiled'}
        How G is inverted: LAPACK's ``dpotrf``/``dpotri`` on one thread (OpenBLAS's own
        threads crash from about 22,600 items on and change the last bits), or the tiled
        inverse on ``threads`` threads, for a machine with more cores than fits to run
        (its own last bits, the same for any number of threads; the ranks on MovieLens-1M
        are LAPACK's, tested).
    precision : {'float64', 'float32'}
        The arithmetic of the fit: G, its inverse and the scaling. float32 halves the
        inverse's time (single-precision BLAS) and holds a third of the memory (one float32
        matrix, 2.9 GB at 26,744 items, instead of 8.6 GB), at a relative error of B of
        order n eps32 cond(G) instead of n eps64 cond(G): on MovieLens-1M it moves 16 of
        the 6,040 exact ranks by one position and none in or out of the top 10
        (``workflow/benchmarks/bench_ease.py``). Counts are exact in float32 below 2^24
        users.

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
                 dtype: str = "float32", inverse: str = "lapack", precision: str = "float64"):
        if not lam > 0:
            raise ValueError(f"EASE needs lam > 0, got {lam!r}")
        self.inverse = check_inverse(inverse, "EASE inverse")
        self.precision = resolve_name("EASE precision", precision, WEIGHT_DTYPES)
        self.lam = float(lam)
        self.threads = check_threads(threads)
        self.dtype = check_dtype(dtype)

    def __repr__(self) -> str:
        return f"EASE(lam={self.lam:g})"

    def _gram(self, train) -> np.ndarray:
        """G = XᵀX + λI, dense in ``precision`` (exactly symmetric: integer counts plus λ)."""
        gram = cooccurrence(train, threads=self.threads,
                            out=np.zeros((train.shape[1],) * 2, dtype=self.precision))
        gram[np.diag_indices_from(gram)] += self.lam
        return gram

    def fit(self, train) -> "EASE":
        """B = I - P diag(1/diag(P)), P = (XᵀX + λI)⁻¹, with one dense matrix in memory."""
        train = check_train(train)
        P = spd_inverse_inplace(self._gram(train), self.threads, self.inverse)
        P /= (-np.diag(P))[None, :]                 # B = P / (-diag(P)) column-wise ...
        P[np.diag_indices_from(P)] = 0.0            # ... = I - P diag(1/diag(P))
        self.weights_ = to_c_order(P, self.dtype)
        self.train_ = train
        return self

    def _score(self, users: np.ndarray) -> np.ndarray:
        """ŷ(u, ·) = X_u B."""
        return sparse_dense_product(self.train_[users], self.weights_, self.threads)
