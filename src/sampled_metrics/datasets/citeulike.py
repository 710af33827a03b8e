"""citeulike-a (Wang, Chen and Li, IJCAI'13; github js05212/citeulike-a): the user-item
matrix ``users.dat``, one line per user, read as a ratings frame without time.

``users.dat`` has no timestamps, so "the latest interaction" of the leave-last-out split is
not defined. The reader gives each interaction a *random order* as its timestamp: a seeded
permutation of ``0 .. N-1`` over all N interactions, so the held-out item of every user is
one of their items drawn uniformly at random (independently of its id and its position on
the line), and the same ``holdout_seed`` gives the same split on every machine.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..seeds import generator
from ..textfile import show
from .errors import DataError
from .members import read_file
from .split import COLUMNS

__all__ = ["read_citeulike", "read_citeulike_spec", "LAYOUT"]

LAYOUT = ("citeulike-a's users.dat (github js05212/citeulike-a), alone or as ``member`` of a "
          "zip: line u (u = 0, 1, ...) is user u's items, ``<count> <item> <item> ...`` "
          "separated by spaces, the count first, 0-based item ids, no header. A count of 0 "
          "(a user without items) is allowed; an item listed twice on a line is an error. "
          "Every interaction has rating 1; there is no time, so the timestamp is a random "
          "order drawn with ``holdout_seed`` (default 0): each user's held-out item is one "
          "of their items chosen uniformly at random.")


def read_citeulike(path, *, holdout_seed: int = 0, member: str | None = None) -> pd.DataFrame:
    """The interactions of a citeulike-a ``users.dat``.

    Parameters
    ----------
    path : path
        ``users.dat``, or a zip holding it (then ``member``, optional if it holds one file).
    holdout_seed : int
        Seed of the random order that stands in for time (see the module docstring).
    member : str, optional
        The file inside a zip.

    Returns
    -------
    pandas.DataFrame
        ``user, item, rating, timestamp`` in file order: user = 0-based line number, item
        as written, rating 1.0, timestamp = position of the interaction in the permutation
        ``generator(holdout_seed, "citeulike", "order").permutation(N)`` of the N
        interactions (int64).

    Raises
    ------
    DataError
        Missing file, or the first bad line, named ``<file>: line <N>: ...``: an empty
        line, a token that is not a non-negative integer, a count that differs from the
        number of items listed, or an item listed twice.
    """
    raw, name = read_file(path, member)
    text = raw.decode("ascii", "replace")
    lines = text.split("\n")
    if lines and lines[-1].strip() == "":
        lines.pop()                            # the newline ending the last line
    if not lines:
        raise DataError(f"{name}: no data lines")
    users, items = [], []
    for number, line in enumerate(lines, start=1):
        ids = _line_items(line.rstrip("\r"), number, name)
        users.append(np.full(ids.size, number - 1, dtype=np.int64))
        items.append(ids)
    user, item = np.concatenate(users), np.concatenate(items)
    order = generator(holdout_seed, "citeulike", "order").permutation(user.size)
    frame = pd.DataFrame({"user": user, "item": item, "rating": np.ones(user.size),
                          "timestamp": order.astype(np.int64)})
    return frame[list(COLUMNS)]


def _line_items(line: str, number: int, name: str) -> np.ndarray:
    """The item ids of one line ``<count> <item> ...``; DataError naming the line."""
    where = f"{name}: line {number}"
    tokens = line.split()
    if not tokens:
        raise DataError(f"{where}: empty line; expected '<count> <item> <item> ...'")
    bad = [t for t in tokens if not t.isdigit()]
    if bad:
        raise DataError(f"{where}: {bad[0]!r} is not a non-negative integer in "
                        f"{show(line.encode())}")
    count, ids = int(tokens[0]), np.array(tokens[1:], dtype=np.int64)
    if count != ids.size:
        raise DataError(f"{where}: the count says {count} items but the line lists "
                        f"{ids.size}: {show(line.encode())}")
    distinct, seen = np.unique(ids, return_counts=True)
    if distinct.size != ids.size:
        raise DataError(f"{where}: item {int(distinct[np.argmax(seen > 1)])} is listed "
                        f"twice")
    return ids


def read_citeulike_spec(path, spec: dict) -> pd.DataFrame:
    """:func:`read_citeulike` with the keys of a dataset spec (format ``citeulike``):
    ``holdout_seed`` (default 0) and ``member``."""
    return read_citeulike(path, holdout_seed=spec.get("holdout_seed", 0),
                          member=spec.get("member"))
