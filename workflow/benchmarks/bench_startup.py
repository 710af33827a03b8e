"""Benchmark: start-up time of the library and of the command line.

    python workflow/benchmarks/bench_startup.py [--repeats 15] [--baseline-ref <git ref>]
    python workflow/benchmarks/bench_startup.py --steps --baseline-ref <git ref>

Each measured in a fresh Python process, ``--repeats`` times (best and median wall time):

``import``   ``python -c "import sampled_metrics"``
``help``     ``python -m sampled_metrics.cli --help``
``version``  ``python -m sampled_metrics.cli --version`` (absent before the first release)
``first``    ``python -c "import sampled_metrics as sm; sm.correct"`` (the first use of a name
             loads its module: what a script pays once)

``--steps``: instead, the import of each module the workflow's jobs start from
(``sampled_metrics.workflow.steps.*`` as the scripts in ``workflow/scripts/`` import them): what
every job pays before its work, about 45 times in a run on MovieLens-1M.

Targets (idle 2-core machine): import <= 0.3 s, help <= 0.5 s. ``--baseline-ref REF`` also
times the ``src`` of a git ref (``git archive REF src``, unpacked in a temporary folder; the
repository is not touched), run by run in turn with this tree's, and prints the ratio of each
median to the baseline's.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import alternately, machine, unpack_ref

ROOT = Path(__file__).resolve().parents[2]

CASES = {
    "import": ["-c", "import sampled_metrics"],
    "help": ["-m", "sampled_metrics.cli", "--help"],
    "version": ["-m", "sampled_metrics.cli", "--version"],
    "first": ["-c", "import sampled_metrics as sm; sm.correct"],
}

#: The modules the workflow's job scripts import (``workflow/scripts/*.py``).
STEPS = ("datasets", "workflow.steps.ranks", "workflow.steps.gather",
         "workflow.steps.kdd_study", "workflow.steps.jin", "workflow.steps.plots",
         "workflow.steps.toy", "workflow.steps.results_table",
         "workflow.steps.practice_study")
STEP_CASES = {step.rsplit(".", 1)[-1]: ["-c", f"import sampled_metrics.{step}"]
              for step in STEPS}


def once(argv: list[str], src: Path) -> float | None:
    """Wall time of ``python argv`` with ``src`` first on the path (None if it fails)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *argv], env=env, capture_output=True)
    return time.perf_counter() - start if proc.returncode == 0 else None


def times(argv: list[str], versions: dict, repeats: int) -> dict:
    """{label: sorted wall times, or None if one run fails}, the versions alternating run by
    run (:func:`machine.alternately`; the load is printed once, not for each case)."""
    runs = alternately(versions, repeats, lambda label, src: once(argv, src), report=False)
    return {label: None if None in t else sorted(t) for label, t in runs.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--baseline-ref", help="also time the src of this git ref")
    ap.add_argument("--steps", action="store_true",
                    help="time the imports of the workflow's job steps instead")
    args = ap.parse_args()
    cases = STEP_CASES if args.steps else CASES
    print(machine())
    print(f"load average before: {os.getloadavg()[0]:.2f}; {args.repeats} runs each, "
          f"fresh processes")
    with tempfile.TemporaryDirectory() as tmp:
        versions = {"new": ROOT / "src"}
        if args.baseline_ref:
            versions[args.baseline_ref] = unpack_ref(args.baseline_ref, Path(tmp))
        results = {}
        for case, argv in cases.items():
            for label, t in times(argv, versions, args.repeats).items():
                results[case, label] = t
        header = f"{'case':14} {'version':>12} {'best s':>8} {'median s':>9}"
        print(header + (f" {'ratio':>7}" if args.baseline_ref else ""))
        for case in cases:
            for label in versions:
                t = results[case, label]
                if t is None:
                    print(f"{case:14} {label:>12} {'fails':>8}")
                    continue
                line = f"{case:14} {label:>12} {t[0]:8.3f} {t[len(t) // 2]:9.3f}"
                base = results.get((case, args.baseline_ref)) if args.baseline_ref else None
                if label == "new" and base:
                    line += f" {t[len(t) // 2] / base[len(base) // 2]:7.2f}x"
                print(line)


if __name__ == "__main__":
    main()
