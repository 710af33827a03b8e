"""The candidates of NCF's own evaluation (He et al. 2017), read from its data files, for
:func:`~sampled_metrics.evaluators.scores.from_scores` with evaluator ``ncf``.

NCF's ``evaluate.py`` ranks each user's test item (``<prefix>.test.rating``) among the 99
items of its line of ``<prefix>.test.negative``, appended last. The file was drawn from the
items outside the user's training set, so a line can hold the test item itself (156 of the
6,040 lines of NCF's ML-1M); NCF's scores go into a dict keyed by item, so such a line ranks
the positive among 98 negatives, which ``from_scores`` counts so.

    from sampled_metrics.integrations.ncf import candidates
    found = candidates("Data", "ml-1m")
    # scores[r] = NCF's predictions of found.items[r] (the positive last, as evaluate.py)
    table = from_scores(scores, found.n_nonrelevant, evaluator="ncf", items=found.items,
                        positive=found.items.shape[1] - 1)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..datasets.ncf import read_ncf

__all__ = ["NCFCandidates", "candidates"]


@dataclass
class NCFCandidates:
    """Per test user: its id, its candidates (the line's negatives, then the test item) and
    N_u, the items outside its training set but the test item; ``self_lines`` are the users
    whose line holds their own test item."""

    users: np.ndarray
    items: np.ndarray
    n_nonrelevant: np.ndarray
    self_lines: np.ndarray


def candidates(path, prefix: str) -> NCFCandidates:
    """The candidates NCF's ``evaluate.py`` scores, from directory or zip ``path`` holding
    ``<prefix>.train.rating``, ``.test.rating`` and ``.test.negative``."""
    split, negatives = read_ncf(path, prefix)
    if negatives is None:
        raise ValueError(f"{path}: no {prefix}.test.negative: NCF's evaluation has no fixed "
                         f"negatives to correct")
    items = np.c_[negatives, split.test_items]
    n_items = split.train.shape[1]
    n_nonrelevant = n_items - np.diff(split.train.indptr)[split.users] - 1
    own = (negatives == split.test_items[:, None]).any(axis=1)
    return NCFCandidates(split.users, items, n_nonrelevant, split.users[own])
