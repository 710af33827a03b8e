"""The protocols study: sampled evaluations as researchers run them, on a dataset
with our recommenders, where the exact metrics are known.

Splits: ``last`` (leave-last-out, one positive per user) and ``holdout`` (a random fraction
of each user's items, :mod:`sampled_metrics.multipositive.holdout`). Protocols
(:mod:`sampled_metrics.multipositive.laws`):

``per_user``        M_u = m distinct uniform negatives per user (KDD'20; hypergeometric)
``per_positive``    m uniform negatives per positive, with replacement (RecBole uni<m>);
                    M_u = m k_u, binomial
``pop<alpha>``      m negatives per positive drawn ∝ popularity^alpha among the user's N_u
                    non-relevant items (RecBole pop<m>), with replacement; popularity = the
                    item's training interactions (items with none are never drawn)

Simulation. Each recommender is fitted once per split and every user scored once. Ties are
broken by seeded keys (one total order per user), so positive i has x_i non-relevant items
above it exactly. A protocol only needs, per positive, the number y_i of drawn negatives
above it: under uniform draws the counts of draws in the gaps between consecutive positives'
x are Multinomial(M, gap / N) (with replacement) or multivariate hypergeometric (without),
drawn directly; under popularity draws the counts per non-relevant item are
Multinomial(M, q) over the items in rank order, which also gives the weighted estimate
x^_i = (1/M) sum over draws above of 1/q. Draws are keyed by (seed, dataset, split,
protocol, recommender, repeat, block): each recommender gets its own negatives (a harder
test of orderings than shared negatives, which correlate the recommenders' errors).

Outputs a tidy frame: split, protocol, recommender, metric, method, repeat, value (mean over
users; ``exact`` has repeat -1).
"""
from __future__ import annotations

import logging
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ..compare.verdicts import orders_like_exact
from ..datasets import load_split
from ..figures import REC_COLORS, save  # (it selects matplotlib's Agg backend)
from ..multipositive.holdout import SPLITS, leave_last_out_positives, random_holdout
from ..multipositive.positives import PositiveTable, correct_positives, multi_positive_metric
from ..multipositive.weighted import weighted_corrected_metric
from ..recommenders import make_recommender
from ..seeds import derive_seed, generator
from ..tables import atomic_write_text, percent, render_markdown, write_csv

__all__ = ["protocol_runs", "protocols_table", "ordering_agreement", "write_runs",
           "write_outputs", "protocols_figure", "uniform_counts", "categorical_counts"]

log = logging.getLogger(__name__)
BLOCK = 512


def _positions_and_x(model, pos, seed):
    """Per positive (sorted by user, then full rank): its row, x (non-relevant above) and
    a (positives above); and per block the non-relevant items in rank order."""
    n_items = pos.train.shape[1]
    rows_out, x_out, order_blocks = [], [], []
    starts = np.concatenate([[0], np.cumsum(pos.k)])
    for block, lo in enumerate(range(0, pos.users.size, BLOCK)):
        hi = min(lo + BLOCK, pos.users.size)
        users = pos.users[lo:hi]
        with threadpool_limits(1, "blas"):
            scores = np.asarray(model.score(users), dtype=np.float64)
        keys = generator(seed, "ties", block).random(scores.shape)
        b = hi - lo
        excluded = np.asarray(pos.train[users].todense(), dtype=bool)
        p_lo, p_hi = starts[lo], starts[hi]
        prow = pos.user_row[p_lo:p_hi] - lo
        pitem = pos.item[p_lo:p_hi]
        is_pos = np.zeros((b, n_items), dtype=bool)
        is_pos[prow, pitem] = True
        # rank order of every item: by score, then key, descending
        order = np.lexsort((-keys, -scores), axis=-1)
        rank = np.empty_like(order)
        rank[np.arange(b)[:, None], order] = np.arange(n_items)[None, :]
        nonrel = ~(excluded | is_pos)
        # nonrelevant count at ranks < rank of the positive
        nonrel_sorted = np.take_along_axis(nonrel, order, axis=1)
        cum = np.concatenate([np.zeros((b, 1), np.int64), np.cumsum(nonrel_sorted, axis=1)],
                             axis=1)
        prank = rank[prow, pitem]
        x = cum[prow, prank]
        rows_out.append(prow + lo)
        x_out.append((x, prank))
        order_blocks.append((lo, hi, order, nonrel_sorted))
    row = np.concatenate(rows_out)
    x = np.concatenate([v[0] for v in x_out])
    prank = np.concatenate([v[1] for v in x_out])
    srt = np.lexsort((prank, row))
    row, x = row[srt], x[srt]
    a = np.arange(row.size) - starts[row]
    return row, x, a, order_blocks


def uniform_counts(rng, x, row_lo, k, N, M, replace):
    """y per positive for one block of users: draws in the gaps between sorted x."""
    b = k.size
    kmax = int(k.max())
    starts = np.concatenate([[0], np.cumsum(k)])
    col = np.arange(x.size) - starts[row_lo]
    X = np.zeros((b, kmax + 1), dtype=np.int64)
    X[row_lo, col] = x
    valid = np.arange(kmax)[None, :] < k[:, None]
    last = np.where(valid, X[:, :kmax], -1).max(axis=1)
    X[:, kmax] = N
    X[:, :kmax] = np.where(valid, X[:, :kmax], last[:, None])
    gaps = np.diff(np.concatenate([np.zeros((b, 1), np.int64), X], axis=1), axis=1)
    if replace:
        counts = rng.multinomial(M, gaps / N[:, None])
    else:
        counts = np.zeros_like(gaps)
        left, pool = M.copy(), N.copy()
        for j in range(kmax + 1):
            g, live = gaps[:, j], left > 0          # live: left <= pool (M <= N)
            draw = rng.hypergeometric(np.where(live, g, 0), np.where(live, pool - g, 1),
                                      np.where(live, left, 1))
            counts[:, j] = np.where(live, draw, 0)
            left -= counts[:, j]
            pool -= g
    # y_i = draws in gaps 0..i-1 (the gaps above the i-th positive)
    y = np.concatenate([np.zeros((b, 1), np.int64), np.cumsum(counts, axis=1)], axis=1)
    return y[row_lo, col + 1]


def _popularity_table(order, nonrel_sorted, pop, alpha):
    """(q, N) of a block: row i holds q_j ∝ pop_j^alpha of user i's N_i non-relevant items
    in rank order (then zeros)."""
    b = order.shape[0]
    w = np.where(nonrel_sorted, pop[order] ** alpha, 0.0)
    q = w / w.sum(axis=1, keepdims=True)
    N = nonrel_sorted.sum(axis=1)
    qn = np.zeros((b, int(N.max())))
    qn[np.arange(qn.shape[1])[None, :] < N[:, None]] = q[nonrel_sorted]
    return qn, N


def _popularity_counts(rng, x, row_lo, qn, N, M):
    """(y, x^) per positive of a block under popularity draws (``qn, N`` from
    :func:`_popularity_table`)."""
    b = qn.shape[0]
    counts = categorical_counts(rng, qn, N, M)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(qn > 0, counts / qn, 0.0)
    cw = np.concatenate([np.zeros((b, 1)), np.cumsum(ratio, axis=1)], axis=1)
    cc = np.concatenate([np.zeros((b, 1), np.int64), np.cumsum(counts, axis=1)], axis=1)
    return cc[row_lo, x], cw[row_lo, x] / M[row_lo]


def categorical_counts(rng, qn, N, M) -> np.ndarray:
    """(b, width) counts of M[i] draws from row i's probabilities qn[i, :N[i]] (inverse CDF
    on the rows laid end to end: row offset + cumulative probability)."""
    b, width = qn.shape
    cdf = np.cumsum(qn, axis=1)
    row = np.repeat(np.arange(b), M)
    u = row + rng.random(row.size) * cdf[row, N[row] - 1]
    idx = np.searchsorted((cdf + np.arange(b)[:, None]).ravel(), u, side="right")
    idx = np.minimum(idx - row * width, N[row] - 1)
    return np.bincount(row * width + idx, minlength=b * width).reshape(b, width)


def protocol_runs(split_path, split_kind: str, recommenders: dict, *, dataset: str,
                  seed: int, fraction: float, m: int, repeats: int, alphas,
                  popularity_repeats: int, metrics, corrections, processes: int = 1
                  ) -> pd.DataFrame:
    """The tidy frame of the module docstring for one split of one dataset."""
    split = load_split(split_path)
    base = derive_seed(seed, dataset, "protocols", split_kind)
    if split_kind not in SPLITS:
        raise ValueError(f"unknown split {split_kind!r}; expected one of {', '.join(SPLITS)}")
    pos = (leave_last_out_positives(split) if split_kind == "last"
           else random_holdout(split, fraction, derive_seed(seed, dataset)))
    N_u = pos.n_nonrelevant()
    pop = np.asarray(pos.train.sum(axis=0)).ravel()
    out = []
    for rec, spec in recommenders.items():
        spec = dict(spec)
        model = make_recommender(spec.pop("model"), **spec)
        start = time.perf_counter()
        model.fit(pos.train)
        row, x, a, blocks = _positions_and_x(model, pos, derive_seed(base, "ties"))
        log.info("%s %s: fitted and ranked in %.1f s (%d users, %d positives)", split_kind,
                 rec, time.perf_counter() - start, pos.users.size, row.size)
        exact = {mt: multi_positive_metric(mt, np.split(a + 1 + x, np.cumsum(pos.k)[:-1]),
                                           N_u).mean() for mt in metrics}
        out += [(split_kind, "exact", rec, mt, "exact", -1, v) for mt, v in exact.items()]
        protocols = [("per_user", np.full(pos.users.size, m), False, repeats),
                     ("per_positive", m * pos.k, True, repeats)]
        for name, M_u, replace, reps in protocols:
            sampling = "binomial" if replace else "hypergeometric"
            for j in range(reps):
                y = _draw_blocks(lambda rng, sl, rl, blk: uniform_counts(
                    rng, x[sl], rl, pos.k[blk[0]:blk[1]], N_u[blk[0]:blk[1]],
                    M_u[blk[0]:blk[1]], replace), base, name, rec, j, row, pos)
                table = PositiveTable.from_long(row, a + 1 + y, N_u, M_u, dense_users=True)
                values = correct_positives(table, metrics, corrections, sampling,
                                           processes=processes)
                out += [(split_kind, name, rec, mt, lab, j, v.mean())
                        for (mt, lab), v in values.items()]
            log.info("%s %s %s: %d repeats done", split_kind, rec, name, reps)
        for alpha in alphas:
            name = f"pop{alpha:g}"
            M_u = m * pos.k
            tables = [_popularity_table(order, nonrel, pop, alpha)
                      for _, _, order, nonrel in blocks]
            for j in range(popularity_repeats):
                res = _draw_blocks(lambda rng, sl, rl, blk: _popularity_counts(
                    rng, x[sl], rl, *tables[blk[2]], M_u[blk[0]:blk[1]]), base, name, rec, j,
                    row, pos, pairs=True)
                y, xhat = res
                table = PositiveTable.from_long(row, a + 1 + y, N_u, M_u, dense_users=True)
                plain = correct_positives(table, metrics, ["sampled"], "binomial")
                positions = np.split(a + 1 + y, np.cumsum(pos.k)[:-1])
                for mt in metrics:
                    out.append((split_kind, name, rec, mt, "sampled", j,
                                plain[(mt, "sampled")].mean()))
                    out.append((split_kind, name, rec, mt, "weighted_rank_estimate", j,
                                weighted_corrected_metric(mt, positions, N_u,
                                                          1 + xhat).mean()))
            log.info("%s %s %s: %d repeats done", split_kind, rec, name, popularity_repeats)
    return pd.DataFrame(out, columns=["split", "protocol", "recommender", "metric", "method",
                                      "repeat", "value"])


def _draw_blocks(fn, base, protocol, rec, repeat, row, pos, pairs=False):
    """Apply ``fn(rng, positive slice, local rows, (lo, hi, block))`` per user block with
    the block's own stream; concatenates the per-positive results."""
    starts = np.concatenate([[0], np.cumsum(pos.k)])
    parts = []
    for block, lo in enumerate(range(0, pos.users.size, BLOCK)):
        hi = min(lo + BLOCK, pos.users.size)
        sl = slice(starts[lo], starts[hi])
        rng = generator(base, protocol, rec, repeat, block)
        parts.append(fn(rng, sl, row[sl] - lo, (lo, hi, block)))
    if pairs:
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(2))
    return np.concatenate(parts)


def ordering_agreement(runs: pd.DataFrame, min_gap: float = 0.05) -> pd.DataFrame:
    """Per (split, protocol, metric, method, pair of recommenders with exact relative gap >=
    min_gap): repeats whose order agrees with the exact one, out of the repeats."""
    exact = runs[runs.method == "exact"].set_index(["split", "recommender", "metric"]).value
    rows = []
    sampled = runs[runs.method != "exact"]
    for (split, protocol, metric, method), g in sampled.groupby(
            ["split", "protocol", "metric", "method"], sort=False):
        wide = g.pivot(index="repeat", columns="recommender", values="value")
        recs = list(wide.columns)
        for i, r1 in enumerate(recs):
            for r2 in recs[i + 1:]:
                e1, e2 = exact[(split, r1, metric)], exact[(split, r2, metric)]
                gap = abs(e1 - e2) / max(e1, e2)
                if gap < min_gap:
                    continue
                agree = int(orders_like_exact(wide[r1], wide[r2], e1, e2).sum())
                rows.append((split, protocol, metric, method, f"{r1} vs {r2}", gap, agree,
                             len(wide)))
    return pd.DataFrame(rows, columns=["split", "protocol", "metric", "method", "pair",
                                       "exact_gap", "agree", "repeats"])


def protocols_table(runs: pd.DataFrame, min_gap: float = 0.05) -> pd.DataFrame:
    """Mean and std over repeats, relative error of the mean vs exact, and the fewest
    agreeing repeats over the pairs with an exact gap >= 5 % (NaN if none)."""
    exact = runs[runs.method == "exact"].set_index(["split", "recommender", "metric"]).value
    stats = (runs[runs.method != "exact"]
             .groupby(["split", "protocol", "recommender", "metric", "method"], sort=False)
             .value.agg(["mean", "std", "count"]).reset_index())
    stats["exact"] = [exact[(s, r, m)] for s, r, m in
                      zip(stats.split, stats.recommender, stats.metric)]
    stats["rel_error"] = (stats["mean"] - stats["exact"]) / stats["exact"]
    agree = ordering_agreement(runs, min_gap)
    worst = agree.groupby(["split", "protocol", "metric", "method"]).agree.min()
    stats["min_agree"] = [worst.get((s, p, m, me), np.nan) for s, p, m, me in
                          zip(stats.split, stats.protocol, stats.metric, stats.method)]
    return stats.rename(columns={"count": "repeats"})


# ----------------------------------------------------------------------------- artefacts

def write_runs(split_path, split_kind, recommenders: dict, out, **options) -> None:
    """Rule ``protocol_runs``: the tidy runs CSV of one split."""
    write_csv(protocol_runs(split_path, split_kind, recommenders, **options), out)


def write_outputs(run_paths, outputs: dict, dataset: str, min_gap: float = 0.05) -> None:
    """Rule ``protocols_table``: table (CSV, md), ordering CSV and figure (pdf, png)."""
    runs = pd.concat([pd.read_csv(p) for p in run_paths], ignore_index=True)
    table = protocols_table(runs, min_gap)
    write_csv(table, outputs["table"])
    write_csv(ordering_agreement(runs, min_gap), outputs["ordering"])
    shown = table.assign(
        value=[percent(m, s) for m, s in zip(table["mean"], table["std"])],
        exact=[percent(e) for e in table["exact"]],
        rel_error=[f"{100 * e:+.1f}%" for e in table["rel_error"]],
        min_agree=["" if np.isnan(v) else f"{int(v)}/{r}" for v, r in
                   zip(table["min_agree"], table["repeats"])])
    atomic_write_text(outputs["table_md"], render_markdown(
        shown[["split", "protocol", "recommender", "metric", "method", "value", "exact",
               "rel_error", "min_agree"]],
        title=f"Protocols study on {dataset} (values in %, mean±std over repeats)",
        note=f"min_agree: fewest repeats, over the recommender pairs whose exact gap is >= "
             f"{100 * min_gap:g} %, that order the pair as the exact metric does."))
    protocols_figure(table, outputs["figure"])


def protocols_figure(table: pd.DataFrame, out_stem) -> None:
    """Mean/exact (with ±std bars) of every method, one panel per (split, protocol) and
    metric, one marker per recommender."""
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
