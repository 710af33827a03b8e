"""The MovieLens study of KDD'20 Sec. 6: exact vs sampled vs corrected metrics (Tables 3-4,
Figures 5-6), computed from exact ranks r_u, candidate counts n_u and sampled ranks r~.

Every user u has a true rank r_u among n_u candidates (the items not in its training set) and,
per repeat, a sampled rank r~_u among itself and m sampled candidates. A metric of the
recommender is the mean over users (eq. 1):

    exact            mean_u M(r_u)                      (AUC with n = n_u)
    sampled          mean_u M_{m+1}(r~_u)
    corrected (est)  mean_u M^_{est, n}(r~_u)           (correction of Sec. 5 for n, m)

``n_mode`` says which n the corrections use: ``per_user`` (n = n_u, the law the sampled ranks
really follow) or ``global`` (n = number of items, one correction for everybody).
"""
from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd

from .corrections import correction_vectors, method_label
from .metrics import parse_metric
from .sampling import check_nm, expected_metric_matrix

__all__ = ["ESTIMATORS", "N_MODES", "exact_metric", "estimator_table", "table3_frame",
           "table4_frame", "rank_buckets", "figure6_frame", "correction_lookup"]

log = logging.getLogger(__name__)

ESTIMATORS = ("sampled", "rank_estimate", "cls", "bv_1", "bv_0.1", "bv_0.01", "bv_0.001")
N_MODES = ("per_user", "global")


def exact_metric(metric, ranks, n_u) -> float:
    """mean_u M(r_u) with AUC over each user's own n_u candidates (eq. 1, 7-13)."""
    return float(np.mean(parse_metric(metric)(ranks, np.asarray(n_u))))


def _n_for_users(n_u, n_mode: str, n_items: int) -> np.ndarray:
    if n_mode not in N_MODES:
        raise ValueError(f"unknown n_mode {n_mode!r}; expected 'per_user' or 'global'")
    n_u = np.asarray(n_u, dtype=np.int64)
    if n_mode == "global":
        if np.any(n_u > n_items):
            raise ValueError("a user has more candidates than there are items")
        return np.full_like(n_u, n_items)
    return n_u


def correction_lookup(metrics, estimators, n_values, m: int, sampling: str = "binomial",
                      processes: int = 1) -> np.ndarray:
    """Correction vectors for each distinct n: array V[j, k, e, s] = M^_{e,k}(s + 1) for
    n = n_values[j], metric k, estimator e.

    The problems are small ((m+1)-dimensional), so BLAS runs single-threaded (faster here,
    and bit-reproducible) and ``processes`` > 1 spreads the n values over worker processes;
    the result does not depend on ``processes``.
    """
    metrics = [parse_metric(x).name for x in metrics]
    n_values = [int(n) for n in n_values]
    args = (metrics, list(estimators), m, sampling)
    if processes <= 1 or len(n_values) < 2 * processes:
        return _lookup_chunk(n_values, *args)
    from concurrent.futures import ProcessPoolExecutor
    chunks = [n_values[i::processes] for i in range(processes)]
    with ProcessPoolExecutor(processes) as pool:
        parts = list(pool.map(_lookup_chunk, chunks, *[[a] * processes for a in args]))
    V = np.empty((len(n_values), len(metrics), len(estimators), m + 1))
    for i, part in enumerate(parts):
        V[i::processes] = part
    return V


def _lookup_chunk(n_values, metrics, estimators, m, sampling) -> np.ndarray:
    from threadpoolctl import threadpool_limits
    labels = [method_label(e) for e in estimators]
    V = np.empty((len(n_values), len(metrics), len(labels), m + 1))
    with threadpool_limits(1):
        for j, n in enumerate(n_values):
            vecs = correction_vectors(metrics, n, m, estimators, sampling)
            for k, metric in enumerate(metrics):
                for e, label in enumerate(labels):
                    V[j, k, e] = vecs[(metric, label)]
    return V


def estimator_table(sampled, n_u, m: int, metrics, estimators=ESTIMATORS,
                    sampling: str = "binomial", n_mode: str = "per_user",
                    n_items: int | None = None, lookup=None, processes: int = 1) -> np.ndarray:
    """Per-repeat estimates: array (len(metrics), len(estimators), repeats) of
    mean_u M^(r~_u) for sampled ranks ``sampled`` of shape (repeats, users).

    ``lookup`` = (n_values, V) from :func:`correction_lookup` may be passed to share the
    correction vectors between recommenders evaluated on the same users.
    """
    sampled = np.asarray(sampled)
    if sampled.ndim != 2:
        raise ValueError("sampled ranks must have shape (repeats, users)")
    if sampled.size and (sampled.min() < 1 or sampled.max() > m + 1):
        raise ValueError(f"sampled ranks must lie in 1..m+1={m + 1}")
    n = _n_for_users(n_u, n_mode, n_items if n_items is not None else int(np.max(n_u)))
    if lookup is None:
        lookup = _lookup_for(np.unique(n), m, metrics, estimators, sampling, processes)
    n_values, V = lookup
    index = np.searchsorted(n_values, n)
    if np.any(index >= n_values.size) or np.any(n_values[np.minimum(index, n_values.size - 1)] != n):
        raise ValueError("the correction lookup does not cover every user's n")
    out = np.empty((len(metrics), len(estimators), sampled.shape[0]))
    for k in range(len(metrics)):
        for e in range(len(estimators)):
            out[k, e] = V[index[None, :], k, e, sampled - 1].mean(axis=1)
    return out


def _lookup_for(n_values, m, metrics, estimators, sampling, processes=1):
    n_values = np.asarray(n_values, dtype=np.int64)
    check_nm(int(n_values.min()), m, sampling)
    log.info("corrections for %d distinct n, m=%d, %d metrics x %d estimators",
             n_values.size, m, len(metrics), len(estimators))
    return n_values, correction_lookup(metrics, estimators, n_values, m, sampling, processes)


def table3_frame(dataset: str, ranks: dict, m: int, metrics, estimators=ESTIMATORS,
                 sampling: str = "binomial", n_mode: str = "per_user",
                 n_items: int | None = None, processes: int = 1
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """KDD'20 Table 3 and the per-repeat values behind Table 4.

    Parameters
    ----------
    ranks : dict recommender -> mapping with ``exact`` (users,), ``n_u`` (users,) and
        ``sampled`` (repeats, users).

    Returns
    -------
    table3 : tidy frame ``dataset, recommender, metric, estimator, mean, std`` (std over
        repeats, ddof = 1; 0 for ``exact``).
    per_repeat : tidy frame ``dataset, recommender, metric, estimator, repeat, value``.
    """
    metric_names = [parse_metric(x).name for x in metrics]
    labels = [method_label(e) for e in estimators]
    if n_items is None:
        n_items = max(int(np.max(a["n_u"])) for a in ranks.values())
    all_n = np.unique(np.concatenate([_n_for_users(a["n_u"], n_mode, n_items)
                                      for a in ranks.values()]))
    lookup = _lookup_for(all_n, m, metric_names, estimators, sampling, processes)
    rows, reps = [], []
    for rec, arrays in ranks.items():
        est = estimator_table(arrays["sampled"], arrays["n_u"], m, metric_names, estimators,
                              sampling, n_mode, n_items, lookup)
        for k, metric in enumerate(metric_names):
            value = exact_metric(metric, arrays["exact"], arrays["n_u"])
            rows.append((dataset, rec, metric, "exact", value, 0.0))
            for e, label in enumerate(labels):
                v = est[k, e]
                rows.append((dataset, rec, metric, label, v.mean(), v.std(ddof=1)))
                reps.append(pd.DataFrame({"dataset": dataset, "recommender": rec,
                                          "metric": metric, "estimator": label,
                                          "repeat": np.arange(v.size), "value": v}))
    t3 = pd.DataFrame(rows, columns=["dataset", "recommender", "metric", "estimator", "mean",
                                     "std"])
    return t3, pd.concat(reps, ignore_index=True)


def table4_frame(table3: pd.DataFrame, per_repeat: pd.DataFrame) -> pd.DataFrame:
    """KDD'20 Table 4: of the repeats, how many order each pair of recommenders (a vs b) as
    the exact metric does (strictly; a tie counts as wrong).

    Returns a tidy frame ``dataset, pair, metric, estimator, correct, repeats``.
    """
    exact = table3[table3.estimator == "exact"].set_index(["dataset", "recommender",
                                                            "metric"])["mean"]
    wide = per_repeat.pivot_table(index=["dataset", "metric", "estimator", "repeat"],
                                  columns="recommender", values="value")
    rows = []
    recs = list(dict.fromkeys(per_repeat.recommender))
    for a, b in itertools.combinations(recs, 2):
        for (dataset, metric, estimator), grp in wide.groupby(level=[0, 1, 2], sort=False):
            truth = np.sign(exact[dataset, a, metric] - exact[dataset, b, metric])
            got = np.sign(grp[a].to_numpy() - grp[b].to_numpy())
            rows.append((dataset, f"{a} vs {b}", metric, estimator,
                         int(np.sum(got == truth)) if truth != 0 else 0, len(grp)))
    return pd.DataFrame(rows, columns=["dataset", "pair", "metric", "estimator", "correct",
                                       "repeats"])


def rank_buckets(ranks: dict, edges) -> pd.DataFrame:
    """Number of users whose exact rank falls in each bucket (lo, hi] of ``edges`` (Fig. 5).

    Returns a tidy frame ``recommender, bucket, lo, hi, users``.
    """
    edges = np.asarray(edges, dtype=np.float64)
    rows = []
    for rec, arrays in ranks.items():
        counts, _ = np.histogram(np.asarray(arrays["exact"], dtype=np.float64),
                                 bins=np.r_[edges[:-1] + 0.5, edges[-1] + 0.5])
        for lo, hi, c in zip(edges[:-1], edges[1:], counts):
            label = f"{int(lo) + 1}-{int(hi)}"
            rows.append((rec, label, int(lo) + 1, int(hi), int(c)))
    return pd.DataFrame(rows, columns=["recommender", "bucket", "lo", "hi", "users"])


def figure6_frame(ranks: dict, metric, m_values, estimators=("sampled", "bv_0.1"),
                  n_items: int | None = None, sampling: str = "binomial") -> pd.DataFrame:
    """Expected metric vs sample size m, analytically from the exact ranks (Fig. 6):
    mean_u E[M^(r~) | r_u] with every user's rank among n = ``n_items`` items (one correction
    per m). Non-integer exact ranks (averaged ties) are rounded down.

    Returns a tidy frame ``recommender, metric, estimator, m, expected``.
    """
    metric = parse_metric(metric)
    n = int(n_items if n_items is not None else max(int(np.max(a["n_u"])) for a in ranks.values()))
    rows = []
    for m in m_values:
        m = int(m)
        if m >= n:
            continue
        vecs = correction_vectors([metric], n, m, estimators, sampling)
        weights = [vecs[(metric.name, method_label(e))] for e in estimators]
        for rec, arrays in ranks.items():
            r = np.floor(np.asarray(arrays["exact"])).astype(np.int64)
            values, counts = np.unique(r, return_counts=True)
            e = expected_metric_matrix(weights, values, n, m, sampling) @ counts / counts.sum()
            rows += [(rec, metric.name, method_label(est), m, float(v)) for est, v in zip(estimators, e)]
    return pd.DataFrame(rows, columns=["recommender", "metric", "estimator", "m", "expected"])


