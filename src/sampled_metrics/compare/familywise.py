"""The family-wise error over many comparisons: the level at which each comparison's verdict
is read so that, over the whole family, the chance of any confidently wrong verdict stays
below 1 - ``level``.

A comparison h (a pair of recommenders on a metric) is judged as :func:`compare_ranks`
judges it: confident iff the hull of the percentile intervals of its S bootstrap statistics
(D^, and D^ - b^ where the bias is estimated) excludes 0 at the level L_h it is read at.
Both procedures are step-down: the level is set for the comparisons still undecided, those
that become confident at it are decided, and the level is set again for the rest, until no
comparison becomes confident (the rest keep the last level and are not distinguishable).

``maxstat``  the max-statistic paired bootstrap (Romano & Wolf's step-down). Each statistic
             is put on the scale of its own bootstrap distribution: a replicate at sorted
             position i of B has the extremity e = |2 i / (B - 1) - 1|, the level of the
             percentile interval whose end it is (ties: mean position). For the undecided
             set R, L(R) is the (1 - alpha) quantile (the next order statistic up) of
             E_b = max over h in R and s of e_{h,s,b}: in a share >= 1 - alpha of the
             replicates every statistic of R lies within its own interval at L(R), so the
             intervals hold jointly as the single intervals hold alone. Comparisons that move
             together (pairs sharing a recommender, correlated metrics, D^ and D^ - b^) cost
             little: L(R) is far below Bonferroni's 1 - alpha / |R|. L(R) is never below
             1 - alpha, the level of one comparison alone.
``holm``     Holm's step-down on the comparisons' bootstrap p-values (the least alpha' at
             which the hull at 1 - alpha' excludes 0): L(R) = 1 - alpha / |R|; it needs
             B >= 2 |R| / alpha replicates.

alpha = 1 - ``level``. Under the bootstrap's own approximation (the replicates' spread
around D^ is that of D^ around D) both keep the family-wise error <= alpha; neither covers a
method's bias beyond what the hull allows (the estimator's own bias, e.g. MES's entropy
term).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> shift = np.array([0.0, 0.4, 1.0])[None, :, None]     # three comparisons, one statistic
>>> reps = shift + 0.1 * rng.standard_normal((2000, 3, 1))
>>> levels, confident = familywise_levels(reps, 0.95)
>>> confident.tolist()
[False, True, True]
>>> levels.round(3).tolist()                            # the last one alone: 0.95
[0.95, 0.984, 0.984]
"""
from __future__ import annotations

import math

import numpy as np

from ..checks import check_level
from ..registry import FAMILYWISE_METHODS, resolve_name
from ..resampling import percentile_interval

__all__ = ["FAMILYWISE_METHODS", "familywise_levels", "familywise_draws", "hull_confident",
           "sorted_positions"]



def hull_confident(replicates: np.ndarray, level: float) -> np.ndarray:
    """Whether each comparison's hull of percentile intervals at ``level`` excludes 0:
    ``replicates`` (B, H, S) -> bool (H,)."""
    lo, hi = percentile_interval(replicates, level)                        # (H, S)
    return (lo.min(axis=-1) > 0) | (hi.max(axis=-1) < 0)


def sorted_positions(X: np.ndarray) -> np.ndarray:
    """The 0-based position of each entry of ``X`` in its column (axis 0) sorted, ties at
    the mean of their positions (scipy.stats.rankdata's 'average' minus 1).

    Examples
    --------
    >>> sorted_positions(np.array([[3.0], [1.0], [3.0], [2.0]])).ravel().tolist()
    [2.5, 0.0, 2.5, 1.0]
    """
    order = np.argsort(X, axis=0, kind="stable")
    s = np.take_along_axis(X, order, axis=0)
    B = X.shape[0]
    at = np.arange(B).reshape((B,) + (1,) * (X.ndim - 1)) + np.zeros(X.shape, dtype=np.int64)
    starts = np.ones(X.shape, dtype=bool)
    starts[1:] = s[1:] != s[:-1]
    ends = np.ones(X.shape, dtype=bool)
    ends[:-1] = starts[1:]
    first = np.maximum.accumulate(np.where(starts, at, 0), axis=0)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, at, B - 1), axis=0), axis=0),
                   axis=0)
    out = np.empty(X.shape)
    np.put_along_axis(out, order, (first + last) / 2, axis=0)
    return out


def familywise_levels(replicates, level: float = 0.95, method: str = "maxstat"
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The level each comparison is read at, and whether it is confident there (module
    docstring).

    Parameters
    ----------
    replicates : array (B, H, S)
        B bootstrap replicates of the S statistics of each of H comparisons (NaN-free).
    level : float in (0, 1)
        The family-wise level: 1 - alpha.
    method : {'maxstat', 'holm'}

    Returns
    -------
    levels : float array (H,)
    confident : bool array (H,)
    """
    X = np.asarray(replicates, dtype=np.float64)
    if X.ndim != 3 or X.shape[0] < 2 or X.shape[1] < 1 or X.shape[2] < 1:
        raise ValueError(f"replicates must have shape (B >= 2, H >= 1, S >= 1), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("replicates must be finite")
    check_level("level", level)
    method = resolve_name("family-wise procedure", method, FAMILYWISE_METHODS)
    B, H, _ = X.shape
    alpha = 1 - level
    if method == "holm" and B < math.ceil(2 * H / alpha):
        raise ValueError(f"Holm's level 1 - {alpha:g}/{H} needs at least "
                         f"{math.ceil(2 * H / alpha)} bootstrap draws, got {B}")
    extremity = (np.abs(2 * sorted_positions(X) / (B - 1) - 1) if method == "maxstat"
                 else None)
    levels = np.full(H, np.nan)
    confident = np.zeros(H, dtype=bool)
    open_ = np.arange(H)
    while open_.size:
        at = (_max_level(extremity[:, open_], alpha) if method == "maxstat"
              else 1 - alpha / open_.size)
        sure = hull_confident(X[:, open_], at)
        levels[open_] = at
        confident[open_[sure]] = True
        if not sure.any():
            break
        open_ = open_[~sure]
    return levels, confident


def familywise_draws(comparisons: int, statistics: int, level: float = 0.95,
                     method: str = "maxstat", least: int = 2000) -> int:
    """The fewest bootstrap draws, at least ``least``, that ``method`` can always read a
    family of H = ``comparisons`` with S = ``statistics`` each at ``level``.

    ``holm``: B >= 2 H / alpha (each tail of the interval at 1 - alpha / H holds a draw).
    ``maxstat``: at most 2 H S draws are the single most extreme of some statistic
    (extremity 1), and the level must fall below them: B - ceil((1 - alpha) B) >= 2 H S,
    i.e. B >= 2 H S / alpha, taken as :func:`familywise_levels` computes the quantile's
    position.

    Examples
    --------
    >>> familywise_draws(60, 1), familywise_draws(60, 2), familywise_draws(60, 2, method="holm")
    (2400, 4800, 2400)
    """
    alpha = 1 - check_level("level", level)
    if method == "holm":
        return max(least, math.ceil(2 * comparisons / alpha))
    need = 2 * comparisons * statistics
    B = max(least, math.floor(need / alpha) - 2)     # below the bound: rounding of alpha
    while B - math.ceil((1 - alpha) * B) < need:
        B += 1
    return B


def _max_level(extremity: np.ndarray, alpha: float) -> float:
    """The (1 - alpha) quantile, next order statistic up, of the replicates' largest
    extremity; ValueError when it is an extreme replicate (too few draws for the family)."""
    E = np.sort(extremity.reshape(extremity.shape[0], -1).max(axis=1))
    at = float(E[math.ceil((1 - alpha) * E.size) - 1])
    if at < 1:
        # a hair above: the draws at the quantile stay inside their intervals despite the
        # rounding of the quantile's position (p (B - 1), exact only up to a few ulp)
        at = max(1 - alpha, min(at + 1e-9, np.nextafter(1.0, 0.0)))
    if at >= 1:
        raise ValueError(f"{E.size} bootstrap draws are too few for {extremity.shape[1]} "
                         f"comparisons at family-wise level {1 - alpha:g}: the level falls on "
                         f"the most extreme draw; give more draws")
    return at
