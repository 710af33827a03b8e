"""What the benchmark scripts share: the line naming the CPU and the BLAS kernel printed
beside every timing, the best and median wall time of a call, the ``src`` of a git ref to
time a baseline against, and runs of two versions alternating, so that both see the same
load."""
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path

import numpy  # noqa: F401  (loads BLAS, so that threadpool_info names it)
import scipy.linalg  # noqa: F401  (and SciPy's own BLAS, where it has one)
from threadpoolctl import threadpool_info


def cpu() -> str:
    """The CPU's model name (``/proc/cpuinfo``, else what the platform says)."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    """``CPU: <model>; BLAS: <library version kernel, threads>``."""
    blas = [f"{i['internal_api']} {i.get('version', '')} {i.get('architecture', '')}, "
            f"{i['num_threads']} threads" for i in threadpool_info() if i["user_api"] == "blas"]
    return f"CPU: {cpu()}; BLAS: {'; '.join(blas)}"


def timed(repeats: int, fn) -> tuple[float, float]:
    """(best, median) wall time in seconds of ``repeats`` calls of ``fn()``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def unpack_ref(ref: str, folder: Path) -> Path:
    """``src`` of git ref ``ref`` unpacked under ``folder`` (read-only on the repository)."""
    root = Path(__file__).resolve().parents[2]
    archive = subprocess.run(["git", "-C", str(root), "archive", ref, "src"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return Path(folder) / "src"


def versions(baseline_ref: str | None, folder: Path) -> dict:
    """{label: src}: ``new`` (this tree, None) and, with ``baseline_ref``, that ref's
    ``src`` unpacked under ``folder``."""
    out = {"new": None}
    if baseline_ref:
        out[baseline_ref] = unpack_ref(baseline_ref, folder)
    return out


def alternately(versions: dict, repeats: int, run, report: bool = True) -> dict:
    """{label: [run(label, src), ...]}: ``repeats`` runs of each version, the versions
    alternating run by run; with ``report``, the load average printed before and after (a
    script timing many cases prints it once itself)."""
    def load() -> str:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())

    if report:
        print(f"load average before: {load()} ({os.cpu_count()} CPUs); {repeats} runs per "
              f"version, alternating")
    runs = {label: [] for label in versions}
    for _ in range(repeats):
        for label, src in versions.items():
            runs[label].append(run(label, src))
    if report:
        print(f"load average after: {load()}")
    return runs
