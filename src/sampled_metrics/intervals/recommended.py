"""The recommended answer: the full-ranking metric of the evaluated users, with an interval
that covers it, from one sampled evaluation.

Model: the users' true ranks r_u are drawn from a non-increasing distribution P(r) (the
held-out item is more likely near the top than further down; a random recommender is the
flat edge of the family), and each sampled rank from the evaluator's law p(r~ | r; n_u, m_u).
The interval is the profile-likelihood interval of M(P) = sum_r P(r) M(r) over the
non-increasing P (:mod:`.atoms`, :mod:`.profile`),

    { M(P) : l(P) >= max l - chi2_{1, level} / 2 },

widened at each end by z_{(1 + level)/2} sigma_P / sqrt(U), sigma_P^2 = Var_P M(r) at that
end's P: the interval is for the metric of these U users, mean_u M(r_u), which differs from
M(P) by the users' own spread. The value is the interval's centre (the estimate whose worst
error over the interval is smallest). Measured coverage and width: the docs' validation page.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from threadpoolctl import threadpool_limits

from ..checks import check_integer
from ..metrics import parse_metrics
from ..sampling import check_sampling
from .atoms import atom_grid, atom_metric, atom_ranges, histogram_atoms, user_atoms
from .profile import mixture_mle, profile_range

__all__ = ["RECOMMENDED", "recommended_interval"]

#: the row label of the recommended answer
RECOMMENDED = "recommended"
#: what each kind of interval covers (the ``covers`` column)
COVERS_FULL = "full metric"
COVERS_NOISE = "users' noise"


def recommended_interval(sampled_ranks, n, m, metrics, sampling: str = "binomial",
                         level: float = 0.95, *, shape: str = "non-increasing",
                         spread: bool = True) -> pd.DataFrame:
    """The full-ranking metric of the evaluated users, estimated with an interval that
    covers it (module docstring).

    Parameters
    ----------
    sampled_ranks : array_like of int
        r~_u in 1..m_u + 1, one per user.
    n, m : int or array_like of int
        Items each held-out item is ranked among in full (n_u) and negatives drawn (m_u):
        one number for every user, or one per user.
    metrics : str or list of str
        Metric names, e.g. ``"recall@10,ndcg@10"``.
    sampling : {'binomial', 'hypergeometric'}
        Negatives drawn with or without replacement.
    level : float in (0, 1)
    shape : {'non-increasing', 'none'}
        The family of P(r) (``'none'``: any P, piecewise uniform between the grid points;
        far wider intervals, for rank distributions that rise somewhere).
    spread : bool
        Widen by the users' spread (default); ``False`` gives the interval for M(P) itself,
        the validation's ablation.

    Returns
    -------
    DataFrame with columns ``metric, value, ci_low, ci_high``, one row per metric, and
    ``profile_low, profile_high``: the profile-likelihood interval of M(P) before the users'
    spread widens it.

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
    check_sampling(sampling)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    metrics = parse_metrics(metrics)
    s = np.asarray(sampled_ranks).reshape(-1)
    if s.size < 2:
        raise ValueError(f"need at least 2 users for an interval, got {s.size}")
    n_u = np.broadcast_to(np.asarray(n), s.shape)
    m_u = np.broadcast_to(np.asarray(m), s.shape)
    for name, v, lo in (("n", n_u, 2), ("m", m_u, 1)):
        check_integer(name, int(v.min()), lo)
        if not np.all(v == np.round(v)):
            raise ValueError(f"{name} must be integers")
    n_u, m_u = n_u.astype(np.int64), m_u.astype(np.int64)
    if np.any(s < 1) or np.any(s > m_u + 1) or not np.all(s == np.round(s)):
        bad = int(np.flatnonzero((s < 1) | (s > m_u + 1) | (s != np.round(s)))[0])
        raise ValueError(f"sampled rank {s[bad]} of user {bad} is not in 1..m+1 = "
                         f"{m_u[bad] + 1}")
    s = s.astype(np.int64)
    cutoffs = [x.k for x in metrics if x.k is not None]
    a, b = atom_ranges(atom_grid(int(n_u.max()), int(m_u.min()), cutoffs, shape), shape)
    if n_u.min() == n_u.max() and m_u.min() == m_u.max():
        counts = np.bincount(s - 1, minlength=int(m_u[0]) + 1).astype(np.float64)
        seen = counts > 0
        L = histogram_atoms(int(n_u[0]), int(m_u[0]), sampling, a, b)[seen]
        counts = counts[seen]
    else:
        keys, counts = np.unique(np.stack([s, n_u, m_u]), axis=1, return_counts=True)
        L = user_atoms(keys[0], keys[1], keys[2], sampling, a, b)
        counts = counts.astype(np.float64)
    with threadpool_limits(1, user_api="blas"):     # K x K systems: threads only cost
        return _intervals(L, counts, metrics, n_u, a, b, s.size, level, spread)


def _intervals(L, counts, metrics, n_u, a, b, users, level, spread) -> pd.DataFrame:
    """The rows of :func:`recommended_interval` from its atoms' likelihoods."""
    w_mle, _ = mixture_mle(L, counts)
    kappa = stats.chi2.ppf(level, 1) / 2
    z = stats.norm.ppf((1 + level) / 2)
    rows = []
    for metric in metrics:
        c = atom_metric(metric.weights, n_u, a, b)
        lo, hi, w_lo, w_hi = profile_range(L, counts, c, kappa, w_mle)
        profile = (lo, hi)
        if spread:
            c2 = atom_metric(lambda n: metric.weights(n) ** 2, n_u, a, b)
            sd = [np.sqrt(max(w @ c2 - (w @ c) ** 2, 0.0) / users) for w in (w_lo, w_hi)]
            weights = metric.weights(int(np.max(n_u)))
            lo = max(lo - z * sd[0], float(weights.min()))
            hi = min(hi + z * sd[1], float(weights.max()))
        rows.append((metric.name, (lo + hi) / 2, lo, hi, *profile))
    return pd.DataFrame(rows, columns=["metric", "value", "ci_low", "ci_high", "profile_low",
                                       "profile_high"])
