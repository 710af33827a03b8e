"""How many sampled items does an evaluation need? (from the analytic bias of KDD'20 Sec. 5)

For a metric M, n items, m sampled items, a correction (``sampled`` = uncorrected, or
any correction of :mod:`sampled_metrics.corrections`) and a prior p(r) on true ranks (uniform by
default, or the empirical distribution of exact ranks from a comparable full evaluation):

    rms bias   B(m) = sqrt( sum_r p(r) (E[M^(r~) | r] - M(r))^2 )     (the criterion of eq. 21)
    mean bias  b(m) = | sum_r p(r) (E[M^(r~) | r] - M(r)) |          (bias of the reported average)

:func:`required_sample_size` returns the smallest m with bias <= target. Both biases shrink as
m grows (more samples, finer rank law) but not always monotonically for corrected metrics,
so the search scans a log grid of m upwards until the first point below the target, then
bisects (to 1 % of m) between it and the grid point before, and reports the bias actually
reached (and the bias at max_m). The bias is computed exactly from the rank law, each pmf
row only on the band of sampled ranks that holds its mass (O(n sqrt(m)) pmf entries per m),
and the correction's moments in narrow blocks of true ranks (O(n m) work instead of
O(n m^2) when m is a sizable fraction of n), plus the correction's own solve (O(m^3) for
CLS and BV): the same bias up to rounding (``narrow_blocks`` of
:func:`~sampled_metrics.sampling.expected_metric_matrix` and
:func:`~sampled_metrics.corrections.rank_law_moments`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..checks import check_allocation, check_integer, check_real
from ..design import Design, as_design
from ..metrics import parse_metric
from ..registry import resolve_name
from ..sampling import expected_metric_matrix
from .moments import check_prior
from .vectors import correction_label, correction_vectors

__all__ = ["Plan", "bias_at", "required_sample_size", "smallest_m"]

CRITERIA = ("rms", "mean")


def bias_at(metric, n, m: int | None = None, correction: str = "sampled",
            sampling: str | None = None, prior=None, criterion: str = "rms") -> float:
    """The bias of ``correction`` (its name) at sample size m (see module docstring).

    The correction is the one an evaluator can compute without knowing the ranks: fitted with
    the uniform prior, as in KDD'20's experiments; ``prior`` is the rank distribution the
    bias is measured under (uniform by default).
    """
    criterion = resolve_name("bias criterion", criterion, CRITERIA)
    design = as_design(n, m, sampling)
    n = design.n
    check_allocation(4 * n, f"the rank law over the n = {n} items")
    p = check_prior(prior, n)
    p = np.full(n, 1.0 / n) if p is None else p
    metric = parse_metric(metric)
    vec = correction_vectors([metric], design, corrections=[correction],
                             narrow_blocks=True)[metric.name, correction_label(correction)]
    r = np.flatnonzero(p > 0) + 1
    diff = expected_metric_matrix([vec], r, design, narrow_blocks=True)[0] - metric(r, n)
    w = p[r - 1]
    return float(np.sqrt(w @ diff ** 2) if criterion == "rms" else abs(w @ diff))


@dataclass(frozen=True)
class Plan:
    """Result of :func:`required_sample_size`: ``m`` is None when even m = max_m misses."""

    metric: str
    correction: str
    m: int | None
    bias: float
    bias_at_max_m: float
    max_m: int


def required_sample_size(metric, n: int, target_bias: float, correction: str = "sampled",
                         sampling: str = "binomial", prior=None, criterion: str = "rms",
                         max_m: int | None = None, grid_points: int = 16,
                         rel_precision: float = 0.01,
                         callback: Callable[[int, float], None] | None = None) -> Plan:
    """The sample size m an evaluation needs for a target bias.

    An m in 1..max_m (default n - 1) whose bias is at most ``target_bias``: the smallest on a
    log grid of ``grid_points`` values, refined by bisection to ``rel_precision`` of m
    between the last grid value above the target and the first below it. It is the
    smallest such m when the bias decreases with m (the usual case; a corrected metric can
    wiggle, then a smaller m may reach the target too). The grid is evaluated upwards and
    only up to its first value below the target (and at max_m, for ``bias_at_max_m``).
    ``callback(m, bias)``, if given, is called after each evaluation of the bias.

    Examples
    --------
    >>> plan = required_sample_size("recall@10", n=3706, target_bias=0.05,
    ...                             correction="bv_0.1")
    >>> plan.m, round(plan.bias, 3)
    (8, 0.05)
    """
    if not check_real("target bias", target_bias) > 0:
        raise ValueError(f"target bias must be positive, got {target_bias}")
    label = correction_label(correction)
    metric_name = parse_metric(metric).name
    design = Design(n, 1, sampling)
    n = design.n
    max_m = n - 1 if max_m is None else check_integer("max_m", max_m, 1)
    design = design.with_m(max_m)
    grid_points = check_integer("grid_points", grid_points, 2)
    check_allocation(2 * grid_points, f"a grid of {grid_points} sample sizes")
    if not 0 <= check_real("rel_precision", rel_precision) < float("inf"):
        raise ValueError(f"rel_precision must be finite and >= 0, got {rel_precision}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {type(callback).__name__}")

    m, value = smallest_m(lambda m: bias_at(metric_name, design.with_m(m), correction=label,
                                            prior=prior, criterion=criterion),
                          target_bias, max_m, grid_points, rel_precision, callback)
    return Plan(metric_name, label, m, value(max_m) if m is None else value(m), value(max_m),
                max_m)


def smallest_m(measure: Callable[[int], float], target: float, max_m: int,
               grid_points: int = 16, rel_precision: float = 0.01,
               callback: Callable[[int, float], None] | None = None) -> tuple:
    """An m in 1..max_m with ``measure(m) <= target``, the smallest to within
    ``rel_precision`` of m where the measure falls with m (:func:`required_sample_size`'s
    search: a log grid upwards to its first value at or below the target, then bisection),
    or None; and the measure, each m computed once (``callback(m, value)`` after each).

    Examples
    --------
    >>> smallest_m(lambda m: 1 / m, 0.01, 1000)[0]
    100
    """
    values = {}

    def value(m: int) -> float:
        if m not in values:
            values[m] = measure(m)
            if callback is not None:
                callback(m, values[m])
        return values[m]

    grid = [int(m) for m in np.unique(np.round(np.geomspace(1, max_m, grid_points)))]
    hi = next((m for m in grid if value(m) <= target), None)
    if hi is None:
        return None, value
    lo = max([m for m in grid if m < hi], default=0)
    while hi - lo > max(1, int(rel_precision * lo)):   # invariant: value(hi) <= target < value(lo)
        mid = (lo + hi) // 2
        if value(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi, value
