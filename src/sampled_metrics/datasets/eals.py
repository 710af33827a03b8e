"""The data file of eALS (He et al., SIGIR'16; github hexiangnan/sigir16-eals, data/):
one headerless tab-separated file of all interactions, e.g. ``yelp.rating``, read as a
ratings frame (then split leave-last-out by time like every ratings format)."""
from __future__ import annotations

import pandas as pd

from ..textfile import parse_table
from .members import read_file
from .split import COLUMNS

__all__ = ["read_eals", "read_eals_spec", "LAYOUT"]

LAYOUT = ("the single data file of eALS (He et al. 2016; github hexiangnan/sigir16-eals, "
          "data/yelp.rating), alone or as ``member`` of a zip: one interaction per line, "
          "``user<TAB>item<TAB>rating<TAB>timestamp``, integer ids, a numeric rating, the "
          "time in integer Unix seconds, no header. A (user, item) pair may occur on several "
          "lines (a repeated review): it is one interaction, dated by its latest line.")

_FIELDS = ("user", "item", "rating", "timestamp")


def read_eals(path, *, member: str | None = None) -> pd.DataFrame:
    """The interactions of an eALS data file (layout: :data:`LAYOUT`).

    Parameters
    ----------
    path : path
        The file, or a zip holding it (then ``member``, optional if it holds one file).
    member : str, optional
        The file inside a zip.

    Returns
    -------
    pandas.DataFrame
        ``user, item, rating, timestamp`` in file order (ids and time int64, rating
        float64), repeated pairs kept (the split keeps one, see
        :mod:`~sampled_metrics.datasets.split`).

    Raises
    ------
    DataError
        Missing file, no data lines, or the first malformed line, named
        ``<file>: line <N>: ...`` (wrong number of fields, a non-integer id or time, a
        rating that is not a number).
    """
    raw, name = read_file(path, member)
    cols = parse_table(raw, "\t", _FIELDS, "iifi", name,
                       expected="4 tab-separated fields (user item rating timestamp)")
    return pd.DataFrame(dict(zip(_FIELDS, cols)))[list(COLUMNS)]


def read_eals_spec(path, spec: dict) -> pd.DataFrame:
    """:func:`read_eals` with the keys of a dataset spec (format ``eals``): ``member``."""
    return read_eals(path, member=spec.get("member"))
