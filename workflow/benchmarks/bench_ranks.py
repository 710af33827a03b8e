"""Nanoseconds per sampled negative of the ranking engine: the compiled path beside the
numpy path it replaced, on one draw block at ML-20M width, scores given.

    python workflow/benchmarks/bench_ranks.py [--items 26744] [--m 100,99,499]
        [--repeats 100] [--sampling hypergeometric,binomial] [--tie random_per_ranking]
        [--baseline REF]

One draw block of 1,024 users, each with a lognormal number of training items (median 67,
as ML-20M), a held-out item, and scores of every item given (random, with a share of ties
at zero as item-kNN has). For each sampling law, :func:`sampled_metrics.evaluation.evaluate`
ranks the block for every m and repeat, in a fresh process, once with the installed
library and once with the library as it was at git ``REF`` (default: the last commit of
the numpy engine), exported to a temporary folder. Printed per law: seconds, and ns per
sampled negative net of the exact ranking (``evaluate`` with no sample sizes), new and old
side by side, their ratio, and whether the two produced identical rank arrays.
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
#: the last commit whose engine drew and compared in numpy
NUMPY_ENGINE = "1c0bd93"

WORKER = r"""
import sys, time
import numpy as np, scipy.sparse as sp
from sampled_metrics.datasets import Split
from sampled_metrics.evaluation import evaluate

out, items, ms, repeats, sampling, tie = sys.argv[1:7]
items, repeats = int(items), int(repeats)
ms = [int(m) for m in ms.split(",")]
rng = np.random.default_rng(0)
b = 1024
counts = np.minimum(20 + rng.lognormal(np.log(47), 1.4, b).astype(int), items // 3)
rows = np.repeat(np.arange(b), counts)
cols = np.concatenate([rng.choice(items - 1, c, replace=False) for c in counts])
train = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(b, items))
split = Split(train, np.full(b, items - 1), np.arange(b))
scores = rng.random((b, items))
scores[rng.random((b, items)) < 0.1] = 0.0
scores[: b // 8, items - 1] = 0.0

class Given:
    def score(self, users):
        return scores[users]

evaluate(Given(), split, {5: 1}, tie=tie, sampling=sampling)      # warm-up (and compile)
start = time.perf_counter()
exact = evaluate(Given(), split, {}, tie=tie, sampling=sampling)
t_exact = time.perf_counter() - start
start = time.perf_counter()
result = evaluate(Given(), split, {m: repeats for m in ms}, tie=tie, sampling=sampling)
t_all = time.perf_counter() - start
np.savez(out, exact=result.ranks, **{f"m{m}": result.sampled[m] for m in ms},
         times=np.array([t_exact, t_all]))
"""


def run(src: Path, out: Path, args, sampling: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run([sys.executable, "-c", WORKER, str(out), str(args.items), args.m,
                    str(args.repeats), sampling, args.tie], env=env, check=True)
    with np.load(out) as f:
        return {k: f[k] for k in f.files}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=26744)
    parser.add_argument("--m", default="100,99,499")
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--sampling", default="hypergeometric,binomial")
    parser.add_argument("--tie", default="random_per_ranking")
    parser.add_argument("--baseline", default=NUMPY_ENGINE, metavar="REF")
    args = parser.parse_args()
    negatives = 1024 * args.repeats * sum(int(m) for m in args.m.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        print(f"one block of 1,024 users x {args.items:,} items, m = {args.m} x "
              f"{args.repeats} repeats ({negatives:,} negatives), tie {args.tie}; "
              f"baseline: the numpy engine at {args.baseline}")
        for sampling in args.sampling.split(","):
            new = run(ROOT / "src", tmp / "new.npz", args, sampling)
            old = run(tmp / "src", tmp / "old.npz", args, sampling)
            same = all(np.array_equal(new[k], old[k]) for k in new if k != "times")
            ns = {name: 1e9 * (r["times"][1] - r["times"][0]) / negatives
                  for name, r in (("new", new), ("old", old))}
            print(f"{sampling:>15}: compiled {new['times'][1]:6.2f} s = {ns['new']:6.1f} "
                  f"ns/negative | numpy {old['times'][1]:6.2f} s = {ns['old']:6.1f} "
                  f"ns/negative | {ns['old'] / ns['new']:5.1f}x | exact ranking "
                  f"{new['times'][0]:.2f} s vs {old['times'][0]:.2f} s | ranks "
                  f"{'identical' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
