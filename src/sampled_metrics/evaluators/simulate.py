"""An evaluator's sampled evaluation, simulated for users whose full ranks are known.

User u has x_u non-relevant items above its positive among N_u (its full rank is x_u + 1).
Items are numbered so that 1..x_u are those above and x_u + 1..N_u those below; item 0 is
the positive. :func:`simulate_candidates` draws each user's candidates as the evaluator does
(its pool, with or without replacement, self-draws), with scores that order them as the full
ranking does; :func:`reported_ranks` is the rank the evaluator itself would print.
"""
from __future__ import annotations

import numpy as np

from .catalogue import correctable_evaluator, get_evaluator
from .scores import first_occurrences

__all__ = ["simulate_candidates", "reported_ranks"]


def _distinct(rng, pool: np.ndarray, m: int) -> np.ndarray:
    """m distinct uniform indices in 0..pool_u - 1 per row (Floyd's algorithm, by rows)."""
    rows = pool.size
    out = np.empty((rows, m), dtype=np.int64)
    for j, top in enumerate(range(m, 0, -1)):
        # the j-th pick: uniform in 0..pool - top, bumped to pool - top if taken
        pick = np.floor(rng.random(rows) * (pool - top + 1)).astype(np.int64)
        taken = (out[:, :j] == pick[:, None]).any(axis=1) if j else np.zeros(rows, bool)
        out[:, j] = np.where(taken, pool - top, pick)
    return out


def simulate_candidates(evaluator, x, n_nonrelevant, rng, m: int | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Scores and item ids (rows, 1 + m) of the evaluator's candidates, the positive first.

    Parameters
    ----------
    evaluator : str or Evaluator
    x, n_nonrelevant : array_like of int
        Per user, the non-relevant items above the positive and N_u.
    rng : numpy.random.Generator
    m : int, optional
        Negatives; default the evaluator's own number.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> scores, items = simulate_candidates("elliot", [0, 5], [300, 300], rng, m=4)
    >>> scores.shape, bool((items[:, 0] == 0).all())
    ((2, 5), True)
    """
    e = correctable_evaluator(evaluator)
    m = e.negatives if m is None else int(m)
    x = np.asarray(x, dtype=np.int64)
    N = np.broadcast_to(np.asarray(n_nonrelevant, dtype=np.int64), x.shape)
    pool = N + (e.self_draw != "never")            # the positive is item 0 of the pool
    offset = 0 if e.self_draw != "never" else 1     # ids 0..N or 1..N
    if e.draws == "with_replacement":
        ids = np.floor(rng.random((x.size, m)) * pool[:, None]).astype(np.int64) + offset
    else:
        if (m > pool).any():
            raise ValueError(f"{e.name} draws {m} distinct negatives from pools as small as "
                             f"{int(pool.min())}")
        ids = _distinct(rng, pool, m) + offset
    items = np.c_[np.zeros(x.size, dtype=np.int64), ids]
    scores = np.where(items == 0, -(x[:, None] + 0.5), -items.astype(float))
    return scores, items


def reported_ranks(evaluator, scores, items, rng) -> np.ndarray:
    """The rank the evaluator prints for each row (positive in column 0): 1 + the negatives
    above it, duplicates counted or collapsed as it does, its self-draws tied by its rule or
    merged, and ties among distinct items by its rule (``random``: a uniform place)."""
    e = get_evaluator(evaluator)
    scores, items = np.asarray(scores), np.asarray(items)
    pos, neg, ids = scores[:, :1], scores[:, 1:], items[:, 1:]
    keep = (first_occurrences(ids) if e.duplicates == "collapsed" or e.self_draw == "merged"
            else np.ones(ids.shape, dtype=bool))
    if e.self_draw == "merged":
        keep &= ids != items[:, :1]
    above = ((neg > pos) & keep).sum(axis=1)
    tied = ((neg == pos) & keep).sum(axis=1)
    if e.ties == "pessimistic":
        return 1 + above + tied
    if e.ties == "optimistic":
        return 1 + above
    return 1 + above + np.floor(rng.random(above.size) * (tied + 1)).astype(np.int64)
