"""The experiments of Jin et al. (AAAI'21) on our ranks: metric@K estimated from an estimated
rank distribution P^(r) (MLE, weighted MLE, MES, BV-derived) beside the KDD'20 corrections
(CLS, BV), their Tables 2 and 4 and Figures 2-3.

For every recommender and repeat the sampled ranks r~_u (u = 1..users) give the histogram
P~(r~); each P(R) estimator turns it into P^(r), r = 1..n with n = |I| (one mixture for all
users, as Jin et al. eq. 18), and metric@K = sum_r P^(r) M(r) (eq. 14). The KDD'20
corrections beside them use the n of the study (``n_mode``: per-user n_u or |I|), as in
Table 3 (computed by :func:`sampled_metrics.study.table3_frame`).
"""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from .estimators import estimate_from_histogram, sampled_rank_histogram
from .metrics import parse_metric
from .study import exact_metric

__all__ = ["estimate_distribution", "jin_estimates",
           "jin_table2_frame", "jin_winners_frame"]

log = logging.getLogger(__name__)

def estimate_distribution(name: str, hist, n: int, m: int, sampling: str,
                          options: dict | None = None) -> np.ndarray:
    """P^ for one histogram: ``mle``, ``wmle``, ``mes`` or ``bv_<gamma>`` (eq. 15), with the
    options of :func:`sampled_metrics.estimators.estimate_from_histogram` (validated)."""
    return estimate_from_histogram(hist, n, m, name, sampling, **(options or {}))


def _estimate_chunk(name, hists, n, m, sampling, options) -> np.ndarray:
    return np.stack([estimate_distribution(name, h, n, m, sampling, options) for h in hists])


def _estimate_all(name, hists, n, m, sampling, options, processes: int) -> np.ndarray:
    """P^ for every histogram (rows), spread over ``processes`` worker processes; the
    result does not depend on ``processes`` (each estimate is deterministic)."""
    if processes <= 1 or len(hists) < 2:
        return _estimate_chunk(name, hists, n, m, sampling, options)
    from concurrent.futures import ProcessPoolExecutor
    parts = [hists[i::processes] for i in range(processes)]
    with ProcessPoolExecutor(processes) as pool:
        done = list(pool.map(_estimate_chunk, [name] * processes, parts, [n] * processes,
                             [m] * processes, [sampling] * processes, [options] * processes))
    out = np.empty((len(hists), n))
    for i, part in enumerate(done):
        out[i::processes] = part
    return out


def jin_estimates(dataset: str, recommender: str, arrays: dict, metrics, distributions, *,
                  sampling: str, options: dict | None = None,
                  processes: int = 1) -> tuple[pd.DataFrame, dict]:
    """Per-repeat P(R)-based estimates of each metric for one recommender (the KDD'20
    corrections of the same table come from :func:`sampled_metrics.study.table3_frame`).

    Parameters
    ----------
    arrays : mapping with ``exact``, ``n_u``, ``sampled`` (repeats x users), ``m``, ``n_items``
    metrics : metric names (e.g. recall@K, ndcg@K, ap@K for several K)
    distributions : P(R) estimators (``mle``, ``wmle``, ``mes``, ``bv_0.1`` ...)
    options : {estimator: options} (e.g. ``{'mes': {'eta': 0.001}}``; defaults otherwise)

    Returns
    -------
    per_repeat : tidy frame ``dataset, recommender, metric, estimator, repeat, value``
        (estimator ``exact`` repeats the exact value in every repeat; the P(R) of eq. 15 is
        labelled ``dist_bv_<gamma>`` to tell it from the KDD'20 correction ``bv_<gamma>``)
    mean_pmf : {estimator: mean over repeats of P^, plus 'exact': the empirical P(R)}
    """
    metrics = [parse_metric(x).name for x in metrics]
    sampled, n_u, m, n = arrays["sampled"], arrays["n_u"], arrays["m"], arrays["n_items"]
    repeats = sampled.shape[0]
    weights = np.stack([parse_metric(x).weights(n) for x in metrics])      # K x n
    rows = []

    def add(estimator, values):                                            # values: K x R
        for k, metric in enumerate(metrics):
            rows.append(pd.DataFrame({"dataset": dataset, "recommender": recommender,
                                      "metric": metric, "estimator": estimator,
                                      "repeat": np.arange(repeats), "value": values[k]}))

    add("exact", np.array([[exact_metric(x, arrays["exact"], n_u)] * repeats for x in metrics]))
    ranks = np.floor(np.asarray(arrays["exact"])).astype(np.int64)
    mean_pmf = {"exact": np.bincount(ranks - 1, minlength=n)[:n] / ranks.size}
    hists = [sampled_rank_histogram(sampled[j], m) for j in range(repeats)]
    for name in distributions:
        opts = (options or {}).get(name)
        pmfs = _estimate_all(name, hists, n, m, sampling, opts, processes)    # repeats x n
        values = weights @ pmfs.T
        mean_pmf[name] = pmfs.mean(axis=0)
        # 'bv_<gamma>' here is eq. 15's P(R); the per-user KDD'20 correction keeps that name
        add(f"dist_{name}" if name.startswith("bv_") else name, values)
        log.info("%s/%s: %s over %d repeats done", dataset, recommender, name, repeats)
    return pd.concat(rows, ignore_index=True), mean_pmf


def _estimator_order(name: str) -> int:
    order = ["exact", "sampled", "rank_estimate", "cls", "bv", "mle", "wmle", "mes", "dist"]
    return next((i for i, key in enumerate(order) if name.startswith(key)), len(order))


def jin_table2_frame(per_repeat: pd.DataFrame) -> pd.DataFrame:
    """Jin et al. Table 2: mean and std (ddof = 1) over repeats of each estimate
    (``dataset, recommender, metric, estimator, mean, std``; std 0 for exact), estimators in
    the paper's order (exact, CLS, BV, MLE, WMLE, MES, then BV-derived P(R))."""
    grouped = per_repeat.groupby(["dataset", "recommender", "metric", "estimator"], sort=False)
    out = grouped["value"].agg(["mean", "std"]).reset_index()
    out.loc[out.estimator == "exact", "std"] = 0.0
    rank = out.estimator.map(_estimator_order)
    out = out.assign(_r=rank).sort_values(["_r"], kind="stable")
    recs = {r: i for i, r in enumerate(dict.fromkeys(per_repeat.recommender))}
    mets = {x: i for i, x in enumerate(dict.fromkeys(per_repeat.metric))}
    out = out.assign(_a=out.recommender.map(recs), _b=out.metric.map(mets))
    return (out.sort_values(["dataset", "_a", "_b", "_r"], kind="stable")
            .drop(columns=["_r", "_a", "_b"]).reset_index(drop=True))


def jin_winners_frame(per_repeat: pd.DataFrame) -> pd.DataFrame:
    """Jin et al. Table 4: in how many repeats each estimator picks the same best
    recommender (largest metric) as the exact metric (``dataset, metric, estimator,
    correct, repeats``). A tie for the best counts as wrong."""
    rows = []
    for (dataset, metric), grp in per_repeat.groupby(["dataset", "metric"], sort=False):
        wide = grp.pivot_table(index=["estimator", "repeat"], columns="recommender",
                               values="value")
        exact = wide.loc["exact"].iloc[0]
        best = exact.idxmax()
        for estimator in sorted(dict.fromkeys(grp.estimator), key=_estimator_order):
            if estimator == "exact":
                continue
            vals = wide.loc[estimator]
            top = vals.max(axis=1)
            unique = (vals.eq(top, axis=0).sum(axis=1) == 1)
            correct = int(((vals.idxmax(axis=1) == best) & unique).sum())
            rows.append((dataset, metric, estimator, correct, len(vals)))
    return pd.DataFrame(rows, columns=["dataset", "metric", "estimator", "correct", "repeats"])
