"""What every estimator of P(r) starts from: the histogram of sampled ranks
P~(r~) = (1/U) sum_u 1[r~_u = r~] (Jin et al. eq. 8, 21) and the mixture matrix
A[r - 1, r~ - 1] = p(r~ | r) (eq. 16-18), cached per (n, m, law); and the checks of a
histogram and of an iteration's stopping rule that the estimators share.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..checks import check_allocation, check_ranks
from ..design import as_design
from ..sampling import rank_pmf

__all__ = ["sampled_rank_histogram", "mixture_matrix", "check_law_matrix_size",
           "check_histogram", "check_stopping"]


def sampled_rank_histogram(sampled_ranks, m: int, normalize: bool = True) -> np.ndarray:
    """Histogram of sampled ranks, P~(r~) = (1/U) sum_u 1[r~_u = r~] (Jin et al. eq. 8, 21).

    Parameters
    ----------
    sampled_ranks : array_like of int
        Sampled ranks r~ in 1..m+1 (any shape, non-empty).
    m : int
        Number of sampled irrelevant items.
    normalize : bool
        Frequencies (sum 1, default) or counts.

    Returns
    -------
    ndarray of length m + 1; entry ``r~ - 1`` is P~(r~) (or the count).
    """
    m = _check_m(m)
    s = check_ranks("sampled ranks", sampled_ranks, 1, m + 1, hi_name="m+1").reshape(-1)
    if s.size == 0:
        raise ValueError("need at least one sampled rank, got none")
    counts = np.bincount(s - 1, minlength=m + 1)
    return counts / s.size if normalize else counts


def mixture_matrix(n, m: int | None = None, sampling: str | None = None) -> np.ndarray:
    """The n x (m+1) matrix A[r - 1, r~ - 1] = p(r~ | r) (Jin et al. eq. 16-18).

    binomial (eq. 16):  p(r~ | r) = C(m, r~-1) theta_r^(r~-1) (1 - theta_r)^(m-r~+1),
                        theta_r = (r - 1)/(n - 1)  (eq. 17);
    hypergeometric:     sampling without replacement (see :mod:`sampled_metrics.sampling`).

    Rows come from :func:`sampled_metrics.sampling.rank_pmf`, built in blocks of rows (peak
    memory ~ the result: 80 MB for n = 1e5, m = 99). The result is cached per design and
    read-only; ``n`` may be a :class:`~sampled_metrics.design.Design`.
    """
    return _mixture_matrix(as_design(n, m, sampling))


def check_law_matrix_size(n: int, m: int) -> None:
    """ValueError unless the n x (m+1) law matrix of :func:`mixture_matrix`, which every
    estimator builds, fits in memory (checked before anything is allocated)."""
    check_allocation(n * (m + 1), f"the law matrix p(r~ | r) of n = {n} true ranks by m+1 = "
                     f"{m + 1} sampled ranks")


@lru_cache(maxsize=4)
def _mixture_matrix(design) -> np.ndarray:
    n, m = design.n, design.m
    check_law_matrix_size(n, m)
    A = np.empty((n, m + 1))
    rows = max(1, 2_000_000 // (m + 1))
    for lo in range(0, n, rows):
        A[lo:lo + rows] = rank_pmf(np.arange(lo + 1, min(n, lo + rows) + 1), design)
    A.flags.writeable = False
    return A


def _check_m(m) -> int:
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m (number of sampled items) must be an integer >= 1, got {m!r}")
    return int(m)


def check_histogram(hist, m: int) -> np.ndarray:
    """The histogram of sampled ranks for m, validated (length m+1, finite, >= 0, not all
    0) and normalised to sum 1."""
    h = np.asarray(hist, dtype=np.float64)
    if h.shape != (m + 1,):
        raise ValueError(f"a histogram of sampled ranks for m={m} must have length m+1={m + 1}, "
                         f"got shape {h.shape}")
    if not np.all(np.isfinite(h)) or np.any(h < 0) or h.sum() <= 0:
        raise ValueError("a histogram of sampled ranks must be finite, non-negative and non-zero")
    return h / h.sum()


def check_stopping(max_iter, tol) -> tuple[int, float]:
    """(max_iter, tol) of an iterative estimator, validated."""
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    tol = float(tol)
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a non-negative number, got {tol}")
    return int(max_iter), tol
