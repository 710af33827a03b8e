"""From an interval to a verdict: ``a_better``, ``b_better`` or ``not_distinguishable``; the
interval for the exact difference (the hull of the intervals of D^ and D^ - b^); whether an
estimate orders A and B as the exact metric does (KDD'20 Table 4's criterion).
"""
from __future__ import annotations

import numpy as np

from ..checks import check_bootstrap_draws

__all__ = ["VERDICTS", "check_interval_draws", "verdict", "orders_like_exact", "exact_interval"]

VERDICTS = ("a_better", "b_better", "not_distinguishable")


def check_interval_draws(name: str, draws, level: float) -> int:
    """Bootstrap replicates of a comparison: enough for an interval at ``level``
    (:func:`sampled_metrics.checks.check_bootstrap_draws`), never 0 (a verdict needs one)."""
    return check_bootstrap_draws(name, draws, level, none=False)


def verdict(low, high) -> np.ndarray:
    """``a_better`` where low > 0, ``b_better`` where high < 0, else ``not_distinguishable``
    (elementwise; an interval that touches 0 is not distinguishable)."""
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    if np.any(low > high):
        raise ValueError("interval with low > high")
    return np.where(low > 0, VERDICTS[0], np.where(high < 0, VERDICTS[1], VERDICTS[2]))


def orders_like_exact(value_a, value_b, exact_a, exact_b) -> np.ndarray:
    """Whether each estimate orders A and B as the exact metric does: sign(a - b) =
    sign(exact_a - exact_b) != 0 (strictly; a tie either way counts as wrong). Elementwise,
    e.g. over repeats; the count of True is KDD'20 Table 4's cell.

    Examples
    --------
    >>> orders_like_exact([0.3, 0.1, 0.2], [0.2, 0.2, 0.2], 0.08, 0.07).tolist()
    [True, False, False]
    """
    truth = np.sign(np.asarray(exact_a, dtype=np.float64) - np.asarray(exact_b, dtype=np.float64))
    got = np.sign(np.asarray(value_a, dtype=np.float64) - np.asarray(value_b, dtype=np.float64))
    return (got == truth) & (truth != 0)


def exact_interval(ci_low, ci_high, debiased_low, debiased_high
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Interval for the exact difference that holds whether the method's bias is the
    estimated one or zero: the hull of the interval of D^ and that of D^ - b^,

        low = min(ci_low, debiased_low),   high = max(ci_high, debiased_high).
    """
    arrays = [np.asarray(x, dtype=np.float64) for x in (ci_low, ci_high, debiased_low,
                                                          debiased_high)]
    if np.any(arrays[0] > arrays[1]) or np.any(arrays[2] > arrays[3]):
        raise ValueError("interval with low > high")
    return np.minimum(arrays[0], arrays[2]), np.maximum(arrays[1], arrays[3])
