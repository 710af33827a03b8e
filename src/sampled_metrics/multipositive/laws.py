"""Laws of the sampled evaluation protocols in use, for a user with several positives.

User u has k = k_u test positives, N = N_u non-relevant candidates (items in neither its
training nor its test set) and M = M_u sampled negatives in total. For its i-th positive
(by position in the sampled list), x_i non-relevant items outrank it in the full ranking
and y_i sampled negatives outrank it in the sampled list. The protocols:

=========================  ===========================================  ===================
protocol                   draws                                        law of y_i | x_i
=========================  ===========================================  ===================
``per_user``               M uniform non-relevant items, with           Binomial(M, x/N)
(KDD'20, with replacement) replacement, shared by all positives
``per_user_without``       a uniform M-subset of the N (M <= N)          Hypergeom(N, x, M)
``per_positive``           m per positive, uniform with replacement,    Binomial(k m, x/N)
(RecBole ``uni<m>``)       pooled into one list (M = k m)
``per_positive_without``   m per positive, each a uniform m-subset,     sum of k independent
                           pooled (M = k m; an item may recur across    Hypergeom(N, x, m)
                           positives)
``popularity``             M draws with replacement, item j with        Binomial(M, Q_i),
(RecBole ``pop<m>``)       probability q_j ∝ pop_j^alpha among the N    Q_i = sum of q_j over
                                                                        the x_i items above
=========================  ===========================================  ===================

The first three are the one-item laws of :mod:`sampled_metrics.sampling` with n = N + 1
items, m = M samples and true rank r = 1 + x (``binomial`` or ``hypergeometric``), so every
KDD'20 correction applies per positive (:func:`correction_sampling` names the law).
``per_positive_without`` has mean M x / N like the others and a variance between the two
(``binomial`` is its approximation, exact as m / N -> 0; its exact pmf is
:func:`negatives_above_pmf`).

What positions alone cannot correct. Under ``popularity`` the law of y_i depends on x_i
only through Q_i, the popularity mass of the items that outrank the positive, and which
items those are depends on the recommender's scores of all N items. Positions identify
(at best) Q_i, never x_i: two recommenders with the same Q_i but different x_i (one that
ranks unpopular items high, one that ranks popular ones high) give the same law of the
sampled list. So no function of positions, (N, M) and the sampling probabilities is
unbiased for x_i or for any metric of the full ranks; the weighted estimate of
:mod:`sampled_metrics.multipositive.weighted` needs, per drawn negative, whether it outranked the
positive and its probability q_j.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ..registry import resolve_name

__all__ = ["PROTOCOLS", "check_protocol", "correction_sampling", "negatives_above_pmf"]

PROTOCOLS = ("per_user", "per_user_without", "per_positive", "per_positive_without",
             "popularity")


def check_protocol(protocol) -> str:
    """The canonical name of the protocol of :data:`PROTOCOLS` that ``protocol`` names (in
    any case); the registries' one-line ValueError otherwise."""
    return resolve_name("protocol", protocol, PROTOCOLS)


def correction_sampling(protocol: str) -> str:
    """The one-item law (``binomial`` or ``hypergeometric``) the corrections use for a
    protocol; ValueError for ``popularity`` (positions cannot be corrected, see the module
    docstring)."""
    protocol = check_protocol(protocol)
    if protocol == "popularity":
        raise ValueError("protocol 'popularity': positions alone cannot be corrected; record "
                         "for each drawn negative whether it outranked the positive and its "
                         "probability (sampled_metrics.multipositive.weighted)")
    return "hypergeometric" if protocol == "per_user_without" else "binomial"


def negatives_above_pmf(x: int, n_nonrelevant: int, m: int, protocol: str, k: int = 1
                        ) -> np.ndarray:
    """p(y | x) for y = 0..M: the law of the sampled negatives above a positive.

    Parameters
    ----------
    x : int
        Non-relevant items above the positive in the full ranking (0..N).
    n_nonrelevant : int
        N.
    m : int
        Negatives per user (``per_user*``) or per positive (``per_positive*``).
    protocol : str
        One of :data:`PROTOCOLS` except ``popularity``.
    k : int
        Positives of the user (``per_positive*``: M = k m).

    Returns
    -------
    ndarray of length M + 1.
    """
    protocol = check_protocol(protocol)
    correction_sampling(protocol)
    N, x, m, k = int(n_nonrelevant), int(x), int(m), int(k)
    if not 0 <= x <= N or N < 1 or m < 1 or k < 1:
        raise ValueError(f"need 0 <= x <= N, N >= 1, m >= 1, k >= 1; got x={x}, N={N}, "
                         f"m={m}, k={k}")
    if protocol == "per_user":
        return stats.binom.pmf(np.arange(m + 1), m, x / N)
    if protocol == "per_positive":
        return stats.binom.pmf(np.arange(k * m + 1), k * m, x / N)
    if m > N:
        raise ValueError(f"without replacement needs m <= N, got m={m}, N={N}")
    one = stats.hypergeom.pmf(np.arange(m + 1), N, x, m)
    if protocol == "per_user_without":
        return one
    out = one
    for _ in range(k - 1):
        out = np.convolve(out, one)
    return out
