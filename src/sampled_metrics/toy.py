"""The running example of KDD'20 (Sec. 3.2, 4.2, 5.4): recommenders A, B, C on n = 10,000 items.

Each recommender ranks the relevant item of five instances at the ranks of Table 1.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .metrics import parse_metric
from .sampling import draw_sampled_ranks, expected_metric_matrix, sampled_metric_weights

__all__ = ["TOY_RANKS", "TOY_N", "TOY_METRICS", "table1", "table2", "expected_curve_vs_m"]

#: Predicted ranks of the relevant item for the five instances (KDD'20 Table 1).
TOY_RANKS = {
    "A": (100, 100, 100, 100, 100),
    "B": (40, 40, 8437, 9266, 4482),
    "C": (212, 2, 743, 5342, 1548),
}
TOY_N = 10_000
TOY_METRICS = ("auc", "ap", "ndcg", "recall@10")


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
