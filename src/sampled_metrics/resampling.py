"""The bootstrap over users, one implementation for every command and comparison.

Each replicate resamples the U evaluated users with replacement. Two equivalent forms:

* :func:`resampled_counts`: replicate b gives user u the weight c_bu = how often u was drawn
  (sum_u c_bu = U); a mean over users becomes (1/U) sum_u c_bu v_u, so paired comparisons
  reuse one draw of users for every recommender;
* :func:`bootstrap_histograms`: when only the histogram of sampled ranks matters, a replicate's
  counts of r~ = 1..m+1 are Multinomial(U, P~) with P~ the observed frequencies, which is the
  same law without drawing U indices.

:func:`percentile_interval` is the central ``level`` interval of the replicates.

Examples
--------
>>> import numpy as np
>>> counts = resampled_counts(np.random.default_rng(0), users=4, draws=3)
>>> counts.shape, counts.sum(axis=1).tolist()
((3, 4), [4, 4, 4])
>>> lo, hi = percentile_interval(np.arange(101.0), 0.5)
>>> lo, hi
(25.0, 75.0)
"""
from __future__ import annotations

import numpy as np

from .checks import check_allocation

__all__ = ["resampled_users", "resampled_counts", "bootstrap_means", "bootstrap_histograms",
           "percentile_interval", "COVERS_FULL", "COVERS_NOISE"]

#: what each kind of interval covers (the ``covers`` column of every table): the full-ranking
#: metric (the recommended answer), or the users' noise around a value (a percentile
#: bootstrap interval over users, which says nothing of the value's bias)
COVERS_FULL = "full metric"
COVERS_NOISE = "users' noise"


def resampled_users(rng: np.random.Generator, users: int, draws: int) -> np.ndarray:
    """Indices of the users of each replicate: (draws, users) integers in 0..users-1, drawn
    with replacement; refused (ValueError) before drawing when they and their counts would
    not fit in memory."""
    check_allocation(3 * float(draws) * users, f"bootstrap {draws} resamplings of the {users} "
                     f"users")
    return rng.integers(0, users, size=(int(draws), users), dtype=np.int32)


def resampled_counts(rng: np.random.Generator, users: int, draws: int) -> np.ndarray:
    """c_bu, how often replicate b drew user u: (draws, users), each row summing to
    ``users``."""
    idx = resampled_users(rng, users, draws)
    keys = idx + users * np.arange(idx.shape[0], dtype=np.int64)[:, None]
    return np.bincount(keys.ravel(), minlength=idx.shape[0] * users).reshape(-1, users)


def bootstrap_means(values: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(1/U) sum_u c_bu v_uj: the mean of every column of ``values`` (U users x columns) in
    each of ``draws`` replicates, shape (draws, columns)."""
    values = np.asarray(values, dtype=float)
    users = values.shape[0]
    return resampled_counts(rng, users, draws) @ values / users


def bootstrap_histograms(ranks: np.ndarray, m: int, draws: int, seed) -> np.ndarray:
    """Replicate frequencies of r~ = 1..m+1: counts ~ Multinomial(U, P~) / U, shape
    (draws, m+1), for U sampled ranks ``ranks``."""
    check_allocation(2 * draws * (m + 1), f"--bootstrap {draws} draws of the m+1 = {m + 1} "
                     f"rank frequencies")
    counts = np.bincount(ranks - 1, minlength=m + 1)
    rng = np.random.default_rng(seed)
    return rng.multinomial(ranks.size, counts / ranks.size, size=draws) / ranks.size


def percentile_interval(samples, level: float):
    """The central ``level`` percentile interval of ``samples`` along their first axis:
    (lo, hi), floats for a 1-d input, arrays of the remaining shape otherwise; NaN when there
    is no sample."""
    samples = np.asarray(samples, dtype=float)
    if samples.shape[0] == 0:
        nan = np.full(samples.shape[1:], np.nan)
        return (float("nan"), float("nan")) if samples.ndim == 1 else (nan, nan)
    lo, hi = np.quantile(samples, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return (float(lo), float(hi)) if samples.ndim == 1 else (lo, hi)
