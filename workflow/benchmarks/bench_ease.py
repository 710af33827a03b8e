#!/usr/bin/env python
"""Benchmark: EASE's fit in float64 against float32 (``precision``), and the ranks the
float32 fit moves.

    python workflow/benchmarks/bench_ease.py --ml1m PATH [--repeats 3] [--items 16384]

On MovieLens-1M (the local zip ``--ml1m``, default ``$SAMPLED_METRICS_ML1M``; the workflow's
leave-last-out split, lam = 500, LAPACK's inverse on one thread): each precision's fit,
alternating, ``--repeats`` times (best and median wall time), then the users' exact ranks
and their sampled ranks (100 repeats at m = 100, the study's tie policy and a fixed seed)
under both fits: how many move, by how much, and how many cross the top 10. With
``--items N``: also the inverse alone (LAPACK, one thread) of the Gram of a random binary
4N x N matrix of density 0.01 plus 500 I (the ML-20M-shaped catalogue has 26,744 items; the
inverse's time grows as N^3), in each precision, alternating.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from machine import alternately, machine

from sampled_metrics.datasets import load_split, make_split
from sampled_metrics.evaluation import evaluate
from sampled_metrics.recommenders import make_recommender
from sampled_metrics.recommenders.dense_kernels import cooccurrence
from sampled_metrics.recommenders.ease import spd_inverse_inplace

PRECISIONS = {"float64": "float64", "float32": "float32"}


def fit_seconds(train, precision: str) -> tuple[float, object]:
    start = time.perf_counter()
    model = make_recommender("ease", lam=500.0, threads=1, precision=precision).fit(train)
    return time.perf_counter() - start, model


def summary(label: str, times: list) -> str:
    times = sorted(times)
    return f"{label}: best {times[0]:.2f} s, median {times[len(times) // 2]:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ml1m", default=os.environ.get("SAMPLED_METRICS_ML1M"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--items", type=int, help="also invert a random Gram of this many items")
    args = ap.parse_args()
    if not args.ml1m or not Path(args.ml1m).is_file():
        raise SystemExit(f"no local MovieLens-1M archive (--ml1m or SAMPLED_METRICS_ML1M): "
                         f"{args.ml1m!r}")
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        make_split(args.ml1m, "ml-1m", Path(tmp) / "split.npz")
        split = load_split(Path(tmp) / "split.npz")
    models = {}

    def run(label, precision):
        seconds, models[label] = fit_seconds(split.train, precision)
        return seconds

    runs = alternately(PRECISIONS, args.repeats, run)
    for label, times in runs.items():
        print(summary(f"ML-1M fit ({split.n_items:,} items), {label}", times))
    print(f"float32 / float64 (medians): "
          f"{np.median(runs['float32']) / np.median(runs['float64']):.2f}x")
    ranks = {label: evaluate(model, split, {100: 100}, tie="random_per_ranking", seed=11)
             for label, model in models.items()}
    exact64, exact32 = ranks["float64"].ranks, ranks["float32"].ranks
    moved = exact32 != exact64
    top = (exact64 <= 10) != (exact32 <= 10)
    sampled = ranks["float64"].sampled[100] != ranks["float32"].sampled[100]
    print(f"exact ranks moved: {int(moved.sum())} of {exact64.size:,} users, by at most "
          f"{np.abs(exact32 - exact64).max():g}; in or out of the top 10: {int(top.sum())}; "
          f"sampled ranks moved: {int(sampled.sum())} of {sampled.size:,}")
    if args.items:
        X = sp.random(4 * args.items, args.items, density=0.01, format="csr", rng=0,
                      data_rvs=np.ones)
        G64 = cooccurrence(X)
        G64[np.diag_indices_from(G64)] += 500.0

        def invert(label, precision):
            G = G64.astype(precision)
            start = time.perf_counter()
            spd_inverse_inplace(G)
            return time.perf_counter() - start

        runs = alternately(PRECISIONS, args.repeats, invert)
        for label, times in runs.items():
            print(summary(f"inverse alone, {args.items:,} items, {label}", times))
        print(f"float32 / float64 (medians): "
              f"{np.median(runs['float32']) / np.median(runs['float64']):.2f}x")


if __name__ == "__main__":
    main()
