"""What the benchmark scripts share: the line naming the CPU and the BLAS kernel printed
beside every timing, and the best and median wall time of a call."""
import platform
import statistics
import time

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
