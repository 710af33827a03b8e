"""Argument checks shared by the library's public functions: one-line ValueErrors.

A boolean is not a number here (``m=True`` is refused, not read as m = 1); ranks are finite
integers in their range; vectors are 1-D of the stated length; and an allocation larger than
the memory available is refused before it is tried, with the size it would need.
"""
from __future__ import annotations

import math
import os

try:
    import resource
except ImportError:  # pragma: no cover - not POSIX
    resource = None

import numpy as np

__all__ = ["available_cpus", "check_integer", "check_ranks", "check_sampled_ranks",
           "check_vector", "check_real", "check_level", "check_distinct", "check_allocation",
           "check_bootstrap_draws", "available_memory", "format_bytes"]


def check_integer(name: str, value, minimum: int | None = None) -> int:
    """``value`` as an int: a Python or numpy integer (or an integral float), not a bool."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got the boolean {value!r}")
    try:
        as_int = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an integer, got {value!r:.60}") from None
    if as_int != value:
        raise ValueError(f"{name} must be an integer, got {value!r:.60}")
    if minimum is not None and as_int < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {as_int}")
    return as_int


def check_ranks(name: str, r, lo=1, hi=None, *, integral: bool = True,
                hi_name: str = "") -> np.ndarray:
    """``r`` as a numeric array of finite ranks in ``lo..hi`` (``hi`` a scalar or an array
    broadcast against ``r``, called ``hi_name`` in the message); integers unless
    ``integral=False`` (averaged ties)."""
    arr = _as_array(name, r)
    if arr.dtype == bool:
        raise ValueError(f"{name} must be numbers, got booleans")
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.integer)
                                   or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name} must be numbers, got dtype {arr.dtype}")
    if hi is not None and np.ndim(hi):
        try:
            np.broadcast_shapes(arr.shape, np.shape(hi))
        except ValueError:
            raise ValueError(f"{name} (shape {arr.shape}) do not match {hi_name or 'their bound'}"
                             f" (shape {np.shape(hi)})") from None
    if not arr.size:
        return arr.astype(np.int64) if integral else arr
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite, got NaN or infinity")
        if integral and not np.all(arr == np.floor(arr)):
            bad = arr[arr != np.floor(arr)].flat[0]
            raise ValueError(f"{name} must be integers, got {bad:g}")
    top = np.max(hi) if hi is not None else None
    span = (f"lie in {lo}..{hi_name + '=' if hi_name else ''}{top}" if top is not None
            else f"be >= {lo}")
    if integral and (arr.max() >= 2.0 ** 63 or arr.min() < -2.0 ** 63):  # beyond int64
        raise ValueError(f"{name} must {span} and fit a 64-bit integer, got "
                         f"{arr.min():g}..{arr.max():g}")
    if integral:
        arr = arr.astype(np.int64)
    if arr.min() < lo or (hi is not None and np.any(arr > hi)):
        raise ValueError(f"{name} must {span}, got {arr.min()}..{arr.max()}")
    return arr


def check_sampled_ranks(name: str, ranks, m: int, users: int = 1) -> np.ndarray:
    """``ranks`` as a vector of sampled ranks r~ in 1..m+1 (:func:`check_ranks`), one per user
    and at least ``users`` of them."""
    arr = check_ranks(name, ranks, 1, m + 1, hi_name="m+1")
    if arr.ndim != 1 or arr.size < users:
        raise ValueError(f"{name} must be a vector of at least {users} "
                         f"user{'s' if users > 1 else ''}, got shape {arr.shape}")
    return arr


def _as_array(name: str, values) -> np.ndarray:
    """``np.asarray(values)``; a ragged nested sequence is a one-line ValueError naming it."""
    try:
        return np.asarray(values)
    except (ValueError, TypeError):
        raise ValueError(f"{name} must be numbers in an array of one shape, got a ragged "
                         f"sequence") from None


def check_vector(name: str, v, length: int | None = None) -> np.ndarray:
    """``v`` as a finite 1-D float array (of ``length`` entries when given)."""
    arr = _as_array(name, v)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer)
                                 or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name} must be a vector of numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if length is not None and arr.size != length:
        raise ValueError(f"{name} must have length {length}, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got NaN or infinity")
    return arr


def check_bootstrap_draws(name: str, draws: int, level: float, none: bool = True) -> int:
    """``draws`` for a percentile bootstrap interval at ``level``: 0 (no interval, where
    ``none`` allows it) or enough that each tail beyond the interval holds a draw,
    draws (1 - level) / 2 >= 1 (40 at 0.95; fewer give the range of the draws, or one draw
    twice)."""
    draws = check_integer(name, draws, 0)
    check_level("level", level)
    need = math.ceil(round(2 / (1 - level), 9))
    if 0 < draws < need or (draws == 0 and not none):
        raise ValueError(f"{name} {draws} is too few draws for a {100 * level:g}% interval "
                         f"(each tail needs a draw): give at least {need}"
                         + (", or 0 for none" if none else ""))
    return draws


def _is_real(value) -> bool:
    """Whether ``value`` is a Python or numpy real number (not a boolean, not a string)."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(
        value, (int, float, np.integer, np.floating))


def check_real(name: str, value):
    """``value`` if it is a real number (:func:`_is_real`), else a one-line ValueError."""
    if not _is_real(value):
        raise ValueError(f"{name} must be a number, got {value!r:.60}")
    return value


def check_level(name: str, level) -> float:
    """``level`` as a float: a confidence level in (0, 1), a number (not a boolean, not NaN)."""
    if not _is_real(level) or not 0 < level < 1:
        shown = f"{level!r:.60}" if isinstance(level, str) else f"{level}"
        raise ValueError(f"{name} must lie in (0, 1), got {shown}")
    return float(level)


def check_distinct(what: str, labels, given=None) -> None:
    """ValueError naming the first of ``labels`` (canonical names) that comes twice, as
    ``given`` spells it (default: the labels), and how it was given first."""
    given = list(labels) if given is None else list(given)
    first = {}
    for label, text in zip(labels, given):
        if label in first:
            also = "" if first[label] == text else f" (also as {first[label]!r})"
            raise ValueError(f"{what} {text!r} is given twice{also}")
        first[label] = text


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def available_memory() -> int:
    """Bytes of memory this process may use: ``SAMPLED_METRICS_MEMORY`` (bytes) if set, else
    the physical memory of the machine, or less where a limit says so: the address-space
    limit (``ulimit -v``) less what the process already maps, or the memory limit of its
    control group (a container's or a batch job's)."""
    env = os.environ.get("SAMPLED_METRICS_MEMORY")
    if env:
        return int(float(env))
    try:
        limits = [os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")]
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        limits = [1 << 40]
    return min(limits + _address_space_left() + _cgroup_limit())


def _address_space_left() -> list[int]:
    """[RLIMIT_AS minus the current address space], or [] without such a limit."""
    if resource is None:  # pragma: no cover - not POSIX
        return []
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return []
        with open("/proc/self/statm") as statm:
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        return [max(0, soft - mapped)]
    except (OSError, ValueError):  # pragma: no cover - not Linux
        return []


def _cgroup_limit() -> list[int]:
    """[the smallest memory limit of the control groups seen], or [] without one: cgroup v2
    (this process's group, and the root as a container sees it) and v1."""
    files = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
    try:
        with open("/proc/self/cgroup") as groups:
            files += [f"/sys/fs/cgroup{line.split(':', 2)[2].strip().rstrip('/')}/memory.max"
                      for line in groups if line.startswith("0::")]
    except OSError:
        pass
    limits = []
    for name in files:
        try:
            with open(name) as limit:
                text = limit.read().strip()
            if text != "max" and int(text) < 1 << 60:      # v1 writes "no limit" as ~2^63
                limits.append(int(text))
        except (OSError, ValueError):
            continue
    return [min(limits)] if limits else []


def format_bytes(n: float) -> str:
    """``1.5 GiB`` style."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.3g} PiB"  # pragma: no cover


#: bytes an allocation may take without a look at the memory available (64 MiB)
SMALL_ALLOCATION = 64 * 2 ** 20


def check_allocation(n_values: float, what: str, itemsize: int = 8) -> None:
    """ValueError unless ``n_values`` values of ``itemsize`` bytes fit in memory (what is
    below :data:`SMALL_ALLOCATION` is taken to fit without asking the system, so the check
    costs nothing in hot loops)."""
    need = float(n_values) * itemsize
    if need <= SMALL_ALLOCATION:
        return
    have = available_memory()
    if need > have:
        raise ValueError(f"{what} would need {format_bytes(need)} of memory, more than the "
                         f"{format_bytes(have)} available; use a smaller size")
