"""Benchmark: building the law of the rank each evaluator reports, p(r~ | r) for every true
rank r of a pool of n items (sampled_metrics.evaluators.reported_rank_pmf).

    python workflow/benchmarks/bench_evaluator_law.py [--n 26744] [--repeats 5]

One row per evaluator with a correction, at its own m (DaisyRec at m = 100 too): best and
median wall time and the ratio to the generic binomial law of the same size
(sampling.rank_pmf). Prints the CPU and the BLAS kernel. Target: at most 1 s at n = 26,744
(ML-20M's items), m = 100.
"""
import argparse

import numpy as np
from machine import machine, timed

from sampled_metrics.evaluators import EVALUATORS, reported_rank_pmf
from sampled_metrics.sampling import rank_pmf

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=26744, help="items in the pool, the positive "
                    "included")
parser.add_argument("--repeats", type=int, default=5)
args = parser.parse_args()


print(f"{machine()}; n = {args.n}")
rows = []
for e in EVALUATORS.values():
    if e.sampling is None:
        continue
    for m in sorted({e.negatives, 100}) if e.negatives > 100 else [e.negatives]:
        if m >= args.n:
            continue
        base = timed(args.repeats, lambda: rank_pmf(np.arange(1, args.n + 1), args.n, m))[1]
        best, median = timed(args.repeats, lambda: reported_rank_pmf(e.name, args.n - 1, m))
        rows.append((e.name, m, best, median, median / base))
for name, m, best, median, ratio in rows:
    print(f"{name:22s} m = {m:4d}  best {best:6.3f} s  median {median:6.3f} s  "
          f"median / binomial rank_pmf's {ratio:5.2f}")
