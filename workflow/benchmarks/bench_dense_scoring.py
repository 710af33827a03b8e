#!/usr/bin/env python
"""Benchmark: scoring one block of 1,024 users through a dense items x items weight matrix
(recommenders Y and EASE) at the width of MovieLens-20M (26,744 items), scipy's CSR x dense
product against :func:`sampled_metrics.recommenders.dense_kernels.sparse_dense_product`.

    python workflow/benchmarks/bench_dense_scoring.py [--blocks 3] [--runs 2] [--split PATH]

S = X_B W for the first ``--blocks`` blocks of 1,024 evaluated users of the ML-20M-synthetic
split (config/datasets/ml-20m-synthetic.yaml, generated here in about 15 s unless ``--split``
gives one), W a random dense matrix (the time does not depend on the values): scipy on
float64 W (today's path, one thread), then the kernel on float64 and float32 W with 1 and 2
threads. Prints the median seconds per block, the ratio to scipy, and the rate at which the
product reads W's rows and writes S (GB/s, as if nothing were reused from cache), and
checks that the kernel's float64 scores are scipy's bit for bit. ``--floor`` then times the
float32 kernel on one thread with the block's items folded onto 8, 256 and 1,024 rows of W
(the same work, W read from the 1 MB L2, the 32 MB L3, or beyond): what the kernel would
take if W's rows came from cache. Memory: W in float64 (5.7 GB) and float32
(2.9 GB). Everything runs under ``threadpool_limits(1, 'blas')``, as the ranks stage does.
The load average is printed with the timings: another job on the machine slows them.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from machine import machine

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config" / "datasets" / "ml-20m-synthetic.yaml"
BLOCK = 1024


def synthetic_split(out_dir: Path) -> Path:
    """Generate the ML-20M-synthetic archive and its leave-last-out split in ``out_dir``."""
    from sampled_metrics.datasets import make_split, prepare_archive
    spec = yaml.safe_load(CONFIG.read_text())["datasets"]["ml-20m-synthetic"]
    prepare_archive("ml-20m-synthetic", spec, out_dir / "archive.zip")
    make_split(out_dir / "archive.zip", spec, out_dir / "split.npz", name="ml-20m-synthetic")
    return out_dir / "split.npz"


def random_weights(n: int, seed: int = 0) -> np.ndarray:
    """A dense (n, n) float64 matrix of uniforms, filled in row blocks."""
    rng = np.random.default_rng(seed)
    W = np.empty((n, n))
    for start in range(0, n, 2048):
        W[start:start + 2048] = rng.random((min(2048, n - start), n))
    return W


def seconds(fn, blocks, runs: int) -> float:
    """Median wall seconds of ``fn(block)`` over the blocks and runs."""
    times = []
    for _ in range(runs):
        for block in blocks:
            start = time.perf_counter()
            fn(block)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def moved(block, W) -> float:
    """GB the product moves without reuse: a row of W per stored entry, S written once."""
    return (block.nnz * W.shape[1] * W.itemsize + block.shape[0] * W.shape[1] * 8) / 1e9


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", default=None, help="an ML-20M-synthetic split (.npz); "
                                                  "default: generate one")
    ap.add_argument("--blocks", type=int, default=3, help="user blocks of 1,024 to time")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--floor", action="store_true",
                    help="also time the kernel with W's rows coming from cache")
    args = ap.parse_args()

    from threadpoolctl import threadpool_limits

    import scipy.sparse as sp

    from sampled_metrics.datasets import load_split
    from sampled_metrics.recommenders.dense_kernels import sparse_dense_product, to_c_order

    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        split = load_split(args.split or synthetic_split(Path(tmp)))
    train, n = split.train, split.n_items
    blocks = [train[split.users[s:s + BLOCK]] for s in range(0, args.blocks * BLOCK, BLOCK)]
    print(f"{train.shape[0]:,} users x {n:,} items, {train.nnz:,} interactions; "
          f"{len(blocks)} blocks of {BLOCK} users ({sum(b.nnz for b in blocks):,} entries)")
    W = random_weights(n)
    sparse_dense_product(blocks[0][:8], W, 1)                        # compile / load cache
    with threadpool_limits(1, "blas"):
        same = all(np.array_equal(sparse_dense_product(b, W, 2), b @ W) for b in blocks[:1])
        print(f"kernel float64 scores == scipy's, bit for bit: {same}")
        base = seconds(lambda b: b @ W, blocks, args.runs)
        print(f"scipy  float64           {base:7.3f} s/block   1.00x   ({load()})")
        for dtype in ("float64", "float32"):
            if dtype == "float32":
                W = to_c_order(W, "float32")                          # 5.7 GB -> 2.9 GB
                sparse_dense_product(blocks[0][:8], W, 1)
            for threads in args.threads:
                t = seconds(lambda b: sparse_dense_product(b, W, threads), blocks, args.runs)
                print(f"kernel {dtype} {threads} thread{'s' if threads > 1 else ' '}  "
                      f"{t:7.3f} s/block  {base / t:5.2f}x  "
                      f"{moved(blocks[0], W) / t:5.1f} GB/s  ({load()})")
        if args.floor:                                    # W is float32 here
            for rows in (8, 256, 1024):
                folded = [sp.csr_matrix((b.data, b.indices % rows, b.indptr), shape=b.shape)
                          for b in blocks]
                t = seconds(lambda b: sparse_dense_product(b, W, 1), folded, args.runs)
                print(f"kernel float32 1 thread, items folded onto {rows:5d} rows of W "
                      f"({rows * W.shape[1] * 4 / 2**20:6.1f} MB): {t:7.3f} s/block  ({load()})")


if __name__ == "__main__":
    main()
