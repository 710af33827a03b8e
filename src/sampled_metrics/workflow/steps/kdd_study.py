"""KDD'20 Sec. 6, the MovieLens study: exact vs sampled vs corrected metrics (Tables 3-4,
Figures 5-6), from the rank files of the recommenders.

Every user u has an exact rank r_u among its n_u candidates and, per repeat, a sampled rank
r~_u among itself and m negatives. A metric of a recommender is the mean over users (eq. 1):

    exact                mean_u M(r_u)                      (AUC with n = n_u)
    sampled              mean_u M_{m+1}(r~_u)
    correction c         mean_u M^_{c, n}(r~_u)             (KDD'20 Sec. 5, for n and m)

``n_mode`` says which n the corrections use: ``per_user`` (n = n_u, the law the sampled
ranks really follow) or ``global`` (n = |I|, one correction for everybody).

Artefacts: :func:`correct_repeats` (the per-repeat values of every correction, computed once
per (dataset, m) and read by Tables 3-4 and by Jin et al.'s tables), :func:`tables`,
:func:`figure5`, :func:`figure6`; over several model seeds (each recommender fitted once per
seed, ranked on the same negatives), :func:`correct_seeds` and :func:`seed_table`.
"""
from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd

from ...compare.verdicts import orders_like_exact
from ...corrections.lookup import correction_lookup, mean_corrected, n_for_users
from ...corrections.vectors import correction_label, correction_vectors
from ...design import check_nm
from ...evaluation.rankfile import read_rank_files
from ...metrics import parse_metric
from ..paper import KDD_TABLE3, KDD_TABLE4
from ...sampling import expected_metric_matrix
from ..tables import percent, write_csv, write_table

__all__ = ["PAPER_DATASET", "per_repeat_frame",
           "per_seed_frame", "table3_frame", "seed_spread_frame", "table4_frame",
           "rank_buckets", "figure6_frame", "correct_repeats", "correct_seeds",
           "read_per_seed", "tables", "seed_table"]

log = logging.getLogger(__name__)

#: the dataset of KDD'20 Sec. 6: only its tables get the paper's numbers beside ours
PAPER_DATASET = "ml-1m"
PER_REPEAT_COLUMNS = ["dataset", "recommender", "metric", "method", "repeat", "value"]
PER_SEED_COLUMNS = ["dataset", "recommender", "seed", "metric", "method", "repeat", "value"]


def _shared(rank_files, key: str):
    values = {getattr(f, key) for f in rank_files}
    if len(values) != 1:
        raise ValueError(f"rank files disagree on {key}: {sorted(map(str, values))}")
    return values.pop()


def _corrected_values(rank_files: list, m: int, metric_names, corrections, *, n_mode: str,
                      processes: int):
    """For each rank file (same dataset, same sampling law): its exact value of every metric
    and the per-repeat values ``[metric, correction, repeat]`` of every correction; the
    correction vectors are computed once for all files (one per distinct n)."""
    sampling = _shared(rank_files, "sampling")
    n_items = max(f.n_items for f in rank_files)
    n_per_file = [n_for_users(f.n_u, n_mode, n_items) for f in rank_files]
    n_values = np.unique(np.concatenate(n_per_file))
    check_nm(int(n_values.min()), m, sampling)
    log.info("corrections for %d distinct n, m=%d: %d metrics x %d corrections",
             n_values.size, m, len(metric_names), len(corrections))
    V = correction_lookup(metric_names, list(corrections), n_values, m, sampling,
                          processes=processes)
    for f, n_u in zip(rank_files, n_per_file):
        values = mean_corrected(V, np.searchsorted(n_values, n_u), f.sampled_ranks(m))
        yield [parse_metric(metric).mean(f.exact, f.n_u) for metric in metric_names], values


def _value_frames(columns: dict, metric_names, labels, exact, values) -> list:
    """Tidy frames (``columns`` first, then metric, method, repeat, value) of one rank
    file's exact and corrected values; method ``exact`` repeats the exact value in every
    repeat."""
    repeats = np.arange(values.shape[-1])
    parts = []
    for k, metric in enumerate(metric_names):
        parts.append(pd.DataFrame({**columns, "metric": metric, "method": "exact",
                                   "repeat": repeats, "value": exact[k]}))
        for e, label in enumerate(labels):
            parts.append(pd.DataFrame({**columns, "metric": metric, "method": label,
                                       "repeat": repeats, "value": values[k, e]}))
    return parts


def per_repeat_frame(dataset: str, rank_files: dict, m: int, metrics, corrections, *,
                     n_mode: str = "per_user", processes: int = 1) -> pd.DataFrame:
    """Per-repeat values of every metric under every correction, and the exact values.

    Parameters
    ----------
    rank_files : dict recommender -> RankFile (same dataset, same sampling law)
    m : int
        Sample size (each file must hold sampled ranks for it).
    metrics, corrections : sequences of names
    n_mode : {'per_user', 'global'}
    processes : int
        Worker processes of the correction lookup (results do not depend on it).

    Returns
    -------
    pandas.DataFrame
        Tidy ``dataset, recommender, metric, method, repeat, value``; method ``exact``
        repeats the exact value in every repeat. The correction vectors are computed once
        for all recommenders (one per distinct n).
    """
    metric_names = [parse_metric(x).name for x in metrics]
    labels = [correction_label(c) for c in corrections]
    parts = []
    for rec, (exact, values) in zip(rank_files, _corrected_values(
            list(rank_files.values()), m, metric_names, corrections, n_mode=n_mode,
            processes=processes)):
        parts += _value_frames({"dataset": dataset, "recommender": rec}, metric_names,
                               labels, exact, values)
    return pd.concat(parts, ignore_index=True)[PER_REPEAT_COLUMNS]


def per_seed_frame(dataset: str, rank_files: dict, m: int, metrics, corrections, *,
                   n_mode: str = "per_user", processes: int = 1) -> pd.DataFrame:
    """:func:`per_repeat_frame` of each fit of each recommender: one rank file per model
    seed.

    Parameters
    ----------
    rank_files : dict recommender -> {seed: RankFile}
        The files of the fits with each model seed; a recommender whose fit draws nothing
        (item-kNN, EASE) has one file, under seed None. All files rank the same negatives
        (keyed by the config seed and the dataset, not by the model seed), so the spread
        over seeds is the model's alone.
    m, metrics, corrections, n_mode, processes
        As :func:`per_repeat_frame`.

    Returns
    -------
    pandas.DataFrame
        Tidy ``dataset, recommender, seed, metric, method, repeat, value``; ``seed`` is a
        nullable integer, missing for a fit without a seed.
    """
    metric_names = [parse_metric(x).name for x in metrics]
    labels = [correction_label(c) for c in corrections]
    keys = [(rec, seed) for rec, fits in rank_files.items() for seed in fits]
    if not keys:
        raise ValueError("no rank file to correct")
    files = [rank_files[rec][seed] for rec, seed in keys]
    parts = []
    for (rec, seed), (exact, values) in zip(keys, _corrected_values(
            files, m, metric_names, corrections, n_mode=n_mode, processes=processes)):
        parts += _value_frames({"dataset": dataset, "recommender": rec, "seed": seed},
                               metric_names, labels, exact, values)
    frame = pd.concat(parts, ignore_index=True)[PER_SEED_COLUMNS]
    return frame.astype({"seed": "Int64"})


def seed_spread_frame(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Table 3 over model seeds: each fit's value (its mean over the sampling repeats), then
    the mean and standard deviation (ddof = 1) of those values over the fits.

    A recommender fitted without a seed (one fit, seed missing) gets sd 0: its fit is the
    same whatever the seed. A seeded recommender with one fit gets sd NaN (no spread).

    Returns a tidy frame ``dataset, recommender, metric, method, seeds, mean, sd`` (seeds:
    the number of fits) in the order of ``per_seed``.

    Examples
    --------
    >>> per_seed = pd.DataFrame({"dataset": "d", "recommender": ["X"] * 4 + ["Y"] * 2,
    ...     "seed": pd.array([0, 0, 1, 1, None, None], dtype="Int64"), "metric": "auc",
    ...     "method": "sampled", "repeat": [0, 1] * 3,
    ...     "value": [0.1, 0.3, 0.4, 0.6, 0.7, 0.9]})
    >>> seed_spread_frame(per_seed)[["recommender", "seeds", "mean", "sd"]].round(4)
      recommender  seeds  mean      sd
    0           X      2  0.35  0.2121
    1           Y      1  0.80  0.0000
    """
    keys = ["dataset", "recommender", "metric", "method"]
    fits = (per_seed.groupby(keys + ["seed"], sort=False, dropna=False)["value"].mean()
            .reset_index())
    out = fits.groupby(keys, sort=False).agg(seeds=("value", "size"), mean=("value", "mean"),
                                            sd=("value", "std"), seedless=("seed", _all_na))
    out.loc[out.seedless, "sd"] = 0.0
    return out.drop(columns="seedless").reset_index()


def _all_na(values: pd.Series) -> bool:
    return bool(values.isna().all())


def table3_frame(per_repeat: pd.DataFrame) -> pd.DataFrame:
    """KDD'20 Table 3: mean and std (ddof = 1) over repeats of each value (std 0 for exact).

    Returns a tidy frame ``dataset, recommender, metric, method, mean, std`` in the order of
    ``per_repeat``.
    """
    keys = ["dataset", "recommender", "metric", "method"]
    out = per_repeat.groupby(keys, sort=False)["value"].agg(["mean", "std"]).reset_index()
    out.loc[out.method == "exact", "std"] = 0.0
    return out


def table4_frame(table3: pd.DataFrame, per_repeat: pd.DataFrame) -> pd.DataFrame:
    """KDD'20 Table 4: of the repeats, how many order each pair of recommenders (a vs b) as
    the exact metric does (strictly; a tie counts as wrong).

    Returns a tidy frame ``dataset, pair, metric, method, correct, repeats``.
    """
    exact = table3[table3.method == "exact"].set_index(["dataset", "recommender",
                                                        "metric"])["mean"]
    rest = per_repeat[per_repeat.method != "exact"]
    wide = rest.pivot_table(index=["dataset", "metric", "method", "repeat"],
                            columns="recommender", values="value", sort=False)
    rows = []
    recs = list(dict.fromkeys(per_repeat.recommender))
    for a, b in itertools.combinations(recs, 2):
        for (dataset, metric, method), grp in wide.groupby(level=[0, 1, 2], sort=False):
            agree = orders_like_exact(grp[a].to_numpy(), grp[b].to_numpy(),
                                      exact[dataset, a, metric], exact[dataset, b, metric])
            rows.append((dataset, f"{a} vs {b}", metric, method, int(agree.sum()), len(grp)))
    return pd.DataFrame(rows, columns=["dataset", "pair", "metric", "method", "correct",
                                       "repeats"])


def rank_buckets(rank_files: dict, edges) -> pd.DataFrame:
    """Number of users whose exact rank falls in each bucket (lo, hi] of ``edges`` (Fig. 5).

    Returns a tidy frame ``recommender, bucket, lo, hi, users``.
    """
    edges = np.asarray(edges, dtype=np.float64)
    rows = []
    for rec, f in rank_files.items():
        counts, _ = np.histogram(np.asarray(f.exact, dtype=np.float64),
                                 bins=np.r_[edges[:-1] + 0.5, edges[-1] + 0.5])
        for lo, hi, c in zip(edges[:-1], edges[1:], counts):
            rows.append((rec, f"{int(lo) + 1}-{int(hi)}", int(lo) + 1, int(hi), int(c)))
    return pd.DataFrame(rows, columns=["recommender", "bucket", "lo", "hi", "users"])


def figure6_frame(rank_files: dict, metric, m_values, corrections=("sampled", "bv_0.1"),
                  n_items: int | None = None, sampling: str = "binomial") -> pd.DataFrame:
    """Expected metric vs sample size m, analytically from the exact ranks (Fig. 6):
    mean_u E[M^(r~) | r_u] with every user's rank among n = ``n_items`` items (one correction
    per m). Non-integer exact ranks (averaged ties) are rounded down. A scan over m up to n,
    so the corrections' moments and the expectations run in narrow blocks of true ranks
    (``narrow_blocks``, as the planning of m): the same values up to the rounding of their
    sums, at a fraction of the pmf entries where m is a sizable fraction of n.

    Returns a tidy frame ``recommender, metric, method, m, expected``.
    """
    metric = parse_metric(metric)
    n = int(n_items if n_items is not None else max(f.n_items for f in rank_files.values()))
    labels = [correction_label(c) for c in corrections]
    # each recommender's distinct exact ranks (rounded down) and their counts, once for all m
    distinct = {rec: np.unique(np.floor(np.asarray(f.exact)).astype(np.int64),
                               return_counts=True) for rec, f in rank_files.items()}
    rows = []
    for m in m_values:
        m = int(m)
        if m >= n:
            continue
        vecs = correction_vectors([metric], n, m, corrections, sampling, narrow_blocks=True)
        weights = [vecs[(metric.name, label)] for label in labels]
        for rec, (values, counts) in distinct.items():
            e = (expected_metric_matrix(weights, values, n, m, sampling, narrow_blocks=True)
                 @ counts / counts.sum())
            rows += [(rec, metric.name, label, m, float(v)) for label, v in zip(labels, e)]
    return pd.DataFrame(rows, columns=["recommender", "metric", "method", "m", "expected"])


# ----------------------------------------------------------------------------- artefacts

def correct_repeats(dataset: str, rank_paths: dict, m: int, metrics, corrections, *,
                    n_mode: str, out, processes: int = 1) -> pd.DataFrame:
    """The per-repeat CSV of :func:`per_repeat_frame` (read by Tables 3-4 and Jin's tables).
    """
    frame = per_repeat_frame(dataset, read_rank_files(rank_paths), int(m), metrics, corrections,
                             n_mode=n_mode, processes=processes)
    write_csv(frame, out)
    return frame


def correct_seeds(dataset: str, rank_paths: dict, m: int, metrics, corrections, *,
                  n_mode: str, out, processes: int = 1) -> pd.DataFrame:
    """The per-seed CSV of :func:`per_seed_frame` (read by the seeds table);
    ``rank_paths``: recommender -> {seed or None: rank file}."""
    files = {rec: read_rank_files(fits) for rec, fits in rank_paths.items()}
    frame = per_seed_frame(dataset, files, int(m), metrics, corrections, n_mode=n_mode,
                           processes=processes)
    write_csv(frame, out)
    return frame


def read_per_seed(path) -> pd.DataFrame:
    """A per-seed CSV written by :func:`correct_seeds` (seed as a nullable integer)."""
    return pd.read_csv(path, dtype={"seed": "Int64"})


def _with_paper(wide: pd.DataFrame, column: str, values, fmt) -> pd.DataFrame:
    """Add the paper's values as ``column`` ('-' where it has none); nothing if it has none."""
    if all(v is None for v in values):
        return wide
    return wide.assign(**{column: ["-" if v is None else fmt(v) for v in values]})


def select(per_repeat: pd.DataFrame, recommenders, metrics, methods) -> pd.DataFrame:
    """Rows of a per-repeat frame for these recommenders, metrics and methods, in that
    order (recommender, metric, method); ValueError naming what is missing."""
    metrics = [parse_metric(x).name for x in metrics]
    methods = list(methods)
    for column, wanted in (("recommender", recommenders), ("metric", metrics),
                           ("method", methods)):
        missing = sorted(set(wanted) - set(per_repeat[column]))
        if missing:
            raise ValueError(f"per-repeat values lack {column} {', '.join(missing)}")
    order = {c: {v: i for i, v in enumerate(w)} for c, w in
             (("recommender", recommenders), ("metric", metrics), ("method", methods))}
    keep = per_repeat[per_repeat.recommender.isin(recommenders) &
                      per_repeat.metric.isin(metrics) & per_repeat.method.isin(methods)]
    rank = [keep[c].map(order[c]) for c in order]
    return (keep.assign(_a=rank[0], _b=rank[1], _c=rank[2])
            .sort_values(["_a", "_b", "_c", "repeat"], kind="stable")
            .drop(columns=["_a", "_b", "_c"]).reset_index(drop=True))


def tables(dataset: str, per_repeat_csv, recommenders, metrics, corrections, *, m: int,
           outputs: dict) -> None:
    """Write Table 3 and Table 4 (csv/md/tex) from the per-repeat CSV.

    ``outputs`` keys: table3, table3_md, table3_tex, table4, table4_md, table4_tex.
    """
    methods = ["exact", *(correction_label(c) for c in corrections)]
    per_repeat = select(pd.read_csv(per_repeat_csv), list(recommenders), metrics, methods)
    t3 = table3_frame(per_repeat)
    t4 = table4_frame(t3, per_repeat)
    repeats = per_repeat.repeat.nunique()
    ref3 = KDD_TABLE3 if dataset == PAPER_DATASET else {}
    ref4 = KDD_TABLE4 if dataset == PAPER_DATASET else {}
    wide3 = _with_paper(pd.DataFrame({
        "recommender": t3.recommender, "metric": t3.metric, "method": t3.method,
        "ours %": [percent(a, b) for a, b in zip(t3["mean"], t3["std"])]}), "paper %",
        [ref3.get(k) for k in zip(t3.recommender, t3.metric, t3.method)], lambda p: percent(*p))
    write_table(t3, outputs["table3"], wide3, outputs.get("table3_md"),
                outputs.get("table3_tex"), html_path=outputs.get("table3_html"),
                title=f"Table 3 ({dataset}): exact, sampled (m = {m}) and corrected metrics, "
                      f"mean ± std over {repeats} repeats, in %")
    wide4 = _with_paper(t4.drop(columns=["dataset"]), "paper",
                        [ref4.get(k) for k in zip(t4.pair, t4.metric, t4.method)], str)
    write_table(t4, outputs["table4"], wide4, outputs.get("table4_md"),
                outputs.get("table4_tex"), html_path=outputs.get("table4_html"),
                title=f"Table 4 ({dataset}): repeats (of {repeats}) that order each pair as "
                      f"the exact metric does")


def seed_table(dataset: str, per_seed_csv, recommenders, metrics, corrections, *, m: int,
               outputs: dict) -> pd.DataFrame:
    """Write Table 3 over model seeds (csv/md/tex) from the per-seed CSV: per fit the mean
    over the sampling repeats, then mean ± sd over the fits (:func:`seed_spread_frame`),
    beside the paper's mean on its dataset, with the paper's distance from ours in sd.

    ``outputs`` keys: table, table_md, table_tex.
    """
    methods = ["exact", *(correction_label(c) for c in corrections)]
    per_seed = select(read_per_seed(per_seed_csv), list(recommenders), metrics, methods)
    spread = seed_spread_frame(per_seed)
    seeds = sorted(int(v) for v in per_seed.seed.dropna().unique())
    repeats = per_seed.repeat.nunique()
    ref = KDD_TABLE3 if dataset == PAPER_DATASET else {}
    paper = [ref.get(k, (None,))[0] for k in zip(spread.recommender, spread.metric,
                                                   spread.method)]
    wide = pd.DataFrame({"recommender": spread.recommender, "metric": spread.metric,
                         "method": spread.method, "fits": spread.seeds,
                         "ours %": [percent(a, b) for a, b in zip(spread["mean"], spread.sd)]})
    wide = _with_paper(wide, "paper %", paper, percent)
    if "paper %" in wide:
        wide["(paper - ours) / sd"] = [
            "-" if p is None or not sd > 0 else f"{(p - mean) / sd:+.1f}"
            for p, mean, sd in zip(paper, spread["mean"], spread.sd)]
    write_table(spread, outputs["table"], wide, outputs.get("table_md"),
                outputs.get("table_tex"), html_path=outputs.get("table_html"),
                title=f"Table 3 over model seeds ({dataset}): exact, sampled (m = {m}) and "
                      f"corrected metrics, mean ± sd over the fits with seeds "
                      f"{', '.join(map(str, seeds))}, in %",
                note=f"Each fit's value is its mean over {repeats} sampling repeats of the "
                     f"same negatives. A recommender whose fit draws nothing (item-kNN, EASE)"
                     f" is fitted once: fits 1, sd 0 by construction."
                     + (" (paper - ours) / sd: the paper's distance from our mean in sd over "
                        "the fits; for sampled and corrected values the paper's mean also "
                        "carries its own negatives, which this sd leaves out."
                        if "paper %" in wide else ""))
    return spread


