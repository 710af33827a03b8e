"""The maximum-likelihood estimate of P(r) (Jin et al. eq. 19-21), by SQUAREM or plain EM
(:mod:`sampled_metrics.estimators.em`), and its weighted variant WMLE (eq. 22-23) with the
readings of its printed equations.
"""
from __future__ import annotations

import logging
import time

import numpy as np

from ..design import as_design
from ..registry import resolve_name
from .em import em_rows, squarem_rows
from .histogram import check_histogram, check_stopping, mixture_matrix

__all__ = ["MLE_SOLVERS", "MLE_TOL", "SQUAREM_STEP_FACTOR", "WMLE_READINGS", "WEIGHT_KINDS",
           "check_solver", "check_reading", "mle",
           "mle_problem", "mle_rows", "weight_function", "expected_weights", "wmle",
           "wmle_weights", "wmle_reading"]

log = logging.getLogger(__name__)

#: Solvers of the (weighted) likelihood in :func:`mle`, the default first.
MLE_SOLVERS = ("squarem", "em")
#: Default ``tol`` of :func:`mle` per solver (see its docstring for the margin).
MLE_TOL = {"squarem": 8e-9, "em": 1e-8}
#: SQUAREM: factor by which the maximal step length grows / shrinks (Varadhan & Roland's
#: mstep; their code uses 4, 2 needed ~10 % fewer EM evaluations on ML-1M-sized histograms).
SQUAREM_STEP_FACTOR = 2.0
#: The weights of the weighted MLE, by the metric they follow (see :func:`weight_function`).
WEIGHT_KINDS = ("ndcg", "ap", "none")


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
    kind = resolve_name("weight kind", kind, WEIGHT_KINDS)
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


def check_reading(reading) -> str:
    """The canonical name of the WMLE reading of :data:`WMLE_READINGS` that ``reading`` names
    (in any case); the registries' one-line ValueError otherwise."""
    return resolve_name("WMLE reading", reading, WMLE_READINGS)


def check_solver(solver) -> str:
    """The canonical name of the solver of :data:`MLE_SOLVERS` that ``solver`` names (in any
    case); the registries' one-line ValueError otherwise."""
    return resolve_name("MLE solver", solver, MLE_SOLVERS)


def expected_weights(weights, n, m: int | None = None, sampling: str | None = None) -> np.ndarray:
    """w_bar(r) = E[w(r~) | r] = sum_{r~} p(r~ | r) w(r~), r = 1..n: the factor by which
    weighting the sampled ranks scales the share of users of true rank r."""
    design = as_design(n, m, sampling)
    m = design.m
    w = weights(np.arange(1, m + 2)) if callable(weights) else np.asarray(weights, float)
    return mixture_matrix(design) @ np.asarray(w, dtype=np.float64)


def wmle(hist, n, m: int | None = None, sampling: str | None = None, weight: str = "ndcg",
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
    design = as_design(n, m, sampling)
    reading = check_reading(reading)
    w = wmle_weights(weight, C, reading)
    pi, info = mle(hist, design, weights=w, **mle_options)
    return wmle_reading(pi, w, reading, design), {**info, "reading": reading}


def wmle_weights(weight: str = "ndcg", C: float = 10, reading: str = "printed"):
    """w(r~) of a WMLE reading (0-based sampled ranks for 'zero_based')."""
    return weight_function(weight, C, zero_based=check_reading(reading) == "zero_based")


def wmle_reading(pi, w, reading: str, design) -> np.ndarray:
    """The WMLE reading's estimate from the weighted fit ``pi`` (rows of pi for several)
    under ``design`` (:class:`~sampled_metrics.design.Design`)."""
    if check_reading(reading) != "detilt":
        return pi
    pi = pi / expected_weights(w, design)
    return pi / pi.sum(axis=-1, keepdims=True)


def mle_rows(hists, n, m: int | None = None, sampling: str | None = None, weights=None,
             max_iter: int = 10_000, tol: float | None = None, solver: str | None = None,
             epochs: int | None = None) -> np.ndarray:
    """:func:`mle` of each histogram (rows of ``hists``), iterated together: (J, n).

    SQUAREM to convergence, plain EM to convergence (``solver='em'``), or ``epochs`` plain
    EM steps, on all rows at once (:mod:`sampled_metrics.estimators.em`), each row with its own
    steps and stopping rule. The uniform start of every row, as Jin et al.'s.
    """
    design = as_design(n, m, sampling)
    problems = [mle_problem(h, design, weights, max_iter, tol, None, solver, epochs)
                for h in hists]
    if not problems:
        return np.zeros((0, design.n))
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
    log.debug("mle (%s): n=%d m=%d %s: %d histograms, %s, in %.2f s", solver, design.n,
              design.m, design.sampling, len(H), detail, time.perf_counter() - start)
    return PI


def mle(hist, n, m: int | None = None, sampling: str | None = None, weights=None,
        max_iter: int = 10_000, tol: float | None = None, init=None,
        solver: str | None = None, epochs: int | None = None) -> tuple[np.ndarray, dict]:
    """(Weighted) maximum likelihood P^ on the histogram (Jin et al. eq. 19-23, 29).

    With h(r~) = P~(r~) w(r~) / sum_s P~(s) w(s) (w = 1: plain MLE), maximises the
    (weighted, per-user) log-likelihood (eq. 19, 22 over sum w)

        L(pi) = sum_{r~} h(r~) log q(r~),   q = A^T pi,

    over the simplex by (accelerated) EM. The EM map (eq. 21, 23) is

        F(pi)_r = pi_r g_r(pi),   g_r(pi) = sum_{r~} h(r~) p(r~ | r) / q(r~) = dL/dpi_r,

    and never decreases L. One evaluation of F costs O(n (m + 1)), two products with A
    (:mod:`sampled_metrics.estimators.em`, which also iterates many histograms at once for
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
    design = as_design(n, m, sampling)
    A, h, pi, solver, max_iter, tol = mle_problem(hist, design, weights, max_iter, tol, init,
                                                  solver, epochs)
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
        "%.2f s", solver, design.n, design.m, design.sampling, it, evaluations, trace[-1],
        "converged" if converged else f"NOT converged (tol {tol:g})", seconds)
    return PI[0], {"loglik": trace, "iterations": it, "evaluations": evaluations,
                   "converged": converged, "seconds": seconds, "solver": solver,
                   "epochs": epochs}


def mle_problem(hist, design, weights, max_iter, tol, init, solver, epochs):
    """Validated inputs of :func:`mle` under ``design`` (a
    :class:`~sampled_metrics.design.Design`): (A, h normalised (weighted), starting pi,
    solver, max_iter, tol), with ``epochs`` turned into max_iter = epochs and tol = 0."""
    n, m = design.n, design.m
    if solver is None:
        solver = "em" if epochs is not None else "squarem"
    solver = check_solver(solver)
    if epochs is not None:
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs (number of EM steps) must be an integer >= 1, got "
                             f"{epochs!r}")
        if solver != "em":
            raise ValueError(f"epochs={epochs} runs a fixed number of plain EM steps; "
                             f"solver {solver!r} does not apply (leave it out or use 'em')")
        max_iter, tol = int(epochs), 0.0
    h = check_histogram(hist, m)
    if weights is not None:
        w = np.asarray(weights(np.arange(1, m + 2)) if callable(weights) else weights,
                       dtype=np.float64)
        if w.shape != (m + 1,) or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError(f"weights must be {m + 1} finite non-negative numbers")
        h = np.asarray(hist, dtype=np.float64) * w      # normalised once, as hist * w is
        if h.sum() <= 0:
            raise ValueError("weights are zero on every observed sampled rank")
        h = h / h.sum()
    max_iter, tol = check_stopping(max_iter, MLE_TOL[solver] if tol is None else tol)
    if init is None:
        pi = np.full(n, 1.0 / n)
    else:
        pi = np.asarray(init, dtype=np.float64)
        if pi.shape != (n,) or not np.all(np.isfinite(pi)) or np.any(pi < 0) or pi.sum() <= 0:
            raise ValueError(f"init must be {n} finite non-negative numbers, not all zero")
        pi = pi / pi.sum()
    return mixture_matrix(design), h, pi, solver, max_iter, tol
