"""Whether a path is a file to read, and whether it looks like text: the checks made before
parsing, each ending in one ``ValueError`` naming the file as given."""
from __future__ import annotations

from pathlib import Path

__all__ = ["check_readable", "check_text"]

_SNIFF = 1 << 16
_NUL = bytes(1)


def check_readable(path, shown: str | None = None, what: str = "file") -> Path:
    """``path`` as a Path if it is a readable regular file; else ValueError naming it
    (``shown``, default ``path``) and what was expected (``what``).

    Examples
    --------
    >>> check_readable("no/such/ranks.txt")
    Traceback (most recent call last):
    ...
    ValueError: no/such/ranks.txt: no such file
    """
    shown = str(path) if shown is None else shown
    if not str(path).strip():
        raise ValueError(f"an empty file name where a {what} was expected")
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


def check_text(path: Path, shown: str, what: str) -> None:
    """ValueError naming ``shown`` unless the file's first 64 KiB look like UTF-8 text of
    ``what``: not blank, no NUL byte, valid UTF-8 (a character cut at the end may follow).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "ranks.txt"
    ...     _ = path.write_bytes(b"1\\n\\x002\\n")
    ...     check_text(path, "ranks.txt", "rank")
    Traceback (most recent call last):
    ...
    ValueError: ranks.txt: binary data (byte 2 is NUL), expected a text file of ranks
    """
    with open(path, "rb") as handle:
        head = handle.read(_SNIFF)
    if not head.strip() and path.stat().st_size <= _SNIFF:
        raise ValueError(f"{shown}: file is empty, expected one {what} per line")
    if _NUL in head:
        raise ValueError(f"{shown}: binary data (byte {head.index(_NUL)} is NUL), expected "
                         f"a text file of {what}s")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if len(head) < _SNIFF or err.start < len(head) - 4:  # not a character cut at the end
            raise ValueError(f"{shown}: not UTF-8 text (byte {err.start}), expected a text "
                             f"file of {what}s") from None
