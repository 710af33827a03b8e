"""The moments of the rank law from which every moment-based correction is solved.

Only A^T A, A^T b, c and b^T b are needed (A[r, r~] = sqrt(p(r)) p(r~|r),
b[r] = sqrt(p(r)) M(r), c[r~] = sum_r p(r) p(r~|r); :mod:`sampled_metrics.corrections`). They
are accumulated over blocks of consecutive true ranks, each block touching only the band of r~
that carries its probability mass (:func:`sampled_metrics.sampling.rank_pmf_band`), so the
n x (m+1) matrix A is never formed: memory is O((m+1)^2 + block) and time O(n * band^2) with
band = O(sqrt(m)). The moments of the uniform prior are cached per (metrics, n, m, law).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..checks import check_allocation, check_vector
from ..design import as_design
from ..metrics import parse_metric
from ..sampling import narrow_block_rows, rank_pmf, rank_pmf_band

__all__ = ["BLOCK_ENTRIES", "check_prior", "RankLawMoments", "rank_law_moments",
           "clear_moment_cache"]

#: Number of pmf entries computed per block when accumulating the moments.
BLOCK_ENTRIES = 2_000_000


def check_prior(prior, n: int) -> np.ndarray | None:
    """None for the uniform prior p(r) = 1/n, else a validated float64 vector of length n."""
    if prior is None:
        return None
    p = check_vector("prior", prior)
    if p.shape != (n,):
        raise ValueError(f"prior must be a vector of length n={n}, got shape {p.shape}")
    if np.any(p < 0):
        raise ValueError("prior must be non-negative")
    if abs(p.sum() - 1.0) > 1e-8:
        raise ValueError(f"prior must sum to 1, sums to {p.sum():.12g}")
    return p


@dataclass(frozen=True)
class RankLawMoments:
    """Sufficient statistics of eq. 21-25 for one (n, m, sampling, prior, metrics).

    Attributes
    ----------
    gram : (m+1, m+1) array, A^T A = sum_r p(r) p(.|r) p(.|r)^T
    atb : (m+1, K) array, A^T b for each of the K metrics = sum_r p(r) M(r) p(.|r)
    c : (m+1,) array, c = sum_r p(r) p(.|r)
    btb : (K,) array, b^T b = sum_r p(r) M(r)^2
    """

    n: int
    m: int
    sampling: str
    metrics: tuple          # Metric objects
    gram: np.ndarray
    atb: np.ndarray
    c: np.ndarray
    btb: np.ndarray


def rank_law_moments(metrics, n, m: int | None = None, sampling: str | None = None, prior=None,
                     direct: bool = False, narrow_blocks: bool = False) -> RankLawMoments:
    """Accumulate A^T A, A^T b, c and b^T b (eq. 23, 25) over blocks of true ranks.

    Parameters
    ----------
    metrics : str or sequence of str
        Metrics M whose exact values M(r) (over n items) define b.
    n, m : int
    sampling : {'binomial', 'hypergeometric'}
    prior : array of length n, optional
        p(r); uniform 1/n by default.
    direct : bool
        Build the full n x (m+1) matrix A and multiply (reference path for tests; only for
        small n, m).
    narrow_blocks : bool
        Blocks of :func:`~sampled_metrics.sampling.narrow_block_rows` true ranks instead of
        ~``BLOCK_ENTRIES`` pmf entries: the same moments up to the rounding of the sums,
        15-20x faster when m is a sizable fraction of n (where one block spans nearly all
        sampled ranks), and not cached (for a scan over many m, as the planning of m).
    """
    design = as_design(n, m, sampling)
    n, m = design.n, design.m
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    check_allocation((2 + len(metric_list)) * n, f"the rank law over the n = {n} items")
    check_allocation(2 * (m + 1) ** 2, f"the (m+1) x (m+1) system of the corrections at "
                     f"m = {m} (and its factorisation)")
    p = check_prior(prior, n)
    if p is None and not narrow_blocks:
        return _uniform_moments(tuple(metric_list), design, direct)
    p = np.full(n, 1.0 / n) if p is None else p
    return _moments(metric_list, design, p, direct, narrow_blocks)


@lru_cache(maxsize=64)
def _uniform_moments(metric_list: tuple, design, direct: bool):
    return _moments(list(metric_list), design, np.full(design.n, 1.0 / design.n), direct)


def clear_moment_cache() -> None:
    """Forget the cached moments of the uniform prior (:func:`rank_law_moments` computes
    them anew), e.g. to time their computation or to change ``BLOCK_ENTRIES``."""
    _uniform_moments.cache_clear()


def _moments(metric_list, design, p, direct, narrow_blocks=False) -> RankLawMoments:
    n, m, sampling = design.n, design.m, design.sampling
    W = np.stack([x.weights(n) for x in metric_list], axis=1)  # (n, K): M(r)
    if direct:
        A = np.sqrt(p)[:, None] * rank_pmf(np.arange(1, n + 1), design)
        b = np.sqrt(p)[:, None] * W
        gram, atb, c = A.T @ A, A.T @ b, A.T @ np.sqrt(p)
    else:
        gram = np.zeros((m + 1, m + 1))
        atb = np.zeros((m + 1, W.shape[1]))
        c = np.zeros(m + 1)
        # a band spans at most ~18 standard deviations (<= sqrt(m)/2 each) of r~
        rows = (narrow_block_rows(n, m) if narrow_blocks else
                max(1, BLOCK_ENTRIES // min(m + 1, 10 * int(np.sqrt(m)) + 20)))
        for r_lo in range(1, n + 1, rows):
            r_hi = min(n, r_lo + rows - 1)
            nz = p[r_lo - 1:r_hi] > 0
            if not nz.any():
                continue
            lo, P = rank_pmf_band(r_lo, r_hi, n, m, sampling)
            hi = lo + P.shape[1]
            P, w = P[nz], p[r_lo - 1:r_hi][nz]
            wP = P * w[:, None]
            gram[lo:hi, lo:hi] += wP.T @ P
            atb[lo:hi] += wP.T @ W[r_lo - 1:r_hi][nz]
            c[lo:hi] += wP.sum(axis=0)
    btb = p @ (W ** 2)
    return RankLawMoments(n, m, sampling, tuple(metric_list), gram, atb, c, btb)
