#!/usr/bin/env python
"""Benchmark: Jin et al.'s MLE and WMLE with the EM products on the band of the mixture
matrix against the dense products: seconds, and how far the estimates move.

    python workflow/benchmarks/bench_em_band.py [--rank-file results/ml-1m/ranks/X.npz]
                                                [--m 499] [--repeats 100]

The banded products (:mod:`sampled_metrics.estimators.band`) leave out entries of A below
1e-30, so they are the dense products to rounding; SQUAREM's stopping point then moves along
the flat directions of the likelihood as under any rounding-level change. To judge the size
of that move, the script prints, per estimator, the largest move of a per-repeat metric and
of its mean over repeats (12 metrics: recall, NDCG and AP at 1, 5, 10, 20) for:

- the band against the dense products (the change measured);
- one histogram at a time against batches of 50, both dense (the rounding of the products
  already moves the estimates so much);
- the stopping tolerance divided by 10 against the default, both dense (what the tolerance
  itself allows).

Without ``--rank-file`` the histograms are synthetic, of ML-1M's size (n = 3,706, 6,040
users, hypergeometric sampling, Recall@10 near 8 %).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from machine import machine

METRICS = [f"{name}@{k}" for name in ("recall", "ndcg", "ap") for k in (1, 5, 10, 20)]


def histograms(args):
    """(histograms, n, sampling) of the rank file's repeats at m, or synthetic ones."""
    from sampled_metrics.estimators.histogram import sampled_rank_histogram
    from sampled_metrics.evaluation.rankfile import read_rank_file
    from sampled_metrics.sampling import draw_sampled_ranks
    if args.rank_file:
        rf = read_rank_file(args.rank_file)
        sampled = rf.sampled_ranks(args.m)[:args.repeats]
        return [sampled_rank_histogram(s, args.m) for s in sampled], rf.n_items, rf.sampling
    n, users, rng = 3706, 6040, np.random.default_rng(0)
    r = np.clip(np.ceil(n * rng.beta(0.53, 3.0, users)), 1, n).astype(np.int64)
    return ([sampled_rank_histogram(draw_sampled_ranks(r, n, args.m, "hypergeometric",
                                                       rng=rng), args.m)
             for _ in range(args.repeats)], n, "hypergeometric")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rank-file", help="a rank file with sampled ranks at --m")
    ap.add_argument("--m", type=int, default=499)
    ap.add_argument("--repeats", type=int, default=100)
    args = ap.parse_args()

    from sampled_metrics.estimators import band
    from sampled_metrics.estimators.dispatch import estimate_batches, estimate_from_histogram
    from sampled_metrics.estimators.histogram import mixture_matrix
    from sampled_metrics.estimators.likelihood import MLE_TOL
    from sampled_metrics.metrics import parse_metric

    print(machine())
    hists, n, sampling = histograms(args)
    W = np.stack([parse_metric(x).weights(n) for x in METRICS])
    options = {"mle": {}, "wmle": {"weight": "ndcg", "C": 10}}
    print(f"n = {n:,}, m = {args.m}, {sampling}, {len(hists)} histograms; the band holds "
          f"{band.BandedMatrix(mixture_matrix(n, args.m, sampling)).share:.0%} of A")
    default = band.BAND_SHARE
    with threadpool_limits(1, "blas"):
        for name, opts in options.items():
            runs = {}
            for label, share, tol, batched in [("band", default, None, True),
                                               ("dense", -1.0, None, True),
                                               ("dense, one at a time", -1.0, None, False),
                                               ("dense, tol / 10", -1.0, 0.1, True)]:
                band.BAND_SHARE = share
                kw = dict(opts) if tol is None else {**opts, "tol": MLE_TOL["squarem"] * tol}
                start = time.perf_counter()
                if batched:
                    pmfs = estimate_batches(hists, n, args.m, name, sampling, **kw)
                else:
                    pmfs = np.stack([estimate_from_histogram(h, n, args.m, name, sampling, **kw)
                                     for h in hists])
                runs[label] = (time.perf_counter() - start, W @ pmfs.T)
            band.BAND_SHARE = default
            seconds = {k: v[0] for k, v in runs.items()}
            print(f"{name}: band {seconds['band']:.2f} s, dense {seconds['dense']:.2f} s "
                  f"({seconds['dense'] / seconds['band']:.2f}x); largest move of a per-repeat "
                  f"metric / of a mean over repeats:")
            ref = runs["dense"][1]
            for label in ("band", "dense, one at a time", "dense, tol / 10"):
                d = runs[label][1] - ref
                print(f"  {label:22s} {np.abs(d).max():.2e} / {np.abs(d.mean(axis=1)).max():.2e}")


if __name__ == "__main__":
    main()
