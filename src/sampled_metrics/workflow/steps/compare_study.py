"""Validation of ``compare`` on a study whose exact ranks are known (ML-1M, KDD'20 Sec. 6).

For every pair of recommenders, metric and method, over the repeats of the workflow's rank
files: how often the verdict of :func:`sampled_metrics.compare.compare_ranks` is confident and
wrong (against the exact metric on the same users), how often the bootstrap interval alone
(``naive``) is, and Table 4's count (repeats whose difference has the exact sign).
"""
from __future__ import annotations

import logging

import pandas as pd

from ...compare.repeats import agreement_summary, compare_repeats
from ...evaluation.rankfile import read_rank_files
from ..tables import write_validation

__all__ = ["validation", "validation_wide"]

log = logging.getLogger(__name__)


def validation_wide(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per (pair, metric), one column per method: ``wrong / naive wrong / agree``
    counts over the repeats."""
    cells = summary.assign(
        pair=summary.a + " vs " + summary.b,
        cell=[f"{w} / {nw} / {ag}" for w, nw, ag in
              zip(summary.wrong, summary.naive_wrong, summary.agree)])
    wide = cells.pivot_table(index=["pair", "metric"], columns="method", values="cell",
                             aggfunc="first", sort=False)
    return wide.reset_index()[["pair", "metric", *dict.fromkeys(summary.method)]]


def validation(rank_paths: dict, m: int, metrics, methods, out_stem, *, seed: int = 0,
               repeats=None, **options) -> pd.DataFrame:
    """Write ``<out_stem>_per_repeat.csv``, ``<out_stem>.csv`` (the summary of
    :func:`sampled_metrics.compare.agreement_summary`) and ``<out_stem>.md`` (wrong / naive
    wrong / agree per pair, metric and method). ``options`` go to ``compare_ranks``."""
    files = read_rank_files(rank_paths)
    frame = compare_repeats(files, m, metrics, methods, seed=seed, repeats=repeats, **options)
    summary = agreement_summary(frame)
    runs = int(summary.repeats.max())
    note = (f"Cells: confidently wrong verdicts / confidently wrong bootstrap intervals "
            f"(ignoring the bias) / repeats whose difference has the exact sign, out of {runs} "
            f"repeats (m = {m}).")
    write_validation(out_stem, frame, summary, validation_wide(summary), note)
    log.info("compare validation: %d rows, largest wrong rate %.3f", len(summary),
             summary.wrong_rate.max())
    return summary
