"""Corrected metrics from DaisyRec's own sampled evaluation (DaisyRec 2.x).

Two lines around DaisyRec's test step::

    from sampled_metrics.integrations.daisyrec import capture
    record = capture(model, test_ur, total_train_ur, config["item_num"])  # before rank
    preds = model.rank(test_loader)                  # DaisyRec's own ranking, unchanged
    results = calc_ranking_results(test_ur, preds, test_u, config)
    print(record.correct(["recall@10", "ndcg@10"]))

What DaisyRec does (``daisy/utils/utils.py`` ``build_candidates_set``, evaluator
``daisyrec`` of :mod:`sampled_metrics.evaluators`): for a user with k test positives it draws
``cand_num`` - k negatives uniformly *with replacement* from the items in neither its
training nor its test set (the N_u of the long format) and appends the positives; every
candidate is scored, a duplicate as often as drawn. ``model.rank`` sorts them and keeps the
top ``topk``.

:func:`capture` wraps ``model.rank``: it runs DaisyRec's own ranking once with the whole
candidate list kept instead of the top ``topk`` (the same sort, so the first ``topk`` are
exactly those DaisyRec returns, and returns them), and records each positive's position in
DaisyRec's order. :meth:`DaisyRecRecord.daisyrec_metrics` recomputes DaisyRec's metrics, as
its ``daisy/utils/metrics.py`` defines them, from those positions;
:meth:`DaisyRecRecord.correct` corrects them under DaisyRec's law.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..checks import check_integer
from ..intervals import DEFAULT_CORRECTIONS, correct_positions

__all__ = ["capture", "DaisyRecRecord"]

#: the ``topk`` the wrapped ranking runs with: every candidate kept
_ALL = 1 << 40


class DaisyRecRecord:
    """What DaisyRec ranked: per test positive, its user and its position among the
    user's candidates (filled by the ranking :func:`capture` wraps)."""

    def __init__(self, test_ur, train_ur, item_num: int):
        for name, value in (("test_ur", test_ur), ("train_ur", train_ur)):
            if not isinstance(value, Mapping):
                raise ValueError(f"{name} must map each user to its items (DaisyRec's dict), "
                                 f"got {type(value).__name__}")
        self.test_ur, self.train_ur = test_ur, train_ur
        self.item_num = check_integer("item_num", item_num, 1)
        self.rows: list[tuple] = []
        self._ranked: set[int] = set()

    def _add(self, users, candidates, ranked) -> None:
        for u, cands, order in zip(users, candidates, ranked):
            u = check_integer("DaisyRec user", u)
            if u not in self.test_ur:
                raise ValueError(f"DaisyRec user {u} is in the test loader but not in test_ur "
                                 f"(capture needs the test_ur its candidates were built from)")
            if u in self._ranked:
                raise ValueError(f"DaisyRec user {u} ranked twice (model.rank ran again after "
                                 f"capture: capture anew for another evaluation)")
            self._ranked.add(u)
            positives = _items(self.test_ur[u], u, "test item")
            order = np.asarray(order, dtype=np.int64)
            if len(cands) <= len(positives):
                raise ValueError(f"DaisyRec user {u} has {len(positives)} test items and "
                                 f"{len(cands)} candidates: no negatives (cand_num too small)")
            outside = np.asarray(cands)[(np.asarray(cands) < 0) |
                                        (np.asarray(cands) >= self.item_num)]
            if outside.size:
                raise ValueError(f"DaisyRec user {u}: candidate {outside[0]} outside "
                                 f"0..item_num - 1 = {self.item_num - 1}")
            seen = _items(self.train_ur.get(u, ()), u, "training item") | positives
            if len(seen) >= self.item_num:
                raise ValueError(f"DaisyRec user {u}: its {len(seen)} training and test items "
                                 f"leave none of item_num = {self.item_num} to draw from")
            for item in sorted(positives):
                at = np.flatnonzero(order == item)
                if at.size == 0:
                    raise ValueError(f"DaisyRec user {u}: test item {item} is not among its "
                                     f"ranked candidates")
                self.rows.append((u, int(at[0]) + 1, self.item_num - len(seen),
                                  len(cands) - len(positives)))

    def positions(self) -> pd.DataFrame:
        """The long format (``user, position, n_nonrelevant, n_negatives, evaluator``), one
        row per test positive, evaluator ``daisyrec``."""
        if not self.rows:
            raise ValueError("nothing recorded: call model.rank(test_loader) after capture")
        table = pd.DataFrame(self.rows, columns=["user", "position", "n_nonrelevant",
                                                 "n_negatives"])
        table["evaluator"] = table.attrs["evaluator"] = "daisyrec"
        return table

    def daisyrec_metrics(self, k: int) -> dict:
        """DaisyRec's own metrics at cut-off k, from the recorded positions, as its
        ``daisy/utils/metrics.py`` computes them (means over users):

        - ``hit``: 1 if any positive is in the top k;
        - ``recall``: hits / positives; ``precision``: hits / k;
        - ``mrr``: 1 / position of the first hit (0 without one);
        - ``ndcg``: sum over hits of 1 / log2(p + 1), divided by the same sum over positions
          1..hits (the ideal list of the hits found, not of all positives).
        """
        k = check_integer("k", k, 1)
        table = self.positions()
        out = {"hit": [], "recall": [], "precision": [], "mrr": [], "ndcg": []}
        for _, group in table.groupby("user", sort=False):
            hits = np.sort(group.position.to_numpy()[group.position.to_numpy() <= k])
            width = min(k, int(group.n_negatives.iloc[0]) + len(group))
            out["hit"].append(float(hits.size > 0))
            out["recall"].append(hits.size / len(group))
            out["precision"].append(hits.size / width)
            out["mrr"].append(1.0 / hits[0] if hits.size else 0.0)
            ideal = (1.0 / np.log2(np.arange(2, hits.size + 2))).sum()
            out["ndcg"].append((1.0 / np.log2(hits + 1)).sum() / ideal if hits.size else 0.0)
        return {name: float(np.mean(values)) for name, values in out.items()}

    def correct(self, metrics, corrections=DEFAULT_CORRECTIONS, **options) -> pd.DataFrame:
        """:func:`~sampled_metrics.intervals.correct_positions` of the recorded positions
        under DaisyRec's law (the recommended row first; another ``evaluator`` is
        refused)."""
        options.setdefault("evaluator", "daisyrec")
        return correct_positions(self.positions(), metrics, corrections, **options)


def _items(items, user: int, what: str) -> set[int]:
    """A user's items of ``test_ur`` or ``train_ur`` as ints; ValueError naming the user and
    the first that is no item id."""
    out = set()
    for item in items:
        try:
            out.add(check_integer(what, item, 0))
        except ValueError:
            raise ValueError(f"DaisyRec user {user}: {what} {item!r} is not an item id "
                             f"(an integer >= 0)") from None
    return out


def capture(model, test_ur, train_ur, item_num: int) -> DaisyRecRecord:
    """Wrap ``model.rank`` so that DaisyRec's ranking of its sampled candidates is recorded.

    Parameters
    ----------
    model : a DaisyRec recommender (with ``rank(test_loader)`` and ``topk``)
    test_ur, train_ur : mapping user -> items
        The test items and the training items DaisyRec's ``build_candidates_set`` was given.
    item_num : int
        ``config['item_num']``.

    Returns
    -------
    DaisyRecRecord
        Filled by every later ``model.rank(test_loader)``, which returns what it returned
        before.
    """
    for attribute in ("rank", "topk"):
        if not hasattr(model, attribute):
            raise ValueError(f"capture needs a DaisyRec recommender; {type(model).__name__} "
                             f"has no {attribute!r}")
    record = DaisyRecRecord(test_ur, train_ur, item_num)
    original = model.rank

    def rank(test_loader):
        users, candidates = [], []

        def batches():
            for us, cands in test_loader:
                users.extend(np.asarray(us).reshape(-1).tolist())
                candidates.extend(np.asarray(cands))
                yield us, cands

        topk = model.topk
        model.topk = _ALL
        try:
            ranked = original(batches())
        finally:
            model.topk = topk
        ranked = np.asarray(ranked.cpu() if hasattr(ranked, "cpu") else ranked)
        if ranked.ndim != 2 or len(ranked) != len(users):
            raise ValueError(f"DaisyRec's rank returned shape {ranked.shape} for "
                             f"{len(users)} users of the test loader, expected (users, "
                             f"candidates)")
        record._add(users, candidates, ranked.astype(np.int64))
        return ranked[:, :topk]

    model.rank = rank
    return record
