"""The law of the rank an evaluator reports, given the positive's full rank.

A positive has x non-relevant items above it in the full ranking (its full rank is r = x + 1
among itself and the N non-relevant items of its pool, ties read by the evaluator's rule).
The evaluator draws m negatives; G of them are non-relevant items above the positive, and S
are the positive itself (a *self-draw*, where the pool holds it). The reported rank is

    r~ = 1 + G + T,

where T counts the self-draws placed above the positive: S (``pessimistic``), 0
(``optimistic``) or uniform on 0..S (``random``). Per kind of draw:

==========================  ===============================  ==============================
draws                       S                                G | S
==========================  ===============================  ==============================
with replacement, counted   Binomial(m, 1 / (N + 1)) if the  Binomial(m - S, x / N)
                            pool holds the positive, else 0
without replacement         Bernoulli(m / (N + 1)) if the    Hypergeom(N, x, m - S)
                            pool holds the positive, else 0
with replacement, collapsed 0                                Hypergeom(N, x, D), D the
(m draws, D distinct)                                        distinct items of m draws
==========================  ===============================  ==============================

Given S (and D), the other negatives are uniform draws from the N non-relevant items, which
is why :func:`~sampled_metrics.evaluators.scores.from_scores` can drop the self-draws and
count the distinct negatives to write rows that follow the binomial or hypergeometric law.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ..checks import check_integer
from ..sampling import rank_pmf
from .catalogue import correctable_evaluator

__all__ = ["reported_rank_pmf", "distinct_draws_pmf"]

#: probability mass of the self-draw counts left out of the sum
TAIL = 1e-17


def distinct_draws_pmf(n_items: int, draws: int) -> np.ndarray:
    """P(D = d), d = 0..draws: the number of distinct items in ``draws`` uniform draws with
    replacement from ``n_items`` (occupancy recursion p_{t+1}(d) = p_t(d) d / n +
    p_t(d - 1) (n - d + 1) / n).

    Examples
    --------
    >>> distinct_draws_pmf(2, 2).round(3).tolist()     # the second draw repeats w.p. 1/2
    [0.0, 0.5, 0.5]
    """
    n, m = int(n_items), int(draws)
    p = np.zeros(m + 1)
    p[0] = 1.0
    d = np.arange(m + 1)
    for _ in range(m):
        stay = p * d / n
        grow = np.r_[0.0, p[:-1] * (n - d[1:] + 1) / n]
        p = stay + grow
    return p


def _drawn_rows(x, N: int, draws: int, width: int, replace: bool) -> np.ndarray:
    """p(G = g | x), g = 0..width - 1, for ``draws`` uniform draws from the N non-relevant
    items: the project's one-item law with n = N + 1 items and rank r = x + 1."""
    out = np.zeros((x.size, width))
    if draws == 0:
        out[:, 0] = 1.0
        return out
    out[:, :draws + 1] = rank_pmf(x + 1, N + 1, draws,
                                  "binomial" if replace else "hypergeometric")
    return out


def _thin(pmf: np.ndarray, draws: int) -> np.ndarray:
    """The law of G after one of ``draws`` exchangeable draws is dropped at random:
    p'(g) = p(g) (draws - g) / draws + p(g + 1) (g + 1) / draws."""
    g = np.arange(pmf.shape[1])
    out = pmf * np.clip(draws - g, 0, None) / draws
    out[:, :-1] += pmf[:, 1:] * g[1:] / draws
    return out


def _place_ties(pmf: np.ndarray, s: int, ties: str) -> np.ndarray:
    """The law of G + T from that of G (rows), for s self-draws."""
    if s == 0 or ties == "optimistic":
        return pmf
    shifted = np.zeros_like(pmf)
    if ties == "pessimistic":
        shifted[:, s:] = pmf[:, :pmf.shape[1] - s]
        return shifted
    for t in range(s + 1):                       # random: T uniform on 0..s
        shifted[:, t:] += pmf[:, :pmf.shape[1] - t] / (s + 1)
    return shifted


def reported_rank_pmf(evaluator, n_nonrelevant: int, m: int | None = None, x=None
                      ) -> np.ndarray:
    """p(r~ | x), r~ = 1..m + 1: the law of the rank ``evaluator`` reports for a positive
    with x non-relevant items above it (module docstring).

    Parameters
    ----------
    evaluator : str or Evaluator
    n_nonrelevant : int
        N, the non-relevant items of the pool (the positive not counted).
    m : int, optional
        Negatives drawn; default the evaluator's own number.
    x : array_like of int, optional
        Non-relevant items above the positive; default 0..N (one row each).

    Returns
    -------
    numpy.ndarray
        Shape (len(x), m + 1); row x is the pmf of r~ = 1..m + 1.

    Examples
    --------
    >>> p = reported_rank_pmf("sasrec", 3541, x=[0, 35])
    >>> p.shape, p.sum(axis=1).round(12).tolist()
    ((2, 101), [1.0, 1.0])
    >>> round(float(p[0, 0]), 4)      # at the top, it loses only to half of its self-draws
    0.986
    """
    e = correctable_evaluator(evaluator)
    N = check_integer("n_nonrelevant", n_nonrelevant)
    m = e.negatives if m is None else check_integer("m", m)
    if N < 1 or m < 1:
        raise ValueError(f"need N >= 1 and m >= 1, got N={N}, m={m}")
    x = np.arange(N + 1) if x is None else np.asarray(x, dtype=np.int64).reshape(-1)
    if x.size and (x.min() < 0 or x.max() > N):
        raise ValueError(f"x must lie in 0..{N}")
    width = m + 1
    replace = e.draws == "with_replacement"
    if not replace and m > N + (e.self_draw != "never"):
        raise ValueError(f"{e.name} draws {m} distinct negatives from a pool of "
                         f"{N + (e.self_draw != 'never')}")
    if e.duplicates == "collapsed" and replace:        # D distinct of m draws
        weights = distinct_draws_pmf(N, m)
    elif e.self_draw == "never":
        weights = np.zeros(m + 1)
        weights[m] = 1.0
    elif replace:                                      # S self-draws leave m - S
        weights = stats.binom.pmf(np.arange(m + 1), m, 1.0 / (N + 1))[::-1]
    else:
        weights = np.zeros(m + 1)
        weights[[m - 1, m]] = [m / (N + 1), 1.0 - m / (N + 1)]
    # weights[d]: probability that d draws of non-relevant items remain; G | d from the
    # largest d down by thinning one draw at a time
    keep = np.flatnonzero(weights > TAIL)
    out = np.zeros((x.size, width))
    given = _drawn_rows(x, N, int(keep.max()), width, replace and e.duplicates != "collapsed")
    for d in range(int(keep.max()), int(keep.min()) - 1, -1):
        if d < keep.max():
            given = _thin(given, d + 1)
        if weights[d] > TAIL:
            ties = e.ties if e.self_draw == "tied" else "optimistic"
            out += weights[d] * _place_ties(given, m - d, ties)
    return out
