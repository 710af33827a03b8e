#!/usr/bin/env python
"""Benchmark: one whole workflow run from an empty working directory, with its wall time,
peak memory and per-rule times.

    python workflow/benchmarks/bench_workflow.py --ml1m PATH           # ML-1M from a local zip
    python workflow/benchmarks/bench_workflow.py --configfile config/datasets/ml-20m-synthetic.yaml
    python workflow/benchmarks/bench_workflow.py --ml1m PATH --configfile workflow/benchmarks/ml1m-no-neural.yaml

Copies Snakefile, workflow/ and config/ into a fresh directory beside the project, runs
``snakemake --cores N --configfile FILE`` there (without ``--configfile``: the default
config with MovieLens-1M copied from the local archive ``--ml1m``, default
``$SAMPLED_METRICS_ML1M``, accepted with its own MD5; with both ``--ml1m`` and
``--configfile``, the local archive's config first and the files after it), and prints:

* wall time, CPU-seconds (user + system of snakemake and every process it waited for: its
  jobs and their workers), and the peak of the summed resident memory of snakemake and all
  its child processes (sampled every 0.2 s from /proc), against the target;
* per rule: jobs, summed and longest wall time (from ``logs/benchmarks``);
* how many times each (dataset, recommender) model was fitted (the ``fit:`` lines of the fit
  logs; target: exactly once).
"""
from __future__ import annotations

import argparse
import collections
import csv
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import machine

ROOT = Path(__file__).resolve().parents[2]


def tree_rss_kb(root_pid: int) -> int:
    """Summed VmRSS (kB) of ``root_pid`` and all its descendants."""
    children = collections.defaultdict(list)
    rss = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/status") as fh:
                kb = next((int(line.split()[1]) for line in fh if line.startswith("VmRSS:")), 0)
        except (OSError, ValueError, IndexError):
            continue
        children[ppid].append(int(entry))
        rss[int(entry)] = kb
    total, stack = 0, [root_pid]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack += children.get(pid, [])
    return total


def first_job_time(workdir: Path) -> float | None:
    """When the run's first job started (epoch seconds, from snakemake's log), or None."""
    for log in sorted((workdir / ".snakemake" / "log").glob("*.snakemake.log")):
        for line in log.read_text().splitlines():
            m = re.fullmatch(r"\[(\w{3} \w{3}\s+\d+ \d\d:\d\d:\d\d \d{4})\]", line.strip())
            if m:
                return time.mktime(time.strptime(m.group(1), "%a %b %d %H:%M:%S %Y"))
    return None


def per_rule_times(workdir: Path) -> list[tuple[str, int, float, float]]:
    rows = collections.defaultdict(list)
    for tsv in sorted((workdir / "logs/benchmarks").rglob("*.tsv")):
        with open(tsv) as fh:
            rec = list(csv.DictReader(fh, delimiter="\t"))
        if rec:
            rule = next((r for r in ("fit", "ranks_shard") if tsv.stem.startswith(r + "_")),
                        None) or (re.sub(r"_m\d+.*|_[^_]*$", "", tsv.stem)
                                  if "_" in tsv.stem else tsv.stem)
            rows[rule].append(float(rec[-1]["s"]))
    return sorted(((r, len(t), sum(t), max(t)) for r, t in rows.items()),
                  key=lambda x: -x[2])


def fits(workdir: Path) -> dict:
    count = collections.Counter()
    for log in (workdir / "logs").rglob("fit_*.log"):
        for line in log.read_text().splitlines():
            if " fit: {" in line:
                count[(log.parent.name, log.stem.removeprefix("fit_"))] += 1
    return dict(count)


def local_ml1m_config(archive, workdir: Path) -> str:
    """A config file naming the local ML-1M zip ``archive`` and its own MD5."""
    from sampled_metrics.datasets import md5sum
    if not archive or not Path(archive).is_file():
        sys.exit(f"no local MovieLens-1M archive (give --ml1m PATH or set "
                 f"SAMPLED_METRICS_ML1M): {archive!r}")
    path = workdir / "config" / "local-ml1m.yaml"
    path.write_text(f"datasets:\n  ml-1m:\n    format: ml-1m\n"
                    f"    path: {Path(archive).resolve()}\n    md5: {md5sum(archive)}\n")
    return str(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--configfile", nargs="+", default=[],
                    help="config files (relative to the project, or absolute)")
    ap.add_argument("--ml1m", help="the local MovieLens-1M zip to run on (default without "
                                   "--configfile: $SAMPLED_METRICS_ML1M); with --configfile, "
                                   "its files are merged after it")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--target-seconds", type=float, default=120.0)
    ap.add_argument("--target-gb", type=float, default=2.0)
    ap.add_argument("--set-threads", nargs="+", default=[], metavar="RULE=N",
                    help="passed to snakemake (e.g. fit=2: every fit on two threads)")
    ap.add_argument("--keep", action="store_true", help="keep the working directory")
    ap.add_argument("targets", nargs="*", help="snakemake targets (default: all)")
    args = ap.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix=".bench-", dir=ROOT.parent))
    for item in ("Snakefile", "workflow", "config"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, workdir / item)
    local = ([] if args.configfile and not args.ml1m else
             [local_ml1m_config(args.ml1m or os.environ.get("SAMPLED_METRICS_ML1M"), workdir)])
    configfiles = local + [str(Path(f).resolve()) if Path(f).is_file() else f
                           for f in args.configfile]
    cmd = [sys.executable, "-m", "snakemake", *args.targets, "--cores", str(args.cores),
           "--configfile", *configfiles]
    if args.set_threads:
        cmd += ["--set-threads", *args.set_threads]
    print(machine())
    print(f"running {' '.join(cmd[2:])} in {workdir}", flush=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start, started = time.perf_counter(), time.time()
    with open(workdir / "bench.log", "w") as out:
        proc = subprocess.Popen(cmd, cwd=workdir, stdout=out, stderr=subprocess.STDOUT)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, tree_rss_kb(proc.pid))
            time.sleep(0.2)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        print((workdir / "bench.log").read_text()[-3000:])
        sys.exit(f"snakemake failed (exit {proc.returncode}); see {workdir}/bench.log")
    gb = peak / 2**20
    print(f"wall {wall:.1f} s (target <= {args.target_seconds:.0f} s: "
          f"{'PASS' if wall <= args.target_seconds else 'FAIL'}), {cpu:.0f} CPU-s, "
          f"peak summed RSS {gb:.2f} GB "
          f"(target <= {args.target_gb:g} GB: {'PASS' if gb <= args.target_gb else 'FAIL'})")
    first = first_job_time(workdir)
    if first is not None:
        print(f"snakemake's start-up before the first job: {first - started:.0f} s (whole "
              f"seconds; about 9 s more where SLURM's client tools find no controller: the "
              f"SLURM plugin asks scontrol at start)")
    print(f"{'rule':24s} {'jobs':>4s} {'sum s':>8s} {'max s':>8s}")
    for rule, jobs, total, longest in per_rule_times(workdir):
        print(f"{rule:24s} {jobs:4d} {total:8.1f} {longest:8.1f}")
    fitted = fits(workdir)
    print("fits per (dataset, recommender):",
          ", ".join(f"{d}/{r}: {n}" for (d, r), n in sorted(fitted.items())),
          "(target: each exactly 1:", "PASS)" if fitted and set(fitted.values()) == {1}
          else "FAIL)")
    if args.keep:
        print(f"kept {workdir}")
    else:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
