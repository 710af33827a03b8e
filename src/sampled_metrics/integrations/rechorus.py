"""Corrected metrics from ReChorus' sampled evaluation, read from the files it reads and writes.

ReChorus (``--test_all 0``, its default) ranks each test row's positive among the negatives
of the row's ``neg_items`` column in ``test.csv`` (tab-separated ``user_id, item_id, time,
..., neg_items``); ``src/main.py`` writes the scores of every row's candidates to
``rec-<model>-test.csv`` (``user_id, rec_items, rec_predictions``, sorted by score). Its
metric counts a negative with the positive's score above it and a repeated negative twice,
rank = #{candidates with score >= the positive's}; its saved order puts a tied positive
first, so the positions here come from the scores, by the metric's rule (evaluator
``rechorus``; see :mod:`sampled_metrics.evaluators`).

The two files are matched by identity, not by position: ReChorus' reader sorts each split
by (user_id, time) before it predicts, while its notebooks write ``test.csv`` in time order.
A line of ``rec-*-test.csv`` is the test row of its ``user_id`` whose candidates (the
positive and the ``neg_items``) are its ``rec_items``, in any order of lines; a line that is
no test row's is refused, naming the file, line and user. A test row with no line is left
out, as ReChorus' own metric leaves it out (its sequential models skip a row with no
history). The table follows the order of ``test.csv``.

The law is chosen from the data: rows whose ``neg_items`` repeat an item were drawn with
replacement (the Amazon notebook's generator, ``rechorus-replacement``), otherwise distinct
(the MovieLens and MIND notebooks', ``rechorus``). The pool of a row is the items outside its
user's positives in the three files (the notebooks exclude them all): n_nonrelevant =
(distinct items of the three files) - (the user's distinct items there).

    from sampled_metrics.integrations.rechorus import long_format
    table = long_format("data/MovieLens_1M/ML_1MTOPK",
                        "log/BPRMF/BPRMF__ML_1MTOPK__0__lr=0/rec-BPRMF-test.csv")
    table.to_csv("long.csv", index=False)    # its evaluator column names the law
    # then: sampled-metrics correct --ranks long.csv --metric hit@10,ndcg@10
"""
from __future__ import annotations

import re
from collections import defaultdict, deque
from pathlib import Path

import numpy as np
import pandas as pd

from ..evaluators import from_scores
from ..textfile import check_readable, split_header, strip_bom

__all__ = ["read_candidates", "read_scores", "long_format"]

_SPLITS = ("train.csv", "dev.csv", "test.csv")
_REC_COLUMNS = ("user_id", "rec_items", "rec_predictions")
_ITEM = "an item id (an integer)"
_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _read(path: Path, columns) -> pd.DataFrame:
    """A tab-separated file as text (row i is line i + 2); one-line ValueErrors naming the
    file (and line) for a missing, empty, binary or unreadable file, a line of another
    width, a missing or repeated column and an empty user_id."""
    check_readable(path, str(path), "tab-separated file")
    with open(path, "rb") as handle:
        head = handle.read(1 << 16)
    if bytes(1) in head:
        raise ValueError(f"{path}: binary data (byte {head.index(bytes(1))} is NUL), expected "
                         f"a tab-separated text file")
    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False,
                            skip_blank_lines=False)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: empty file (expected a tab-separated header line "
                         f"{', '.join(columns)}, ...)") from None
    except pd.errors.ParserError as err:
        found = _FIELDS.search(str(err))
        if found is None:
            raise ValueError(f"{path}: not a tab-separated table") from None
        width, line, saw = found.groups()
        raise ValueError(f"{path}:{line}: {saw} tab-separated fields, but the header "
                         f"has {width}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except OSError as err:
        raise ValueError(f"{path}: cannot be read ({err.strerror or err})") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}:1: no column {', '.join(missing)} (the header has "
                         f"{', '.join(map(str, frame.columns))})")
    names = [c.strip() for c in split_header(strip_bom(head))[0].decode("utf-8", "replace")
             .split("\t")]
    twice = [c for c in columns if names.count(c) > 1]
    if twice:
        raise ValueError(f"{path}:1: column {twice[0]} appears {names.count(twice[0])} "
                         f"times in the header")
    lead = np.flatnonzero(frame.iloc[:, 0].str.strip().to_numpy() == "")
    blank = lead[(frame.iloc[lead].apply(lambda c: c.str.strip()) == "").all(axis=1)
                 .to_numpy()] if lead.size else lead
    end = len(frame)
    while blank.size and blank[-1] == end - 1:               # trailing blank lines
        blank, end = blank[:-1], end - 1
    frame = frame.iloc[:end]
    if blank.size:
        raise ValueError(f"{path}:{blank[0] + 2}: a blank line")
    if "user_id" in columns:
        blank = frame["user_id"].str.strip() == ""
        if blank.any():
            raise ValueError(f"{path}:{int(np.argmax(blank.to_numpy())) + 2}: column "
                             f"user_id: empty")
    return frame


def _numbers(texts, dtype, path: Path, column: str, what: str, rows=None) -> np.ndarray:
    """``texts`` as an array of ``dtype``; a one-line ValueError naming the line (of row
    ``rows[j]`` for text j, default j) and the first text that is not ``what``."""
    try:
        return np.array(texts, dtype=dtype)
    except (ValueError, OverflowError):
        pass
    for j, text in enumerate(texts):
        try:
            np.array([text], dtype=dtype)
        except (ValueError, OverflowError):
            line = 2 + (j if rows is None else int(rows[j]))
            raise ValueError(f"{path}:{line}: column {column}: {str(text).strip()[:40]!r} "
                             f"is not {what}") from None
    raise AssertionError("the texts were refused together but not one by one")


def _lists(frame: pd.DataFrame, column: str, path: Path, dtype, what: str):
    """A column of lists ``[a, b, ...]`` (as ReChorus writes them): the values of all rows
    one after the other and each row's length; one-line ValueErrors naming the line."""
    texts = frame[column].str.strip()
    framed = texts.str.startswith("[") & texts.str.endswith("]")
    if not framed.all():
        i = int(np.flatnonzero(~framed.to_numpy())[0])
        raise ValueError(f"{path}:{i + 2}: column {column}: expected a list [a, b, "
                         f"...], got {texts.iloc[i][:40]!r}")
    inner = texts.str[1:-1].str.strip()
    lengths = np.where(inner == "", 0, inner.str.count(",") + 1).astype(np.int64)
    parts = ",".join(inner[lengths > 0]).split(",") if lengths.any() else []
    rows = np.repeat(np.arange(len(lengths)), lengths)
    return _numbers(parts, dtype, path, column, what, rows), lengths


def read_candidates(folder, n_items: int | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """The test rows of a ReChorus dataset folder and their candidates.

    Parameters
    ----------
    folder : path
        Holding ``train.csv``, ``dev.csv`` (optional) and ``test.csv``, tab-separated, as
        ReChorus' notebooks write them (``test.csv`` in any row order).
    n_items : int, optional
        The items negatives were drawn from; default the distinct item ids of the three
        files (the MovieLens notebook's ``all_items``).

    Returns
    -------
    rows : pandas.DataFrame
        ``user_id`` (as written), ``item_id``, ``n_nonrelevant`` per test row, in file order
        (row i is line i + 2); ``attrs['evaluator']`` is ``rechorus`` or
        ``rechorus-replacement`` (a row repeats a negative).
    items : numpy.ndarray
        (rows, 1 + m): the positive, then the row's ``neg_items``.
    """
    folder = Path(folder)
    frames = {}
    for name in _SPLITS:
        path = folder / name
        if not path.exists():
            if name == "dev.csv":
                continue
            raise ValueError(f"{folder}: no {name}")
        frames[name] = _read(path, ("user_id", "item_id"))
        frames[name]["user_id"] = frames[name]["user_id"].str.strip()
        frames[name]["item_id"] = _numbers(frames[name]["item_id"].to_numpy(dtype=object),
                                           np.int64, path, "item_id", _ITEM)
    test, path = frames["test.csv"], folder / "test.csv"
    if "neg_items" not in test.columns:
        raise ValueError(f"{path}:1: no column neg_items (ReChorus then ranks all "
                         f"items: nothing sampled to correct)")
    if len(test) == 0:
        raise ValueError(f"{path}: no test rows below the header")
    negatives, widths = _lists(test, "neg_items", path, np.int64, _ITEM)
    if (widths != widths[0]).any() or widths[0] == 0:
        i = int(np.flatnonzero(widths != widths[0])[0]) if widths[0] else 0
        raise ValueError(f"{path}:{i + 2}: column neg_items: {widths[i]} negatives, but "
                         f"line 2 has {widths[0]} (ReChorus needs one number >= 1 for all)")
    items = np.c_[test["item_id"].to_numpy(np.int64), negatives.reshape(len(test), -1)]
    own = (items[:, 1:] == items[:, :1]).any(axis=1)
    if own.any():
        i = int(np.flatnonzero(own)[0])
        raise ValueError(f"{path}:{i + 2}: user {test['user_id'].iloc[i]}'s neg_items "
                         f"hold the row's own item_id {items[i, 0]}")
    every = pd.concat([f[["user_id", "item_id"]] for f in frames.values()])
    universe = int(every["item_id"].nunique()) if n_items is None else int(n_items)
    positives = every.drop_duplicates().groupby("user_id").size()
    n_nonrelevant = universe - positives.reindex(test["user_id"]).to_numpy()
    if (n_nonrelevant < 1).any():
        raise ValueError(f"n_items {universe} leaves a user no non-relevant item")
    ordered = np.sort(items[:, 1:], axis=1)
    repeats = bool((ordered[:, 1:] == ordered[:, :-1]).any())
    rows = pd.DataFrame({"user_id": test["user_id"].to_numpy(),
                         "item_id": items[:, 0], "n_nonrelevant": n_nonrelevant})
    rows.attrs["evaluator"] = "rechorus-replacement" if repeats else "rechorus"
    return rows, items


def read_scores(path, rows: pd.DataFrame, items: np.ndarray) -> np.ndarray:
    """The scores ReChorus' ``rec-*-test.csv`` gives the candidates ``items`` of the test
    rows ``rows`` (:func:`read_candidates`), each line matched to the test row of its
    ``user_id`` whose candidates are its ``rec_items`` (module docstring).

    Returns
    -------
    numpy.ndarray
        The shape of ``items``: row i holds the scores of ``items[i]``; NaN where the file
        has no line for the test row.
    """
    path = Path(path)
    frame = _read(path, _REC_COLUMNS)
    if len(frame) == 0:
        raise ValueError(f"{path}: no lines below the header")
    users = frame["user_id"].str.strip().to_numpy()
    ids, id_counts = _lists(frame, "rec_items", path, np.int64, _ITEM)
    values, value_counts = _lists(frame, "rec_predictions", path, np.float64, "a score")
    width = items.shape[1]
    for counts, column in ((value_counts, "rec_predictions"), (id_counts, "rec_items")):
        wrong = np.flatnonzero(counts != width)
        if wrong.size:
            i = int(wrong[0])
            raise ValueError(f"{path}:{i + 2}: column {column}: {counts[i]} entries, but "
                             f"test.csv's rows have {width} candidates (the file must come "
                             f"from a run on this test.csv with --test_all 0)")
    ids, values = ids.reshape(-1, width), values.reshape(-1, width)
    if not np.isfinite(values).all():
        i = int(np.flatnonzero(~np.isfinite(values).all(axis=1))[0])
        raise ValueError(f"{path}:{i + 2}: column rec_predictions: a score is "
                         f"{values[i][~np.isfinite(values[i])][0]}")
    test_order = np.argsort(items, axis=1, kind="stable")
    rec_order = np.argsort(ids, axis=1, kind="stable")
    test_keys = np.take_along_axis(items, test_order, axis=1)
    rec_keys = np.take_along_axis(ids, rec_order, axis=1)
    waiting = defaultdict(deque)
    for t, (user, key) in enumerate(zip(rows["user_id"].to_numpy(), test_keys)):
        waiting[user, key.tobytes()].append(t)
    known = set(rows["user_id"].to_numpy())
    matched = np.full(len(frame), -1, dtype=np.int64)
    for r, (user, key) in enumerate(zip(users, rec_keys)):
        queue = waiting.get((user, key.tobytes()))
        if queue:
            matched[r] = queue.popleft()
            continue
        if user not in known:
            raise ValueError(f"{path}:{r + 2}: user {user} (column user_id) has no row "
                             f"in test.csv")
        earlier = np.flatnonzero((matched >= 0) & (users == user))
        again = [e for e in earlier if (rec_keys[e] == key).all()]
        if again:
            raise ValueError(f"{path}:{r + 2}: user {user}'s row again (line "
                             f"{again[0] + 2} has these rec_items)")
        raise ValueError(f"{path}:{r + 2}: user {user}'s rec_items are the candidates of "
                         f"none of the user's rows in test.csv (the file must come from a run "
                         f"on this test.csv with --test_all 0)")
    placed = np.empty_like(values)
    np.put_along_axis(placed, test_order[matched],
                      np.take_along_axis(values, rec_order, axis=1), axis=1)
    scores = np.full(items.shape, np.nan)
    scores[matched] = placed
    return scores


def long_format(folder, scores_csv, n_items: int | None = None) -> pd.DataFrame:
    """The long format of a ReChorus run (module docstring): one unit per test row that
    ``scores_csv`` scores, in the order of ``test.csv``, under the law its data were drawn by.

    Parameters
    ----------
    folder : path
        The dataset folder ReChorus read (``train.csv``, ``dev.csv``, ``test.csv``).
    scores_csv : path
        The ``rec-<model>-test.csv`` its ``main.py`` wrote for that dataset.
    n_items : int, optional
        See :func:`read_candidates`.

    Returns
    -------
    pandas.DataFrame
        ``user`` (0.. in test.csv's order), ``user_id``, ``item_id`` (the positive), then
        the columns of :func:`~sampled_metrics.evaluators.from_scores` (``position`` =
        #{candidates with score >= the positive's}, ``evaluator``: ``rechorus`` or
        ``rechorus-replacement``).

    Examples
    --------
    >>> import tempfile
    >>> def write(path, *lines):
    ...     _ = path.write_text("".join("\\t".join(map(str, x)) + "\\n" for x in lines))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = Path(tmp)
    ...     write(folder / "train.csv", ("user_id", "item_id", "time"), (1, 1, 0), (2, 2, 0))
    ...     write(folder / "test.csv", ("user_id", "item_id", "time", "neg_items"),
    ...           (2, 3, 5, [1, 4]), (1, 4, 6, [2, 3]))           # time order
    ...     write(folder / "rec.csv", ("user_id", "rec_items", "rec_predictions"),
    ...           (1, [3, 4, 2], [0.9, 0.5, 0.5]), (2, [3, 1, 4], [0.8, 0.3, 0.1]))
    ...     table = long_format(folder, folder / "rec.csv")
    >>> table[["user_id", "item_id", "position", "n_nonrelevant"]].values.tolist()
    [['2', 3, 1, 2], ['1', 4, 3, 2]]
    """
    rows, items = read_candidates(folder, n_items)
    scores = read_scores(scores_csv, rows, items)
    kept = np.flatnonzero(~np.isnan(scores[:, 0]))
    table = from_scores(scores[kept], rows["n_nonrelevant"].to_numpy()[kept],
                        evaluator=rows.attrs["evaluator"], items=items[kept])
    table.insert(1, "user_id", rows["user_id"].to_numpy()[kept])
    table.insert(2, "item_id", items[kept, 0])
    return table
