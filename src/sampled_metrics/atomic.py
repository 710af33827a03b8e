"""Atomic file output: write to a temporary file beside the target, then rename.

A failed or interrupted step never leaves a partial file under the final name, and the file
gets the usual permissions (0666 minus the umask) rather than mkstemp's private 0600. A step
killed outright (``kill -9``) cannot clean up; its hidden temporary ``.<name>.<random><suffix>``
is removed by the next write of the same file.
"""
from __future__ import annotations

import contextlib
import glob
import os
import tempfile
from pathlib import Path
from typing import Iterator

__all__ = ["atomic_output"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(path, suffix: str = ".part") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it becomes ``path``.

    The suffix lets writers that choose the format by extension (numpy, matplotlib) see the
    right one. On any exception the temporary file is removed and the error re-raised.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*"):
        stale.unlink(missing_ok=True)  # left by a writer that was killed
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
