"""The EM and SQUAREM iterations of the (weighted) MLE of P(r), on J histograms at once: the one
implementation behind :func:`~sampled_metrics.estimators.mle` (J = 1),
:func:`~sampled_metrics.estimators.mle_rows` and :func:`~sampled_metrics.estimators.adaptive.adaptive_mle`.

Each row j is the problem of :func:`~sampled_metrics.estimators.mle` for its histogram h_j,
with its own SQUAREM steps, safeguard and step bound, and its own stopping rule; the rows
only share the matrix products. One evaluation of the EM map for the active rows is

    G = (H / Q) A^T,   F(PI) = PI * G / rowsum(PI * G),   Q' = F(PI) A,

two (J x k x n) products instead of J matrix-vector pairs (measured on the ML-1M rank files,
n = 3,706, 100 repeats, one core: 1.2-1.6x faster than one row at a time at m = 99, where
the element-wise work of the iteration weighs as much as the products; 2.1-2.6x at m = 499;
2.3-6.5x for a fixed number of EM epochs). Where A's band is narrow (m = 499 at n = 3,706),
the products run on the band alone (:mod:`sampled_metrics.estimators.band`): the same maths
to rounding, 2.2x faster (``workflow/benchmarks/bench_em_band.py``). The products also run
on the sampled ranks some row observed only: the map reads Q only where H > 0, and the other
columns add exact zeros to G, so the maths is the same and only the order of the sums
changes (true ranks near 100 of 3,706, as in the README's Python example: 25 of 101
columns observed, a bootstrap batch 1.9x faster; ranks like the ML-1M study's: 90 of 101).
A row stops when its own rule says so and is then left out of the products. A row's result
depends on the other rows only through the rounding of the products (a matrix product sums
in another order than a matrix-vector product), which for SQUAREM can move the stopping
point along the flat directions of the likelihood by as much as the solver's own tolerance
does (see :func:`~sampled_metrics.estimators.mle`).

BLAS runs on one thread here: the products are small (a few MB), so threads cost more in
synchronisation than they give (at n = 3,706, m = 499, one row: 1,000 EM steps in 0.4 s on
one thread, 3 s on two threads of a busy 2-core CPU), and the result is then the same
whatever the number of threads.
"""
from __future__ import annotations

import functools

import numpy as np
from threadpoolctl import threadpool_limits

from .band import banded

__all__ = ["em_rows", "squarem_rows"]


def _em_map(A, H, PI, Q):
    """F(PI) for every row, its Q = F(PI) A, and log(F(PI) / PI) (-inf where G = 0); A is
    the operator of :func:`~sampled_metrics.estimators.band.banded`."""
    ratio = np.divide(H, Q, out=np.zeros_like(H), where=H > 0)
    G = A.right(ratio)
    out = PI * G
    Q = A.left(out)
    total = out.sum(axis=1)
    out /= total[:, None]
    Q /= total[:, None]
    with np.errstate(divide="ignore"):
        G = np.log(G)
    G -= np.log(total)[:, None]
    return out, Q, G


def _observed(A, H):
    """A and H on the sampled ranks some row observed: the EM map reads q = A^T pi only where
    h > 0 (the other columns of A meet h / q = 0), so the products need no other column."""
    seen = (np.asarray(H) > 0).any(axis=0)
    if seen.all():
        return A, H
    return np.ascontiguousarray(np.asarray(A)[:, seen]), np.ascontiguousarray(
        np.asarray(H)[:, seen])


def _loglik(H, Q):
    """L_j = sum_{r~: h_j > 0} h_j(r~) log Q_j(r~) (-inf if Q = 0 on an observed rank)."""
    with np.errstate(divide="ignore"):
        logq = np.log(np.where(H > 0, Q, 1.0))
    return (H * logq).sum(axis=1)


def _one_blas_thread(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with threadpool_limits(1, "blas"):
            return fn(*args, **kwargs)
    return wrapper


@_one_blas_thread
def em_rows(A, H, PI, max_iter: int, tol: float | None = None, trace: bool = False):
    """Plain EM, PI <- F(PI), on every row: exactly ``max_iter`` steps (``tol`` None: the
    fixed schedule, ``mle(epochs=...)``), or until a row's gain |L_k - L_{k-1}| <= tol
    |L_{k-1}|.

    Returns
    -------
    PI : (J, n) the estimates
    info : dict of per-row arrays ``loglik`` (final), ``iterations``, ``evaluations`` (=
        iterations), ``converged`` (True for the fixed schedule), and with ``trace`` a list
        ``trace`` of each row's L at the start and after each of its iterations
    """
    PI = np.array(PI, dtype=np.float64)
    J = PI.shape[0]
    A, H = _observed(A, H)
    A = banded(A)
    Q = A.left(PI)
    if tol is None and not trace:                # the fixed schedule: no log-likelihood
        for _ in range(max_iter):
            PI, Q, _ = _em_map(A, H, PI, Q)
        iterations = np.full(J, max_iter, dtype=np.int64)
        return PI, {"loglik": _loglik(H, Q), "iterations": iterations,
                    "evaluations": iterations.copy(), "converged": np.ones(J, dtype=bool)}
    last = _loglik(H, Q)
    traces = [[float(x)] for x in last]
    iterations = np.zeros(J, dtype=np.int64)
    converged = np.zeros(J, dtype=bool) if tol is not None else np.ones(J, dtype=bool)
    active = np.arange(J)
    for _ in range(max_iter):
        if not active.size:
            break
        pi, q, _ = _em_map(A, H[active], PI[active], Q[active])
        PI[active], Q[active] = pi, q
        new = _loglik(H[active], q)
        before, last[active] = last[active], new
        iterations[active] += 1
        for j, value in zip(active, new):
            traces[j].append(float(value))
        if tol is not None:
            stop = np.abs(new - before) <= tol * np.abs(before)
            converged[active[stop]] = True
            active = active[~stop]
    info = {"loglik": last, "iterations": iterations, "evaluations": iterations.copy(),
            "converged": converged}
    if trace:
        info["trace"] = [np.array(t) for t in traces]
    return PI, info


@_one_blas_thread
def squarem_rows(A, H, PI, max_iter: int, tol: float, step_factor: float,
                 trace: bool = False):
    """SQUAREM (Varadhan & Roland 2008) on u = log pi for every row (see
    :func:`~sampled_metrics.estimators.mle`).

    Parameters
    ----------
    A : (n, k) mixture matrix p(r~ | r)
    H : (J, k) normalised (weighted) histograms
    PI : (J, n) starting points (rows sum to 1)
    max_iter : int
    tol : float
        A row stops after the iteration whose gain L_k - L_{k-1} <= tol |L_{k-1}| e_k
        (e_k: its evaluations of F in that iteration).
    step_factor : float
        The step bound's factor (``SQUAREM_STEP_FACTOR``).
    trace : bool
        Also return each row's L at the start and after each of its iterations (never
        decreasing: an iteration without gain keeps the previous point).

    Returns
    -------
    PI : (J, n) the estimates
    info : dict of per-row arrays ``loglik`` (final), ``iterations``, ``evaluations``,
        ``converged``; with ``trace``, the list ``trace``
    """
    PI = np.array(PI, dtype=np.float64)
    J = PI.shape[0]
    A, H = _observed(A, H)
    A = banded(A)
    # the active rows' state, kept compact (rows that stop are copied out and dropped), so
    # that an iteration gathers and scatters nothing while every row goes on
    h, pi, q = np.asarray(H, dtype=np.float64), PI.copy(), A.left(PI)
    with np.errstate(divide="ignore"):
        u = np.log(pi)
    last = _loglik(h, q)
    traces = [[float(x)] for x in last] if trace else None
    step_max = np.ones(J)
    iterations = np.zeros(J, dtype=np.int64)
    evaluations = np.zeros(J, dtype=np.int64)
    converged = np.zeros(J, dtype=bool)
    active = np.arange(J)
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(max_iter):
            if not active.size:
                break
            pi1, q1, r = _em_map(A, h, pi, q)
            pi2, q2, s = _em_map(A, h, pi1, q1)
            l2, u2 = _loglik(h, q2), u + r + s
            v = s - r
            live = np.isfinite(v)
            r, v = np.where(live, r, 0.0), np.where(live, v, 0.0)
            sv, rr = (pi1 * v * v).sum(axis=1), (pi1 * r * r).sum(axis=1)
            bound = step_max[active]
            alpha = np.where(sv > 0, np.minimum(bound, np.maximum(
                1.0, np.sqrt(np.divide(rr, sv, out=np.ones_like(sv), where=sv > 0)))), 1.0)
            # start of the stabilising step: pi_2 (alpha = 1) or the extrapolated point
            su, spi, sq = u2, pi2, q2
            far = np.flatnonzero(alpha > 1)
            fallback = np.zeros(active.size, dtype=bool)
            if far.size:
                su, spi, sq = u2.copy(), pi2.copy(), q2.copy()
                a = alpha[far, None]
                ux = a * v[far]                  # u_0 + 2 alpha r + alpha^2 v
                ux += r[far]
                ux += r[far]
                ux *= a
                ux += u[far]
                ux[~live[far]] = -np.inf
                ux -= ux.max(axis=1, keepdims=True)
                px = np.exp(ux)
                total = px.sum(axis=1)
                px /= total[:, None]
                ux -= np.log(total)[:, None]
                qx = A.left(px)
                good = _loglik(h[far], qx) >= l2[far]
                su[far[good]], spi[far[good]], sq[far[good]] = ux[good], px[good], qx[good]
                fallback[far[~good]] = True
            evals = np.full(active.size, 2)
            if not fallback.any():               # every row takes the stabilising step
                new_pi, new_q, s = _em_map(A, h, spi, sq)
                new_u, new_l = su + s, _loglik(h, new_q)
                evals[:] = 3
            else:
                stab = np.flatnonzero(~fallback)
                new_u, new_pi, new_q, new_l = u2, pi2, q2, l2.copy()
                if stab.size:
                    px, qx, s = _em_map(A, h[stab], spi[stab], sq[stab])
                    new_u[stab], new_pi[stab], new_q[stab] = su[stab] + s, px, qx
                    new_l[stab] = _loglik(h[stab], qx)
                    evals[stab] = 3
            at_bound = alpha == bound
            grow = ~fallback & at_bound
            shrink = fallback & at_bound
            step_max[active[grow]] *= step_factor
            step_max[active[shrink]] = np.maximum(1.0, step_max[active[shrink]] / step_factor)
            evaluations[active] += evals
            iterations[active] += 1
            before = last[active]
            gain = new_l >= before
            if gain.all():
                u, pi, q = new_u, new_pi, new_q
            else:
                u[gain], pi[gain], q[gain] = new_u[gain], new_pi[gain], new_q[gain]
            last[active[gain]] = new_l[gain]
            if trace:
                for j in active:
                    traces[j].append(float(last[j]))
            stop = last[active] - before <= tol * np.abs(before) * evals
            if stop.any():                       # the rows that stop leave the state
                converged[active[stop]] = True
                PI[active[stop]] = pi[stop]
                keep = ~stop
                active, h, u, pi, q = active[keep], h[keep], u[keep], pi[keep], q[keep]
    PI[active] = pi                              # rows still going at max_iter
    info = {"loglik": last, "iterations": iterations, "evaluations": evaluations,
            "converged": converged}
    if trace:
        info["trace"] = [np.array(t) for t in traces]
    return PI, info
