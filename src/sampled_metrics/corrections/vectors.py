"""The correction vectors of one n: parse a correction, solve it from the moments of the rank
law (:mod:`sampled_metrics.corrections.moments`), apply it to sampled ranks, and its bias and
variance. The corrections, their equations and numerics: :mod:`sampled_metrics.corrections`.
"""
from __future__ import annotations

import logging
import warnings

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

from ..checks import check_allocation, check_ranks, check_vector
from ..design import Design, as_design, require
from ..metrics import parse_metric
from ..registry import CORRECTIONS
from ..sampling import sampled_metric_weights
from .moments import RankLawMoments, check_prior, rank_law_moments

__all__ = ["CORRECTIONS", "RCOND", "CLS_TIE", "UnboundedCorrectionWarning", "VectorProblem",
           "sampled_vectors", "rank_estimate_vectors", "minimal_bias_vectors", "bv_vectors",
           "cls_vectors", "parse_correction",
           "correction_label", "parse_corrections", "needs_moments", "correction_array",
           "correction", "correction_vectors", "apply_correction", "bias_variance",
           "rank_estimate", "rank_estimate_ranks", "solve_bv", "solve_cls", "nnls_last_free"]

log = logging.getLogger(__name__)

#: Relative eigenvalue cut-off of the pseudo-inverse used by ``minimal_bias``.
RCOND = 1e-15
#: Weight of the least-c-norm tie-break of CLS (see :func:`solve_cls`).
CLS_TIE = 1e-10


def parse_correction(correction: str, gamma: float | None = None) -> tuple[str, float | None]:
    """Normalise a correction name: ``'bv_0.1'`` -> ('bv', 0.1); checks gamma in [0, 1].

    The names are those of :data:`sampled_metrics.registry.CORRECTIONS`: sampled (alias
    none, uncorrected), rank_estimate, minimal_bias (alias mb), cls, bv (with ``gamma``) or
    bv_<gamma>, mapping (Li et al.'s mapping of cut-offs).
    """
    name, number = CORRECTIONS.resolve(correction)
    if number is not None:
        if gamma is not None and number != gamma:
            raise ValueError(f"correction {correction!r} conflicts with gamma={gamma}")
        gamma = number
    if CORRECTIONS[name].parameter:
        if gamma is None:
            raise ValueError(f"correction {name!r} needs gamma in [0, 1], e.g. '{name}_0.1'")
        if isinstance(gamma, (bool, np.bool_)):
            raise ValueError(f"gamma must be a number in [0, 1], got the boolean {gamma!r}")
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    elif gamma is not None:
        raise ValueError(f"gamma is only used by correction 'bv', not {name!r}")
    return name, gamma


def correction_label(correction: str, gamma: float | None = None) -> str:
    """Canonical label of a correction: ``sampled``, ``rank_estimate``, ``minimal_bias``,
    ``cls``, ``bv_<gamma>`` (gamma formatted with %g) or ``mapping``, e.g.
    ``correction_label('BV', 0.1) == 'bv_0.1'``."""
    name, g = parse_correction(correction, gamma)
    return name if g is None else f"{name}_{g:g}"


def rank_estimate(sampled_rank, n, m):
    """KDD'20's rank estimate (eq. 20), rounded down as KDD'20 does, elementwise:

        r^ = floor(1 + (n - 1)(r~ - 1) / m)

    the true rank whose expected sampled rank is r~ (E[r~ | r] = 1 + m (r - 1)/(n - 1) under
    either sampling law), on the integers.

    Parameters
    ----------
    sampled_rank : int or int array
        r~ in 1..m+1.
    n : int or int array
        Items the rank is among (broadcast with ``sampled_rank``).
    m : int or int array
        Sampled negatives.

    Returns
    -------
    int or int array
        r^ in 1..n.

    Examples
    --------
    >>> rank_estimate(1, 3706, 100), rank_estimate(101, 3706, 100)
    (1, 3706)
    >>> rank_estimate(np.array([2, 3]), np.array([101, 1001]), 100)
    array([ 2, 21])
    """
    return 1 + ((n - 1) * (sampled_rank - 1)) // m


def rank_estimate_ranks(n: int, m: int) -> np.ndarray:
    """:func:`rank_estimate` of every sampled rank r~ = 1..m+1 of one (n, m): the ranks the
    ``rank_estimate`` correction evaluates the metric at."""
    return rank_estimate(np.arange(1, m + 2), n, m)


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
            # stacklevel 6: the caller of correction_vectors (through minimal_bias_vectors)
            warnings.warn(
                f"minimal_bias for {metric.name} at n = {n}, m = {m} ranges from "
                f"{vector.min():.3g} to {vector.max():.3g}, outside the metric's range "
                f"[{lo:g}, {hi:g}]: eq. 21 without regularisation is ill-posed here; use cls "
                f"or bv_<gamma>", UnboundedCorrectionWarning, stacklevel=6)


def parse_corrections(corrections) -> list:
    """[(name, gamma)] of each correction (a name, or a (name, gamma) tuple;
    :func:`parse_correction`)."""
    return [parse_correction(*x) if isinstance(x, tuple) else parse_correction(x)
            for x in corrections]


def needs_moments(parsed) -> bool:
    """Whether any parsed correction is solved from the moments (minimal bias, CLS, BV)."""
    return any(CORRECTIONS[name].moments for name, _ in parsed)


class VectorProblem:
    """What a correction's vectors are solved from: the metrics, the design (n, m and the
    sampling law, also read as ``n``, ``m``, ``sampling``) and the moments of the rank law
    (``mom``, None unless a correction needs them), with the eigen-decomposition of the c-scaled Gram matrix made once when several corrections
    share it (``eig``) and CLS's least-squares system (``cls_system``).

    A correction of :data:`~sampled_metrics.registry.CORRECTIONS` is a function
    ``f(problem, gamma) -> array (K, m+1)``, row k the vector M^ of metric k.
    """

    def __init__(self, metric_list, design: Design, mom, shared: bool):
        self.metrics, self.design, self.mom = metric_list, design, mom
        self.shared = shared
        self._eig = self._system = None

    @property
    def n(self) -> int:
        """The design's n."""
        return self.design.n

    @property
    def m(self) -> int:
        """The design's m."""
        return self.design.m

    @property
    def sampling(self) -> str:
        """The design's law."""
        return self.design.sampling

    @property
    def eig(self):
        """:func:`_scaled_eig` of the moments (made on first use)."""
        if self._eig is None:
            self._eig = _scaled_eig(self.mom)
        return self._eig

    @property
    def cls_system(self):
        """:func:`_cls_system` of :attr:`eig` (made on first use)."""
        if self._system is None:
            self._system = _cls_system(self.eig)
        return self._system


def sampled_vectors(problem: VectorProblem, gamma=None) -> np.ndarray:
    """``sampled``: M^(r~) = M_{m+1}(r~), the metric of the sampled ranking."""
    return np.stack([sampled_metric_weights(x, problem.m) for x in problem.metrics])


def rank_estimate_vectors(problem: VectorProblem, gamma=None) -> np.ndarray:
    """``rank_estimate``: M^(r~) = M(r^(r~)) (eq. 20, :func:`rank_estimate`)."""
    ranks = rank_estimate_ranks(problem.n, problem.m)
    return np.stack([x(ranks, problem.n) for x in problem.metrics])


def minimal_bias_vectors(problem: VectorProblem, gamma=None) -> np.ndarray:
    """``minimal_bias``: the least-c-norm minimiser of eq. 21 (warns outside the range)."""
    return bv_vectors(problem, 0.0)


def bv_vectors(problem: VectorProblem, gamma) -> np.ndarray:
    """``bv_<gamma>``: eq. 24-25 (:func:`solve_bv`); gamma = 0 is ``minimal_bias``."""
    eig = problem.eig if problem.shared or not gamma else None
    out = solve_bv(problem.mom, slice(None), gamma or 0.0, eig).T
    if not gamma:
        _check_range(problem.metrics, problem.n, problem.m, out)
    return out


def cls_vectors(problem: VectorProblem, gamma=None) -> np.ndarray:
    """``cls``: eq. 21 with M^ non-increasing (:func:`solve_cls`)."""
    return np.stack([solve_cls(problem.mom, k, problem.eig, problem.cls_system)
                     for k in range(len(problem.metrics))])


def correction_array(metric_list, design: Design, parsed, mom) -> np.ndarray:
    """Correction vectors from the moments ``mom`` for the design's n: array (K, E, m+1),
    [k, e] = M^ of metric k and correction e (``parsed`` from :func:`parse_corrections`),
    each solved by its entry of :data:`~sampled_metrics.registry.CORRECTIONS`."""
    m = design.m
    check_allocation(2 * len(metric_list) * len(parsed) * (m + 1),
                     f"the correction vectors of {len(metric_list)} metric(s) x {len(parsed)} "
                     f"correction(s) over m+1 = {m + 1} sampled ranks")
    out = np.empty((len(metric_list), len(parsed), m + 1))
    # one eigen-decomposition serves CLS, minimal bias and several BV; a single BV is solved
    # directly
    shared = sum(CORRECTIONS[name].moments for name, _ in parsed) > 1
    problem = VectorProblem(metric_list, design, mom, shared)
    for e, (name, gamma) in enumerate(parsed):
        out[:, e] = CORRECTIONS[name].load()(problem, gamma)
    return out


def correction(metric, n: int, m: int, correction: str, gamma: float | None = None,
               sampling: str | None = None, prior=None) -> np.ndarray:
    """The correction vector M^ for one metric (KDD'20 Sec. 5).

    Parameters
    ----------
    metric : str or Metric
        E.g. ``'recall@10'``, ``'ndcg@10'``, ``'ap'``, ``'auc'``.
    n : int
        Number of items the true rank is taken among; or a
        :class:`~sampled_metrics.design.Design` (then ``m`` and ``sampling`` None).
    m : int
        Number of sampled irrelevant items (1 <= m < n).
    correction : {'sampled', 'rank_estimate', 'minimal_bias', 'cls', 'bv', 'bv_<gamma>', 'mapping'}
        The correction's name (:func:`parse_correction`).
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
    >>> v = correction("recall@10", n=3706, m=100, correction="rank_estimate")
    >>> v[:3], v.size
    (array([1., 0., 0.]), 101)
    """
    design = as_design(n, m, sampling)
    return correction_vectors([metric], design,
                              corrections=[correction if gamma is None else (correction, gamma)],
                              prior=prior)[(parse_metric(metric).name,
                                            correction_label(correction, gamma))]


def correction_vectors(metrics, n, m: int | None = None, corrections=None,
                       sampling: str | None = None, prior=None, narrow_blocks: bool = False
                       ) -> dict:
    """Correction vectors for several metrics and corrections sharing one pass over ranks.

    ``corrections`` items are names (``'cls'``, ``'bv_0.1'``) or (name, gamma) tuples.
    Returns a dict {(metric name, correction label): M^}; labels are those of
    :func:`correction_label`.
    ``narrow_blocks``: the moments' pass in narrow blocks, not cached (see
    :func:`rank_law_moments`).

    Examples
    --------
    >>> sorted(correction_vectors(["recall@10", "ndcg@10"], 3706, 100, ["sampled", "cls"]))
    [('ndcg@10', 'cls'), ('ndcg@10', 'sampled'), ('recall@10', 'cls'), ('recall@10', 'sampled')]
    """
    require(corrections=corrections)
    design = as_design(n, m, sampling)
    n = design.n
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    parsed = parse_corrections(corrections)
    prior = check_prior(prior, n)
    mom = (rank_law_moments(metric_list, design, prior=prior, narrow_blocks=narrow_blocks)
           if needs_moments(parsed) else None)
    arr = correction_array(metric_list, design, parsed, mom)
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


def bias_variance(correction_vector, metric, n, m: int | None = None, sampling: str | None = None,
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
    mom = rank_law_moments([metric], as_design(n, m, sampling), prior=prior)
    v = np.asarray(correction_vector, dtype=np.float64)
    quad = v @ mom.gram @ v
    bias2 = quad - 2 * v @ mom.atb[:, 0] + mom.btb[0]
    return float(max(bias2, 0.0)), float(max(mom.c @ v ** 2 - quad, 0.0))
