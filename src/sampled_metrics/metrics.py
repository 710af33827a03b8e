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
``hit@k``       delta(r <= k)             (= ``recall@k``)      no
``mrr@k``       delta(r <= k) / r         (= ``ap@k``)          no
``mrr``         1 / r                     (= ``ap``)            no
==============  ==========================================  =========

Hit@k and MRR@k are metrics in their own right: with one relevant item they equal Recall@k
and AP@k (Sec. 3.1), but for a set R of several relevant items they read only the best
of them, Hit@k(R) = delta(min R <= k) and MRR@k(R) = delta(min R <= k) / min R
(RecBole's ``hit`` and ``mrr``), while Recall and AP average over R.

Names are case-insensitive. Aliases (:data:`METRIC_ALIASES`) are accepted only where the two
names mean the same metric for any number of relevant items: ``hr``/``hitrate`` for
``hit``, ``rr`` for ``mrr``, ``map`` for ``ap``, ``prec`` for ``precision``.
Ranks are 1-based. For a *sampled* rank r~ in 1..m+1 the same metric is evaluated with
n = m + 1 (only AUC depends on it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .checks import check_allocation, check_distinct, check_integer, check_ranks
from .registry import resolve_name, unknown_name

__all__ = ["Metric", "parse_metric", "parse_metrics", "metric_value", "metric_weights",
           "metric_of_sets", "METRIC_KINDS", "METRIC_ALIASES", "METRIC_NAMES"]

METRIC_KINDS = ("auc", "precision", "recall", "hit", "ap", "mrr", "ndcg")
#: Other spellings of a kind: each means the same metric for any number of relevant items.
METRIC_ALIASES = {"hr": "hit", "hitrate": "hit", "rr": "mrr", "map": "ap", "prec": "precision"}
#: The names accepted, for messages and ``--help``.
METRIC_NAMES = ("auc, precision@k, recall@k, hit@k, ap, ap@k, mrr, mrr@k, ndcg, ndcg@k "
                "(aliases: " + ", ".join(f"{a} = {k}" for a, k in METRIC_ALIASES.items()) + ")")
#: Kinds whose one-item value M(r) is that of another kind (they differ on sets only).
_ONE_ITEM = {"hit": "recall", "mrr": "ap"}
_NAME_RE = re.compile(r"^\s*([a-z]+)\s*(?:@\s*(\d+))?\s*$")


@dataclass(frozen=True)
class Metric:
    """A ranking metric for one relevant item, M(r) (KDD'20 eq. 7-13).

    Parameters
    ----------
    kind : {'auc', 'precision', 'recall', 'hit', 'ap', 'mrr', 'ndcg'}
    k : int or None
        Cut-off; ``None`` means untruncated (k = n).

    Examples
    --------
    >>> Metric("ndcg", 10)([1, 3, 11]).round(3)
    array([1. , 0.5, 0. ])
    >>> Metric("mrr", 10).of_set([2, 3]), Metric("ap", 10).of_set([2, 3])
    (0.5, 0.5833333333333333)
    """

    kind: str
    k: int | None = None

    def __post_init__(self):
        """The kind in its canonical spelling (an alias or any case reads as parse_metric
        reads it) and k an int; a one-line ValueError for a metric that is not one."""
        kind, k = _checked(self.kind, self.k)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "k", k)

    @property
    def name(self) -> str:
        """Canonical string name, e.g. ``'recall@10'``, ``'ap'``."""
        return self.kind if self.k is None else f"{self.kind}@{self.k}"

    def one_item(self) -> "Metric":
        """The metric of the same value M(r) for one relevant item: ``hit@k`` -> ``recall@k``,
        ``mrr@k`` -> ``ap@k``, any other itself."""
        return Metric(_ONE_ITEM.get(self.kind, self.kind), self.k)

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
        kind = _ONE_ITEM.get(self.kind, self.kind)
        if kind == "precision":
            out = np.where(r <= self.k, 1.0 / self.k, 0.0)
        elif kind == "recall":
            out = np.where(r <= self.k, 1.0, 0.0)
        elif kind == "ap":
            out = 1.0 / r
        else:  # ndcg
            out = 1.0 / np.log2(r + 1.0)
        if self.k is not None and kind in ("ap", "ndcg"):
            out = np.where(r <= self.k, out, 0.0)
        return out

    def mean(self, r, n=None) -> float:
        """The metric of an evaluation, (1/U) sum_u M(r_u), user u's rank r_u among n_u items.

        ``n`` (scalar or one n_u per user) is needed for AUC only (eq. 7), each user's AUC
        then being over its own candidates.

        Examples
        --------
        >>> parse_metric("recall@10").mean([1, 5, 20, 100])
        0.5
        >>> parse_metric("auc").mean([1, 3], n=[3, 5])
        0.75
        """
        return float(np.mean(self(r, None if n is None else np.asarray(n))))

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
        Hit(R)_k = delta(min R <= k),  MRR(R)_k = delta(min R <= k) / min R
        """
        given = check_ranks("ranks of relevant items", ranks, 1, n, hi_name="n")
        R = np.unique(given)
        if R.size == 0:
            raise ValueError("a set of relevant items must not be empty")
        if R.size != given.size:
            raise ValueError("ranks of relevant items must be distinct")
        size = R.size
        if self.kind == "auc":
            if n is None:
                raise ValueError("metric 'auc' needs the number of items n")
            if n <= size:
                raise ValueError(f"auc of {size} relevant items needs n > {size} items, got "
                                 f"n={n}")
            return float((n - (size - 1) / 2.0 - R.mean()) / (n - size))
        k = self.k if self.k is not None else (n if n is not None else int(R[-1]))
        inside = R[R <= k]
        if self.kind in _ONE_ITEM:             # the best relevant item only
            return float(self(R[:1])[0])
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

    Examples
    --------
    >>> parse_metric("NDCG@10")
    Metric(kind='ndcg', k=10)
    >>> parse_metric("hr@5").name
    'hit@5'
    """
    if isinstance(name, Metric):
        return name
    if not isinstance(name, str):
        raise ValueError(f"metric name must be a string, got {name!r}")
    match = _NAME_RE.match(name.lower())
    if not match:
        raise unknown_name("metric", name, METRIC_NAMES)
    k = None if match.group(2) is None else int(match.group(2))
    return Metric(*_checked(match.group(1), k, name))


def _checked(kind, k, shown: str | None = None) -> tuple[str, int | None]:
    """(kind, k) of a metric, checked: ``kind`` one of :data:`METRIC_KINDS` or an alias, in
    any case (:func:`~sampled_metrics.registry.resolve_name`); ``k`` a cut-off >= 1 where the
    kind takes one, an int. ValueError naming the metric as ``shown`` (default ``kind@k``)."""
    if not isinstance(kind, str):
        raise ValueError(f"metric name must be a string, got {kind!r:.60}")
    shown = shown if shown is not None else kind if k is None else f"{kind}@{k}"
    kind = resolve_name("metric", kind, METRIC_KINDS, METRIC_ALIASES, choices=METRIC_NAMES,
                        shown=shown)
    if kind == "auc" and k is not None:
        raise ValueError(f"metric {shown!r}: AUC has no cut-off; use 'auc'")
    if kind in ("precision", "recall", "hit") and k is None:
        raise ValueError(f"metric {shown!r} needs a cut-off, e.g. '{kind}@10'")
    if k is not None:
        try:
            k = check_integer("cut-off", k)
        except ValueError:
            raise ValueError(f"metric {shown!r}: cut-off must be an integer, got "
                             f"{k!r:.60}") from None
        if k < 1:
            raise ValueError(f"metric {shown!r}: cut-off must be >= 1")
    return kind, k


def parse_metrics(names: str | Iterable[str], distinct: bool = False) -> list[Metric]:
    """Parse a comma-separated string or an iterable of names (:func:`parse_metric`);
    ValueError when there is none, or (``distinct``) when one metric comes twice.

    Examples
    --------
    >>> [metric.name for metric in parse_metrics("recall@10, ndcg@10,ap")]
    ['recall@10', 'ndcg@10', 'ap']
    """
    if isinstance(names, str):
        names = [s for s in names.split(",") if s.strip()]
    elif isinstance(names, Metric):
        names = [names]
    elif isinstance(names, bytes) or not isinstance(names, Iterable):
        raise ValueError(f"metrics must be a string or a list of names, got {names!r:.60}")
    metrics = [parse_metric(s) for s in names]
    if not metrics:
        raise ValueError("no metric given")
    if distinct:
        check_distinct("metric", [metric.name for metric in metrics])
    return metrics


def metric_value(metric: str | Metric, r, n: int | None = None) -> np.ndarray:
    """M(r) for an array of ranks (see :meth:`Metric.__call__`).

    Examples
    --------
    >>> metric_value("recall@10", [1, 10, 11])
    array([1., 1., 0.])
    """
    return parse_metric(metric)(r, n)


def metric_weights(metric: str | Metric, n: int) -> np.ndarray:
    """The vector (M(1), ..., M(n)).

    Examples
    --------
    >>> metric_weights("ndcg@3", 5).round(4)
    array([1.    , 0.6309, 0.5   , 0.    , 0.    ])
    """
    return parse_metric(metric).weights(n)


def metric_of_sets(metric: str | Metric, rank_sets: Iterable[Sequence[int]],
                   n: int | None = None) -> np.ndarray:
    """M(R) for each set of relevant ranks in ``rank_sets`` (eq. 2-6).

    Examples
    --------
    >>> metric_of_sets("ap", [[1, 3], [2]], n=10).round(4)
    array([0.8333, 0.5   ])
    """
    m = parse_metric(metric)
    return np.array([m.of_set(R, n) for R in rank_sets], dtype=np.float64)

