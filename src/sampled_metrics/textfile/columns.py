"""Numbers from a user's text file: integers one per line, or columns of a CSV with a header.

Read chunk by chunk (:mod:`.chunks`: pandas' C parser, and line by line only a chunk it
refuses or whose values are wrong), so a file of N ranks costs about 16 bytes per rank at the
peak (the int64 result and its chunks), not a Python object per line. A UTF-8 byte-order mark
is skipped, blank lines and ``#`` comments are skipped (one-per-line files), and every fault
ends in one ``ValueError`` naming the file as given, the line and the token (shortened),
never a parser's traceback.
"""
from __future__ import annotations

import csv
import io
import re
import warnings
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .chunks import line_chunks, parse_chunks
from .files import check_readable, check_text
from .numbers import EXACT, MISSING, bad_values, read_number
from .text import show, strip_bom

__all__ = ["read_integers", "read_columns", "Column"]

_TOKEN = 40                                                # characters of a token shown
_BOOLEAN = re.compile(rb"(?im)(^|,)[ \t]*(true|false)[ \t]*\r?(,|$)")
_EXTRA = "\0extra"


class Column(NamedTuple):
    """How one column is read: ``what`` a value is (in messages), its range ``lo..hi``
    (``(lo, hi]`` with ``open_lo``; ``hi`` called ``hi_name``), integers or numbers; a
    ``label`` column (ids such as ``u17``) is read as stripped text, any but empty.

    Examples
    --------
    >>> Column("sampled rank", 1, 61, hi_name="m+1").span(), Column("count", 0).span()
    ('1..m+1=61', '>= 0')
    >>> Column("prob", 0, 1, integer=False, open_lo=True).span()
    '(0, 1]'
    """

    what: str
    lo: float = -EXACT
    hi: float = EXACT
    integer: bool = True
    hi_name: str = ""
    open_lo: bool = False
    label: bool = False

    def span(self) -> str:
        """The range as messages show it: ``1..m+1=61``, ``(0, 1]``, ``>= 1``."""
        lo, hi = (str(int(x)) if float(x).is_integer() else f"{x:g}"
                  for x in (self.lo, self.hi))
        hi = f"{self.hi_name + '=' if self.hi_name else ''}{hi}"
        if self.open_lo:
            return f"({lo}, {hi}]"
        return f">= {lo}" if self.hi == EXACT > -self.lo else f"{lo}..{hi}"

    def bad(self, values) -> np.ndarray:
        """Where ``values`` (float64) are not values of this column."""
        return bad_values(values, self.lo, self.hi, self.integer, self.open_lo)


def read_integers(path, lo: int, hi: int, what: str, column: str | None = None,
                  hi_name: str = "") -> np.ndarray:
    """The integers of ``path`` (one per line, or column ``column`` of a CSV), each checked
    to lie in ``lo..hi``; int64 array. ValueError (one line) naming the file, the line and
    what is wrong: missing, a directory, unreadable, empty, binary, a token that is not an
    integer, a value out of range, a missing column.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> good, bad = Path(folder.name, "good.txt"), Path(folder.name, "bad.txt")
    >>> _ = good.write_text("# sampled ranks\\n3\\n1\\n\\n7.0\\n"), bad.write_text("3\\n99\\n")
    >>> read_integers(good, 1, 61, "sampled rank").tolist()
    [3, 1, 7]
    >>> read_integers(bad, 1, 61, "sampled rank", hi_name="m+1")
    Traceback (most recent call last):
    ...
    ValueError: ...bad.txt:2: sampled rank 99 outside 1..m+1=61
    >>> folder.cleanup()
    """
    return _read(path, what, {column: Column(what, lo, hi, hi_name=hi_name)})[column]


def read_columns(path, columns: dict, what: str) -> dict:
    """Columns of a CSV with a header, read in chunks: ``columns`` maps each name to its
    :class:`Column`; returns name -> int64 (integers) or float64 array, or object array
    (labels). ``what`` names a row (``no <what>s found``). ValueError (one line) as
    :func:`read_integers`, naming the line and the column.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "positives.csv"
    ...     _ = path.write_text("user,position,prob\\nu1,3,0.5\\nu2,x,1\\n")
    ...     read_columns(path, {"user": Column("user id", label=True),
    ...                         "position": Column("position")}, "positive")
    Traceback (most recent call last):
    ...
    ValueError: ...positives.csv:3: 'x' in column 'position' is not an integer position
    """
    return _read(path, what, dict(columns))


def _read(path, what: str, columns: dict) -> dict:
    """:func:`read_columns`; ``columns = {None: spec}``: one value per line."""
    shown = str(path)
    path = check_readable(path, shown, f"text file of {what}s")
    check_text(path, shown, what)
    header = [] if None in columns else _header(path, shown, columns)
    parts = {column: [] for column in columns}
    chunks = line_chunks(path, skip=1 if header else 0)
    for got in parse_chunks(chunks, lambda chunk: _fast(chunk, columns, header),
                            lambda chunk, line: _strict(chunk, line, shown, columns, header)):
        for column, values in got.items():
            parts[column].append(values)
    if not sum(part.size for part in next(iter(parts.values()))):
        raise ValueError(f"{shown}: no {what}s found")
    return {column: np.concatenate(part) for column, part in parts.items()}


def _header(path: Path, shown: str, columns: dict) -> list[str]:
    """The header's field names; ValueError if a column is missing or appears twice."""
    with open(path, "rb") as handle:
        head = strip_bom(handle.readline()).decode("utf-8", "replace")
    header = [h.strip() for h in next(csv.reader([head]), [])]
    names = ", ".join(header)
    for column in columns:
        if column not in header:
            raise ValueError(f"{shown}: no column {column!r}; columns are "
                             f"{names[:120] + ('...' if len(names) > 120 else '')}")
        if header.count(column) > 1:
            raise ValueError(f"{shown}: column {column!r} appears {header.count(column)} "
                             f"times in the header ({names[:120]})")
    return header


def _fast(chunk: bytes, columns: dict, header: list) -> dict | None:
    """{column: values} of a chunk by pandas' C parser; None if it refuses the chunk or a
    value is wrong (then :func:`_strict` names the line)."""
    if (b"e" in chunk or b"E" in chunk) and _BOOLEAN.search(chunk):  # pandas would read
        return None                                  # true/false as 1/0 (a quick test first)
    numeric = [c for c, spec in columns.items() if not spec.label]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = _c_parse(chunk, numeric, header)
    except pd.errors.EmptyDataError:  # only blank lines and comments
        return {column: np.zeros(0, np.int64 if spec.integer else np.float64)
                for column, spec in columns.items()}
    except (ValueError, OverflowError, pd.errors.ParserError, pd.errors.ParserWarning):
        return None
    if frame[_EXTRA].notna().any():  # a row with more fields than the header (or than one)
        return None
    got = {}
    for column, spec in columns.items():
        values = frame["value" if column is None else column]
        if spec.label:
            values = pd.Series(values.to_numpy(), dtype=object).str.strip()
            if (values.isna() | (values == "")).any():
                return None
            got[column] = values.to_numpy()
            continue
        values = values.to_numpy()
        if spec.bad(values).any():
            return None
        got[column] = values.astype(np.int64) if spec.integer else values
    return got


def _c_parse(chunk: bytes, numeric: list, header: list) -> pd.DataFrame:
    """The chunk as a frame: ``value`` (one per line) or the header's columns, the numeric
    ones as float64, the others as text; one more column, ``_EXTRA``, catches a row with
    more fields than expected (pandas would shift it onto the index)."""
    if not header:
        return pd.read_csv(io.BytesIO(chunk), header=None, names=["value", _EXTRA],
                           comment="#", skip_blank_lines=True, dtype=np.float64,
                           skipinitialspace=True, index_col=False)
    names = [*header, _EXTRA]
    return pd.read_csv(io.BytesIO(chunk), header=None, names=names, index_col=False,
                       dtype={**{n: str for n in names}, **dict.fromkeys(numeric, np.float64)},
                       skipinitialspace=True)


def _strict(chunk: bytes, first_line: int, shown: str, columns: dict, header: list):
    """Raise the error of the first bad line of a chunk that :func:`_fast` refused: every
    field read as :func:`read_number` does and checked at once, then the first bad row
    checked alone for its message."""
    text = io.StringIO(chunk.decode("utf-8", "replace"), newline="")
    if header:
        reader, rows, starts, start = csv.reader(text, skipinitialspace=True), [], [], 0
        for row in reader:  # a quoted field may span lines: a row starts after line_num
            rows.append(row)
            starts.append(first_line + start)
            start = reader.line_num
        at = {column: header.index(column) for column in columns}
        fields = {column: [row[j].strip() if j < len(row) else "" for row in rows]
                  for column, j in at.items()}
        sizes = np.array([len(row) for row in rows], dtype=np.int64)
    else:
        tokens = [row.split("#", 1)[0].strip() for row in text]
        starts = range(first_line, first_line + len(tokens))
        fields = {None: tokens}
        sizes = np.array([bool(token) for token in tokens], dtype=np.int64)
    bad = sizes > max(len(header), 1)
    for column, spec in columns.items():
        if spec.label:
            bad |= np.array([token in MISSING for token in fields[column]], dtype=bool)
        else:
            bad |= spec.bad(np.array([read_number(t) for t in fields[column]], dtype=float))
    bad &= sizes > 0                                       # blank lines are skipped
    if bad.any():
        first = int(np.argmax(bad))
        _check_row(f"{shown}:{starts[first]}", int(sizes[first]),
                   {column: tokens[first] for column, tokens in fields.items()}, columns,
                   len(header))
    raise ValueError(f"{shown}: cannot read as {'CSV' if header else 'one number per line'}")


def _check_row(where: str, size: int, tokens: dict, columns: dict, k: int) -> None:
    """ValueError naming what is wrong with one row of ``size`` fields, ``tokens`` its field
    of each column (``k``: the header's fields; 0, one value per line)."""
    if k and size > k:
        raise ValueError(f"{where}: expected {k} fields (as the header), got {size}")
    for column, spec in columns.items():
        token = tokens[column]
        if spec.label:
            if token in MISSING:
                raise ValueError(f"{where}: no {spec.what}")
        elif k:
            kind = "an integer" if spec.integer else "a number"
            _check(token, spec, where, f" in column {column!r}", f"{kind} {spec.what}")
        else:
            _check(token, spec, where, "",
                   f"an integer {spec.what} (CSV input? pass --column NAME)")


def _check(token: str, spec: Column, where: str, place: str, expected: str) -> None:
    """ValueError unless ``token`` reads as a value of ``spec``: ``<where>: '<token>'<place>
    is not <expected>`` if it is not a number, else the value and what it breaks."""
    number = read_number(token)
    if number is None:
        raise ValueError(f"{where}: {show(token, _TOKEN)}{place} is not {expected}")
    if not spec.bad(number):
        return
    if not bad_values(number, integer=spec.integer):
        if number > spec.hi == EXACT or number < spec.lo == -EXACT:
            raise ValueError(f"{where}: {spec.what} {show(token, _TOKEN)[1:-1]} is too "
                             f"large to read exactly (beyond 2**53 - 1)")
        raise ValueError(f"{where}: {spec.what} {show(token, _TOKEN)[1:-1]} outside "
                         f"{spec.span()}")
    kind = "an integer" if spec.integer else "a finite number"
    raise ValueError(f"{where}: {show(token, _TOKEN)} is not {kind} {spec.what}")
