"""Checked download: stream an archive (or copy a local one) while hashing, keep it only if
its MD5 is the expected one."""
from __future__ import annotations

import hashlib
import logging
import os
import re
import urllib.request
from pathlib import Path

from ..atomic import atomic_output
from .errors import DataError

__all__ = ["md5sum", "fetch_archive"]

log = logging.getLogger(__name__)

_CHUNK = 1 << 20


def md5sum(path: str | os.PathLike) -> str:
    """Hex MD5 digest of a file, read in 1 MiB chunks."""
    digest = hashlib.md5()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_archive(url: str, md5: str, dest: str | os.PathLike,
                  local_path: str | os.PathLike | None = None, name: str | None = None) -> Path:
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
    name : str, optional
        The dataset's name in the config, for the message of a failed download (how to
        give a local copy instead).

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
        key = f"datasets.{name}.path" if name else "the dataset's path"
        raise DataError(f"{url}: download failed ({exc}); without internet, download the "
                        f"archive elsewhere and give its local copy as config key {key} "
                        f"(config/offline.yaml does so for MovieLens-1M)") from exc
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
