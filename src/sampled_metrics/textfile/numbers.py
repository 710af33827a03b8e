"""Numbers in text: which field values pass as integers or finite numbers, and how a single
token reads, in the loose grammar of pandas' parser or the strict one of rating tables.

An integer may be written as an integral decimal (``3186.0``): values parsed as float64 are
integers if integral, and exact only up to :data:`EXACT` (``2**53 + 1`` reads as ``2**53``).
"""
from __future__ import annotations

import math
import re

import numpy as np

__all__ = ["EXACT", "MISSING", "bad_values", "read_number", "strict_integer", "strict_number"]

#: the largest integer that float64 holds exactly, with every smaller one
EXACT = 2 ** 53 - 1
#: what pandas' parser reads as a missing value (NaN) rather than refuses
MISSING = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                     "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
                     "nan", "null"})
_INTEGER = re.compile(rb"^\s*[+-]?\d+(?:\.0*)?\s*$")          # '3186' and '3186.0'
_NUMBER = re.compile(rb"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$")


def bad_values(values, lo: float = -math.inf, hi: float = math.inf, integer: bool = True,
               open_lo: bool = False) -> np.ndarray:
    """Where ``values`` fail a field's check: not finite, outside ``lo..hi`` (``(lo, hi]``
    with ``open_lo``), or, if ``integer``, not integral.

    Examples
    --------
    >>> bad_values([1.0, 2.5, float("nan"), 7.0], hi=5).tolist()
    [False, True, True, True]
    >>> bad_values([0.0, 0.5], 0, 1, integer=False, open_lo=True).tolist()
    [True, False]
    """
    values = np.asarray(values)
    bad = ~np.isfinite(values) | (values < lo) | (values > hi)
    if integer:
        bad |= values != np.floor(values)
    if open_lo:
        bad |= values <= lo
    return bad


def read_number(token: str) -> float | None:
    """What pandas' C parser makes of a (stripped) field: its number, NaN for a missing
    value (``''``, ``NA``, ``nan``, ...), None for text that is not a number.

    Examples
    --------
    >>> read_number("3e2"), read_number("NA"), read_number("seven"), read_number("1_0")
    (300.0, nan, None, None)
    """
    if token in MISSING:
        return math.nan
    if "_" in token:  # Python reads 1_0 as 10, the parser refuses it
        return None
    try:
        return float(token)
    except ValueError:
        return None


def strict_integer(token: bytes) -> int | None:
    """The integer a table field writes (digits, an optional sign, an integral decimal such
    as ``3186.0``; spaces around), else None.

    Examples
    --------
    >>> strict_integer(b" +7"), strict_integer(b"3186.0"), strict_integer(b"1e3")
    (7, 3186, None)
    """
    if not _INTEGER.match(token):
        return None
    return int(token.strip().split(b".")[0])


def strict_number(token: bytes) -> float | None:
    """The number a table field writes (a decimal with an optional exponent; spaces
    around), else None; it may overflow to infinity.

    Examples
    --------
    >>> strict_number(b"4.5"), strict_number(b"1e400"), strict_number(b"nan")
    (4.5, inf, None)
    """
    return float(token) if _NUMBER.match(token) else None
