"""The bias of a method on a difference: the analytic bias curve of a correction vector, and
the delta method for the MES plug-in (the gradient of a functional of MES's P^ with respect
to the histogram), which lets the bootstrap resample the bias without refitting P^.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg

from ..design import as_design
from ..estimators.histogram import mixture_matrix
from ..metrics import parse_metric

__all__ = ["MES_ETA", "mes_gradient", "bias_curve"]

#: Entropy weight of the MES plug-in (Jin et al.'s eta, the package default).
MES_ETA = 0.001


def mes_gradient(hist, pi, functionals, n, m: int | None = None, sampling: str | None = None,
                 eta: float = MES_ETA) -> np.ndarray:
    """Gradient of f^T pi^ with respect to the histogram P~, pi^ = MES(P~) (Jin et al. eq.
    24-27), for each row f of ``functionals`` (L, n): the delta method for the plug-in.

    On the observed sampled ranks (P~ > 0), MES's optimum pi = softmax(-A y / eta) solves
    G(y, P~) = P~ + y / (2 P~) - A^T pi(y) = 0 (the dual stationarity of
    :func:`sampled_metrics.estimators.mes`), so y = 2 P~ (A^T pi - P~) and, by the implicit
    function theorem, with C = diag(pi) - pi pi^T, H = dG/dy = diag(1/(2 P~)) + A^T C A / eta
    and J = dG/dP~ = I - diag(y / (2 P~^2)),

        dpi = -C A dy / eta,   dy = -H^{-1} J dP~,   so   d(f^T pi) / dP~ = J H^{-1} A^T C f / eta.

    Returns (L, m+1); entries of unobserved sampled ranks are 0 (a resample never holds
    them). A user's linear influence on f^T pi^ is the entry of its sampled rank.
    """
    P = np.asarray(hist, dtype=np.float64)
    P = P / P.sum()
    obs = P > 0
    A = mixture_matrix(n, m, sampling)[:, obs]
    P = P[obs]
    F = np.atleast_2d(np.asarray(functionals, dtype=np.float64))
    q = pi @ A
    y = 2 * P * (q - P)
    H = (A.T @ (A * pi[:, None]) - np.outer(q, q)) / eta
    H[np.diag_indices_from(H)] += 1 / (2 * P)
    CF = F * pi[None, :] - np.outer(F @ pi, pi)                         # (C f)^T
    V = (CF @ A) / eta                                                  # (L, k)
    G = linalg.solve(H, V.T, assume_a="pos").T * (1 - y / (2 * P * P))[None, :]
    out = np.zeros((F.shape[0], obs.size))
    out[:, obs] = G
    return out


def bias_curve(vectors, metric, n, m: int | None = None, sampling: str | None = None) -> np.ndarray:
    """beta(r) = E[M^(r~) | r] - M(r) = sum_s p(s | r) M^(s) - M(r) for r = 1..n.

    ``vectors``: one correction vector (m+1,) or several (E, m+1). Returns (n,) or (E, n).
    Uses the cached mixture matrix A[r - 1, s - 1] = p(s | r)
    (:func:`sampled_metrics.estimators.mixture_matrix`): beta = M^ A^T - M.
    """
    design = as_design(n, m, sampling)
    n, m = design.n, design.m
    V = np.asarray(vectors, dtype=np.float64)
    if V.shape[-1] != m + 1 or V.ndim > 2:
        raise ValueError(f"correction vectors for m={m} must have length m+1={m + 1}, got "
                         f"shape {V.shape}")
    out = np.atleast_2d(V) @ mixture_matrix(design).T - parse_metric(metric).weights(n)
    return out[0] if V.ndim == 1 else out
