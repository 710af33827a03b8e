"""Files inside zip archives: open, list and read a member, with errors that name the
archive and what it holds."""
from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from .errors import DataError

__all__ = ["describe", "open_zip", "member_names", "read_member", "read_file"]


def describe(names: list[str], limit: int = 20) -> str:
    """``'a', 'b', ... (N in all)``: the first ``limit`` names, or ``nothing``."""
    shown = ", ".join(repr(n) for n in names[:limit])
    more = f", ... ({len(names)} in all)" if len(names) > limit else ""
    return (shown + more) if names else "nothing"


def open_zip(path) -> zipfile.ZipFile:
    """``zipfile.ZipFile(path)``; DataError if it is missing or not a readable zip."""
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError as exc:
        raise DataError(f"{path}: archive not found") from exc
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, expected a zip archive") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"{path}: not a readable zip archive ({str(exc)[:80]})") from None


def member_names(path) -> list[str]:
    """Names of the files (not folders) in zip ``path``."""
    with open_zip(path) as zf:
        return [n for n in zf.namelist() if not n.endswith("/")]


def read_member(path, member: str) -> tuple[bytes, str]:
    """Bytes of ``member`` of zip ``path`` and its display name ``path:member``.

    Raises
    ------
    DataError
        Missing or unreadable archive, or no such member (naming the members there are).
    """
    with open_zip(path) as zf:
        names = [n for n in zf.namelist() if not n.endswith("/")]
        if member not in names:
            raise DataError(f"{path}: no member {member!r}; the archive holds "
                            f"{describe(names)}")
        try:
            return zf.read(member), f"{path}:{member}"
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
            raise DataError(f"{path}:{member}: unreadable, the archive is damaged "
                            f"({type(exc).__name__}: {str(exc)[:80]})") from None


def read_file(path, member: str | None = None) -> tuple[bytes, str]:
    """Bytes and display name of a plain file, or of ``member`` of it if it is a zip
    (``member`` may be omitted when the zip holds one file).

    Raises
    ------
    DataError
        Missing file, or a zip without that member or holding several files and no
        ``member`` given.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: file not found")
    if not zipfile.is_zipfile(path):
        return path.read_bytes(), str(path)
    if member is None:
        names = member_names(path)
        if len(names) != 1:
            raise DataError(f"{path}: zip holds {describe(names)}; give 'member'")
        member = names[0]
    return read_member(path, member)
