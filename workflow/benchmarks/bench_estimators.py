"""Benchmark: rank-distribution estimators of Jin et al. (AAAI'21) at MovieLens-1M size.

    python workflow/scripts/bench_estimators.py [--n 3706 100000] [--users 6040] [--m 99]

True ranks of ``users`` held-out items are drawn as r = ceil(n u), u ~ Beta(0.3, 3) (most
mass near the top, Recall@10 ~ 0.25 for n = 3706, a long tail), sampled ranks with
``draw_sampled_ranks``. Prints a markdown table: seconds (the n x (m+1) mixture matrix is
built and timed once beforehand), iterations, final (weighted) log-likelihood per user
(MES: objective eta H - E and KKT spread), and Recall@10 / NDCG@10 estimated vs true.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from sampled_metrics.estimators import (bv_distribution, mes, mes_kkt_residual,
                                        metric_from_distribution, mixture_matrix, mle,
                                        sampled_rank_histogram, weight_function)
from sampled_metrics.sampling import draw_sampled_ranks


def bench(n: int, m: int, users: int, sampling: str, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    r = np.clip(np.ceil(n * rng.beta(0.3, 3.0, users)), 1, n).astype(np.int64)
    hist = sampled_rank_histogram(draw_sampled_ranks(r, n, m, sampling, rng), m)
    start = time.perf_counter()
    mixture_matrix(n, m, sampling)
    rows = [f"| {n:,} | mixture matrix A | {time.perf_counter() - start:.2f} | | | | | |"]
    true = [np.mean(r <= 10), np.mean(np.where(r <= 10, 1 / np.log2(r + 1), 0))]
    runs = {"mle": lambda: mle(hist, n, m, sampling),
            "wmle (ndcg, C=10)": lambda: mle(hist, n, m, sampling,
                                             weights=weight_function("ndcg", 10)),
            "mes (eta=0.001)": lambda: mes(hist, n, m, sampling, eta=0.001),
            "bv (gamma=0.1)": lambda: (bv_distribution(hist, n, m, 0.1, sampling), {})}
    for name, run in runs.items():
        start = time.perf_counter()
        p, info = run()
        seconds = time.perf_counter() - start
        if "loglik" in info:
            value = f"loglik {info['loglik'][-1]:.8f}"
        elif "objective" in info:
            value = (f"objective {info['objective']:.6g}, KKT "
                     f"{mes_kkt_residual(p, hist, n, m, sampling, 0.001):.1e}")
        else:
            value = ""
        est = [metric_from_distribution(x, p) for x in ("recall@10", "ndcg@10")]
        rows.append(f"| {n:,} | {name} | {seconds:.2f} | {info.get('iterations', '')} | "
                    f"{value} | {info.get('converged', '')} | {est[0]:.4f} ({true[0]:.4f}) | "
                    f"{est[1]:.4f} ({true[1]:.4f}) |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[3706, 100_000])
    ap.add_argument("--m", type=int, default=99)
    ap.add_argument("--users", type=int, default=6040)
    ap.add_argument("--sampling", default="binomial", choices=["binomial", "hypergeometric"])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"m = {args.m}, {args.users} users, {args.sampling} sampling\n")
    print("| n | method | seconds | iterations | final value | converged | "
          "Recall@10 est. (true) | NDCG@10 est. (true) |")
    print("|---|---|---|---|---|---|---|---|")
    for n in args.n:
        for row in bench(n, args.m, args.users, args.sampling, args.seed):
            print(row, flush=True)


if __name__ == "__main__":
    main()
