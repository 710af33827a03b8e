"""The recommended interval on recommenders whose exact ranks are known: for every rank file
(one recommender of the workflow), sample size m and repeat, does the interval from the
repeat's sampled ranks contain the users' exact metric?

Each user's own n_u (its candidates) and the file's sampling law are those of the evaluation
that drew the ranks, so this is the interval a user of ``sampled-metrics correct`` gets from
that evaluation's long format. Averaged ties in the exact ranks (tie policy ``average``) are
read as their mean metric, like the study's exact column.
"""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ...evaluation.rankfile import read_rank_file
from ...intervals import recommended_interval
from ...metrics import parse_metric
from ...parallel import map_items
from ..tables import write_validation

__all__ = ["METRICS", "model_frame", "model_summary", "validation"]

log = logging.getLogger(__name__)

METRICS = ("recall@10", "ndcg@10", "ap")
COLUMNS = ["dataset", "recommender", "m", "repeat", "metric", "value", "low", "high",
           "exact", "contains", "width"]


def _sample_size(rank_file, sizes) -> int:
    """The first of ``sizes`` the rank file holds."""
    held = [m for m in sizes if m in rank_file.m_values]
    if not held:
        raise ValueError(f"{rank_file.dataset}/{rank_file.recommender}: no sampled ranks for "
                         f"m in {list(sizes)}; the file has m in {rank_file.m_values}")
    return held[0]


def _repeat(job, metrics):
    path, dataset, sizes, repeat = job
    rank_file = read_rank_file(path)
    m = _sample_size(rank_file, sizes)
    s = rank_file.sampled_ranks(m, repeat)
    frame = recommended_interval(s, rank_file.n_u, m, list(metrics), rank_file.sampling)
    rows = []
    for row in frame.itertuples():
        weights = parse_metric(row.metric)
        exact = float(weights(rank_file.exact, rank_file.n_u).mean())
        rows.append((dataset, rank_file.recommender, m, repeat, row.metric, row.value,
                     row.ci_low, row.ci_high, exact))
    log.info("%s %s m=%d repeat %d", dataset, rank_file.recommender, m, repeat)
    return rows


def model_frame(rank_files: dict, sizes, *, repeats=range(100), metrics=METRICS,
                processes: int = 1) -> pd.DataFrame:
    """One row per (dataset, recommender, repeat, metric) (columns ``COLUMNS``);
    ``rank_files``: {(dataset, recommender): path of its rank file}; each file at the first
    sample size of ``sizes`` it holds."""
    jobs = [(path, dataset, tuple(sizes), repeat) for (dataset, _), path in rank_files.items()
            for repeat in repeats]
    rows = [row for part in map_items(_repeat, jobs, metrics, processes=processes)
            for row in part]
    frame = pd.DataFrame(rows, columns=COLUMNS[:-2])
    frame["contains"] = (frame["low"] <= frame["exact"]) & (frame["exact"] <= frame["high"])
    frame["width"] = frame["high"] - frame["low"]
    return frame


def model_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, recommender, metric): repeats, coverage, the exact value, the mean value
    and interval, and the median width."""
    return frame.groupby(["dataset", "recommender", "m", "metric"], sort=False).agg(
        repeats=("contains", "size"), coverage=("contains", "mean"), exact=("exact", "first"),
        value=("value", "mean"), low=("low", "mean"), high=("high", "mean"),
        median_width=("width", "median")).reset_index()


def validation(rank_files: dict, sizes, out_stem, *, repeats=range(100),
               processes: int = 1) -> pd.DataFrame:
    """Write ``<out_stem>_per_repeat.csv``, ``<out_stem>.csv`` and ``.md``; returns the
    summary."""
    frame = model_frame(rank_files, sizes, repeats=repeats, processes=processes)
    summary = model_summary(frame)
    shown = summary.assign(coverage=(100 * summary["coverage"]).round(1)).round(4)
    write_validation(out_stem, frame, summary, shown,
                     f"{frame['repeat'].nunique()} repeats, nominal level 95 %")
    return summary
