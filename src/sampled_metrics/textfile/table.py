"""Numeric text tables: the one parser behind every reader of delimited rating files.

A table is headerless lines of ``k`` fields separated by ``sep``; each field is an integer
(``'i'``: int64; integral decimals such as ``3186.0`` are accepted, as the offline ML-1M copy
writes movie ids that way) or a finite number (``'f'``: float64). Parsing is vectorised
(pandas' C parser); only when that fails is the body parsed again chunk by chunk
(:mod:`.chunks`), and only a failing chunk line by line, to name the first malformed line
(1-based, as in the file).
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd

from .chunks import line_chunks, parse_chunks
from .numbers import EXACT, bad_values, strict_integer, strict_number
from .text import DataError, show, strip_bom

__all__ = ["parse_table"]


def parse_table(body: bytes, sep: str, fields: tuple[str, ...], kinds: str, name: str,
                first_line: int = 1, expected: str | None = None,
                whole_line: bool = False) -> list[np.ndarray]:
    """Columns of a headerless numeric table, one per field.

    Parameters
    ----------
    body : bytes
        The lines (``\\n`` or ``\\r\\n`` ends; the last may lack one; a leading byte-order
        mark is skipped).
    sep : str
        Field separator, one or more characters (``'::'`` is fine).
    fields : tuple of str
        Field names, for messages.
    kinds : str
        One letter per field: ``'i'`` integer (int64) or ``'f'`` number (float64, finite).
    name : str
        The file as messages name it, e.g. ``archive.zip:ml-1m/ratings.dat``.
    first_line : int
        File line number of ``body``'s first line (2 after a header).
    expected : str, optional
        What a line should look like; default ``"<k> fields (<fields>) separated by <sep>"``.
    whole_line : bool
        How a bad value is reported: ``False``, by its field first (``line 3: item is not
        an integer: 'x' in '...'``); ``True``, as a malformed line (``line 3: expected 4
        fields ..., got '...' (item is not an integer: 'x')``). A line with the wrong number
        of fields is always ``line N: expected ..., got '...'``.

    Returns
    -------
    list of numpy.ndarray
        One column per field.

    Raises
    ------
    DataError
        No data lines, or the first malformed line, named ``<name>: line <N>: ...``.

    Examples
    --------
    >>> user, score = parse_table(b"1::0.5\\n2::3186.0\\n", "::", ("user", "score"), "if", "t")
    >>> user.tolist(), score.tolist()
    ([1, 2], [0.5, 3186.0])
    >>> parse_table(b"1::x\\n", "::", ("user", "item"), "ii", "t")
    Traceback (most recent call last):
    ...
    sampled_metrics.textfile.text.DataError: t: line 1: item is not an integer: 'x' in '1::x'
    """
    body = strip_bom(body)
    if not body.strip():
        raise DataError(f"{name}: no data lines")
    body = body.rstrip(b" \t\r\n") + b"\n"   # trailing blank lines are not rows
    expected = expected or f"{len(kinds)} fields ({' '.join(fields)}) separated by {sep!r}"
    cols = _fast_table(body, sep, kinds)
    if cols is not None:
        return cols
    parts = list(parse_chunks(
        line_chunks(body, first_line), lambda chunk: _fast_table(chunk, sep, kinds),
        lambda chunk, line: _strict_table(chunk, sep, fields, kinds, name, line, expected,
                                          whole_line)))
    return [np.concatenate([p[j] for p in parts]) for j in range(len(kinds))]


def _fast_table(body: bytes, sep: str, kinds: str) -> list[np.ndarray] | None:
    """Columns via pandas' C parser, or None if anything is unusual (caller checks)."""
    bsep, k = sep.encode(), len(kinds)
    if body.translate(None, b"0123456789.-\r\n" + bsep):
        return None  # letters, spaces, quotes, signs...: let the strict check decide
    if len(bsep) != 1:
        if b"\x1f" in body:
            return None
        body, bsep = body.replace(bsep, b"\x1f"), b"\x1f"
    n_lines = body.count(b"\n") + (not body.endswith(b"\n"))
    # A short line leaves NaN (caught below), so equal totals mean no line is too long.
    if body.count(bsep) != (k - 1) * n_lines:
        return None
    dtypes = {j: (np.int64 if c == "i" else np.float64) for j, c in enumerate(kinds)}
    try:
        frame = pd.read_csv(io.BytesIO(body), sep=bsep.decode(), header=None,
                            names=list(range(k)), index_col=False, dtype=dtypes,
                            engine="c", skip_blank_lines=False)
    except (ValueError, OverflowError, pd.errors.ParserError):
        return None
    if len(frame) != n_lines:
        return None
    cols = [frame[j].to_numpy() for j in range(k)]
    if any(c == "f" and bad_values(col, integer=False).any() for c, col in zip(kinds, cols)):
        return None
    if b"." in body and any(c == "i" and bad_values(col, -EXACT, EXACT).any()
                            for c, col in zip(kinds, cols)):
        return None  # '1e17.0'-sized integral decimals went through float64: check exactly
    return cols


def _strict_table(chunk: bytes, sep: str, fields, kinds: str, name: str, first_line: int,
                  expected: str, whole_line: bool) -> list[np.ndarray]:
    """Line-by-line parse of a chunk; DataError at the first malformed line."""
    bsep, k = sep.encode(), len(kinds)
    lines = chunk.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    cols: list[list] = [[] for _ in range(k)]
    for offset, line in enumerate(lines):
        number = first_line + offset
        values = line.rstrip(b"\r").split(bsep)
        if len(values) != k:
            raise DataError(f"{name}: line {number}: expected {expected}, got {show(line)}")
        for j, (value, kind) in enumerate(zip(values, kinds)):
            integer = kind == "i"
            parsed = strict_integer(value) if integer else strict_number(value)
            if parsed is not None:
                if integer and abs(parsed) >= 2 ** 63:
                    raise DataError(f"{name}: line {number}: {fields[j]} {show(value)} is too "
                                    f"large for a 64-bit integer")
                if not integer and bad_values(parsed, integer=False):
                    raise DataError(f"{name}: line {number}: {fields[j]} {show(value)} is not "
                                    f"a finite number")
                cols[j].append(parsed)
                continue
            what = f"{fields[j]} is not {'an integer' if integer else 'a number'}"
            if whole_line:
                raise DataError(f"{name}: line {number}: expected {expected}, got "
                                f"{show(line)} ({what}: {show(value)})")
            raise DataError(f"{name}: line {number}: {what}: {show(value)} in {show(line)}")
    return [np.array(c, dtype=np.int64 if kind == "i" else np.float64)
            for c, kind in zip(cols, kinds)]
