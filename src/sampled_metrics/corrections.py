"""Corrected sampled metrics (KDD'20 Sec. 5).

A correction is a vector M^ in R^{m+1}; an evaluation that observed the sampled rank r~
reports M^(r~) (entry ``r~ - 1``) instead of M(r~). Methods:

``sampled``        no correction: M^(r~) = M_{m+1}(r~)
``rank_estimate``  M^(r~) = M(floor(1 + (n - 1)(r~ - 1)/m))                        (eq. 20)
``minimal_bias``   argmin_M^ sum_r p(r) (E[M^(r~)|r] - M(r))^2 = (A^T A)^+ A^T b      (eq. 21-23)
``cls``            minimal bias subject to M^(r~) >= M^(r~ + 1)  ("constrained least squares")
``bv``             argmin sum_r p(r) [(E[M^|r] - M(r))^2 + gamma Var[M^|r]]
                   = ((1 - gamma) A^T A + gamma diag(c))^{-1} A^T b                   (eq. 24-25)
``mapping``        Li et al. (KDD'20): the full top-K read at the sampled top f^{-1}(K),
                   f(k) = sum_r P(r~ <= k | r) (:mod:`sampled_metrics.mapping`)

with A[r, r~] = sqrt(p(r)) p(r~|r), b[r] = sqrt(p(r)) M(r), c[r~] = sum_r p(r) p(r~|r).
(KDD'20 eq. 23 prints A[r, r~] = sqrt(p(r) p(r~)); the normal equations of eq. 21 need
sqrt(p(r)) p(r~|r), as Jin et al. eq. 12 restate it.) gamma = 1 gives the posterior mean
sum_r p(r|r~) M(r) (eq. 26).

Only A^T A, A^T b, c and b^T b are needed. They are accumulated over blocks of consecutive
true ranks, each block touching only the band of r~ that carries its probability mass
(:func:`sampled_metrics.sampling.rank_pmf_band`), so the n x (m+1) matrix A is never formed:
memory is O((m+1)^2 + block) and time O(n * band^2) with band = O(sqrt(m)).

Numerics. A^T A is a Gram matrix of Bernstein-like polynomials and is numerically singular
for m beyond a few dozen, so eq. 21 has a continuum of (numerically) minimal-bias
solutions. ``minimal_bias`` returns the one of least sum_r~ c[r~] M^(r~)^2, i.e. the limit
gamma -> 0 of BV (computed with a pseudo-inverse of the c-scaled Gram matrix). ``cls``
solves the constrained problem as a non-negative least-squares problem in the differences
d[r~] = M^(r~) - M^(r~+1) >= 0 (Lawson-Hanson active set), with the same least-c-norm
tie-break among its numerically equal minimisers (a weight 1e-10 on sum_r~ c[r~] M^(r~)^2;
without it rounding noise of the moments moves CLS by up to 1e-5, 0.04 for AUC, see
:func:`solve_cls`); CLS of AUC is the sampled AUC, exactly (it is unbiased and monotone).

Many n at once. :func:`correction_lookup` returns the vectors for thousands of distinct n
(per-user candidate counts n_u) by interpolating the moments in log n on a Chebyshev grid
whose error is checked per call (every entry within 1e-6 of the exact per-n vector), and
:func:`mean_corrected` averages M^_{n_u}(r~_u) over users for every repeat.
"""
from __future__ import annotations

import logging
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import linalg
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits

from .checks import check_allocation, check_ranks, check_vector
from .metrics import parse_metric
from .mapping import mapping_correction
from .parallel import map_items
from .sampling import check_nm, narrow_block_rows, rank_pmf, rank_pmf_band, \
    sampled_metric_weights

__all__ = ["CORRECTIONS", "UnboundedCorrectionWarning", "RankLawMoments", "rank_law_moments", "correction", "correction_vectors",
           "apply_correction", "parse_correction", "correction_label", "bias_variance",
           "rank_estimate_ranks", "correction_lookup", "mean_corrected", "LOOKUP_TOL",
           "check_prior", "clear_moment_cache", "solve_bv", "solve_cls", "nnls_last_free",
           "grid_points", "Interpolant"]

log = logging.getLogger(__name__)

CORRECTIONS = ("sampled", "rank_estimate", "minimal_bias", "cls", "bv", "mapping")
_BV_RE = re.compile(r"^bv[_ -]?(\d*\.?\d+(?:e-?\d+)?)$")
#: Relative eigenvalue cut-off of the pseudo-inverse used by ``minimal_bias``.
RCOND = 1e-15
#: Weight of the least-c-norm tie-break of CLS (see :func:`solve_cls`).
CLS_TIE = 1e-10
#: Number of pmf entries computed per block when accumulating the moments.
BLOCK_ENTRIES = 2_000_000


def parse_correction(method: str, gamma: float | None = None) -> tuple[str, float | None]:
    """Normalise a method name: ``'bv_0.1'`` -> ('bv', 0.1); checks gamma in [0, 1].

    Accepted names: sampled (alias none, uncorrected), rank_estimate, minimal_bias (alias mb),
    cls, bv (with ``gamma``) or bv_<gamma>, mapping (Li et al.'s mapping of cut-offs).
    """
    if not isinstance(method, str):
        raise ValueError(f"correction method must be a string, got {method!r}")
    name = method.strip().lower()
    if not _BV_RE.match(name):          # 'bv_1e-6' keeps its exponent's sign
        name = name.replace("-", "_")
    name = {"none": "sampled", "uncorrected": "sampled", "mb": "minimal_bias",
            "rank": "rank_estimate"}.get(name, name)
    match = _BV_RE.match(name)
    if match:
        if gamma is not None and float(match.group(1)) != gamma:
            raise ValueError(f"method {method!r} conflicts with gamma={gamma}")
        name, gamma = "bv", float(match.group(1))
    if name not in CORRECTIONS:
        raise ValueError(f"unknown correction method {method!r}; expected one of "
                         f"sampled, rank_estimate, minimal_bias, cls, bv_<gamma>, mapping")
    if name == "bv":
        if gamma is None:
            raise ValueError("method 'bv' needs gamma in [0, 1], e.g. 'bv_0.1'")
        if isinstance(gamma, (bool, np.bool_)):
            raise ValueError(f"gamma must be a number in [0, 1], got the boolean {gamma!r}")
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    elif gamma is not None:
        raise ValueError(f"gamma is only used by method 'bv', not {name!r}")
    return name, gamma


def correction_label(method: str, gamma: float | None = None) -> str:
    """Canonical label of a method: ``sampled``, ``rank_estimate``, ``minimal_bias``, ``cls``
    or ``bv_<gamma>`` (gamma formatted with %g), e.g. ``correction_label('BV', 0.1) == 'bv_0.1'``."""
    name, g = parse_correction(method, gamma)
    return name if name != "bv" else f"bv_{g:g}"


def check_prior(prior, n: int) -> np.ndarray | None:
    """None for the uniform prior p(r) = 1/n, else a validated float64 vector of length n."""
    if prior is None:
        return None
    p = np.asarray(prior, dtype=np.float64)
    if p.shape != (n,):
        raise ValueError(f"prior must be a vector of length n={n}, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("prior must be finite and non-negative")
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


def rank_law_moments(metrics, n: int, m: int, sampling: str = "binomial", prior=None,
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
    n, m = check_nm(n, m, sampling)
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    check_allocation((2 + len(metric_list)) * n, f"the rank law over the n = {n} items")
    check_allocation(2 * (m + 1) ** 2, f"the (m+1) x (m+1) system of the corrections at "
                     f"m = {m} (and its factorisation)")
    p = check_prior(prior, n)
    if p is None and not narrow_blocks:
        return _uniform_moments(tuple(metric_list), n, m, sampling, direct)
    p = np.full(n, 1.0 / n) if p is None else p
    return _moments(metric_list, n, m, sampling, p, direct, narrow_blocks)


@lru_cache(maxsize=64)
def _uniform_moments(metric_list: tuple, n: int, m: int, sampling: str, direct: bool):
    return _moments(list(metric_list), n, m, sampling,
                    np.full(n, 1.0 / n), direct)


def clear_moment_cache() -> None:
    """Forget the cached moments of the uniform prior (:func:`rank_law_moments` computes
    them anew), e.g. to time their computation or to change ``BLOCK_ENTRIES``."""
    _uniform_moments.cache_clear()


def _moments(metric_list, n, m, sampling, p, direct, narrow_blocks=False) -> RankLawMoments:
    W = np.stack([x.weights(n) for x in metric_list], axis=1)  # (n, K): M(r)
    if direct:
        A = np.sqrt(p)[:, None] * rank_pmf(np.arange(1, n + 1), n, m, sampling)
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


def rank_estimate_ranks(n: int, m: int) -> np.ndarray:
    """r^ = floor(1 + (n - 1)(r~ - 1)/m) for r~ = 1..m+1 (eq. 20, rounded down as in KDD'20)."""
    s = np.arange(m + 1)
    return 1 + ((n - 1) * s) // m


def solve_bv(mom: RankLawMoments, k, gamma: float, eig=None) -> np.ndarray:
    """((1 - gamma) A^T A + gamma diag(c))^{-1} A^T b (eq. 25) = D V ((1 - gamma) L +
    gamma)^-1 V^T D A^T b with D G D = V L V^T (D = diag(c)^-1/2, see :func:`_scaled_eig`);
    gamma = 0 is eq. 21, solved as :func:`_solve_minimal_bias` (A^T A alone is numerically
    singular). ``k`` indexes the metrics: an int gives a vector, a slice or list an (m+1, K)
    array."""
    if gamma == 0:
        return _solve_minimal_bias(mom, k, eig)
    if eig is None:          # one system: a Cholesky solve, ~10x cheaper than eigh at large m
        # (1 - gamma) G + gamma diag(c), built in place in LAPACK's (Fortran) order and
        # factored there: one (m+1)^2 array instead of four (110 MB each at m = 3705)
        H = np.multiply(mom.gram, 1.0 - gamma, order="F")
        H[np.diag_indices_from(H)] += gamma * mom.c
        try:        # cho_factor: scipy's solve(assume_a='pos') is ~6x slower here
            return linalg.cho_solve(linalg.cho_factor(H, overwrite_a=True, check_finite=False),
                                    mom.atb[:, k], check_finite=False)
        except (linalg.LinAlgError, ValueError):
            eig = _scaled_eig(mom)
    return _spectral_solve(mom, k, eig, (1.0 - gamma) * eig[1] + gamma)


def _scaled_eig(mom: RankLawMoments):
    """Eigen-decomposition of D G D with D = diag(c)^(-1/2): returns (d, eigval, eigvec)."""
    d = 1.0 / np.sqrt(np.where(mom.c > 0, mom.c, 1.0))
    lam, V = linalg.eigh(d[:, None] * mom.gram * d[None, :], driver="evd")
    return d, np.clip(lam, 0.0, None), V


def _solve_minimal_bias(mom: RankLawMoments, k, eig=None) -> np.ndarray:
    """Least-c-norm minimiser of eq. 21: D (D G D)^+ D A^T b (``k`` as in :func:`solve_bv`)."""
    eig = eig or _scaled_eig(mom)
    lam = eig[1]
    return _spectral_solve(mom, k, eig, lam, keep=lam > RCOND * lam.max())


def _spectral_solve(mom, k, eig, scale, keep=None) -> np.ndarray:
    """D V[:, keep] diag(1/scale[keep]) V[:, keep]^T D A^T b[:, k]."""
    d, _, V = eig
    if keep is not None:
        V, scale = V[:, keep], scale[keep]
    rhs = mom.atb[:, k]
    if rhs.ndim == 2:
        d, scale = d[:, None], scale[:, None]
    return d * (V @ ((V.T @ (d * rhs)) / scale))


def solve_cls(mom: RankLawMoments, k: int, eig=None, system=None) -> np.ndarray:
    """Eq. 21 subject to M^(s) >= M^(s+1), as non-negative least squares, with a tie-break.

    A^T A is singular to machine precision, so the monotone minimisers of eq. 21 form a
    numerically flat set: rounding noise of the moments (1e-15 relative, e.g. another block
    size or BLAS thread count) moved the plain BVLS solution used before by up to 1e-5 for
    AP or NDCG at some n (0.04 for AUC) at equal bias to 10 digits. As ``minimal_bias`` does
    for eq. 21 alone, CLS picks the least-c-norm one: it minimises
    bias^2 + CLS_TIE * sum_s c[s] M^(s)^2 (Hessian G + CLS_TIE diag(c); CLS_TIE = 1e-10,
    relative to the largest eigenvalue, 1, of D G D), a strictly convex problem whose
    solution moves by ~1e-10 under such noise and whose bias^2 equals the plain minimum to
    ~10 digits (KKT residuals of eq. 21 ~1e-10 of A^T b).

    With D G D = V L V^T (D = diag(c)^-1/2), the objective equals ||R T x - z||^2 + const
    with R = (L + CLS_TIE)^1/2 V^T D^-1, z = (L + CLS_TIE)^-1/2 V^T D A^T b, M^ = T x,
    x[s] = M^(s) - M^(s+1) >= 0 for s <= m, x[m+1] = M^(m+1) free and T upper-triangular
    ones; :func:`nnls_last_free` solves it (R T has full rank). ``system`` is
    :func:`_cls_system` of ``eig``, shared by the metrics.

    AUC is affine in r and its sampled version is unbiased under both sampling laws
    (E[r~ - 1 | r] = m (r - 1)/(n - 1)) and decreasing, so it attains the minimum 0 of eq. 21
    and is feasible: it is the CLS solution (the unique one when the prior has at least
    m + 1 support points, as the pmfs p(. | r) then span R^(m+1)), returned in closed form
    (a numerical solution would sit up to ~1e-5 from it, set by rounding noise).
    """
    if parse_metric(mom.metrics[k]).kind == "auc":
        return sampled_metric_weights("auc", mom.m)
    eig = eig or _scaled_eig(mom)
    d, _, V = eig
    RT, sl = system or _cls_system(eig)
    x = nnls_last_free(RT, (V.T @ (d * mom.atb[:, k])) / sl)
    return np.cumsum(x[::-1])[::-1]  # M^(s) = sum_{j >= s} x[j]


def _cls_system(eig) -> tuple[np.ndarray, np.ndarray]:
    """(R T, (L + CLS_TIE)^1/2) of :func:`solve_cls` for the decomposition ``eig``."""
    d, lam, V = eig
    sl = np.sqrt(lam + CLS_TIE)
    return np.cumsum((sl[:, None] * V.T) / d[None, :], axis=1), sl  # R @ T: T[i, j] = 1, i <= j


def nnls_last_free(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """min ||A x - b|| subject to x[:-1] >= 0 (x[-1] free), by Lawson and Hanson's active-set
    algorithm (the last variable is always in the passive set).

    Requires A of full column rank (CLS's tie-break ensures it). Stops when no coordinate at
    its bound has a descent gradient above tol = 10 eps max(shape) ||A||_1 ||b||, as the
    classic implementation does. Deterministic and independent of the SciPy version.
    """
    rows, size = A.shape
    tol = 10 * np.finfo(float).eps * max(rows, size) * np.linalg.norm(A, 1) * np.linalg.norm(b)
    passive = np.zeros(size, dtype=bool)
    passive[-1] = True
    bounded = np.ones(size, dtype=bool)
    bounded[-1] = False

    def least_squares(mask):        # QR (LAPACK dgels): A[:, mask] has full column rank
        out = np.zeros(size)
        cols = A[:, mask]
        _, sol, info = lapack.dgels(cols, b)
        out[mask] = sol[:cols.shape[1]] if info == 0 else linalg.lstsq(cols, b)[0]
        return out

    x = least_squares(passive)
    for _ in range(3 * size):
        w = A.T @ (b - A @ x)
        w[passive] = -np.inf
        while True:                     # the largest descent gradient that can enter
            j = int(np.argmax(w))
            if w[j] <= tol:
                return x
            passive[j] = True
            s = least_squares(passive)
            if s[j] > 0:
                break
            passive[j] = False          # rounding: it cannot enter after all
            w[j] = -np.inf
        while True:                     # step back until the passive set is feasible
            neg = passive & bounded & (s <= 0)
            if not neg.any():
                x = s
                break
            gap = x[neg] - s[neg]
            ratio = np.divide(x[neg], gap, out=np.zeros_like(gap), where=gap > 0)
            first = np.flatnonzero(neg)[np.argmin(ratio)]
            x = x + ratio.min() * (s - x)
            x[first] = 0.0              # exactly at its bound despite rounding
            drop = passive & bounded & (x <= 0)
            passive &= ~drop
            x[drop] = 0.0
            s = least_squares(passive)
    log.warning("CLS active set did not converge in %d iterations", 3 * size)
    return x


class UnboundedCorrectionWarning(UserWarning):
    """A minimal-bias vector (eq. 21 without regularisation) leaves the metric's range."""


def _check_range(metric_list, n: int, m: int, vectors) -> None:
    """Warn (:class:`UnboundedCorrectionWarning`, one line with the condition) where a
    minimal-bias vector M^ has an entry outside [min_r M(r), max_r M(r)], r = 1..n.

    Eq. 21 alone is the paper's unregularised limit (gamma -> 0 of eq. 24): A^T A is
    numerically singular for m beyond a few dozen, and the least-norm minimiser can take
    values of any size (at n = 1,682, m = 100, Recall@10's reaches 3e5), so a mean of such
    values says nothing. ``cls`` and ``bv_<gamma>`` are the bounded alternatives.
    """
    for metric, vector in zip(metric_list, vectors):
        ends = metric(np.array([1, n]), n)           # every metric is monotone in r
        lo, hi = float(ends.min()), float(ends.max())
        slack = 1e-6 * (hi - lo)                    # rounding of a well-posed solve
        if vector.min() < lo - slack or vector.max() > hi + slack:
            warnings.warn(
                f"minimal_bias for {metric.name} at n = {n}, m = {m} ranges from "
                f"{vector.min():.3g} to {vector.max():.3g}, outside the metric's range "
                f"[{lo:g}, {hi:g}]: eq. 21 without regularisation is ill-posed here; use cls "
                f"or bv_<gamma>", UnboundedCorrectionWarning, stacklevel=4)


def _parse_methods(methods) -> list:
    return [parse_correction(*x) if isinstance(x, tuple) else parse_correction(x) for x in methods]


def _needs_moments(parsed) -> bool:
    return any(name in ("minimal_bias", "cls", "bv") for name, _ in parsed)


def _correction_array(metric_list, n: int, m: int, parsed, mom,
                      sampling: str = "binomial") -> np.ndarray:
    """Correction vectors from the moments ``mom`` for n: array (K, E, m+1), [k, e] = M^ of
    metric k and method e (``parsed`` from :func:`parse_correction`)."""
    out = np.empty((len(metric_list), len(parsed), m + 1))
    # one eigen-decomposition serves CLS, minimal bias and several BV; a single BV is solved
    # directly
    shared = sum(name in ("cls", "minimal_bias", "bv") for name, _ in parsed)
    eig = _scaled_eig(mom) if _needs_moments(parsed) and (
        shared > 1 or any(name in ("cls", "minimal_bias") for name, _ in parsed)) else None
    for e, (name, gamma) in enumerate(parsed):
        if name in ("minimal_bias", "bv"):
            out[:, e] = solve_bv(mom, slice(None), gamma or 0.0, eig).T
        if name == "minimal_bias" or (name == "bv" and not gamma):
            _check_range(metric_list, n, m, out[:, e])
    system = _cls_system(eig) if any(name == "cls" for name, _ in parsed) else None
    for k, metric in enumerate(metric_list):
        for e, (name, gamma) in enumerate(parsed):
            if name == "sampled":
                out[k, e] = sampled_metric_weights(metric, m)
            elif name == "rank_estimate":
                out[k, e] = metric(rank_estimate_ranks(n, m), n)
            elif name == "cls":
                out[k, e] = solve_cls(mom, k, eig, system)
            elif name == "mapping":
                out[k, e] = mapping_correction(metric, n, m, sampling)
    return out


def correction(metric, n: int, m: int, method: str, gamma: float | None = None,
               sampling: str = "binomial", prior=None) -> np.ndarray:
    """The correction vector M^ for one metric (KDD'20 Sec. 5).

    Parameters
    ----------
    metric : str or Metric
        E.g. ``'recall@10'``, ``'ndcg@10'``, ``'ap'``, ``'auc'``.
    n : int
        Number of items the true rank is taken among.
    m : int
        Number of sampled irrelevant items (1 <= m < n).
    method : {'sampled', 'rank_estimate', 'minimal_bias', 'cls', 'bv', 'bv_<gamma>'}
    gamma : float in [0, 1], optional
        Weight of the variance in BV (eq. 24).
    sampling : {'binomial', 'hypergeometric'}
        With replacement (KDD'20's analysis) or without.
    prior : array of length n, optional
        Prior p(r) on true ranks (uniform by default, as in KDD'20's experiments).

    Returns
    -------
    ndarray of length m + 1; entry ``s - 1`` is M^(s).

    Examples
    --------
    >>> v = correction("recall@10", n=3706, m=100, method="rank_estimate")
    >>> v[:3], v.size
    (array([1., 0., 0.]), 101)
    """
    return correction_vectors([metric], n, m, [method if gamma is None else (method, gamma)],
                              sampling, prior)[(parse_metric(metric).name,
                                                correction_label(method, gamma))]


def correction_vectors(metrics, n: int, m: int, methods, sampling: str = "binomial",
                       prior=None, narrow_blocks: bool = False) -> dict:
    """Correction vectors for several metrics and methods sharing one pass over ranks.

    ``methods`` items are names (``'cls'``, ``'bv_0.1'``) or (name, gamma) tuples.
    Returns a dict {(metric name, method label): M^}; labels are ``sampled``,
    ``rank_estimate``, ``minimal_bias``, ``cls``, ``bv_<gamma>`` (gamma formatted with %g).
    ``narrow_blocks``: the moments' pass in narrow blocks, not cached (see
    :func:`rank_law_moments`).

    Examples
    --------
    >>> sorted(correction_vectors(["recall@10", "ndcg@10"], 3706, 100, ["sampled", "cls"]))
    [('ndcg@10', 'cls'), ('ndcg@10', 'sampled'), ('recall@10', 'cls'), ('recall@10', 'sampled')]
    """
    n, m = check_nm(n, m, sampling)
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    parsed = _parse_methods(methods)
    prior = check_prior(prior, n)
    mom = (rank_law_moments(metric_list, n, m, sampling, prior, narrow_blocks=narrow_blocks)
           if _needs_moments(parsed) else None)
    arr = _correction_array(metric_list, n, m, parsed, mom, sampling)
    return {(metric.name, correction_label(name, gamma)): arr[k, e]
            for k, metric in enumerate(metric_list) for e, (name, gamma) in enumerate(parsed)}


def apply_correction(correction_vector, sampled_ranks) -> np.ndarray:
    """M^(r~) for an array of sampled ranks r~ in 1..m+1 (``correction_vector[r~ - 1]``).

    Examples
    --------
    >>> apply_correction(correction("ndcg@10", 3706, 100, "bv_0.1"), [1, 2, 101]).round(4)
    array([ 0.2616, -0.1442,  0.    ])
    """
    v = check_vector("correction vector", correction_vector)
    s = check_ranks("sampled ranks", sampled_ranks, 1, v.size, hi_name="m+1")
    return v[s - 1]


def bias_variance(correction_vector, metric, n: int, m: int, sampling: str = "binomial",
                  prior=None) -> tuple[float, float]:
    """The two terms of eq. 24 for a correction M^.

    Returns
    -------
    bias2 : float
        sum_r p(r) (E[M^(r~)|r] - M(r))^2 = M^T G M^ - 2 M^T A^T b + b^T b
    variance : float
        sum_r p(r) Var[M^(r~)|r] = sum_s c[s] M^(s)^2 - M^T G M^

    Examples
    --------
    >>> bias2, var = bias_variance(correction("ndcg@10", 3706, 100, "bv_0.1"), "ndcg@10", 3706, 100)
    >>> round(bias2, 8), round(var, 8)
    (0.00032402, 0.00069829)
    """
    mom = rank_law_moments([metric], n, m, sampling, prior)
    v = np.asarray(correction_vector, dtype=np.float64)
    quad = v @ mom.gram @ v
    bias2 = quad - 2 * v @ mom.atb[:, 0] + mom.btb[0]
    return float(max(bias2, 0.0)), float(max(mom.c @ v ** 2 - quad, 0.0))


def correction_lookup(metrics, corrections, n_values, m: int, sampling: str = "binomial",
                      processes: int = 1, *, exact: bool = False) -> np.ndarray:
    """Correction vectors for many n at once (uniform prior p(r) = 1/n, as in KDD'20 Sec. 6).

    Parameters
    ----------
    metrics : sequence of str or Metric
        Metric names, e.g. ``'recall@10'``, or Metric objects (any object whose
        ``weights(n)`` gives M(1..n), such as the shifted per-positive terms of
        :mod:`sampled_metrics.multipositive`).
    corrections : sequence
        Correction names (``'cls'``, ``'bv_0.1'``, ...) or (name, gamma) tuples.
    n_values : sequence of int
        The n of each row of the result (any order, repeats allowed; every n > m).
    m : int
    sampling : {'binomial', 'hypergeometric'}
    processes : int
        Worker processes (:func:`sampled_metrics.parallel.map_items`); the result is
        bit-identical whatever their number.
    exact : bool
        Compute every distinct n from its own moments (the reference; slow for many n).

    Returns
    -------
    ndarray of shape (len(n_values), len(metrics), len(corrections), m + 1)
        Entry [j, k, e, s] is M^(s + 1) of metric k and correction e for n = n_values[j].

    Notes
    -----
    ``sampled`` and ``rank_estimate`` are closed forms, evaluated for every n. The
    others solve eq. 21-25 from the moments A^T A, A^T b, c of the rank law, and computing
    those (O(n m^2)) dominates: 0.1-0.3 s at n = 26,744, m = 100 without replacement,
    against 3-7 ms for all the solves of one n. With few distinct n (at most ``2 * GRID_LEVELS[0] +
    1``) or ``exact=True`` every n gets its exact moments, and the result equals
    :func:`correction_vectors` per n bit for bit. Otherwise:

    * Grid. The nodes are the Chebyshev-Lobatto points of [log n_min, log n_max] with N
      intervals, rounded to integers. Every entry of the moments is interpolated in log n
      by the barycentric polynomial through its exact values at the nodes, and every
      distinct n is then solved from its interpolated moments exactly as from exact ones
      (so CLS is still the monotone bounded least-squares solution; only its input is
      interpolated; n that are nodes get their exact vectors).
    * Why it converges. The moments are sums over r = 1..n of products of pmfs that are
      polynomials in r over polynomials in n (hypergeometric) or polynomials in
      (r - 1)/(n - 1) (binomial), weighted by M(r): analytic in n away from n in [0, m] and
      from the negative axis (poles of harmonic-number-like sums for AP, NDCG). In log n,
      the nearest singularities sit log(n_min / m) from the interval or pi off the real
      axis, so polynomial interpolation at Chebyshev points converges geometrically in N,
      the faster the narrower n_max / n_min and the larger n_min / m.
    * Check (a posteriori, per call). The points of 2N intervals interleave those of N:
      at angles (k + 1/2) pi / N, where sin(theta) sin(N theta), the nodal polynomial of
      the N + 1 nodes, peaks, so they are where the interpolation error's leading term is
      largest. For N = GRID_LEVELS[0], GRID_LEVELS[1], ... the corrections at the N
      interleaved points are computed from their exact moments and from the N-interval
      interpolant; the first level whose largest entrywise difference, over all metrics and
      corrections, is at most GRID_CHECK_TOL = LOOKUP_TOL / 10 is accepted, and that
      interpolant gives the lookup (the distinct n among the 2N + 1 exact points get their
      exact vectors). If no level passes (a wide n_max / n_min, or n_min close to m), the
      distinct n are split at sqrt(n_min n_max) and each half is treated the same way; a
      piece too small for a grid (a level would need as many exact points as it has
      distinct n, or rounding to integers merges points) is computed exactly per n.
      (``minimal_bias``, a pseudo-inverse cut at rounding level, is not continuous in the
      moments and would never pass: asking for it computes every n exactly.)
    * Bound. Target: every entry within LOOKUP_TOL = 1e-6 of the exact per-n vector, hence
      every per-user average of them. The check holds the entries to 1e-7 where the
      leading error term peaks, leaving a factor 10 for the rest of each interval (an a
      posteriori argument, not a proof), and the bound is measured by
      ``workflow/benchmarks/bench_corrections.py`` on the ML-20M shape (n 17,491..26,725,
      m = 100, both laws, Table 3's and Jin's metrics x corrections: largest error 2e-12,
      next to the check points) and by the tests.

    The result depends only on the arguments (the grid only on the set of distinct n).
    """
    metric_names = tuple(parse_metric(x) for x in metrics)   # Metric objects (hashable)
    parsed = tuple(_parse_methods(corrections))
    n_all = np.asarray(n_values).reshape(-1)
    if n_all.size and not np.all(np.mod(n_all, 1) == 0):
        raise ValueError("n values must be integers")
    n_all = n_all.astype(np.int64)
    if n_all.size == 0:
        return np.empty((0, len(metric_names), len(parsed), m + 1))
    distinct, inverse = np.unique(n_all, return_inverse=True)
    check_nm(int(distinct[0]), m, sampling)
    args = (metric_names, parsed, m, sampling)
    pseudo_inverse = any(name == "minimal_bias" or (name == "bv" and gamma == 0)
                         for name, gamma in parsed)
    if exact or pseudo_inverse or not _needs_moments(parsed):
        table = _exact_arrays(distinct, args, processes)
    else:
        table = _grid_arrays(distinct, args, processes)
    return table[inverse]


#: Largest entrywise error of a lookup computed on the interpolation grid (see
#: :func:`correction_lookup`).
LOOKUP_TOL = 1e-6
#: A grid level is accepted when its a-posteriori check error is at most this.
GRID_CHECK_TOL = LOOKUP_TOL / 10
#: Numbers of Chebyshev intervals tried in turn (each level's nodes contain the previous').
GRID_LEVELS = (8, 16)
#: Distinct n per work item of the per-n stage (work items are striped over processes).
LOOKUP_CHUNK = 64


def _exact_arrays(n_values, args, processes) -> np.ndarray:
    return np.stack(map_items(_exact_one, [int(n) for n in n_values], *args,
                              processes=processes))


def _exact_one(n, metric_names, parsed, m, sampling) -> np.ndarray:
    return _node(n, metric_names, parsed, m, sampling)[1]


def _node(n, metric_names, parsed, m, sampling):
    """(flattened exact moments or None, correction array) for one n, as correction_vectors
    computes them."""
    metric_list = [parse_metric(x) for x in metric_names]
    mom = rank_law_moments(metric_list, n, m, sampling) if _needs_moments(parsed) else None
    flat = (None if mom is None else
            np.concatenate([mom.gram.ravel(), mom.atb.ravel(), mom.c, mom.btb]))
    return flat, _correction_array(metric_list, n, m, parsed, mom, sampling)


def _unflatten(flat, n, metric_names, m, sampling) -> RankLawMoments:
    size, K = m + 1, len(metric_names)
    a = size * size
    return RankLawMoments(n, m, sampling, tuple(metric_names), flat[:a].reshape(size, size),
                          flat[a:a + size * K].reshape(size, K),
                          flat[a + size * K:a + size * K + size], flat[a + size * K + size:])


def grid_points(n_lo: int, n_hi: int, intervals: int) -> np.ndarray:
    """Integers nearest the Chebyshev-Lobatto points of [log n_lo, log n_hi]."""
    x_lo, x_hi = np.log(n_lo), np.log(n_hi)
    theta = np.pi * (np.arange(intervals + 1) / intervals)
    x = 0.5 * (x_lo + x_hi) + 0.5 * (x_hi - x_lo) * np.cos(theta)
    return np.unique(np.clip(np.rint(np.exp(x)), n_lo, n_hi).astype(np.int64))


class Interpolant:
    """Barycentric polynomial interpolation in log n through exact values at integer nodes."""

    def __init__(self, nodes, values):
        x = np.log(np.asarray(nodes, dtype=np.float64))
        self.centre, self.half = 0.5 * (x.max() + x.min()), 0.5 * (x.max() - x.min())
        self.t = (x - self.centre) / self.half
        diff = self.t[:, None] - self.t[None, :]
        np.fill_diagonal(diff, 1.0)
        w = 1.0 / np.prod(diff, axis=1)
        self.w = w / np.abs(w).max()
        self.values = values      # (nodes, D)

    def __call__(self, n: int) -> np.ndarray:
        d = (np.log(n) - self.centre) / self.half - self.t
        hit = np.flatnonzero(d == 0)
        if hit.size:
            return self.values[hit[0]]
        q = self.w / d
        return (q / q.sum()) @ self.values


def _interpolated(n_chunk, interp, metric_names, parsed, m, sampling) -> np.ndarray:
    """Correction arrays for the n of a chunk, each solved from its interpolated moments."""
    metric_list = [parse_metric(x) for x in metric_names]
    out = np.empty((len(n_chunk), len(metric_list), len(parsed), m + 1))
    for j, n in enumerate(n_chunk):
        mom = _unflatten(interp(int(n)), int(n), metric_names, m, sampling)
        out[j] = _correction_array(metric_list, int(n), m, parsed, mom, sampling)
    return out


def _grid_arrays(distinct, args, processes, done=None) -> np.ndarray:
    """Correction arrays for the sorted distinct n (see :func:`correction_lookup`); ``done``
    maps n to (exact flattened moments, exact correction array) already computed."""
    metric_names, parsed, m, sampling = args
    n_lo, n_hi = int(distinct[0]), int(distinct[-1])
    done = {} if done is None else done

    def exact_at(points):
        todo = [int(n) for n in points if int(n) not in done]
        for n, res in zip(todo, map_items(_node, todo, *args, processes=processes)):
            done[n] = res

    for level in GRID_LEVELS:
        nodes, fine = grid_points(n_lo, n_hi, level), grid_points(n_lo, n_hi, 2 * level)
        if fine.size < 2 * level + 1 or fine.size >= distinct.size:
            break   # points collide after rounding, or exact per n is as cheap
        exact_at(fine)
        checks = np.setdiff1d(fine, nodes)
        interp = Interpolant(nodes, np.stack([done[int(n)][0] for n in nodes]))
        got = np.concatenate(map_items(_interpolated, [[n] for n in checks], interp, *args,
                                       processes=processes))
        want = np.stack([done[int(n)][1] for n in checks])
        error = float(np.max(np.abs(got - want)))
        log.info("correction grid for n in %d..%d, m=%d: %d intervals, check error %.3g",
                 n_lo, n_hi, m, level, error)
        log.debug("per metric x correction: %s", np.abs(got - want).max(axis=(0, 3)))
        if error <= GRID_CHECK_TOL:
            rest = np.array([n for n in distinct if int(n) not in done], dtype=np.int64)
            chunks = [rest[i:i + LOOKUP_CHUNK] for i in range(0, rest.size, LOOKUP_CHUNK)]
            for chunk, arr in zip(chunks, map_items(_interpolated, chunks, interp, *args,
                                                     processes=processes)):
                done.update((int(n), (None, a)) for n, a in zip(chunk, arr))
            return np.stack([done[int(n)][1] for n in distinct])
    if distinct.size > 4 * GRID_LEVELS[0] + 2:          # each half can hold a grid
        cut = int(np.searchsorted(distinct, np.sqrt(float(n_lo) * n_hi)))
        log.info("correction grid for n in %d..%d, m=%d: split at %d", n_lo, n_hi, m,
                 distinct[cut])
        return np.concatenate([_grid_arrays(distinct[:cut], args, processes, done),
                               _grid_arrays(distinct[cut:], args, processes, done)])
    log.info("correction grid not used for n in %d..%d, m=%d: exact per n", n_lo, n_hi, m)
    rest = [int(n) for n in distinct if int(n) not in done]
    for n, arr in zip(rest, map_items(_exact_one, rest, *args, processes=processes)):
        done[n] = (None, arr)
    return np.stack([done[int(n)][1] for n in distinct])


def mean_corrected(lookup, n_index, sampled) -> np.ndarray:
    """Per-repeat mean over users of M^_{n_u}(r~_u) for every metric and correction.

    Parameters
    ----------
    lookup : array (J, K, E, m + 1)
        From :func:`correction_lookup`.
    n_index : array (users,) of int
        Row of ``lookup`` of each user's n.
    sampled : array (repeats, users) of int
        Sampled ranks r~ in 1..m+1.

    Returns
    -------
    ndarray (K, E, repeats): (1/U) sum_u lookup[n_index[u], k, e, sampled[t, u] - 1].

    Computed per block of repeats as the histogram of the (n index, r~) cells times the
    lookup (one matrix product), not by gathering U x K x E values per repeat.
    """
    V = np.asarray(lookup, dtype=np.float64)
    if V.ndim != 4:
        raise ValueError(f"lookup must have shape (n values, metrics, corrections, m+1), "
                         f"got {V.shape}")
    J, K, E, size = V.shape
    sampled = np.asarray(sampled)
    idx = np.asarray(n_index).reshape(-1)
    if sampled.ndim != 2 or sampled.shape[1] != idx.size:
        raise ValueError(f"sampled ranks must have shape (repeats, users={idx.size}), got "
                         f"{sampled.shape}")
    if idx.size == 0:
        raise ValueError("no users")
    if idx.min() < 0 or idx.max() >= J:
        raise ValueError(f"n_index must lie in 0..{J - 1}")
    if sampled.size and (sampled.min() < 1 or sampled.max() > size):
        raise ValueError(f"sampled ranks must lie in 1..m+1={size}")
    cells = J * size
    table = V.transpose(0, 3, 1, 2).reshape(cells, K * E)
    base = idx.astype(np.int64) * size - 1
    out = np.empty((sampled.shape[0], K * E))
    step = max(1, MEAN_BLOCK_CELLS // cells)
    with threadpool_limits(1):      # the same sums whatever the machine's BLAS threads
        for a in range(0, sampled.shape[0], step):
            block = sampled[a:a + step].astype(np.int64) + base[None, :]
            block += (np.arange(block.shape[0]) * cells)[:, None]
            counts = np.bincount(block.ravel(), minlength=block.shape[0] * cells)
            out[a:a + step] = counts.reshape(-1, cells).astype(np.float64) @ table
    return (out / idx.size).T.reshape(K, E, -1)


#: Histogram cells per block in :func:`mean_corrected` (32 MB of float64 counts).
MEAN_BLOCK_CELLS = 4_000_000
