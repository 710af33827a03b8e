"""The convex shape, validated: coverage and width of the recommended interval under the
convex and non-increasing P(r), and how often the likelihood-ratio check rejects the shape,
on simulated evaluations whose true ranks are known.

Each cell draws its users as the coverage grid does (:mod:`.interval_study`: the same
shapes, pools and seeds, a cell keyed by its own values) and computes, per metric, three
recommended intervals:

- ``non-increasing``: the default answer (``spread='linear'``), the reference width;
- ``convex``: ``shape='convex'``, the same spread;
- ``convex_joint``: ``shape='convex', spread='joint'``;

and the check's log-likelihood loss and p-value (:mod:`sampled_metrics.intervals.shape_test`;
one per cell). The shapes ``flat``, ``ml1m``, ``sharp``, ``very_sharp`` and ``sequential`` are
convex (a convex density on (0, 1] gives convex P(r) = its integral over ((r - 1)/n, r/n]);
``plateau`` and ``flat_top`` are non-increasing but not convex; ``rising`` and
``rising_head`` are not non-increasing.
"""
from __future__ import annotations

import logging
from unittest import mock

import numpy as np
import pandas as pd

from ...intervals import recommended as rec
from ...parallel import map_items
from ..tables import write_validation
from .interval_study import METRICS, SHAPES, cell_draw, group_summary

__all__ = ["CONVEX", "INTERVALS", "shape_cell", "shape_summary", "shape_validation"]

log = logging.getLogger(__name__)

#: the study's shapes under which P(r) is convex
CONVEX = ("flat", "ml1m", "sharp", "very_sharp", "sequential")
#: the intervals compared: name -> recommended_interval's (shape, spread)
INTERVALS = {"non-increasing": ("non-increasing", "linear"), "convex": ("convex", "linear"),
             "convex_joint": ("convex", "joint")}
COLUMNS = ["shape", "n", "m", "sampling", "pool", "draw", "metric", "interval", "low", "high",
           "truth", "contains", "width", "shape_loss", "shape_p"]


def shape_cell(cell: dict, users: int, seed: int) -> pd.DataFrame:
    """One row per (metric, interval) of one cell (columns ``COLUMNS``)."""
    s, n_u, positives, truth = cell_draw(cell, users, seed)
    m, sampling = cell["m"], cell["sampling"]
    rows, test = [], None
    for name, (shape, spread) in INTERVALS.items():
        if shape == "convex" and test is not None:       # the check runs once per cell
            with mock.patch.object(rec, "shape_test", lambda *args, **kw: test):
                out = rec.recommended_interval(s, n_u, m, list(METRICS), sampling,
                                               shape=shape, spread=spread, **positives)
        else:
            out = rec.recommended_interval(s, n_u, m, list(METRICS), sampling, shape=shape,
                                           spread=spread, **positives)
        if shape == "convex":
            test = (float(out["shape_loss"].iloc[0]), float(out["shape_p"].iloc[0]))
        for row in out.itertuples():
            rows.append({**cell, "metric": row.metric, "interval": name, "low": row.ci_low,
                         "high": row.ci_high, "truth": truth[row.metric]})
    frame = pd.DataFrame(rows)
    frame["contains"] = (frame["low"] <= frame["truth"]) & (frame["truth"] <= frame["high"])
    frame["width"] = frame["high"] - frame["low"]
    frame["shape_loss"], frame["shape_p"] = test
    return frame[COLUMNS]


def _cell(cell, users, seed):
    log.info("cell %s", " ".join(f"{k}={v}" for k, v in cell.items()))
    return shape_cell(cell, users, seed)


def shape_summary(per_cell: pd.DataFrame, reject: float = 0.05) -> pd.DataFrame:
    """Per (group, interval, metric): cells, coverage, median width, the median of each
    cell's width over the non-increasing interval's, the share of cells whose check
    rejects the convex shape (p <= ``reject``), and the cells the check does not flag and
    their coverage (``unflagged``, ``coverage_unflagged``). Groups: ``convex`` (the convex shapes),
    ``not_convex`` (the others), ``convex_<pool>`` (each pool of the convex shapes), then
    each shape."""
    base = per_cell[per_cell["interval"] == "non-increasing"].set_index(
        ["shape", "n", "m", "sampling", "pool", "draw", "metric"])["width"]
    frame = per_cell.join(base.rename("reference"), on=base.index.names)
    frame["ratio"] = frame["width"] / frame["reference"]
    frame["rejected"] = frame["shape_p"] <= reject
    frame["kept"] = frame["contains"].where(~frame["rejected"]).astype(float)
    convex = frame["shape"].isin(CONVEX)
    groups = [("convex", convex), ("not_convex", ~convex)]
    groups += [(f"convex_{pool}", convex & (frame["pool"] == pool))
               for pool in ("common", "per_user", "several")]
    groups += [(shape, frame["shape"] == shape) for shape in SHAPES]
    return group_summary(frame, groups, ["interval", "metric"], cells=("contains", "size"),
                         coverage=("contains", "mean"), median_width=("width", "median"),
                         width_ratio=("ratio", "median"), rejected=("rejected", "mean"),
                         unflagged=("kept", "count"), coverage_unflagged=("kept", "mean"))


def shape_validation(cells, out_stem, *, users: int = 6040, seed: int = 0,
                     processes: int = 1, per_cell: pd.DataFrame | None = None) -> pd.DataFrame:
    """Write ``<out_stem>_per_repeat.csv`` (every cell), ``<out_stem>.csv`` and ``.md`` (the
    summary); returns the summary. ``per_cell``: the cells' rows already computed (the
    summary alone is redone)."""
    if per_cell is None:
        per_cell = pd.concat(map_items(_cell, cells, users, seed, processes=processes),
                             ignore_index=True)
    summary = shape_summary(per_cell)
    shown = summary.assign(coverage=(100 * summary["coverage"]).round(1),
                           median_width=summary["median_width"].round(4),
                           width_ratio=summary["width_ratio"].round(3),
                           rejected=(100 * summary["rejected"]).round(1),
                           coverage_unflagged=(100 * summary["coverage_unflagged"]).round(1))
    write_validation(out_stem, per_cell, summary, shown,
                     f"{len(cells)} cells, {users} users each, nominal level 95 %")
    return summary
