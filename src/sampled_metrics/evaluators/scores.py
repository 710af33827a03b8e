"""From the scores matrix an evaluator ranks to the long format the corrections read.

Nearly every codebase that evaluates on sampled negatives holds, for each test row, the
positive's score and the scores of the m negatives drawn for it (and the candidates' item
ids). :func:`from_scores` turns them into one long-format row (``user, position,
n_nonrelevant, n_negatives, evaluator``) whose law is the project's ``binomial`` or ``hypergeometric``
(:attr:`~sampled_metrics.evaluators.catalogue.Evaluator.sampling`):

- a self-draw (the positive drawn as its own negative, where the evaluator's pool holds it)
  is dropped: given the self-draws, the other draws are uniform over the N non-relevant
  items (:mod:`.law`), so the row has m - S negatives;
- where the evaluator collapses duplicates, the row has the D distinct negatives, a uniform
  D-subset of the pool given D;
- a negative with the positive's score goes above it, below it, or at a uniformly random
  place among the tied, by the evaluator's tie rule (``random`` is seeded).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..checks import check_integer, check_ranks
from ..seeds import generator
from .catalogue import correctable_evaluator

__all__ = ["from_scores", "first_occurrences"]


def first_occurrences(items: np.ndarray) -> np.ndarray:
    """Mask of each row's first occurrence of every item id (a 2-d array of ids)."""
    order = np.argsort(items, axis=1, kind="stable")
    ordered = np.take_along_axis(items, order, axis=1)
    first = np.ones_like(ordered, dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    mask = np.empty_like(first)
    np.put_along_axis(mask, order, first, axis=1)
    return mask


def from_scores(scores, n_nonrelevant, *, evaluator, positive: int = 0, items=None,
                users=None, seed: int = 0) -> pd.DataFrame:
    """The long format of a sampled evaluation from its scores (module docstring).

    Parameters
    ----------
    scores : array_like of float, shape (rows, 1 + m)
        Each test row's candidates as the evaluator scored them: the positive (column
        ``positive``) and its m drawn negatives, duplicates and self-draws as drawn.
    n_nonrelevant : int or array_like of int
        N per row: the non-relevant items of the pool the negatives come from (the pool
        without the positive; SASRec: the items outside the training sequence, minus one).
    evaluator : str or Evaluator
        The catalogue's entry (``sampled-metrics evaluators``).
    positive : int
        The positive's column.
    items : array_like of int, shape (rows, 1 + m), optional
        The candidates' item ids; needed where the evaluator can draw the positive itself
        or collapses duplicates.
    users : array_like, optional
        A label per row (default 0..rows - 1); rows are the evaluator's unit.
    seed : int
        Seed of the places of random ties.

    Returns
    -------
    pandas.DataFrame
        ``user, position, n_nonrelevant, n_negatives, evaluator`` (the evaluator's name on
        every row, so that it survives ``to_csv`` and ``correct`` reads it); ``attrs``
        holds ``evaluator`` and ``sampling``.

    Examples
    --------
    >>> scores = np.array([[0.9, 0.1, 0.9, 0.95], [0.5, 0.7, 0.2, 0.1]])
    >>> items = np.array([[7, 3, 7, 4], [8, 1, 2, 5]])  # row 0 drew its positive (7) once
    >>> table = from_scores(scores, 3000, evaluator="sasrec", items=items)
    >>> table[["position", "n_negatives"]].values.tolist()
    [[2, 2], [2, 3]]
    >>> table.attrs["sampling"]
    'binomial'
    """
    e = correctable_evaluator(evaluator)
    try:
        scores = np.asarray(scores, dtype=np.float64)
    except (ValueError, TypeError):
        raise ValueError("scores must be numbers in an array of one shape, (rows, 1 + m)"
                         ) from None
    if scores.ndim != 2 or scores.shape[0] < 1 or scores.shape[1] < 2:
        raise ValueError(f"scores must be (rows, 1 + m) with rows >= 1 and m >= 1, got shape "
                         f"{scores.shape}")
    if not np.isfinite(scores).all():
        raise ValueError("scores must be finite (found NaN or infinity)")
    rows, width = scores.shape
    positive = check_integer("positive", positive)
    if not 0 <= positive < width:
        raise ValueError(f"positive column {positive} outside 0..{width - 1}")
    N = check_ranks("n_nonrelevant", n_nonrelevant, 1)
    if N.ndim > 1 or N.size not in (1, rows):
        raise ValueError(f"n_nonrelevant must be one number or one per row ({rows} rows), got "
                         f"shape {N.shape}")
    N = np.broadcast_to(N.reshape(-1), (rows,)).astype(np.int64)
    if users is not None and np.shape(users) != (rows,):
        raise ValueError(f"users must give one label per row ({rows} rows), got "
                         f"{np.size(users)}")
    if users is not None:
        labels = pd.Series(list(users), dtype=object)      # NaN kept, not made 'nan'
        blank = (labels.isna() | (labels.astype(str).str.strip() == "")).to_numpy()
        if blank.any():
            raise ValueError(f"users: row {int(np.argmax(blank))} has no label "
                             f"({str(labels.iloc[int(np.argmax(blank))])!r})")
        users = np.asarray(users)

    def first(mask) -> str:
        """The first row of ``mask`` (rows x anything) as messages name it."""
        j = int(np.flatnonzero(np.asarray(mask).reshape(rows, -1).any(axis=1))[0])
        return f"the first: row {j}" + ("" if users is None else f", user {users[j]}")
    negatives = np.delete(np.arange(width), positive)
    pos = scores[:, positive]
    neg = scores[:, negatives]
    valid = np.ones(neg.shape, dtype=bool)
    needs_items = e.self_draw != "never" or e.duplicates == "collapsed"
    if items is None and needs_items:
        what = ("draw the positive itself" if e.self_draw != "never" else
                "collapse duplicate negatives")
        raise ValueError(f"evaluator {e.name!r} can {what}: give items (the candidates' item "
                         f"ids, shape {scores.shape})")
    if items is not None:
        items = np.asarray(items)
        if items.shape != scores.shape:
            raise ValueError(f"items must have the shape of scores {scores.shape}, got "
                             f"{items.shape}")
        missing = pd.isna(items)
        if missing.any():
            raise ValueError(f"items must be item ids, found {str(items[missing][0])!r} "
                             f"({first(missing)})")
        own = items[:, negatives] == items[:, [positive]]
        if own.any() and e.self_draw == "never":
            raise ValueError(f"{int(own.any(axis=1).sum())} rows hold their positive among "
                             f"the negatives, which evaluator {e.name!r} never draws "
                             f"({first(own)})")
        valid &= ~own
        if e.duplicates == "collapsed":
            valid &= first_occurrences(items[:, negatives])
        elif e.duplicates == "none":
            dup = ~first_occurrences(items[:, negatives]) & valid
            if dup.any():
                raise ValueError(f"{int(dup.any(axis=1).sum())} rows repeat a negative, "
                                 f"which evaluator {e.name!r} draws without replacement "
                                 f"({first(dup)})")
    above = ((neg > pos[:, None]) & valid).sum(axis=1)
    tied = ((neg == pos[:, None]) & valid).sum(axis=1)
    if e.ties == "pessimistic":
        above = above + tied
    elif e.ties == "random":
        above = above + np.floor(generator(seed, "ties", e.name).random(rows)
                                 * (tied + 1)).astype(np.int64)
    m_row = valid.sum(axis=1)
    if (m_row > N).any() and e.sampling == "hypergeometric":
        raise ValueError(f"{int((m_row > N).sum())} rows have more distinct negatives than "
                         f"n_nonrelevant ({first(m_row > N)})")
    table = pd.DataFrame({"user": np.arange(rows) if users is None else np.asarray(users),
                          "position": 1 + above, "n_nonrelevant": N, "n_negatives": m_row,
                          "evaluator": e.name})
    again = table["user"].duplicated().to_numpy()
    if again.any():
        j = int(np.argmax(again))
        raise ValueError(f"users must label each row once (rows are the evaluator's unit): "
                         f"row {j} repeats user {table['user'].iloc[j]}")
    table.attrs.update(evaluator=e.name, sampling=e.sampling)
    return table
