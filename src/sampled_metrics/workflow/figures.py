"""Figures of the papers. Each function draws a tidy frame computed elsewhere (the running
example's in :mod:`sampled_metrics.workflow.toy`, the studies' in :mod:`sampled_metrics.workflow.steps`) and saves
``<stem>.pdf`` and ``<stem>.png``; nothing here computes a number."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..atomic import atomic_output  # noqa: E402
from ..metrics import parse_metric  # noqa: E402

__all__ = ["save", "figure1", "figure2", "figure3", "figure4", "figure5", "figure6",
           "rank_distribution_figure", "practice_figure", "results_figure"]

LABELS = {"auc": "AUC", "ap": "Average Precision", "ndcg": "NDCG", "recall@10": "Recall@10",
          "ndcg@10": "NDCG@10", "precision@10": "Precision@10"}
REC_COLORS = {"A": "tab:blue", "B": "tab:orange", "C": "tab:green",
              "X": "tab:blue", "Y": "tab:orange", "Z": "tab:green", "EASE": "tab:red"}


def save(fig, out_stem) -> None:
    """Save ``fig`` as ``out_stem.pdf`` and ``out_stem.png`` (deterministic metadata)."""
    out_stem = Path(out_stem)
    try:
        with atomic_output(out_stem.with_suffix(".pdf"), ".pdf") as tmp:
            fig.savefig(tmp, metadata={"CreationDate": None})
        with atomic_output(out_stem.with_suffix(".png"), ".png") as tmp:
            fig.savefig(tmp, dpi=150, metadata={"Software": None})
    finally:
        plt.close(fig)


def figure1(data: pd.DataFrame, out_stem, n: int, zoom: int = 100) -> None:
    """Metric M(r) vs rank r for n items (``toy.figure1_frame``): full range (left) and top
    ``zoom`` (right)."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, top in zip(axes, (n, zoom)):
        for name, grp in data.groupby("metric", sort=False):
            g = grp[grp["rank"] <= top]
            ax.plot(g["rank"], g["value"], label=LABELS.get(name, name), lw=1.6)
        ax.set_xlabel("rank r of the relevant item")
        ax.set_ylabel("metric value M(r)")
        ax.set_xlim(1, top)
        ax.set_title(f"all {top:,} ranks" if top == n else f"top {top} ranks (zoom)")
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"Figure 1: metric vs predicted rank, n = {n:,}")
    fig.tight_layout()
    save(fig, out_stem)


def figure2(data: pd.DataFrame, exact: pd.DataFrame, out_stem, n: int) -> None:
    """Expected sampled metric of the running example vs number of samples m (log-x;
    ``toy.figure2_frame``), each recommender's exact value (``recommender, metric, value``,
    ``toy.table1``) dotted."""
    metrics = list(dict.fromkeys(data.metric))
    exact = exact.set_index(["recommender", "metric"])["value"]
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.6))
    for ax, name in zip(np.atleast_1d(axes), metrics):
        for rec, grp in data[data.metric == name].groupby("recommender"):
            ax.plot(grp["m"], grp["expected"], label=f"{rec} (sampled)", color=REC_COLORS[rec])
            ax.axhline(exact[rec, name], color=REC_COLORS[rec], ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("number of sampled items m")
        ax.set_ylabel(f"expected sampled {LABELS.get(name, name)}")
        ax.set_title(LABELS.get(name, name))
        ax.grid(alpha=0.3, which="both")
    np.atleast_1d(axes)[0].legend(title="dotted: exact", fontsize=8)
    fig.suptitle(f"Figure 2: expected sampled metrics of A, B, C vs m (n = {n:,})")
    fig.tight_layout()
    save(fig, out_stem)


def figure3(data: pd.DataFrame, out_stem, n: int, top: int) -> None:
    """Expected sampled metric E[M(r~)|r] vs true rank r (top ``top`` of n) for several m
    (``toy.figure3_frame``)."""
    metrics = list(dict.fromkeys(data.metric))
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.6))
    for ax, name in zip(np.atleast_1d(axes), metrics):
        for m, grp in data[data.metric == name].groupby("m", sort=False):
            exact = m == "exact"
            ax.plot(grp["rank"], grp["value"], label="exact" if exact else f"m = {m}",
                    color="black" if exact else None, lw=2 if exact else 1.4,
                    ls="--" if exact else "-", zorder=5 if exact else 2)
        ax.set_xlabel("true rank r")
        ax.set_ylabel(f"E[sampled {LABELS.get(name, name)}]")
        ax.set_title(LABELS.get(name, name))
        ax.set_xlim(1, top)
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].legend(fontsize=8)
    fig.suptitle(f"Figure 3: expected sampled metric vs true rank (top {top:,} of n = {n:,})")
    fig.tight_layout()
    save(fig, out_stem)


def figure4(data: pd.DataFrame, out_stem, metric: str, n: int, m: int) -> None:
    """Corrected metric (``toy.figure4_frame``): M^(r~) on the sample (left) and
    E[M^(r~)|r] vs r (right, log-x)."""
    name = parse_metric(metric).name
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for label, grp in data[data.panel == "correction"].groupby("method", sort=False):
        left.plot(grp["rank"], grp["value"], label=label, lw=1.3)
    left.set_xlabel("sampled rank r~")
    left.set_ylabel(f"corrected metric M^(r~) ({LABELS.get(name, name)})")
    left.set_title(f"correction on the sample (m = {m})")
    left.set_xscale("log")
    left.set_ylim(-0.5, 1.05)
    for label, grp in data[data.panel == "expected"].groupby("method", sort=False):
        exact = label == "exact"
        right.plot(grp["rank"], grp["value"], label=label, color="black" if exact else None,
                   lw=2.2 if exact else 1.3, ls="--" if exact else "-")
    right.set_xscale("log")
    right.set_xlabel("true rank r")
    right.set_ylabel(f"E[M^(r~) | r] ({LABELS.get(name, name)})")
    right.set_title(f"expected corrected metric (n = {n:,})")
    for ax in (left, right):
        ax.grid(alpha=0.3, which="both")
    right.legend(fontsize=8)
    fig.suptitle(f"Figure 4: corrected {LABELS.get(name, name)}, m = {m}, n = {n:,}, "
                 f"uniform prior")
    fig.tight_layout()
    save(fig, out_stem)


def figure5(frame: pd.DataFrame, out_stem, title: str = "Figure 5") -> None:
    """Bar chart of users per exact-rank bucket (tidy ``recommender, bucket, users``)."""
    recs = list(dict.fromkeys(frame.recommender))
    buckets = list(dict.fromkeys(frame.bucket))
    width = 0.8 / len(recs)
    fig, ax = plt.subplots(figsize=(9, 4))
    x = np.arange(len(buckets))
    for j, rec in enumerate(recs):
        counts = frame[frame.recommender == rec].set_index("bucket").loc[buckets, "users"]
        bars = ax.bar(x + (j - (len(recs) - 1) / 2) * width, counts, width, label=rec,
                      color=REC_COLORS.get(rec))
        ax.bar_label(bars, fontsize=7, padding=1)
    ax.set_xticks(x, buckets)
    ax.set_xlabel("exact rank of the held-out item (bucket)")
    ax.set_ylabel("number of users")
    ax.set_title(title)
    ax.legend(title="recommender")
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    save(fig, out_stem)


def figure6(frame: pd.DataFrame, out_stem, title: str = "Figure 6") -> None:
    """Expected (corrected) metric vs sample size m, one line per recommender and correction
    (tidy ``recommender, metric, method, m, expected``)."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    styles = ["-", "--", ":", "-."]
    for e, method in enumerate(dict.fromkeys(frame.method)):
        for rec, grp in frame[frame.method == method].groupby("recommender"):
            ax.plot(grp["m"], grp["expected"], ls=styles[e % len(styles)],
                    color=REC_COLORS.get(rec), label=f"{rec}, {method}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of sampled items m")
    metric = frame.metric.iloc[0]
    ax.set_ylabel(f"expected {LABELS.get(metric, metric)}")
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    save(fig, out_stem)


#: Legend names of the rank-distribution estimators (Jin et al.), in legend order.
ESTIMATOR_LABELS = {"exact": "exact P(R)", "mle": "MLE", "wmle": "WMLE", "mes": "MES"}


def _estimator_label(method: str) -> str:
    if method.startswith("dist_bv_"):
        return f"BV {method.removeprefix('dist_bv_')} (eq. 15)"
    return ESTIMATOR_LABELS.get(method, method)


def rank_distribution_figure(frame: pd.DataFrame, out_stem, title: str) -> None:
    """Estimated rank pmf and CDF = Recall@R per panel (Jin et al. Figures 2-3); tidy
    ``panel, method, rank, pmf, cdf``.

    Readable at page width: at most three panels a row, each panel's P(R) above its CDF; the
    P(R) axes are logarithmic, so an estimator with a tall spike at the top ranks (WMLE) does
    not flatten the others; one legend for the figure, below it.
    """
    panels = list(dict.fromkeys(frame.panel))
    cols = min(len(panels), 3)
    groups = -(-len(panels) // cols)
    fig, axes = plt.subplots(2 * groups, cols, figsize=(3.6 * cols, 5.4 * groups + 0.7),
                             squeeze=False)
    handles = {}
    for j, panel in enumerate(panels):
        top, bottom = axes[2 * (j // cols), j % cols], axes[2 * (j // cols) + 1, j % cols]
        sub = frame[frame.panel == panel]
        for method, grp in sub.groupby("method", sort=False):
            exact = method == "exact"
            style = dict(color="black", lw=2.0, ls="--", zorder=5) if exact else dict(lw=1.4)
            positive = grp["pmf"] > 0
            handles[method], = top.plot(grp["rank"][positive], grp["pmf"][positive], **style)
            bottom.plot(grp["rank"], grp["cdf"], **style)
        top.set_yscale("log")
        top.set_title(str(panel), fontsize=11)
        top.set_ylabel("P(R), log scale")
        bottom.set_ylabel("CDF = Recall@R")
        bottom.set_xlabel("rank R")
        for ax in (top, bottom):
            ax.grid(alpha=0.3, which="both")
    for j in range(len(panels), groups * cols):
        axes[2 * (j // cols), j % cols].set_visible(False)
        axes[2 * (j // cols) + 1, j % cols].set_visible(False)
    fig.legend(list(handles.values()), [_estimator_label(e) for e in handles],
               loc="lower center", ncol=len(handles), fontsize=10, frameon=False)
    fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.7 / (5.4 * groups + 0.7), 1, 1))
    save(fig, out_stem)


def practice_figure(table: pd.DataFrame, out_stem) -> None:
    """Mean/exact (with ±std bars) of every method, one panel per (split, protocol) and
    metric, one marker per recommender (the practice study's table)."""
    panels = list(dict.fromkeys(zip(table.split, table.protocol)))
    metrics = list(dict.fromkeys(table.metric))
    fig, axes = plt.subplots(len(metrics), len(panels), squeeze=False,
                             figsize=(3.2 * len(panels), 2.8 * len(metrics)), sharey="row")
    for i, metric in enumerate(metrics):
        for j, (split, protocol) in enumerate(panels):
            ax = axes[i, j]
            g = table[(table.split == split) & (table.protocol == protocol) &
                      (table.metric == metric)]
            methods = list(dict.fromkeys(g.method))
            for k, rec in enumerate(dict.fromkeys(g.recommender)):
                h = g[g.recommender == rec].set_index("method").loc[methods]
                xs = np.arange(len(methods)) + (k - 1) * 0.15
                ax.errorbar(xs, h["mean"] / h["exact"], yerr=h["std"] / h["exact"], fmt="o",
                            ms=3, color=REC_COLORS.get(rec), label=rec)
            ax.axhline(1.0, color="gray", lw=0.8)
            ax.set_yscale("log")
            ax.set_xticks(np.arange(len(methods)))
            ax.set_xticklabels(methods, rotation=60, fontsize=7)
            ax.set_title(f"{split} / {protocol}", fontsize=8)
            if j == 0:
                ax.set_ylabel(f"{metric}: sampled / exact", fontsize=8)
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    save(fig, out_stem)


def results_figure(rows: pd.DataFrame, out_stem, title: str) -> None:
    """The results table's intervals: one panel per metric, one line per model in table
    order (top: the best), the headline value as a dot on its interval, the exact value
    (where the frame has an ``exact`` column) as a cross, and the letters of the models each
    one beats (the headline rows of
    :func:`sampled_metrics.workflow.steps.results_table.study_results_table`)."""
    metrics = list(dict.fromkeys(rows.metric))
    order = list(dict.fromkeys(rows.model))
    fig, axes = plt.subplots(1, len(metrics), squeeze=False,
                             figsize=(2.6 * len(metrics) + 0.8, 0.45 * len(order) + 1.3),
                             sharey=True)
    ys = np.arange(len(order))[::-1]
    for ax, metric in zip(axes[0], metrics):
        g = rows[rows.metric == metric].set_index("model").loc[order]
        ax.hlines(ys, 100 * g.ci_low, 100 * g.ci_high, color="tab:blue", lw=2)
        ax.plot(100 * g.value, ys, "o", color="tab:blue", ms=4, label="estimate, interval")
        if "exact" in g:
            ax.plot(100 * g.exact, ys, "x", color="black", ms=5, label="exact")
        for y, high, beats in zip(ys, g.ci_high, g.beats.fillna("")):
            if beats:
                ax.annotate(f">{beats}", (100 * high, y), xytext=(3, 0),
                            textcoords="offset points", va="center", fontsize=7,
                            color="dimgray")
        lo, hi = 100 * g.ci_low.min(), 100 * g.ci_high.max()
        ax.set_xlim(lo - 0.05 * (hi - lo), hi + 0.22 * (hi - lo))   # room for the letters
        ax.set_title(LABELS.get(metric, metric), fontsize=9)
        ax.set_xlabel("%", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(axis="x", lw=0.3)
    axes[0, 0].set_yticks(ys)
    axes[0, 0].set_yticklabels([f"{g}  {x}" for g, x in
                                zip(rows.drop_duplicates("model").letter, order)], fontsize=8)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    save(fig, out_stem)
