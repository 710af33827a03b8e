"""Datasets: checked download, parsing, binarisation and the leave-last-out split.

Data flow (KDD'20 Sec. 6, the NCF protocol of He et al. 2017)::

    fetch_archive -> read_ratings -> index_interactions -> leave_last_out -> Split

Every rating is an interaction (binarised MovieLens, as in NCF). For each user the latest
interaction is held out for testing; the rest is the training set H.

Tie rule for "latest" (stated once, applied everywhere): interactions are ordered by
(user, timestamp, position in the file), stably; the held-out item is the *last* one in
that order, i.e. among interactions in the same second the one appearing last in the file.
The same rule picks the kept copy of a duplicated (user, item) pair.
"""
from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .atomic import atomic_output

__all__ = ["DataError", "Split", "fetch_archive", "read_ratings", "index_interactions",
           "leave_last_out", "synthetic_ratings", "md5sum"]

log = logging.getLogger(__name__)

_CHUNK = 1 << 20
_COLUMNS = ("user", "item", "rating", "timestamp")
_INT_FIELD = re.compile(rb"^\s*[+-]?\d+(?:\.0*)?\s*$")  # '3186' and '3186.0' are integers
_FIXED_DATE = (2003, 2, 28, 0, 0, 0)


class DataError(ValueError):
    """A data file is missing, corrupt, truncated or malformed."""


# ----------------------------------------------------------------------------- download

def md5sum(path: str | os.PathLike) -> str:
    """Hex MD5 digest of a file, read in 1 MiB chunks."""
    digest = hashlib.md5()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_archive(url: str, md5: str, dest: str | os.PathLike,
                  local_path: str | os.PathLike | None = None) -> Path:
    """Download ``url`` (or copy ``local_path``) to ``dest``, checking its MD5.

    The bytes are streamed into a temporary file next to ``dest`` while hashing; only when
    the MD5 equals ``md5`` (and, for a download, the byte count equals Content-Length) is
    the file atomically renamed to ``dest``. On any failure nothing is left at ``dest``.

    Parameters
    ----------
    url : str
        Where to download from (ignored when ``local_path`` is given).
    md5 : str
        Expected hex MD5 (32 hex digits) of the archive.
    dest : path
        Target file; its directory is created if needed.
    local_path : path, optional
        An already downloaded archive to verify and copy instead of downloading.

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    DataError
        MD5 mismatch, truncated download, missing local file or network failure.
    """
    md5 = str(md5).strip().lower()
    if not re.fullmatch(r"[0-9a-f]{32}", md5):
        raise ValueError(f"md5 must be 32 hex digits, got {md5!r}")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if local_path is not None:
        source = Path(local_path)
        if not source.is_file():
            raise DataError(f"{source}: local archive not found")
        with open(source, "rb") as fh:
            _stream_checked(fh, dest, md5, name=str(source), size=source.stat().st_size)
        log.info("copied %s to %s (MD5 ok)", source, dest)
        return dest
    log.info("downloading %s to %s", url, dest)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            size = response.headers.get("Content-Length")
            _stream_checked(response, dest, md5, name=url, size=int(size) if size else None)
    except OSError as exc:  # URLError, timeouts, connection resets
        raise DataError(f"{url}: download failed ({exc})") from exc
    log.info("downloaded %s (MD5 ok)", dest)
    return dest


def _stream_checked(source, dest: Path, md5: str, name: str, size: int | None) -> None:
    """Copy a binary stream to a temp file beside ``dest``, verify, then rename."""
    digest, done, next_log = hashlib.md5(), 0, 0.0
    with atomic_output(dest) as tmp:
        with open(tmp, "wb") as out:
            for chunk in iter(lambda: source.read(_CHUNK), b""):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if size and done / size >= next_log:
                    log.info("%s: %.0f%% of %.1f MB", name, 100 * done / size, size / 1e6)
                    next_log += 0.1
        if size is not None and done != size:
            raise DataError(f"{name}: truncated, got {done} of {size} bytes "
                            f"(expected MD5 {md5}, got {digest.hexdigest()})")
        if digest.hexdigest() != md5:
            raise DataError(f"{name}: MD5 mismatch, expected {md5}, got {digest.hexdigest()}")


# ----------------------------------------------------------------------------- parsing

def read_ratings(archive_path: str | os.PathLike, member: str = "ml-1m/ratings.dat",
                 sep: str = "::") -> pd.DataFrame:
    """Parse ``UserID<sep>MovieID<sep>Rating<sep>Timestamp`` lines from a zip member.

    Fields must be integers; integral decimals such as ``3186.0`` are accepted (the offline
    ML-1M copy writes movie ids that way). Rows keep the file order (needed by the tie rule).

    Returns
    -------
    pandas.DataFrame
        Columns ``user, item, rating, timestamp`` (raw ids), all int64.

    Raises
    ------
    DataError
        Unreadable archive, missing member, or a malformed line (named by its 1-based number).
    """
    name = f"{archive_path}:{member}"
    try:
        with zipfile.ZipFile(archive_path) as zf:
            raw = zf.read(member)
    except FileNotFoundError as exc:
        raise DataError(f"{archive_path}: archive not found") from exc
    except KeyError as exc:
        raise DataError(f"{archive_path}: no member {member!r}") from exc
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"{archive_path}: not a readable zip archive ({exc})") from exc
    table = _parse_fast(raw, sep)
    if table is None:  # something unusual: validate line by line (slow, exact messages)
        table = _parse_strict(raw, sep, name)
    return pd.DataFrame({col: table[:, j] for j, col in enumerate(_COLUMNS)})


def _parse_fast(raw: bytes, sep: str) -> np.ndarray | None:
    """(N, 4) int64 array via pandas' C parser, or None if anything looks unusual."""
    bsep = sep.encode()
    if not raw.strip() or raw.translate(None, b"0123456789.\r\n" + bsep):
        return None  # empty, or characters (spaces, signs, 'e', ...) the C parser may bend
    if len(bsep) != 1:
        if b"\x1f" in raw:
            return None
        raw, bsep = raw.replace(bsep, b"\x1f"), b"\x1f"
    try:
        values = pd.read_csv(io.BytesIO(raw), sep=bsep.decode(), header=None, names=_COLUMNS,
                             dtype=np.float64, engine="c", skip_blank_lines=False).to_numpy()
    except (ValueError, pd.errors.ParserError):
        return None
    if not np.isfinite(values).all() or (np.abs(values) >= 2 ** 53).any():
        return None
    ints = values.astype(np.int64)
    return ints if np.array_equal(ints, values) else None


def _parse_strict(raw: bytes, sep: str, name: str) -> np.ndarray:
    """Parse line by line; DataError naming the first malformed line (1-based)."""
    bsep = sep.encode()
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    rows = []
    for number, line in enumerate(lines, start=1):
        fields = line.rstrip(b"\r").split(bsep)
        if len(fields) != 4 or not all(_INT_FIELD.match(f) for f in fields):
            shown = line[:80].decode("utf-8", "replace")
            raise DataError(f"{name}: line {number}: expected 4 integer fields separated by "
                            f"{sep!r}, got {shown!r}")
        rows.append([int(f.strip().split(b".")[0]) for f in fields])
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


# ----------------------------------------------------------------------------- indexing

def _order(user, timestamp, key=None) -> np.ndarray:
    """Stable order by (user[, key], timestamp, file position)."""
    position = np.arange(len(user))
    keys = (position, timestamp) + (() if key is None else (key,)) + (user,)
    return np.lexsort(keys)


def _last_of_groups(*sorted_keys: np.ndarray) -> np.ndarray:
    """Boolean mask of the last element of each run of equal keys (input already sorted)."""
    n = len(sorted_keys[0])
    last = np.ones(n, dtype=bool)
    if n > 1:
        change = np.zeros(n - 1, dtype=bool)
        for k in sorted_keys:
            change |= k[1:] != k[:-1]
        last[:-1] = change
    return last


def index_interactions(df: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Binarise ratings and map raw ids to contiguous 0-based indices.

    Every rating is an interaction. A duplicated (user, item) pair keeps its latest copy
    (ties: the one appearing last in the file). Index ``u`` stands for raw id
    ``user_ids[u]``, with ``user_ids`` sorted ascending (same for items).

    Returns
    -------
    interactions : pandas.DataFrame
        Columns ``user, item, timestamp`` (int64), rows in file order.
    user_ids, item_ids : numpy.ndarray
        Raw ids of the indices.
    """
    missing = {"user", "item", "timestamp"} - set(df.columns)
    if missing:
        raise ValueError(f"interactions need columns user, item, timestamp; missing "
                         f"{sorted(missing)}")
    user, item, ts = (df[c].to_numpy(dtype=np.int64) for c in ("user", "item", "timestamp"))
    order = _order(user, ts, key=item)
    keep = np.sort(order[_last_of_groups(user[order], item[order])])
    if len(keep) < len(user):
        log.info("dropped %d duplicate (user, item) pairs", len(user) - len(keep))
    user_ids, u = np.unique(user[keep], return_inverse=True)
    item_ids, i = np.unique(item[keep], return_inverse=True)
    out = pd.DataFrame({"user": u.astype(np.int64), "item": i.astype(np.int64),
                        "timestamp": ts[keep]})
    return out, user_ids, item_ids


# ----------------------------------------------------------------------------- split

@dataclass
class Split:
    """A leave-last-out split.

    Attributes
    ----------
    train : scipy.sparse.csr_matrix
        Users x items, float64 ones at the training interactions H (all users' rows; users
        with fewer than 2 interactions keep theirs here but are not evaluated).
    test_items : numpy.ndarray
        Held-out item of each evaluated user, aligned with ``users``.
    users : numpy.ndarray
        Indices of the evaluated users, ascending.
    n_dropped : int
        Users with fewer than 2 interactions (not evaluated).
    """

    train: sp.csr_matrix
    test_items: np.ndarray
    users: np.ndarray
    n_dropped: int = 0

    @property
    def n_users(self) -> int:
        return self.train.shape[0]

    @property
    def n_items(self) -> int:
        return self.train.shape[1]

    def n_candidates(self) -> np.ndarray:
        """n_u = |I| - |H_u| for each evaluated user (the held-out item is a candidate)."""
        return self.n_items - np.diff(self.train.indptr)[self.users]


def leave_last_out(df: pd.DataFrame, n_users: int, n_items: int) -> Split:
    """Hold out each user's latest interaction (NCF protocol).

    Interactions are stably sorted by (user, timestamp, file position); the last one of
    each user is held out, so same-second ties go to the interaction appearing last in the
    file. Users with fewer than 2 interactions are not evaluated (counted in
    ``n_dropped``).

    Parameters
    ----------
    df : pandas.DataFrame
        Output of :func:`index_interactions` (0-based ``user``, ``item``, ``timestamp``, file
        order, no duplicate pairs).
    n_users, n_items : int
        Matrix shape.
    """
    if n_users < 1 or n_items < 1:
        raise ValueError(f"n_users and n_items must be >= 1, got {n_users}, {n_items}")
    user, item, ts = (df[c].to_numpy(dtype=np.int64) for c in ("user", "item", "timestamp"))
    for label, idx, size in (("user", user, n_users), ("item", item, n_items)):
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise ValueError(f"{label} indices must lie in 0..{size - 1}, got "
                             f"{idx.min()}..{idx.max()}")
    if np.unique(user * n_items + item).size != user.size:
        raise ValueError("duplicate (user, item) pairs; run index_interactions first")
    order = _order(user, ts)
    last = order[_last_of_groups(user[order])]
    counts = np.bincount(user, minlength=n_users)
    held = last[counts[user[last]] >= 2]
    is_test = np.zeros(len(user), dtype=bool)
    is_test[held] = True
    train = sp.csr_matrix((np.ones(int((~is_test).sum())), (user[~is_test], item[~is_test])),
                          shape=(n_users, n_items))
    n_dropped = int((counts < 2).sum())
    if n_dropped:
        log.info("leave_last_out: %d users with < 2 interactions are not evaluated", n_dropped)
    users = user[held]
    by_user = np.argsort(users)
    return Split(train, item[held][by_user], users[by_user], n_dropped)


# ----------------------------------------------------------------------------- synthetic

def synthetic_ratings(path: str | os.PathLike, n_users: int = 300, n_items: int = 400,
                      seed: int = 0, n_clusters: int = 5, min_per_user: int = 20,
                      mean_extra: float = 15.0, zipf_exponent: float = 0.8,
                      cluster_boost: float = 8.0,
                      member: str = "ml-1m/ratings.dat") -> Path:
    """Write a small MovieLens-style zip (``UserID::MovieID::Rating::Timestamp``).

    Item popularity is Zipf-like, w_i ∝ rank_i^(-zipf_exponent); users and items belong to
    ``n_clusters`` latent clusters and a user picks item i without replacement with
    probability ∝ w_i * (cluster_boost if clusters match else 1). Each user has
    ``min_per_user + Poisson(mean_extra)`` interactions (capped at n_items // 2), with
    increasing integer timestamps, some in the same second (gap 0), written in shuffled
    order within the user, so the tie rule is exercised. Raw ids are 1-based users and
    non-contiguous item ids. Output is byte-identical for equal arguments.
    """
    if n_users < 1 or n_items < 2 or min_per_user < 2 or min_per_user > n_items // 2:
        raise ValueError(f"need n_users >= 1, n_items >= 2 and 2 <= min_per_user <= "
                         f"n_items // 2, got {n_users}, {n_items}, {min_per_user}")
    rng = np.random.default_rng(seed)
    popularity = rng.permutation(np.arange(1, n_items + 1) ** -float(zipf_exponent))
    item_cluster = rng.integers(n_clusters, size=n_items)
    user_cluster = rng.integers(n_clusters, size=n_users)
    sizes = np.minimum(min_per_user + rng.poisson(mean_extra, size=n_users), n_items // 2)
    raw_items = 1 + 3 * np.arange(n_items) + rng.integers(0, 3, size=n_items)
    lines = []
    for u in range(n_users):
        weight = popularity * np.where(item_cluster == user_cluster[u], cluster_boost, 1.0)
        items = rng.choice(n_items, size=sizes[u], replace=False, p=weight / weight.sum())
        times = 978_000_000 + 1000 * u + np.cumsum(rng.integers(0, 3, size=sizes[u]))
        ratings = rng.integers(1, 6, size=sizes[u])
        for j in rng.permutation(sizes[u]):
            lines.append(f"{u + 1}::{raw_items[items[j]]}::{ratings[j]}::{times[j]}\n")
    info = zipfile.ZipInfo(member, date_time=_FIXED_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    path = Path(path)
    with atomic_output(path) as tmp, zipfile.ZipFile(tmp, "w") as zf:
        zf.writestr(info, "".join(lines))
    return path
