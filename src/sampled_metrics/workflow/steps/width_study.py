"""Width against m: the recommended interval's expected width for the ML-1M study's models,
the planning of ``plan --width`` on rank files whose exact ranks are known.

For each rank file (exact ranks of U users among their n_u items) and each m of a grid, the
width of the recommended interval on the expected sampled ranks of U users
(:func:`~sampled_metrics.intervals.width.expected_width`), with one n for all users, the
median n_u (the largest would overstate the width: a user with fewer candidates ranks its
item among fewer, and its sampled rank says more about its full rank), and P the empirical
law of the exact ranks (floored where tied; a rank beyond the median n_u counts at it),
under the non-increasing and the convex shape. Where the file holds sampled evaluations at that m,
the median width of the recommended interval over its first ``repeats`` (each user's own
n_u) stands beside, as a check of the expected width.
"""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ...evaluation.rankfile import read_rank_file
from ...intervals import recommended_interval
from ...intervals.width import expected_width

__all__ = ["SHAPES", "width_frame"]

log = logging.getLogger(__name__)

#: the shapes whose widths are compared
SHAPES = ("non-increasing", "convex")


def width_frame(rank_files: dict, ms, metrics, repeats: int = 5) -> pd.DataFrame:
    """One row per (recommender, m, metric, shape): ``expected`` width, and ``drawn``, the
    median width on the file's own sampled ranks at that m over its first ``repeats``
    (NaN where it has none)."""
    rows = []
    for name, path in rank_files.items():
        rf = read_rank_file(path)
        n = int(np.median(rf.n_u))
        exact = np.minimum(np.floor(rf.exact).astype(np.int64), n)
        prior = np.bincount(exact - 1, minlength=n) / exact.size
        for m in ms:
            for shape in SHAPES:
                log.info("%s m=%d %s", name, m, shape)
                widths = expected_width(prior, n, m, exact.size, metrics, rf.sampling,
                                        shape=shape)
                drawn = dict.fromkeys(widths, np.nan)
                if m in rf.sampled:
                    outs = [recommended_interval(s, rf.n_u, m, list(widths), rf.sampling,
                                                 shape=shape)
                            for s in rf.sampled[m][:repeats]]
                    drawn = dict(zip(outs[0]["metric"], np.median(
                        [out["ci_high"] - out["ci_low"] for out in outs], axis=0)))
                rows += [(name, m, metric, shape, widths[metric], drawn[metric])
                         for metric in widths]
    return pd.DataFrame(rows, columns=["recommender", "m", "metric", "shape", "expected",
                                       "drawn"])
