"""Do the sampled ranks reject a stronger shape of P(r)? A likelihood-ratio check of the
convex shape against the non-increasing family, with its parametric bootstrap p-value.

The statistic is the log-likelihood the stronger shape loses against the non-increasing
family at their maxima,

    T = max_{P non-increasing} l(P) - max_{P convex} l(P)   (>= 0 but for the grids' rounding),

over the histograms of the sampled ranks, one per block of positives (the strata whose P
takes the shape) and value of m_u, each at the block's median n_u (with one n for all, the
likelihood itself; with n_u per user, the histogram of users of one m pools their laws, which
a rescaled convex P keeps convex). Its law under the shape is drawn, not assumed (T is
the ratio of two shape-constrained maxima, whose limit law is a mixture of chi-squares with
weights no closed form gives): ``draws`` histograms from the fitted convex P, each of the
observed size, give T_1..T_B, and

    p = (1 + #{b : T_b >= T - slack}) / (B + 1),

slack the two fits' solver gap, so a rounding tie counts against rejection. A small p says the
sampled ranks are unlikely under any convex P: keep the default shape. Several positives of a
user share its negatives, which the draws ignore (each positive's sampled rank drawn on its
own).
"""
from __future__ import annotations

import numpy as np

from ..design import Design
from .atoms import histogram_atoms
from .profile import tilted_mle

__all__ = ["SHAPE_TEST_DRAWS", "REJECT", "shape_test", "shape_note"]

#: parametric bootstrap draws of the statistic under the fitted stronger shape
SHAPE_TEST_DRAWS = 99
#: the p-value at or below which the note says the sampled ranks reject the shape
REJECT = 0.05
#: each fit's gap to its maximum, in log-likelihood units (T's draws spread over units)
TEST_GAP = 1e-3


def shape_test(blocks, sampling: str, shaped, family, draws: int = SHAPE_TEST_DRAWS,
               seed: int = 0, design: Design | None = None) -> tuple[float, float]:
    """(T, p) of the module docstring.

    Parameters
    ----------
    blocks : list of (sampled_ranks, n_u, m_u)
        Each block's positives (integer arrays of one length).
    sampling : str
        The negatives' law.
    shaped, family : tuple (a, b, slope)
        The atoms of the stronger shape and of the family it is checked against
        (:func:`~sampled_metrics.intervals.atoms.atom_ranges`).
    draws : int
        Parametric bootstrap draws (0: T alone, p NaN).
    seed : int
    design : Design, optional
        The evaluation's design, where one n and m hold for all users (else each group's
        is built at its median n_u).

    Examples
    --------
    >>> from sampled_metrics import draw_sampled_ranks
    >>> from sampled_metrics.intervals.atoms import atom_grid, atom_ranges
    >>> rng = np.random.default_rng(0)
    >>> n, m, U = 1000, 50, 3000
    >>> ks = atom_grid(n, m, [10])
    >>> convex, ni = atom_ranges(ks, "convex"), atom_ranges(ks, "non-increasing")
    >>> r = np.minimum(rng.geometric(0.01, U), n)                  # a convex P
    >>> s = draw_sampled_ranks(r, n, m, rng=rng)
    >>> T, p = shape_test([(s, np.full(U, n), np.full(U, m))], "binomial", convex, ni)
    >>> bool(p > 0.05)
    True
    >>> r = np.where(rng.random(U) < 0.5, rng.integers(1, 201, U), rng.integers(1, n + 1, U))
    >>> s = draw_sampled_ranks(r, n, m, rng=rng)                   # a step: not convex
    >>> T, p = shape_test([(s, np.full(U, n), np.full(U, m))], "binomial", convex, ni)
    >>> bool(p <= 0.05)
    True
    """
    groups = []             # per block: [(L_shaped, L_family, histogram), ...] per m_u
    for s, n_u, m_u in blocks:
        parts = []
        for m in np.unique(m_u):
            mine = m_u == m
            n = int(np.round(np.median(n_u[mine])))
            h = np.bincount(s[mine] - 1, minlength=int(m) + 1).astype(np.float64)
            here = (design if design is not None and (design.n, design.m) == (n, int(m))
                    else Design(n, int(m), sampling))      # the group's, at its median n_u
            parts.append((histogram_atoms(here, *shaped), histogram_atoms(here, *family), h))
        groups.append(parts)
    T, starts = _statistic([[h for *_, h in parts] for parts in groups], groups)
    if draws == 0:
        return T, float("nan")
    rng = np.random.default_rng(seed)
    slack = 2 * TEST_GAP * len(groups)
    exceed = 0
    for _ in range(draws):
        drawn = [[rng.multinomial(int(h.sum()), _law(L, w)).astype(np.float64)
                  for L, _, h in parts] for parts, (w, _) in zip(groups, starts)]
        exceed += _statistic(drawn, groups, starts)[0] >= T - slack
    return T, (1 + exceed) / (draws + 1)


def _statistic(histograms, groups, starts=None) -> tuple[float, list]:
    """T over the blocks for the histograms given (one per block and m), and per block both
    fits' weights, the stronger shape's first (``starts``: the points the fits start from,
    the observed histograms' fits; each fit is to the solver's gap from any start)."""
    T, reached = 0.0, []
    for b, (hs, parts) in enumerate(zip(histograms, groups)):
        h = np.concatenate(hs)
        seen = h > 0
        ends = []
        for x in (0, 1):
            L = np.vstack([part[x] for part in parts])[seen]
            w = tilted_mle(L, h[seen], np.zeros(L.shape[1]), 0.0,
                           start=None if starts is None else starts[b][x], gap=TEST_GAP)
            ends.append((w, float(h[seen] @ np.log(L @ w))))
        T += ends[1][1] - ends[0][1]
        reached.append((ends[0][0], ends[1][0]))
    return T, reached


def _law(L: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The sampled rank's law L w, renormalised against rounding (the multinomial's
    probabilities must sum to at most 1)."""
    q = np.maximum(L @ w, 0.0)
    return q / q.sum()


def shape_note(loss: float, p: float) -> str:
    """The line ``correct`` prints below its table for the convex shape.

    Examples
    --------
    >>> shape_note(1.08, 0.88)[:60]
    'shape convex: the sampled ranks lose 1.08 in log-likelihood '
    """
    verdict = ("they reject the shape: its interval may miss, keep the default "
               "non-increasing shape" if p <= REJECT else "not rejected")
    return (f"shape convex: the sampled ranks lose {loss:.2f} in log-likelihood against the "
            f"non-increasing family, p = {p:.2f} by {SHAPE_TEST_DRAWS} draws under the "
            f"convex fit: {verdict}")
