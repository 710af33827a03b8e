"""What correcting under the wrong law costs: for recommenders whose exact ranks are known,
each evaluator's sampled evaluation is simulated (its pool, draws, self-draws, duplicates and
ties; :mod:`sampled_metrics.evaluators.simulate`) and corrected twice:

- ``own``: its scores through :func:`~sampled_metrics.evaluators.scores.from_scores`, then
  corrected under its law (``correct --evaluator``);
- ``generic``: the rank it prints written in the long format as a user would by hand
  (position, N_u = pool - 1, M_u = its m), corrected under the generic binomial law.

Each gives the recommended interval and CLS; the exact value is the users' full-ranking
metric.
"""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ...evaluation.rankfile import read_rank_file
from ...evaluators import EVALUATORS, from_scores, reported_ranks, simulate_candidates
from ...intervals import correct_positions
from ...metrics import parse_metric
from ...parallel import map_items
from ...seeds import generator
from ..tables import write_validation

__all__ = ["METRICS", "cost_frame", "cost_summary", "cost_validation"]

log = logging.getLogger(__name__)

METRICS = ("recall@10", "ndcg@10")
CORRECTIONS = ("recommended", "cls")
COLUMNS = ["recommender", "evaluator", "repeat", "metric", "law", "correction", "value",
           "low", "high", "exact"]


def _job(job, metrics):
    path, recommender, name, repeat, seed = job
    rank_file = read_rank_file(path)
    x = np.floor(rank_file.exact).astype(np.int64) - 1
    N = rank_file.n_u.astype(np.int64) - 1
    rng = generator(seed, "evaluator-cost", name, recommender, repeat)
    scores, items = simulate_candidates(name, x, N, rng)
    printed = reported_ranks(name, scores, items, rng)
    own = from_scores(scores, N, evaluator=name, items=items)
    generic = pd.DataFrame({"user": own.user, "position": printed, "n_nonrelevant": N,
                            "n_negatives": scores.shape[1] - 1})
    exact = {m: float(parse_metric(m).mean(x + 1, N + 1)) for m in metrics}
    rows = []
    for law, table in (("own", correct_positions(own, list(metrics), list(CORRECTIONS),
                                                 evaluator=name, bootstrap=0)),
                       ("generic", correct_positions(generic, list(metrics), list(CORRECTIONS),
                                                     sampling="binomial", bootstrap=0))):
        for row in table.itertuples():
            rows.append((recommender, name, repeat, row.metric, law, row.correction,
                         row.value, row.ci_low, row.ci_high, exact[row.metric]))
    log.info("%s %s repeat %d", recommender, name, repeat)
    return rows


def cost_frame(rank_files: dict, *, evaluators=None, repeats=range(20), metrics=METRICS,
               seed: int = 0, processes: int = 1) -> pd.DataFrame:
    """One row per (recommender, evaluator, repeat, metric, law, correction) (``COLUMNS``);
    ``rank_files``: {recommender: path}; default every evaluator with a correction."""
    names = [n for n, e in EVALUATORS.items() if e.sampling is not None] \
        if evaluators is None else list(evaluators)
    jobs = [(path, rec, name, r, seed) for rec, path in rank_files.items() for name in names
            for r in repeats]
    rows = [row for part in map_items(_job, jobs, metrics, processes=processes)
            for row in part]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["contains"] = (frame["low"] <= frame["exact"]) & (frame["exact"] <= frame["high"])
    return frame


def cost_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (evaluator, recommender, metric, law, correction): the exact value, the mean value
    and its relative error, the mean interval and its coverage (recommended only; ``covers``
    says it in words for the docs)."""
    keys = ["evaluator", "recommender", "metric", "law", "correction"]
    out = frame.groupby(keys, sort=False).agg(
        repeats=("value", "size"), exact=("exact", "first"), value=("value", "mean"),
        low=("low", "mean"), high=("high", "mean"), coverage=("contains", "mean")
    ).reset_index()
    out["error"] = out["value"] / out["exact"] - 1
    out.loc[out.correction != "recommended", "coverage"] = np.nan
    out["covers"] = [f"; covers in {100 * c:.0f} %" if c == c else ""
                     for c in out["coverage"]]
    return out


def cost_validation(rank_files: dict, out_stem, *, repeats=range(20), processes: int = 1
                    ) -> pd.DataFrame:
    """Write ``<out_stem>_per_repeat.csv``, ``<out_stem>.csv`` and ``.md``; returns the
    summary."""
    frame = cost_frame(rank_files, repeats=repeats, processes=processes)
    summary = cost_summary(frame)
    shown = summary.assign(coverage=(100 * summary["coverage"]).round(1),
                           error=(100 * summary["error"]).round(1)).round(4)
    write_validation(out_stem, frame, summary, shown,
                     f"{frame['repeat'].nunique()} repeats, nominal level 95 %")
    return summary
