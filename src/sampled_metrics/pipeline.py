"""File-producing steps of the MovieLens branch of the workflow (KDD'20 Sec. 6).

    dataset archive -> split.npz -> ranks/{recommender}.npz -> table3/table4/figure5/figure6

The Snakemake scripts only unpack inputs/params/outputs and call these functions.
"""
from __future__ import annotations

import json
import logging
import time
import zlib

import numpy as np
import pandas as pd

from . import figures
from .atomic import atomic_output
from .datasets import load_split, make_split, prepare_archive
from .evaluation import draw_negatives, evaluate
from .metrics import parse_metric
from .paper import KDD_TABLE3, KDD_TABLE4
from .recommenders import make_recommender
from .sampling import SAMPLING_LAWS
from .study import figure6_frame, rank_buckets, table3_frame, table4_frame
from .tables import atomic_write_text, write_csv, write_table

__all__ = ["derive_seed", "prepare_archive", "make_split", "load_split",
           "rank_recommender", "load_ranks", "study_tables", "study_figure5", "study_figure6"]

log = logging.getLogger(__name__)

#: the dataset of KDD'20 Sec. 6: only its tables get the paper's numbers beside ours
PAPER_DATASET = "ml-1m"

def derive_seed(seed: int, *keys) -> int:
    """A 32-bit seed derived from the master seed and string/int keys (dataset, purpose)."""
    words = [int(seed)] + [zlib.crc32(str(k).encode()) for k in keys]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def _atomic_savez(path, **arrays) -> None:
    with atomic_output(path, ".npz") as tmp:
        np.savez(tmp, **arrays)


# ----------------------------------------------------------------------------- data
# prepare_archive, make_split and load_split live in sampled_metrics.datasets.

def load_fixed_negatives(path) -> np.ndarray | None:
    """The fixed negatives stored with a split (users x m, aligned with ``users``), if any."""
    return load_split(path).negatives


# ----------------------------------------------------------------------------- ranks

def rank_recommender(split_path, name: str, model_spec: dict, out, *, seed: int,
                     dataset: str, m: int, repeats: int, tie: str = "random_per_ranking",
                     sampling: str = "hypergeometric", block_size: int = 1024,
                     repeat_chunk: int = 20, threads: int = 1,
                     fixed_negatives: bool = False) -> dict:
    """Fit recommender ``name`` on the training set and store, per evaluated user, its exact
    rank r_u, candidate count n_u and sampled ranks r~ for ``repeats`` repeats of m
    negatives (npz keys ``users, exact, n_u, sampled``).

    The negatives of repeat j are ``draw_negatives(split, m, j, derive_seed(seed, dataset,
    'negatives'))``: identical for every recommender of the dataset. ``sampling`` is
    ``hypergeometric`` (without replacement) or ``binomial`` (with).

    ``fixed_negatives``: use the dataset's own negatives (NCF's ``.test.negative``, stored in
    the split) as the single repeat instead of drawing them; m must equal their number.
    """
    if sampling not in SAMPLING_LAWS:
        raise ValueError(f"unknown sampling law {sampling!r}; expected one of "
                         f"{', '.join(SAMPLING_LAWS)}")
    if tie == "average" and repeats > 0:
        raise ValueError("tie policy 'average' gives half-integer sampled ranks, which the "
                         "corrections cannot index; use 'random' or 'random_per_ranking' "
                         "(whose expectation it is), 'pessimistic' or 'optimistic'")
    split = load_split(split_path)
    spec = dict(model_spec)
    kind = spec.pop("model", None)
    if kind is None:
        raise ValueError(f"recommender {name!r}: 'model' (ials, itemknn or ease) is missing")
    if kind == "ials":
        spec.setdefault("num_threads", threads)
    model = make_recommender(kind, **spec)
    start = time.perf_counter()
    model.fit(split.train)
    fit_seconds = time.perf_counter() - start
    history = getattr(model, "loss_history_", None)
    if history:
        log.info("%s: paper loss per sweep %s", name, ", ".join(f"{x:.1f}" for x in history))
    neg_seed = derive_seed(seed, dataset, "negatives")
    tie_seed = derive_seed(seed, dataset, "ties")
    replace = sampling == "binomial"
    fixed = load_fixed_negatives(split_path) if fixed_negatives else None
    if fixed_negatives:
        if fixed is None:
            raise ValueError(f"dataset {dataset!r} has no fixed negatives (only the 'ncf' "
                             f"format with a .test.negative file has); set "
                             f"study.fixed_negatives: false")
        if fixed.shape[1] != m:
            raise ValueError(f"dataset {dataset!r} has {fixed.shape[1]} fixed negatives per "
                             f"user, but m={m}; set study.m: {fixed.shape[1]}")
        repeats, repeat_chunk = 1, 1
    sampled = np.empty((repeats, split.users.size), dtype=np.int16 if m < 32767 else np.int32)
    exact = n_u = None
    start = time.perf_counter()
    for lo in range(0, max(repeats, 1), repeat_chunk):
        ids = list(range(lo, min(repeats, lo + repeat_chunk)))
        negs = ([fixed] if fixed is not None
                else [draw_negatives(split, m, j, neg_seed, replace) for j in ids])
        ev = evaluate(model, split, negs, tie, block_size, tie_seed, repeat_ids=ids)
        if exact is None:
            exact, n_u = ev.ranks, ev.n_candidates
        if ids:
            sampled[ids] = ev.sampled_ranks
        log.info("%s: repeats %d-%d of %d ranked", name, ids[0] if ids else 0,
                 ids[-1] if ids else 0, repeats)
    rank_seconds = time.perf_counter() - start
    _atomic_savez(out, users=split.users, exact=exact, n_u=n_u, sampled=sampled,
                  m=np.array(m), n_items=np.array(split.n_items),
                  sampling=np.array(sampling if fixed is None else "hypergeometric"),
                  tie=np.array(tie), loss=np.asarray(history or [], dtype=np.float64))
    info = {"recommender": name, "model": repr(model), "fit_seconds": round(fit_seconds, 2),
            "rank_seconds": round(rank_seconds, 2), "users": int(split.users.size),
            "repeats": repeats, "m": m}
    log.info("ranks: %s", json.dumps(info))
    return info


def load_ranks(paths: dict) -> dict:
    """{recommender: {'exact', 'n_u', 'sampled', 'm', 'n_items'}} from rank files."""
    out = {}
    for rec, path in paths.items():
        z = np.load(path)
        out[rec] = {"exact": z["exact"], "n_u": z["n_u"], "sampled": z["sampled"],
                    "m": int(z["m"]), "n_items": int(z["n_items"])}
    return out


def _common_m_and_n(ranks: dict) -> tuple[int, int]:
    """The sample size m shared by all rank files (error if they differ) and |I|."""
    ms = {a["m"] for a in ranks.values()}
    if len(ms) != 1:
        raise ValueError(f"rank files disagree on m: {sorted(ms)}")
    return ms.pop(), max(a["n_items"] for a in ranks.values())


# ----------------------------------------------------------------------------- tables

def _pct(mean, std=None) -> str:
    """'12.34±0.56' in percent; the mean alone when there is no spread (exact, one repeat)."""
    if std is None or std == 0 or not np.isfinite(std):
        return f"{100 * mean:.2f}"
    return f"{100 * mean:.2f}±{100 * std:.2f}"


def _with_paper(wide: pd.DataFrame, column: str, values, fmt) -> pd.DataFrame:
    """Add the paper's values as ``column`` ('-' where it has none); nothing if it has none."""
    if all(v is None for v in values):
        return wide
    return wide.assign(**{column: ["-" if v is None else fmt(v) for v in values]})


def study_tables(dataset: str, rank_paths: dict, metrics, estimators, *, sampling: str,
                 n_mode: str, outputs: dict, processes: int = 1) -> None:
    """Write Table 3 (csv/md/tex), the per-repeat values and Table 4 (csv/md/tex).

    ``outputs`` keys: table3, table3_md, table3_tex, per_repeat, table4, table4_md, table4_tex.
    """
    ranks = load_ranks(rank_paths)
    m, n_items = _common_m_and_n(ranks)
    t3, per_repeat = table3_frame(dataset, ranks, m, metrics, estimators, sampling, n_mode,
                                  n_items, processes)
    t4 = table4_frame(t3, per_repeat)
    ref3 = KDD_TABLE3 if dataset == PAPER_DATASET else {}
    ref4 = KDD_TABLE4 if dataset == PAPER_DATASET else {}
    wide3 = _with_paper(pd.DataFrame({
        "recommender": t3.recommender, "metric": t3.metric, "estimator": t3.estimator,
        "ours %": [_pct(a, b) for a, b in zip(t3["mean"], t3["std"])]}), "paper %",
        [ref3.get(k) for k in zip(t3.recommender, t3.metric, t3.estimator)], lambda p: _pct(*p))
    write_table(t3, outputs["table3"], wide3, outputs.get("table3_md"),
                outputs.get("table3_tex"),
                title=f"Table 3 ({dataset}): exact, sampled (m = {m}) and corrected metrics, "
                      f"mean ± std over {per_repeat.repeat.nunique()} repeats, in %")
    write_csv(per_repeat, outputs["per_repeat"])
    wide4 = _with_paper(t4.drop(columns=["dataset"]), "paper",
                        [ref4.get(k) for k in zip(t4.pair, t4.metric, t4.estimator)], str)
    write_table(t4, outputs["table4"], wide4, outputs.get("table4_md"),
                outputs.get("table4_tex"),
                title=f"Table 4 ({dataset}): repeats (of {per_repeat.repeat.nunique()}) that "
                      f"order each pair as the exact metric does")


def study_figure5(dataset: str, rank_paths: dict, edges, out_stem, data_csv,
                  facts_csv=None) -> pd.DataFrame:
    """Figure 5: users per bucket of exact rank, one bar group per recommender.

    ``facts_csv`` gets the counts Sec. 6.1 talks about: users with r <= 10, r <= 100,
    r > n_u / 2 (bottom half) and in the worst bucket.
    """
    ranks = load_ranks(rank_paths)
    n_max = max(a["n_items"] for a in ranks.values())
    edges = [0] + [e for e in edges if 0 < e < n_max] + [n_max]
    frame = rank_buckets(ranks, edges)
    write_csv(frame, data_csv)
    if facts_csv:
        facts = pd.DataFrame([
            (dataset, rec, int(np.sum(a["exact"] <= 10)), int(np.sum(a["exact"] <= 100)),
             int(np.sum(a["exact"] > a["n_u"] / 2)), int(np.sum(a["exact"] > edges[-2])))
            for rec, a in ranks.items()],
            columns=["dataset", "recommender", "top10", "top100", "bottom_half",
                     "worst_bucket"])
        write_csv(facts, facts_csv)
    figures.figure5(frame, out_stem, title=f"Figure 5: distribution of exact ranks ({dataset})")
    return frame


def study_figure6(dataset: str, rank_paths: dict, metric: str, points: int, estimators,
                  out_stem, data_csv, *, sampling: str) -> pd.DataFrame:
    """Figure 6: expected metric vs m (analytic, from the exact ranks, n = |I|)."""
    ranks = load_ranks(rank_paths)
    n = max(a["n_items"] for a in ranks.values())
    m_values = figures.log_grid(1, n - 1, points)
    frame = figure6_frame(ranks, metric, m_values, estimators, n, sampling)
    write_csv(frame, data_csv)
    figures.figure6(frame, out_stem, title=f"Figure 6: expected {metric} vs sample size "
                                           f"({dataset}, n = {n:,})")
    return frame


def write_json(obj, path) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


# ----------------------------------------------------------------------------- Jin et al.

def jin_recommender(dataset: str, recommender: str, rank_path, *, metrics, distributions,
                    sampling: str, out_csv, out_npz, options: dict | None = None,
                    processes: int = 1) -> None:
    """Per-repeat P(R)-based estimates and exact values (tidy CSV) and the mean estimated
    P(R) (npz) of one recommender."""
    from .jin import jin_estimates
    arrays = load_ranks({recommender: rank_path})[recommender]
    per_repeat, pmfs = jin_estimates(dataset, recommender, arrays, metrics, distributions,
                                     sampling=sampling, options=options, processes=processes)
    write_csv(per_repeat, out_csv)
    _atomic_savez(out_npz, m=np.array(arrays["m"]), **pmfs)


def jin_corrections(dataset: str, rank_paths: dict, *, metrics, corrections, sampling: str,
                    n_mode: str, out_csv, processes: int = 1) -> None:
    """Per-repeat KDD'20 corrections (e.g. CLS, BV) of every recommender, sharing one
    correction lookup (tidy CSV like :func:`jin_recommender`'s)."""
    ranks = load_ranks(rank_paths)
    m, n_items = _common_m_and_n(ranks)
    _, per_repeat = table3_frame(dataset, ranks, m, metrics, corrections, sampling, n_mode,
                                 n_items, processes)
    write_csv(per_repeat, out_csv)


def jin_tables(dataset: str, csv_paths, table2_metrics, outputs: dict) -> None:
    """Jin et al. Table 2 (``table2_metrics`` only) and Table 4 (every metric) from the
    per-recommender CSVs. ``outputs`` keys: table2, table2_md, table2_tex, table4, table4_md,
    table4_tex."""
    from .jin import jin_table2_frame, jin_winners_frame
    per_repeat = pd.concat([pd.read_csv(p) for p in csv_paths], ignore_index=True)
    t2 = jin_table2_frame(per_repeat)
    keep = [parse_metric(x).name for x in table2_metrics]
    t2 = t2[t2.metric.isin(keep)].reset_index(drop=True)
    cells = pd.DataFrame({(r, mt): {e: _pct(a, b) for e, a, b in zip(g.estimator, g["mean"],
                                                                       g["std"])}
                          for (r, mt), g in t2.groupby(["recommender", "metric"], sort=False)}).T
    cells = cells.reset_index().rename(columns={"level_0": "recommender", "level_1": "metric"})
    write_table(t2, outputs["table2"], cells, outputs.get("table2_md"), outputs.get("table2_tex"),
                title=f"Jin et al. Table 2 ({dataset}): estimated metric@K, mean ± std over "
                      f"repeats, in %")
    t4 = jin_winners_frame(per_repeat)
    wide4 = t4.pivot_table(index="metric", columns="estimator", values="correct",
                           sort=False).reset_index()
    write_table(t4, outputs["table4"], wide4, outputs.get("table4_md"), outputs.get("table4_tex"),
                float_format="{:.0f}",
                title=f"Jin et al. Table 4 ({dataset}): repeats (of {int(t4.repeats.max())}) in "
                      f"which each estimator picks the exact best recommender")


def jin_figure(dataset: str, pmf_paths: dict, estimators, out_stem, data_csv, *, top: int,
               title: str) -> pd.DataFrame:
    """Jin et al. Figures 2-3: mean estimated P(R) and its CDF for R <= ``top`` against the
    exact empirical distribution, one column per entry of ``pmf_paths`` (label -> npz)."""
    rows = []
    for label, path in pmf_paths.items():
        z = np.load(path)
        for est in ["exact", *estimators]:
            p = z[est][:top]
            cdf = np.cumsum(z[est])[:top]
            rows.append(pd.DataFrame({"panel": label, "estimator": est,
                                      "rank": np.arange(1, p.size + 1), "pmf": p, "cdf": cdf}))
    frame = pd.concat(rows, ignore_index=True)
    write_csv(frame, data_csv)
    figures.rank_distribution_figure(frame, out_stem, title)
    return frame
