"""Numbers from a user's text file: integers one per line, or columns of a CSV with a header.

Read in chunks by pandas' C parser, so a file of N ranks costs about 16 bytes per rank at the
peak (the int64 result and its chunks), not a Python object per line. A UTF-8 byte-order mark
is skipped, blank lines and lines starting with ``#`` are skipped (one-per-line files), and
every fault ends in one ``ValueError`` naming the file as given, the line and the token
(shortened), never a parser's traceback.
"""
from __future__ import annotations

import csv
import itertools
import re
import warnings
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .files import check_readable, check_text
from .numbers import EXACT, bad_values
from .text import show

__all__ = ["read_integers", "read_columns", "Column"]

CHUNK = 1 << 20


class Column(NamedTuple):
    """How one column is read: ``what`` a value is (in messages), its range ``lo..hi``
    (``(lo, hi]`` with ``open_lo``; ``hi`` called ``hi_name``), integers or numbers; a
    ``label`` column (ids such as ``u17``) is read as stripped text, any but empty."""

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


def _first_bad_line(path: Path, shown: str, columns: dict) -> ValueError:
    """Re-read slowly to name the first line whose token (in one of ``columns``) is not a
    number."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        if None in columns:
            what = columns[None].what
            for line_no, line in enumerate(handle, 1):
                tok = line.strip()
                if not tok or tok.startswith("#"):
                    continue
                try:
                    float(tok)
                except ValueError:
                    return ValueError(f"{shown}:{line_no}: {show(tok, 40)} is not an integer "
                                      f"{what} (CSV input? pass --column NAME)")
        else:
            reader = csv.reader(handle)
            header = [h.strip() for h in next(reader, [])]
            at = {column: header.index(column) for column in columns}
            for line_no, row in enumerate(reader, 2):
                for column, spec in columns.items():
                    if spec.label:
                        continue
                    tok = row[at[column]].strip() if at[column] < len(row) else ""
                    try:
                        float(tok)
                    except ValueError:
                        kind = "an integer" if spec.integer else "a number"
                        return ValueError(f"{shown}:{line_no}: {show(tok, 40)} in column "
                                          f"{column!r} is not {kind} {spec.what}")
    csv_input = None not in columns
    return ValueError(f"{shown}: cannot read as {'CSV' if csv_input else 'one number per line'}")


_BOOLEAN = re.compile(rb"(?im)(^|,)[ \t]*(true|false)[ \t]*\r?(,|$)")


def _has_boolean(path: Path) -> bool:
    """True if a field reads ``true``/``false`` (pandas would take it as 1/0)."""
    with open(path, "rb") as handle:
        tail = b""
        while block := handle.read(1 << 24):
            cut = block.rfind(b"\n") + 1
            if _BOOLEAN.search(tail + block[:cut]):
                return True
            tail = block[cut:]
        return bool(_BOOLEAN.search(tail))


def _chunks(path: Path, columns: list, header=()):
    if columns == [None]:
        # a second column catches lines with two fields (pandas would index by the first)
        return pd.read_csv(path, header=None, names=["value", "extra"], comment="#",
                           skip_blank_lines=True, dtype=np.float64,
                           chunksize=CHUNK,
                           encoding="utf-8-sig", skipinitialspace=True, index_col=False)
    # every header field plus one: a row with more fields than the header is caught, not
    # shifted onto the index (pandas' default); the other columns are read as text
    names = [*header, "\0extra"]
    return pd.read_csv(path, header=None, skiprows=1, names=names, index_col=False,
                       dtype={**{n: str for n in names}, **dict.fromkeys(columns, np.float64)},
                       chunksize=CHUNK, encoding="utf-8-sig", skipinitialspace=True)


def read_integers(path, lo: int, hi: int, what: str, column: str | None = None,
                  hi_name: str = "") -> np.ndarray:
    """The integers of ``path`` (one per line, or column ``column`` of a CSV), each checked
    to lie in ``lo..hi``; int64 array. ValueError (one line) naming the file, the line and
    what is wrong: missing, a directory, unreadable, empty, binary, a token that is not an
    integer, a value out of range, a missing column."""
    return _read(path, what, {column: Column(what, lo, hi, hi_name=hi_name)})[column]


def read_columns(path, columns: dict, what: str) -> dict:
    """Columns of a CSV with a header, read in chunks: ``columns`` maps each name to its
    :class:`Column`; returns name -> int64 (integers) or float64 array. ``what`` names a row
    (``no <what>s found``). ValueError (one line) as :func:`read_integers`, naming the line
    and the column."""
    return _read(path, what, dict(columns))


def _read(path, what: str, columns: dict) -> dict:
    """:func:`read_columns`; ``columns = {None: spec}``: one value per line."""
    shown = str(path)
    path = check_readable(path, shown, f"text file of {what}s")
    check_text(path, shown, what)
    header = []
    if None not in columns:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
            header = [h.strip() for h in next(csv.reader(handle), [])]
        names = ", ".join(header)
        for column in columns:
            if column not in header:
                raise ValueError(f"{shown}: no column {column!r}; columns are "
                                 f"{names[:120] + ('...' if len(names) > 120 else '')}")
            if header.count(column) > 1:
                raise ValueError(f"{shown}: column {column!r} appears {header.count(column)} "
                                 f"times in the header ({names[:120]})")
    if _has_boolean(path):
        raise _first_bad_line(path, shown, columns)
    parts, offset = {column: [] for column in columns}, 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            for chunk, extra in _chunk_values(path, columns, header):
                if extra is not None and extra.any():
                    raise _first_bad_line(path, shown, columns)
                for column, spec in columns.items():
                    values = chunk[column]
                    if spec.label:
                        values = pd.Series(values, dtype=object).str.strip()
                        empty = values.isna() | (values == "")
                        if empty.any():
                            raise _out_of_range(path, shown, column, spec,
                                                offset + int(np.argmax(empty)))
                        parts[column].append(values.to_numpy())
                        continue
                    bad = bad_values(values, spec.lo, spec.hi, spec.integer, spec.open_lo)
                    if bad.any():
                        raise _out_of_range(path, shown, column, spec,
                                            offset + int(np.argmax(bad)))
                    parts[column].append(values.astype(np.int64) if spec.integer else values)
                offset += values.size
    except pd.errors.ParserWarning:
        raise _too_many_fields(path, shown, len(header)) from None
    except (ValueError, pd.errors.ParserError) as err:
        if str(err).startswith(shown):
            raise
        raise _first_bad_line(path, shown, columns) from None
    if offset == 0:
        raise ValueError(f"{shown}: no {what}s found")
    return {column: np.concatenate(part) for column, part in parts.items()}


def _chunk_values(path: Path, columns: dict, header):
    """({column: values}, rows with an extra field or None) per chunk."""
    numeric = [c for c, spec in columns.items() if not spec.label]
    for chunk in _chunks(path, numeric, header):
        if None in columns:
            yield {None: chunk["value"].to_numpy()}, chunk["extra"].notna().to_numpy()
        else:
            extra = chunk["\0extra"].notna().to_numpy()
            if extra.any():
                raise pd.errors.ParserWarning("a row has more fields than the header")
            yield {column: chunk[column].to_numpy() for column in columns}, None


def _token_at(path: Path, column, index: int) -> tuple[int, str]:
    """(line number, token) of the ``index``-th value of ``column`` (0-based among the rows
    read; ``None``: one value per line)."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        if column is None:
            lines = ((no, line.strip()) for no, line in enumerate(handle, 1))
            values = ((no, tok) for no, tok in lines if tok and not tok.startswith("#"))
        else:
            reader = csv.reader(handle)
            at = [h.strip() for h in next(reader)].index(column)
            values = ((no, row[at].strip() if at < len(row) else "")
                      for no, row in enumerate(reader, 2))
        line_no, tok = next(itertools.islice(values, index, None), (0, "?"))
    return line_no, tok


def _too_many_fields(path: Path, shown: str, k: int) -> ValueError:
    """The error for the first row that has more fields than the header."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        for line_no, row in enumerate(csv.reader(handle), 1):
            if line_no > 1 and len(row) > k:
                return ValueError(f"{shown}:{line_no}: expected {k} fields (as the header), "
                                  f"got {len(row)}")
    return ValueError(f"{shown}: rows do not match the header's {k} fields")


def _out_of_range(path: Path, shown: str, column, spec: Column, index: int) -> ValueError:
    """The error for the ``index``-th value of ``column`` (0-based among the rows read)."""
    line_no, tok = _token_at(path, column, index)
    if spec.label:
        return ValueError(f"{shown}:{line_no}: no {spec.what}")
    try:
        number = float(tok)
    except ValueError:
        number = float("nan")
    if not bad_values(number, integer=spec.integer):
        return ValueError(f"{shown}:{line_no}: {spec.what} {show(tok, 40)[1:-1]} outside "
                          f"{spec.span()}")
    kind = "an integer" if spec.integer else "a finite number"
    return ValueError(f"{shown}:{line_no}: {show(tok, 40)} is not {kind} {spec.what}")
