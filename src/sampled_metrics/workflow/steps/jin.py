"""Jin et al. (AAAI'21) on our rank files: metric@K read off an estimated rank distribution
P^(r) (estimators MLE, weighted MLE, MES, BV-derived) beside the KDD'20 corrections, their
Tables 2 and 4 and Figures 2-3.

For every recommender and repeat the sampled ranks r~_u give the histogram P~(r~); each
estimator turns it into P^(r), r = 1..n with n = |I| (one mixture for all users, as Jin et
al. eq. 18), and metric@K = sum_r P^(r) M(r) (eq. 14). The corrections beside them are read
from the per-repeat values of :func:`sampled_metrics.workflow.steps.kdd_study.correct_repeats`,
computed once per (dataset, m) for both papers' tables.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...atomic import atomic_output
from ...corrections.vectors import correction_label
from ...estimators.dispatch import estimate_batches
from ...estimators.histogram import sampled_rank_histogram
from ...evaluation.rankfile import read_rank_file
from ...logs import progress
from ...metrics import parse_metric
from ..tables import percent, write_csv, write_table
from .kdd_study import PER_REPEAT_COLUMNS, select, table3_frame

__all__ = ["estimator_label", "estimates_per_repeat", "table2_frame", "winners_frame",
           "estimate_repeats", "tables"]


def estimator_label(estimator: str) -> str:
    """The ``method`` of an estimator's values: its name, except ``dist_bv_<gamma>`` for the
    P(R) of eq. 15, to tell it from the KDD'20 correction ``bv_<gamma>``."""
    return f"dist_{estimator}" if estimator.startswith("bv_") else estimator


def estimates_per_repeat(dataset: str, recommender: str, rank_file, m: int, metrics,
                         estimators, *, options: dict | None = None,
                         processes: int = 1) -> tuple[pd.DataFrame, dict]:
    """Per-repeat estimates of each metric from each estimator's P^ for one recommender.

    Parameters
    ----------
    rank_file : RankFile with sampled ranks at m
    metrics : metric names (e.g. recall@K, ndcg@K, ap@K for several K)
    estimators : ``mle``, ``wmle``, ``mes``, ``bv_<gamma>``
    options : {estimator: options} (e.g. ``{'mes': {'eta': 0.001}}``; defaults otherwise)
    processes : int
        Worker processes over repeats (results do not depend on it).

    Returns
    -------
    per_repeat : tidy frame ``dataset, recommender, metric, method, repeat, value``
    mean_pmf : {label: mean over repeats of P^, plus 'exact': the empirical P(R)}
    """
    metrics = [parse_metric(x).name for x in metrics]
    sampled, n = rank_file.sampled_ranks(m), rank_file.n_items
    repeats = np.arange(sampled.shape[0])
    weights = np.stack([parse_metric(x).weights(n) for x in metrics])      # K x n
    exact = np.floor(np.asarray(rank_file.exact)).astype(np.int64)
    mean_pmf = {"exact": np.bincount(exact - 1, minlength=n)[:n] / exact.size}
    hists = [sampled_rank_histogram(s, m) for s in sampled]
    parts = []
    with progress(f"estimators {dataset}/{recommender}", total=len(estimators)) as bar:
        for estimator in estimators:
            bar.advance(0, f"{estimator} over {repeats.size} repeats")
            label = estimator_label(estimator)
            pmfs = estimate_batches(hists, n, m, estimator, rank_file.sampling,
                                    processes=processes,
                                    **((options or {}).get(estimator) or {}))
            values = weights @ pmfs.T                                      # K x repeats
            mean_pmf[label] = pmfs.mean(axis=0)
            parts += [pd.DataFrame({"dataset": dataset, "recommender": recommender,
                                    "metric": metric, "method": label, "repeat": repeats,
                                    "value": values[k]}) for k, metric in enumerate(metrics)]
            bar.advance(detail=f"{estimator} done")
    return pd.concat(parts, ignore_index=True)[PER_REPEAT_COLUMNS], mean_pmf


def _method_order(method: str) -> int:
    order = ["exact", "sampled", "rank_estimate", "cls", "bv", "mle", "wmle", "mes", "dist"]
    return next((i for i, key in enumerate(order) if method.startswith(key)), len(order))


def table2_frame(per_repeat: pd.DataFrame) -> pd.DataFrame:
    """Jin et al. Table 2: mean and std (ddof = 1) over repeats of each value
    (``dataset, recommender, metric, method, mean, std``; std 0 for exact), methods in the
    paper's order (exact, CLS, BV, MLE, WMLE, MES, then BV-derived P(R))."""
    out = table3_frame(per_repeat)                     # the same summary as KDD'20 Table 3
    recs = {r: i for i, r in enumerate(dict.fromkeys(per_repeat.recommender))}
    mets = {x: i for i, x in enumerate(dict.fromkeys(per_repeat.metric))}
    out = out.assign(_a=out.recommender.map(recs), _b=out.metric.map(mets),
                     _r=out.method.map(_method_order))
    return (out.sort_values(["dataset", "_a", "_b", "_r"], kind="stable")
            .drop(columns=["_r", "_a", "_b"]).reset_index(drop=True))


def winners_frame(per_repeat: pd.DataFrame) -> pd.DataFrame:
    """Jin et al. Table 4: in how many repeats each method picks the same best recommender
    (largest metric) as the exact metric (``dataset, metric, method, correct, repeats``).
    A tie for the best counts as wrong."""
    rows = []
    for (dataset, metric), grp in per_repeat.groupby(["dataset", "metric"], sort=False):
        wide = grp.pivot_table(index=["method", "repeat"], columns="recommender",
                               values="value")
        best = wide.loc["exact"].iloc[0].idxmax()
        for method in sorted(dict.fromkeys(grp.method), key=_method_order):
            if method == "exact":
                continue
            vals = wide.loc[method]
            unique = vals.eq(vals.max(axis=1), axis=0).sum(axis=1) == 1
            correct = int(((vals.idxmax(axis=1) == best) & unique).sum())
            rows.append((dataset, metric, method, correct, len(vals)))
    return pd.DataFrame(rows, columns=["dataset", "metric", "method", "correct", "repeats"])


# ----------------------------------------------------------------------------- artefacts

def estimate_repeats(dataset: str, recommender: str, rank_path, m: int, *, metrics,
                     estimators, out_csv, out_npz, options: dict | None = None,
                     processes: int = 1) -> None:
    """Per-repeat estimates (tidy CSV) and the mean estimated P(R) of each estimator (npz,
    with the exact empirical distribution under ``exact``) of one recommender at m."""
    per_repeat, pmfs = estimates_per_repeat(dataset, recommender, read_rank_file(rank_path),
                                            int(m), metrics, estimators, options=options,
                                            processes=processes)
    write_csv(per_repeat, out_csv)
    with atomic_output(out_npz, ".npz") as tmp:
        np.savez(tmp, m=np.array(int(m)), **pmfs)


def tables(dataset: str, corrections_csv, estimate_csvs, recommenders, metrics,
           table2_metrics, corrections, outputs: dict) -> None:
    """Jin et al. Table 2 (``table2_metrics`` only) and Table 4 (every metric) from the
    per-repeat corrections of the dataset at their m and the recommenders' estimates.
    ``outputs`` keys: table2, table2_md, table2_tex, table4, table4_md, table4_tex."""
    recommenders = list(recommenders)
    kdd = select(pd.read_csv(corrections_csv), recommenders, metrics,
                 ["exact", *(correction_label(c) for c in corrections)])
    per_repeat = pd.concat([kdd, *(pd.read_csv(p) for p in estimate_csvs)],
                           ignore_index=True)
    per_repeat = per_repeat[per_repeat.recommender.isin(recommenders)]
    t2 = table2_frame(per_repeat)
    keep = [parse_metric(x).name for x in table2_metrics]
    t2 = t2[t2.metric.isin(keep)].reset_index(drop=True)
    cells = pd.DataFrame({(r, mt): {e: percent(a, b) for e, a, b in zip(g.method, g["mean"],
                                                                       g["std"])}
                          for (r, mt), g in t2.groupby(["recommender", "metric"], sort=False)}).T
    cells = cells.reset_index().rename(columns={"level_0": "recommender", "level_1": "metric"})
    write_table(t2, outputs["table2"], cells, outputs.get("table2_md"), outputs.get("table2_tex"),
                html_path=outputs.get("table2_html"), title=f"Jin et al. Table 2 ({dataset}): estimated metric@K, mean ± std over "
                      f"repeats, in %")
    t4 = winners_frame(per_repeat)
    wide4 = t4.pivot_table(index="metric", columns="method", values="correct",
                           sort=False).reset_index()
    write_table(t4, outputs["table4"], wide4, outputs.get("table4_md"), outputs.get("table4_tex"),
                float_format="{:.0f}", html_path=outputs.get("table4_html"),
                title=f"Jin et al. Table 4 ({dataset}): repeats (of {int(t4.repeats.max())}) in "
                      f"which each method picks the exact best recommender")


