"""The running example of KDD'20 (Sec. 3.2, 4.2-4.5, 5.4): Tables 1-2 and Figures 1-4, one
function per table (the numbers come from :mod:`sampled_metrics.workflow.toy`; the figures
are :func:`sampled_metrics.workflow.steps.plots.toy_figure`)."""
from __future__ import annotations

import pandas as pd

from .. import toy
from ..paper import KDD_TABLE1, KDD_TABLE2
from ..tables import write_csv, write_table

__all__ = ["table1", "table2"]


def table1(csv, md=None, tex=None, n: int = toy.TOY_N, html=None) -> pd.DataFrame:
    """KDD'20 Table 1 (exact metrics of A, B, C) as tidy CSV + wide md/tex with paper values."""
    tidy = toy.table1(n=n)
    wide = tidy.copy()
    wide["paper"] = [KDD_TABLE1[r][mt] for r, mt in zip(wide.recommender, wide.metric)]
    wide = wide.rename(columns={"value": "ours"})
    write_table(tidy, csv, wide, md, tex, "{:.3f}", html_path=html,
                title=f"Table 1: exact metrics of the running example (n = {n:,})")
    return tidy


def table2(csv, md=None, tex=None, m: int = 99, repeats: int = 1000, seed: int = 0,
               sampling: str = "binomial", html=None) -> pd.DataFrame:
    """KDD'20 Table 2 (sampled metrics, mean +- std over repeats, and the analytic
    expectation) as tidy CSV + wide md/tex with the paper's mean +- std."""
    tidy = toy.table2(m=m, repeats=repeats, seed=seed, sampling=sampling)
    wide = pd.DataFrame({
        "recommender": tidy.recommender, "metric": tidy.metric,
        "ours (mean ± std)": [f"{a:.3f} ± {b:.3f}" for a, b in zip(tidy["mean"], tidy["std"])],
        "expected E[M(r~)]": tidy.expected,
        "paper (mean ± std)": ["{:.3f} ± {:.3f}".format(*KDD_TABLE2[r][mt])
                               for r, mt in zip(tidy.recommender, tidy.metric)]})
    write_table(tidy, csv, wide, md, tex, "{:.3f}", html_path=html,
                title=f"Table 2: sampled metrics, m = {m}, {repeats} repetitions, {sampling}")
    return tidy


