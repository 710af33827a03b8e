"""The one process-pool helper: map a function over items in worker processes, and how many
threads a computation may use beside it.

Items are striped over the workers (item i goes to worker i mod p) and the results are put
back in item order, so the output does not depend on the number of processes as long as
``fn`` is deterministic per item. BLAS runs single-threaded inside the workers and in the
serial path alike (small problems are faster so, and the results are then bit-identical
whatever the number of processes).
"""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Sequence

from threadpoolctl import threadpool_limits

from .checks import available_cpus

__all__ = ["map_items", "thread_count"]

#: whether this process is running map_items' calls (then it shares the CPUs with others)
_IN_MAP = False


def _run(fn: Callable, items: Sequence, args: tuple) -> list:
    global _IN_MAP
    outer, _IN_MAP = _IN_MAP, True
    try:
        with threadpool_limits(1):
            return [fn(item, *args) for item in items]
    finally:
        _IN_MAP = outer


def thread_count() -> int:
    """Threads a computation may spread its independent parts over: 1 inside the calls of
    :func:`map_items` (they share the CPUs already), else the CPUs this process may use.
    Such parts write their own results, so the bits do not depend on the count."""
    return 1 if _IN_MAP else available_cpus()


def map_items(fn: Callable, items: Sequence, *args, processes: int = 1) -> list:
    """``[fn(item, *args) for item in items]``, spread over ``processes`` worker processes.

    Parameters
    ----------
    fn : callable
        A module-level function (picklable), deterministic for given arguments.
    items : sequence
        One call per item.
    *args
        Extra arguments passed to every call (pickled once per worker).
    processes : int
        Worker processes; 1 (or fewer than 2 items) runs in this process.

    Returns
    -------
    list
        The results, in the order of ``items``.
    """
    items = list(items)
    processes = max(1, min(int(processes), len(items)))
    if processes == 1:
        return _run(fn, items, args)
    parts = [items[i::processes] for i in range(processes)]
    with ProcessPoolExecutor(processes) as pool:
        done = list(pool.map(_run, [fn] * processes, parts, [args] * processes))
    out = [None] * len(items)
    for i, part in enumerate(done):
        out[i::processes] = part
    return out
