"""Your own interactions: a CSV/TSV file with a header row, or a Parquet file, alone or in a
zip; the dataset spec names the columns."""
from __future__ import annotations

import csv
import importlib.util
import io
import os
import zipfile
from decimal import Decimal

import numpy as np
import pandas as pd

from ..textfile import bad_values, show, split_header, strip_bom
from .errors import DataError
from .members import describe, read_file
from .split import COLUMNS

__all__ = ["read_interactions_file", "read_interactions_spec", "check_column_keys",
           "COLUMN_KEYS", "parquet_source", "pyarrow_available"]

#: spec keys naming the columns that must exist (user, item, time)
COLUMN_KEYS = ("user_col", "item_col", "time_col")

_EXTENSION_SEP = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_PARQUET_SUFFIXES = (".parquet", ".pq")


def check_column_keys(spec: dict) -> None:
    """ValueError unless the column keys of a spec (``user_col``, ``item_col``, ``time_col``,
    ``rating_col``) name different columns."""
    seen = {}
    for key in (*COLUMN_KEYS, "rating_col"):
        column = spec.get(key)
        if column is not None and column in seen:
            raise ValueError(f"{seen[column]} and {key} both name column {column!r}; each "
                             f"must name its own column")
        seen.setdefault(column, key)


def _is_parquet(raw: bytes) -> bool:
    return len(raw) >= 8 and raw[:4] == b"PAR1" and raw[-4:] == b"PAR1"


def pyarrow_available() -> bool:
    """Whether pyarrow, the Parquet reader, can be imported (without importing it)."""
    return importlib.util.find_spec("pyarrow") is not None


def _parquet_file(path: str) -> bool:
    """Whether the local file ``path`` holds Parquet bytes (its first and last four)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
            fh.seek(0, os.SEEK_END)
            if fh.tell() < 8:
                return False
            fh.seek(-4, os.SEEK_END)
            return _is_parquet(head + fh.read(4))
    except OSError:
        return False


def parquet_source(spec: dict) -> str | None:
    """How the file of an ``interactions`` dataset spec is known to be Parquet, before it
    is read: its ``member``, ``path`` or ``url`` ending in .parquet or .pq, or a local
    ``path`` holding Parquet bytes (alone, or, by its first bytes, as the zip member read);
    None otherwise (the read itself still recognises Parquet by its bytes).

    Parameters
    ----------
    spec : dict
        A dataset spec of format ``interactions``.

    Returns
    -------
    str or None
        The name as the spec gives it, or None.
    """
    names = [spec.get(k) for k in ("member", "path", "url")]
    for name in names:
        if isinstance(name, str) and name.lower().endswith(_PARQUET_SUFFIXES):
            return name
    path = spec.get("path")
    if not isinstance(path, str) or not os.path.isfile(path):
        return None
    if not zipfile.is_zipfile(path):
        return path if _parquet_file(path) else None
    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.namelist() if not m.endswith("/")]
            member = spec.get("member") or (members[0] if len(members) == 1 else None)
            if member not in members:
                return None
            with archive.open(member) as fh:        # the head only: no decompressing it all
                head = fh.read(4)
    except (OSError, zipfile.BadZipFile, ValueError):
        return None
    return f"{path} ({member})" if head == b"PAR1" else None


def read_interactions_file(path, *, user_col: str, item_col: str, time_col: str,
                           rating_col: str | None = None, sep: str | None = None,
                           member: str | None = None,
                           source: str | None = None) -> pd.DataFrame:
    """Interactions from any CSV/TSV with a header row, or a Parquet file.

    Parameters
    ----------
    path : path
        The file, or a zip holding it (then ``member``; optional if the zip holds one file).
    user_col, item_col, time_col : str
        Column names of user id, item id and time.
    rating_col : str, optional
        Column of the rating; without it every rating is 1.0.
    sep : str, optional
        Field separator (one character). Default: from the extension of ``member``, else
        of ``source``, else of ``path`` (``.csv`` ',', ``.tsv``/``.tab`` tab); else tab if
        the header line holds a tab, otherwise ','.
    source : str, optional
        The original name (config ``path`` or ``url``), used for the extension when
        ``path`` is a renamed copy (the workflow stores every archive as ``<name>.zip``).

    Returns
    -------
    pandas.DataFrame
        ``user, item, rating, timestamp`` in file order; rating float64. Integer ids are
        kept (int64); other ids (strings) are replaced by their rank among the sorted
        distinct labels, the labels being kept in ``frame.attrs['user_ids']`` /
        ``['item_ids']``. Time is an integer (e.g. Unix seconds) or an ISO 8601 date,
        converted to Unix seconds (UTC when no zone is given).

    Raises
    ------
    DataError
        Missing file, member or column (naming what exists), a line with the wrong number
        of fields, or an empty/unparseable value (naming the line; ``row`` for Parquet).
    ImportError
        The file is Parquet and pyarrow is not installed.
    """
    check_column_keys({"user_col": user_col, "item_col": item_col, "time_col": time_col,
                       "rating_col": rating_col})
    raw, name = read_file(path, member)
    # the extension hint: the zip member's name, else the original name of a renamed copy
    hint = name[len(str(path)) + 1:] if name != str(path) else source or str(path)
    wanted = {"user": user_col, "item": item_col, "timestamp": time_col}
    if rating_col:
        wanted["rating"] = rating_col
    if _is_parquet(raw):
        frame, where = _read_parquet(raw, name, wanted), "row"
    else:
        frame, where = _read_delimited(raw, name, wanted, sep, hint), "line"
    return _interaction_frame(frame, wanted, name, where, raw if where == "line" else None)


def _read_parquet(raw: bytes, name: str, wanted: dict) -> pd.DataFrame:
    if importlib.util.find_spec("pyarrow") is None:
        raise ImportError(f"{name} is a Parquet file; reading Parquet needs pyarrow "
                          f"(pip install pyarrow), or convert it to CSV")
    import pyarrow.parquet as pq

    try:
        table_file = pq.ParquetFile(io.BytesIO(raw))
        columns = list(table_file.schema_arrow.names)
    except Exception as exc:  # pyarrow raises its own error types
        raise DataError(f"{name}: unreadable Parquet file ({exc})") from exc
    _check_columns(name, wanted, columns)
    return table_file.read(columns=list(dict.fromkeys(wanted.values()))).to_pandas()


def _check_columns(name: str, wanted: dict, columns: list[str]) -> None:
    missing = [c for c in dict.fromkeys(wanted.values()) if c not in columns]
    if missing:
        raise DataError(f"{name}: no column {', '.join(map(repr, missing))}; the columns are "
                        f"{describe(list(columns), 50)}")


def _read_delimited(raw: bytes, name: str, wanted: dict, sep: str | None,
                    hint: str) -> pd.DataFrame:
    raw = strip_bom(raw)
    head, body = split_header(raw)
    if sep is None:
        sep = _EXTENSION_SEP.get(os.path.splitext(hint)[1].lower())
    if sep is None:
        sep = "\t" if b"\t" in head else ","
    if len(sep) != 1:
        raise ValueError(f"{name}: sep must be one character, got {sep!r}")
    try:
        columns = next(csv.reader([head.decode("utf-8")], delimiter=sep))
    except (UnicodeDecodeError, StopIteration, csv.Error) as exc:
        raise DataError(f"{name}: line 1: unreadable header {show(head)}") from exc
    columns = [c.strip() for c in columns]
    _check_columns(name, wanted, columns)
    if not body.strip():
        raise DataError(f"{name}: no data lines")
    _check_field_counts(raw, sep, len(columns), name)
    try:
        return pd.read_csv(io.BytesIO(raw), sep=sep, header=0, names=columns,
                           usecols=list(dict.fromkeys(wanted.values())), engine="c",
                           skip_blank_lines=False, keep_default_na=False, na_values=[""],
                           index_col=False)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise DataError(f"{name}: unparseable ({exc})") from exc


def _check_field_counts(raw: bytes, sep: str, k: int, name: str) -> None:
    """DataError at the first line (after the header) whose field count is not ``k``."""
    bsep = sep.encode()
    if b'"' in raw:  # quoted fields may hold separators and line ends: let csv count
        text = io.StringIO(raw.decode("utf-8", "replace"), newline="")
        reader = csv.reader(text, delimiter=sep)
        next(reader, None)
        previous = 1
        for row in reader:
            if len(row) != k:
                raise DataError(f"{name}: line {previous + 1}: expected {k} fields "
                                f"separated by {sep!r}, got {len(row)}")
            previous = reader.line_num
        return
    arr = np.frombuffer(raw, dtype=np.uint8)
    block = 1 << 26  # bytes per pass, on line boundaries: bounded memory
    start, line0 = 0, 0
    while start < len(raw):
        stop = raw.find(b"\n", min(start + block, len(raw)) - 1)
        stop = len(raw) if stop < 0 else stop + 1
        part = arr[start:stop]
        ends = np.flatnonzero(part == 10)
        n = ends.size + (stop == len(raw) and not raw.endswith(b"\n"))
        seps = np.flatnonzero(part == bsep[0])
        counts = np.bincount(np.searchsorted(ends, seps), minlength=n)[:n]
        bad = np.flatnonzero(counts != k - 1)
        if line0 == 0:
            bad = bad[bad > 0]  # the header was checked on its own
        if bad.size:
            number = line0 + int(bad[0]) + 1
            line = raw.split(b"\n", number)[number - 1] if number > 0 else b""
            raise DataError(f"{name}: line {number}: expected {k} fields separated by "
                            f"{sep!r}, got {counts[bad[0]] + 1}: {show(line)}")
        line0 += n
        start = stop


def _line_of_row(raw: bytes | None, row: int) -> int:
    """File line of data row ``row`` (0-based, after the header)."""
    if raw is None or b'"' not in raw:
        return row + 2
    reader = csv.reader(io.StringIO(strip_bom(raw).decode("utf-8", "replace"), newline=""))
    previous = 0
    for index, _ in enumerate(reader):
        if index == row + 1:
            return previous + 1
        previous = reader.line_num
    return row + 2


def _interaction_frame(frame: pd.DataFrame, wanted: dict, name: str, where: str,
                       raw: bytes | None) -> pd.DataFrame:
    def place(row: int) -> str:
        return f"line {_line_of_row(raw, row)}" if where == "line" else f"row {row + 1}"

    out, attrs = {}, {}
    for key in ("user", "item"):
        col = frame[wanted[key]]
        missing = col.isna().to_numpy()
        if missing.any():
            row = int(np.argmax(missing))
            raise DataError(f"{name}: {place(row)}: empty {key} ({wanted[key]!r})")
        if pd.api.types.is_numeric_dtype(col.dtype):
            out[key] = _int64(col, f"{key} ({wanted[key]!r})", name, place)
        else:
            labels, codes = np.unique(col.astype(str).to_numpy(), return_inverse=True)
            out[key] = codes.astype(np.int64)
            attrs[f"{key}_ids"] = labels
    if "rating" in wanted:
        col = frame[wanted["rating"]]
        values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.argmax(bad))
            raise DataError(f"{name}: {place(row)}: rating ({wanted['rating']!r}) is not a "
                            f"number: {col.iloc[row]!r}")
        out["rating"] = values
    else:
        out["rating"] = np.ones(len(frame))
    out["timestamp"] = _timestamps(frame[wanted["timestamp"]], wanted["timestamp"], name,
                                   place)
    result = pd.DataFrame({c: out[c] for c in COLUMNS})
    result.attrs.update(attrs)
    return result


def _int64(col: pd.Series, what: str, name: str, place, shown: pd.Series | None = None
           ) -> np.ndarray:
    """A numeric column as int64; DataError at the first value that is not an integer or
    does not fit in 64 bits (rather than wrapping around: 2**63 is not -2**63). ``shown``:
    the column as read, for the message and the exact value (default ``col``)."""
    shown = col if shown is None else shown
    if pd.api.types.is_signed_integer_dtype(col.dtype):
        return col.to_numpy(dtype=np.int64)
    if pd.api.types.is_unsigned_integer_dtype(col.dtype):
        values = col.to_numpy()
        out, edge = values.astype(np.int64), np.flatnonzero(values > np.iinfo(np.int64).max)
    else:
        values = col.to_numpy(dtype=np.float64)
        bad = bad_values(values)
        if bad.any():
            row = int(np.argmax(bad))
            raise DataError(f"{name}: {place(row)}: {what} is not an integer: "
                            f"{str(shown.iloc[row])!r}")
        # float64 rounds 2**63 - 1 up to 2**63: such values are read again from their text
        edge = np.flatnonzero(np.abs(values) >= 2.0 ** 63)
        out = np.where(np.abs(values) < 2.0 ** 63, values, 0.0).astype(np.int64)
    for row in edge:
        value = int(Decimal(str(shown.iloc[row]).strip()))
        if not -2 ** 63 <= value < 2 ** 63:
            raise DataError(f"{name}: {place(row)}: {what} {str(shown.iloc[row])!r} is too "
                            f"large for a 64-bit integer")
        out[row] = value
    return out


def _timestamps(col: pd.Series, label: str, name: str, place) -> np.ndarray:
    """Integer seconds: integer column as is, ISO 8601 dates converted (UTC)."""
    if col.isna().any():
        row = int(np.argmax(col.isna().to_numpy()))
        raise DataError(f"{name}: {place(row)}: empty time ({label!r})")
    numbers = col if pd.api.types.is_numeric_dtype(col.dtype) else pd.to_numeric(
        col, errors="coerce")
    numeric = numbers.notna().to_numpy()

    def is_date(row: int) -> bool:
        return pd.notna(pd.to_datetime(str(col.iloc[row]), format="ISO8601", utc=True,
                                       errors="coerce"))
    if numeric.any() and not numeric.all():   # one format throughout: name where it changes
        row = int(np.argmax(numeric != numeric[0]))
        if is_date(row if numeric[0] else 0):
            kind = "integers" if numeric[0] else "ISO 8601 dates"
            raise DataError(f"{name}: {place(row)}: time ({label!r}) {col.iloc[row]!r} changes "
                            f"format: the rows before it are {kind} (from {place(0)})")
    if numeric.any():  # numeric time: every value must be an integer
        return _int64(numbers, f"time ({label!r})", name, place, shown=col)
    dates = pd.to_datetime(col.astype(str), format="ISO8601", utc=True, errors="coerce")
    bad = dates.isna().to_numpy()
    if bad.any():
        row = int(np.argmax(bad))
        raise DataError(f"{name}: {place(row)}: time ({label!r}) is neither an integer nor "
                        f"an ISO 8601 date: {col.iloc[row]!r}")
    epoch = pd.Timestamp(0, tz="UTC")
    return ((dates - epoch) // pd.Timedelta(seconds=1)).to_numpy(dtype=np.int64)


def read_interactions_spec(archive_path, spec: dict) -> pd.DataFrame:
    """:func:`read_interactions_file` with the arguments of a dataset spec (format
    ``interactions``): ``user_col``, ``item_col``, ``time_col`` (required), ``rating_col``,
    ``sep``, ``member``; ``path`` or ``url`` names the original file (for its extension)."""
    missing = [k for k in COLUMN_KEYS if not spec.get(k)]
    if missing:
        raise ValueError(f"format 'interactions' needs {', '.join(missing)} in the dataset "
                         f"spec (column names)")
    return read_interactions_file(archive_path, user_col=spec["user_col"],
                                  item_col=spec["item_col"], time_col=spec["time_col"],
                                  rating_col=spec.get("rating_col"), sep=spec.get("sep"),
                                  member=spec.get("member"),
                                  source=spec.get("path") or spec.get("url"))
