"""MovieLens (GroupLens): the catalogue of archives and one reader for their six layouts.

``MOVIELENS`` lists each archive's URL and published MD5; ``LAYOUTS`` how its ratings are
written. :func:`read_movielens` reads any of them the same way: the member's bytes, the
header if the layout has one, then :func:`~sampled_metrics.textfile.parse_table`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..registry import resolve_name
from ..textfile import parse_table, show, split_header, strip_bom
from .errors import DataError
from .members import read_member
from .split import COLUMNS

__all__ = ["MOVIELENS", "ML_LATEST_SMALL_RELEASE", "LAYOUTS", "Layout", "read_movielens"]

_BASE = "https://files.grouplens.org/datasets/movielens/"

#: GroupLens archives, the MD5 published beside each one (``<url>.md5``), the number of
#: users who rated (every one rated at least 20 movies, so all are evaluated) and of movies
#: rated (the split's items; a movie listed but never rated is not one). The .md5 files
#: were not reachable from here; each MD5 below was found, identical, in several
#: independent public projects that pin the archive, some quoting the ``.md5`` file
#: (``MD5 (ml-20m.zip) = ...``).
MOVIELENS: dict[str, dict] = {
    "ml-100k": {"url": _BASE + "ml-100k.zip", "md5": "0e33842e24a9c977be4e0107933c0723",
                "users": 943, "items": 1682},
    "ml-1m": {"url": _BASE + "ml-1m.zip", "md5": "c4d9eecfca2ab87c1945afe126590906",
              "users": 6040, "items": 3706},
    "ml-10m": {"url": _BASE + "ml-10m.zip", "md5": "ce571fd55effeba0271552578f2648bd",
               "users": 69878, "items": 10677},
    "ml-20m": {"url": _BASE + "ml-20m.zip", "md5": "cd245b17a1ae2cc31bb14903e1204af3",
               "users": 138493, "items": 26744},
    "ml-25m": {"url": _BASE + "ml-25m.zip", "md5": "6b51fb2759a8657d3bfcbfc42b592ada",
               "users": 162541, "items": 59047},
    # A development dataset that GroupLens regenerates from time to time under the same
    # URL: this MD5 is that of the release generated on ML_LATEST_SMALL_RELEASE (100,836
    # ratings, 610 users). A later release will not match it.
    "ml-latest-small": {"url": _BASE + "ml-latest-small.zip",
                        "md5": "31a303aabbc519bd33d025e44d6c2570", "users": 610,
                        "items": 9724},
}

#: generation date of the ml-latest-small release whose MD5 is in ``MOVIELENS``
ML_LATEST_SMALL_RELEASE = "2018-09-26"


@dataclass(frozen=True)
class Layout:
    """How one MovieLens archive writes its ratings.

    Attributes
    ----------
    member : str
        The zip member holding the ratings.
    sep : str
        Field separator.
    header : str or None
        The exact first line, or None if the member has no header.
    half_stars : bool
        Ratings 0.5-5 in half stars (float64) rather than integers 1-5 (int64).
    """

    member: str
    sep: str
    header: str | None = None
    half_stars: bool = False

    def describe(self) -> str:
        """The layout in words, for ``Format.layout``."""
        rating = ("ratings 0.5-5 in half stars (float64)" if self.half_stars
                  else "integer ratings 1-5 (int64)")
        sep = "<TAB>" if self.sep == "\t" else self.sep
        head = f"header ``{self.header}``, then " if self.header else "no header; "
        return (f"zip member ``{self.member}``: {head}one rating per line, ``user{sep}item"
                f"{sep}rating{sep}timestamp``; integer ids, {rating}, Unix seconds.")


_CSV_HEADER = "userId,movieId,rating,timestamp"

#: name -> layout of the ratings in that GroupLens archive
LAYOUTS: dict[str, Layout] = {
    "ml-100k": Layout("ml-100k/u.data", "\t"),
    "ml-1m": Layout("ml-1m/ratings.dat", "::"),
    "ml-10m": Layout("ml-10M100K/ratings.dat", "::", half_stars=True),
    "ml-20m": Layout("ml-20m/ratings.csv", ",", _CSV_HEADER, half_stars=True),
    "ml-25m": Layout("ml-25m/ratings.csv", ",", _CSV_HEADER, half_stars=True),
    "ml-latest-small": Layout("ml-latest-small/ratings.csv", ",", _CSV_HEADER,
                              half_stars=True),
}


def read_movielens(archive_path, fmt: str, member: str | None = None) -> pd.DataFrame:
    """Ratings of a GroupLens MovieLens zip written in layout ``LAYOUTS[fmt]``.

    Parameters
    ----------
    archive_path : path
        The zip archive.
    fmt : str
        One of ``LAYOUTS`` (``ml-100k``, ``ml-1m``, ``ml-10m``, ``ml-20m``, ``ml-25m``,
        ``ml-latest-small``).
    member : str, optional
        The member to read instead of the layout's.

    Returns
    -------
    pandas.DataFrame
        Columns ``user, item, rating, timestamp`` (raw ids, rows in file order; the tie
        rule of the split needs it); ``rating`` int64 (integer layouts) or float64 (half
        stars), the others int64. A header-less member of zero bytes holds zero ratings; a
        header followed by nothing is an error.

    Raises
    ------
    ValueError
        Unknown ``fmt``.
    DataError
        Missing or unreadable archive, no such member (naming those there are), a wrong
        header, or the first malformed line (``<zip>:<member>: line <N>: expected 4 fields
        ...``).
    """
    layout = LAYOUTS[resolve_name("MovieLens format", fmt, LAYOUTS)]
    raw, name = read_member(archive_path, member or layout.member)
    raw, first_line = strip_bom(raw), 1
    kinds = "iifi" if layout.half_stars else "iiii"
    rating_dtype = np.float64 if layout.half_stars else np.int64
    if layout.header is not None:
        head, raw = split_header(raw)
        if head != layout.header.encode():
            raise DataError(f"{name}: line 1: expected the header {layout.header!r}, "
                            f"got {show(head)}")
        first_line = 2
    elif not raw:
        return pd.DataFrame({c: np.zeros(0, dtype=rating_dtype if c == "rating" else np.int64)
                             for c in COLUMNS})
    user, item, rating, ts = parse_table(raw, layout.sep, COLUMNS, kinds, name, first_line,
                                         whole_line=True)
    return pd.DataFrame({"user": user, "item": item, "rating": rating.astype(rating_dtype),
                         "timestamp": ts}, copy=False)
