"""The figure artefacts of the three studies: each computes its figure's data with the
study's step, saves it, and draws it (:mod:`sampled_metrics.workflow.figures`). Kept apart
from the steps so that the jobs that only compute load no plotting library."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import figures, toy
from ...evaluation.rankfile import read_rank_files
from ...sampling import log_grid
from ..tables import write_csv
from .jin import estimator_label
from .kdd_study import figure6_frame, rank_buckets

__all__ = ["toy_figure", "figure5", "figure6", "jin_figure"]


def toy_figure(number: int, out_stem, data_csv=None, n: int = toy.TOY_N, **kwargs
               ) -> pd.DataFrame:
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


def figure5(dataset: str, rank_paths: dict, edges, out_stem, data_csv,
            facts_csv=None) -> pd.DataFrame:
    """Figure 5: users per bucket of exact rank, one bar group per recommender.

    ``facts_csv`` gets the counts Sec. 6.1 talks about: users with r <= 10, r <= 100,
    r > n_u / 2 (bottom half) and in the worst bucket.
    """
    files = read_rank_files(rank_paths)
    n_max = max(f.n_items for f in files.values())
    edges = [0] + [e for e in edges if 0 < e < n_max] + [n_max]
    frame = rank_buckets(files, edges)
    write_csv(frame, data_csv)
    if facts_csv:
        facts = pd.DataFrame([
            (dataset, rec, int(np.sum(f.exact <= 10)), int(np.sum(f.exact <= 100)),
             int(np.sum(f.exact > f.n_u / 2)), int(np.sum(f.exact > edges[-2])))
            for rec, f in files.items()],
            columns=["dataset", "recommender", "top10", "top100", "bottom_half",
                     "worst_bucket"])
        write_csv(facts, facts_csv)
    figures.figure5(frame, out_stem, title=f"Figure 5: distribution of exact ranks ({dataset})")
    return frame


def figure6(dataset: str, rank_paths: dict, metric: str, points: int, corrections,
            out_stem, data_csv, *, sampling: str, max_m: int | None = None) -> pd.DataFrame:
    """Figure 6: expected metric vs m (analytic, from the exact ranks, n = |I|), at
    ``points`` log-spaced m from 1 to ``max_m`` (default n - 1; a correction at m costs
    O((m+1)^2) memory and O((m+1)^3) time, so large catalogues want a cap)."""
    files = read_rank_files(rank_paths)
    n = max(f.n_items for f in files.values())
    m_values = log_grid(1, min(n - 1, max_m or n - 1), points)
    frame = figure6_frame(files, metric, m_values, corrections, n, sampling)
    write_csv(frame, data_csv)
    figures.figure6(frame, out_stem, title=f"Figure 6: expected {metric} vs sample size "
                                           f"({dataset}, n = {n:,})")
    return frame


def jin_figure(dataset: str, pmf_paths: dict, estimators, out_stem, data_csv, *, top: int,
               title: str) -> pd.DataFrame:
    """Jin et al. Figures 2-3: mean estimated P(R) and its CDF for R <= ``top`` against the
    exact empirical distribution, one column per entry of ``pmf_paths`` (label -> npz)."""
    rows = []
    for label, path in pmf_paths.items():
        with np.load(path) as z:
            for method in ["exact", *(estimator_label(e) for e in estimators)]:
                p = z[method][:top]
                cdf = np.cumsum(z[method])[:top]
                rows.append(pd.DataFrame({"panel": label, "method": method,
                                          "rank": np.arange(1, p.size + 1), "pmf": p,
                                          "cdf": cdf}))
    frame = pd.concat(rows, ignore_index=True)
    write_csv(frame, data_csv)
    figures.rank_distribution_figure(frame, out_stem, title)
    return frame
