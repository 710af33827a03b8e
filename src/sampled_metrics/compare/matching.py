"""Do the inputs of a comparison belong together? Checked before any arithmetic.

A paired comparison subtracts user u's value under B from its value under A, so both inputs
must describe the same evaluation: the same users (by id), each among the same candidates,
under the same law, at the same number of items. Each check raises a one-line ValueError
naming the input at fault (a file, or a recommender's name) and the first user or field that
differs; nothing is computed from inputs that do not match.

:data:`MIN_USERS` is the smallest number of users a verdict is drawn from, for every format:
the bootstrap over users of fewer gives a zero-width interval and a confident verdict from
nothing.
"""
from __future__ import annotations

import numpy as np

__all__ = ["MIN_USERS", "check_user_count", "check_rank_files", "check_positive_tables"]

#: Fewest users a comparison's bootstrap over users draws a verdict from.
MIN_USERS = 2


def check_user_count(name, users: int) -> int:
    """``users`` if at least :data:`MIN_USERS`; else a ValueError naming ``name``.

    Parameters
    ----------
    name : str or path
        How the message names the input (a file, a recommender).
    users : int
        Users the input holds.

    Returns
    -------
    int
        ``users``.
    """
    if users < MIN_USERS:
        raise ValueError(f"{name}: holds {users} user{'s' if users != 1 else ''}; a comparison "
                         f"needs at least {MIN_USERS} (its interval is a bootstrap over users)")
    return int(users)


def _show(value) -> str:
    """A user id or count as the user wrote it (numpy scalars as plain Python values)."""
    return repr(value.item() if hasattr(value, "item") else value)


def _check_pairs(inputs, what: str) -> None:
    """ValueError unless ``inputs`` is a dict of at least two recommenders' inputs."""
    if not isinstance(inputs, dict) or len(inputs) < 2:
        raise ValueError(f"need {what} of at least two recommenders")


def _first_difference(a: np.ndarray, b: np.ndarray) -> int | None:
    """Index of the first entry where ``a`` and ``b`` differ, or None."""
    unequal = np.flatnonzero(np.asarray(a) != np.asarray(b))
    return int(unequal[0]) if unequal.size else None


def _check_same_users(ids: dict, ordered: bool) -> None:
    """ValueError naming the first input whose user ids are not the first input's.

    ``ordered``: the inputs are paired row by row, so the order must agree as well."""
    (first, users), *others = ids.items()
    for name, other in others:
        only_first = np.setdiff1d(users, other)
        only_other = np.setdiff1d(other, users)
        if only_first.size or only_other.size:
            user, where, missing = ((only_other[0], name, first) if only_other.size
                                    else (only_first[0], first, name))
            raise ValueError(f"{name}: the inputs hold different users ({only_first.size} only "
                             f"in {first}, {only_other.size} only in {name}); e.g. user "
                             f"{_show(user)} is in {where} but not in {missing}")
        if ordered and users.size == other.size:
            row = _first_difference(users, other)
            if row is not None:
                raise ValueError(f"{name}: the same users as {first} in another order (row "
                                 f"{row} holds user {_show(other[row])}, {first}'s holds "
                                 f"{_show(users[row])}); a paired comparison needs one order")


def check_rank_files(files: dict, n: int | None = None) -> dict:
    """Workflow rank files of one paired comparison: the same users in the same order, each
    among the same number of candidates n_u, the same n_items (unless ``n`` is given, which
    every file must then record) and the same sampling law.

    Parameters
    ----------
    files : dict name -> :class:`~sampled_metrics.evaluation.rankfile.RankFile`
        At least two; messages name each by its key (a path or a recommender).
    n : int, optional
        The number of items the user gave (``--n``); each file must record it.

    Returns
    -------
    dict
        ``files``, unchanged.
    """
    _check_pairs(files, "rank files")
    (first, head), *others = files.items()
    for name, f in files.items():
        check_user_count(name, np.asarray(f.users).size)
        if n is not None and n != f.n_items:
            raise ValueError(f"{name}: the file records n = {f.n_items} items, but --n is {n}")
    _check_same_users({name: np.asarray(f.users) for name, f in files.items()}, ordered=True)
    for name, f in others:
        if f.n_items != head.n_items:
            raise ValueError(f"{name}: n_items = {f.n_items}, but {first} records "
                             f"{head.n_items}; the two were not ranked among the same items")
        if f.sampling != head.sampling:
            raise ValueError(f"{name}: ranks drawn {f.sampling}, but {first}'s "
                             f"{head.sampling}; the two follow different sampling laws")
        row = _first_difference(head.n_u, f.n_u)
        if row is not None:
            raise ValueError(f"{name}: user {_show(f.users[row])} has n_u = {f.n_u[row]} "
                             f"candidates, but {head.n_u[row]} in {first}; the two were not "
                             f"ranked among the same candidates")
    return files


def check_positive_tables(tables: dict, users: dict | None = None) -> dict:
    """Long-format inputs of one comparison: the same users (by id), each with the same
    number of positives k, non-relevant items N (``n_nonrelevant``) and negatives M
    (``n_negatives``) under every recommender, and at least :data:`MIN_USERS` users.

    Parameters
    ----------
    tables : dict name -> :class:`~sampled_metrics.multipositive.positives.PositiveTable`
        Messages name each input by its key.
    users : dict name -> array, optional
        The user ids of each table's users 0..U-1 (default: the indices 0..U-1).

    Returns
    -------
    dict
        ``tables``, unchanged.
    """
    _check_pairs(tables, "the positives")
    ids = {name: np.asarray(users[name]) if users is not None else np.arange(t.k.size)
           for name, t in tables.items()}
    for name, table in tables.items():
        check_user_count(name, table.k.size)
        if ids[name].size != table.k.size:
            raise ValueError(f"{name}: {ids[name].size} user ids for {table.k.size} users")
    _check_same_users(ids, ordered=True)
    (first, head), *others = tables.items()
    fields = (("k", "positives"), ("n_nonrelevant", "n_nonrelevant"),
              ("n_negatives", "n_negatives"))
    for name, table in others:
        for field, label in fields:
            row = _first_difference(getattr(head, field), getattr(table, field))
            if row is not None:
                raise ValueError(f"{name}: user {_show(ids[name][row])} has {label} = "
                                 f"{getattr(table, field)[row]}, but "
                                 f"{getattr(head, field)[row]} in {first}; the two were not "
                                 f"evaluated alike")
    return tables
