"""Benchmark: correcting 100k users' sampled lists with several positives (target:
<= 10 s on 2 cores).

    python workflow/benchmarks/bench_multipositive.py [--users 100000] [--processes 2]
        [--repeats 3] [--protocol per_positive|per_user] [--thin-to 100]

Synthetic ML-20M-shaped users: k_u positives, 1 + Geometric (mean 4, capped at 50);
N_u non-relevant items in 17,491..26,725; per_positive: M_u = 100 k_u negatives drawn
with replacement (RecBole uni100), per_user: M_u = 100. True positions come from
uniform-random full ranks, sampled positions from the binomial law of the shared draws.
Times :func:`sampled_metrics.multipositive.correct_positives` for recall@10, ndcg@10,
ap@10 and auc x sampled, rank_estimate, cls, bv_0.1 (table building included), median of
``--repeats`` runs. Prints one JSON line.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from sampled_metrics.multipositive import PositiveTable, correct_positives

METRICS = ["recall@10", "ndcg@10", "ap@10", "auc"]
CORRECTIONS = ["sampled", "rank_estimate", "cls", "bv_0.1"]
TARGET_SECONDS = 10.0


def synthetic_users(users: int, protocol: str, seed: int = 0):
    """(user, position, N per user, M per user) of a synthetic evaluation."""
    rng = np.random.default_rng(seed)
    k = np.minimum(rng.geometric(0.25, users), 50)
    N = rng.integers(17_491, 26_726, users)
    M = 100 * k if protocol == "per_positive" else np.full(users, 100)
    user = np.repeat(np.arange(users), k)
    x = np.floor(rng.random(user.size) * (N[user] + 1)).astype(np.int64)   # x_i in 0..N
    y = rng.binomial(M[user], x / N[user])
    order = np.lexsort((y, user))                 # sampled order of each user's positives
    user, y = user[order], y[order]
    start = np.concatenate([[0], np.cumsum(k)[:-1]])
    position = y + 1 + (np.arange(user.size) - start[user])
    return user, position, N, M


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--protocol", choices=("per_positive", "per_user"),
                        default="per_positive")
    parser.add_argument("--thin-to", type=int, default=100)
    args = parser.parse_args(argv)
    user, position, N, M = synthetic_users(args.users, args.protocol)
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        table = PositiveTable.from_long(user, position, N, M, dense_users=True)
        correct_positives(table, METRICS, CORRECTIONS, "binomial", thin_to=args.thin_to,
                          processes=args.processes)
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    print(json.dumps({"users": args.users, "positives": int(user.size),
                      "protocol": args.protocol, "thin_to": args.thin_to,
                      "processes": args.processes, "distinct_n": int(np.unique(N).size),
                      "seconds_median": round(seconds, 2),
                      "seconds_all": [round(t, 2) for t in times],
                      "target_seconds": TARGET_SECONDS, "met": seconds <= TARGET_SECONDS}))


if __name__ == "__main__":
    main()
