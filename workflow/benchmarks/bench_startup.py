"""Benchmark: start-up time of the library and of the command line.

    python workflow/benchmarks/bench_startup.py [--repeats 15] [--baseline-ref <git ref>]

Each measured in a fresh Python process, ``--repeats`` times (best and median wall time):

``import``   ``python -c "import sampled_metrics"``
``help``     ``python -m sampled_metrics.cli --help``
``version``  ``python -m sampled_metrics.cli --version`` (absent before the first release)
``first``    ``python -c "import sampled_metrics as sm; sm.correct"`` (the first use of a name
             loads its module: what a script pays once)

Targets (idle 2-core machine): import <= 0.3 s, help <= 0.5 s. ``--baseline-ref REF`` also
times the ``src`` of a git ref (``git archive REF src``, unpacked in a temporary folder; the
repository is not touched) and prints the ratio of each median to the baseline's.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import machine, unpack_ref

ROOT = Path(__file__).resolve().parents[2]

CASES = {
    "import": ["-c", "import sampled_metrics"],
    "help": ["-m", "sampled_metrics.cli", "--help"],
    "version": ["-m", "sampled_metrics.cli", "--version"],
    "first": ["-c", "import sampled_metrics as sm; sm.correct"],
}


def times(argv: list[str], src: Path, repeats: int) -> list[float] | None:
    """Wall times of ``python argv`` with ``src`` first on the path (None if it fails)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, *argv], env=env, capture_output=True)
        out.append(time.perf_counter() - start)
        if proc.returncode != 0:
            return None
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--baseline-ref", help="also time the src of this git ref")
    args = ap.parse_args()
    print(machine())
    print(f"load average before: {os.getloadavg()[0]:.2f}; {args.repeats} runs each, "
          f"fresh processes")
    with tempfile.TemporaryDirectory() as tmp:
        versions = {"new": ROOT / "src"}
        if args.baseline_ref:
            versions[args.baseline_ref] = unpack_ref(args.baseline_ref, Path(tmp))
        results = {}
        for case, argv in CASES.items():
            for label, src in versions.items():
                results[case, label] = times(argv, src, args.repeats)
        header = f"{'case':8} {'version':>12} {'best s':>8} {'median s':>9}"
        print(header + (f" {'ratio':>7}" if args.baseline_ref else ""))
        for case in CASES:
            for label in versions:
                t = results[case, label]
                if t is None:
                    print(f"{case:8} {label:>12} {'fails':>8}")
                    continue
                line = f"{case:8} {label:>12} {t[0]:8.3f} {t[len(t) // 2]:9.3f}"
                base = results.get((case, args.baseline_ref)) if args.baseline_ref else None
                if label == "new" and base:
                    line += f" {t[len(t) // 2] / base[len(base) // 2]:7.2f}x"
                print(line)


if __name__ == "__main__":
    main()
