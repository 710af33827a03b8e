"""How many negatives m does an evaluation need for the recommended interval to be at most a
width W? Design by width, from a stated rank distribution or a pilot's sampled ranks.

The width at m is the recommended interval's on the expected histogram of U users' sampled
ranks, U q_P(r~) with q_P(r~) = sum_r P(r) p(r~ | r; n, m) (:func:`expected_width`): the data
a typical evaluation gives, without a draw's noise (a draw's width scatters around it). P is
the empirical law of exact ranks from a comparable full evaluation, or the fit of a pilot's
sampled ranks under the answer's shape, P^ = sum_j w^_j g_j / Z_j (:func:`pilot_prior`, the
atoms of :mod:`.atoms`). :func:`width_sample_size` returns the smallest m whose width is at
most W, to within 1 % of m (the search of
:func:`~sampled_metrics.corrections.planning.smallest_m`: the width falls as m grows). With
one n_u per user, give the median n_u: the largest overstates the width, since a user with
fewer candidates ranks its item among fewer and its sampled rank says more.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..checks import check_allocation, check_integer, check_real
from ..corrections.moments import check_prior
from ..corrections.planning import smallest_m
from ..design import Design, as_design
from ..estimators.histogram import mixture_matrix
from ..metrics import parse_metric
from .atoms import atom_grid, atom_ranges, check_shape, histogram_atoms
from .profile import mixture_mle
from .recommended import histogram_interval

__all__ = ["WidthPlan", "pilot_prior", "expected_width", "width_sample_size"]


@dataclass(frozen=True)
class WidthPlan:
    """Result of :func:`width_sample_size`: ``m`` is None when even m = max_m is wider."""

    metric: str
    m: int | None
    width: float
    width_at_max_m: float
    max_m: int


def pilot_prior(sampled_ranks, n, m: int | None = None, sampling: str | None = None,
                shape: str = "non-increasing") -> np.ndarray:
    """P^(r), r = 1..n: the most likely rank distribution under ``shape`` given a pilot's
    sampled ranks (one n and m for all users).

    Examples
    --------
    >>> from sampled_metrics import draw_sampled_ranks
    >>> rng = np.random.default_rng(0)
    >>> s = draw_sampled_ranks(np.minimum(rng.geometric(0.05, 3000), 500), 500, 50, rng=rng)
    >>> P = pilot_prior(s, 500, 50)
    >>> round(float(P.sum()), 12), bool(np.all(np.diff(P) <= 1e-15))   # non-increasing
    (1.0, True)
    """
    design = as_design(n, m, sampling)
    n, m = design.n, design.m
    shape = check_shape(shape)
    s = np.asarray(sampled_ranks).reshape(-1)
    if s.size < 1 or np.any(s < 1) or np.any(s > m + 1) or not np.all(s == np.round(s)):
        raise ValueError(f"pilot sampled ranks must be integers in 1..m+1 = {m + 1}")
    a, b, slope = atom_ranges(atom_grid(n, m, shape=shape), shape)
    h = np.bincount(s.astype(np.int64) - 1, minlength=m + 1).astype(np.float64)
    seen = h > 0
    w, _ = mixture_mle(histogram_atoms(design, a, b, slope)[seen], h[seen])
    r = np.arange(1, n + 1)[:, None]
    g = np.where((r > a) & (r <= np.minimum(b, n)), np.where(slope == 1, b + 1 - r, 1), 0)
    P = (g / g.sum(axis=0)) @ w
    return P / P.sum()


def expected_width(prior, n, m: int | None = None, users: int | None = None, metrics=None,
                   sampling: str | None = None, level: float = 0.95, *,
                   shape: str = "non-increasing", spread: str = "linear") -> dict:
    """The recommended interval's width per metric on the expected histogram U q_P of
    ``users`` users at m negatives, P = ``prior`` (n probabilities) (module docstring).

    Examples
    --------
    >>> P = 0.95 ** np.arange(1000); P /= P.sum()
    >>> w100 = expected_width(P, 1000, 100, 6040, "recall@10")["recall@10"]
    >>> w400 = expected_width(P, 1000, 400, 6040, "recall@10")["recall@10"]
    >>> bool(0 < w400 < w100 < 1)
    True
    """
    design = as_design(n, m, sampling)
    n, m = design.n, design.m
    users = check_integer("users", users, 2)
    P = check_prior(prior, n)
    if P is None:
        raise ValueError("the rank distribution (prior) is required")
    check_allocation(n * (m + 1.0), f"the law of the sampled rank over n = {n} ranks and "
                                    f"m = {m} negatives")
    counts = users * (mixture_matrix(design).T @ P)
    out = histogram_interval(counts, design, metrics=metrics, level=level, shape=shape,
                             spread=spread)
    return dict(zip(out["metric"], out["ci_high"] - out["ci_low"]))


def width_sample_size(prior, n: int, users: int, width: float, metric,
                      sampling: str = "binomial", level: float = 0.95, *,
                      shape: str = "non-increasing", spread: str = "linear",
                      max_m: int | None = None, grid_points: int = 16,
                      rel_precision: float = 0.01,
                      callback: Callable[[int, float], None] | None = None) -> WidthPlan:
    """The smallest m, to within ``rel_precision`` of m, whose expected recommended interval
    (:func:`expected_width`) is at most ``width`` wide for ``metric``, searched over
    1..max_m (default n - 1).

    Examples
    --------
    >>> P = 0.95 ** np.arange(1000); P /= P.sum()
    >>> plan = width_sample_size(P, 1000, 6040, 0.15, "recall@10")
    >>> plan.width <= 0.15 < expected_width(P, 1000, plan.m - 1, 6040, "recall@10")["recall@10"]
    True
    """
    if not check_real("width", width) > 0:
        raise ValueError(f"width must be positive, got {width}")
    name = parse_metric(metric).name
    design = Design(n, 1, sampling)
    max_m = design.n - 1 if max_m is None else check_integer("max_m", max_m, 1)
    design = design.with_m(max_m)
    check_prior(prior, design.n)
    m, value = smallest_m(lambda m: expected_width(prior, design.with_m(m), users=users,
                                                   metrics=name, level=level, shape=shape,
                                                   spread=spread)[name],
                          width, max_m, grid_points, rel_precision, callback)
    return WidthPlan(name, m, value(max_m) if m is None else value(m), value(max_m), max_m)
