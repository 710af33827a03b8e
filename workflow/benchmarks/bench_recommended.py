"""Benchmark: wall time of the recommended answer against ``estimate`` with its defaults.

    python workflow/benchmarks/bench_recommended.py [--repeats 5]

6,040 users, n = 3,706, m = 100 (binomial), Recall@10 and NDCG@10, true ranks n Beta(0.3, 3):
the best and median wall time of ``recommended_interval`` (one n for all users, the
histogram path), of the same with one n_u per user (n minus up to 10 %, the long format's
path), each also with ``spread='joint'`` and with ``shape='convex'`` (its check's 99 refits
included), and of ``sampled-metrics estimate``'s table with its defaults (mle, mes, bv_0.1, 100
bootstrap draws, one process), and the ratio. Prints the CPU and the BLAS kernel. Target:
the recommended answer in at most 3 s on 2 cores.
"""
import argparse
import os
import tempfile
from types import SimpleNamespace

import numpy as np
from machine import machine, timed

from sampled_metrics.cli.estimate import run as estimate
from sampled_metrics.intervals import recommended_interval
from sampled_metrics.sampling import draw_sampled_ranks
from sampled_metrics.workflow.steps.interval_study import true_ranks

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--repeats", type=int, default=5)
args = parser.parse_args()
print(machine())
n, m, users, metrics = 3706, 100, 6040, ["recall@10", "ndcg@10"]
rng = np.random.default_rng(0)
s = draw_sampled_ranks(true_ranks("ml1m", np.full(users, n), rng), n, m, rng=rng)
n_u = n - rng.integers(0, n // 10 + 1, users)
s_u = draw_sampled_ranks(true_ranks("ml1m", n_u, rng), n_u, m, rng=rng)
ranks_file = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
ranks_file.write("\n".join(map(str, s)) + "\n")
ranks_file.close()
cli = SimpleNamespace(ranks=ranks_file.name, column=None, n=n, m=m,
                      sampling="binomial", repeat=None, bootstrap=100, level=0.95, seed=0,
                      metric=",".join(metrics), method="mle,mes,bv_0.1", eta=None,
                      weight=None, c=None, processes=1, evaluator=None)
rows = [("recommended, one n",
         timed(args.repeats, lambda: recommended_interval(s, n, m, metrics))),
        ("recommended, n_u per user",
         timed(args.repeats, lambda: recommended_interval(s_u, n_u, m, metrics))),
        ("joint spread, one n",
         timed(args.repeats, lambda: recommended_interval(s, n, m, metrics, spread="joint"))),
        ("joint spread, n_u per user",
         timed(args.repeats, lambda: recommended_interval(s_u, n_u, m, metrics,
                                                          spread="joint"))),
        ("convex shape, one n",
         timed(args.repeats, lambda: recommended_interval(s, n, m, metrics, shape="convex"))),
        ("convex shape, n_u per user",
         timed(args.repeats, lambda: recommended_interval(s_u, n_u, m, metrics,
                                                          shape="convex"))),
        ("estimate (defaults, 1 process)",
         timed(args.repeats, lambda: estimate(SimpleNamespace(**vars(cli)))))]
base = rows[-1][1][1]
for name, (best, median) in rows:
    print(f"{name:32s} best {best:7.3f} s  median {median:7.3f} s  "
          f"median / estimate's {median / base:6.3f}")
os.unlink(ranks_file.name)
