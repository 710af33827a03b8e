"""Ranking metrics of KDD'20 Section 3 (eq. 2-13).

A metric is named by a string and parsed in one place, :func:`parse_metric`:

==============  ==========================================  =========
name            one relevant item at rank r (eq.)           needs n
==============  ==========================================  =========
``auc``         (n - r) / (n - 1)                   (7)     yes
``precision@k`` delta(r <= k) / k                   (8)     no
``recall@k``    delta(r <= k)                       (9)     no
``ap@k``        delta(r <= k) / r                   (10)    no
``ndcg@k``      delta(r <= k) / log2(r + 1)         (11)    no
``ap``          1 / r                               (12)    no
``ndcg``        1 / log2(r + 1)                     (13)    no
==============  ==========================================  =========

Names are case-insensitive; ``hr@k`` (hit ratio) is accepted for ``recall@k`` and
``rr``/``mrr`` for ``ap`` (they coincide for one relevant item, Sec. 3.1).
Ranks are 1-based. For a *sampled* rank r~ in 1..m+1 the same metric is evaluated with
n = m + 1 (only AUC depends on it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .checks import check_allocation, check_integer, check_ranks

__all__ = ["Metric", "parse_metric", "parse_metrics", "metric_value", "metric_weights",
           "metric_of_sets", "METRIC_KINDS"]

METRIC_KINDS = ("auc", "precision", "recall", "ap", "ndcg")
_ALIASES = {"hr": "recall", "hitrate": "recall", "hit": "recall", "rr": "ap", "mrr": "ap",
            "prec": "precision", "map": "ap"}
_NAME_RE = re.compile(r"^\s*([a-z]+)\s*(?:@\s*(\d+))?\s*$")


@dataclass(frozen=True)
class Metric:
    """A ranking metric for one relevant item, M(r) (KDD'20 eq. 7-13).

    Parameters
    ----------
    kind : {'auc', 'precision', 'recall', 'ap', 'ndcg'}
    k : int or None
        Cut-off; ``None`` means untruncated (k = n).
    """

    kind: str
    k: int | None = None

    @property
    def name(self) -> str:
        """Canonical string name, e.g. ``'recall@10'``, ``'ap'``."""
        return self.kind if self.k is None else f"{self.kind}@{self.k}"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.name

    def __call__(self, r, n: int | None = None) -> np.ndarray:
        """Evaluate M(r) for an array of 1-based ranks ``r`` among ``n`` items.

        ``n`` (a scalar or an array broadcast against ``r``) is required for AUC only
        (eq. 7: (n - r) / (n - 1)).
        """
        r = check_ranks("ranks r", r, 1, n, integral=False, hi_name="n").astype(np.float64)
        if self.kind == "auc":
            if n is None:
                raise ValueError("metric 'auc' needs the number of items n")
            n = np.asarray(n, dtype=np.float64)
            if np.any(n < 2):
                raise ValueError(f"auc needs n >= 2 items, got n={np.min(n):g}")
            return (n - r) / (n - 1.0)
        if self.kind == "precision":
            out = np.where(r <= self.k, 1.0 / self.k, 0.0)
        elif self.kind == "recall":
            out = np.where(r <= self.k, 1.0, 0.0)
        elif self.kind == "ap":
            out = 1.0 / r
        else:  # ndcg
            out = 1.0 / np.log2(r + 1.0)
        if self.k is not None and self.kind in ("ap", "ndcg"):
            out = np.where(r <= self.k, out, 0.0)
        return out

    def weights(self, n: int) -> np.ndarray:
        """The vector (M(1), ..., M(n)) for ``n`` items."""
        n = check_integer("n (number of items)", n, 1)
        check_allocation(2 * n, f"the metric weights M(1..n) for n = {n}")
        return self(np.arange(1, n + 1), n)

    def of_set(self, ranks: Sequence[int], n: int | None = None) -> float:
        """M(R) for a set R of relevant ranks (eq. 2-6).

        AUC(R) = (n - (|R|-1)/2 - mean(R)) / (n - |R|)                        (2)
        Prec(R)_k = |{r in R: r <= k}| / k                                     (3)
        Recall(R)_k = |{r in R: r <= k}| / |R|                                 (4)
        AP(R)_k = 1/min(|R|,k) * sum_{i<=k} delta(i in R) Prec(R)_i            (5)
        NDCG(R)_k = sum_{i<=k} delta(i in R)/log2(i+1) / sum_{i<=min(|R|,k)} 1/log2(i+1)  (6)
        """
        R = np.unique(np.asarray(ranks, dtype=np.int64))
        if R.size == 0:
            raise ValueError("a set of relevant items must not be empty")
        if R.size != len(ranks):
            raise ValueError("ranks of relevant items must be distinct")
        if R[0] < 1 or (n is not None and R[-1] > n):
            raise ValueError(f"ranks must lie in 1..n, got {R.min()}..{R.max()}")
        size = R.size
        if self.kind == "auc":
            if n is None:
                raise ValueError("metric 'auc' needs the number of items n")
            return float((n - (size - 1) / 2.0 - R.mean()) / (n - size))
        k = self.k if self.k is not None else (n if n is not None else int(R[-1]))
        inside = R[R <= k]
        if self.kind == "precision":
            return inside.size / k
        if self.kind == "recall":
            return inside.size / size
        if self.kind == "ap":
            # Prec(R)_i at i = the j-th relevant rank (1-based j) is j / i.
            prec_at_hits = np.arange(1, inside.size + 1) / inside
            return float(prec_at_hits.sum() / min(size, k))
        ideal = (1.0 / np.log2(np.arange(2, min(size, k) + 2))).sum()
        return float((1.0 / np.log2(inside + 1.0)).sum() / ideal)


def parse_metric(name: str | Metric) -> Metric:
    """Parse a metric name (``'recall@10'``, ``'NDCG'``, ``'auc'``, ...) into a :class:`Metric`.

    Raises
    ------
    ValueError
        For an unknown name, a missing or non-positive cut-off, or ``auc@k``.
    """
    if isinstance(name, Metric):
        return name
    if not isinstance(name, str):
        raise ValueError(f"metric name must be a string, got {name!r}")
    match = _NAME_RE.match(name.lower())
    if not match:
        raise ValueError(f"unknown metric {name!r}; expected one of auc, precision@k, "
                         f"recall@k, ap, ap@k, ndcg, ndcg@k")
    kind, k = match.group(1), match.group(2)
    kind = _ALIASES.get(kind, kind)
    if kind not in METRIC_KINDS:
        raise ValueError(f"unknown metric {name!r}; expected one of auc, precision@k, "
                         f"recall@k, ap, ap@k, ndcg, ndcg@k")
    k = None if k is None else int(k)
    if kind == "auc" and k is not None:
        raise ValueError(f"metric {name!r}: AUC has no cut-off; use 'auc'")
    if kind in ("precision", "recall") and k is None:
        raise ValueError(f"metric {name!r} needs a cut-off, e.g. '{kind}@10'")
    if k is not None and k < 1:
        raise ValueError(f"metric {name!r}: cut-off must be >= 1")
    return Metric(kind, k)


def parse_metrics(names: str | Iterable[str]) -> list[Metric]:
    """Parse a comma-separated string or an iterable of names."""
    if isinstance(names, str):
        names = [s for s in names.split(",") if s.strip()]
    return [parse_metric(s) for s in names]


def metric_value(metric: str | Metric, r, n: int | None = None) -> np.ndarray:
    """M(r) for an array of ranks (see :meth:`Metric.__call__`)."""
    return parse_metric(metric)(r, n)


def metric_weights(metric: str | Metric, n: int) -> np.ndarray:
    """The vector (M(1), ..., M(n))."""
    return parse_metric(metric).weights(n)


def metric_of_sets(metric: str | Metric, rank_sets: Iterable[Sequence[int]],
                   n: int | None = None) -> np.ndarray:
    """M(R) for each set of relevant ranks in ``rank_sets`` (eq. 2-6)."""
    m = parse_metric(metric)
    return np.array([m.of_set(R, n) for R in rank_sets], dtype=np.float64)

