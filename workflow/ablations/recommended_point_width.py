"""Which printed value and which width for the recommended answer? Candidates measured on the
coverage grid's simulated evaluations, whose users' full metric is known
(sampled_metrics.workflow.steps.interval_study; docs: Intervals validated).

    python workflow/ablations/recommended_point_width.py [--draws 3] [--shapes ml1m,sharp]
    # -> results/validation/recommended_point_width.csv (one row per cell and metric)
    #    and recommended_point_width_summary.csv (per cell group, metric and candidate)

Each cell draws its users' true and sampled ranks exactly as the coverage grid does (same
seeds, same cells), runs the recommended answer's fit (its likelihood blocks and functionals,
as ``recommended_interval`` builds them) and computes, for each metric:

Printed values (today: the midpoint of today's interval)

- ``mle``: M(P^), the metric of the most likely P under the shape (the fit's w^);
- ``posterior_mean``: the users' metric predicted from their sampled ranks under P^,
  (1/U) sum_u E_P^[M(r_u) | r~_u] (empirical Bayes);
- ``profile_midpoint``: the profile interval's midpoint, before the users' spread widens it;
- ``likelihood_centre``: the centre of mass of the profile likelihood exp(l_p(theta) - max l)
  over theta = M(P); by the layer-cake formula, with [lo(kappa), hi(kappa)] the profile
  interval at drop kappa, int e^-kappa (hi^2 - lo^2)/2 dkappa / int e^-kappa (hi - lo)
  dkappa, each by generalised Gauss-Laguerre quadrature (weight kappa^(1/2) e^-kappa: exact
  for a quadratic profile, whose width grows as kappa^(1/2));
- ``centre_50``: the midpoint of the 50 % profile interval;
- ``midpoint_<width>``: the midpoint of each width candidate's interval.

Widths (the profile interval [lo, hi] of M(P) at chi2_{1,0.95}/2 and the users' spread)

- ``linear`` (today): [lo - z sd_lo, hi + z sd_hi], sd^2 = Var_P M(r) / U at the end's P;
- ``quadrature``: M^ -+ sqrt((M^ - lo)^2 + (z sd_lo)^2) and sqrt((hi - M^)^2 + (z sd_hi)^2),
  M^ = M(P^): the estimation error and the users' spread added as independent errors (they
  are positively correlated, the sampled ranks following the users' ranks, which makes the
  sum's variance smaller still); never wider than ``linear``;
- ``joint``: the profile interval of the users' metric T = M(P) + e jointly over P and the
  users' deviation e ~ N(0, sd_P^2), ``recommended_interval(..., spread='joint')``'s
  (certified ends, sd at each end's P): quadrature where the profile is quadratic, nearly
  linear where its end is the shape's edge (a flat P);
- ``conditional``: as ``quadrature`` with the users' spread given their sampled ranks,
  sd_c^2 = (1/U^2) sum_u Var_P[M(r_u) | r~_u] at the end's P: the part of the users' metric
  that no function of the sampled ranks follows (T - E_P[T | r~] is uncorrelated with any
  estimate);
- ``conditional_linear``: [lo - z sd_c,lo, hi + z sd_c,hi].

The bootstrap bias correction of the midpoint or of M(P^) (the bias estimated at P^) is not a
candidate here: P^ moves freely along the directions the sampled ranks barely see, which is
where the midpoint's bias comes from, and on ml1m and sharp at n = 3,706, m = 100 (four
draws each, ten bootstrap draws) it multiplied the midpoint's RMSE 1.2-4.4 fold.

The summary gives, per cell group (as the coverage page's: ``all`` non-increasing shapes,
the pools, each shape) and metric: each value's RMSE against the truth and its ratio to
today's; each width's coverage, median width and the ratio of its median to today's.
Each cell's time in the log; ``--processes`` spreads the cells over worker processes. The
default grid (504 cells, three draws as the coverage page) took about 1 h 45 min on one
process, most of it in the several-positives cells at m = 1,000 (1-5 min each); ``--draws 1``
about 30 min.
"""
from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
from scipy import special, stats
from threadpoolctl import threadpool_limits

from sampled_metrics.design import Design
from sampled_metrics.intervals import recommended as rec
from sampled_metrics.intervals.recommended import spread_sd
from sampled_metrics.intervals.atoms import _law_columns
from sampled_metrics.intervals.profile import mixture_mle, profile_ranges
from sampled_metrics.multipositive.positives import positive_normaliser
from sampled_metrics.multipositive.shifted import ShiftedMetric
from sampled_metrics.parallel import map_items
from sampled_metrics.workflow.steps.interval_study import (METRICS, SHAPES, cell_draw,
                                                           grid_options, option_cells)
from sampled_metrics.workflow.tables import write_csv

log = logging.getLogger("recommended_point_width")

LEVEL = 0.95
Z = stats.norm.ppf((1 + LEVEL) / 2)
KAPPA = stats.chi2.ppf(LEVEL, 1) / 2
KAPPA_50 = stats.chi2.ppf(0.5, 1) / 2
#: generalised Gauss-Laguerre nodes and weights (alpha = 1/2) of the likelihood centre
CENTRE_NODES, CENTRE_WEIGHTS = special.roots_genlaguerre(2, 0.5)
WIDTHS = ("linear", "quadrature", "joint", "conditional", "conditional_linear")
POINTS = ("today", "mle", "posterior_mean", "profile_midpoint", "likelihood_centre",
          "centre_50") + tuple(f"midpoint_{w}" for w in WIDTHS[1:])


def fit_parts(s, n_u, m, sampling, positives):
    """The recommended answer's fit as ``recommended_interval`` builds it: per block the
    positives' (r~, n_u, m_u, a, b), per metric its name, Metric and per block the
    functional (c, first, second, var_coef) with the positives' (shift, user) and k, and
    the blocks' likelihoods (L, h)."""
    blocks, functionals = [], []
    likelihood, functional = rec._likelihood, rec._functional

    def record_likelihood(s, n_u, m_u, sampling, design, a, b, slope):  # uniform atoms only
        blocks.append((s, n_u, m_u, a, b))
        return likelihood(s, n_u, m_u, sampling, design, a, b, slope)

    def record_functional(metric, n_u, shift, users, k, a, b, slope):
        functionals.append((metric, shift, users, k))
        return functional(metric, n_u, shift, users, k, a, b, slope)

    with mock.patch.object(rec, "_likelihood", record_likelihood), \
            mock.patch.object(rec, "_functional", record_functional), \
            mock.patch.object(rec, "_intervals", lambda *args: args):
        Ls, counts, specs, _, _ = rec.recommended_interval(s, n_u, m, list(METRICS), sampling,
                                                           level=LEVEL, **positives)
    per_metric = [functionals[i * len(blocks):(i + 1) * len(blocks)]
                  for i in range(len(specs))]
    return blocks, list(Ls), list(counts), [(name, parts, extra) for (name, parts), extra
                                            in zip(specs, per_metric)]


def rank_law(w, a, b, n: int) -> np.ndarray:
    """P(r), r = 1..n, of the mixture sum_j w_j U(a_j, b_j] with each atom clipped to the
    n ranks as the fit clips it: (min(a_j, n - 1), min(b_j, n)]."""
    lo, hi = np.minimum(a, n - 1), np.minimum(b, n)
    step = np.zeros(n + 1)
    np.add.at(step, lo, w / (hi - lo))
    np.add.at(step, hi, -w / (hi - lo))
    return np.cumsum(step)[:n]


def block_laws(block, sampling) -> list[tuple]:
    """Per (n, m) of a block's positives: (n, m, their rows, their distinct r~, each row's
    index among those, the n x distinct matrix p(r~ | r)), computed once for every metric and
    mixture."""
    s, n_u, m_u, _, _ = block
    keys, group = np.unique(np.stack([n_u, m_u]), axis=1, return_inverse=True)
    group = group.reshape(-1)
    laws = []
    for g, (n, m) in enumerate(keys.T):
        rows = np.flatnonzero(group == g)
        values, back = np.unique(s[rows], return_inverse=True)
        laws.append((int(n), int(m), rows, back.reshape(-1),
                     _law_columns(values, Design(int(n), int(m), sampling))))
    return laws


def posterior_moments(block, laws, metric, shift, w) -> tuple[np.ndarray, np.ndarray]:
    """E_P[t(r) | r~] and E_P[t(r)^2 | r~] for each positive of a block, t its shifted
    term, P the block's mixture with weights ``w``; ``laws``: :func:`block_laws`."""
    _, _, _, a, b = block
    shift = np.zeros_like(shift) if metric.kind == "auc" else shift
    first, second = np.empty(shift.size), np.empty(shift.size)
    for n, m, rows, back, cols in laws:
        P = rank_law(w, a, b, n)
        q = P @ cols
        for above in np.unique(shift[rows]):
            t = ShiftedMetric(metric.kind, metric.k, int(above)).weights(n)
            e1, e2 = (P * t) @ cols / q, (P * t * t) @ cols / q
            mine = shift[rows] == above
            first[rows[mine]], second[rows[mine]] = e1[back[mine]], e2[back[mine]]
    return first, second


def posterior_terms(blocks, laws, extra, ws) -> tuple[float, float]:
    """(1/U) sum_u E_P[M_u | r~] and the conditional standard error
    sqrt(sum_u Var_P[M_u | r~]) / U (a user's positives taken as independent given their
    sampled ranks, as the marginal spread takes them), P the blocks' mixtures ``ws``."""
    mean, var = 0.0, 0.0
    for block, law, (metric, shift, users, k), w in zip(blocks, laws, extra, ws):
        norm = positive_normaliser(metric, k)[users]
        e1, e2 = posterior_moments(block, law, metric, shift, w)
        mean += float(norm @ e1) / k.size
        var += float(norm ** 2 @ np.maximum(e2 - e1 ** 2, 0.0)) / k.size ** 2
    return mean, np.sqrt(var)


def cell_rows(cell: dict, users: int, seed: int, centre: bool) -> list[dict]:
    """One row per metric: the truth, every value and every width's interval."""
    s, n_u, positives, truth = cell_draw(cell, users, seed)
    s = np.asarray(s)
    sampling = cell["sampling"]
    blocks, Ls, counts, specs = fit_parts(s, n_u, cell["m"], sampling, positives)
    w_mle = [mixture_mle(L, h)[0] for L, h in zip(Ls, counts)]
    cs = [[p[0] for p in parts] for _, parts, _ in specs]
    ranges = profile_ranges(Ls, counts, cs, KAPPA, w_mle)
    joint = profile_ranges(Ls, counts, cs, KAPPA, w_mle,
                           spreads=[lambda ws, parts=parts: spread_sd(parts, ws)
                                    for _, parts, _ in specs])
    levels = ([profile_ranges(Ls, counts, cs, x, w_mle) for x in CENTRE_NODES]
              + [profile_ranges(Ls, counts, cs, KAPPA_50, w_mle)]) if centre else []
    laws = [block_laws(block, sampling) for block in blocks]
    rows = []
    for i, ((name, parts, extra), (lo, hi, w_lo, w_hi)) in enumerate(zip(specs, ranges)):
        mle = float(sum(c @ w for (c, *_), w in zip(parts, w_mle)))
        sd = [spread_sd(parts, w) for w in (w_lo, w_hi)]
        post, _ = posterior_terms(blocks, laws, extra, w_mle)
        sd_c = [posterior_terms(blocks, laws, extra, w)[1] for w in (w_lo, w_hi)]
        intervals = {
            "linear": (max(lo - Z * sd[0], 0.0), min(hi + Z * sd[1], 1.0)),
            "quadrature": (max(mle - np.hypot(mle - lo, Z * sd[0]), 0.0),
                           min(mle + np.hypot(hi - mle, Z * sd[1]), 1.0)),
            "joint": (max(joint[i][0], 0.0), min(joint[i][1], 1.0)),
            "conditional": (max(mle - np.hypot(mle - lo, Z * sd_c[0]), 0.0),
                            min(mle + np.hypot(hi - mle, Z * sd_c[1]), 1.0)),
            "conditional_linear": (max(lo - Z * sd_c[0], 0.0), min(hi + Z * sd_c[1], 1.0)),
        }
        points = {"today": sum(intervals["linear"]) / 2, "mle": mle, "posterior_mean": post,
                  "profile_midpoint": (lo + hi) / 2}
        if centre:
            ends = np.array([level[i][:2] for level in levels[:-1]])
            weights = CENTRE_WEIGHTS / np.sqrt(CENTRE_NODES)
            points["likelihood_centre"] = float(
                weights @ ((ends[:, 1] ** 2 - ends[:, 0] ** 2) / 2) / (weights @ np.ptp(ends, 1)))
            points["centre_50"] = sum(levels[-1][i][:2]) / 2
        points.update({f"midpoint_{x}": sum(intervals[x]) / 2 for x in WIDTHS[1:]})
        row = {**cell, "metric": name, "truth": truth[name], "profile_low": lo,
               "profile_high": hi, "sd_low": sd[0], "sd_high": sd[1],
               "sd_conditional_low": sd_c[0], "sd_conditional_high": sd_c[1]}
        row.update({f"point_{k}": v for k, v in points.items()})
        for k, (a, b) in intervals.items():
            row[f"low_{k}"], row[f"high_{k}"] = a, b
        rows.append(row)
    return rows


def timed_cell_rows(cell: dict, users: int, seed: int, centre: bool) -> list[dict]:
    """:func:`cell_rows` on one BLAS thread (K x K systems: threads only cost), its time in
    the log."""
    tic = time.perf_counter()
    with threadpool_limits(1, user_api="blas"):
        rows = cell_rows(cell, users, seed, centre)
    log.info("cell %s: %.1f s", " ".join(f"{k}={v}" for k, v in cell.items()),
             time.perf_counter() - tic)
    return rows


def groups(frame: pd.DataFrame) -> list[tuple[str, pd.Series]]:
    """The coverage page's cell groups: ``all`` non-increasing shapes, its pools, each
    shape (``rising`` only there)."""
    inside = frame["shape"] != "rising"
    out = [("all", inside), ("common-n", inside & (frame["pool"] == "common")),
           ("per-user-n", inside & (frame["pool"] == "per_user")),
           ("several", inside & (frame["pool"] == "several"))]
    out += [(shape, frame["shape"] == shape) for shape in SHAPES]
    out += [(f"m={m}", inside & (frame["m"] == m)) for m in sorted(frame["m"].unique())]
    return [(name, keep) for name, keep in out if keep.any()]


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per group, metric and candidate: cells, and for a value its RMSE, bias and RMSE
    ratio to today's; for a width its coverage, median width, ratio of medians to today's
    and median over the cells of the ratio to today's width."""
    rows = []
    for group, keep in groups(frame):
        for metric, part in frame[keep].groupby("metric", sort=False):
            base_rmse = np.sqrt(np.mean((part["point_today"] - part["truth"]) ** 2))
            for point in POINTS:
                if f"point_{point}" not in part:
                    continue
                error = part[f"point_{point}"] - part["truth"]
                rmse = float(np.sqrt(np.mean(error ** 2)))
                rows.append(dict(group=group, metric=metric, kind="value", candidate=point,
                                 cells=len(part), rmse=rmse, bias=float(error.mean()),
                                 rmse_ratio=rmse / base_rmse))
            base = part["high_linear"] - part["low_linear"]
            for width in WIDTHS:
                low, high = part[f"low_{width}"], part[f"high_{width}"]
                rows.append(dict(group=group, metric=metric, kind="width", candidate=width,
                                 cells=len(part),
                                 coverage=float(((low <= part["truth"])
                                                 & (part["truth"] <= high)).mean()),
                                 median_width=float((high - low).median()),
                                 width_ratio=float((high - low).median() / base.median()),
                                 median_cell_ratio=float(((high - low) / base).median())))
    return pd.DataFrame(rows)


def printed(table: pd.DataFrame) -> str:
    """The summary, compact: per metric, groups down, candidates across."""
    out = []
    for metric, part in table.groupby("metric", sort=False):
        values = part[part["kind"] == "value"].pivot_table(
            index="group", columns="candidate", values="rmse_ratio", sort=False)
        widths = part[part["kind"] == "width"]
        cell = widths.assign(text=[f"{100 * c:5.1f}% {r:.2f}x" for c, r in
                                   zip(widths["coverage"], widths["width_ratio"])])
        cell = cell.pivot(index="group", columns="candidate", values="text")
        cell = cell.loc[values.index, list(WIDTHS)]
        out += [f"{metric}: value RMSE / today's", values.round(2).to_string(),
                f"{metric}: width coverage and median / today's", cell.to_string(), ""]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    grid_options(parser)
    parser.add_argument("--no-centre", action="store_true",
                        help="skip likelihood_centre and centre_50 (three more profile solves "
                             "per end)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the rows of the cells already in the output's CSV")
    parser.add_argument("--processes", type=int, default=1,
                        help="worker processes (the rows do not depend on their number)")
    parser.add_argument("--out", default="results/validation/recommended_point_width")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    cells = option_cells(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows, start, done = [], time.perf_counter(), set()
    if args.resume and out.with_suffix(".csv").exists():
        rows = pd.read_csv(out.with_suffix(".csv")).to_dict("records")
        done = {tuple(row[k] for k in cells[0]) for row in rows}
    todo = [cell for cell in cells if tuple(cell.values()) not in done]
    for first in range(0, len(todo), 20):           # the CSV written after every 20 cells
        for part in map_items(timed_cell_rows, todo[first:first + 20], args.users, args.seed,
                              not args.no_centre, processes=args.processes):
            rows += part
        log.info("%d of %d cells", len(cells) - len(todo) + min(first + 20, len(todo)),
                 len(cells))
        write_csv(pd.DataFrame(rows), out.with_suffix(".csv"))
    frame = pd.DataFrame(rows)
    table = summary(frame)
    write_csv(table, out.with_name(out.name + "_summary.csv"))
    log.info("%d cells in %.0f s", len(cells), time.perf_counter() - start)
    print(printed(table))


if __name__ == "__main__":
    main()
