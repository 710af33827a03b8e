"""Adaptive item sampling (Li et al., AAAI'23): more negatives where the first sample is blind.

With m sampled items, every true rank r << n / m has sampled rank 1 with high probability, so
sampled evaluation cannot tell r = 1 from r = 10 (the "blind spot" of top-K metrics for
small K). Adaptive sampling draws the negatives in stages of cumulative sizes
s_1 < s_2 < ... < s_K (the authors use 100, 200, 400, 800, 1600, 3200): a user whose held-out
item is still at the top of all s_k items drawn so far (no sampled item above it) gets
s_{k+1} - s_k more; the user stops at the first stage where some item is above, or at s_K.
The outcome of user u is (its final size s_u, the number c_u of its s_u sampled items ranked
above the held-out item; c_u = r~_u - 1).

Law. The s_k items drawn by stage k are a uniform sample of size s_k (with or without
replacement) and, by exchangeability, the s_{k-1} of them drawn first are a uniform subset.
So, with p_s(c | r) the law of the number above among s items
(:func:`sampled_metrics.sampling.rank_pmf` with m = s),

    P(stop at s_k with c above | r) = p_{s_k}(c | r) C(s_k - c, s_{k-1}) / C(s_k, s_{k-1})

for c >= 1 when k < K and for every c >= 0 when k = K (s_0 = 0): the second factor is the
probability that the first s_{k-1} items all lie below the held-out item given that c of the
s_k do. It does not depend on r, so the likelihood of P(R) given the outcomes is the mixture
with per-user components p_{s_u}(c_u | r): the EM of Jin et al. (eq. 19-21) runs unchanged
over the per-user sample sizes (:func:`adaptive_mle`). For sampling with replacement the law
is (1 - theta)^{s_{k-1}} Binomial(s_k - s_{k-1}, theta)(c), theta = (r - 1)/(n - 1), the same
number.
"""
from __future__ import annotations

import time

import numpy as np
from scipy import special

from ..design import check_nm
from ..sampling import check_sampling, rank_pmf
from .em import squarem_rows
from .likelihood import MLE_TOL, SQUAREM_STEP_FACTOR

__all__ = ["DEFAULT_SIZES", "check_sizes", "draw_adaptive", "adaptive_law",
           "adaptive_likelihood", "adaptive_mle"]

#: Cumulative sample sizes of Li et al.'s adaptive sampling.
DEFAULT_SIZES = (100, 200, 400, 800, 1600, 3200)


def check_sizes(sizes, n: int, sampling: str = "binomial") -> np.ndarray:
    """Validate cumulative sizes: integers 1 <= s_1 < ... < s_K < n. One-line ValueError."""
    s = np.asarray(sizes)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"sizes must be a non-empty list of sample sizes, got {sizes!r}")
    if not np.all(np.mod(s, 1) == 0) or s.min() < 1:
        raise ValueError(f"sizes must be positive integers, got {list(sizes)}")
    s = s.astype(np.int64)
    if np.any(np.diff(s) <= 0):
        raise ValueError(f"sizes must be strictly increasing (cumulative), got {list(s)}")
    check_nm(n, int(s[-1]), sampling)
    return s


def _log_factor(c, s_prev: int, s: int) -> np.ndarray:
    """log [C(s - c, s_prev) / C(s, s_prev)] (-inf where c > s - s_prev)."""
    c = np.asarray(c, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = (special.gammaln(s - c + 1) - special.gammaln(s - c - s_prev + 1)
               - special.gammaln(s + 1) + special.gammaln(s - s_prev + 1))
    return np.where(c <= s - s_prev, out, -np.inf)


def draw_adaptive(r, n, sizes=DEFAULT_SIZES, sampling: str = "binomial",
                  rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Draw adaptive-sampling outcomes for true ranks ``r`` (vectorised over users).

    Stage by stage, the users still at the top draw s_k - s_{k-1} more items: with
    replacement, the number above ~ Binomial(s_k - s_{k-1}, (r - 1)/(n - 1)); without, the
    s_{k-1} items drawn so far were all below, so ~ Hypergeometric(r - 1 above,
    n - r - s_{k-1} below, s_k - s_{k-1} draws).

    Returns
    -------
    stage : int array (U,)
        0-based index k of the final cumulative size s_k.
    count : int array (U,)
        c_u, the number of sampled items above the held-out item (r~ = c + 1).
    """
    r = np.asarray(r, dtype=np.int64).reshape(-1)
    n_arr = np.broadcast_to(np.asarray(n, dtype=np.int64), r.shape)
    if r.size == 0:
        raise ValueError("no true ranks given")
    s = check_sizes(sizes, int(n_arr.min()), sampling)
    sampling = check_sampling(sampling)
    rng = np.random.default_rng(rng)
    if r.min() < 1 or np.any(r > n_arr):
        raise ValueError("true ranks must lie in 1..n")
    stage = np.zeros(r.size, dtype=np.int64)
    count = np.zeros(r.size, dtype=np.int64)
    active = np.ones(r.size, dtype=bool)
    prev = 0
    for k, size in enumerate(s):
        idx = np.flatnonzero(active)
        step = int(size - prev)
        if sampling == "binomial":
            c = rng.binomial(step, (r[idx] - 1) / (n_arr[idx] - 1.0))
        else:
            c = rng.hypergeometric(r[idx] - 1, n_arr[idx] - r[idx] - prev, step)
        stage[idx], count[idx] = k, c
        active[idx] = c == 0
        prev = int(size)
    return stage, count


def adaptive_law(r, n: int, sizes=DEFAULT_SIZES, sampling: str = "binomial") -> np.ndarray:
    """P(stop at stage k with c above | r) for every k and c (see the module docstring).

    Returns
    -------
    ndarray (len(r), K, s_K + 1): entry [i, k, c]; zero where the outcome is impossible
    (c > s_k, or c = 0 before the last stage). Each [i] sums to 1.
    """
    s = check_sizes(sizes, n, sampling)
    r = np.atleast_1d(np.asarray(r, dtype=np.int64))
    out = np.zeros((r.size, s.size, int(s[-1]) + 1))
    prev = 0
    for k, size in enumerate(s):
        c = np.arange(int(size) + 1)
        block = rank_pmf(r, n, int(size), sampling) * np.exp(_log_factor(c, prev, int(size)))
        if k < s.size - 1:
            block[:, 0] = 0.0
        out[:, k, :size + 1] = block
        prev = int(size)
    return out


def adaptive_likelihood(stage, count, n: int, sizes=DEFAULT_SIZES,
                        sampling: str = "binomial") -> tuple[np.ndarray, np.ndarray]:
    """The mixture components of the observed outcomes: (L, weights) with L (n, J) the law
    of the J distinct outcomes (k, c) as a function of r = 1..n and ``weights`` their
    frequencies among the users (sum 1)."""
    s = check_sizes(sizes, n, sampling)
    stage, count = np.asarray(stage).reshape(-1), np.asarray(count).reshape(-1)
    if stage.size == 0 or stage.shape != count.shape:
        raise ValueError("stage and count must be non-empty arrays of the same length")
    if stage.min() < 0 or stage.max() >= s.size:
        raise ValueError(f"stage must lie in 0..{s.size - 1} (indices of sizes)")
    if count.min() < 0 or np.any(count > s[stage]):
        raise ValueError("count must lie in 0..s_k for the user's final size s_k")
    if np.any((count == 0) & (stage < s.size - 1)):
        raise ValueError("count 0 before the last stage is impossible (the user would have "
                         "drawn more items)")
    keys, freq = np.unique(stage * (int(s[-1]) + 1) + count, return_counts=True)
    k_of, c_of = np.divmod(keys, int(s[-1]) + 1)
    L = np.empty((n, keys.size))
    ranks = np.arange(1, n + 1)
    for k in np.unique(k_of):
        cols = np.flatnonzero(k_of == k)
        prev = 0 if k == 0 else int(s[k - 1])
        pmf = rank_pmf(ranks, n, int(s[k]), sampling)[:, c_of[cols]]
        L[:, cols] = pmf * np.exp(_log_factor(c_of[cols], prev, int(s[k])))
    return L, freq / freq.sum()


def adaptive_mle(stage, count, n: int, sizes=DEFAULT_SIZES, sampling: str = "binomial",
                 max_iter: int = 10_000, tol: float | None = None) -> tuple[np.ndarray, dict]:
    """Maximum likelihood P^(r), r = 1..n, from adaptive outcomes by (SQUAREM) EM over the
    per-user sample sizes: maximises sum_j h_j log (L^T pi)_j with L from
    :func:`adaptive_likelihood`, by the EM map pi_r <- pi_r sum_j h_j L[r, j] / (L^T pi)_j
    accelerated as in :func:`sampled_metrics.estimators.mle` (same stopping rule, uniform
    start)."""
    sampling = check_sampling(sampling)
    L, h = adaptive_likelihood(stage, count, n, sizes, sampling)
    tol = MLE_TOL["squarem"] if tol is None else float(tol)
    pi = np.full(n, 1.0 / n)
    start = time.perf_counter()
    PI, info = squarem_rows(np.ascontiguousarray(L), h[None], pi[None], int(max_iter), tol,
                            SQUAREM_STEP_FACTOR, trace=True)
    return PI[0], {"loglik": info["trace"][0], "iterations": int(info["iterations"][0]),
                   "evaluations": int(info["evaluations"][0]),
                   "converged": bool(info["converged"][0]),
                   "seconds": time.perf_counter() - start}
