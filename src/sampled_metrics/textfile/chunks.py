"""Chunked parsing: text is cut into chunks of whole lines, each parsed fast (vectorised, by
pandas' C parser) and, only where that fails, again line by line to name the first bad line.

A file or a text in memory is read the same way, :data:`CHUNK_BYTES` at a time, so memory
stays bounded by a chunk plus the values, and a fault far into a large file costs one slow
pass over one chunk, not over the file.
"""
from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator

from .text import strip_bom

__all__ = ["CHUNK_BYTES", "line_chunks", "parse_chunks"]

#: bytes read per chunk (a chunk is longer when a line is)
CHUNK_BYTES = 1 << 22


def line_chunks(source, first_line: int = 1, skip: int = 0) -> Iterator[tuple[int, bytes]]:
    """(line number of its first line, chunk) for the chunks of whole lines of ``source``.

    Parameters
    ----------
    source : bytes or path
        The text in memory, or a file to read.
    first_line : int
        The number of ``source``'s first line (2 when a header was cut off before).
    skip : int
        Lines left out at the start (a header read on its own).

    Yields
    ------
    (int, bytes)
        Each chunk ends with a line end, but the last if the text does not; a leading
        byte-order mark is left out.

    Examples
    --------
    >>> list(line_chunks(b"\\xef\\xbb\\xbfuser,rank\\n1,3\\n2,4", skip=1))
    [(2, b'1,3\\n'), (3, b'2,4')]
    """
    handle = io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")
    with handle:
        rest, line, start = b"", first_line, True
        while block := handle.read(CHUNK_BYTES):
            if start:
                block, start = strip_bom(block), False
            block = rest + block
            cut = block.rfind(b"\n") + 1
            chunk, rest = block[:cut], block[cut:]
            while skip and chunk:
                chunk, skip, line = chunk[chunk.find(b"\n") + 1:], skip - 1, line + 1
            if chunk:
                yield line, chunk
                line += chunk.count(b"\n")
        if rest and not skip:
            yield line, rest


def parse_chunks(chunks: Iterable[tuple[int, bytes]], fast: Callable,
                 strict: Callable) -> Iterator:
    """Each chunk parsed: ``fast(chunk)``, or where that returns None, ``strict(chunk,
    first_line)``, which raises naming the first bad line (or parses the chunk slowly).

    Examples
    --------
    >>> def fast(chunk):
    ...     return None if b"x" in chunk else chunk.split()
    >>> def strict(chunk, first_line):
    ...     bad = chunk.split(b"\\n").index(b"x")
    ...     raise ValueError(f"line {first_line + bad}: x")
    >>> list(parse_chunks([(1, b"1\\n2\\n"), (3, b"3\\n")], fast, strict))
    [[b'1', b'2'], [b'3']]
    >>> list(parse_chunks([(1, b"1\\n2\\n"), (3, b"3\\nx\\n")], fast, strict))
    Traceback (most recent call last):
    ...
    ValueError: line 4: x
    """
    for first_line, chunk in chunks:
        got = fast(chunk)
        yield strict(chunk, first_line) if got is None else got
