"""Validation of ``compare`` on a study whose exact ranks are known (ML-1M, KDD'20 Sec. 6).

For every pair of recommenders, metric and method, over the repeats of the workflow's rank
files: how often the verdict of :func:`sampled_metrics.compare.compare_ranks` is confident and
wrong (against the exact metric on the same users), how often the bootstrap interval alone
(``naive``) is, and Table 4's count (repeats whose difference has the exact sign). For the
results table of k recommenders (:func:`table_validation`): how often any of a repeat's
verdicts is confidently wrong (the family-wise claim) and how many exact orders are found.
"""
from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from ...compare.repeats import (agreement_summary, compare_repeats, familywise_summary,
                                table_repeats)
from ...evaluation.rankfile import read_rank_files
from ..tables import write_csv, write_validation

__all__ = ["validation", "validation_wide", "table_validation"]

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


def table_validation(rank_paths: dict, m: int, metrics, variants, out_stem, *, seed: int = 0,
                     repeats=None, **options) -> pd.DataFrame:
    """Write ``<out_stem>_per_repeat.csv`` (every repeat's pairs,
    :func:`~sampled_metrics.compare.repeats.table_repeats`), ``<out_stem>.csv`` (the summary
    of :func:`~sampled_metrics.compare.repeats.familywise_summary`), ``<out_stem>.md`` (one
    row per variant), ``<out_stem>_metrics.csv`` (the summary per metric) and
    ``<out_stem>_models.csv`` (per variant, model and metric: how often the headline
    interval holds the exact value). ``options`` go to ``results_table``."""
    files = read_rank_files(rank_paths)
    pairs, models = table_repeats(files, m, metrics, variants, seed=seed, repeats=repeats,
                                  **options)
    summary = familywise_summary(pairs)
    runs = int(summary.repeats.max())
    coverage = models.groupby(["method", "familywise", "model", "metric", "correction"],
                              sort=False).agg(repeats=("repeat", "size"),
                                              covers_exact=("covers_exact", "sum"),
                                              exact=("exact", "first"),
                                              mean_value=("value", "mean")).reset_index()
    write_csv(coverage, Path(str(out_stem) + "_models.csv"))
    by_metric = pd.concat([familywise_summary(part).assign(metric=metric)
                           for metric, part in pairs.groupby("metric", sort=False)],
                          ignore_index=True)
    write_csv(by_metric, Path(str(out_stem) + "_metrics.csv"))
    shown = pd.DataFrame({
        "verdicts": summary.method, "family-wise control": summary.familywise,
        "repeats with a confidently wrong verdict": [
            f"{w} of {r}" for w, r in zip(summary.familywise_wrong, summary.repeats)],
        "confidently wrong verdicts": [
            f"{w} of {c * r:,}" for w, c, r in zip(summary.wrong, summary.comparisons,
                                                   summary.repeats)],
        "power": [f"{100 * p:.1f} %" for p in summary.power]})
    note = (f"{len(files)} recommenders, {int(summary.comparisons.iloc[0])} comparisons (pairs "
            f"x metrics) per repeat, {runs} repeats at m = {m}; power: the share of the "
            f"comparisons whose exact difference is not 0 that a verdict gets right and "
            f"confident.")
    write_validation(out_stem, pairs, summary, shown, note)
    log.info("table validation: %s", ", ".join(
        f"{a}/{b} {w}/{r} wrong, power {p:.3f}" for a, b, w, r, p in zip(
            summary.method, summary.familywise, summary.familywise_wrong, summary.repeats,
            summary.power)))
    return summary
