"""The one-item metric vector of a positive with a positives above it (the shifted terms of
:mod:`sampled_metrics.multipositive`): W_a(r) = term(a + r)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics import Metric

__all__ = ["ShiftedMetric", "shifted_term", "FIRST_ONLY"]

#: Metric kinds whose per-user value is the term of the first positive alone.
FIRST_ONLY = ("hit", "mrr")


def shifted_term(metric: Metric, shift, r, n=None) -> np.ndarray:
    """term(a + r) of the table in :mod:`sampled_metrics.multipositive` for arrays a, r:
    the metric at rank a + r, times a + 1 for AP (precision (a + 1)/r_i), zero for a > 0 for
    Hit and MRR (they read the first positive only); AUC: (n - r)/(n - 1), no shift."""
    if metric.kind == "auc":
        return Metric.__call__(metric, r, n)
    shift = np.asarray(shift, dtype=np.float64)
    out = Metric.__call__(Metric(metric.kind, metric.k), np.asarray(r, np.float64) + shift)
    if metric.kind in FIRST_ONLY:
        return np.where(shift == 0, out, 0.0)
    return out * (shift + 1.0) if metric.kind == "ap" else out


@dataclass(frozen=True)
class ShiftedMetric(Metric):
    """The one-item metric vector of a positive with ``shift`` = a positives above it:
    W_a(r) = :func:`shifted_term` (AUC takes no shift). Usable wherever a Metric is
    (``weights(n)``, the corrections)."""

    shift: int = 0

    def __post_init__(self):
        if self.kind == "auc" and self.shift:
            raise ValueError("the AUC term takes no shift")

    @property
    def name(self) -> str:
        return f"{Metric.name.fget(self)}+{self.shift}"

    def __call__(self, r, n: int | None = None) -> np.ndarray:
        return shifted_term(self, self.shift, r, n)
