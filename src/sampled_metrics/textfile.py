"""Integers from a user's text file: one per line, or one column of a CSV with a header.

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

import numpy as np
import pandas as pd

__all__ = ["read_integers", "check_readable"]

CHUNK = 1 << 20
_SNIFF = 1 << 16
NUL = bytes(1)


def _token(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def check_readable(path, shown: str | None = None, what: str = "file") -> Path:
    """``path`` as a Path if it is a readable regular file; else ValueError naming it."""
    shown = str(path) if shown is None else shown
    path = Path(path)
    try:
        if path.is_dir():
            raise ValueError(f"{shown}: is a directory, expected a {what}")
        if not path.exists():
            raise ValueError(f"{shown}: no such file")
        if not path.is_file():
            raise ValueError(f"{shown}: not a regular file (a pipe or device), expected a "
                             f"{what}")
    except OSError as err:  # a symbolic link loop, a name too long, ...
        raise ValueError(f"{shown}: cannot open ({err.strerror or type(err).__name__})"
                         ) from None
    try:
        with open(path, "rb") as handle:
            handle.read(1)
    except OSError as err:
        raise ValueError(f"{shown}: cannot read ({err.strerror or type(err).__name__})"
                         ) from None
    return path


def _check_text(path: Path, shown: str, what: str) -> None:
    with open(path, "rb") as handle:
        head = handle.read(_SNIFF)
    if not head.strip() and path.stat().st_size <= _SNIFF:
        raise ValueError(f"{shown}: file is empty, expected one {what} per line")
    if NUL in head:
        raise ValueError(f"{shown}: binary data (byte {head.index(NUL)} is NUL), expected "
                         f"a text file of {what}s")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if len(head) < _SNIFF or err.start < len(head) - 4:  # not a character cut at the end
            raise ValueError(f"{shown}: not UTF-8 text (byte {err.start}), expected a text "
                             f"file of {what}s") from None


def _first_bad_line(path: Path, shown: str, what: str, column: str | None) -> ValueError:
    """Re-read slowly to name the first line whose token is not a number."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        if column is None:
            for line_no, line in enumerate(handle, 1):
                tok = line.strip()
                if not tok or tok.startswith("#"):
                    continue
                try:
                    float(tok)
                except ValueError:
                    return ValueError(f"{shown}:{line_no}: {_token(tok)} is not an integer "
                                      f"{what} (CSV input? pass --column NAME)")
        else:
            reader = csv.reader(handle)
            header = next(reader, [])
            at = header.index(column)
            for line_no, row in enumerate(reader, 2):
                tok = row[at].strip() if at < len(row) else ""
                try:
                    float(tok)
                except ValueError:
                    return ValueError(f"{shown}:{line_no}: {_token(tok)} in column "
                                      f"{column!r} is not an integer {what}")
    return ValueError(f"{shown}: cannot read as {'CSV' if column else 'one number per line'}")


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


def _chunks(path: Path, column: str | None, header=()):
    if column is None:
        # a second column catches lines with two fields (pandas would index by the first)
        return pd.read_csv(path, header=None, names=["value", "extra"], comment="#",
                           skip_blank_lines=True, dtype=np.float64,
                           chunksize=CHUNK,
                           encoding="utf-8-sig", skipinitialspace=True, index_col=False)
    # every header field plus one: a row with more fields than the header is caught, not
    # shifted onto the index (pandas' default); the other columns are read as text
    names = [*header, "\0extra"]
    return pd.read_csv(path, header=None, skiprows=1, names=names, index_col=False,
                       dtype={**{n: str for n in names}, column: np.float64}, chunksize=CHUNK,
                       encoding="utf-8-sig", skipinitialspace=True)


def read_integers(path, lo: int, hi: int, what: str, column: str | None = None,
                  hi_name: str = "") -> np.ndarray:
    """The integers of ``path`` (one per line, or column ``column`` of a CSV), each checked
    to lie in ``lo..hi``; int64 array. ValueError (one line) naming the file, the line and
    what is wrong: missing, a directory, unreadable, empty, binary, a token that is not an
    integer, a value out of range, a missing column."""
    shown = str(path)
    path = check_readable(path, shown, f"text file of {what}s")
    _check_text(path, shown, what)
    header = []
    if column is not None:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
            header = [h.strip() for h in next(csv.reader(handle), [])]
        names = ", ".join(header)
        if column not in header:
            raise ValueError(f"{shown}: no column {column!r}; columns are "
                             f"{names[:120] + ('...' if len(names) > 120 else '')}")
        if header.count(column) > 1:
            raise ValueError(f"{shown}: column {column!r} appears {header.count(column)} times "
                             f"in the header ({names[:120]})")
    if _has_boolean(path):
        raise _first_bad_line(path, shown, what, column)
    parts, offset = [], 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            for values, extra in _chunk_values(path, column, header):
                if extra is not None and extra.any():
                    raise _first_bad_line(path, shown, what, column)
                bad = ~np.isfinite(values) | (values != np.floor(values)) | (values < lo) | (
                    values > hi)
                if bad.any():
                    raise _out_of_range(path, shown, what, column,
                                        offset + int(np.argmax(bad)), lo, hi, hi_name)
                parts.append(values.astype(np.int64))
                offset += values.size
    except pd.errors.ParserWarning:
        raise _too_many_fields(path, shown, column, len(header)) from None
    except (ValueError, pd.errors.ParserError) as err:
        if str(err).startswith(shown):
            raise
        raise _first_bad_line(path, shown, what, column) from None
    if offset == 0:
        raise ValueError(f"{shown}: no {what}s found")
    return np.concatenate(parts)


def _chunk_values(path: Path, column: str | None, header):
    """(values, rows with an extra field or None) per chunk."""
    for chunk in _chunks(path, column, header):
        if column is None:
            yield chunk["value"].to_numpy(), chunk["extra"].notna().to_numpy()
        else:
            extra = chunk["\0extra"].notna().to_numpy()
            if extra.any():
                raise pd.errors.ParserWarning("a row has more fields than the header")
            yield chunk[column].to_numpy(), None


def _too_many_fields(path: Path, shown: str, column, k: int) -> ValueError:
    """The error for the first row that has more fields than the header."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        for line_no, row in enumerate(csv.reader(handle), 1):
            if line_no > 1 and len(row) > k:
                return ValueError(f"{shown}:{line_no}: expected {k} fields (as the header), "
                                  f"got {len(row)}")
    return ValueError(f"{shown}: rows do not match the header's {k} fields")


def _out_of_range(path: Path, shown: str, what: str, column, index: int, lo: int, hi: int,
                  hi_name: str) -> ValueError:
    """The error for the ``index``-th value (0-based among the values read)."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        if column is None:
            lines = ((no, line.strip()) for no, line in enumerate(handle, 1))
            values = ((no, tok) for no, tok in lines if tok and not tok.startswith("#"))
        else:
            reader = csv.reader(handle)
            at = next(reader).index(column)
            values = ((no, row[at].strip() if at < len(row) else "")
                      for no, row in enumerate(reader, 2))
        line_no, tok = next(itertools.islice(values, index, None), (0, "?"))
    span = f"{lo}..{hi_name + '=' if hi_name else ''}{hi}"
    try:
        number = float(tok)
    except ValueError:
        number = float("nan")
    if np.isfinite(number) and number == np.floor(number):
        return ValueError(f"{shown}:{line_no}: {what} {_token(tok)[1:-1]} outside {span}")
    return ValueError(f"{shown}:{line_no}: {_token(tok)} is not an integer {what}")
