"""Estimators of the true-rank distribution from sampled ranks (Jin et al., AAAI'21).

Instead of correcting each metric (KDD'20), estimate the distribution P(r) of true ranks
once and read every metric off it (Jin et al. eq. 13-14):

    metric@K ~= sum_{r=1}^{n} P^(r) M(r).

All estimators see the data only through the histogram of sampled ranks
P~(r~) = (1/U) sum_u 1[r~_u = r~], r~ = 1..m+1 (:func:`sampled_rank_histogram`), and the
mixture matrix A[r - 1, r~ - 1] = p(r~ | r) (:func:`mixture_matrix`, eq. 16-18): the sampled
rank follows the mixture p(r~ | pi) = sum_r pi_r p(r~ | r) = (A^T pi)[r~ - 1].

==========  ===============================================================  ==========
method      estimate                                                         Jin et al.
==========  ===============================================================  ==========
``mle``     argmax_pi sum_r~ P~(r~) log (A^T pi)(r~), by (SQUAREM) EM        eq. 19-21
``wmle``    the same with weights w(r~) on the sampled ranks                 eq. 22-23
``mes``     argmax_pi eta H(pi) - sum_r~ P~(r~) ((A^T pi)(r~) - P~(r~))^2    eq. 24-27
``bv``      differences of KDD'20 BV Recall@r corrections                    eq. 15
==========  ===============================================================  ==========

Notation as in the package: Jin et al.'s N, n, R, r are our n, m + 1, r, r~.
"""
from __future__ import annotations

import dataclasses
import logging
import re
import time
from functools import lru_cache

import numpy as np
from scipy import linalg, special

from .checks import check_allocation
from .corrections.moments import check_prior, rank_law_moments
from .corrections.vectors import parse_correction, solve_bv
from .em_batch import em_rows, squarem_rows
from .metrics import parse_metric
from .parallel import map_items
from .sampling import check_nm, rank_pmf

__all__ = ["sampled_rank_histogram", "mixture_matrix", "check_law_matrix_size", "mle",
           "weight_function", "wmle", "WMLE_READINGS", "expected_weights", "mes",
           "mes_kkt_residual", "bv_distribution", "MLE_SOLVERS", "estimate_rank_distribution",
           "estimate_from_histogram", "estimate_many", "estimate_batches", "mle_rows",
           "parse_estimator", "metric_from_distribution", "ESTIMATORS", "mle_problem"]

log = logging.getLogger(__name__)

ESTIMATORS = ("mle", "wmle", "mes", "bv")
#: Solvers of the (weighted) likelihood in :func:`mle`, the default first.
MLE_SOLVERS = ("squarem", "em")
#: Default ``tol`` of :func:`mle` per solver (see its docstring for the margin).
MLE_TOL = {"squarem": 8e-9, "em": 1e-8}
#: SQUAREM: factor by which the maximal step length grows / shrinks (Varadhan & Roland's
#: mstep; their code uses 4, 2 needed ~10 % fewer EM evaluations on ML-1M-sized histograms).
SQUAREM_STEP_FACTOR = 2.0
#: MES Hessian: entries of A below this fraction of their row's maximum are left out.
MES_HESSIAN_DROP = 1e-16
#: MES Hessian: rows of A per block of the banded assembly.
MES_HESSIAN_ROWS = 128
#: Histograms estimated together by :func:`estimate_batches`; fixed, so that each estimate
#: does not depend on the number of processes.
BATCH_HISTOGRAMS = 50


def sampled_rank_histogram(sampled_ranks, m: int, normalize: bool = True) -> np.ndarray:
    """Histogram of sampled ranks, P~(r~) = (1/U) sum_u 1[r~_u = r~] (Jin et al. eq. 8, 21).

    Parameters
    ----------
    sampled_ranks : array_like of int
        Sampled ranks r~ in 1..m+1 (any shape, non-empty).
    m : int
        Number of sampled irrelevant items.
    normalize : bool
        Frequencies (sum 1, default) or counts.

    Returns
    -------
    ndarray of length m + 1; entry ``r~ - 1`` is P~(r~) (or the count).
    """
    m = _check_m(m)
    s = np.asarray(sampled_ranks).reshape(-1)
    if s.size == 0:
        raise ValueError("need at least one sampled rank, got none")
    if not np.issubdtype(s.dtype, np.integer):
        if not (np.issubdtype(s.dtype, np.number) and np.all(np.mod(s, 1) == 0)):
            raise ValueError("sampled ranks must be integers")
        s = s.astype(np.int64)
    if s.min() < 1 or s.max() > m + 1:
        raise ValueError(f"sampled ranks must lie in 1..m+1={m + 1}, got {s.min()}..{s.max()}")
    counts = np.bincount(s - 1, minlength=m + 1)
    return counts / s.size if normalize else counts


def mixture_matrix(n: int, m: int, sampling: str = "binomial") -> np.ndarray:
    """The n x (m+1) matrix A[r - 1, r~ - 1] = p(r~ | r) (Jin et al. eq. 16-18).

    binomial (eq. 16):  p(r~ | r) = C(m, r~-1) theta_r^(r~-1) (1 - theta_r)^(m-r~+1),
                        theta_r = (r - 1)/(n - 1)  (eq. 17);
    hypergeometric:     sampling without replacement (see :mod:`sampled_metrics.sampling`).

    Rows come from :func:`sampled_metrics.sampling.rank_pmf`, built in blocks of rows (peak
    memory ~ the result: 80 MB for n = 1e5, m = 99). The result is cached per
    (n, m, sampling) and read-only.
    """
    n, m = check_nm(n, m, sampling)
    return _mixture_matrix(n, m, sampling)


def check_law_matrix_size(n: int, m: int) -> None:
    """ValueError unless the n x (m+1) law matrix of :func:`mixture_matrix`, which every
    estimator builds, fits in memory (checked before anything is allocated)."""
    check_allocation(n * (m + 1), f"the law matrix p(r~ | r) of n = {n} true ranks by m+1 = "
                     f"{m + 1} sampled ranks")


@lru_cache(maxsize=4)
def _mixture_matrix(n: int, m: int, sampling: str) -> np.ndarray:
    check_law_matrix_size(n, m)
    A = np.empty((n, m + 1))
    rows = max(1, 2_000_000 // (m + 1))
    for lo in range(0, n, rows):
        A[lo:lo + rows] = rank_pmf(np.arange(lo + 1, min(n, lo + rows) + 1), n, m, sampling)
    A.flags.writeable = False
    return A


def weight_function(kind: str = "ndcg", C: float = 10, zero_based: bool = False):
    """Weights of the weighted MLE on sampled ranks (Jin et al. after eq. 23).

    ``'ndcg'``: w(r~) = M_NDCG(x) = 1 / log2(x + 1);
    ``'ap'``:   w(r~) = M_AP(x) = 1 / x;
    ``'none'``: w(r~) = 1 (plain MLE);

    at x = r~/C as printed (w(1) = 1/log2(1.1) = 7.3 and w(100) = 0.29 for NDCG, C = 10:
    a 25-fold tilt), or, ``zero_based=True``, at x = (r~ - 1)/C + 1, the metric of the
    0-based sampled rank r~ - 1 (as the authors' code stores ranks) scaled by C and shifted
    to the metric's domain, so that w(1) = M(1) = 1 (NDCG, C = 10: w(100) = 0.28, a 3.6-fold
    tilt). C > 0 slows the decay (Jin et al. use C > 1). Returns a vectorised function of r~.
    """
    if kind not in ("ndcg", "ap", "none"):
        raise ValueError(f"unknown weight kind {kind!r}; expected 'ndcg', 'ap' or 'none'")
    C = float(C)
    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"weight constant C must be positive, got {C}")
    shift = 1.0 - 1.0 / C if zero_based else 0.0

    def argument(s):
        return np.asarray(s, dtype=np.float64) / C + shift
    if kind == "ndcg":
        return lambda s: 1.0 / np.log2(argument(s) + 1.0)
    if kind == "ap":
        return lambda s: 1.0 / argument(s)
    return lambda s: np.ones(np.shape(s))


#: Readings of Jin et al.'s weighted MLE (see :func:`wmle`).
WMLE_READINGS = ("printed", "zero_based", "detilt")


def expected_weights(weights, n: int, m: int, sampling: str = "binomial") -> np.ndarray:
    """w_bar(r) = E[w(r~) | r] = sum_{r~} p(r~ | r) w(r~), r = 1..n: the factor by which
    weighting the sampled ranks scales the share of users of true rank r."""
    n, m = check_nm(n, m, sampling)
    w = weights(np.arange(1, m + 2)) if callable(weights) else np.asarray(weights, float)
    return mixture_matrix(n, m, sampling) @ np.asarray(w, dtype=np.float64)


def wmle(hist, n: int, m: int, sampling: str = "binomial", weight: str = "ndcg",
         C: float = 10, reading: str = "printed", **mle_options) -> tuple[np.ndarray, dict]:
    """Weighted MLE of P(r) (Jin et al. eq. 22-23) under one of three readings.

    ``'printed'``: eq. 22-23 as printed, :func:`mle` with w(r~) = M(r~/C). Its fixed point
    fits A^T pi to the tilted histogram h ~ P~ w, i.e. estimates the rank distribution of
    the users re-weighted by w_bar(r) (:func:`expected_weights`), not P(r): mass moves to
    small ranks by a factor ~ w_bar(1)/w_bar(n).

    ``'zero_based'``: the same with the weights of 0-based sampled ranks,
    w(r~) = M((r~ - 1)/C + 1) (:func:`weight_function`): a milder tilt, same bias in kind.

    ``'detilt'``: the printed fit pi_w, then the tilt undone on the true ranks,

        P^(r) = (pi_w(r) / w_bar(r)) / sum_s (pi_w(s) / w_bar(s)),

    exact if the tilted histogram were the mixture of pi_w (w_bar(r) p_w(r~|r) =
    p(r~|r) w(r~) with p_w the tilted kernel, which differs from p(.|r) only within its
    width). A weighted estimator of P(r) itself: the weights only change which sampled
    ranks drive the fit.

    ``mle_options``: those of :func:`mle` (max_iter, tol, init, solver, epochs).
    """
    w = _wmle_weights(weight, C, reading)
    pi, info = mle(hist, n, m, sampling, weights=w, **mle_options)
    return _read(pi, w, reading, n, m, sampling), {**info, "reading": reading}


def _wmle_weights(weight: str = "ndcg", C: float = 10, reading: str = "printed"):
    """w(r~) of a WMLE reading (0-based sampled ranks for 'zero_based')."""
    if reading not in WMLE_READINGS:
        raise ValueError(f"unknown WMLE reading {reading!r}; expected one of "
                         f"{', '.join(WMLE_READINGS)}")
    return weight_function(weight, C, zero_based=reading == "zero_based")


def _read(pi, w, reading: str, n: int, m: int, sampling: str) -> np.ndarray:
    """The WMLE reading's estimate from the weighted fit ``pi`` (rows of pi for several)."""
    if reading != "detilt":
        return pi
    pi = pi / expected_weights(w, n, m, sampling)
    return pi / pi.sum(axis=-1, keepdims=True)


def mle_rows(hists, n: int, m: int, sampling: str = "binomial", weights=None,
             max_iter: int = 10_000, tol: float | None = None, solver: str | None = None,
             epochs: int | None = None) -> np.ndarray:
    """:func:`mle` of each histogram (rows of ``hists``), iterated together: (J, n).

    SQUAREM to convergence, plain EM to convergence (``solver='em'``), or ``epochs`` plain
    EM steps, on all rows at once (:mod:`sampled_metrics.em_batch`), each row with its own
    steps and stopping rule. The uniform start of every row, as Jin et al.'s.
    """
    problems = [mle_problem(h, n, m, sampling, weights, max_iter, tol, None, solver, epochs)
                for h in hists]
    if not problems:
        return np.zeros((0, int(n)))
    A, _, _, solver, max_iter, tol = problems[0]
    H = np.stack([p[1] for p in problems])
    PI = np.stack([p[2] for p in problems])
    start = time.perf_counter()
    if epochs is not None:
        PI, _ = em_rows(A, H, PI, max_iter)
        detail = f"{max_iter} EM epochs"
    elif solver == "squarem":
        PI, info = squarem_rows(A, H, PI, max_iter, tol, SQUAREM_STEP_FACTOR)
        if not info["converged"].all():
            log.warning("mle (squarem, %d rows): %d rows NOT converged in %d iterations "
                        "(tol %g)", len(H), int((~info["converged"]).sum()), max_iter, tol)
        detail = (f"{int(info['evaluations'].sum())} EM evaluations, "
                  f"{int(info['iterations'].max())} iterations at most")
    else:
        PI, info = em_rows(A, H, PI, max_iter, tol)
        detail = f"{int(info['iterations'].max())} EM iterations at most"
    log.debug("mle (%s): n=%d m=%d %s: %d histograms, %s, in %.2f s", solver, A.shape[0],
             A.shape[1] - 1, sampling, len(H), detail, time.perf_counter() - start)
    return PI


def estimate_many(hists, n: int, m: int, method: str, sampling: str = "binomial",
                  **options) -> np.ndarray:
    """:func:`estimate_from_histogram` of each histogram (rows of ``hists``): (J, n).

    MLE and WMLE from the uniform start iterate all rows together (:func:`mle_rows`), the
    others run one histogram at a time.
    """
    name, opts = parse_estimator(method, **options)
    hists = list(hists)
    if name in ("mle", "wmle") and opts.get("init") is None:
        opts.pop("init", None)
        weights, reading = None, None
        if name == "wmle":
            reading = opts.get("reading", "printed")
            weights = _wmle_weights(**{key: opts.pop(key) for key in ("weight", "C", "reading")
                                       if key in opts})
        pi = mle_rows(hists, n, m, sampling, weights=weights, **opts)
        return _read(pi, weights, reading, n, m, sampling) if weights is not None else pi
    return np.stack([estimate_from_histogram(h, n, m, method, sampling, **options)
                     for h in hists]) if hists else np.zeros((0, int(n)))


def estimate_batches(hists, n: int, m: int, method: str, sampling: str = "binomial", *,
                     processes: int = 1, **options) -> np.ndarray:
    """:func:`estimate_many` on fixed batches of ``BATCH_HISTOGRAMS`` histograms, spread over
    worker processes: (J, n).

    The batches do not depend on ``processes``, and BLAS runs single-threaded in the workers
    and in this process alike (:func:`~sampled_metrics.parallel.map_items`), so the result
    is the same whatever the number of processes. The workflow's Jin et al. repeats and the
    command line's bootstrap both estimate their many histograms so.

    Parameters
    ----------
    hists : sequence of histograms of length m + 1
    n, m : int
    method : str
        As for :func:`estimate_from_histogram`.
    sampling : {'binomial', 'hypergeometric'}
    processes : int
        Worker processes (1: this process).
    **options
        The estimator's options.
    """
    hists = list(hists)
    if not hists:
        return np.zeros((0, int(n)))
    batches = [hists[lo:lo + BATCH_HISTOGRAMS] for lo in range(0, len(hists), BATCH_HISTOGRAMS)]
    return np.concatenate(map_items(_estimate_batch, batches, n, m, method, sampling, options,
                                    processes=processes))


def _estimate_batch(hists, n, m, method, sampling, options) -> np.ndarray:
    return estimate_many(hists, n, m, method, sampling, **options)


def mle(hist, n: int, m: int, sampling: str = "binomial", weights=None,
        max_iter: int = 10_000, tol: float | None = None, init=None,
        solver: str | None = None, epochs: int | None = None) -> tuple[np.ndarray, dict]:
    """(Weighted) maximum likelihood P^ on the histogram (Jin et al. eq. 19-23, 29).

    With h(r~) = P~(r~) w(r~) / sum_s P~(s) w(s) (w = 1: plain MLE), maximises the
    (weighted, per-user) log-likelihood (eq. 19, 22 over sum w)

        L(pi) = sum_{r~} h(r~) log q(r~),   q = A^T pi,

    over the simplex by (accelerated) EM. The EM map (eq. 21, 23) is

        F(pi)_r = pi_r g_r(pi),   g_r(pi) = sum_{r~} h(r~) p(r~ | r) / q(r~) = dL/dpi_r,

    and never decreases L. One evaluation of F costs O(n (m + 1)), two products with A
    (:mod:`sampled_metrics.em_batch`, which also iterates many histograms at once for
    :func:`mle_rows`), never O(n * users).

    The MLE is not unique in pi (n >> m + 1 mixture components: L is flat along many
    directions), so the estimate is defined by the path from ``init`` and the stopping rule,
    the same for both solvers: stop after the first iteration whose log-likelihood gain per
    evaluation of F is small,

        L_k - L_{k-1} <= tol |L_{k-1}| e_k,   e_k = evaluations of F in iteration k,

    and return its point (an image of F). With the uniform start this is Jin et
    al.'s estimator.

    ``solver='em'``: plain EM, pi_k = F(pi_{k-1}), e_k = 1; the rule is the relative change
    |L_k - L_{k-1}| <= tol |L_{k-1}|.

    ``solver='squarem'`` (default): SQUAREM (Varadhan & Roland 2008, scheme S3) on the log
    scale u = log pi, where EM is additive (u <- u + log g - log sum pi g) and every
    extrapolated point is a distribution again. Iteration k, from pi_0 = pi_{k-1}:
    pi_1 = F(pi_0), pi_2 = F(pi_1), r = u_1 - u_0, v = u_2 - 2 u_1 + u_0, step

        alpha = sqrt(sum_r pi_1r r_r^2 / sum_r pi_1r v_r^2)   (norms weighted by pi_1, the
                Fisher metric of the log scale, so that components on their way to 0 do
                not dictate the step), clipped to [1, alpha_max],

    u' = u_0 + 2 alpha r + alpha^2 v (alpha = 1 gives pi_2). Monotonicity safeguard: if
    L(pi') >= L(pi_2), pi_k = F(pi') (a stabilising EM step) and alpha_max (initially 1)
    doubles when alpha reached it; else pi_k = pi_2 (two plain EM steps) and alpha_max halves
    (not below 1). If neither improves on L(pi_0) (rounding at the optimum), pi_k = pi_0, a gain
    of 0, which stops. So L never decreases, e_k is 2 or 3, and the result is a
    deterministic function of (hist, n, m, sampling, weights, init, tol, max_iter), though a
    rougher one than EM's: a rounding-level change of h can switch a safeguard decision and
    move the stopping point along the flat directions of L, by up to ~1e-4 in pi in our
    tests (EM: ~1e-16). Both run BLAS on one thread, so the result does not depend on the
    number of threads. Its default ``tol`` is 8e-9 rather than 1e-8, a margin so that its
    log-likelihood is at least plain EM's at 1e-8: at equal tol the two stop at different
    points of the flat ridge, and SQUAREM's fell short of EM's on a few % of the tests'
    histograms. Against plain EM, SQUAREM needs about a tenth of the evaluations of F, and
    its Recall@10 / NDCG@10 estimates move by far less than their std over repeats (the
    measurements: ``workflow/benchmarks/bench_estimators.py`` and the performance page).

    The weighted fixed point fits A^T pi to the w-tilted histogram h, so WMLE moves mass to
    small ranks by construction.

    Parameters
    ----------
    hist : array_like of length m + 1
        Histogram of sampled ranks (counts or frequencies; normalised here).
    n, m : int
    sampling : {'binomial', 'hypergeometric'}
    weights : array of length m + 1 or callable, optional
        w(r~) >= 0 (e.g. :func:`weight_function`); None for the plain MLE.
    max_iter : int
        Maximum number of iterations (EM steps for 'em', SQUAREM cycles for 'squarem').
    tol : float, optional
        Relative gain per evaluation of F at which to stop (see above; 0: only on no gain at
        all). Default ``MLE_TOL[solver]``: 1e-8 for 'em', 8e-9 for 'squarem'.
    init : array of length n, optional
        Starting pi (normalised here); uniform 1/n by default. Zeros stay zero.
    solver : {'squarem', 'em'}, optional
        Default 'squarem', or 'em' with ``epochs``.
    epochs : int, optional
        The EM schedule. None (default): run to convergence as above. An integer N: exactly
        N plain EM steps pi_k = F(pi_{k-1}) from ``init`` and no stopping rule (``solver``
        'em' or left out; ``max_iter`` and ``tol`` unused): the
        schedule of Jin et al.'s code (100 epochs from the uniform start in their MLE
        notebook, AAAI'23 repository). Stopping early regularises: from the uniform start,
        EM first fits the coarse shape of P(r) and only later its fine structure along the
        flat directions of L, where the estimate over-fits the histogram's noise.

    Returns
    -------
    pi : ndarray of length n
        Estimated P(r), non-negative, sums to 1.
    info : dict
        ``loglik`` (trace: L at the start and after each iteration, non-decreasing),
        ``iterations``, ``evaluations`` (of F), ``converged``, ``seconds``, ``solver``.
    """
    A, h, pi, solver, max_iter, tol = mle_problem(hist, n, m, sampling, weights, max_iter,
                                                  tol, init, solver, epochs)
    n = pi.size
    if np.any((pi @ A)[h > 0] <= 0):
        raise ValueError("init gives probability 0 to an observed sampled rank")
    start = time.perf_counter()
    if solver == "em":
        PI, info = em_rows(A, h[None], pi[None], max_iter,
                           None if epochs is not None else tol, trace=True)
    else:
        PI, info = squarem_rows(A, h[None], pi[None], max_iter, tol, SQUAREM_STEP_FACTOR,
                                trace=True)
    seconds = time.perf_counter() - start
    trace, it = info["trace"][0], int(info["iterations"][0])
    evaluations, converged = int(info["evaluations"][0]), bool(info["converged"][0])
    (log.debug if converged else log.warning)(
        "mle (%s): n=%d m=%d %s: %d iterations, %d EM evaluations, loglik %.10g, %s in "
        "%.2f s", solver, n, m, sampling, it, evaluations, trace[-1],
        "converged" if converged else f"NOT converged (tol {tol:g})", seconds)
    return PI[0], {"loglik": trace, "iterations": it, "evaluations": evaluations,
                   "converged": converged, "seconds": seconds, "solver": solver,
                   "epochs": epochs}


def mle_problem(hist, n, m, sampling, weights, max_iter, tol, init, solver, epochs):
    """Validated inputs of :func:`mle`: (A, h normalised (weighted), starting pi, solver,
    max_iter, tol), with ``epochs`` turned into max_iter = epochs and tol = 0."""
    n, m = check_nm(n, m, sampling)
    if solver is None:
        solver = "em" if epochs is not None else "squarem"
    if solver not in MLE_SOLVERS:
        raise ValueError(f"unknown MLE solver {solver!r}; expected one of "
                         f"{', '.join(MLE_SOLVERS)}")
    if epochs is not None:
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs (number of EM steps) must be an integer >= 1, got "
                             f"{epochs!r}")
        if solver != "em":
            raise ValueError(f"epochs={epochs} runs a fixed number of plain EM steps; "
                             f"solver {solver!r} does not apply (leave it out or use 'em')")
        max_iter, tol = int(epochs), 0.0
    h = _check_hist(hist, m)
    if weights is not None:
        w = np.asarray(weights(np.arange(1, m + 2)) if callable(weights) else weights,
                       dtype=np.float64)
        if w.shape != (m + 1,) or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError(f"weights must be {m + 1} finite non-negative numbers")
        h = np.asarray(hist, dtype=np.float64) * w      # normalised once, as hist * w is
        if h.sum() <= 0:
            raise ValueError("weights are zero on every observed sampled rank")
        h = h / h.sum()
    max_iter, tol = _check_stopping(max_iter, MLE_TOL[solver] if tol is None else tol)
    if init is None:
        pi = np.full(n, 1.0 / n)
    else:
        pi = np.asarray(init, dtype=np.float64)
        if pi.shape != (n,) or not np.all(np.isfinite(pi)) or np.any(pi < 0) or pi.sum() <= 0:
            raise ValueError(f"init must be {n} finite non-negative numbers, not all zero")
        pi = pi / pi.sum()
    return mixture_matrix(n, m, sampling), h, pi, solver, max_iter, tol


def mes(hist, n: int, m: int, sampling: str = "binomial", eta: float = 0.001,
        max_iter: int = 100, tol: float = 1e-10,
        hessian: str = "banded", eta_scaling: str = "fixed") -> tuple[np.ndarray, dict]:
    """Maximal entropy with minimal distribution bias (Jin et al. eq. 24-27).

    Solves  max_pi  eta H(pi) - E(pi)  over the simplex (pi >= 0, sum pi = 1), with
    H(pi) = -sum_r pi_r log pi_r (eq. 24) and E(pi) = sum_{r~} P~(r~) (q(r~) - P~(r~))^2,
    q = A^T pi (eq. 25).

    Solver: Newton's method on the exact Fenchel dual. Writing E as
    E(q) = max_y y.q - E*(y), E*(y) = sum_{r~} y P~ + y^2 / (4 P~) (over observed r~), and
    minimising over the simplex in closed form (Gibbs distribution) gives the smooth,
    unconstrained, strongly convex dual in only k <= m + 1 variables

        min_y F(y) = y.P~ + sum y^2 / (4 P~) + eta log sum_r exp(-(A y)_r / eta),
        pi(y) = softmax(-A y / eta),

    grad F = P~ + y / (2 P~) - A^T pi,  Hess F = diag(1/(2 P~)) + A^T (diag pi - pi pi^T) A / eta.
    Strong duality holds (Slater), so pi(y*) is the exact optimum; it is strictly positive
    and sums to 1 by construction, and the KKT spread of the primal gradient equals the
    spread of A (2 P~ * grad F), which we drive to ``tol * eta``. Damped Newton (Armijo
    backtracking) converges quadratically, in ~6-10 iterations of O(n k^2) each, to a KKT
    spread ~1e-16. The Hessian's A^T diag(pi) A is summed over blocks of
    ``MES_HESSIAN_ROWS`` rows, each only over the columns where some row of the block has
    A[r, r~] >= ``MES_HESSIAN_DROP`` (1e-16) times the row's maximum (``hessian='banded'``;
    A is concentrated near r~ ~ m (r - 1)/(n - 1)): the terms left out change H by less than
    its rounding error (measured 6e-16 relative) and the gradient stays exact, so the
    optimum is the same; ``hessian='dense'`` is one product of the full matrix. Measured
    (n = 3706, 6040 users, eta = 0.001, 5-7 iterations, CPU time on a loaded machine):
    0.015 s at m = 99 either way; at m = 499 0.15 s dense, 0.07 s banded. n = 1e5, m = 99:
    0.8 s. Alternatives on the n
    primal variables, n = 3706: scipy SLSQP ~60 s per iteration (dense n x n quasi-Newton
    QP); exponentiated gradient (mirror descent with backtracking) 54,000 iterations in 60 s
    and still a KKT spread of 4e-9.

    Parameters
    ----------
    hist : array_like of length m + 1
        Histogram of sampled ranks (counts or frequencies; normalised here).
    n, m : int
    sampling : {'binomial', 'hypergeometric'}
    eta : float > 0
        Weight of the entropy (Jin et al.'s eta).
    eta_scaling : {'fixed', 'bins'}
        ``'fixed'`` (default): the weight is ``eta``, as the paper states it (eta = 0.001
        at every m). ``'bins'``: the weight is eta / (m + 1), as the authors' later code
        sets it (``estimator/MES.ipynb``, AAAI'23 repository: minimise
        (m + 1) sum_r~ P~ (q - P~)^2 - gamma H(pi) with gamma = 0.01, i.e. eta = gamma /
        (m + 1)): the squared-error term shrinks with the number of bins (each P~ ~ 1/(m+1))
        while the entropy does not, so a fixed eta weighs the entropy more at larger m.
    max_iter : int
        Maximum number of Newton iterations.
    tol : float
        Stop when the KKT spread max_r g_r - min_r g_r of the primal gradient
        g = grad(eta H - E)(pi) is at most tol * eta.
    hessian : {'banded', 'dense'}
        How A^T diag(pi) A is assembled (see above); the same optimum.

    Returns
    -------
    pi : ndarray of length n
    info : dict
        ``iterations``, ``converged``, ``kkt`` (the spread), ``objective`` (eta H - E),
        ``gap`` (duality gap, >= 0 up to rounding), ``seconds``.
    """
    n, m = check_nm(n, m, sampling)
    P = _check_hist(hist, m)
    eta = _check_eta(eta)
    if eta_scaling not in ("fixed", "bins"):
        raise ValueError(f"unknown eta_scaling {eta_scaling!r}; expected 'fixed' or 'bins'")
    if eta_scaling == "bins":
        eta = eta / (m + 1)
    max_iter, tol = _check_stopping(max_iter, tol)
    if hessian not in ("banded", "dense"):
        raise ValueError(f"unknown Hessian assembly {hessian!r}; expected 'banded' or 'dense'")
    A = mixture_matrix(n, m, sampling)
    obs = P > 0
    if not obs.all():
        A = A[:, obs]
    P = P[obs]
    start = time.perf_counter()
    blocks = (_gram_blocks(n, m, sampling, obs) if hessian == "banded"
              else [(0, n, 0, P.size)])

    def dual(y):
        u = -(A @ y) / eta
        lse = special.logsumexp(u)
        return y @ P + (y * y / (4 * P)).sum() + eta * lse, u - lse

    def kkt_state(y, logpi):
        pi = np.exp(logpi)
        q = pi @ A
        grad = P + y / (2 * P) - q
        g = A @ (2 * P * grad)          # primal gradient up to a constant (see docstring)
        return pi, q, grad, float(g.max() - g.min())

    y = np.zeros(P.size)
    F, logpi = dual(y)
    converged, it = False, 0
    for it in range(max_iter + 1):
        pi, q, grad, kkt = kkt_state(y, logpi)
        if kkt <= tol * eta or it == max_iter:
            converged = kkt <= tol * eta
            break
        H = _weighted_gram(A, np.sqrt(pi), blocks) - np.outer(q, q)
        H /= eta
        H[np.diag_indices_from(H)] += 1 / (2 * P)
        d = -linalg.cho_solve(linalg.cho_factor(H), grad)
        decrement, t = -grad @ d, 1.0
        while True:
            F_new, logpi_new = dual(y + t * d)
            if F_new <= F - 1e-4 * t * decrement + 1e-15 * abs(F) or t < 1e-10:
                break
            t /= 2
        y, F, logpi = y + t * d, F_new, logpi_new
        log.debug("mes: Newton iteration %d, step %g, KKT spread before %.3g", it + 1, t, kkt)
    objective = float(-eta * (pi @ logpi) - P @ (q - P) ** 2)
    seconds = time.perf_counter() - start
    (log.debug if converged else log.warning)(
        "mes: n=%d m=%d %s eta=%g: %d Newton iterations, KKT spread %.3g, %s in %.2f s", n,
        m, sampling, eta, it, kkt, "converged" if converged else "NOT converged", seconds)
    return pi, {"iterations": it, "converged": converged, "kkt": kkt, "objective": objective,
                "gap": float(F - objective), "seconds": seconds}


@lru_cache(maxsize=4)
def _row_support(n: int, m: int, sampling: str) -> tuple[np.ndarray, np.ndarray]:
    """Per row of A (validated n, m, sampling): the first and last column index where
    A >= MES_HESSIAN_DROP * the row's maximum."""
    A = _mixture_matrix(n, m, sampling)
    keep = A >= MES_HESSIAN_DROP * A.max(axis=1, keepdims=True)
    return keep.argmax(axis=1), A.shape[1] - 1 - keep[:, ::-1].argmax(axis=1)


def _gram_blocks(n: int, m: int, sampling: str, obs) -> list[tuple[int, int, int, int]]:
    """(row start, row stop, column start, column stop) of the blocks of A[:, obs] that carry
    A^T diag(w) A (see :func:`mes`), in the column numbering of A[:, obs]."""
    first, last = _row_support(n, m, sampling)
    cols = np.flatnonzero(obs)
    blocks = []
    for lo in range(0, n, MES_HESSIAN_ROWS):
        hi = min(n, lo + MES_HESSIAN_ROWS)
        c0 = int(np.searchsorted(cols, first[lo:hi].min()))
        c1 = int(np.searchsorted(cols, last[lo:hi].max(), side="right"))
        if c1 > c0:
            blocks.append((lo, hi, c0, c1))
    return blocks


def _weighted_gram(A, sqrt_w, blocks) -> np.ndarray:
    """A^T diag(w) A summed over ``blocks`` (see :func:`_gram_blocks`)."""
    G = np.zeros((A.shape[1], A.shape[1]))
    for lo, hi, c0, c1 in blocks:
        B = A[lo:hi, c0:c1] * sqrt_w[lo:hi, None]
        G[c0:c1, c0:c1] += B.T @ B
    return G


def mes_kkt_residual(pi, hist, n: int, m: int, sampling: str = "binomial",
                     eta: float = 0.001) -> float:
    """KKT spread of MES (eq. 26-27) at ``pi``: max_r g_r - min_r g_r, with the gradient

        g_r = d(eta H - E)/d pi_r = -eta (log pi_r + 1) - 2 sum_{r~} p(r~|r) P~(r~) (q - P~)(r~).

    The optimum is interior (the entropy gradient is +inf at 0), so it is the point of the
    simplex where all g_r are equal (to the multiplier of sum pi = 1): the spread is 0
    there. Returns inf if some pi_r <= 0.
    """
    n, m = check_nm(n, m, sampling)
    P = _check_hist(hist, m)
    eta = _check_eta(eta)
    pi = np.asarray(pi, dtype=np.float64)
    if pi.shape != (n,):
        raise ValueError(f"pi must be a vector of length n={n}, got shape {pi.shape}")
    if np.any(pi <= 0):
        return float("inf")
    A = mixture_matrix(n, m, sampling)
    g = -eta * (np.log(pi) + 1) - 2 * (A @ (P * (pi @ A - P)))
    return float(g.max() - g.min())


def bv_distribution(hist, n: int, m: int, gamma: float, sampling: str = "binomial",
                    prior=None) -> np.ndarray:
    """P^ from the KDD'20 BV corrections of Recall@r (Jin et al. eq. 15).

    P^(r) = Recall^_BV(r) - Recall^_BV(r - 1) = P~^T ((1 - gamma) A^T A + gamma diag c)^{-1} A^T b_r
    with A, c as in eq. 12 (prior p(r), uniform by default) and b_r = sqrt(p(r)) e_r, so
    A^T b_r = p(r) p(. | r) and, with y = ((1 - gamma) A^T A + gamma diag c)^{-1} P~ (one
    (m+1) x (m+1) solve),

        P^(r) = p(r) sum_{r~} y(r~) p(r~ | r).

    P^ sums to 1 (H 1 = c) but can be negative. sum_{r<=K} P^(r) equals the mean BV
    Recall@K correction of the same sampled ranks.
    """
    n, m = check_nm(n, m, sampling)
    P = _check_hist(hist, m)
    _, gamma = parse_correction("bv", gamma)
    p = check_prior(prior, n)
    mom = rank_law_moments("recall@1", n, m, sampling, p)
    y = solve_bv(dataclasses.replace(mom, atb=P[:, None]), 0, gamma)
    out = mixture_matrix(n, m, sampling) @ y
    return out / n if p is None else out * p


_OPTIONS = {"mle": ("max_iter", "tol", "init", "solver", "epochs"),
            "wmle": ("weight", "C", "reading", "max_iter", "tol", "init", "solver", "epochs"),
            "mes": ("eta", "eta_scaling", "max_iter", "tol"), "bv": ("gamma", "prior")}


def estimate_rank_distribution(sampled_ranks, n: int, m: int, method: str,
                               sampling: str = "binomial", **options) -> np.ndarray:
    """Estimate P(r), r = 1..n, from sampled ranks r~ in 1..m+1 (Jin et al.); see
    :func:`estimate_from_histogram` for the methods and options.

    Examples
    --------
    >>> import numpy as np
    >>> from sampled_metrics.sampling import draw_sampled_ranks
    >>> sampled = draw_sampled_ranks(np.arange(1, 1001), n=1000, m=99, rng=1)
    >>> p = estimate_rank_distribution(sampled, n=1000, m=99, method="mle")
    >>> p.shape, round(float(p.sum()), 6)
    ((1000,), 1.0)
    """
    n, m = check_nm(n, m, sampling)
    return estimate_from_histogram(sampled_rank_histogram(sampled_ranks, m), n, m, method,
                                   sampling, **options)


def parse_estimator(method: str, **options) -> tuple[str, dict]:
    """Validate a P(R) estimation method and its options: ('mle' | 'wmle' | 'mes' | 'bv',
    options), with ``bv_<gamma>`` turned into ('bv', {'gamma': gamma, ...}). A label after a
    dash names a variant (``mle-e100``, ``wmle-detilt``: the method before the dash, with
    the options given for that label). One-line ValueError for an unknown method or
    option, or bv without gamma."""
    name = method.strip().lower() if isinstance(method, str) else method
    if isinstance(name, str) and "-" in name:
        name, label = name.split("-", 1)
        if not re.fullmatch(r"[a-z0-9_.]+", label):
            raise ValueError(f"estimator variant {method!r}: the label after '-' must be "
                             f"lower-case letters, digits, '_' or '.'")
    if isinstance(name, str) and name.startswith("bv_"):
        options = {**options, "gamma": parse_correction(name, options.get("gamma"))[1]}
        name = "bv"
    if name not in _OPTIONS:
        raise ValueError(f"unknown estimation method {method!r}; expected one of "
                         f"{', '.join(ESTIMATORS)}")
    unknown = sorted(set(options) - set(_OPTIONS[name]))
    if unknown:
        raise ValueError(f"method {name!r} takes no option(s) {', '.join(unknown)}; allowed: "
                         f"{', '.join(_OPTIONS[name])}")
    if "epochs" in options and options["epochs"] is not None:
        clash = sorted({"max_iter", "tol"} & set(options))
        if clash or options.get("solver", "em") != "em":
            raise ValueError(f"method {name!r}: epochs (a fixed EM schedule) excludes "
                             f"{', '.join(clash) or 'solver ' + repr(options['solver'])}")
    if name == "bv" and "gamma" not in options:
        raise ValueError("method 'bv' needs gamma, e.g. gamma=0.1 or method='bv_0.1'")
    return name, dict(options)


def estimate_from_histogram(hist, n: int, m: int, method: str, sampling: str = "binomial",
                            **options) -> np.ndarray:
    """Estimate P(r), r = 1..n, from the histogram P~(r~) of sampled ranks (Jin et al.).

    Parameters
    ----------
    hist : array_like of length m + 1 (counts or frequencies)
    n, m : int
    method : {'mle', 'wmle', 'mes', 'bv'} (or 'bv_<gamma>')
    sampling : {'binomial', 'hypergeometric'}
    **options
        mle: ``max_iter``, ``tol``, ``init``, ``solver``, ``epochs`` (see :func:`mle`);
        wmle: also ``weight`` ('ndcg' default, 'ap', 'none'), ``C`` (10) and ``reading``
        ('printed' default, 'zero_based', 'detilt') (see :func:`wmle`);
        mes: ``eta`` (0.001), ``eta_scaling`` ('fixed'; 'bins': eta / (m + 1)), ``max_iter``,
        ``tol``; bv: ``gamma`` (required), ``prior``.
        Any other option raises ValueError.

    Returns
    -------
    ndarray of length n: P^(r) at index r - 1.
    """
    name, options = parse_estimator(method, **options)
    n, m = check_nm(n, m, sampling)
    if name == "bv":
        return bv_distribution(hist, n, m, sampling=sampling, **options)
    if name == "mes":
        return mes(hist, n, m, sampling, **options)[0]
    if name == "wmle":
        return wmle(hist, n, m, sampling, **options)[0]
    return mle(hist, n, m, sampling, **options)[0]


def metric_from_distribution(metric, p) -> float:
    """metric = sum_{r=1}^{n} p(r) M(r) with n = len(p) (Jin et al. eq. 13-14).

    Works for every metric of :mod:`sampled_metrics.metrics` (truncated ``@K`` or not; AUC
    uses n = len(p)). ``p`` need not be normalised or non-negative (BV estimates).

    Examples
    --------
    >>> import numpy as np
    >>> round(metric_from_distribution("recall@10", np.full(1000, 1e-3)), 4)   # uniform P(R)
    0.01
    """
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)):
        raise ValueError("a rank distribution must be a non-empty finite 1-D vector")
    return float(p @ parse_metric(metric).weights(p.size))


def _check_m(m) -> int:
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m (number of sampled items) must be an integer >= 1, got {m!r}")
    return int(m)


def _check_hist(hist, m: int) -> np.ndarray:
    h = np.asarray(hist, dtype=np.float64)
    if h.shape != (m + 1,):
        raise ValueError(f"a histogram of sampled ranks for m={m} must have length m+1={m + 1}, "
                         f"got shape {h.shape}")
    if not np.all(np.isfinite(h)) or np.any(h < 0) or h.sum() <= 0:
        raise ValueError("a histogram of sampled ranks must be finite, non-negative and non-zero")
    return h / h.sum()


def _check_eta(eta) -> float:
    eta = float(eta)
    if not (np.isfinite(eta) and eta > 0):
        raise ValueError(f"eta (entropy weight) must be positive, got {eta}")
    return eta


def _check_stopping(max_iter, tol) -> tuple[int, float]:
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    tol = float(tol)
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a non-negative number, got {tol}")
    return int(max_iter), tol
