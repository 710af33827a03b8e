"""Benchmark: correction vectors and per-user-n corrections (KDD'20 Sec. 5-6).

    python workflow/benchmarks/bench_corrections.py [--quick] [--sections ...]
                                                     [--processes 2] [--repeats 3]

Sections (default: all):

``vectors``  time and peak RSS of one correction vector (NDCG@10; n = 10^4..10^6,
             m = 100, 1000; BV 0.1 and CLS), each in a fresh subprocess so that the peak RSS
             (ru_maxrss) is its own.
``lookup``   :func:`correction_lookup` for ML-1M's 743 distinct n_u (m = 100, 4 metrics x
             7 corrections, without replacement): exact per n vs the interpolation grid, and
             the largest difference over every n; then the same for an ML-20M-shaped set of
             ~2,500 distinct n_u in 17,491..26,725 (exact per n timed on 40 of them and
             extrapolated: it would take minutes). With ``--old-src DIR`` (the ``src``
             folder of an older checkout, e.g. ``git archive 6cae1ae src | tar -x -C DIR/..``)
             DIR's ``sampled_metrics.study.correction_lookup`` is timed too, in a subprocess.
``error``    the grid's largest entrywise error on the ML-20M shape, both sampling laws, for
             Table 3 (4 metrics x 7 corrections, m = 100) and Jin et al. (recall/ndcg/ap @1,
             5, 10, 20 x cls, bv_0.1, bv_0.01, m = 99), against exact per-n vectors on a
             sample of n holding the worst-placed ones (next to the grid's check points, where
             the interpolation error peaks), both ends and evenly spread n; the target is
             1e-6 (LOOKUP_TOL).
``table3``   the whole Table-3 evaluation of an ML-20M-shaped study: 138,493 users, 3
             recommenders, 100 repeats of sampled ranks, the lookup plus the per-repeat mean
             of M^_{n_u}(r~_u) for every metric x correction; target 60 s on 2 cores.

Timings are medians of ``--repeats`` runs (the machine may be shared). ML-1M's n_u come from
the archive given by ``--ml1m`` (relative to the repository root; default
``$SAMPLED_METRICS_ML1M``) or, without it, from a synthetic ML-1M shape. ML-20M is synthetic: the
users' rating counts follow a Pareto tail (20 to 9,254 ratings, median ~60, mean ~150, as
ML-20M's) and n_u = 26,744 - (count - 1) (leave-one-out).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
TABLE3_METRICS = ["recall@10", "ndcg@10", "ap", "auc"]
TABLE3_CORRECTIONS = ["sampled", "rank_estimate", "cls", "bv_1", "bv_0.1", "bv_0.01",
                      "bv_0.001"]
JIN_METRICS = [f"{kind}@{k}" for kind in ("recall", "ndcg", "ap") for k in (1, 5, 10, 20)]
JIN_CORRECTIONS = ["cls", "bv_0.1", "bv_0.01"]
TARGET_SECONDS = 60.0
ML20M_ITEMS, ML20M_USERS, ML20M_MAX_COUNT = 26_744, 138_493, 9_254


# --- section: vectors (one correction vector, fresh process) -------------------------------

def one(n: int, m: int, correction: str) -> dict:
    import sampled_metrics as sm
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    v = sm.correction("ndcg@10", n, m, correction)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"n": n, "m": m, "correction": correction, "seconds": round(seconds, 2),
            "peak_rss_mb": round(peak / 1024, 1), "import_rss_mb": round(base / 1024, 1),
            "dense_A_would_need_mb": round(n * (m + 1) * 8 / 2**20, 1),
            "finite": bool(np.all(np.isfinite(v)))}


def section_vectors(args) -> None:
    ns = [10**4, 10**5] if args.quick else [10**4, 10**5, 10**6]
    print(f"\n## One correction vector (NDCG@10), fresh process each, median of "
          f"{args.repeats}\n")
    print("| n | m | correction | seconds (runs) | peak RSS MB | dense A would need MB |")
    print("|---|---|---|---|---|---|")
    for n in ns:
        for m in (100, 1000):
            for correction in ("bv_0.1", "cls"):
                runs = [json.loads(subprocess.run(
                    [sys.executable, __file__, "--one", str(n), str(m), correction],
                    capture_output=True, text=True, check=True).stdout)
                    for _ in range(args.repeats)]
                seconds = [r["seconds"] for r in runs]
                print(f"| {n:,} | {m:,} | {correction} | {statistics.median(seconds)} "
                      f"({fmt_times(seconds)}) | {max(r['peak_rss_mb'] for r in runs)} | "
                      f"{runs[0]['dense_A_would_need_mb']} |", flush=True)


# --- data shapes -----------------------------------------------------------------------------

def ml1m_n_u(path: str | None) -> tuple[np.ndarray, str]:
    """Per-user n_u of ML-1M under leave-one-out (|I| - (ratings - 1))."""
    archive = (ROOT / path) if path else None
    if archive is not None and archive.exists():
        with zipfile.ZipFile(archive) as z:
            lines = z.read("ml-1m/ratings.dat").decode().splitlines()
        users = np.array([int(x.split("::", 1)[0]) for x in lines])
        items = {x.split("::")[1] for x in lines}
        counts = np.bincount(users)
        counts = counts[counts > 0]
        return len(items) - (counts - 1), f"ML-1M archive {path}"
    rng = np.random.default_rng(1)
    counts = np.minimum(20 + np.floor(rng.pareto(1.4, 6040) * 60), 2314).astype(np.int64)
    counts[:2] = 20, 2314
    return 3706 - (counts - 1), "synthetic ML-1M shape (archive not found)"


def ml20m_n_u(seed: int = 20) -> np.ndarray:
    """Synthetic ML-20M shape: 138,493 users with 20..9,254 ratings (Pareto tail)."""
    rng = np.random.default_rng(seed)
    counts = np.minimum(20 + np.floor(rng.pareto(1.4, ML20M_USERS) * 60),
                        ML20M_MAX_COUNT).astype(np.int64)
    counts[:2] = 20, ML20M_MAX_COUNT
    return ML20M_ITEMS - (counts - 1)


# --- helpers ---------------------------------------------------------------------------------

def fresh_cache() -> None:
    from sampled_metrics import corrections
    corrections.moments.clear_moment_cache()


def timed(fn, repeats: int):
    """(median seconds, all seconds, last result) of ``repeats`` cold runs of fn()."""
    times, out = [], None
    for _ in range(repeats):
        fresh_cache()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, out


class GridLog(logging.Handler):
    """Collects the lookup's grid checks: (n_lo, n_hi, m, intervals, check error)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.checks = []

    def emit(self, record):
        if "check error" in record.msg:
            self.checks.append(record.args)


def lookup(metrics, corrections, n_values, m, sampling, processes, exact=False):
    from sampled_metrics.corrections import correction_lookup
    return correction_lookup(metrics, corrections, n_values, m, sampling, processes,
                             exact=exact)


def fmt_times(times) -> str:
    return ", ".join(f"{t:.1f}" for t in times)


# --- section: lookup ---------------------------------------------------------------------------

def old_run(src: str, case: str, processes: int, repeats: int, ml1m: str) -> dict:
    """Time the lookup of an older checkout (``src``/sampled_metrics) in this process."""
    sys.path.insert(0, str(Path(src).resolve()))
    import sampled_metrics
    from sampled_metrics import corrections
    from sampled_metrics.study import correction_lookup as old_lookup
    n_values = (np.unique(ml1m_n_u(ml1m)[0]) if case == "ml1m"
                else ml20m_sample(np.unique(ml20m_n_u())))
    times = []
    for _ in range(repeats):
        corrections.moments.clear_moment_cache()
        start = time.perf_counter()
        old_lookup(TABLE3_METRICS, TABLE3_CORRECTIONS, n_values, 100, "hypergeometric",
                   processes)
        times.append(time.perf_counter() - start)
    return {"module": sampled_metrics.__file__, "n": int(n_values.size), "times": times}


def old_lookup_times(args, case: str):
    """(median seconds, runs, distinct n) of the older checkout's lookup, or None."""
    if not args.old_src:
        return None
    out = subprocess.run([sys.executable, __file__, "--old-run", args.old_src, case,
                          str(args.processes), str(args.repeats), "--ml1m", args.ml1m],
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out.splitlines()[-1])
    if not str(Path(r["module"]).resolve()).startswith(str(Path(args.old_src).resolve())):
        raise RuntimeError(f"--old-src: imported {r['module']}, not the older checkout")
    return statistics.median(r["times"]), r["times"], r["n"]


def ml20m_sample(distinct: np.ndarray) -> np.ndarray:
    """40 evenly spread distinct n (the exact lookup's timing sample)."""
    return np.unique(distinct[np.linspace(0, distinct.size - 1, 40).round().astype(int)])


def section_lookup(args) -> None:
    from sampled_metrics.corrections.lookup import LOOKUP_TOL
    p, reps = args.processes, args.repeats
    print(f"\n## Lookup time (m = 100, {len(TABLE3_METRICS)} metrics x "
          f"{len(TABLE3_CORRECTIONS)} corrections, hypergeometric, {p} processes)\n")
    n_u, source = ml1m_n_u(args.ml1m)
    ml1m = np.unique(n_u)
    print(f"ML-1M: {ml1m.size} distinct n_u in {ml1m[0]}..{ml1m[-1]} ({source})")
    t_old, old_all, exact = timed(lambda: lookup(TABLE3_METRICS, TABLE3_CORRECTIONS, ml1m,
                                                 100, "hypergeometric", p, exact=True), reps)
    t_new, new_all, grid = timed(lambda: lookup(TABLE3_METRICS, TABLE3_CORRECTIONS, ml1m,
                                                100, "hypergeometric", p), reps)
    err = float(np.abs(grid - exact).max())
    older = old_lookup_times(args, "ml1m")
    if older:
        print(f"  before (--old-src, exact per n): {older[0]:.1f} s  [{fmt_times(older[1])}]")
    print(f"  exact per n:                     {t_old:.1f} s  [{fmt_times(old_all)}]")
    print(f"  grid:                            {t_new:.1f} s  [{fmt_times(new_all)}]   "
          f"speed-up {t_old / t_new:.1f}x" + (f" ({older[0] / t_new:.1f}x vs before)"
                                               if older else ""))
    print(f"  largest |grid - exact| over all {ml1m.size} n x 4 x 7 x 101 entries: "
          f"{err:.2e} (tolerance {LOOKUP_TOL:g})")

    ml20m = np.unique(ml20m_n_u())
    print(f"ML-20M shape: {ml20m.size} distinct n_u in {ml20m[0]}..{ml20m[-1]}")
    sample = ml20m_sample(ml20m)
    t_s, s_all, _ = timed(lambda: lookup(TABLE3_METRICS, TABLE3_CORRECTIONS, sample, 100,
                                         "hypergeometric", p, exact=True), reps)
    t_new, new_all, _ = timed(lambda: lookup(TABLE3_METRICS, TABLE3_CORRECTIONS, ml20m, 100,
                                             "hypergeometric", p), reps)
    t_old = t_s / sample.size * ml20m.size
    older = old_lookup_times(args, "ml20m")
    if older:
        t_before = older[0] / older[2] * ml20m.size
        print(f"  before (--old-src, exact per n): ~{t_before:.0f} s, extrapolated from "
              f"{older[2]} n in {older[0]:.1f} s  [{fmt_times(older[1])}]")
    print(f"  exact per n:                     ~{t_old:.0f} s, extrapolated from "
          f"{sample.size} n in {t_s:.1f} s  [{fmt_times(s_all)}]")
    print(f"  grid:                            {t_new:.1f} s  [{fmt_times(new_all)}]   "
          f"speed-up ~{t_old / t_new:.0f}x" + (f" (~{t_before / t_new:.0f}x vs before)"
                                                if older else ""))


# --- section: error ----------------------------------------------------------------------------

def worst_placed(distinct: np.ndarray, checks) -> np.ndarray:
    """The distinct n next to (below and above) the accepted grid's check points: these
    points are computed exactly, and the error of the interpolant peaks there."""
    from sampled_metrics.corrections.lookup import GRID_CHECK_TOL, grid_points
    n_lo, n_hi, _, level, _ = next(c for c in checks if c[4] <= GRID_CHECK_TOL)
    fine = grid_points(n_lo, n_hi, 2 * level)
    peaks = np.setdiff1d(fine, grid_points(n_lo, n_hi, level))
    others = np.setdiff1d(distinct, fine)
    at = np.searchsorted(others, peaks)
    return np.unique(np.r_[others[np.maximum(at - 1, 0)],
                           others[np.minimum(at, others.size - 1)]])


def section_error(args) -> None:
    from sampled_metrics.corrections.lookup import LOOKUP_TOL
    p = args.processes
    ml20m = np.unique(ml20m_n_u())
    print(f"\n## Grid error on the ML-20M shape ({ml20m.size} distinct n in "
          f"{ml20m[0]}..{ml20m[-1]}), max |grid - exact| over every entry of M^\n")
    print("| case | m | law | grid check (intervals: error) | n compared | largest error "
          "| worst (metric, correction, n) | lookup s |")
    print("|---|---|---|---|---|---|---|---|")
    handler = GridLog()
    logger = logging.getLogger("sampled_metrics.corrections")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    worst_overall = 0.0
    cases = [("Table 3", TABLE3_METRICS, TABLE3_CORRECTIONS, 100),
             ("Jin", JIN_METRICS, JIN_CORRECTIONS, 99)]
    for name, metrics, corrections, m in cases:
        for law in ("hypergeometric", "binomial"):
            handler.checks.clear()
            fresh_cache()
            start = time.perf_counter()
            grid = lookup(metrics, corrections, ml20m, m, law, p)
            seconds = time.perf_counter() - start
            checks = list(handler.checks)
            spread = ml20m[np.linspace(0, ml20m.size - 1, 16).round().astype(int)]
            sample = np.unique(np.r_[worst_placed(ml20m, checks), spread, ml20m[:2],
                                     ml20m[-2:]])
            exact = lookup(metrics, corrections, sample, m, law, p, exact=True)
            diff = np.abs(grid[np.searchsorted(ml20m, sample)] - exact)
            j, k, e, _ = np.unravel_index(diff.argmax(), diff.shape)
            worst_overall = max(worst_overall, float(diff.max()))
            check = "; ".join(f"{c[3]}: {c[4]:.1e}" for c in checks)
            print(f"| {name} | {m} | {law} | {check} | {sample.size} | {diff.max():.1e} | "
                  f"{metrics[k]}, {corrections[e]}, {sample[j]} | {seconds:.1f} |",
                  flush=True)
    logger.removeHandler(handler)
    verdict = "meets" if worst_overall <= LOOKUP_TOL else "MISSES"
    print(f"\nlargest error {worst_overall:.2e} {verdict} the target {LOOKUP_TOL:g}")


# --- section: table3 ---------------------------------------------------------------------------

def section_table3(args) -> None:
    from sampled_metrics.corrections import mean_corrected
    from sampled_metrics.sampling import draw_sampled_ranks
    p, reps, m, repeats = args.processes, args.repeats, 100, 100
    n_u = ml20m_n_u()
    distinct = np.unique(n_u)
    rng = np.random.default_rng(2020)
    recs = {"X": (0.35, 3.0), "Y": (0.4, 3.0), "Z": (0.45, 2.5)}   # Beta shapes of r_u / n_u
    print(f"\n## Table 3 for {n_u.size:,} users ({distinct.size} distinct n_u), "
          f"{len(recs)} recommenders x {repeats} repeats, m = {m}, hypergeometric, "
          f"{p} processes\n")
    sampled, start = {}, time.perf_counter()
    for rec, (a, b) in recs.items():
        r = np.minimum(1 + np.floor(rng.beta(a, b, n_u.size) * n_u), n_u).astype(np.int64)
        sampled[rec] = draw_sampled_ranks(r, n_u, m, "hypergeometric", rng,
                                          size=(repeats, n_u.size)).astype(np.int16)
    print(f"(drawing the sampled ranks, part of the ranks stage, not of Table 3: "
          f"{time.perf_counter() - start:.1f} s)")

    parts = {}

    def table3():
        t0 = time.perf_counter()
        V = lookup(TABLE3_METRICS, TABLE3_CORRECTIONS, distinct, m, "hypergeometric", p)
        t1 = time.perf_counter()
        index = np.searchsorted(distinct, n_u)
        out = {rec: mean_corrected(V, index, s) for rec, s in sampled.items()}
        parts.setdefault("lookup", []).append(t1 - t0)
        parts.setdefault("means", []).append(time.perf_counter() - t1)
        return out

    seconds, all_s, out = timed(table3, reps)
    print(f"lookup {statistics.median(parts['lookup']):.1f} s + per-repeat means "
          f"{statistics.median(parts['means']):.1f} s; total runs [{fmt_times(all_s)}]")
    verdict = "meets" if seconds <= TARGET_SECONDS else "MISSES"
    print(f"**Table 3 total: {seconds:.1f} s (median of {reps}) vs target "
          f"{TARGET_SECONDS:.0f} s: {verdict} it**; peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print("\nmean over repeats (%), for a sanity look:")
    for rec, est in out.items():
        cells = ", ".join(f"{x}:{100 * est[TABLE3_METRICS.index(x), 2].mean():.2f}"
                          for x in TABLE3_METRICS)
        print(f"  {rec} cls  {cells}")


SECTIONS = {"vectors": section_vectors, "lookup": section_lookup, "error": section_error,
            "table3": section_table3}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="vectors: only n = 10^4, 10^5; one run per timing")
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help="comma-separated subset of " + ", ".join(SECTIONS))
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3, help="runs per timing (median)")
    ap.add_argument("--ml1m", default=os.environ.get("SAMPLED_METRICS_ML1M"),
                    help="the MovieLens-1M zip (default $SAMPLED_METRICS_ML1M)")
    ap.add_argument("--old-src", help="src folder of an older checkout whose "
                    "sampled_metrics.study.correction_lookup is timed too (section lookup)")
    ap.add_argument("--one", nargs=3, metavar=("N", "M", "CORRECTION"), help=argparse.SUPPRESS)
    ap.add_argument("--old-run", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(int(args.one[0]), int(args.one[1]), args.one[2])))
        return
    if args.old_run:
        src, case, processes, repeats = args.old_run
        print(json.dumps(old_run(src, case, int(processes), int(repeats), args.ml1m)))
        return
    if args.quick:
        args.repeats = 1
    for name in args.sections.split(","):
        SECTIONS[name.strip()](args)


if __name__ == "__main__":
    main()
