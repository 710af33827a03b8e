"""Text as every reader takes it: UTF-8 bytes after an optional byte-order mark, a header
line, a line or token quoted (shortened) in a message, and ``DataError``, the error of a
malformed data file."""
from __future__ import annotations

import codecs

__all__ = ["DataError", "strip_bom", "split_header", "show"]


class DataError(ValueError):
    """A data file is missing, corrupt, truncated or malformed."""


def strip_bom(raw: bytes) -> bytes:
    """``raw`` without a leading UTF-8 byte-order mark.

    Examples
    --------
    >>> strip_bom(b"\\xef\\xbb\\xbf1,2\\n"), strip_bom(b"1,2\\n")
    (b'1,2\\n', b'1,2\\n')
    """
    return raw[len(codecs.BOM_UTF8):] if raw.startswith(codecs.BOM_UTF8) else raw


def split_header(raw: bytes) -> tuple[bytes, bytes]:
    """(first line without its line end, the rest).

    Examples
    --------
    >>> split_header(b"user,item\\r\\n1,2\\n")
    (b'user,item', b'1,2\\n')
    """
    head, _, body = raw.partition(b"\n")
    return head.rstrip(b"\r"), body


def show(text: str | bytes, limit: int = 80) -> str:
    """``text`` quoted as a message shows it: its first ``limit`` characters, then ``...`` if
    it is longer (bytes are decoded as UTF-8, a bad byte shown as U+FFFD).

    Examples
    --------
    >>> show(b"1::x"), show("9" * 50, limit=5)
    ("'1::x'", "'99999...'")
    """
    if isinstance(text, bytes):  # a character takes at most 4 bytes: decode no more
        text = text[:4 * limit + 4].decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")
