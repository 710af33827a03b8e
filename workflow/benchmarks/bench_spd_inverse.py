#!/usr/bin/env python
"""Benchmark: EASE's inverse of G = XᵀX + λI at ML-20M scale, LAPACK on one thread (the fit
below 16,384 items) against the tiled inverse (from 16,384 items on) on 1 and 2 threads.

    python workflow/benchmarks/bench_spd_inverse.py [--n 16384] [--crash]

G is the Gram matrix of a random binary 20,000 x n X (1 % ones) plus λ = 500 on the
diagonal. Prints the seconds of each, whether the tiled inverse gives the same bits on 1
and 2 threads, and its largest relative difference from LAPACK's. ``--crash`` first
reproduces, each in a child process, what rules out LAPACK's own threads: OpenBLAS's
multi-threaded ``dsyrk`` (numpy's ``X.T @ X``, 256 x 26,744, 2 threads) and scipy's
multi-threaded ``dpotrf`` at 26,744 items; the child's exit signal is printed.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from machine import machine

SYRK = """
import numpy as np
from threadpoolctl import threadpool_limits
X = np.ones((256, 26744))
with threadpool_limits(2, "blas"):
    G = X.T @ X
"""

POTRF = """
import numpy as np
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits
n = 26744
G = np.full((n, n), 1.0)
G[np.diag_indices_from(G)] += n
with threadpool_limits(2, "blas"):
    U, info = lapack.dpotrf(G, lower=0, clean=0, overwrite_a=1)
"""


def child(code: str) -> str:
    """Run ``code`` in a fresh interpreter; how it ended."""
    rc = subprocess.run([sys.executable, "-c", code], capture_output=True).returncode
    return "ran to the end" if rc == 0 else (f"killed by signal {-rc}" if rc < 0
                                            else f"exit code {rc}")


def gram(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    G = np.zeros((n, n))
    for start in range(0, 20_000, 2_000):          # X in row blocks, on one BLAS thread
        X = (rng.random((2_000, n)) < 0.01).astype(np.float64)
        with threadpool_limits(1, "blas"):
            G += X.T @ X
    G[np.diag_indices_from(G)] += 500.0
    return G


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=16_384, help="items (default 16,384)")
    ap.add_argument("--crash", action="store_true",
                    help="first reproduce the crashes of OpenBLAS's threaded dsyrk/dpotrf")
    args = ap.parse_args()

    from scipy.linalg import lapack

    from sampled_metrics.recommenders.tiled_inverse import TILE, tiled_spd_inverse

    print(machine())
    if args.crash:
        print(f"numpy X.T @ X (dsyrk), 26,744 items, 2 BLAS threads: {child(SYRK)}")
        print(f"scipy dpotrf, 26,744 items, 2 BLAS threads: {child(POTRF)}")
    G0 = gram(args.n)
    print(f"G: {args.n:,} x {args.n:,} ({G0.nbytes / 2**30:.1f} GiB); tiles of {TILE}")

    G = G0.copy()
    start = time.perf_counter()
    with threadpool_limits(1, "blas"):     # the path below 16,384 items, on one thread
        U, info = lapack.dpotrf(G.T, lower=0, clean=0, overwrite_a=1)
        U, info = lapack.dpotri(U, lower=0, overwrite_c=1)
    lapack_s = time.perf_counter() - start
    reference = np.tril(G)                 # dpotri fills the lower triangle of the C view
    print(f"LAPACK dpotrf + dpotri, 1 thread   {lapack_s:7.1f} s   1.00x")
    results = {}
    for threads in (1, 2):
        G = G0.copy()
        start = time.perf_counter()
        tiled_spd_inverse(G, threads)
        t = time.perf_counter() - start
        results[threads] = G
        print(f"tiled, {threads} thread{'s' if threads > 1 else ' '}                   {t:7.1f} s  "
              f"{lapack_s / t:5.2f}x")
    same = np.array_equal(results[1], results[2])
    diff = np.abs(np.tril(results[1]) - np.tril(reference)).max() / np.abs(reference).max()
    print(f"tiled bits on 1 and 2 threads identical: {same}; largest difference from "
          f"LAPACK's, relative to its largest entry: {diff:.1e}")


if __name__ == "__main__":
    main()
