"""The recommended answer: the full-ranking metric of the evaluated users, with an interval
that covers it, from one sampled evaluation.

Model: the users' true ranks r_u are drawn from a non-increasing distribution P(r) (the
held-out item is more likely near the top than further down; a random recommender is the
flat edge of the family), and each sampled rank from the evaluator's law p(r~ | r; n_u, m_u).
With several positives per user, the user's metric is its normaliser times the sum of the
positives' terms at their full positions r_i + a_i (:mod:`sampled_metrics.multipositive`),
r_i the positive's rank among the user's non-relevant items and itself and a_i the user's
positives above it (seen in the sampled list too). A user's best positive ranks higher than
its others, and a user with more positives has a better best one, so r_i is drawn from the
P of its stratum (min(a_i, STRATA - 1), min(k_u, STRATA)): the metric is linear in the
strata's P, whose profile runs jointly, and a stratum holds at most one positive of a user
below its last shift. The best positive's P is non-increasing (the least of k draws from a
non-increasing law is); the others' are not (the second least of k draws rises before it
falls), so their P takes no shape. The positives of a user share its negatives, which
ties the strata's likelihoods together: their sum is a composite likelihood, and the
several-positives coverage is measured, not derived.
The interval is the profile-likelihood interval of M(P) = sum_r P(r) M(r) over the
non-increasing P (:mod:`.atoms`, :mod:`.profile`),

    { M(P) : l(P) >= max l - chi2_{1, level} / 2 },

widened at each end by z_{(1 + level)/2} sigma_P / sqrt(U), sigma_P^2 = Var_P M(r) at that
end's P: the interval is for the metric of these U users, mean_u M(r_u), which differs from
M(P) by the users' own spread. The value is the interval's centre (the estimate whose worst
error over the interval is smallest). Measured coverage and width: the docs' validation page.

``shape='convex'`` takes P convex as well as non-increasing (mixtures of the triangles
(k + 1 - r)_+ and the flat law, :mod:`.atoms`): a narrower interval where the assumption
holds, which the sampled ranks can only partly check; the answer carries the
likelihood-ratio check of :mod:`.shape_test` (the best positives' strata take the shape,
the least of k draws from a convex non-increasing law being one too).

``spread='joint'`` instead takes the profile interval of the users' metric T = M(P) + e
jointly over P and their deviation e ~ N(0, sigma_P^2 / U) (:mod:`.profile`, joint ends):
the profile's end and z sigma_P / sqrt(U) in quadrature where the profile is quadratic,
nearly their sum where it ends at the edge of the family (a flat P). It is narrower than
the linear widening, which adds the two in full at every end.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special
from threadpoolctl import threadpool_limits

from ..checks import check_allocation, check_integer, check_level
from ..design import Design, as_design
from ..metrics import parse_metrics
from ..multipositive.positives import positive_normaliser
from ..parallel import thread_count
from ..multipositive.shifted import ShiftedMetric
from ..registry import RECOMMENDED, resolve_name
from ..sampling import check_sampling
from .atoms import (atom_grid, atom_means_by_n, atom_metric, atom_ranges, check_shape,
                    histogram_atoms, user_atoms)
from .profile import mixture_mle, profile_ranges
from .shape_test import shape_test

__all__ = ["RECOMMENDED", "recommended_interval", "histogram_interval"]

#: how the users' spread widens the profile interval (:func:`recommended_interval`)
SPREADS = ("linear", "joint", "none")
#: the strata of several positives: shifts and positive counts from this on share one P
STRATA = 4
#: the profile's ends run on several threads from this many distinct observations on (below
#: it, as for a histogram of m + 1 sampled ranks, a solve takes milliseconds and threads cost
#: more than they save; the bits are the same either way)
THREAD_ROWS = 1024


def recommended_interval(sampled_ranks, n, m=None, metrics=None, sampling: str | None = None,
                         level: float = 0.95, *, shape: str = "non-increasing",
                         spread: str | bool = "linear", user=None,
                         above=None) -> pd.DataFrame:
    """The full-ranking metric of the evaluated users, estimated with an interval that
    covers it (module docstring).

    Parameters
    ----------
    sampled_ranks : array_like of int
        r~ in 1..m + 1, one per positive: its rank among itself and its user's negatives
        (its position minus the user's positives above it).
    n, m : int or array_like of int
        Items each positive is ranked among in full (n_u: its user's non-relevant items
        plus itself) and its user's negatives (m_u): one number for all, or one per positive;
        or ``n`` a :class:`~sampled_metrics.design.Design` (one n and m for all; then
        neither ``m`` nor ``sampling``). Each group of users sharing (n_u, m_u) has its
        design, checked once.
    metrics : str or list of str
        Metric names, e.g. ``"recall@10,ndcg@10"``.
    sampling : {'binomial', 'hypergeometric'}, default binomial
        Negatives drawn with or without replacement.
    level : float in (0, 1)
    shape : {'non-increasing', 'convex', 'none'}
        The family of P(r) (``'convex'``: convex and non-increasing, a stronger assumption
        and a narrower interval, checked by the ``shape_loss`` and ``shape_p`` columns;
        ``'none'``: any P, piecewise uniform between the grid points; far wider intervals,
        for rank distributions that rise somewhere).
    spread : {'linear', 'joint', 'none'}
        How the users' spread widens the profile interval of M(P) (module docstring):
        added at each end (``'linear'``, default; ``True`` is the same), jointly with the
        profile (``'joint'``), or not at all (``'none'``; ``False`` is the same): the
        interval for M(P) itself, the validation's ablation.
    user, above : array_like of int, optional
        With several positives per user: each positive's user (any labels) and the number of
        its user's positives above it; default one positive per user.

    Returns
    -------
    DataFrame with columns ``metric, value, ci_low, ci_high``, one row per metric, and
    ``profile_low, profile_high``: the profile-likelihood interval of M(P) before the users'
    spread widens it. With ``shape='convex'``, also ``shape_loss`` and ``shape_p``: the
    log-likelihood the convex shape loses against the non-increasing family and its
    bootstrap p-value (:mod:`.shape_test`; a small p: the sampled ranks reject the shape).

    Examples
    --------
    >>> from sampled_metrics import draw_sampled_ranks
    >>> rng = np.random.default_rng(0)
    >>> r = np.clip(rng.geometric(0.02, 2000), 1, 1000)          # true ranks, n = 1000
    >>> s = draw_sampled_ranks(r, 1000, 100, rng=rng)
    >>> out = recommended_interval(s, 1000, 100, "recall@10")
    >>> truth = (r <= 10).mean()
    >>> bool(out.ci_low[0] <= truth <= out.ci_high[0])
    True
    """
    design = as_design(n, m, sampling) if isinstance(n, Design) else None
    if design is not None:
        n, m, sampling = design.n, design.m, design.sampling
    sampling = check_sampling("binomial" if sampling is None else sampling)
    shape = check_shape(shape)
    check_level("level", level)
    if isinstance(spread, bool):
        spread = "linear" if spread else "none"
    spread = resolve_name("spread", spread, SPREADS)
    metrics = parse_metrics(metrics)
    s = np.asarray(sampled_ranks).reshape(-1)
    n_u = np.broadcast_to(np.asarray(n), s.shape)
    m_u = np.broadcast_to(np.asarray(m), s.shape)
    for name, v, lo in (("n", n_u, 2), ("m", m_u, 1)):
        check_integer(name, int(v.min()) if v.size else lo, lo)
        if not np.all(v == np.round(v)):
            raise ValueError(f"{name} must be integers")
    n_u, m_u = n_u.astype(np.int64), m_u.astype(np.int64)
    if np.any(s < 1) or np.any(s > m_u + 1) or not np.all(s == np.round(s)):
        bad = int(np.flatnonzero((s < 1) | (s > m_u + 1) | (s != np.round(s)))[0])
        raise ValueError(f"sampled rank {s[bad]} of user {bad} is not in 1..m+1 = "
                         f"{m_u[bad] + 1}")
    s = s.astype(np.int64)
    users, k = _users(user, above, s.size)
    if k.size < 2:
        raise ValueError(f"need at least 2 users for an interval, got {k.size}")
    if design is None and n_u.min() == n_u.max() and m_u.min() == m_u.max():
        design = Design(int(n_u[0]), int(m_u[0]), sampling)        # one n and m for all
    shift = np.zeros(s.size, np.int64) if above is None else np.asarray(above, np.int64)
    if np.any(shift < 0) or np.any(shift >= k[users]):
        raise ValueError("above must count the positives of the same user above each one, "
                         "in 0..k_u - 1")
    cutoffs = [x.k for x in metrics if x.k is not None]
    checked = {shape, "none"} | ({"non-increasing"} if shape == "convex" else set())
    grid = {x: atom_ranges(atom_grid(int(n_u.max()), int(m_u.min()), cutoffs, x), x)
            for x in checked}
    keys, stratum = np.unique(np.stack([np.minimum(shift, STRATA - 1),
                                        np.minimum(k[users], STRATA)]), axis=1,
                              return_inverse=True)
    stratum = stratum.reshape(-1)
    blocks = [(np.flatnonzero(stratum == x), grid[shape if keys[0, x] == 0 else "none"])
              for x in range(keys.shape[1])]
    Ls, counts = zip(*(_likelihood(s[i], n_u[i], m_u[i], sampling, design, *atoms)
                       for i, atoms in blocks))
    specs = [(metric.name, [_functional(metric, n_u[i], shift[i], users[i], k, *atoms)
                            for i, atoms in blocks]) for metric in metrics]
    with threadpool_limits(1, user_api="blas"):     # K x K systems: threads only cost
        out = _intervals(list(Ls), list(counts), specs, level, spread)
        if shape == "convex":
            shaped = [(s[i], n_u[i], m_u[i]) for x, (i, _) in enumerate(blocks)
                      if keys[0, x] == 0]
            out["shape_loss"], out["shape_p"] = shape_test(
                shaped, sampling, grid["convex"], grid["non-increasing"], design=design)
    return out


def histogram_interval(counts, n, m: int | None = None, metrics=None,
                       sampling: str | None = None, level: float = 0.95, *,
                       shape: str = "non-increasing", spread: str = "linear") -> pd.DataFrame:
    """The recommended interval (:func:`recommended_interval`'s columns, without the shape's
    check) of U = sum(counts) users with one n and m, from the histogram of their sampled
    ranks: ``counts[i]`` users at r~ = i + 1, which may be fractional (the expected
    histogram U q_P(r~) of a stated P, :mod:`.width`). ``n`` may be a
    :class:`~sampled_metrics.design.Design` (then neither ``m`` nor ``sampling``).

    Examples
    --------
    >>> from sampled_metrics import draw_sampled_ranks
    >>> rng = np.random.default_rng(0)
    >>> s = draw_sampled_ranks(np.clip(rng.geometric(0.02, 2000), 1, 1000), 1000, 100, rng=rng)
    >>> a = recommended_interval(s, 1000, 100, "recall@10")
    >>> b = histogram_interval(np.bincount(s - 1, minlength=101), 1000, 100, "recall@10")
    >>> bool(abs(a.ci_low[0] - b.ci_low[0]) < 1e-9)
    True
    """
    design = as_design(n, m, sampling)
    n, m = design.n, design.m
    shape = check_shape(shape)
    check_level("level", level)
    spread = resolve_name("spread", spread, SPREADS)
    metrics = parse_metrics(metrics)
    counts = np.asarray(counts, dtype=np.float64).reshape(-1)
    if counts.size != m + 1 or np.any(counts < 0) or not np.all(np.isfinite(counts)):
        raise ValueError(f"counts must be m + 1 = {m + 1} finite numbers >= 0")
    users = int(round(counts.sum()))
    if users < 2:
        raise ValueError(f"need at least 2 users for an interval, got {counts.sum():g}")
    check_allocation(32.0 * users, f"the functionals of {users} users")
    atoms = atom_ranges(atom_grid(n, m, [x.k for x in metrics if x.k is not None], shape),
                        shape)
    seen = counts > 0
    L = histogram_atoms(design, *atoms)[seen]
    ones = np.ones(users, np.int64)
    specs = [(metric.name, [_functional(metric, np.full(users, n), np.zeros(users, np.int64),
                                        np.arange(users), ones, *atoms)])
             for metric in metrics]
    with threadpool_limits(1, user_api="blas"):
        return _intervals([L], [counts[seen]], specs, level, spread)


def _likelihood(s, n_u, m_u, sampling, design, a, b, slope) -> tuple[np.ndarray, np.ndarray]:
    """(L, h) of the positives of one block: the atoms' laws of the distinct observations
    and their counts (one n and m for all, ``design``: the histogram of sampled ranks;
    else each user's own law)."""
    if design is not None:
        counts = np.bincount(s - 1, minlength=design.m + 1).astype(np.float64)
        seen = counts > 0
        return histogram_atoms(design, a, b, slope)[seen], counts[seen]
    keys, counts = np.unique(np.stack([s, n_u, m_u]), axis=1, return_counts=True)
    return (user_atoms(keys[0], keys[1], keys[2], sampling, a, b, slope),
            counts.astype(np.float64))


def _users(user, above, size) -> tuple[np.ndarray, np.ndarray]:
    """Each positive's user index 0..U-1 and the positives k_u of each user."""
    if user is None:
        if above is not None and np.any(np.asarray(above) != 0):
            raise ValueError("'above' needs 'user': positives above one come from its user")
        return np.arange(size), np.ones(size, np.int64)
    user = np.asarray(user).reshape(-1)
    if user.size != size or (above is not None and np.asarray(above).size != size):
        raise ValueError(f"user and above must have one entry per positive ({size})")
    _, index = np.unique(user, return_inverse=True)
    index = index.reshape(-1)
    return index, np.bincount(index)


def _functional(metric, n_u, shift, users, k, a, b, slope) -> tuple:
    """(c, first, second, var_coef) of one block's positives: their part of the users'
    metric as sum_j w_j c_j, and the per-group first and second moments of their terms with
    the groups' variance weights (groups of positives sharing their shift and n_u)."""
    shift = np.zeros_like(shift) if metric.kind == "auc" else shift
    norm = positive_normaliser(metric, k)[users]
    U = k.size
    keys, group = np.unique(np.stack([shift, n_u]), axis=1, return_inverse=True)
    group = group.reshape(-1)
    coef = np.bincount(group, weights=norm) / U
    var_coef = np.bincount(group, weights=norm ** 2) / U ** 2
    first = np.empty((keys.shape[1], a.size))
    second = np.empty_like(first)
    if metric.kind == "auc":            # (n - r)/(n - 1): a vector per n
        term = ShiftedMetric(metric.kind, metric.k).weights
        for g, n in enumerate(keys[1]):
            first[g] = atom_metric(term, int(n), a, b, slope)
            second[g] = atom_metric(lambda size: term(size) ** 2, int(n), a, b, slope)
        return coef @ first, first, second, var_coef
    for above in np.unique(keys[0]):    # M(r) is the same for every n: one vector per
        rows = np.flatnonzero(keys[0] == above)     # shift, cut to each n_u
        term = ShiftedMetric(metric.kind, metric.k, int(above)).weights(int(keys[1, rows].max()))
        first[rows] = atom_means_by_n(term, keys[1, rows], a, b, slope)
        second[rows] = atom_means_by_n(term ** 2, keys[1, rows], a, b, slope)
    return coef @ first, first, second, var_coef


def _intervals(Ls, counts, specs, level, spread) -> pd.DataFrame:
    """The rows of :func:`recommended_interval` from its blocks' likelihoods and each
    metric's functional over them."""
    w_mle = [mixture_mle(L, h)[0] for L, h in zip(Ls, counts)]
    kappa = special.gammaincinv(0.5, level)     # chi2_1 quantile / 2, as chi2.ppf computes it
    z = special.ndtri((1 + level) / 2)          # the normal quantile, as norm.ppf computes it
    rows = []
    rows_total = sum(L.shape[0] for L in Ls)
    cs = [[p[0] for p in parts] for _, parts in specs]
    spreads = ([lambda ws, parts=parts: spread_sd(parts, ws) for _, parts in specs]
               if spread == "joint" else None)
    ranges = profile_ranges(Ls, counts, cs, kappa, w_mle,
                            threads=thread_count() if rows_total >= THREAD_ROWS else 1,
                            spreads=spreads)
    for (name, parts), (lo, hi, w_lo, w_hi, *plain) in zip(specs, ranges):
        profile = tuple(plain) or (lo, hi)
        if spread == "linear":
            sd = [spread_sd(parts, ws) for ws in (w_lo, w_hi)]
            lo, hi = max(lo - z * sd[0], 0.0), min(hi + z * sd[1], 1.0)
        elif spread == "joint":
            lo, hi = max(lo, 0.0), min(hi, 1.0)
        rows.append((name, (lo + hi) / 2, lo, hi, *profile))
    return pd.DataFrame(rows, columns=["metric", "value", "ci_low", "ci_high", "profile_low",
                                       "profile_high"])


def spread_sd(parts, ws) -> float:
    """The spread of the users' metric about M(P) at the blocks' weights ``ws``,
    sigma_P / sqrt(U): the square root of the sum over the blocks' groups g of
    var_coef_g (second_g.w - (first_g.w)^2), from each block's (c, first, second,
    var_coef) in ``parts``.

    Examples
    --------
    >>> first = np.array([[1.0, 0.0]]); second = first.copy()    # a 0/1 metric, one group
    >>> parts = [(None, first, second, np.array([1 / 100]))]      # of U = 100 users
    >>> round(spread_sd(parts, [np.array([0.3, 0.7])]), 4)       # sqrt(0.3 0.7 / 100)
    0.0458
    """
    return float(np.sqrt(max(sum(v @ (second @ wb - (first @ wb) ** 2)
                                 for (_, first, second, v), wb in zip(parts, ws)), 0.0)))
