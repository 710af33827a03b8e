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
    if path.is_dir():
        raise ValueError(f"{shown}: is a directory, expected a {what}")
    if not path.exists():
        raise ValueError(f"{shown}: no such file")
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
    if not head.strip():
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


def _chunks(path: Path, column: str | None):
    if column is None:
        # a second column catches lines with two fields (pandas would index by the first)
        return pd.read_csv(path, header=None, names=["value", "extra"], comment="#",
                           skip_blank_lines=True, dtype=np.float64, chunksize=CHUNK,
                           encoding="utf-8-sig", skipinitialspace=True, index_col=False)
    return pd.read_csv(path, usecols=[column], dtype={column: np.float64}, chunksize=CHUNK,
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
    if column is not None:
        header = pd.read_csv(path, nrows=0, encoding="utf-8-sig").columns
        if column not in header:
            names = ", ".join(map(str, header))
            raise ValueError(f"{shown}: no column {column!r}; columns are "
                             f"{names[:120] + ('...' if len(names) > 120 else '')}")
    parts, offset = [], 0
    try:
        for chunk in _chunks(path, column):
            values = chunk.iloc[:, 0].to_numpy()
            if column is None and chunk["extra"].notna().any():
                raise _first_bad_line(path, shown, what, column)
            bad = ~np.isfinite(values) | (values != np.floor(values)) | (values < lo) | (
                values > hi)
            if bad.any():
                raise _out_of_range(path, shown, what, column, offset + int(np.argmax(bad)),
                                    lo, hi, hi_name)
            parts.append(values.astype(np.int64))
            offset += values.size
    except (ValueError, pd.errors.ParserError) as err:
        if str(err).startswith(shown):
            raise
        raise _first_bad_line(path, shown, what, column) from None
    if offset == 0:
        raise ValueError(f"{shown}: no {what}s found")
    return np.concatenate(parts)


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
