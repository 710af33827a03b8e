"""Benchmark: reading and correcting a ReChorus test output of MovieLens-1M's size.

    python workflow/benchmarks/bench_rechorus.py [--repeats 5] [--test-users 6040]
                                                 [--baseline-ref REF]

Writes, to a temporary folder, a dataset in ReChorus' layout with the ML-1M notebook's
sizes (6,040 users, 3,125 items, 575,000 train rows, 20 to 2,000 a user as the project's
synthetic generator spreads them, 6,034 test rows of users drawn uniformly from
``--test-users`` of them, in time order, 99 distinct negatives each) and a
``rec-MF-test.csv`` as ReChorus' main.py writes it (every candidate's float32 score,
sorted; lines in (user, time) order), seeded. Each run, in a fresh process (imports
untimed): ``integrations.rechorus.long_format`` (read and rank), then the recipe's
``correct`` (``correct_positions`` of the long format: hit@10 and ndcg@10, the default
corrections, evaluator ``rechorus``). Target: <= 5 s for both. The median CPU time (all
threads) is printed beside the wall times: on a shared machine it is the closer guess of an
idle machine's wall time.

``--baseline-ref REF`` also times the ``src`` of a git ref, alternately with this tree's;
the ref reads the lines only in test.csv's order (it pairs line i with row i), so both are
timed on a copy of the file in that order, and this tree also on ReChorus' own order.
Prints the CPU and the BLAS kernel.
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
import pandas as pd
from machine import machine, unpack_ref

from sampled_metrics.datasets.synthetic import user_counts

USERS, ITEMS, TRAIN, TEST, M, SEED = 6040, 3125, 575_000, 6034, 99, 0
TARGET_SECONDS = 5.0

#: one timed run: argv = folder, rec file; prints the wall seconds of reading and correcting,
#: the CPU seconds of both (all threads), the rows and the values
CHILD = """
import json, sys, time
from sampled_metrics.integrations.rechorus import long_format
from sampled_metrics.intervals import correct_positions
start, cpu = time.perf_counter(), time.process_time()
table = long_format(sys.argv[1], sys.argv[2])
read = time.perf_counter()
result = correct_positions(table, ["hit@10", "ndcg@10"], evaluator="rechorus")
done = time.perf_counter()
print(json.dumps({"read": read - start, "correct": done - read, "rows": len(table),
                  "cpu": time.process_time() - cpu, "value": result["value"].round(6).tolist()}))
"""


def write_data(folder: Path, test_users: int = USERS) -> tuple[Path, Path]:
    """The dataset and the rec file (module docstring), the test rows of ``test_users``
    users; (rec in ReChorus' order, rec in test.csv's order)."""
    rng = np.random.default_rng(SEED)
    counts = user_counts(USERS, TRAIN, 20, 2000, 1.4, rng)     # the generator's ML shape
    train = pd.DataFrame({"user_id": np.repeat(np.arange(1, USERS + 1), counts),
                          "item_id": np.concatenate([rng.choice(ITEMS, c, replace=False) + 1
                                                     for c in counts]),
                          "time": rng.integers(0, 800, TRAIN)})
    train.to_csv(folder / "train.csv", sep="\t", index=False)
    users = rng.choice(np.arange(1, USERS + 1), test_users, replace=False)[
        rng.integers(0, test_users, TEST)]
    clicked = train.groupby("user_id")["item_id"].agg(set).to_dict()
    positives = np.empty(TEST, dtype=np.int64)
    for i, u in enumerate(users):           # a test item outside the user's others
        seen = clicked.setdefault(u, set())
        item = int(rng.integers(1, ITEMS + 1))
        while item in seen:
            item = int(rng.integers(1, ITEMS + 1))
        seen.add(item)
        positives[i] = item
    negatives = np.empty((TEST, M), dtype=np.int64)
    for i, u in enumerate(users):
        pool = np.setdiff1d(np.arange(1, ITEMS + 1), sorted(clicked[u]))
        negatives[i] = rng.choice(pool, M, replace=False)
    times = np.sort(rng.integers(900, 1000, TEST))
    pd.DataFrame({"user_id": users, "item_id": positives, "time": times,
                  "neg_items": [str(row.tolist()) for row in negatives]}).to_csv(
        folder / "test.csv", sep="\t", index=False)
    scores = rng.normal(size=(TEST, 1 + M)).astype(np.float32)
    candidates = np.c_[positives, negatives]
    order = np.argsort(-scores, axis=1, kind="stable")
    lines = pd.DataFrame({
        "user_id": users,
        "rec_items": [str(row.tolist()) for row in np.take_along_axis(candidates, order, 1)],
        "rec_predictions": ["[" + ", ".join(map(str, row)) + "]"       # float32's repr
                            for row in np.take_along_axis(scores, order, 1)]})
    lines.to_csv(folder / "rec-test-order.csv", sep="\t", index=False)
    by_user = np.lexsort((times, users))
    lines.iloc[by_user].to_csv(folder / "rec-MF-test.csv", sep="\t", index=False)
    return folder / "rec-MF-test.csv", folder / "rec-test-order.csv"


def run_once(folder: Path, rec: Path, src: Path | None) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(rec)], env=env,
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1])
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--test-users", type=int, default=USERS,
                        help="users the test rows are drawn from (default all): the "
                             "correction's time grows with the distinct pools they have")
    parser.add_argument("--baseline-ref", help="also time the src of this git ref")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rechorus_order, test_order = write_data(folder, args.test_users)
        base = unpack_ref(args.baseline_ref, folder) if args.baseline_ref else None
        cases = [("this tree", "ReChorus' order", rechorus_order, None)]
        if base is not None:
            cases += [("this tree", "test.csv's order", test_order, None),
                      (args.baseline_ref, "test.csv's order", test_order, base)]
        runs = {case[:2]: [] for case in cases}
        for _ in range(args.repeats):                   # alternately
            for version, order, rec, src in cases:
                runs[version, order].append(run_once(folder, rec, src))
    print(f"{machine()}; load average {os.getloadavg()[0]:.2f}; {TEST:,} test rows, "
          f"{ITEMS:,} items, test rows of {args.test_users:,} users; {args.repeats} runs each, "
          f"alternately")
    medians = {}
    for (version, order), results in runs.items():
        total = [r["read"] + r["correct"] for r in results]
        medians[version, order] = statistics.median(total)
        read = statistics.median(r["read"] for r in results)
        correct = statistics.median(r["correct"] for r in results)
        cpu = statistics.median(r["cpu"] for r in results)
        print(f"{version[:10]:10s} {order:17s} read {read:5.2f} s  correct {correct:5.2f} s  total "
              f"median {medians[version, order]:5.2f} s best {min(total):5.2f} s cpu {cpu:5.2f} s  "
              f"{'PASS' if min(total) <= TARGET_SECONDS else 'FAIL'} (<= {TARGET_SECONDS:g} s)")
    if base is not None:
        ratio = medians["this tree", "test.csv's order"] / medians[args.baseline_ref,
                                                                   "test.csv's order"]
        same = runs["this tree", "test.csv's order"][0]["value"] == \
            runs[args.baseline_ref, "test.csv's order"][0]["value"]
        print(f"this tree / {args.baseline_ref} on test.csv's order: {ratio:.2f} (medians); "
              f"values {'identical' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
