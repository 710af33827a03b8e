"""Li et al.'s mapping of sampled top-k to full top-f(k) (Li, Jin, Gao, Liu, "On Sampling
Top-K Recommendation Evaluation", KDD'20), as a correction.

Li et al. align the sampled hit ratio with the full one through a mapping f of cut-offs,

    SHR@k ~ HR@f(k),

and show that f is nearly linear. Here f is the expected number of true ranks the sampled
top k covers,

    f(k) = sum_{r=1}^{n} P(r~ <= k | r),         k = 0..m+1 (f(0) = 0, f(m+1) = n),

the one f for which the relation is exact when P(r) is uniform (then SHR@k = f(k) / n and
HR@x = x / n); for sampling with replacement f(k) ~ 1/2 + (n - 1) k / (m + 1) (37.2 per sampled rank
at n = 3,706, m = 100). (The paper's
own closed-form approximations of f are not reproduced.) Read backwards, the full HR@K is
estimated by the sampled hit ratio at the fractional cut-off g(K) = f^{-1}(K) (f interpolated
linearly between integers), SHR@(j + t) = (1 - t) SHR@j + t SHR@(j + 1), which is the mean of

    w_K(r~) = clip(g(K) - r~ + 1, 0, 1)

over the sampled ranks: a correction vector. Li et al. map the hit ratio (and so precision)
only; any metric non-increasing in the rank is a sum of hit ratios,
M(r) = sum_{K >= r} (M(K) - M(K + 1)) with M(n + 1) = 0, and the same mapping of each gives

    M^(r~) = sum_{K=1}^{n} (M(K) - M(K + 1)) w_K(r~)

(for recall@K this is w_K itself; for NDCG, AP and AUC it extends the mapping beyond the
paper).
"""
from __future__ import annotations

import numpy as np

from ..design import as_design
from ..metrics import parse_metric
from ..sampling import rank_pmf

__all__ = ["mapping_function", "mapping_correction", "mapping_vectors"]

#: pmf entries per block when summing P(r~ <= k | r) over r.
BLOCK_ENTRIES = 2_000_000


def mapping_function(n, m: int | None = None, sampling: str | None = None) -> np.ndarray:
    """f(k) = sum_r P(r~ <= k | r) for k = 0..m+1 (length m + 2, f[0] = 0, f[m+1] = n).

    Examples
    --------
    >>> f = mapping_function(3706, 100)
    >>> print(f"{f[1]:.2f} {f[10]:.1f} {f[101]:.0f}")
    37.19 367.3 3706
    """
    design = as_design(n, m, sampling)
    n, m = design.n, design.m
    f = np.zeros(m + 2)
    step = max(1, BLOCK_ENTRIES // (m + 1))
    for lo in range(1, n + 1, step):
        pmf = rank_pmf(np.arange(lo, min(n, lo + step - 1) + 1), design)
        f[1:] += np.cumsum(pmf, axis=1).sum(axis=0)
    f[-1] = n                     # every true rank is within the sampled top m + 1
    return f


def mapping_correction(metric, n, m: int | None = None, sampling: str | None = None) -> np.ndarray:
    """M^(r~) = sum_K (M(K) - M(K + 1)) clip(f^{-1}(K) - r~ + 1, 0, 1), r~ = 1..m+1.

    Parameters
    ----------
    metric : str or Metric
        Any metric non-increasing in the rank (all of :func:`~sampled_metrics.parse_metric`;
        any object whose ``weights(n)`` gives M(1..n)).
    n, m : int
    sampling : {'binomial', 'hypergeometric'}

    Returns
    -------
    ndarray of length m + 1 (entry r~ - 1 is M^(r~)).

    Examples
    --------
    Full Recall@10 from 100 samples among n = 3706 items: only sampled rank 1 counts, with
    weight g(10) = f^{-1}(10):

    >>> v = mapping_correction("recall@10", 3706, 100)
    >>> print(f"{v[0]:.4f} {v[1]:.1f}")
    0.2689 0.0
    """
    design = as_design(n, m, sampling)
    n, m = design.n, design.m
    W = (parse_metric(metric) if isinstance(metric, str) else metric).weights(n)
    delta = W - np.append(W[1:], 0.0)                       # M(K) - M(K + 1), K = 1..n
    g = np.interp(np.arange(1, n + 1), mapping_function(design), np.arange(m + 2))
    s = np.arange(1, m + 2)
    out = np.empty(m + 1)
    for i in range(m + 1):
        out[i] = delta @ np.clip(g - s[i] + 1.0, 0.0, 1.0)
    return out


def mapping_vectors(problem, gamma=None) -> np.ndarray:
    """``mapping``: :func:`mapping_correction` of each metric of a
    :class:`~sampled_metrics.corrections.vectors.VectorProblem`, (K, m+1)."""
    return np.stack([mapping_correction(x, problem.design)
                     for x in problem.metrics])
