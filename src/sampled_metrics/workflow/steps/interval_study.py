"""How often does each interval contain the full-ranking metric? A grid of simulated
evaluations whose true ranks are known.

Each cell draws U users' true ranks from a shape of P(r) (``SHAPES``) over n items, their
sampled ranks under m negatives drawn by a law, and asks every method for a 95 % interval of
Recall@10, NDCG@10 and AP (untruncated) of these users, mean_u M(r_u) (the truth); with one
positive per user HR@10 is Recall@10 and MRR@k is AP@k. Methods (``METHODS``):

- ``recommended``: :func:`~sampled_metrics.intervals.recommended_interval`;
- ``profile``: its profile-likelihood interval without the users' spread (M(P), not the
  users' metric: the ablation that shows what the spread is for);
- ``profile_no_shape``: the profile interval over every P (piecewise uniform), with spread
  (on the cells with one n for all users: it needs the fine grid of atoms);
- ``mes``, ``mle``: Jin et al.'s estimators with a percentile bootstrap over users (the
  ``estimate`` command's interval); where n (m + 1) > ``ESTIMATOR_CELLS`` they are not run;
- ``cls``, ``bv_0.1``: KDD'20's corrections with a percentile bootstrap over users (the
  ``correct`` command's interval).

A cell with ``pool = per_user`` gives each user its own n_u = n - Uniform{0..n/10} (the
items outside its training set, as an evaluator that samples from them has); only
``recommended`` and ``profile``, which take one n per user, are run there. A cell with
``pool = several`` gives each user 1-4 positives (each rank drawn from the shape) sharing
its m negatives (:func:`several_positives`); the truth is the several-positives metric
(:mod:`sampled_metrics.multipositive`), and only ``recommended`` and ``profile`` apply. The shape ``rising`` is outside
the non-increasing family (a bump of mass deep in the ranking): it says what happens when the
recommended interval's assumption fails.
"""
from __future__ import annotations

import argparse
import logging
import zlib

import numpy as np
import pandas as pd

from ...corrections.vectors import correction
from ...estimators.dispatch import estimate_batches, estimate_from_histogram
from ...estimators.histogram import sampled_rank_histogram
from ...intervals import recommended_interval
from ...metrics import parse_metric
from ...multipositive.longformat import read_positions
from ...multipositive.positives import multi_positive_metric
from ...parallel import map_items
from ...registry import resolve_name
from ...resampling import bootstrap_histograms, percentile_interval
from ...sampling import draw_sampled_ranks
from ..tables import write_validation

__all__ = ["SHAPES", "COVERAGE_SHAPES", "RISING", "METHODS", "grid_cells", "grid_options", "option_cells", "cell_draw", "cell_intervals", "group_summary",
           "coverage_frame", "summary_frame", "validation"]

log = logging.getLogger(__name__)

#: shapes of P(r): name -> description (the sampler is ``true_ranks``)
SHAPES = {
    "flat": "uniform on 1..n (a random recommender)",
    "ml1m": "n Beta(0.3, 3) (the ML-1M study's iALS and item-kNN)",
    "sharp": "n Beta(0.15, 20) (a strong recommender)",
    "very_sharp": "Geometric(0.2) (most held-out items in the top 10)",
    "sequential": "30 % Geometric(1/3), 70 % uniform (a sequential recommender)",
    "rising": "exp(-r / 0.12 n) + 0.2 exp(-((r - 0.6 n) / 0.1 n)^2): not non-increasing",
    "plateau": "50 % uniform on the top 2 %, 50 % n Beta(1, 3): non-increasing with a step "
               "down, not convex",
    "flat_top": "flat on the top 10 %, then falling linearly to 0: non-increasing, not convex",
    "rising_head": "n Gamma(2, 0.02): rising to a mode at 0.02 n, then falling: not "
                   "non-increasing",
}
#: the shapes the coverage page's grid takes by default
COVERAGE_SHAPES = ("flat", "ml1m", "sharp", "very_sharp", "sequential", "rising")
#: the shapes that are not non-increasing (outside every group but their own)
RISING = ("rising", "rising_head")
METHODS = ("recommended", "profile", "profile_no_shape", "mes", "mle", "cls", "bv_0.1")
METRICS = ("recall@10", "ndcg@10", "ap")
#: MES and MLE (and their bootstrap) are run where n (m + 1) is at most this
ESTIMATOR_CELLS = 1_000_000
COLUMNS = ["shape", "n", "m", "sampling", "pool", "draw", "metric", "method", "value", "low",
           "high", "truth", "contains", "width"]


def true_ranks(shape: str, n_u: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """True ranks of the users (one per entry of ``n_u``, each in 1..n_u) under ``shape``."""
    U = n_u.size
    shape = resolve_name("shape", shape, SHAPES)
    if shape == "flat":
        u = rng.random(U)
    elif shape == "ml1m":
        u = rng.beta(0.3, 3, U)
    elif shape == "sharp":
        u = rng.beta(0.15, 20, U)
    elif shape == "very_sharp":
        return np.minimum(rng.geometric(0.2, U), n_u)
    elif shape == "sequential":
        top = np.minimum(rng.geometric(1 / 3, U), n_u)
        return np.where(rng.random(U) < 0.3, top, 1 + (rng.random(U) * n_u).astype(np.int64))
    elif shape == "rising":
        x = (np.arange(1, 1001) - 0.5) / 1000
        p = np.exp(-x / 0.12) + 0.2 * np.exp(-((x - 0.6) / 0.1) ** 2)
        u = rng.choice(x, U, p=p / p.sum()) + (rng.random(U) - 0.5) / 1000
    elif shape == "plateau":
        u = np.where(rng.random(U) < 0.5, 0.02 * rng.random(U), rng.beta(1, 3, U))
    elif shape == "flat_top":          # density a on [0, 0.1], a (1 - x) / 0.9 after
        top = rng.random(U) < 0.1 / 0.55
        u = np.where(top, 0.1 * rng.random(U), 1 - 0.9 * np.sqrt(rng.random(U)))
    elif shape == "rising_head":
        u = rng.gamma(2, 0.02, U)
    return np.clip(np.ceil(u * n_u), 1, n_u).astype(np.int64)


def grid_cells(ns, ms, samplings, shapes, draws: int, per_user_n=(), several_n=()) -> list[dict]:
    """Every (shape, n, m, law, pool, draw) with m < n; ``per_user_n``: the n of the cells
    that also run with one n_u per user, ``several_n`` with several positives per user."""
    cells = []
    for n in ns:
        pools = (["common"] + (["per_user"] if n in per_user_n else [])
                 + (["several"] if n in several_n else []))
        for pool in pools:
            for m in ms:
                for sampling in samplings:
                    for shape in shapes:
                        cells += [dict(shape=shape, n=n, m=m, sampling=sampling, pool=pool,
                                       draw=d) for d in range(draws) if m < n * 0.9]
    return cells


def grid_options(parser: argparse.ArgumentParser) -> None:
    """The options of a study over the grid (the coverage study, its ablations): the grid of
    cells (``--n``, ``--m``, ``--sampling``, ``--shapes``, ``--draws``, ``--per-user-n``,
    ``--several-n``; :func:`grid_cells`), the users of each cell and the seed, with the
    coverage page's grid as defaults.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> grid_options(parser)
    >>> args = parser.parse_args(["--n", "1000", "--m", "100", "--shapes", "flat"])
    >>> args.n, args.m, args.sampling, args.draws, args.users
    ([1000], [100], 'binomial,hypergeometric', 3, 6040)
    >>> len(option_cells(args))        # two laws, three draws; 1000 is not a per-user n
    6
    """
    parser.add_argument("--n", type=_numbers, default=[1000, 3706, 30000], help="items")
    parser.add_argument("--m", type=_numbers, default=[50, 100, 1000], help="negatives")
    parser.add_argument("--sampling", default="binomial,hypergeometric",
                        help="comma-separated sampling laws")
    parser.add_argument("--shapes", default=",".join(COVERAGE_SHAPES),
                        help="comma-separated shapes of P(r)")
    parser.add_argument("--draws", type=int, default=3, help="independent draws per cell")
    parser.add_argument("--per-user-n", type=_numbers, default=[3706],
                        help="the n whose cells also run with one n_u per user")
    parser.add_argument("--several-n", type=_numbers, default=[3706],
                        help="the n whose cells also run with 1-4 positives per user")
    parser.add_argument("--users", type=int, default=6040, help="users per cell")
    parser.add_argument("--seed", type=int, default=0)


def option_cells(args: argparse.Namespace) -> list[dict]:
    """The cells (:func:`grid_cells`) of the options :func:`grid_options` added."""
    return grid_cells(args.n, args.m, args.sampling.split(","), args.shapes.split(","),
                      args.draws, args.per_user_n, args.several_n)


def _numbers(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def cell_key(cell: dict, seed: int) -> list:
    """The seed of a cell's generators: ``seed`` and the cell's values."""
    return [seed, zlib.crc32(cell["shape"].encode()), cell["n"], cell["m"],
            cell["sampling"] == "binomial", cell["pool"] == "per_user", cell["draw"]]


def cell_draw(cell: dict, users: int, seed: int) -> tuple:
    """One cell's simulated evaluation, keyed by its values and ``seed``: the sampled ranks
    (one per positive), the n they are ranked among (one, or one per user), the keywords
    that pass several positives to the recommended interval (``user``, ``above``; none for
    one per user) and the truth, ``{metric: the users' full metric}``."""
    rng = np.random.default_rng(cell_key(cell, seed))
    n, m, sampling = cell["n"], cell["m"], cell["sampling"]
    if cell["pool"] == "several":
        frame, full, user = several_positives(cell["shape"], users, n, m, sampling, rng)
        table = read_positions(frame)
        positions = np.split(full[np.argsort(user, kind="stable")],
                             np.cumsum(np.bincount(user))[:-1])
        truth = {x: float(multi_positive_metric(x, positions, np.full(users, n - 1)).mean())
                 for x in METRICS}
        return (table.position - table.above, n, {"user": table.user, "above": table.above},
                truth)
    n_u = np.full(users, n, dtype=np.int64)
    if cell["pool"] == "per_user":
        n_u -= rng.integers(0, n // 10 + 1, users)
    r = true_ranks(cell["shape"], n_u, rng)
    s = draw_sampled_ranks(r, n_u, m, sampling, rng=rng)
    return s, n_u, {}, {x: float(parse_metric(x)(r, n_u).mean()) for x in METRICS}


def cell_intervals(cell: dict, users: int, bootstrap: int, seed: int) -> pd.DataFrame:
    """One row per (metric, method) of one cell (columns ``COLUMNS``)."""
    key = cell_key(cell, seed)
    n, m, sampling = cell["n"], cell["m"], cell["sampling"]
    s, n_u, positives, truth = cell_draw(cell, users, seed)
    rows = []

    def add(method, metric, value, low, high):
        rows.append({**cell, "metric": metric, "method": method, "value": value, "low": low,
                     "high": high, "truth": truth[metric]})

    for row in recommended_interval(s, n_u, m, list(METRICS), sampling,
                                    **positives).itertuples():
        add("recommended", row.metric, row.value, row.ci_low, row.ci_high)
        add("profile", row.metric, (row.profile_low + row.profile_high) / 2, row.profile_low,
            row.profile_high)
    if cell["pool"] == "common":
        for row in recommended_interval(s, n, m, list(METRICS), sampling,
                                        shape="none").itertuples():
            add("profile_no_shape", row.metric, row.value, row.ci_low, row.ci_high)
        boot = bootstrap_histograms(s, m, bootstrap, [seed, *key])
        hist = sampled_rank_histogram(s, m)
        for name in ("cls", "bv_0.1"):
            for metric in METRICS:
                vec = correction(metric, n, m, name, sampling=sampling)
                add(name, metric, float(hist @ vec), *percentile_interval(boot @ vec, 0.95))
        if n * (m + 1) <= ESTIMATOR_CELLS:
            weights = np.stack([parse_metric(x).weights(n) for x in METRICS])
            for name in ("mes", "mle"):
                value = weights @ estimate_from_histogram(hist, n, m, name, sampling)
                draws = estimate_batches(boot, n, m, name, sampling) @ weights.T
                for k, metric in enumerate(METRICS):
                    add(name, metric, float(value[k]), *percentile_interval(draws[:, k], 0.95))
    frame = pd.DataFrame(rows)
    frame["contains"] = (frame["low"] <= frame["truth"]) & (frame["truth"] <= frame["high"])
    frame["width"] = frame["high"] - frame["low"]
    return frame[COLUMNS]


def several_positives(shape: str, users: int, n: int, m: int, sampling: str,
                      rng: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Users with 1-4 positives, each ranked r_i ~ ``shape`` among the n - 1 non-relevant
    items and itself, sharing the user's m negatives drawn from those n - 1 (with or
    without replacement): the long format (``user, position, n_nonrelevant, n_negatives``),
    each positive's full position r_i + a_i and its user."""
    k = rng.integers(1, 5, users)
    user = np.repeat(np.arange(users), k)
    r = true_ranks(shape, np.full(user.size, n), rng)
    order = np.lexsort((np.arange(user.size), r, user))
    above = np.empty(user.size, np.int64)
    above[order] = np.arange(user.size) - np.repeat(np.cumsum(k) - k, k)
    if sampling == "hypergeometric":
        negatives = np.argsort(rng.random((users, n - 1)), axis=1)[:, :m] + 1
    else:
        negatives = rng.integers(1, n, (users, m))
    negatives.sort(axis=1)
    below_r = np.array([np.searchsorted(negatives[u], r_i) for u, r_i in zip(user, r)])
    frame = pd.DataFrame({"user": user, "position": 1 + below_r + above,
                          "n_nonrelevant": n - 1, "n_negatives": m})
    return frame, r + above, user


def _cell(cell, users, bootstrap, seed):
    log.info("cell %s", " ".join(f"{k}={v}" for k, v in cell.items()))
    return cell_intervals(cell, users, bootstrap, seed)


def coverage_frame(cells, *, users: int = 6040, bootstrap: int = 100, seed: int = 0,
                   processes: int = 1) -> pd.DataFrame:
    """:func:`cell_intervals` of every cell, in the cells' order (any ``processes``)."""
    return pd.concat(map_items(_cell, cells, users, bootstrap, seed, processes=processes),
                     ignore_index=True)


def group_summary(frame: pd.DataFrame, groups, by, **aggregates) -> pd.DataFrame:
    """The rows of ``frame`` each group of ``groups`` (name, boolean mask) keeps, aggregated
    by the columns ``by`` (``DataFrame.agg``'s named ``aggregates``), one block per group
    with its name in a first column ``group``; an empty group gives no rows.

    Examples
    --------
    >>> frame = pd.DataFrame({"metric": ["a", "a", "b"], "hit": [True, False, True]})
    >>> group_summary(frame, [("all", frame["hit"] | True), ("none", frame["hit"] & False)],
    ...               ["metric"], share=("hit", "mean")).values.tolist()
    [['all', 'a', 0.5], ['all', 'b', 1.0]]
    """
    parts = []
    for group, keep in groups:
        part = frame[keep]
        if part.empty:
            continue
        g = part.groupby(by, sort=False).agg(**aggregates).reset_index()
        g.insert(0, "group", group)
        parts.append(g)
    return pd.concat(parts, ignore_index=True)


def summary_frame(per_cell: pd.DataFrame) -> pd.DataFrame:
    """Per (group, method, metric): cells, share of intervals containing the truth and
    median width. Groups: ``all`` (every non-increasing shape), ``common-n``,
    ``per-user-n`` and ``several`` (its pools), then each shape on its own (``RISING``'s
    are only there)."""
    inside = ~per_cell["shape"].isin(RISING)
    groups = [("all", inside), ("common-n", inside & (per_cell["pool"] == "common")),
              ("per-user-n", inside & (per_cell["pool"] == "per_user")),
              ("several", inside & (per_cell["pool"] == "several"))]
    groups += [(shape, per_cell["shape"] == shape) for shape in SHAPES]
    out = group_summary(per_cell, groups, ["method", "metric"], cells=("contains", "size"),
                        coverage=("contains", "mean"), median_width=("width", "median"))
    rank = {x: i for i, x in enumerate(METHODS)}
    out["_rank"] = out["method"].map(rank)
    return (out.sort_values(["_rank"], kind="stable").sort_values(["group"], kind="stable",
            key=lambda c: c.map({g: i for i, (g, _) in enumerate(groups)}))
            .drop(columns="_rank").reset_index(drop=True))


def validation(cells, out_stem, *, users: int = 6040, bootstrap: int = 100, seed: int = 0,
               processes: int = 1) -> pd.DataFrame:
    """Write ``<out_stem>_per_repeat.csv`` (every cell), ``<out_stem>.csv`` and ``.md`` (the
    summary); returns the summary."""
    per_cell = coverage_frame(cells, users=users, bootstrap=bootstrap, seed=seed,
                              processes=processes)
    summary = summary_frame(per_cell)
    shown = summary.assign(coverage=(100 * summary["coverage"]).round(1),
                           median_width=summary["median_width"].round(4))
    write_validation(out_stem, per_cell, summary, shown,
                     f"{len(cells)} cells, {users} users each, nominal level 95 %")
    return summary
