"""Corrected metrics from ReChorus' sampled evaluation, read from the files it reads and writes.

ReChorus (``--test_all 0``, its default) ranks each test row's positive among the 99
negatives of the row's ``neg_items`` column in ``test.csv`` (tab-separated ``user_id,
item_id, time, neg_items``); ``src/main.py`` writes the scores of every row's candidates to
``rec-<model>-test.csv`` (``user_id, rec_items, rec_predictions``, sorted by score). Its
metric counts a negative with the positive's score above it and a repeated negative twice;
its saved order puts a tied positive first, so the positions here come from the scores, by
the metric's rule (evaluator ``rechorus``; see :mod:`sampled_metrics.evaluators`).

The law is chosen from the data: rows whose ``neg_items`` repeat an item were drawn with
replacement (the Amazon notebook's generator, ``rechorus-replacement``), otherwise distinct
(the MovieLens and MIND notebooks', ``rechorus``). The pool of a row is the items outside its
user's positives in the three files (the notebooks exclude them all).

    from sampled_metrics.integrations.rechorus import long_format
    table = long_format("data/MovieLens_1M", "../log/.../rec-BPRMF-test.csv")
    sampled-metrics correct --ranks long.csv --evaluator rechorus    # table.to_csv(...)
"""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd

from ..evaluators import from_scores

__all__ = ["read_candidates", "read_scores", "long_format"]

_SPLITS = ("train.csv", "dev.csv", "test.csv")


def _items_list(text, where: str) -> list:
    try:
        value = ast.literal_eval(str(text))
    except (ValueError, SyntaxError):
        raise ValueError(f"{where}: expected a list of item ids, got {str(text)[:40]!r}") \
            from None
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{where}: expected a list of item ids, got {str(text)[:40]!r}")
    return list(value)


def read_candidates(folder, n_items: int | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """The test rows of a ReChorus dataset folder and their candidates.

    Parameters
    ----------
    folder : path
        Holding ``train.csv``, ``dev.csv`` (optional) and ``test.csv``, tab-separated.
    n_items : int, optional
        The items negatives were drawn from; default the distinct item ids of the three
        files (the MovieLens notebook's ``all_items``).

    Returns
    -------
    rows : pandas.DataFrame
        ``user_id, item_id, n_nonrelevant`` per test row, in file order; ``attrs['evaluator']``
        is ``rechorus`` or ``rechorus-replacement`` (a row repeats a negative).
    items : numpy.ndarray
        (rows, 1 + m): the positive, then the row's ``neg_items``.
    """
    folder = Path(folder)
    frames = {}
    for name in _SPLITS:
        path = folder / name
        if not path.is_file():
            if name == "dev.csv":
                continue
            raise ValueError(f"{folder}: no {name}")
        frames[name] = pd.read_csv(path, sep="\t")
        missing = {"user_id", "item_id"} - set(frames[name].columns)
        if missing:
            raise ValueError(f"{path}: no column {', '.join(sorted(missing))}")
    test = frames["test.csv"]
    if "neg_items" not in test.columns:
        raise ValueError(f"{folder / 'test.csv'}: no neg_items column (ReChorus then ranks "
                         f"all items: nothing sampled to correct)")
    negatives = [_items_list(x, f"{folder / 'test.csv'} row {i + 2}")
                 for i, x in enumerate(test["neg_items"])]
    widths = {len(x) for x in negatives}
    if len(widths) != 1 or 0 in widths:
        raise ValueError(f"{folder / 'test.csv'}: rows hold {sorted(widths)} negatives; "
                         f"expected one number >= 1")
    items = np.c_[test["item_id"].to_numpy(np.int64), np.array(negatives, dtype=np.int64)]
    every = pd.concat([f[["user_id", "item_id"]] for f in frames.values()])
    universe = int(every["item_id"].nunique()) if n_items is None else int(n_items)
    positives = every.drop_duplicates().groupby("user_id").size()
    n_nonrelevant = universe - positives.reindex(test["user_id"]).to_numpy()
    if (n_nonrelevant < 1).any():
        raise ValueError(f"n_items {universe} leaves a user no non-relevant item")
    ordered = np.sort(items[:, 1:], axis=1)
    repeats = bool((ordered[:, 1:] == ordered[:, :-1]).any())
    rows = pd.DataFrame({"user_id": test["user_id"].to_numpy(),
                         "item_id": test["item_id"].to_numpy(),
                         "n_nonrelevant": n_nonrelevant})
    rows.attrs["evaluator"] = "rechorus-replacement" if repeats else "rechorus"
    return rows, items


def read_scores(path, items: np.ndarray) -> np.ndarray:
    """The scores of ``items`` (:func:`read_candidates`) from ReChorus' ``rec-*-test.csv``
    (one line per test row, in order: ``user_id``, ``rec_items``, ``rec_predictions``)."""
    path = Path(path)
    frame = pd.read_csv(path, sep="\t")
    missing = {"rec_items", "rec_predictions"} - set(frame.columns)
    if missing:
        raise ValueError(f"{path}: no column {', '.join(sorted(missing))}")
    if len(frame) != len(items):
        raise ValueError(f"{path}: {len(frame)} rows, but test.csv has {len(items)}")
    scores = np.empty(items.shape)
    for i, (ids, values) in enumerate(zip(frame["rec_items"], frame["rec_predictions"])):
        lookup = dict(zip(_items_list(ids, f"{path} row {i + 2}"),
                          _items_list(values, f"{path} row {i + 2}")))
        absent = [int(x) for x in items[i] if int(x) not in lookup]
        if absent:
            raise ValueError(f"{path} row {i + 2}: no score for candidate {absent[0]} (the "
                             f"file keeps the top 100: every candidate must be in it)")
        scores[i] = [lookup[int(x)] for x in items[i]]
    return scores


def long_format(folder, scores_csv, n_items: int | None = None) -> pd.DataFrame:
    """The long format of a ReChorus run (module docstring): one unit per test row, under
    the law its data were drawn by (``attrs['evaluator']``)."""
    rows, items = read_candidates(folder, n_items)
    table = from_scores(read_scores(scores_csv, items), rows["n_nonrelevant"].to_numpy(),
                        evaluator=rows.attrs["evaluator"], items=items)
    table.insert(1, "user_id", rows["user_id"].to_numpy())
    return table
