"""Jin et al.'s BV estimate of P(r) (eq. 15): the differences of KDD'20's BV corrections of
Recall@r (:mod:`sampled_metrics.corrections`), r = 1..n.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..corrections.moments import check_prior, rank_law_moments
from ..corrections.vectors import parse_correction, solve_bv
from ..design import as_design
from .histogram import check_histogram, mixture_matrix

__all__ = ["bv_distribution"]


def bv_distribution(hist, n, m: int | None = None, gamma: float | None = None,
                    sampling: str | None = None, prior=None) -> np.ndarray:
    """P^ from the KDD'20 BV corrections of Recall@r (Jin et al. eq. 15).

    P^(r) = Recall^_BV(r) - Recall^_BV(r - 1) = P~^T ((1 - gamma) A^T A + gamma diag c)^{-1} A^T b_r
    with A, c as in eq. 12 (prior p(r), uniform by default) and b_r = sqrt(p(r)) e_r, so
    A^T b_r = p(r) p(. | r) and, with y = ((1 - gamma) A^T A + gamma diag c)^{-1} P~ (one
    (m+1) x (m+1) solve),

        P^(r) = p(r) sum_{r~} y(r~) p(r~ | r).

    P^ sums to 1 (H 1 = c) but can be negative. sum_{r<=K} P^(r) equals the mean BV
    Recall@K correction of the same sampled ranks.
    """
    design = as_design(n, m, sampling)
    n, m = design.n, design.m
    P = check_histogram(hist, m)
    _, gamma = parse_correction("bv", gamma)
    p = check_prior(prior, n)
    mom = rank_law_moments("recall@1", design, prior=p)
    y = solve_bv(dataclasses.replace(mom, atb=P[:, None]), 0, gamma)
    out = mixture_matrix(design) @ y
    return out / n if p is None else out * p
