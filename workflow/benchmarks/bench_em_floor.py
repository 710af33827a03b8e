#!/usr/bin/env python
"""Benchmark: how close Jin et al.'s EM/SQUAREM iterations run to the floor of their matrix
products, at MovieLens-1M size.

    python workflow/benchmarks/bench_em_floor.py [--n 3706] [--m 99 499] [--rows 33]

One evaluation of the EM map on J rows is two (J x k x n) products (k = m + 1) and a few
element-wise passes (:mod:`sampled_metrics.estimators.em`). Prints, on one BLAS thread, the
milliseconds of one map and of its two products, the products' share of the map, their
GFLOP/s, and the GFLOP/s of a square 2,048 product (the core's practical peak); then the
share of the mixture matrix A = p(r~ | r) that is not negligible (entries above 1e-17 and
1e-30 of their row's largest), i.e. what a banded product could skip. ``--rows``: the
active rows of a SQUAREM batch (50 at the start, 33 on average on the ML-1M rank files).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from machine import machine


def ms(fn, repeats: int = 50) -> float:
    """Mean milliseconds of ``fn()`` over ``repeats`` calls (after one warm-up call)."""
    fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=3706)
    ap.add_argument("--m", type=int, nargs="+", default=[99, 499])
    ap.add_argument("--rows", type=int, default=33)
    ap.add_argument("--sampling", default="hypergeometric")
    args = ap.parse_args()

    from sampled_metrics.estimators.em import _em_map
    from sampled_metrics.estimators.histogram import mixture_matrix

    print(machine())
    rng = np.random.default_rng(0)
    with threadpool_limits(1, "blas"):
        a, b = rng.random((2048, 2048)), rng.random((2048, 2048))
        peak = 2 * 2048 ** 3 / ms(lambda: a @ b, 5) / 1e6
        print(f"square 2,048 product: {peak:.1f} GFLOP/s (one core)")
        for m in args.m:
            A = mixture_matrix(args.n, m, args.sampling)
            J, k = args.rows, m + 1
            PI = rng.random((J, args.n))
            PI /= PI.sum(axis=1, keepdims=True)
            H = rng.random((J, k))
            H /= H.sum(axis=1, keepdims=True)
            Q = PI @ A
            ratio = H / Q
            one = ms(lambda: _em_map(A, H, PI, Q))
            products = ms(lambda: ratio @ A.T) + ms(lambda: PI @ A)
            rate = 2 * 2 * J * k * args.n / products / 1e6
            dense = [(A > t * A.max(axis=1, keepdims=True)).mean() for t in (1e-17, 1e-30)]
            print(f"n = {args.n:,}, m = {m}, J = {J}: EM map {one:.2f} ms, its products "
                  f"{products:.2f} ms ({products / one:.0%}), {rate:.1f} GFLOP/s "
                  f"({rate / peak:.0%} of the square product's); A above 1e-17 / 1e-30 of "
                  f"its row's largest: {dense[0]:.0%} / {dense[1]:.0%}")


if __name__ == "__main__":
    main()
