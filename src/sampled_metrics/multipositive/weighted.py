"""Popularity-sampled negatives: the weighted (Horvitz-Thompson) rank estimate.

Under popularity sampling (RecBole ``pop<m>``, BERT4Rec-style evaluations) each of the M
draws of a user is non-relevant item j with probability q_j (q_j ∝ pop_j^alpha over the
user's N non-relevant items, sum 1), with replacement. For a positive with x non-relevant
items above it, the count of draws above it is Binomial(M, Q) with Q = sum of q_j over
those x items, so its position identifies Q, not x (see
:mod:`sampled_metrics.multipositive.laws`). When the evaluation records, for each draw t,
whether it outranked the positive (``above``) and its probability q_t, then

    x^ = (1 / M) sum_t 1[draw t above] / q_t

is unbiased for x (E[1[above] / q] = sum_j q_j 1[j above] / q_j = x: the Hansen-Hurwitz
form of the Horvitz-Thompson estimator), with variance (1 / M) (sum_{j above} 1 / q_j - x^2).
The rank estimate of the positive's full-ranking position is r^ = 1 + a + x^ (a positives
above it); :func:`weighted_corrected_metric` plugs r^ = 1 + a + min(floor(x^), N) into the
metric's term, as KDD'20's rank estimate (eq. 20) does with the uniform x^ = N (r~ - 1)/M.
The rank estimate is unbiased, the metric of it is not (metrics are not linear in r).

Without replacement (sequential popularity draws) the inclusion probabilities are not the
q_j and this estimator is biased; it is not offered.
"""
from __future__ import annotations

import numpy as np

from ..metrics import parse_metric
from .positives import PositiveTable, per_user_metric
from .shifted import shifted_term

__all__ = ["weighted_rank_estimate", "weighted_rank_variance", "weighted_corrected_metric"]


def _inputs(above, probs, rows):
    above_arr = np.asarray(above)
    if above_arr.dtype != bool:
        if not np.issubdtype(above_arr.dtype, np.number) or not np.all(
                np.isin(above_arr, (0, 1))):
            raise ValueError("above must be booleans (or 0/1): whether each drawn negative "
                             "outranked the positive")
        above_arr = above_arr.astype(bool)
    q = np.asarray(probs, dtype=np.float64) if np.asarray(probs).dtype != bool else None
    if q is None:
        raise ValueError("probs must be sampling probabilities in (0, 1], got booleans")
    if q.shape != above_arr.shape:
        raise ValueError(f"above and probs must have the same shape, got {above_arr.shape} "
                         f"and {q.shape}")
    if q.size and not (np.all(np.isfinite(q)) and q.min() > 0 and q.max() <= 1):
        bad = q[~(np.isfinite(q) & (q > 0) & (q <= 1))][0]
        raise ValueError(f"probs must lie in (0, 1], got {bad!r}")
    if rows is None:
        if above_arr.ndim != 2 or above_arr.shape[1] == 0:
            raise ValueError("above must be a 2-D array (positives x draws) with at least one "
                             f"draw, got shape {above_arr.shape}")
        return above_arr, q, None
    rows = np.asarray(rows)
    if rows.dtype == bool or not np.issubdtype(rows.dtype, np.integer):
        raise ValueError("rows must be integer row indices")
    if rows.shape != above_arr.shape or rows.ndim != 1:
        raise ValueError("with rows, above, probs and rows must be 1-D of equal length")
    if rows.size and rows.min() < 0:
        raise ValueError("rows must be >= 0")
    counts = np.bincount(rows)
    if np.any(counts == 0):
        raise ValueError(f"row {int(np.argmin(counts))} has no draws (M = 0)")
    return above_arr, q, rows


def weighted_rank_estimate(above, probs, rows=None) -> np.ndarray:
    """1 + x^ per positive, x^ = (1/M) sum_t above_t / q_t (module docstring).

    Parameters
    ----------
    above : bool array (P, M), or (D,) with ``rows``
        Whether drawn negative t outranked the positive.
    probs : float array like ``above``
        q_t in (0, 1]: probability that one draw picks that item.
    rows : int array (D,), optional
        Positive (0..P-1) of each draw, for ragged numbers of draws per positive.

    Returns
    -------
    ndarray (P,) of 1 + x^ (real-valued).
    """
    above, q, rows = _inputs(above, probs, rows)
    if rows is None:
        return 1.0 + (above / q).sum(axis=1) / above.shape[1]
    counts = np.bincount(rows)
    return 1.0 + np.bincount(rows, weights=above / q) / counts


def weighted_rank_variance(above, probs, rows=None) -> np.ndarray:
    """Unbiased estimate of Var[x^] per positive: s^2 / M with s^2 the sample variance of
    above_t / q_t over the M draws (NaN for M = 1)."""
    above, q, rows = _inputs(above, probs, rows)
    z = above / q
    if rows is None:
        M = z.shape[1]
        return z.var(axis=1, ddof=1) / M if M > 1 else np.full(z.shape[0], np.nan)
    counts = np.bincount(rows).astype(np.float64)
    mean = np.bincount(rows, weights=z) / counts
    ss = np.bincount(rows, weights=(z - mean[rows]) ** 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 1, ss / (counts - 1) / counts, np.nan)


def weighted_corrected_metric(metric, positions, n_nonrelevant, rank_estimates) -> np.ndarray:
    """Metric per user from weighted rank estimates (module docstring).

    Parameters
    ----------
    metric : str or Metric
    positions : sequence of 1-D int sequences (or int array (U,) / (U, k))
        Positions of each user's positives in its sampled list (only their order is used:
        it gives a_i).
    n_nonrelevant : int array (U,)
        N_u; x^ is capped at N_u.
    rank_estimates : float array (P,)
        1 + x^ of each positive, in the order of the flattened ``positions``
        (:func:`weighted_rank_estimate`).

    Returns
    -------
    ndarray (U,): normaliser(k_u) sum_i term(a_i + 1 + min(floor(x^_i), N_u)).
    """
    N = np.asarray(n_nonrelevant)
    # positions are only ordered here; a list as long as they are is a valid bound
    table = PositiveTable.from_lists(positions, N, np.full(np.shape(N), 1 << 40))
    est = np.asarray(rank_estimates, dtype=np.float64).reshape(-1)
    if est.size != table.user.size:
        raise ValueError(f"rank_estimates must have one entry per positive "
                         f"({table.user.size}), got {est.size}")
    if not np.all(np.isfinite(est)) or (est.size and est.min() < 1):
        raise ValueError("rank_estimates must be finite and >= 1 (1 + x^)")
    metric = parse_metric(metric)
    NN = table.n_nonrelevant[table.user]
    x = np.minimum(np.floor(est[table.order] - 1.0), NN)
    return per_user_metric(table, metric, shifted_term(metric, table.above, 1.0 + x, NN + 1))
