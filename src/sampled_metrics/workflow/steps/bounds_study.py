"""The bounds of :mod:`sampled_metrics.bounds` checked on recommenders whose exact ranks are
known: from each repeat's sampled means alone, do the intervals contain the exact value?

For every rank file (one recommender), repeat, set of observed sampled metrics, shape and
target, the sampled means S_j = mean_u M_j(r~_u) of the repeat are given to
:func:`~sampled_metrics.bounds.bound_full_metrics` at full precision (tolerance 0) with the
noise allowance for the file's U users, and the interval is compared with the exact
mean_u T(r_u). n is the file's number of items, the sampling law the file's own; when every
user's candidates are the whole catalogue (n_u = n) this is exactly the law the bounds assume,
otherwise (n_u < n, held-out item among the user's unseen items) it is the reading a
published number allows, and the check says whether it still holds.

The observed sets grow, each containing the previous one (``OBSERVED_SETS``), so the widths
show what each further published metric is worth. The noise allowance is the same for a
metric in every set: that of the largest set, whose K values share ``level`` (a set of k
values is given the level 1 - (1 - level) k / K, i.e. the same Bonferroni quantile), so the
constraints of a larger set are those of a smaller one and more: its interval is never wider.
"""
from __future__ import annotations

import logging

import pandas as pd

from ...bounds import bound_full_metrics
from ...evaluation.rankfile import read_rank_files
from ...metrics import parse_metric
from ..tables import write_validation

__all__ = ["OBSERVED_SETS", "TARGETS", "SHAPES", "bounds_frame", "widths_frame",
           "validation"]

log = logging.getLogger(__name__)

#: Observed sampled metrics, growing: label -> the metrics (each set holds the previous one).
OBSERVED_SETS = {
    "hr@10": ["recall@10"],
    "+ndcg@10": ["recall@10", "ndcg@10"],
    "+@1,@5": ["recall@10", "ndcg@10", "recall@1", "recall@5", "ndcg@5"],
    "+@20": ["recall@10", "ndcg@10", "recall@1", "recall@5", "ndcg@5", "recall@20",
             "ndcg@20"],
    "+ndcg,mrr": ["recall@10", "ndcg@10", "recall@1", "recall@5", "ndcg@5", "recall@20",
                  "ndcg@20", "ndcg", "mrr"],
}
TARGETS = ("recall@10", "ndcg@10")
SHAPES = (None, "non-increasing")
COLUMNS = ["dataset", "recommender", "repeat", "observed", "shape", "target", "low", "high",
           "exact", "contains", "width"]


def bounds_frame(rank_files: dict, m: int, *, dataset: str = "", observed_sets=None,
                 targets=TARGETS, shapes=SHAPES, repeats=None, level: float = 0.95
                 ) -> pd.DataFrame:
    """One row per (recommender, repeat, observed set, shape, target): the interval, the
    exact value, whether it is contained and the width (columns ``COLUMNS``).

    Parameters
    ----------
    rank_files : dict recommender -> RankFile
    m : int
        Sample size (each file must hold sampled ranks for it).
    observed_sets : dict label -> list of metric names, default ``OBSERVED_SETS``
    targets, shapes : sequences
    repeats : iterable of int, optional
        Repeats to use (default all of the file's).
    level : float
        Simultaneous level of the noise allowance.
    """
    observed_sets = OBSERVED_SETS if observed_sets is None else observed_sets
    names = list(dict.fromkeys(x for metrics in observed_sets.values() for x in metrics))
    rows = []
    for rec, f in rank_files.items():
        exact = {t: parse_metric(t).mean(f.exact, f.n_u) for t in targets}
        all_repeats = range(f.sampled[m].shape[0]) if repeats is None else repeats
        for repeat in all_repeats:
            s = f.sampled_ranks(m, repeat)
            means = {x: float(parse_metric(x)(s, m + 1).mean()) for x in names}
            for label, metrics in observed_sets.items():
                given = {x: means[x] for x in metrics}
                shared = 1.0 - (1.0 - level) * len(metrics) / len(names)
                for shape in shapes:
                    for target, low, high in bound_full_metrics(
                            given, f.n_items, m, list(targets), f.sampling, tolerance=0,
                            shape=shape, users=s.size, level=shared):
                        truth = exact[target]
                        rows.append((dataset, rec, repeat, label, shape or "none", target, low,
                                     high, truth, bool(low <= truth <= high), high - low))
        log.info("bounds of %s: %d repeats", rec, len(all_repeats))
    return pd.DataFrame(rows, columns=COLUMNS)


def widths_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (recommender, observed set, shape, target): repeats, coverage (share of repeats
    whose interval contains the exact value), mean low, high and width, and the exact value."""
    keys = ["dataset", "recommender", "observed", "shape", "target"]
    out = frame.groupby(keys, sort=False).agg(
        repeats=("repeat", "size"), coverage=("contains", "mean"), low=("low", "mean"),
        high=("high", "mean"), width=("width", "mean"), exact=("exact", "first"))
    return out.reset_index()


def validation(rank_paths: dict, m: int, out_stem, *, dataset: str = "", repeats=None,
               level: float = 0.95) -> pd.DataFrame:
    """Write ``<out_stem>_per_repeat.csv`` (:func:`bounds_frame`), ``<out_stem>.csv``
    (:func:`widths_frame`) and ``<out_stem>.md`` (its rendering); return the widths."""
    files = read_rank_files(rank_paths)
    frame = bounds_frame(files, m, dataset=dataset, repeats=repeats, level=level)
    widths = widths_frame(frame)
    shown = widths.assign(interval=[f"[{a:.4f}, {b:.4f}]" for a, b in
                                    zip(widths.low, widths.high)])
    note = (f"Mean interval over {int(widths.repeats.max())} repeats (m = {m}) of each "
            f"recommender's sampled means, its mean width, the exact value and the share of "
            f"repeats whose interval contains it (noise allowance at level {level:g}).")
    write_validation(out_stem, frame, widths, shown[["recommender", "observed", "shape", "target",
                                                     "interval", "width", "exact", "coverage"]],
                     note)
    log.info("bounds validation: %d rows, smallest coverage %.3f", len(frame),
             float(widths.coverage.min()))
    return widths
