"""The running example of KDD'20 (Sec. 3.2, 4.2, 5.4): recommenders A, B, C on n = 10,000 items.

Each recommender ranks the relevant item of five instances at the ranks of Table 1.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..corrections.vectors import correction_vectors
from ..metrics import parse_metric
from .paper import KDD_CORRECTIONS
from ..sampling import (draw_sampled_ranks, expected_metric_matrix, log_grid,
                       sampled_metric_weights)

__all__ = ["TOY_RANKS", "TOY_N", "TOY_METRICS", "FIG4_CORRECTIONS", "table1", "table2",
           "expected_curve_vs_m", "figure1_frame", "figure2_frame", "figure3_frame",
           "figure4_frame"]

#: Predicted ranks of the relevant item for the five instances (KDD'20 Table 1).
TOY_RANKS = {
    "A": (100, 100, 100, 100, 100),
    "B": (40, 40, 8437, 9266, 4482),
    "C": (212, 2, 743, 5342, 1548),
}
TOY_N = 10_000
TOY_METRICS = ("auc", "ap", "ndcg", "recall@10")
#: The corrections Figure 4 draws.
FIG4_CORRECTIONS = KDD_CORRECTIONS


def table1(ranks=TOY_RANKS, n: int = TOY_N, metrics=TOY_METRICS) -> pd.DataFrame:
    """Exact metrics (Table 1): mean over instances of M(r), eq. 1 with eq. 7-13.

    Returns a tidy frame with columns ``recommender, metric, value``.
    """
    rows = [(rec, parse_metric(x).name, float(parse_metric(x)(r, n).mean()))
            for rec, r in ranks.items() for x in metrics]
    return pd.DataFrame(rows, columns=["recommender", "metric", "value"])


def table2(m: int = 99, repeats: int = 1000, seed: int = 0, sampling: str = "binomial",
           ranks=TOY_RANKS, n: int = TOY_N, metrics=TOY_METRICS) -> pd.DataFrame:
    """Sampled metrics (Table 2): ``repeats`` independent samplings of m items per instance.

    For each repeat the sampled metric of a recommender is the mean over its instances of
    M_{m+1}(r~); ``mean`` and ``std`` (ddof = 1) are over repeats, and ``expected`` is the
    analytic mean over instances of E[M(r~) | r] (eq. 16). The random generator is seeded
    once with ``seed`` and drawn in the order of ``ranks``.

    Returns a tidy frame: ``recommender, metric, mean, std, expected``.
    """
    rng = np.random.default_rng(seed)
    metric_list = [parse_metric(x) for x in metrics]
    weights = [sampled_metric_weights(x, m) for x in metric_list]
    rows = []
    for rec, r in ranks.items():
        r = np.asarray(r)
        sampled = draw_sampled_ranks(r, n, m, sampling, rng, size=(repeats, r.size))
        expected = expected_metric_matrix(weights, r, n, m, sampling).mean(axis=1)
        for metric, w, e in zip(metric_list, weights, expected):
            per_repeat = w[sampled - 1].mean(axis=1)
            rows.append((rec, metric.name, per_repeat.mean(), per_repeat.std(ddof=1), e))
    return pd.DataFrame(rows, columns=["recommender", "metric", "mean", "std", "expected"])


def expected_curve_vs_m(metric, m_values, ranks=TOY_RANKS, n: int = TOY_N,
                        sampling: str = "binomial") -> pd.DataFrame:
    """Expected sampled metric of each recommender as a function of m (Figure 2).

    Returns a tidy frame ``recommender, metric, m, expected``.
    """
    metric = parse_metric(metric)
    rows = []
    for m in m_values:
        m = int(m)
        w = sampled_metric_weights(metric, m)
        for rec, r in ranks.items():
            rows.append((rec, metric.name, m,
                         float(expected_metric_matrix([w], r, n, m, sampling).mean())))
    return pd.DataFrame(rows, columns=["recommender", "metric", "m", "expected"])


def figure1_frame(n: int = TOY_N, metrics=TOY_METRICS) -> pd.DataFrame:
    """Figure 1's curves: M(r) for r = 1..n, a tidy frame ``metric, rank, value``."""
    r = np.arange(1, n + 1)
    return pd.DataFrame([(parse_metric(x).name, int(ri), float(v))
                         for x in metrics for ri, v in zip(r, parse_metric(x)(r, n))],
                        columns=["metric", "rank", "value"])


def figure2_frame(ranks=TOY_RANKS, n: int = TOY_N, metrics=TOY_METRICS, points: int = 120,
                  sampling: str = "binomial") -> pd.DataFrame:
    """Figure 2's curves: E[M(r~)] of each recommender at about ``points`` log-spaced m from
    1 to n - 1 (:func:`expected_curve_vs_m`), ``recommender, metric, m, expected``."""
    m_values = log_grid(1, n - 1, points)
    return pd.concat([expected_curve_vs_m(x, m_values, ranks, n, sampling) for x in metrics],
                     ignore_index=True)


def figure3_frame(n: int = TOY_N, m_values=(10, 100, 1000), top: int = 1000,
                  metrics=("ap", "ndcg", "recall@10", "auc"),
                  sampling: str = "binomial") -> pd.DataFrame:
    """Figure 3's curves: E[M(r~) | r] against the true rank r = 1..top for each m, and the
    exact M(r) (``m`` = 'exact'), ``metric, m, rank, value``."""
    r = np.arange(1, top + 1)
    rows = []
    for metric in metrics:
        metric = parse_metric(metric)
        rows += [(metric.name, "exact", int(ri), float(v)) for ri, v in zip(r, metric(r, n))]
        for m in m_values:
            e = expected_metric_matrix([sampled_metric_weights(metric, m)], r, n, m, sampling)[0]
            rows += [(metric.name, str(m), int(ri), float(v)) for ri, v in zip(r, e)]
    return pd.DataFrame(rows, columns=["metric", "m", "rank", "value"])


def figure4_frame(metric: str = "ap", n: int = TOY_N, m: int = 100,
                  corrections=FIG4_CORRECTIONS, sampling: str = "binomial") -> pd.DataFrame:
    """Figure 4's curves: each correction M^(r~) on r~ = 1..m+1 (``panel`` 'correction') and
    its expectation E[M^(r~) | r] at 400 log-spaced r, with the exact M(r) (``panel``
    'expected'), ``panel, method, rank, value``."""
    name = parse_metric(metric).name
    vecs = correction_vectors([name], n, m, corrections, sampling)
    r = log_grid(1, n, 400)
    rows = []
    for label in corrections:
        v = vecs[(name, label)]
        rows += [("correction", label, s, float(x)) for s, x in enumerate(v, start=1)]
        e = expected_metric_matrix([v], r, n, m, sampling)[0]
        rows += [("expected", label, int(ri), float(x)) for ri, x in zip(r, e)]
    rows += [("expected", "exact", int(ri), float(x)) for ri, x in zip(r, parse_metric(name)(r, n))]
    return pd.DataFrame(rows, columns=["panel", "method", "rank", "value"])
