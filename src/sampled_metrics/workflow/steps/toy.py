"""The running example of KDD'20 (Sec. 3.2, 4.2-4.5, 5.4): Tables 1-2 and Figures 1-4, one
function per artefact (the numbers come from :mod:`sampled_metrics.workflow.toy`)."""
from __future__ import annotations

import pandas as pd

from .. import figures, toy
from ..paper import KDD_TABLE1, KDD_TABLE2
from ..tables import write_csv, write_table

__all__ = ["table1", "table2", "figure"]


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


def figure(number: int, out_stem, data_csv=None, n: int = toy.TOY_N, **kwargs) -> pd.DataFrame:
    """Compute KDD'20 Figure ``number`` (1-4) with :mod:`sampled_metrics.workflow.toy`, draw it to
    ``out_stem``.{pdf,png}; optionally save its data. ``kwargs`` are the figure's options
    (``zoom``; ``points``, ``sampling``; ``m_values``, ``top``; ``metric``, ``m``, ...)."""
    if number not in (1, 2, 3, 4):
        raise ValueError(f"toy figures are 1-4, got {number}")
    if number == 1:
        zoom = kwargs.pop("zoom", 100)
        data = toy.figure1_frame(n=n, **kwargs)
        figures.figure1(data, out_stem, n, zoom)
    elif number == 2:
        data = toy.figure2_frame(n=n, **kwargs)
        exact = toy.table1(**{k: v for k, v in kwargs.items() if k in ("ranks", "metrics")},
                           n=n)
        figures.figure2(data, exact, out_stem, n)
    elif number == 3:
        data = toy.figure3_frame(n=n, **kwargs)
        figures.figure3(data, out_stem, n, kwargs.get("top", 1000))
    else:
        data = toy.figure4_frame(n=n, **kwargs)
        figures.figure4(data, out_stem, kwargs.get("metric", "ap"), n, kwargs.get("m", 100))
    if data_csv:
        write_csv(data, data_csv)
    return data
