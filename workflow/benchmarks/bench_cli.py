"""Benchmark: wall time and peak memory of the documented command-line examples.

    python workflow/benchmarks/bench_cli.py [--repeats 3] [--only estimate plan ...]
                                            [--baseline-ref <git ref>]

Commands (docs/guide/correcting.md), each run as a subprocess ``--repeats`` times:

``estimate``         ``sampled-metrics estimate --ranks ranks.txt --n 3706 --m 99
                     --method mle,mes,bv_0.1 --metric recall@10,ndcg@10`` (default bootstrap,
                     100 draws)
``estimate-default`` the same with the default estimators (mle, wmle, mes, bv_0.1) and metrics
``plan``             ``sampled-metrics plan --n 3706 --metric ndcg@10 --target-bias 0.005
                     --method sampled,bv_0.1``
``plan-hyper``       the same with ``--sampling hypergeometric``

``ranks.txt`` holds 5,000 users' sampled ranks (m = 99, n = 3,706, as ML-1M): true ranks
r = ceil(n u), u ~ Beta(0.5, 3) (Recall@10 ~ 8 %), sampled ranks drawn with replacement,
seeded, written to a temporary folder. Printed per command: the best and median wall time,
the CPU time (user + system, worker processes included) of the best run, the peak RSS of
the largest process (``ru_maxrss`` of the waited-for children, measured in
a fresh helper process per run, so that it is that run's own) and the load average before
the runs (the machine may be shared: compare best times). Targets: <= 5 s each and
<= 500 MB for ``plan``.

``--baseline-ref REF`` also times the ``src`` of a git ref (``git archive REF src``, unpacked
in the temporary folder; the repository is not touched) and prints both and whether the
outputs are the same.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from machine import unpack_ref
N_ITEMS, M, USERS, SEED = 3706, 99, 5000, 0
TARGET_SECONDS, TARGET_MB = 5.0, 500.0

#: name -> arguments after ``sampled-metrics`` ({ranks}: the ranks file)
COMMANDS = {
    "estimate": ["estimate", "--ranks", "{ranks}", "--n", str(N_ITEMS), "--m", str(M),
                 "--method", "mle,mes,bv_0.1", "--metric", "recall@10,ndcg@10"],
    "estimate-default": ["estimate", "--ranks", "{ranks}", "--n", str(N_ITEMS), "--m", str(M)],
    "plan": ["plan", "--n", str(N_ITEMS), "--metric", "ndcg@10", "--target-bias", "0.005",
             "--method", "sampled,bv_0.1"],
    "plan-hyper": ["plan", "--n", str(N_ITEMS), "--metric", "ndcg@10", "--target-bias",
                   "0.005", "--method", "sampled,bv_0.1", "--sampling", "hypergeometric"],
}

#: Runs one command and prints {"seconds", "cpu", "maxrss_kb", "code"} as JSON (a fresh
#: process, so that RUSAGE_CHILDREN holds this run only, its worker processes included).
HELPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "w"), stderr=subprocess.DEVNULL)
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": seconds, "code": done.returncode, "maxrss_kb": usage.ru_maxrss,
                  "cpu": usage.ru_utime + usage.ru_stime}))
"""


def write_ranks(path: Path) -> None:
    """The 5,000 users' sampled ranks (see module docstring)."""
    rng = np.random.default_rng(SEED)
    r = np.clip(np.ceil(N_ITEMS * rng.beta(0.5, 3.0, size=USERS)), 1, N_ITEMS)
    sampled = 1 + rng.binomial(M, (r - 1) / (N_ITEMS - 1))
    np.savetxt(path, sampled, fmt="%d")


def run_once(argv: list[str], src: Path | None, out: Path) -> dict:
    """One timed run of ``sampled-metrics argv`` (from ``src`` if given): the helper's JSON."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    cmd = [sys.executable, "-c", HELPER, str(out), sys.executable, "-m", "sampled_metrics.cli",
           *argv]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    result = json.loads(done.stdout)
    if result["code"] != 0:
        raise RuntimeError(f"sampled-metrics {' '.join(argv)} exited with {result['code']}")
    return result


def bench(name: str, argv: list[str], src: Path | None, repeats: int, folder: Path) -> dict:
    """Best and median wall seconds, CPU seconds of the best run, peak RSS (MB) and the
    output of ``repeats`` runs."""
    out = folder / f"{name}-{'base' if src else 'new'}.txt"
    runs = [run_once(argv, src, out) for _ in range(repeats)]
    seconds = [r["seconds"] for r in runs]
    return {"best": min(seconds), "median": statistics.median(seconds),
            "cpu": min(runs, key=lambda r: r["seconds"])["cpu"],
            "rss_mb": max(r["maxrss_kb"] for r in runs) / 1024, "output": out.read_text()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="runs per command (default 3)")
    ap.add_argument("--only", nargs="+", choices=sorted(COMMANDS), default=list(COMMANDS),
                    help="commands to time (default: all)")
    ap.add_argument("--baseline-ref", help="also time the src of this git ref")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ranks = folder / "ranks.txt"
        write_ranks(ranks)
        base_src = unpack_ref(args.baseline_ref, folder) if args.baseline_ref else None
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
              f"({os.cpu_count()} CPUs); {args.repeats} runs per command")
        print(f"{'command':18s} {'version':8s} {'best s':>7s} {'median s':>8s} {'cpu s':>6s} "
              f"{'peak MB':>8s}  target")
        for name in args.only:
            argv = [a.format(ranks=ranks) for a in COMMANDS[name]]
            versions = [("new", None)] + ([(args.baseline_ref, base_src)] if base_src else [])
            results = {label: bench(name, argv, src, args.repeats, folder)
                       for label, src in versions}
            for label, res in results.items():
                ok = res["best"] <= TARGET_SECONDS and (
                    not name.startswith("plan") or res["rss_mb"] <= TARGET_MB)
                print(f"{name:18s} {label[:8]:8s} {res['best']:7.2f} {res['median']:8.2f} "
                      f"{res['cpu']:6.2f} {res['rss_mb']:8.0f}  {'PASS' if ok else 'FAIL'}")
            if base_src:
                same = results["new"]["output"] == results[args.baseline_ref]["output"]
                print(f"{'':18s} output {'identical' if same else 'DIFFERS'} to "
                      f"{args.baseline_ref}")


if __name__ == "__main__":
    main()
