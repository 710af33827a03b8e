"""Benchmark: the README's ``sampled-metrics estimate`` example on ML-1M's 6,040 users.

    python workflow/benchmarks/bench_estimate.py [--repeats 5] [--baseline-ref <git ref>]

The command is the README's, ``sampled-metrics estimate --ranks ranks.txt --n 3706 --m 100``:
the default path (estimators mle, mes, bv_0.1; metrics recall@10, ndcg@10, ap; 100 bootstrap
draws over users on the CPUs available). ``ranks.txt`` holds 6,040 users' sampled ranks
(ML-1M's users and items): true ranks r = ceil(n u), u ~ Beta(0.5, 3) (Recall@10 ~ 8 %, as
the ML-1M study's recommenders), sampled ranks drawn with replacement at m = 100, seeded,
written to a temporary folder.

Each run is a fresh process (``bench_cli.run_once``: wall time, and CPU time of the process
and its workers). With ``--baseline-ref REF`` the ``src`` of a git ref (``git archive``,
unpacked in the temporary folder; the repository is not touched) is timed too, the two
alternating run by run, so that both see the same load; printed: the CPU and BLAS kernel,
the load average before and after, per version the best and median wall time and the median
CPU time, their ratios, and whether the printed tables are the same, else the largest change
of a value or an interval end against the bootstrap spread of that estimate (its 95 %
interval's width / 3.92, the standard error it implies). Target: <= 3 s on an idle 2-core
machine.

On a shared machine the wall time says little about an idle one, so ``--split`` also times
the parts of the current code in CPU time: the import, reading the ranks, and each worker's
items (its estimators' estimates and bootstrap batches, item i going to worker i mod 2, BLAS
on one thread) in a process forked as the pool's are, one worker after the other; and
prints the idle 2-core wall time they imply: the serial parts plus the busier worker.
"""
from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from bench_cli import run_once
from machine import alternately, machine, versions

N_ITEMS, M, USERS, SEED = 3706, 100, 6040, 0
TARGET_SECONDS = 3.0
COMMAND = ["estimate", "--ranks", "{ranks}", "--n", str(N_ITEMS), "--m", str(M)]


def write_ranks(path: Path) -> None:
    """The 6,040 users' sampled ranks (see the module docstring)."""
    rng = np.random.default_rng(SEED)
    r = np.clip(np.ceil(N_ITEMS * rng.beta(0.5, 3.0, size=USERS)), 1, N_ITEMS)
    np.savetxt(path, 1 + rng.binomial(M, (r - 1) / (N_ITEMS - 1)), fmt="%d")


#: Times the parts of ``estimate`` in CPU seconds (argv: the ranks file); prints JSON. Each
#: worker's items run in a worker process of their own, one after the other, as the pool
#: forks them (with empty caches), so that the two do not compete.
SPLIT = """
import json, sys, time
from concurrent.futures import ProcessPoolExecutor
clock = time.process_time
start = clock()
import sampled_metrics.cli.main
from sampled_metrics.cli.inputs import read_sampled_ranks
from sampled_metrics.estimators.dispatch import BATCH_HISTOGRAMS, _estimate_batch
from sampled_metrics.estimators.histogram import sampled_rank_histogram
from sampled_metrics.estimators.table import estimate
from sampled_metrics.parallel import _run
from sampled_metrics.registry import DEFAULT_METHODS
from sampled_metrics.resampling import bootstrap_histograms
out = {"import": clock() - start}
start = clock()
ranks = read_sampled_ranks(sys.argv[1], 100)
out["read"] = clock() - start
names = {e: {} for e in DEFAULT_METHODS["estimate"]}
boot = bootstrap_histograms(ranks, 100, 100, 0)
batches = [boot[lo:lo + BATCH_HISTOGRAMS] for lo in range(0, len(boot), BATCH_HISTOGRAMS)]
heads = [[sampled_rank_histogram(ranks, 100)]]
items = [(e, b) for e in names for b in batches] + [(e, b) for e in names for b in heads]

def worker(part):
    start = clock()
    _run(_estimate_batch, part, (3706, 100, "binomial", names))
    return clock() - start

out["workers"] = []
for w in (0, 1):
    with ProcessPoolExecutor(1) as pool:
        out["workers"].append(pool.submit(worker, items[w::2]).result())
start = clock()
estimate(ranks, 3706, 100, "recall@10,ndcg@10,ap", list(names), bootstrap=0,
         processes=1).to_string()
out["table"] = clock() - start
print(json.dumps(out))
"""


def split(ranks: Path) -> None:
    """The parts of the current code's ``estimate`` in CPU time, and the idle 2-core wall
    time they imply (see the module docstring)."""
    import json
    done = subprocess.run([sys.executable, "-c", SPLIT, str(ranks)], capture_output=True,
                          text=True, check=True)
    parts = json.loads(done.stdout)
    workers = parts.pop("workers")
    serial = parts["import"] + parts["read"]
    print(f"CPU seconds of the parts: import {parts['import']:.2f}, read {parts['read']:.2f}, "
          f"worker 1 {workers[0]:.2f}, worker 2 {workers[1]:.2f} (estimates and bootstrap), "
          f"the estimates alone with their table in one process {parts['table']:.2f}")
    print(f"idle 2-core wall implied: import and read {serial:.2f} + busier worker "
          f"{max(workers):.2f} = {serial + max(workers):.2f} s (plus starting the pool)")


def change(new: str, base: str) -> str:
    """How far the CSV tables ``new`` and ``base`` differ, against the bootstrap spread."""
    a, b = pd.read_csv(io.StringIO(new)), pd.read_csv(io.StringIO(base))
    spread = (b["ci_high"] - b["ci_low"]) / 3.92
    worst = max(((a[c] - b[c]).abs() / spread).max() for c in ("value", "ci_low", "ci_high"))
    return (f"tables differ: largest change {worst:.2g} of the bootstrap spread (value and "
            f"interval ends; spread = 95 % width / 3.92)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per version (default 5)")
    ap.add_argument("--baseline-ref", help="also time the src of this git ref, alternately")
    ap.add_argument("--split", action="store_true",
                    help="also time the parts of the current code in CPU time")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ranks = folder / "ranks.txt"
        write_ranks(ranks)
        argv = [a.format(ranks=ranks) for a in COMMAND]
        print(machine())
        srcs = versions(args.baseline_ref, folder)
        runs = alternately(srcs, args.repeats,
                           lambda label, src: run_once(argv, src, folder / f"{label}.txt"))
        print(f"{'version':12s} {'best s':>7s} {'median s':>8s} {'cpu s':>6s}  target")
        summary = {}
        for label, results in runs.items():
            best = min(r["seconds"] for r in results)
            median = statistics.median(r["seconds"] for r in results)
            cpu = statistics.median(r["cpu"] for r in results)
            summary[label] = (best, median, cpu)
            print(f"{label[:12]:12s} {best:7.2f} {median:8.2f} {cpu:6.2f}  "
                  f"{'PASS' if best <= TARGET_SECONDS else 'FAIL'} (<= {TARGET_SECONDS} s)")
        if args.baseline_ref:
            (nb, nm, nc), (bb, bm, bc) = summary["new"], summary[args.baseline_ref]
            print(f"new / {args.baseline_ref}: best {nb / bb:.2f}, median {nm / bm:.2f}, "
                  f"cpu {nc / bc:.2f}")
            tables = {}
            for label, src in srcs.items():           # the full-precision tables
                out = folder / f"{label}.csv"
                run_once([*argv, "--format", "csv"], src, out)
                tables[label] = out.read_text()
            new, base = tables["new"], tables[args.baseline_ref]
            print("tables identical" if new == base else change(new, base))
        if args.split:
            split(ranks)


if __name__ == "__main__":
    main()
