"""Benchmark: ``sampled-metrics table`` on 10 models x ML-1M's 6,040 users.

    python workflow/benchmarks/bench_table.py [--repeats 3] [--baseline-ref <git ref>]
                                              [--split]

The command is the guide's default, ``sampled-metrics table r0.txt ... r9.txt --n 3706
--m 100``: per model the recommended answer, sampled, CLS and BV 0.1 on recall@10, ndcg@10
and ap; the default (BV 0.1) verdicts of the 45 pairs x 3 metrics under the max-statistic
family-wise procedure, with the default draws (``familywise_draws``: 2 H S / 0.05 = 10,800
for H = 135 comparisons of S = 2 statistics); worker
processes on the CPUs available. Model i's users have true ranks ceil(n F_i^-1(Phi(0.7 z_u +
0.71 e_ui))), F_i the Beta(0.5, 3 + 0.3 i) law and z_u a user's shared difficulty (Recall@10
from 10 % to 14 %), its sampled ranks drawn with replacement at m = 100, seeded, one file
per model in a temporary folder.

Each run is a fresh process (``bench_cli.run_once``: wall time, and CPU time of the process
and its workers); with ``--baseline-ref REF`` the ``src`` of a git ref (``git archive``,
unpacked in the temporary folder; the repository is not touched) is timed too, the two
alternating run by run, so that both see the same load, and their CSV tables are compared.
Printed: the CPU and BLAS kernel, the load average before and after, per version the best
and median wall time, the median CPU time and peak memory of the largest process, and the
ratios. ``--split`` also times the
parts in this process (the models' answers, the pairs' draws, the family-wise levels) on
one thread. Target: <= 10 s on 2 cores.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_cli import run_once
from machine import alternately, machine, versions
from scipy import stats

N_ITEMS, M, USERS, MODELS, SEED = 3706, 100, 6040, 10, 0
TARGET_SECONDS = 10.0


def write_ranks(folder: Path) -> list[Path]:
    """One file of sampled ranks per model (module docstring)."""
    rng = np.random.default_rng(SEED)
    z = rng.standard_normal(USERS)
    paths = []
    for i in range(MODELS):
        t = stats.norm.cdf(0.7 * z + np.sqrt(1 - 0.49) * rng.standard_normal(USERS))
        r = np.clip(np.ceil(N_ITEMS * stats.beta.ppf(t, 0.5, 3 + 0.3 * i)), 1, N_ITEMS)
        path = folder / f"r{i}.txt"
        np.savetxt(path, 1 + rng.binomial(M, (r - 1) / (N_ITEMS - 1)), fmt="%d")
        paths.append(path)
    return paths


def split(paths: list[Path]) -> None:
    """The parts of the command in this process, BLAS on one thread."""
    from threadpoolctl import threadpool_limits

    from sampled_metrics.compare import table
    from sampled_metrics.compare.paired import rank_draws
    from sampled_metrics.design import Design

    ranks = {p.stem: np.loadtxt(p, dtype=np.int64) for p in paths}
    with threadpool_limits(1):
        start = time.perf_counter()
        answers = [table._rank_answer(item, N_ITEMS, M, table.parse_metrics(
            ["recall@10", "ndcg@10", "ap"]), ["recommended", "sampled", "cls", "bv_0.1"],
            "binomial", dict(level=0.95, bootstrap=5400, seed=0)) for item in ranks.items()]
        print(f"models' answers (serial): {time.perf_counter() - start:.2f} s")
        start = time.perf_counter()
        draws = rank_draws(ranks, Design(N_ITEMS, M), table.parse_metrics(["recall@10",
                                                                         "ndcg@10", "ap"]),
                           ["mes"], bootstrap=5400, rng=np.random.default_rng(0),
                           pis={x: a[1] for x, a in zip(ranks, answers)})
        print(f"pairs' draws: {time.perf_counter() - start:.2f} s")
        start = time.perf_counter()
        frame = table._pairs(draws, list(ranks), draws.metrics, "mes", 0.95, "maxstat")
        print(f"family-wise levels and rows: {time.perf_counter() - start:.2f} s "
              f"({len(frame)} rows)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="runs per version (default 3)")
    ap.add_argument("--baseline-ref", help="also time the src of this git ref, alternately")
    ap.add_argument("--split", action="store_true", help="also time the parts")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_ranks(folder)
        argv = ["table", *map(str, paths), "--n", str(N_ITEMS), "--m", str(M)]
        print(machine())

        def run(label, src):
            result = run_once([*argv, "--format", "csv"], src, folder / f"{label}.csv")
            if result["code"] != 0:
                raise SystemExit(f"{label}: the command failed (exit {result['code']})")
            return result

        srcs = versions(args.baseline_ref, folder)
        runs = alternately(srcs, args.repeats, run)
        print(f"{'version':12s} {'best s':>7s} {'median s':>8s} {'cpu s':>6s} {'peak MB':>8s}"
              f"  target")
        summary = {}
        for label, results in runs.items():
            best = min(r["seconds"] for r in results)
            median = statistics.median(r["seconds"] for r in results)
            cpu = statistics.median(r["cpu"] for r in results)
            peak = statistics.median(r["maxrss_kb"] for r in results) / 1024
            summary[label] = (best, median, cpu)
            print(f"{label[:12]:12s} {best:7.2f} {median:8.2f} {cpu:6.2f} {peak:8.0f}  "
                  f"{'PASS' if best <= TARGET_SECONDS else 'FAIL'} (<= {TARGET_SECONDS} s)")
        if args.baseline_ref:
            (nb, nm, nc), (bb, bm, bc) = summary["new"], summary[args.baseline_ref]
            print(f"new / {args.baseline_ref}: best {nb / bb:.2f}, median {nm / bm:.2f}, "
                  f"cpu {nc / bc:.2f}")
            same = ((folder / "new.csv").read_text()
                    == (folder / f"{args.baseline_ref}.csv").read_text())
            print("tables identical" if same else "tables differ")
        if args.split:
            split(paths)


if __name__ == "__main__":
    main()
