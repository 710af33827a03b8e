"""Benchmark: Jin et al.'s (AAAI'21) rank-distribution estimators at MovieLens-1M size, the
previous solvers against the current ones.

    python workflow/benchmarks/bench_estimators.py [--repeats 20] [--m 99 499] [--rounds 3]

Synthetic recommenders stand in for X, Y, Z and EASE: the true ranks of ``--users`` held-out
items are r = ceil(n u), u ~ Beta(a, b), drawn once per recommender (a fitted model is
fixed), with shapes that give Recall@10 of 8-11 % at n = 3,706 as our four recommenders on
ML-1M. Every repeat draws the sampled ranks anew (``draw_sampled_ranks``, hypergeometric by
default, as the workflow), so the histograms vary as in the workflow's 100 repeats. At
m = 99 all four recommenders run, at m = 499 only the first (as in the workflow; ``--all``
runs all four).

Per histogram:

* MLE and WMLE (w = NDCG weight, C = 10) by plain EM with tol 1e-8 (the previous default,
  "old") and by SQUAREM with its default tol 8e-9 ("new"); plain EM continued from its
  stopping point to tol 8e-9 (the same path, stopped by the new tol) separates the part of
  the movement that is due to the tighter tol from the part due to the solver.
* MES (eta = 0.001) with the dense (old) and the banded (new) Hessian.
* BV P(R) (gamma = 0.1), for the total.

Printed: CPU seconds per repeat (``time.process_time`` with BLAS single-threaded, each call
the median of ``--rounds`` runs; mean, median and max over the repeats), iterations and
EM-map evaluations, the final log-likelihood new - old (must be >= 0 up to rounding), how
the Recall@10 and NDCG@10 estimates (``metric_from_distribution``) move (mean over repeats,
mean and max |new - old|, next to the standard deviation over repeats, i.e. the sampling
noise), the targets (MLE / WMLE <= 0.05 s per repeat at m = 99 and <= 0.5 s
at m = 499) as PASS / FAIL, and the estimator CPU time of the workflow's ML-1M load (100
repeats of 4 recommenders at m = 99 and 1 at m = 499).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

from sampled_metrics.estimators import (bv_distribution, mes, metric_from_distribution,
                                        mixture_matrix, mle, sampled_rank_histogram,
                                        weight_function)
from sampled_metrics.sampling import draw_sampled_ranks

#: name -> Beta(a, b) of u, r = ceil(n u)
RECOMMENDERS = {"X": (0.56, 3.0), "Y": (0.53, 3.0), "Z": (0.52, 3.0), "EASE": (0.48, 3.0)}
TARGETS = {99: 0.05, 499: 0.5}          # seconds per repeat for MLE and WMLE
OLD_TOL, NEW_TOL = 1e-8, 8e-9
WORKFLOW = {99: 4 * 100, 499: 100}      # histograms per m in the ML-1M workflow
METRICS = ("recall@10", "ndcg@10")


def cpu_seconds(fn, rounds: int):
    """(result of the first call, median CPU seconds over ``rounds`` calls)."""
    times, out = [], None
    for i in range(rounds):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
        out = result if i == 0 else out
    return out, float(np.median(times))


def run_histogram(hist, n, m, sampling, rounds, em_rounds) -> dict:
    """Every estimator on one histogram: {key: (pi, info, seconds)}."""
    w = weight_function("ndcg", 10)
    out = {}
    for estimator, weights in (("mle", None), ("wmle", w)):
        old, t_old = cpu_seconds(lambda: mle(hist, n, m, sampling, weights=weights,
                                             tol=OLD_TOL, solver="em"), em_rounds)
        new, t_new = cpu_seconds(lambda: mle(hist, n, m, sampling, weights=weights),
                                 rounds)
        cont = mle(hist, n, m, sampling, weights=weights, tol=NEW_TOL, init=old[0],
                   solver="em")
        out[estimator, "old"], out[estimator, "new"] = (*old, t_old), (*new, t_new)
        out[estimator, "em@new tol"] = (*cont, 0.0)
    for hessian, label in (("dense", "old"), ("banded", "new")):
        res, t = cpu_seconds(lambda: mes(hist, n, m, sampling, eta=0.001, hessian=hessian),
                             rounds)
        out["mes", label] = (*res, t)
    res, t = cpu_seconds(lambda: bv_distribution(hist, n, m, 0.1, sampling), rounds)
    out["bv", "new"] = out["bv", "old"] = (res, {}, t)
    return out


def summarise(m, runs: list[dict], truth: dict) -> tuple[list[str], dict]:
    """Markdown rows for one m and the per-estimator mean seconds {(estimator, label): s}."""
    rows, mean_s = [], {}
    for estimator in ("mle", "wmle", "mes", "bv"):
        for label in ("old", "new"):
            if estimator == "bv" and label == "old":
                continue
            secs = np.array([r[estimator, label][2] for r in runs])
            mean_s[estimator, label] = secs.mean()
            infos = [r[estimator, label][1] for r in runs]
            its = np.median([i.get("iterations", 0) for i in infos])
            evals = np.median([i.get("evaluations", i.get("iterations", 0)) for i in infos])
            if estimator in ("mle", "wmle") and label == "new":
                dl = np.array([r[estimator, "new"][1]["loglik"][-1]
                               - r[estimator, "old"][1]["loglik"][-1] for r in runs])
                dl_text = f"{dl.min():.1e} / {np.median(dl):.1e}"
            elif estimator == "mes" and label == "new":
                dl = np.array([r["mes", "new"][1]["objective"] - r["mes", "old"][1]["objective"]
                               for r in runs])
                dl_text = f"obj {dl.min():.0e} / {np.median(dl):.0e}"
            else:
                dl_text = ""
            cells = []
            for metric in METRICS:
                est = np.array([metric_from_distribution(metric, r[estimator, label][0])
                                for r in runs])
                text = f"{est.mean():.4f} ± {est.std(ddof=1) if est.size > 1 else 0:.4f}"
                if label == "new" and estimator != "bv":
                    ref = np.array([metric_from_distribution(metric, r[estimator, "old"][0])
                                    for r in runs])
                    d = np.abs(est - ref)
                    text += f" ({d.mean():.1e}, {d.max():.1e})"
                cells.append(text)
            rows.append(f"| {m} | {estimator} | {label} | {secs.mean():.4f} | "
                        f"{np.median(secs):.4f} | {secs.max():.4f} | {its:.0f} | {evals:.0f} | "
                        f"{dl_text} | {cells[0]} | {cells[1]} |")
    for estimator in ("mle", "wmle"):
        for metric in METRICS:
            tol_move = np.array([abs(metric_from_distribution(metric, r[estimator, "em@new tol"][0])
                                     - metric_from_distribution(metric, r[estimator, "old"][0]))
                                 for r in runs])
            solver_move = np.array([abs(metric_from_distribution(metric, r[estimator, "new"][0])
                                        - metric_from_distribution(metric,
                                                                   r[estimator, "em@new tol"][0]))
                                    for r in runs])
            rows.append(f"| {m} | {estimator} | {metric}: EM tol {OLD_TOL:g} -> {NEW_TOL:g} moves "
                        f"it by {tol_move.mean():.1e} (max {tol_move.max():.1e}); SQUAREM vs EM "
                        f"at {NEW_TOL:g}: {solver_move.mean():.1e} (max {solver_move.max():.1e}) "
                        f"| | | | | | | |")
    rows.append(f"| {m} | exact | | | | | | | | {truth['recall@10']} | {truth['ndcg@10']} |")
    return rows, mean_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3706)
    ap.add_argument("--m", type=int, nargs="+", default=[99, 499])
    ap.add_argument("--users", type=int, default=6040)
    ap.add_argument("--repeats", type=int, default=20, help="histograms per recommender")
    ap.add_argument("--rounds", type=int, default=3, help="timed calls per fast estimate")
    ap.add_argument("--em-rounds", type=int, default=1, help="timed calls per plain EM")
    ap.add_argument("--all", action="store_true", help="all recommenders at every m")
    ap.add_argument("--sampling", default="hypergeometric",
                    choices=["binomial", "hypergeometric"])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    n = args.n
    print(f"n = {n}, {args.users} users, {args.sampling} sampling, {args.repeats} repeats per "
          f"recommender, CPU seconds (BLAS single-threaded, median of {args.rounds} calls, "
          f"plain EM {args.em_rounds}); load average at start {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs\n")
    header = ("| m | estimator | solver | CPU s mean | median | max | iterations | EM evals | "
              "ΔL new-old min / median | Recall@10 mean ± std (mean, max abs change) | "
              "NDCG@10 mean ± std (mean, max abs change) |")
    totals, all_dl = {}, []
    with threadpool_limits(1):
        for m in args.m:
            mixture_matrix(n, m, args.sampling)
            names = list(RECOMMENDERS) if m == min(args.m) or args.all else ["X"]
            print(header)
            print("|" + "---|" * 11)
            runs, truths = [], {x: [] for x in METRICS}
            for k, name in enumerate(names):
                rng = np.random.default_rng([args.seed, k])
                a, b = RECOMMENDERS[name]
                r = np.clip(np.ceil(n * rng.beta(a, b, args.users)), 1, n).astype(np.int64)
                pmf = np.bincount(r - 1, minlength=n) / r.size
                for x in METRICS:
                    truths[x].append(f"{name} {metric_from_distribution(x, pmf):.4f}")
                for _ in range(args.repeats):
                    hist = sampled_rank_histogram(
                        draw_sampled_ranks(r, n, m, args.sampling, rng), m)
                    runs.append(run_histogram(hist, n, m, args.sampling, args.rounds,
                                              args.em_rounds))
            rows, mean_s = summarise(m, runs, {x: ", ".join(v) for x, v in truths.items()})
            for row in rows:
                print(row, flush=True)
            totals[m] = mean_s
            all_dl += [r[x, "new"][1]["loglik"][-1] - r[x, "old"][1]["loglik"][-1]
                       for r in runs for x in ("mle", "wmle")]
            print()
    print("Targets (mean CPU seconds per repeat):")
    for m, mean_s in totals.items():
        for estimator in ("mle", "wmle"):
            if m in TARGETS:
                new, old, target = mean_s[estimator, "new"], mean_s[estimator, "old"], TARGETS[m]
                print(f"  {estimator.upper()} m = {m}: {new:.4f} s (plain EM {old:.4f} s, "
                      f"{old / new:.1f}x) <= {target} s: {'PASS' if new <= target else 'FAIL'}")
    dl = np.array(all_dl)
    print(f"  log-likelihood SQUAREM - EM >= -1e-12 on all {dl.size} MLE/WMLE histograms "
          f"(min {dl.min():.2e}): {'PASS' if dl.min() >= -1e-12 else 'FAIL'}")
    if set(WORKFLOW) <= set(totals):
        for label in ("old", "new"):
            total = sum(WORKFLOW[m] * sum(totals[m][x, label if x != "bv" else "new"]
                                          for x in ("mle", "wmle", "mes", "bv"))
                        for m in WORKFLOW)
            print(f"  workflow estimator load (ML-1M: {WORKFLOW[99]} histograms at m = 99, "
                  f"{WORKFLOW[499]} at m = 499; MLE + WMLE + MES + BV), {label}: "
                  f"{total:.0f} CPU s")


if __name__ == "__main__":
    main()
