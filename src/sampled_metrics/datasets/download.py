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
        The dataset's name in the config: the message of a failed download or an MD5
        mismatch then names the config keys to set, ``datasets.<name>.path`` (a local copy)
        and ``datasets.<name>.md5``.

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    DataError
        MD5 mismatch, truncated download, missing local file or network failure, in one
        line. Nothing is left at ``dest``; a local file at ``local_path`` is never changed.
    """
    md5 = str(md5).strip().lower()
    if not re.fullmatch(r"[0-9a-f]{32}", md5):
        raise ValueError(f"md5 must be 32 hex digits, got {md5!r}")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if local_path is not None:
        source = Path(local_path)
        if not source.is_file():
            raise DataError(f"{source}: local archive not found; correct {_keys(name)[0]}")
        with open(source, "rb") as fh:
            _stream_checked(fh, dest, md5, name=str(source), size=source.stat().st_size,
                            dataset=name, local=True)
        log.info("copied %s to %s (MD5 ok)", source, dest)
        return dest
    log.info("downloading %s to %s", url, dest)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            size = response.headers.get("Content-Length")
            _stream_checked(response, dest, md5, name=url, size=int(size) if size else None,
                            dataset=name, local=False)
    except OSError as exc:  # URLError, timeouts, connection resets
        raise DataError(f"{url}: download failed ({exc}); {_fix_download(name)}") from exc
    log.info("downloaded %s (MD5 ok)", dest)
    return dest


def _keys(name: str | None) -> tuple[str, str]:
    """The config keys of a dataset's local copy and MD5, as the user writes them."""
    where = f"datasets.{name}" if name else "datasets.<name>"
    return f"{where}.path", f"{where}.md5"


#: the user's own workflow config, git-ignored: the Snakefile reads it after
#: config/config.yaml whenever it exists, and before any --configfile, so a local archive set
#: there serves every run, targeted reruns too
LOCAL_CONFIG = "config/local.yaml"
#: the shipped config that takes a dataset from a local archive, and where it expects it
#: (its datasets.<name>.path)
OFFLINE_CONFIG = {"ml-1m": ("config/offline.yaml", "data/local/ml-1m.zip")}


def _fix_download(name: str | None) -> str:
    """What to do when an archive cannot be downloaded as it should: set the dataset's local
    copy (in the config every run reads, or a --configfile), or, for the dataset a shipped
    offline config covers, put the copy where that config expects it."""
    path, md5 = _keys(name)
    if name in OFFLINE_CONFIG:
        config, where = OFFLINE_CONFIG[name]
        return (f"download it elsewhere, then put it at {where} and add --configfile {config} "
                f"(or copy that file to {LOCAL_CONFIG}, which every run reads), or set {path} "
                f"to your copy in {LOCAL_CONFIG} ({md5} must be its MD5)")
    return (f"download it elsewhere, then set {path} to your copy in {LOCAL_CONFIG}, which "
            f"every run reads, or in a --configfile ({md5} must be its MD5)")


def _stream_checked(source, dest: Path, md5: str, name: str, size: int | None,
                    dataset: str | None = None, local: bool = False) -> None:
    """Copy a binary stream to a temp file beside ``dest``, verify, then rename; a failed
    check names the config keys of ``dataset`` to set (``local``: the stream is the local
    file at ``datasets.<dataset>.path``, which is left as it is)."""
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
        got = digest.hexdigest()
        if size is not None and done != size:
            raise DataError(f"{name}: truncated, got {done} of {size} bytes, nothing kept; "
                            f"{_fix_download(dataset)}")
        if got != md5:
            path_key, md5_key = _keys(dataset)
            fix = (f"the file is left as it is; if it is the right one, set {md5_key}: {got}, "
                   f"else correct {path_key}") if local else \
                f"the download is discarded; {_fix_download(dataset)}"
            raise DataError(f"{name}: MD5 mismatch, expected {md5}, got {got}; {fix}")
