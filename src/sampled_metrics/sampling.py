"""The law of sampled ranks (KDD'20 Sec. 4.3-4.5).

A relevant item at true rank r among n items is ranked among itself and m sampled
irrelevant items. Each sampled item is ranked above it with probability (eq. 15)

    p(j < r) = (r - 1) / (n - 1),

so the sampled rank r~ satisfies

    binomial        (with replacement):    r~ - 1 ~ Binomial(m, (r - 1) / (n - 1))
    hypergeometric  (without replacement): r~ - 1 ~ Hypergeometric(population n - 1,
                                                   successes r - 1, draws m)

and the expected sampled metric is (eq. 16)

    E[M(r~) | r] = sum_{r~=1}^{m+1} p(r~ | r) M_{m+1}(r~).

All pmfs are evaluated in log space (scipy's ``logpmf``) and exponentiated, so large n and
m never produce overflowed binomial coefficients; tiny probabilities underflow to exact 0.
"""
from __future__ import annotations

import numpy as np
from scipy import special

from .checks import check_allocation, check_integer, check_ranks, check_vector
from .design import as_design
from .metrics import parse_metric
from .registry import SAMPLING_LAWS, check_sampling
from .seeds import as_generator

__all__ = ["SAMPLING_LAWS", "check_sampling", "check_candidates", "rank_pmf",
           "rank_pmf_band", "log_rank_pmf", "log_rank_pmf_at", "expected_sampled_metric", "expected_metric_matrix",
           "draw_sampled_ranks", "sampled_metric_weights", "narrow_block_rows", "log_grid"]

#: Probability mass left outside a band of sampled ranks (see :func:`rank_pmf_band`).
BAND_EPS = 1e-17


def check_candidates(n_u, m: int) -> None:
    """ValueError (one line) unless every user has more candidates than sampled items,
    n_u > m: :func:`~sampled_metrics.design.check_nm` for each user, whose sampled rank's law
    (and so every correction) is that of n = n_u items."""
    n_u = np.asarray(n_u)
    short = n_u <= m
    if short.any():
        raise ValueError(f"{int(short.sum())} of {n_u.size} users have n_u <= m = {m} "
                         f"candidates (smallest n_u: {int(n_u.min())}); the corrections need "
                         f"n_u > m")


def _check_ranks(r, n: int) -> np.ndarray:
    return check_ranks("true ranks", r, 1, n, hi_name="n")


def _gammaln1(x):
    return special.gammaln(np.asarray(x, dtype=np.float64) + 1.0)


def log_rank_pmf(r, k, n: int, m: int, sampling: str = "binomial") -> np.ndarray:
    """log p(r~ = k + 1 | r) for broadcastable arrays of true ranks ``r`` and 0-based ``k``.

    binomial:        log C(m, k) + k log q + (m - k) log(1 - q),   q = (r - 1)/(n - 1)
                     (evaluated term by term in log space: relative error ~1e-12)
    hypergeometric:  log [C(r-1, k) C(n-r, m-k) / C(n-1, m)]
                     (ratio recurrence, normalised over ``k``: ``k`` must then be a 1-D
                     contiguous range holding the row's mass; relative error ~1e-13)

    Impossible values get -inf. Only ``sampling`` is read (:func:`check_sampling`); the
    other arguments are not validated (internal fast path).
    """
    r = np.asarray(r, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    if check_sampling(sampling) == "binomial":
        q = (r - 1.0) / (n - 1.0)
        # log q and log(1 - q) with 0 * log 0 = 0: a huge finite negative stands in for
        # log 0, so k * it is 0 for k = 0 and -inf (pmf 0) otherwise, never nan.
        with np.errstate(divide="ignore"):
            log_q = np.maximum(np.log(q), -1e300)
            log_1mq = np.maximum(np.log1p(-q), -1e300)
        log_c = _gammaln1(m) - _gammaln1(k) - _gammaln1(m - k)
        with np.errstate(over="ignore", invalid="ignore"):
            # log_c + k log q + (m - k) log(1 - q), summed in that order, in place
            out = k * log_q
            out += log_c
            out += (m - k) * log_1mq
            return out
    return _hypergeom_log_pmf(r, k, n, m)


def _hypergeom_log_pmf(r, k, n: int, m: int) -> np.ndarray:
    """Hypergeometric log pmf by the ratio recurrence, normalised over ``k``.

    p(k+1)/p(k) = (K - k)(m - k) / ((k + 1)(N - K - m + k + 1)), N = n - 1, K = r - 1.
    Summing log ratios from the smallest feasible k and normalising each row (log-sum-exp)
    avoids the cancellation of log-factorials of size ~n log n; ``k`` must be a contiguous
    increasing range holding all but a negligible part of each row's mass.
    """
    r = np.asarray(r, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    N, K = n - 1.0, r - 1.0
    k_min = np.maximum(0.0, m - (N - K))
    # in place where NumPy would allocate a temporary: the same operations in the same order
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = K - k
        ratio *= m - k
        np.log(ratio, out=ratio)
        below = N - K - m + k + 1.0
        below *= k + 1.0
        np.log(below, out=below)
        ratio -= below
    feasible = k >= k_min
    np.copyto(ratio, 0.0, where=~feasible)
    log_p = np.empty(ratio.shape)
    log_p[..., 0] = 0.0
    np.cumsum(ratio[..., :-1], axis=-1, out=log_p[..., 1:])
    feasible &= k <= K
    np.copyto(log_p, -np.inf, where=~feasible)
    top = np.max(log_p, axis=-1, keepdims=True)
    np.subtract(log_p, top, out=ratio)
    np.exp(ratio, out=ratio)
    log_p -= top + np.log(np.sum(ratio, axis=-1, keepdims=True))
    return log_p


def log_rank_pmf_at(r, k, n: int, m: int, sampling: str = "binomial") -> np.ndarray:
    """:func:`log_rank_pmf` at any ``k`` (not only a contiguous range holding the row's
    mass, e.g. each user's own observed sampled rank): binomial as there, hypergeometric in
    closed form, log C(r-1, k) + log C(n-r, m-k) - log C(n-1, m) by log-gamma, which loses
    digits to cancellation as n grows (the pmf within 2e-12 of :func:`rank_pmf`'s at
    n = 3,706, 2e-10 at n = 30,000). Impossible values get -inf.

    Examples
    --------
    >>> bool(np.allclose(np.exp(log_rank_pmf_at(7, [0, 3], 50, 10, "hypergeometric")),
    ...                  rank_pmf(7, 50, 10, "hypergeometric")[[0, 3]]))
    True
    """
    if check_sampling(sampling) == "binomial":
        return log_rank_pmf(r, k, n, m, sampling)
    r = np.asarray(r, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        log_p = _log_choose(r - 1, k) + _log_choose(n - r, m - k) - _log_choose(n - 1, m)
    return np.where(np.isnan(log_p), -np.inf, log_p)


def _log_choose(a, b):
    """log C(a, b), -inf where b < 0 or b > a."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return np.where((b >= 0) & (b <= a), _gammaln1(a) - _gammaln1(b) - _gammaln1(a - b),
                    -np.inf)


def rank_pmf(r, n, m: int | None = None, sampling: str | None = None) -> np.ndarray:
    """p(r~ | r; n, m) for every r~ in 1..m+1.

    Parameters
    ----------
    r : array_like of int
        True ranks (1-based), any shape S.
    n, m : int
        Number of items and of sampled irrelevant items (n > m >= 1); or ``n`` a
        :class:`~sampled_metrics.design.Design` (then neither ``m`` nor ``sampling``).
    sampling : {'binomial', 'hypergeometric'}, default binomial

    Returns
    -------
    ndarray of shape S + (m + 1,)
        Entry ``[..., s - 1]`` is p(r~ = s | r).

    Examples
    --------
    >>> rank_pmf(3, n=5, m=2).round(4)
    array([0.25, 0.5 , 0.25])
    >>> rank_pmf(3, n=5, m=2, sampling="hypergeometric").round(4)
    array([0.1667, 0.6667, 0.1667])
    """
    design = as_design(n, m, sampling)
    n, m, sampling = design.n, design.m, design.sampling
    r = _check_ranks(r, n)
    check_allocation(3 * max(r.size, 1) * (m + 1), f"the law p(r~ | r) of {r.size} true ranks "
                     f"over m+1 = {m + 1} sampled ranks")
    return np.exp(log_rank_pmf(np.asarray(r)[..., None], np.arange(m + 1), n, m, sampling))


def rank_pmf_band(r_lo: int, r_hi: int, n: int, m: int, sampling: str = "binomial",
                  eps: float = BAND_EPS) -> tuple[int, np.ndarray]:
    """pmf rows p(. | r) for consecutive ranks r_lo..r_hi restricted to their support band.

    The sampled rank concentrates around 1 + m (r - 1)/(n - 1) (standard deviation at most
    sqrt(m)/2), so a block of consecutive r puts mass only on a band of r~. Both laws are
    stochastically increasing in r, so the band [first k with P(r~-1 <= k | r_lo) > eps,
    last k with P(r~-1 >= k | r_hi) > eps] holds all but at most 2 eps of every row's mass
    (eps = 1e-17: below float64 resolution). Arguments are not validated (internal).

    Returns
    -------
    start : int
        0-based index (r~ - 1) of the first column of the band.
    pmf : ndarray of shape (r_hi - r_lo + 1, width)
    """
    r = np.arange(r_lo, r_hi + 1, dtype=np.float64)
    return _band_rows(r, n, m, sampling, eps)


def _band_rows(r: np.ndarray, n: int, m: int, sampling: str,
               eps: float = BAND_EPS) -> tuple[int, np.ndarray]:
    """:func:`rank_pmf_band` for increasing true ranks ``r`` (any, not only consecutive):
    the band of r[0]..r[-1] holds every row's mass (stochastic monotonicity)."""
    k = np.arange(m + 1)
    first = np.exp(log_rank_pmf(r[0], k, n, m, sampling))
    last = np.exp(log_rank_pmf(r[-1], k, n, m, sampling))
    lo = int(np.argmax(np.cumsum(first) > eps))
    hi = m - int(np.argmax(np.cumsum(last[::-1]) > eps))
    return lo, np.exp(log_rank_pmf(np.asarray(r, dtype=np.float64)[:, None], k[lo:hi + 1], n,
                                   m, sampling))


def narrow_block_rows(n: int, m: int) -> int:
    """True ranks per block for which a block's band of sampled ranks stays narrow.

    A block of R consecutive true ranks spans about R m / (n - 1) + w sampled ranks, w the
    width of one row's band (~18 standard deviations, bounded by min(m + 1, 10 sqrt(m) + 20)).
    R = w (n - 1) / (4 m) (at least 16) keeps the block's band within 1.25 w, so the
    pmf entries a pass over all n true ranks computes, and the products over them, grow as
    n w instead of n (m + 1) (when m is a sizable fraction of n: 15x less work at m ~ n).
    """
    width = min(m + 1, 10 * int(np.sqrt(m)) + 20)
    return max(16, int(width * (n - 1) / (4 * m)))


def sampled_metric_weights(metric, m: int) -> np.ndarray:
    """(M(1), ..., M(m+1)): the metric applied to a sampled rank (AUC with n = m + 1).

    Examples
    --------
    >>> sampled_metric_weights("recall@2", 3)
    array([1., 1., 0., 0.])
    """
    return parse_metric(metric).weights(m + 1)


def expected_sampled_metric(metric, r, n, m: int | None = None, sampling: str | None = None,
                            correction: np.ndarray | None = None) -> np.ndarray:
    """E[M(r~) | r] = sum_{r~} p(r~ | r) M(r~)  (KDD'20 eq. 16, 18, 19).

    Parameters
    ----------
    metric : str or Metric
        Metric applied to the sampled rank (AUC uses n = m + 1).
    r : array_like of int
        True ranks, any shape.
    n, m : int
        Or ``n`` a :class:`~sampled_metrics.design.Design`.
    sampling : {'binomial', 'hypergeometric'}, default binomial
    correction : ndarray of length m + 1, optional
        Use M^(r~) instead of M(r~): gives the expected corrected metric E[M^(r~) | r].

    Returns
    -------
    ndarray of the shape of ``r``.

    Examples
    --------
    >>> expected_sampled_metric("recall@10", [1, 50, 500], n=3706, m=100).round(4)
    array([1.    , 1.    , 0.1192])
    """
    design = as_design(n, m, sampling)
    m = design.m
    w = (sampled_metric_weights(metric, m) if correction is None else
         check_vector("correction vector", correction, m + 1))
    r = _check_ranks(r, design.n)
    return expected_metric_matrix([w], r, design)[0].reshape(r.shape)


def expected_metric_matrix(weights_list, r, n, m: int | None = None,
                           sampling: str | None = None, narrow_blocks: bool = False
                           ) -> np.ndarray:
    """E[W(r~) | r] for several weight vectors at once: shape (len(weights_list), len(r)).

    Computes the pmf rows once; ``weights_list`` holds vectors of length m + 1
    (sampled metric weights or correction vectors M^). ``narrow_blocks``: the true ranks in
    increasing order, in blocks of :func:`narrow_block_rows`, each pmf row only on its
    block's band (:func:`rank_pmf_band`): the same expectation up to the rounding of the
    sums and the mass beyond the band (2 ``BAND_EPS``), with O(n sqrt(m)) instead of O(n m)
    pmf entries (the planning of m at m ~ n). ``n`` may be a
    :class:`~sampled_metrics.design.Design` (then neither ``m`` nor ``sampling``).
    """
    design = as_design(n, m, sampling)
    n, m, sampling = design.n, design.m, design.sampling
    W = np.stack([_check_vector(w, m) for w in weights_list], axis=1)
    r = _check_ranks(r, n).reshape(-1)
    out = np.empty((W.shape[1], r.size))
    if narrow_blocks:
        order = np.argsort(r, kind="stable")
        step = narrow_block_rows(n, m)
        for i in range(0, r.size, step):
            rows = order[i:i + step]
            lo, P = _band_rows(r[rows].astype(np.float64), n, m, sampling)
            out[:, rows] = (P @ W[lo:lo + P.shape[1]]).T
        return out
    step = max(1, 2_000_000 // (m + 1))
    for i in range(0, r.size, step):
        out[:, i:i + step] = (rank_pmf(r[i:i + step], design) @ W).T
    return out


def _check_vector(v, m: int) -> np.ndarray:
    return check_vector(f"a correction vector for m={m}", v, m + 1)


def draw_sampled_ranks(r, n, m: int, sampling: str = "binomial",
                       rng: np.random.Generator | int | None = None, size=None) -> np.ndarray:
    """Draw sampled ranks r~ for true ranks ``r`` (vectorised, seeded).

    r~ = 1 + Binomial(m, (r-1)/(n-1))  or  1 + Hypergeometric(r-1 good, n-r bad, m draws).

    Parameters
    ----------
    r : array_like of int
        True ranks.
    n : int or array_like of int
        Number of items; may be per-instance (broadcast against ``r``).
    m : int
    rng : numpy Generator or seed
    size : tuple, optional
        Output shape (default: the broadcast shape of r and n); e.g. ``(repeats, len(r))``.

    Examples
    --------
    >>> draw_sampled_ranks([1, 1853, 3706], n=3706, m=100, rng=0)
    array([  1,  52, 101])
    """
    rng = as_generator(rng)
    m = check_integer("m (number of sampled items)", m)
    n_arr = check_ranks("n (number of items)", n, 2)
    sampling = check_sampling(sampling)
    if np.any(n_arr <= m) or m < 1:
        raise ValueError(f"need n > m >= 1, got m={m} and min n={int(n_arr.min())}")
    r = check_ranks("true ranks", r, 1, n_arr, hi_name="n")
    if size is not None:
        shape = tuple(check_integer("size", x, 0) for x in (size if np.ndim(size) else [size]))
        try:
            fits = np.broadcast_shapes(np.broadcast_shapes(r.shape, n_arr.shape), shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"size {shape} does not hold the shape "
                             f"{np.broadcast_shapes(r.shape, n_arr.shape)} of the true ranks "
                             f"and n")
        check_allocation(2 * np.prod(shape, dtype=float), f"{np.prod(shape, dtype=float):.0f} "
                         f"sampled ranks (size={size!r})")
    if sampling == "binomial":
        return 1 + rng.binomial(m, (r - 1) / (n_arr - 1.0), size=size)
    return 1 + rng.hypergeometric(r - 1, n_arr - r, m, size=size)


def log_grid(lo: int, hi: int, points: int) -> np.ndarray:
    """About ``points`` distinct integers from lo to hi (inclusive), log-spaced: the sample
    sizes m of the curves against m (KDD'20 Figures 2 and 6).

    Examples
    --------
    >>> log_grid(1, 1000, 4).tolist()
    [1, 10, 100, 1000]
    """
    return np.unique(np.round(np.geomspace(lo, hi, points)).astype(np.int64))
