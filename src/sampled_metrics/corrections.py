"""Corrected sampled metrics (KDD'20 Sec. 5).

A correction is a vector M^ in R^{m+1}; an evaluation that observed the sampled rank r~
reports M^(r~) (entry ``r~ - 1``) instead of M(r~). Methods:

``sampled``        no correction: M^(r~) = M_{m+1}(r~)
``rank_estimate``  M^(r~) = M(floor(1 + (n - 1)(r~ - 1)/m))                        (eq. 20)
``minimal_bias``   argmin_M^ sum_r p(r) (E[M^(r~)|r] - M(r))^2 = (A^T A)^+ A^T b      (eq. 21-23)
``cls``            minimal bias subject to M^(r~) >= M^(r~ + 1)  ("constrained least squares")
``bv``             argmin sum_r p(r) [(E[M^|r] - M(r))^2 + gamma Var[M^|r]]
                   = ((1 - gamma) A^T A + gamma diag(c))^{-1} A^T b                   (eq. 24-25)

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
solves the constrained problem exactly as a bounded least-squares problem in the
differences d[r~] = M^(r~) - M^(r~+1) >= 0 (``scipy.optimize.lsq_linear``, BVLS active set).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import linalg, optimize

from .metrics import parse_metric
from .sampling import check_nm, rank_pmf, rank_pmf_band, sampled_metric_weights

__all__ = ["CORRECTIONS", "RankLawMoments", "rank_law_moments", "correction", "correction_vectors",
           "apply_correction", "parse_correction", "correction_label", "bias_variance",
           "correction_lookup",
           "rank_estimate_ranks"]

CORRECTIONS = ("sampled", "rank_estimate", "minimal_bias", "cls", "bv")
_BV_RE = re.compile(r"^bv[_ ]?(\d*\.?\d+(?:e-?\d+)?)$")
#: Relative eigenvalue cut-off of the pseudo-inverse used by ``minimal_bias`` and ``cls``.
RCOND = 1e-15
#: Number of pmf entries computed per block when accumulating the moments.
BLOCK_ENTRIES = 2_000_000


def parse_correction(method: str, gamma: float | None = None) -> tuple[str, float | None]:
    """Normalise a method name: ``'bv_0.1'`` -> ('bv', 0.1); checks gamma in [0, 1].

    Accepted names: sampled (alias none, uncorrected), rank_estimate, minimal_bias (alias mb),
    cls, bv (with ``gamma``) or bv_<gamma>.
    """
    if not isinstance(method, str):
        raise ValueError(f"correction method must be a string, got {method!r}")
    name = method.strip().lower().replace("-", "_")
    name = {"none": "sampled", "uncorrected": "sampled", "mb": "minimal_bias",
            "rank": "rank_estimate"}.get(name, name)
    match = _BV_RE.match(name)
    if match:
        if gamma is not None and float(match.group(1)) != gamma:
            raise ValueError(f"method {method!r} conflicts with gamma={gamma}")
        name, gamma = "bv", float(match.group(1))
    if name not in CORRECTIONS:
        raise ValueError(f"unknown correction method {method!r}; expected one of "
                         f"sampled, rank_estimate, minimal_bias, cls, bv_<gamma>")
    if name == "bv":
        if gamma is None:
            raise ValueError("method 'bv' needs gamma in [0, 1], e.g. 'bv_0.1'")
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


def _check_prior(prior, n: int) -> np.ndarray | None:
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
    metrics: tuple
    gram: np.ndarray
    atb: np.ndarray
    c: np.ndarray
    btb: np.ndarray


def rank_law_moments(metrics, n: int, m: int, sampling: str = "binomial", prior=None,
                     direct: bool = False) -> RankLawMoments:
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
    """
    n, m = check_nm(n, m, sampling)
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    p = _check_prior(prior, n)
    if p is None:
        return _uniform_moments(tuple(x.name for x in metric_list), n, m, sampling, direct)
    return _moments(metric_list, n, m, sampling, p, direct)


@lru_cache(maxsize=64)
def _uniform_moments(names: tuple, n: int, m: int, sampling: str, direct: bool):
    return _moments([parse_metric(x) for x in names], n, m, sampling,
                    np.full(n, 1.0 / n), direct)


def _moments(metric_list, n, m, sampling, p, direct) -> RankLawMoments:
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
        rows = max(1, BLOCK_ENTRIES // min(m + 1, 10 * int(np.sqrt(m)) + 20))
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
    return RankLawMoments(n, m, sampling, tuple(x.name for x in metric_list), gram, atb, c,
                          btb)


def rank_estimate_ranks(n: int, m: int) -> np.ndarray:
    """r^ = floor(1 + (n - 1)(r~ - 1)/m) for r~ = 1..m+1 (eq. 20, rounded down as in KDD'20)."""
    s = np.arange(m + 1)
    return 1 + ((n - 1) * s) // m


def _solve_bv(mom: RankLawMoments, k: int, gamma: float) -> np.ndarray:
    """((1 - gamma) A^T A + gamma diag(c))^{-1} A^T b (eq. 25); gamma = 0 is eq. 21, solved
    as :func:`_solve_minimal_bias` (A^T A alone is numerically singular)."""
    if gamma == 0:
        return _solve_minimal_bias(mom, k)
    H = (1.0 - gamma) * mom.gram + gamma * np.diag(mom.c)
    rhs = mom.atb[:, k]
    try:
        return linalg.solve(H, rhs, assume_a="pos")
    except (linalg.LinAlgError, ValueError):
        return linalg.lstsq(H, rhs)[0]


def _scaled_eig(mom: RankLawMoments):
    """Eigen-decomposition of D G D with D = diag(c)^(-1/2): returns (d, eigval, eigvec)."""
    d = 1.0 / np.sqrt(np.where(mom.c > 0, mom.c, 1.0))
    lam, V = linalg.eigh(d[:, None] * mom.gram * d[None, :])
    return d, np.clip(lam, 0.0, None), V


def _solve_minimal_bias(mom: RankLawMoments, k: int, eig=None) -> np.ndarray:
    """Least-c-norm minimiser of eq. 21: D (D G D)^+ D A^T b."""
    d, lam, V = eig or _scaled_eig(mom)
    keep = lam > RCOND * lam.max()
    y = V[:, keep] @ ((V[:, keep].T @ (d * mom.atb[:, k])) / lam[keep])
    return d * y


def _solve_cls(mom: RankLawMoments, k: int, eig=None) -> np.ndarray:
    """Eq. 21 subject to M^(s) >= M^(s+1), exactly, as bounded least squares.

    With G = A^T A = D^-1 V L V^T D^-1 (D = diag(c)^-1/2), the objective equals
    ||R x - z||^2 + const with R = L^1/2 V^T D^-1, z = L^-1/2 V^T D A^T b (eigenvalues below
    RCOND dropped). Writing M^ = T x, x[s] = M^(s) - M^(s+1) >= 0 for s <= m and
    x[m+1] = M^(m+1) free, T upper-triangular ones, BVLS solves min ||R T x - z|| exactly.
    """
    d, lam, V = eig or _scaled_eig(mom)
    keep = lam > RCOND * lam.max()
    sl = np.sqrt(lam[keep])
    R = (sl[:, None] * V[:, keep].T) / d[None, :]
    z = (V[:, keep].T @ (d * mom.atb[:, k])) / sl
    size = mom.m + 1
    RT = np.cumsum(R, axis=1)  # R @ T, T[i, j] = 1 for i <= j
    lb = np.zeros(size)
    lb[-1] = -np.inf
    res = optimize.lsq_linear(RT, z, bounds=(lb, np.full(size, np.inf)), method="bvls",
                              tol=1e-14, max_iter=50 * size)
    x = res.x
    return np.cumsum(x[::-1])[::-1]  # M^(s) = sum_{j >= s} x[j]


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
    """
    return correction_vectors([metric], n, m, [method if gamma is None else (method, gamma)],
                              sampling, prior)[(parse_metric(metric).name,
                                                correction_label(method, gamma))]


def correction_vectors(metrics, n: int, m: int, methods, sampling: str = "binomial",
                prior=None) -> dict:
    """Correction vectors for several metrics and methods sharing one pass over ranks.

    ``methods`` items are names (``'cls'``, ``'bv_0.1'``) or (name, gamma) tuples.
    Returns a dict {(metric name, method label): M^}; labels are ``sampled``,
    ``rank_estimate``, ``minimal_bias``, ``cls``, ``bv_<gamma>`` (gamma formatted with %g).
    """
    n, m = check_nm(n, m, sampling)
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    parsed = [parse_correction(*x) if isinstance(x, tuple) else parse_correction(x) for x in methods]
    prior = _check_prior(prior, n)
    need_moments = any(name in ("minimal_bias", "cls", "bv") for name, _ in parsed)
    mom = rank_law_moments(metric_list, n, m, sampling, prior) if need_moments else None
    eig = (_scaled_eig(mom) if any(name in ("minimal_bias", "cls") for name, _ in parsed)
           else None)
    out = {}
    for k, metric in enumerate(metric_list):
        for name, gamma in parsed:
            label = correction_label(name, gamma)
            if name == "sampled":
                vec = sampled_metric_weights(metric, m)
            elif name == "rank_estimate":
                vec = metric(rank_estimate_ranks(n, m), n)
            elif name == "minimal_bias":
                vec = _solve_minimal_bias(mom, k, eig)
            elif name == "cls":
                vec = _solve_cls(mom, k, eig)
            else:
                vec = _solve_bv(mom, k, gamma)
            out[(metric.name, label)] = np.asarray(vec, dtype=np.float64)
    return out


def apply_correction(correction_vector, sampled_ranks) -> np.ndarray:
    """M^(r~) for an array of sampled ranks r~ in 1..m+1 (``correction_vector[r~ - 1]``)."""
    v = np.asarray(correction_vector, dtype=np.float64)
    s = np.asarray(sampled_ranks)
    if s.size and not np.issubdtype(s.dtype, np.integer):
        if not np.all(np.mod(s, 1) == 0):
            raise ValueError("sampled ranks must be integers")
        s = s.astype(np.int64)
    if s.size and (s.min() < 1 or s.max() > v.size):
        raise ValueError(f"sampled ranks must lie in 1..m+1={v.size}, got "
                         f"{s.min()}..{s.max()}")
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
    """
    mom = rank_law_moments([metric], n, m, sampling, prior)
    v = np.asarray(correction_vector, dtype=np.float64)
    quad = v @ mom.gram @ v
    bias2 = quad - 2 * v @ mom.atb[:, 0] + mom.btb[0]
    return float(max(bias2, 0.0)), float(max(mom.c @ v ** 2 - quad, 0.0))


def _lookup_one(n: int, metrics, corrections, m: int, sampling: str) -> np.ndarray:
    vecs = correction_vectors(metrics, n, m, corrections, sampling)
    return np.stack([[vecs[(x, correction_label(c))] for c in corrections] for x in metrics])


def correction_lookup(metrics, corrections, n_values, m: int, sampling: str = "binomial",
                      processes: int = 1) -> np.ndarray:
    """Correction vectors for each n: V[j, k, e, s] = M^_{e,k}(s + 1) for n = n_values[j],
    metric k, correction e (one :func:`correction_vectors` per distinct n, spread over
    ``processes`` with :func:`sampled_metrics.parallel.map_items`)."""
    from .parallel import map_items
    metrics = [parse_metric(x).name for x in metrics]
    parts = map_items(_lookup_one, [int(n) for n in n_values], metrics, list(corrections),
                      int(m), sampling, processes=processes)
    return np.stack(parts) if parts else np.empty((0, len(metrics), len(corrections), m + 1))
