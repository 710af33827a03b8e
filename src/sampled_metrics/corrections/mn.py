"""The MN correction of Li, Jin, Liu, Ren, Gao, Liu, "Towards Reliable Item Sampling for
Recommendation Evaluation" (AAAI'23).

Like KDD'20's corrections, MN reports M^(r~) for a user whose held-out item has sampled rank
r~ (a vector of length m+1), but it weighs the bias by an *estimated* rank distribution P
(the MES estimate of Jin et al., eq. 24-27, "the MES prior") and the variance by the number of
users U that will be averaged:

    M^_MN = argmin_v  sum_r P(r) (E[v(r~) | r] - M(r))^2  +  (1/U) sum_r Var[v(r~) | r]

          = (A^T D A + (1/U) (diag(A^T 1) - A^T A))^{-1} A^T D M,

with A[r, s] = p(s | r) (n x (m+1)), D = diag(P), M = (M(1), ..., M(n)). The first term bounds
the squared bias of the reported mean, (sum_r P(r) bias(r))^2, by Jensen; the second,
sum_r Var / U, bounds the variance of the mean of U users, sum_r P(r) Var / U, since
P(r) <= 1; so MN minimises an upper bound of the mean squared error of the averaged metric.
The variance is summed over r *unweighted* (the authors' public code does so); KDD'20's BV
weighs it by the uniform prior instead and fixes gamma by hand, MN's weight 1/U is set by
the number of users.

In the notation of :mod:`sampled_metrics.corrections`, A^T D A and A^T D M are the moments
``gram`` and ``atb`` under the prior P, and diag(A^T 1) - A^T A = n (diag(c) - gram) with the
uniform-prior moments c, gram (cached), so A is never formed.

The authors average the MES estimate over their 100 repeats before using it as the prior;
here the prior is the P^ of the evaluation at hand (one repeat), so MN is a function of that
evaluation's sampled ranks only.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg

from ..design import as_design, require
from ..metrics import parse_metric
from .moments import check_prior, rank_law_moments

__all__ = ["mn_correction", "mn_system"]


def mn_system(n, m: int | None = None, prior=None, users: int | None = None,
              sampling: str | None = None, metrics=("recall@1",)):
    """(H, A^T D M) of MN's normal equations, H = A^T D A + (1/U)(diag(A^T 1) - A^T A)."""
    require(users=users)
    design = as_design(n, m, sampling)
    n = design.n
    p = check_prior(prior, n)
    if p is None:
        raise ValueError("MN needs a prior P(r) (e.g. the MES estimate), got None")
    if isinstance(users, bool) or int(users) != users or users < 1:
        raise ValueError(f"users must be a positive integer, got {users!r}")
    names = [parse_metric(x).name for x in ([metrics] if isinstance(metrics, str) else metrics)]
    mom = rank_law_moments(names, design, prior=p)
    uni = rank_law_moments(names, design)
    variance = n * (np.diag(uni.c) - uni.gram)
    return mom.gram + variance / int(users), mom.atb


def mn_correction(metric, n, m: int | None = None, prior=None, users: int | None = None,
                  sampling: str | None = None) -> np.ndarray:
    """MN correction vector M^ (length m+1, entry r~ - 1) for one metric (see the module
    docstring for the formula).

    Parameters
    ----------
    metric : str
    n, m : int
        Or ``n`` a :class:`~sampled_metrics.design.Design`.
    prior : array (n,)
        P(r), e.g. ``estimate_rank_distribution(ranks, n, m, 'mes')``.
    users : int
        U, the number of users whose corrected values are averaged.
    sampling : {'binomial', 'hypergeometric'}
    """
    H, atb = mn_system(as_design(n, m, sampling), prior=prior, users=users, metrics=[metric])
    try:
        return linalg.cho_solve(linalg.cho_factor(H, check_finite=False), atb[:, 0],
                                check_finite=False)
    except (linalg.LinAlgError, ValueError):
        return linalg.lstsq(H, atb[:, 0])[0]
