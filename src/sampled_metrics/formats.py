"""Dataset formats: one reader per file layout, all feeding the same split pipeline.

Two kinds of format (``Format.kind``):

``"ratings"``
    ``Format.read(archive_path, spec) -> DataFrame`` with the columns of
    :func:`sampled_metrics.data.read_ratings`: ``user, item, rating, timestamp`` (raw ids,
    rows in file order; user, item and timestamp int64, rating int64 or float64 as stated
    by the format). Then ``index_interactions`` and ``leave_last_out`` as usual.
``"split"``
    ``Format.read_split(path, spec) -> (Split, info)`` for data that is already split
    (NCF): ``info = {"counts": {...}, "negatives": ndarray | None}``; ids are already
    0-based, so the raw id maps are ``arange(n_users)`` and ``arange(n_items)``.

Every reader raises :class:`~sampled_metrics.data.DataError` naming the file (``zip:member``)
and the 1-based line number of the first malformed line, and, for a missing member or
column, what is missing and what exists. Parsing is vectorised (pandas' C parser); the
line-by-line check only runs, chunk by chunk, after the fast parse has failed, to find
the first bad line.

``MOVIELENS`` lists the GroupLens archives with their published MD5 checksums.
"""
from __future__ import annotations

import codecs
import csv
import importlib.util
import io
import logging
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import data
from .atomic import atomic_output
from .data import DataError, Split

__all__ = ["Format", "FORMATS", "MOVIELENS", "ML_LATEST_SMALL_RELEASE", "get_format",
           "read_movielens", "read_interactions", "read_ncf", "pack_ncf"]

log = logging.getLogger(__name__)

_COLUMNS = ("user", "item", "rating", "timestamp")

# ----------------------------------------------------------------------------- catalogue

#: GroupLens archives and the MD5 published beside each one (``<url>.md5``). Those files
#: were not reachable from here; each value below was found, identical, in several
#: independent public projects that pin the archive, some quoting the ``.md5`` file
#: (``MD5 (ml-20m.zip) = ...``).
MOVIELENS: dict[str, dict[str, str | None]] = {
    "ml-100k": {"url": "https://files.grouplens.org/datasets/movielens/ml-100k.zip",
                "md5": "0e33842e24a9c977be4e0107933c0723"},
    "ml-1m": {"url": "https://files.grouplens.org/datasets/movielens/ml-1m.zip",
              "md5": "c4d9eecfca2ab87c1945afe126590906"},
    "ml-10m": {"url": "https://files.grouplens.org/datasets/movielens/ml-10m.zip",
               "md5": "ce571fd55effeba0271552578f2648bd"},
    "ml-20m": {"url": "https://files.grouplens.org/datasets/movielens/ml-20m.zip",
               "md5": "cd245b17a1ae2cc31bb14903e1204af3"},
    "ml-25m": {"url": "https://files.grouplens.org/datasets/movielens/ml-25m.zip",
               "md5": "6b51fb2759a8657d3bfcbfc42b592ada"},
    # A development dataset that GroupLens regenerates from time to time under the same
    # URL: this MD5 is that of the release generated on ML_LATEST_SMALL_RELEASE (100,836
    # ratings, 610 users). A later release will not match it.
    "ml-latest-small": {"url": "https://files.grouplens.org/datasets/movielens/"
                               "ml-latest-small.zip",
                        "md5": "31a303aabbc519bd33d025e44d6c2570"},
}

#: generation date of the ml-latest-small release whose MD5 is in ``MOVIELENS``
ML_LATEST_SMALL_RELEASE = "2018-09-26"


@dataclass(frozen=True)
class Format:
    """A dataset file layout and its reader.

    Attributes
    ----------
    name : str
        Value of ``datasets.<name>.format`` in the config.
    layout : str
        The exact file layout read.
    read : callable, optional
        ``read(archive_path, spec) -> DataFrame`` (``user, item, rating, timestamp``).
    read_split : callable, optional
        ``read_split(path, spec) -> (Split, info)`` for pre-split data.
    spec_keys : tuple of str
        Keys of the dataset spec the reader uses besides ``format, url, md5, path``.
    """

    name: str
    layout: str
    read: Callable[..., pd.DataFrame] | None = None
    read_split: Callable[..., tuple[Split, dict]] | None = None
    spec_keys: tuple[str, ...] = field(default=())

    def __post_init__(self):
        if (self.read is None) == (self.read_split is None):
            raise ValueError(f"format {self.name!r}: give exactly one of read, read_split")

    @property
    def kind(self) -> str:
        """``"ratings"`` (a ratings frame to index and split) or ``"split"`` (ready)."""
        return "ratings" if self.read is not None else "split"


def get_format(name: str) -> Format:
    """``FORMATS[name]``, or ValueError naming the known formats."""
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown dataset format {name!r}; expected one of "
                         f"{', '.join(FORMATS)}") from None


# ----------------------------------------------------------------------------- files

def _describe(names: list[str], limit: int = 20) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    more = f", ... ({len(names)} in all)" if len(names) > limit else ""
    return (shown + more) if names else "nothing"


def _open_zip(path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError as exc:
        raise DataError(f"{path}: archive not found") from exc
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"{path}: not a readable zip archive ({exc})") from exc


def _zip_member(path, member: str) -> tuple[bytes, str]:
    """Bytes of ``member`` of zip ``path`` and its display name ``path:member``."""
    with _open_zip(path) as zf:
        names = [n for n in zf.namelist() if not n.endswith("/")]
        if member not in names:
            raise DataError(f"{path}: no member {member!r}; the archive holds "
                            f"{_describe(names)}")
        try:
            return zf.read(member), f"{path}:{member}"
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise DataError(f"{path}:{member}: unreadable ({exc})") from exc


def _strip_bom(raw: bytes) -> bytes:
    return raw[len(codecs.BOM_UTF8):] if raw.startswith(codecs.BOM_UTF8) else raw


def _split_header(raw: bytes) -> tuple[bytes, bytes]:
    """(first line without its line end, the rest)."""
    head, _, body = raw.partition(b"\n")
    return head.rstrip(b"\r"), body


def _show(line: bytes) -> str:
    return repr(line[:80].decode("utf-8", "replace"))


# ----------------------------------------------------------------------------- tables

#: lines per chunk when locating the first bad line after the fast parse failed
_CHUNK_LINES = 1_000_000
_INT = re.compile(rb"^\s*[+-]?\d+(?:\.0*)?\s*$")          # '3186' and '3186.0'
_FLOAT = re.compile(rb"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$")


def _parse_table(body: bytes, sep: str, fields: tuple[str, ...], kinds: str, name: str,
                 first_line: int = 1, expected: str | None = None) -> list[np.ndarray]:
    """Columns of a headerless numeric table, one per field.

    ``kinds[j]`` is ``'i'`` (int64; integral decimals such as ``3186.0`` accepted) or
    ``'f'`` (float64, finite). ``first_line`` is the file line number of ``body``'s first
    line (2 after a header); ``expected`` describes a line for the wrong-field-count
    message. DataError names the first malformed line.
    """
    if not body.strip():
        raise DataError(f"{name}: no data lines")
    cols = _fast_table(body, sep, kinds)
    if cols is not None:
        return cols
    # Locate the problem: fast-parse chunk by chunk, check only a failing chunk per line.
    ends = np.flatnonzero(np.frombuffer(body, dtype=np.uint8) == 10) + 1
    if ends.size == 0 or ends[-1] != len(body):
        ends = np.append(ends, len(body))
    parts, start = [], 0
    for lo in range(0, ends.size, _CHUNK_LINES):
        stop = int(ends[min(lo + _CHUNK_LINES, ends.size) - 1])
        chunk = body[start:stop]
        got = _fast_table(chunk, sep, kinds)
        if got is None:
            got = _strict_table(chunk, sep, fields, kinds, name, first_line + lo, expected)
        parts.append(got)
        start = stop
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
    if any(c == "f" and not np.isfinite(col).all() for c, col in zip(kinds, cols)):
        return None
    return cols


def _strict_table(chunk: bytes, sep: str, fields, kinds: str, name: str,
                  first_line: int, expected: str | None = None) -> list[np.ndarray]:
    """Line-by-line parse of a chunk; DataError at the first malformed line."""
    bsep, k = sep.encode(), len(kinds)
    expected = expected or f"{k} fields ({' '.join(fields)}) separated by {sep!r}"
    lines = chunk.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    cols: list[list] = [[] for _ in range(k)]
    for offset, line in enumerate(lines):
        number = first_line + offset
        values = line.rstrip(b"\r").split(bsep)
        if len(values) != k:
            raise DataError(f"{name}: line {number}: expected {expected}, got {_show(line)}")
        for j, (value, kind) in enumerate(zip(values, kinds)):
            if kind == "i":
                if not _INT.match(value):
                    raise DataError(f"{name}: line {number}: {fields[j]} is not an "
                                    f"integer: {_show(value)} in {_show(line)}")
                cols[j].append(int(value.strip().split(b".")[0]))
            else:
                if not _FLOAT.match(value):
                    raise DataError(f"{name}: line {number}: {fields[j]} is not a "
                                    f"number: {_show(value)} in {_show(line)}")
                cols[j].append(float(value))
    return [np.array(c, dtype=np.int64 if kind == "i" else np.float64)
            for c, kind in zip(cols, kinds)]


def _ratings_frame(cols, rating_dtype) -> pd.DataFrame:
    user, item, rating, ts = cols
    return pd.DataFrame({"user": user.astype(np.int64, copy=False),
                         "item": item.astype(np.int64, copy=False),
                         "rating": rating.astype(rating_dtype, copy=False),
                         "timestamp": ts.astype(np.int64, copy=False)})


# ----------------------------------------------------------------------------- MovieLens

_ML_CSV_HEADER = b"userId,movieId,rating,timestamp"

# name -> (default member, separator, header or None, rating dtype)
_MOVIELENS_LAYOUT = {
    "ml-100k": ("ml-100k/u.data", "\t", None, np.int64),
    "ml-1m": ("ml-1m/ratings.dat", "::", None, np.int64),
    "ml-10m": ("ml-10M100K/ratings.dat", "::", None, np.float64),
    "ml-20m": ("ml-20m/ratings.csv", ",", _ML_CSV_HEADER, np.float64),
    "ml-25m": ("ml-25m/ratings.csv", ",", _ML_CSV_HEADER, np.float64),
    "ml-latest-small": ("ml-latest-small/ratings.csv", ",", _ML_CSV_HEADER, np.float64),
}


def read_movielens(archive_path, fmt: str, member: str | None = None) -> pd.DataFrame:
    """Ratings of a GroupLens MovieLens zip in format ``fmt`` (see ``FORMATS[fmt].layout``).

    Returns the frame of :func:`~sampled_metrics.data.read_ratings`; ``rating`` is int64
    for ml-100k and ml-1m, float64 (half stars) for the others. ``member`` overrides the
    archive member to read.
    """
    if fmt not in _MOVIELENS_LAYOUT:
        raise ValueError(f"unknown MovieLens format {fmt!r}; expected one of "
                         f"{', '.join(_MOVIELENS_LAYOUT)}")
    default, sep, header, rating_dtype = _MOVIELENS_LAYOUT[fmt]
    member = member or default
    if fmt == "ml-1m":
        with _open_zip(archive_path) as zf:  # same error as the others for a bad member
            names = [n for n in zf.namelist() if not n.endswith("/")]
        if member not in names:
            raise DataError(f"{archive_path}: no member {member!r}; the archive holds "
                            f"{_describe(names)}")
        return data.read_ratings(archive_path, member=member, sep=sep)
    raw, name = _zip_member(archive_path, member)
    raw, first_line = _strip_bom(raw), 1
    if header is not None:
        head, raw = _split_header(raw)
        if head != header:
            raise DataError(f"{name}: line 1: expected the header {header.decode()!r}, "
                            f"got {_show(head)}")
        first_line = 2
    kinds = "iiii" if rating_dtype is np.int64 else "iifi"
    cols = _parse_table(raw, sep, _COLUMNS, kinds, name, first_line)
    return _ratings_frame(cols, rating_dtype)


def _movielens_reader(fmt: str):
    def read(archive_path, spec=None):
        return read_movielens(archive_path, fmt, member=(spec or {}).get("member"))
    read.__name__ = f"read_{fmt.replace('-', '_')}"
    read.__doc__ = f"``read_movielens(archive_path, {fmt!r}, spec.get('member'))``."
    return read


# ----------------------------------------------------------------------------- interactions

_EXTENSION_SEP = {".csv": ",", ".tsv": "\t", ".tab": "\t"}


def _is_parquet(raw: bytes) -> bool:
    return len(raw) >= 8 and raw[:4] == b"PAR1" and raw[-4:] == b"PAR1"


def read_interactions(path, *, user_col: str, item_col: str, time_col: str,
                      rating_col: str | None = None, sep: str | None = None,
                      member: str | None = None, source: str | None = None) -> pd.DataFrame:
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
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: file not found")
    if zipfile.is_zipfile(path):
        with _open_zip(path) as zf:
            names = [n for n in zf.namelist() if not n.endswith("/")]
        if member is None:
            if len(names) != 1:
                raise DataError(f"{path}: zip holds {_describe(names)}; give 'member'")
            member = names[0]
        raw, name = _zip_member(path, member)
        hint = member
    else:
        raw, name, hint = path.read_bytes(), str(path), source or str(path)
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
                        f"{_describe(list(columns), 50)}")


def _read_delimited(raw: bytes, name: str, wanted: dict, sep: str | None,
                    hint: str) -> pd.DataFrame:
    raw = _strip_bom(raw)
    head, body = _split_header(raw)
    if sep is None:
        sep = _EXTENSION_SEP.get(os.path.splitext(hint)[1].lower())
    if sep is None:
        sep = "\t" if b"\t" in head else ","
    if len(sep) != 1:
        raise ValueError(f"{name}: sep must be one character, got {sep!r}")
    try:
        columns = next(csv.reader([head.decode("utf-8")], delimiter=sep))
    except (UnicodeDecodeError, StopIteration, csv.Error) as exc:
        raise DataError(f"{name}: line 1: unreadable header {_show(head)}") from exc
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
                            f"{sep!r}, got {counts[bad[0]] + 1}: {_show(line)}")
        line0 += n
        start = stop


def _line_of_row(raw: bytes | None, row: int) -> int:
    """File line of data row ``row`` (0-based, after the header)."""
    if raw is None or b'"' not in raw:
        return row + 2
    reader = csv.reader(io.StringIO(_strip_bom(raw).decode("utf-8", "replace"), newline=""))
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
        if pd.api.types.is_integer_dtype(col.dtype):
            out[key] = col.to_numpy(dtype=np.int64)
        elif pd.api.types.is_float_dtype(col.dtype):
            values = col.to_numpy(dtype=np.float64)
            bad = values != np.floor(values)
            if bad.any():
                row = int(np.argmax(bad))
                raise DataError(f"{name}: {place(row)}: {key} ({wanted[key]!r}) is not an "
                                f"integer: {values[row]!r}")
            out[key] = values.astype(np.int64)
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
    result = pd.DataFrame({c: out[c] for c in _COLUMNS})
    result.attrs.update(attrs)
    return result


def _timestamps(col: pd.Series, label: str, name: str, place) -> np.ndarray:
    """Integer seconds: integer column as is, ISO 8601 dates converted (UTC)."""
    if col.isna().any():
        row = int(np.argmax(col.isna().to_numpy()))
        raise DataError(f"{name}: {place(row)}: empty time ({label!r})")
    if pd.api.types.is_integer_dtype(col.dtype):
        return col.to_numpy(dtype=np.int64)
    numbers = pd.to_numeric(col, errors="coerce")
    if numbers.notna().any():  # numeric time: every value must be an integer
        values = numbers.to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values) | (values != np.floor(values))
        if bad.any():
            row = int(np.argmax(bad))
            raise DataError(f"{name}: {place(row)}: time ({label!r}) is not an integer: "
                            f"{col.iloc[row]!r}")
        return values.astype(np.int64)
    dates = pd.to_datetime(col.astype(str), format="ISO8601", utc=True, errors="coerce")
    bad = dates.isna().to_numpy()
    if bad.any():
        row = int(np.argmax(bad))
        raise DataError(f"{name}: {place(row)}: time ({label!r}) is neither an integer nor "
                        f"an ISO 8601 date: {col.iloc[row]!r}")
    epoch = pd.Timestamp(0, tz="UTC")
    return ((dates - epoch) // pd.Timedelta(seconds=1)).to_numpy(dtype=np.int64)


def _read_interactions_spec(archive_path, spec: dict) -> pd.DataFrame:
    missing = [k for k in ("user_col", "item_col", "time_col") if not spec.get(k)]
    if missing:
        raise ValueError(f"format 'interactions' needs {', '.join(missing)} in the dataset "
                         f"spec (column names)")
    return read_interactions(archive_path, user_col=spec["user_col"],
                             item_col=spec["item_col"], time_col=spec["time_col"],
                             rating_col=spec.get("rating_col"), sep=spec.get("sep"),
                             member=spec.get("member"),
                             source=spec.get("path") or spec.get("url"))


# ----------------------------------------------------------------------------- NCF

_NCF_SUFFIXES = (".train.rating", ".test.rating", ".test.negative")
_NEG_HEAD = re.compile(rb"^\((\d+),(\d+)\)\t", re.M)
_NEG_LINE = re.compile(rb"^\((\d+),(\d+)\)((?:\t\d+)+)\t?\r?$")


def _ncf_files(path, prefix: str) -> dict[str, tuple[bytes, str] | None]:
    """{suffix: (bytes, display name) or None} from a directory or a zip."""
    path = Path(path)
    out: dict[str, tuple[bytes, str] | None] = {}
    if path.is_dir():
        existing = sorted(p.name for p in path.iterdir())
        for suffix in _NCF_SUFFIXES:
            file = path / (prefix + suffix)
            out[suffix] = (file.read_bytes(), str(file)) if file.is_file() else None
    else:
        with _open_zip(path) as zf:
            existing = [n for n in zf.namelist() if not n.endswith("/")]
        for suffix in _NCF_SUFFIXES:
            target = prefix + suffix
            hits = [n for n in existing if n == target or n.endswith("/" + target)]
            if len(hits) > 1:
                raise DataError(f"{path}: several members named {target!r}: {hits}")
            out[suffix] = _zip_member(path, hits[0]) if hits else None
    for suffix in _NCF_SUFFIXES[:2]:
        if out[suffix] is None:
            raise DataError(f"{path}: no {prefix + suffix!r} (prefix {prefix!r}); it holds "
                            f"{_describe(existing)}")
    return out


def _ncf_ratings(raw: bytes, name: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(users, items, first line's field count) of a .rating file (3 or 4 fields)."""
    first = raw.partition(b"\n")[0].rstrip(b"\r")
    k = first.count(b"\t") + 1
    if k not in (3, 4):
        raise DataError(f"{name}: line 1: expected 4 tab-separated fields (user item rating "
                        f"timestamp; timestamp may be absent), got {_show(first)}")
    fields = ("user", "item", "rating", "timestamp")[:k]
    cols = _parse_table(raw, "\t", fields, "iif" + "i" * (k - 3), name)
    for label, col in zip(("user", "item"), cols[:2]):
        if col.size and col.min() < 0:
            line = int(np.argmax(col < 0)) + 1
            raise DataError(f"{name}: line {line}: negative {label} id {int(col.min())}; NCF "
                            f"ids are 0-based")
    return cols[0], cols[1], k


def _ncf_negatives(raw: bytes, name: str) -> tuple[np.ndarray, np.ndarray]:
    """((n, 2) (user, item) pairs, (n, K) negatives) of a .test.negative file."""
    body = re.sub(rb"[ \t]+(\r?)$", rb"\1", raw, flags=re.M)  # tolerate trailing tabs
    if not body.strip():
        raise DataError(f"{name}: no data lines")
    lines = body.count(b"\n") + (not body.endswith(b"\n"))
    if len(_NEG_HEAD.findall(body)) == lines:
        first = body.partition(b"\n")[0]
        k = first.count(b"\t") + 2
        table = _NEG_HEAD.sub(rb"\1\t\2\t", body)
        fields = ("user", "item") + tuple(f"negative{j}" for j in range(1, k - 1))
        try:
            cols = _parse_table(table, "\t", fields, "i" * k, name, expected=f"(user,item) "
                                f"and {k - 2} tab-separated negatives as on line 1")
        except DataError as exc:  # show the line as written, not as rewritten for parsing
            found = re.search(r": line (\d+): ", str(exc))
            if found is None:
                raise
            number = int(found.group(1))
            line = body.split(b"\n", number)[number - 1]
            shown = f", got {_show(line)}"
            message = re.sub(r", got .*$", lambda _: shown, str(exc), flags=re.S)
            raise DataError(message) from None
        pairs = np.column_stack(cols[:2])
        return pairs, np.column_stack(cols[2:]) if k > 2 else np.empty((len(pairs), 0))
    for number, line in enumerate(body.split(b"\n"), start=1):
        if number > lines:
            break
        if not _NEG_LINE.match(line):
            raise DataError(f"{name}: line {number}: expected '(user,item)' then "
                            f"tab-separated negative item ids, got {_show(line)}")
    raise DataError(f"{name}: malformed (user,item) heads")


def _load_ncf(path, prefix: str) -> tuple[Split, np.ndarray | None, dict]:
    files = _ncf_files(path, prefix)
    train_raw, train_name = files[".train.rating"]
    test_raw, test_name = files[".test.rating"]
    tr_user, tr_item, _ = _ncf_ratings(train_raw, train_name)
    te_user, te_item, _ = _ncf_ratings(test_raw, test_name)
    seen = np.zeros(0, dtype=np.int64)
    if te_user.size:
        order = np.argsort(te_user, kind="stable")
        dup = np.flatnonzero(te_user[order][1:] == te_user[order][:-1])
        if dup.size:
            line = int(order[dup + 1].min()) + 1
            raise DataError(f"{test_name}: line {line}: user {int(te_user[line - 1])} has a "
                            f"second test item (leave-one-out: one per user)")
    negatives = pairs = None
    if files[".test.negative"] is not None:
        neg_raw, neg_name = files[".test.negative"]
        pairs, negatives = _ncf_negatives(neg_raw, neg_name)
        if len(pairs) != te_user.size:
            raise DataError(f"{neg_name}: {len(pairs)} lines, but {test_name} has "
                            f"{te_user.size}: each line must match the test line of the same "
                            f"number")
        mismatch = np.flatnonzero((pairs[:, 0] != te_user) | (pairs[:, 1] != te_item))
        if mismatch.size:
            j = int(mismatch[0])
            raise DataError(f"{neg_name}: line {j + 1}: ({pairs[j, 0]},{pairs[j, 1]}) but "
                            f"{test_name} line {j + 1} is ({te_user[j]},{te_item[j]}): "
                            f"negatives must follow the test file's user order")
        seen = negatives.ravel()
    n_users = int(max(tr_user.max(initial=-1), te_user.max(initial=-1))) + 1
    n_items = int(max(tr_item.max(initial=-1), te_item.max(initial=-1),
                      seen.max(initial=-1))) + 1
    train = sp.csr_matrix((np.ones(tr_user.size), (tr_user, tr_item)),
                          shape=(n_users, n_items))
    train.sum_duplicates()
    duplicates = int(tr_user.size - train.nnz)
    if duplicates:
        log.info("%s: %d duplicate (user, item) training lines kept once", train_name,
                 duplicates)
    train.data[:] = 1.0
    in_train = np.asarray(train[te_user, te_item]).ravel() > 0
    if in_train.any():
        j = int(np.argmax(in_train))
        raise DataError(f"{test_name}: line {j + 1}: test pair ({te_user[j]},{te_item[j]}) is "
                        f"also in {train_name}")
    order = np.argsort(te_user, kind="stable")
    users, test_items = te_user[order], te_item[order]
    in_history = 0
    if negatives is not None:
        negatives = negatives[order]
        rows = np.repeat(users, negatives.shape[1])
        hit = np.asarray(train[rows, negatives.ravel()]).ravel() > 0
        hit |= negatives.ravel() == np.repeat(test_items, negatives.shape[1])
        in_history = int(hit.sum())
        if in_history:
            log.warning("%s: %d negatives are training or test items of their user",
                        files[".test.negative"][1], in_history)
    split = Split(train, test_items, users, n_dropped=int(n_users - users.size))
    counts = {"ratings": int(tr_user.size + te_user.size),
              "interactions": int(train.nnz + users.size), "users": n_users,
              "items": n_items, "train_interactions": int(train.nnz),
              "evaluated_users": int(users.size), "dropped_users": split.n_dropped,
              "duplicate_train_pairs": duplicates,
              "negatives_per_user": 0 if negatives is None else int(negatives.shape[1]),
              "negatives_in_history": in_history}
    return split, negatives, counts


def read_ncf(path, prefix: str) -> tuple[Split, np.ndarray | None]:
    """The NCF pre-split data (He et al. 2017) as a Split and its fixed test negatives.

    Reads ``<prefix>.train.rating``, ``<prefix>.test.rating`` and, when present,
    ``<prefix>.test.negative`` from directory ``path`` or from zip ``path`` (at the root
    or in any folder). Layout: see ``FORMATS['ncf'].layout``.

    Returns
    -------
    split : Split
        ``train``: ones at the training pairs (duplicate lines kept once), shape
        (max user id + 1, max item id + 1) over all files; ``users``: users of the test
        file, ascending, with their ``test_items``; ``n_dropped``: users without a test line.
    negatives : numpy.ndarray or None
        int64 (len(split.users), K) (K = 99 in the NCF files), row r for user
        ``split.users[r]``; None without a ``.test.negative`` file.

    Raises
    ------
    DataError
        Missing file, malformed line, a user with two test items, a test pair also in the
        training file, or a negatives file whose line count or (user,item) order differs
        from the test file.
    """
    split, negatives, _ = _load_ncf(path, prefix)
    return split, negatives


def _read_ncf_spec(path, spec: dict) -> tuple[Split, dict]:
    prefix = spec.get("prefix")
    if not prefix:
        raise ValueError("format 'ncf' needs 'prefix' in the dataset spec "
                         "(e.g. ml-1m or pinterest-20)")
    split, negatives, counts = _load_ncf(path, prefix)
    log.info("ncf %s: %s", prefix, counts)
    return split, {"counts": counts, "negatives": negatives}


def pack_ncf(src, prefix: str, out) -> Path:
    """Zip ``<prefix>.train.rating``, ``.test.rating`` (and ``.test.negative``) of directory
    or zip ``src`` into ``out``, deterministically (stored, fixed dates): the zip's MD5
    depends only on the three files' bytes. Returns ``out``."""
    files = _ncf_files(src, prefix)
    out = Path(out)
    with atomic_output(out) as tmp, zipfile.ZipFile(tmp, "w",
                                                    compression=zipfile.ZIP_STORED) as zf:
        for suffix in _NCF_SUFFIXES:
            if files[suffix] is not None:
                info = zipfile.ZipInfo(prefix + suffix, date_time=(1980, 1, 1, 0, 0, 0))
                info.create_system, info.external_attr = 3, 0o644 << 16
                zf.writestr(info, files[suffix][0])
    return out


# ----------------------------------------------------------------------------- registry

_ML_TSV = ("zip member ``{member}``: one rating per line, ``user{sep}item{sep}rating{sep}"
           "timestamp``, no header; integer ids, {rating}, Unix seconds.")
_ML_CSV = ("zip member ``{member}``: header ``userId,movieId,rating,timestamp``, then one "
           "rating per line, comma-separated; integer ids, ratings 0.5-5 in half stars "
           "(float64), Unix seconds.")

FORMATS: dict[str, Format] = {
    "ml-100k": Format("ml-100k", _ML_TSV.format(member="ml-100k/u.data", sep="<TAB>",
                                                rating="integer ratings 1-5 (int64)"),
                      read=_movielens_reader("ml-100k"), spec_keys=("member",)),
    "ml-1m": Format("ml-1m", _ML_TSV.format(member="ml-1m/ratings.dat", sep="::",
                                            rating="integer ratings 1-5 (int64)")
                    + " Read by data.read_ratings.",
                    read=_movielens_reader("ml-1m"), spec_keys=("member",)),
    "ml-10m": Format("ml-10m", _ML_TSV.format(member="ml-10M100K/ratings.dat", sep="::",
                                              rating="ratings 0.5-5 in half stars (float64)"),
                     read=_movielens_reader("ml-10m"), spec_keys=("member",)),
    "ml-20m": Format("ml-20m", _ML_CSV.format(member="ml-20m/ratings.csv"),
                     read=_movielens_reader("ml-20m"), spec_keys=("member",)),
    "ml-25m": Format("ml-25m", _ML_CSV.format(member="ml-25m/ratings.csv"),
                     read=_movielens_reader("ml-25m"), spec_keys=("member",)),
    "ml-latest-small": Format("ml-latest-small",
                              _ML_CSV.format(member="ml-latest-small/ratings.csv"),
                              read=_movielens_reader("ml-latest-small"),
                              spec_keys=("member",)),
    "synthetic": Format("synthetic", "generated by data.synthetic_ratings (spec: n_users, "
                        "n_items, seed, ...) in the ml-1m layout: zip member "
                        "``ml-1m/ratings.dat``, ``user::item::rating::timestamp``.",
                        read=_movielens_reader("ml-1m"),
                        spec_keys=("n_users", "n_items", "seed")),
    "interactions": Format(
        "interactions",
        "a CSV/TSV file with a header row naming its columns (any number, any order), or a "
        "Parquet file (needs pyarrow), either alone or as ``member`` of a zip. The spec "
        "names the columns: ``user_col``, ``item_col``, ``time_col`` (required), "
        "``rating_col`` (optional, default rating 1.0); ``sep`` (one character) defaults "
        "from the extension (.csv ',', .tsv/.tab tab), else tab if the header has one, "
        "else ','. Ids: integers, or any strings (ranked to integers). Time: integer "
        "(e.g. Unix seconds) or ISO 8601 dates. Every line must have as many fields as "
        "the header.",
        read=_read_interactions_spec,
        spec_keys=("user_col", "item_col", "time_col", "rating_col", "sep", "member")),
    "ncf": Format(
        "ncf",
        "the pre-split files of He et al. 2017 (github hexiangnan/neural_collaborative_"
        "filtering, Data/), in a directory or zip, named ``<prefix>.train.rating``, "
        "``<prefix>.test.rating`` and optionally ``<prefix>.test.negative``. The .rating "
        "files: one interaction per line, ``user<TAB>item<TAB>rating<TAB>timestamp`` "
        "(timestamp may be absent), 0-based integer ids, no header; the test file has one "
        "line per evaluated user. The .test.negative file: line i is "
        "``(user,item)<TAB>neg1<TAB>neg2...<TAB>neg99`` for the pair on line i of "
        ".test.rating.",
        read_split=_read_ncf_spec, spec_keys=("prefix",)),
}
