"""Adaptive sampling and MN against KDD'20's and Jin et al.'s methods at equal budget.

For each recommender of a study with exact ranks (the workflow's rank files) and each repeat:
adaptive sampling (:mod:`sampled_metrics.estimators.adaptive`, cumulative sizes ``sizes``) is drawn for
every user from the exact law given its exact rank among its n_u candidates (without
replacement, as the study's negatives) and estimated by EM over the per-user sizes; its
average number of sampled items per user is the budget. A fixed-size evaluation with m =
that budget (rounded) is drawn the same way and read by KDD'20's corrections, Jin et al.'s
estimators and MN (MES prior). Drawing from the law given the rank is distributionally the
same as drawing negatives and scoring them (the rank file's exact rank is the tie-broken
one); it does not need the model again.
"""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ...corrections.mn import mn_correction
from ...corrections.vectors import correction_vectors
from ...estimators.adaptive import adaptive_mle, check_sizes, draw_adaptive
from ...estimators.dispatch import estimate_rank_distribution, metric_from_distribution
from ...evaluation.rankfile import read_rank_file
from ...metrics import parse_metric
from ...sampling import draw_sampled_ranks
from ...seeds import generator
from ..tables import write_validation

__all__ = ["equal_budget", "equal_budget_summary"]

log = logging.getLogger(__name__)

TABLE_CORRECTIONS = ("sampled", "cls", "bv_0.1")
TABLE_ESTIMATORS = ("mle", "mes")


def _one_repeat(f, sizes, metric_list, rng) -> list[tuple]:
    r, n_u, n = np.asarray(f.exact, dtype=np.int64), f.n_u, f.n_items
    stage, count = draw_adaptive(r, n_u, sizes, "hypergeometric", rng)
    budget = float(np.mean(sizes[stage]))
    pi, _ = adaptive_mle(stage, count, n, sizes, "hypergeometric")
    rows = [("adaptive_mle", x.name, metric_from_distribution(x, pi), budget)
            for x in metric_list]
    m = int(round(budget))
    s = draw_sampled_ranks(r, n_u, m, "hypergeometric", rng)
    vectors = correction_vectors(metric_list, n, m, TABLE_CORRECTIONS, "hypergeometric")
    rows += [(c, x.name, float(vectors[(x.name, c)][s - 1].mean()), m)
             for c in TABLE_CORRECTIONS for x in metric_list]
    fits = {e: estimate_rank_distribution(s, n, m, e, "hypergeometric") for e in TABLE_ESTIMATORS}
    rows += [(e, x.name, metric_from_distribution(x, fits[e]), m)
             for e in TABLE_ESTIMATORS for x in metric_list]
    rows += [("mn", x.name, float(mn_correction(x, n, m, fits["mes"], r.size,
                                                "hypergeometric")[s - 1].mean()), m)
             for x in metric_list]
    return rows


def equal_budget(rank_paths: dict, sizes, repeats: int, metrics, out_stem, *,
                 seed: int = 0) -> pd.DataFrame:
    """Write ``<out_stem>_per_repeat.csv``, ``<out_stem>.csv`` and ``<out_stem>.md`` (see
    :func:`equal_budget_summary`); returns the summary."""
    metric_list = [parse_metric(x) for x in metrics]
    parts = []
    for name, path in rank_paths.items():
        f = read_rank_file(path)
        s = check_sizes(sizes, int(np.min(f.n_u)), "hypergeometric")
        for t in range(repeats):
            rows = _one_repeat(f, s, metric_list, generator(seed, f.dataset, "adaptive", name, t))
            frame = pd.DataFrame(rows, columns=["method", "metric", "value", "items_per_user"])
            frame.insert(0, "repeat", t)
            frame.insert(0, "recommender", name)
            frame["exact"] = [float(np.mean(parse_metric(x)(f.exact, f.n_u)))
                              for x in frame.metric]
            parts.append(frame)
            log.info("%s repeat %d: %.1f items per user", name, t, frame.items_per_user.iloc[0])
    per_repeat = pd.concat(parts, ignore_index=True)
    summary = equal_budget_summary(per_repeat)
    wide = summary.assign(cell=[f"{100 * v:.2f}±{100 * s:.2f} ({100 * e:+.0f}%)" for v, s, e in
                                zip(summary["mean"], summary["std"], summary.relative_error)])
    wide = wide.pivot_table(index=["recommender", "metric", "exact"], columns="method",
                            values="cell", aggfunc="first", sort=False).reset_index()
    wide["exact"] = [f"{100 * v:.2f}" for v in wide.exact]
    note = (f"Values in %, mean ± std over {int(summary.repeats.max())} repeats (relative "
            f"error of the mean vs exact). Adaptive sizes {list(map(int, sizes))}; the "
            f"fixed-size methods use m = the adaptive budget ({summary.items_per_user.mean():.0f}"
            f" items per user on average).")
    write_validation(out_stem, per_repeat, summary, wide, note)
    return summary


def equal_budget_summary(per_repeat: pd.DataFrame) -> pd.DataFrame:
    """Per (recommender, metric, method): mean and std (ddof 1) over repeats, exact, relative
    error of the mean, root mean squared error over repeats, items per user."""
    g = per_repeat.groupby(["recommender", "metric", "method"], sort=False)
    out = g.agg(repeats=("value", "size"), mean=("value", "mean"), std=("value", "std"),
                exact=("exact", "first"), items_per_user=("items_per_user", "mean")).reset_index()
    out["relative_error"] = out["mean"] / out.exact - 1
    out["rmse"] = g.apply(lambda d: float(np.sqrt(np.mean((d.value - d.exact) ** 2))),
                          include_groups=False).values
    return out
