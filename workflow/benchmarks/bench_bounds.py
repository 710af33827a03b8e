"""Benchmark: wall time of ``bound_full_metric`` per target (NCF's published ML-1M values).

    python workflow/benchmarks/bench_bounds.py [--repeats 5]

n = 3,706, m = 100, observed HR@10 = 0.730 and NDCG@10 = 0.447; per shape and target the best
and median wall time of one call (the rank law's columns and both programmes). Target:
under a second per target.
"""
import argparse
import statistics
import time

from sampled_metrics import bound_full_metric

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--repeats", type=int, default=5)
args = parser.parse_args()
OBSERVED = {"hr@10": "0.730", "ndcg@10": "0.447"}
for shape in (None, "non-increasing"):
    for target in ("recall@10", "ndcg@10", "ap", "auc"):
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            low, high = bound_full_metric(OBSERVED, 3706, 100, target, shape=shape)
            times.append(time.perf_counter() - start)
        print(f"{str(shape):15s} {target:10s} [{low:.4f}, {high:.4f}]  best {min(times) * 1e3:6.1f} ms"
              f"  median {statistics.median(times) * 1e3:6.1f} ms")
