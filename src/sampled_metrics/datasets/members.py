"""Files inside zip archives: open, list and read a member, with errors that name the
archive and what it holds."""
from __future__ import annotations

import zipfile
import zlib

from .errors import DataError

__all__ = ["describe", "open_zip", "member_names", "read_member"]


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
