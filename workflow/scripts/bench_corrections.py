"""Benchmark: time and peak memory of correction vectors (KDD'20 Sec. 5).

    python workflow/scripts/bench_corrections.py [--quick]

Each (n, m, method) runs in a fresh subprocess so the peak RSS (ru_maxrss) is its own.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def one(n: int, m: int, method: str) -> dict:
    import numpy as np

    from sampled_metrics import correction
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    v = correction("ndcg@10", n, m, method)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"n": n, "m": m, "method": method, "seconds": round(seconds, 2),
            "peak_rss_mb": round(peak / 1024, 1), "import_rss_mb": round(base / 1024, 1),
            "dense_A_would_need_mb": round(n * (m + 1) * 8 / 2**20, 1),
            "finite": bool(np.all(np.isfinite(v)))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="only n = 10^4, 10^5")
    ap.add_argument("--one", nargs=3, metavar=("N", "M", "METHOD"))
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(int(args.one[0]), int(args.one[1]), args.one[2])))
        return
    ns = [10**4, 10**5] if args.quick else [10**4, 10**5, 10**6]
    print("| n | m | method | seconds | peak RSS MB | dense A would need MB |")
    print("|---|---|---|---|---|---|")
    for n in ns:
        for m in (100, 1000):
            for method in ("bv_0.1", "cls"):
                out = subprocess.run([sys.executable, __file__, "--one", str(n), str(m), method],
                                     capture_output=True, text=True, check=True).stdout
                r = json.loads(out)
                print(f"| {n:,} | {m:,} | {method} | {r['seconds']} | {r['peak_rss_mb']} | "
                      f"{r['dense_A_would_need_mb']} |", flush=True)


if __name__ == "__main__":
    main()
