"""The per-positive reduction: every metric of a user with several positives is a normaliser
times a sum of one-item terms, each corrected by a one-item correction of its shifted metric
vector (thinned when the sample is large). The formulas: :mod:`sampled_metrics.multipositive`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..corrections.vectors import correction_label, parse_correction, rank_estimate
from ..metrics import Metric, parse_metric
from ..sampling import check_sampling
from .lookup import moment_terms
from .shifted import FIRST_ONLY, ShiftedMetric, shifted_term as _term

__all__ = ["ShiftedMetric", "PositiveTable", "RowError", "correct_multi_positive", "correct_positives",
           "multi_positive_metric", "per_user_metric", "positive_normaliser", "DEFAULT_THIN_TO"]

#: Sample size above which moment-based corrections use the thinned count (module docstring).
DEFAULT_THIN_TO = 100


def _integers(values, what: str) -> np.ndarray:
    """int64 array of integer values; one-line ValueError for bool, NaN or fractions."""
    arr = np.asarray(values)
    if arr.dtype == bool:
        raise ValueError(f"{what} must be integers, got booleans")
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{what} must be integers") from None
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{what} must be integers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{what} must be finite integers, got NaN or inf")
        if not np.all(arr == np.round(arr)):
            raise ValueError(f"{what} must be integers, got non-integral values")
    return arr.astype(np.int64)


class RowError(ValueError):
    """A fault of one input row of :meth:`PositiveTable.from_long`: ``row`` is its index
    (0-based, in input order), so that a reader can name the row's line."""

    def __init__(self, row: int, message: str):
        super().__init__(message)
        self.row = row


@dataclass
class PositiveTable:
    """Positives of U users as flat arrays, sorted by (user, position).

    Attributes
    ----------
    user : int array (P,)
        0-based user index of each positive.
    position : int array (P,)
        1-based position p in the user's list (sampled list, or full ranking for exact).
    above : int array (P,)
        a = positives of the same user above it.
    k, n_nonrelevant, n_negatives : int arrays (U,)
        k_u, N_u, M_u.
    order : int array (P,)
        Row of the input (flattened ``positions``, or long rows) of each sorted positive.
    """

    user: np.ndarray
    position: np.ndarray
    above: np.ndarray
    k: np.ndarray
    n_nonrelevant: np.ndarray
    n_negatives: np.ndarray
    order: np.ndarray

    @classmethod
    def from_lists(cls, positions, n_nonrelevant, n_negatives) -> "PositiveTable":
        """From ``positions[u]`` (a sequence of 1-D sequences, a 1-D array: one positive per
        user, or a 2-D array: users x k) and per-user N_u, M_u."""
        if isinstance(positions, np.ndarray) and positions.ndim in (1, 2):
            pos = positions.reshape(positions.shape[0], -1)
            lengths = np.full(pos.shape[0], pos.shape[1], dtype=np.int64)
            flat = pos.reshape(-1)
        else:
            lists = [np.asarray(p).reshape(-1) for p in positions]
            lengths = np.fromiter((p.size for p in lists), dtype=np.int64, count=len(lists))
            flat = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)
            if flat.dtype == bool:   # concatenate of empty lists gives float; check bools here
                raise ValueError("positions must be integers, got booleans")
        user = np.repeat(np.arange(lengths.size), lengths)
        return cls.from_long(user, flat, n_nonrelevant, n_negatives, dense_users=True)

    @classmethod
    def from_long(cls, user, position, n_nonrelevant, n_negatives, *,
                  dense_users: bool = False, labels=None) -> "PositiveTable":
        """From one row per positive: ``user`` ids (any integers), ``position`` and, per
        row, ``n_nonrelevant``/``n_negatives`` (or per user if ``dense_users``: ``user``
        then indexes 0..U-1 and they are per-user arrays). A fault of one row is a
        :class:`RowError` naming the user, as ``labels[user]`` where ``labels`` are given
        (the ids as written), with the row."""
        position = _integers(position, "positions")
        user = _integers(user, "user ids")

        def who(row: int):
            return user[row] if labels is None else labels[user[row]]
        if user.shape != position.shape or position.ndim != 1:
            raise ValueError("user ids and positions must be 1-D arrays of equal length")
        N = _integers(np.atleast_1d(n_nonrelevant), "n_nonrelevant")
        M = _integers(np.atleast_1d(n_negatives), "n_negatives")
        if dense_users:
            U = N.size
            if M.shape != (U,) or N.ndim != 1:
                raise ValueError(f"n_nonrelevant and n_negatives need one entry per user "
                                 f"({U}), got shapes {N.shape} and {M.shape}")
            ids = user
            if np.bincount(user, minlength=U).min(initial=1) == 0:
                raise ValueError(f"user {int(np.argmin(np.bincount(user, minlength=U)))} "
                                 f"has no positives")
            if user.size and user.max() >= U:
                raise ValueError(f"positions given for {int(user.max()) + 1} users but "
                                 f"n_nonrelevant for {U}")
            rows_N = N[ids] if ids.size else N[:0]
            rows_M = M[ids] if ids.size else M[:0]
        else:
            if N.shape != position.shape or M.shape != position.shape:
                raise ValueError("n_nonrelevant and n_negatives need one entry per row")
            _, ids = np.unique(user, return_inverse=True)
            ids = ids.reshape(-1)
            U = int(ids.max()) + 1 if ids.size else 0
            first = np.zeros(U, dtype=np.int64)
            first[ids[::-1]] = np.arange(ids.size)[::-1]
            differ = (N != N[first][ids]) | (M != M[first][ids])
            if differ.any():
                row = int(np.flatnonzero(differ)[0])
                raise RowError(row, f"user {who(row)}: n_nonrelevant and n_negatives must be "
                                    f"the same on all its rows")
            rows_N, rows_M = N, M
            N, M = N[first], M[first]
        if U == 0:
            raise ValueError("no users")
        for what, values, lo, detail in (("n_nonrelevant", rows_N, 1, ""),
                                         ("n_negatives", rows_M, 1, ": no sampled negatives"),
                                         ("position", position, 1, "")):
            if values.size and values.min() < lo:
                row = int(np.argmin(values))
                raise RowError(row, f"user {who(row)}: {what} {int(values[row])} is not >= "
                                    f"{lo}{detail}")
        order = np.lexsort((position, ids))
        ids, position = ids[order], position[order]
        k = np.bincount(ids, minlength=U)
        start = np.concatenate([[0], np.cumsum(k)[:-1]])
        above = np.arange(ids.size) - start[ids]
        limit = (k + M)[ids]
        if np.any(position > limit):
            j = int(np.flatnonzero(position > limit)[0])
            raise RowError(int(order[j]), f"user {who(order[j])}: position {int(position[j])} "
                                          f"beyond its list of k_u + M_u = {int(limit[j])} "
                                          f"items")
        dup = (ids[1:] == ids[:-1]) & (position[1:] == position[:-1])
        if dup.any():
            j = int(np.flatnonzero(dup)[0]) + 1
            raise RowError(int(order[j]), f"user {who(order[j])}: position "
                                          f"{int(position[j])} given twice")
        return cls(ids, position, above, k, N, M, order)


def positive_normaliser(metric: Metric, k: np.ndarray) -> np.ndarray:
    """Per-user factor of the module table for k positives."""
    k = np.asarray(k, dtype=np.float64)
    if metric.kind in ("precision",) + FIRST_ONLY:
        return np.ones_like(k)
    if metric.kind in ("recall", "auc"):
        return 1.0 / k
    top = k if metric.k is None else np.minimum(k, metric.k)
    if metric.kind == "ap":
        return 1.0 / top
    idcg = np.cumsum(1.0 / np.log2(np.arange(2, int(top.max()) + 2)))
    return 1.0 / idcg[top.astype(np.int64) - 1]


def per_user_metric(table: PositiveTable, metric: Metric, terms: np.ndarray) -> np.ndarray:
    """The metric of each user: the per-positive ``terms`` (one per row of ``table``)
    summed over the user's positives, times the metric's factor for k_u positives (the
    module table)."""
    sums = np.bincount(table.user, weights=terms, minlength=table.k.size)
    return positive_normaliser(metric, table.k) * sums


def multi_positive_metric(metric, positions, n_nonrelevant) -> np.ndarray:
    """Metric of eq. 2-6 per user, the positives at ``positions[u]`` in a list of
    k_u + N_u items (``n_nonrelevant[u]`` = N_u non-relevant ones): the exact metric for
    full-ranking positions, the uncorrected sampled one for sampled positions and N = M."""
    table = PositiveTable.from_lists(positions, n_nonrelevant, n_nonrelevant)
    metric = parse_metric(metric)
    N = table.n_nonrelevant[table.user]
    s = table.position - table.above
    return per_user_metric(table, metric, _term(metric, table.above, s, N + 1))


def correct_multi_positive(metric, positions, n_nonrelevant, n_negatives, correction: str,
                           gamma: float | None = None, sampling: str = "binomial", *,
                           thin_to: int = DEFAULT_THIN_TO, processes: int = 1) -> np.ndarray:
    """Corrected sampled metric of each user with several positives (module docstring).

    Parameters
    ----------
    metric : str or Metric
        ``recall@K``, ``precision@K``, ``ndcg@K``, ``ndcg``, ``ap@K``, ``ap``, ``auc``.
    positions : sequence of 1-D int sequences, or int array (U,) or (U, k)
        ``positions[u]``: 1-based positions of user u's positives in its sampled list of
        k_u + M_u items, any order.
    n_nonrelevant : int array (U,)
        N_u, items in neither the user's training nor test set (the pool of negatives).
    n_negatives : int array (U,)
        M_u >= 1, sampled negatives in the user's list in total.
    correction : str
        As for :func:`sampled_metrics.corrections.correction`: ``sampled`` (uncorrected),
        ``rank_estimate``, ``minimal_bias``, ``cls``, ``bv`` (with ``gamma``) or
        ``bv_<gamma>``.
    gamma : float, optional
    sampling : {'binomial', 'hypergeometric'}
        Law of y_i | x_i (:func:`sampled_metrics.multipositive.laws.correction_sampling`):
        binomial for draws with replacement, per user or per positive (RecBole uniXXX);
        hypergeometric for M distinct negatives per user.
    thin_to : int
        Moment-based corrections for M_u > thin_to use the thinned count (module docstring).
    processes : int
        Worker processes of :func:`sampled_metrics.corrections.correction_lookup`.

    Returns
    -------
    ndarray (U,)
        normaliser(k_u) sum_i M^_{W_{a_i}; N_u + 1, M_u}(p_i - a_i). With one positive per
        user (and M_u <= thin_to) it equals
        ``apply_correction(correction(metric, N_u + 1, M_u, correction), p_u)``.
    """
    table = PositiveTable.from_lists(positions, n_nonrelevant, n_negatives)
    label = correction_label(correction, gamma)
    metric = parse_metric(metric)
    return correct_positives(table, [metric], [label], sampling, thin_to=thin_to,
                             processes=processes)[(metric.name, label)]


def correct_positives(table: PositiveTable, metrics, corrections, sampling: str = "binomial",
                      *, thin_to: int = DEFAULT_THIN_TO, processes: int = 1) -> dict:
    """Every metric x correction for a :class:`PositiveTable`, sharing the correction
    lookups.

    Returns a dict {(metric name, correction label): per-user values (U,)}.
    """
    sampling = check_sampling(sampling)
    if isinstance(thin_to, bool) or int(thin_to) != thin_to or thin_to < 1:
        raise ValueError(f"thin_to must be a positive integer, got {thin_to!r}")
    metrics = [parse_metric(x) for x in metrics]
    parsed = [parse_correction(x) if isinstance(x, str) else parse_correction(*x)
              for x in corrections]
    labels = [correction_label(*p) for p in parsed]
    N, M = table.n_nonrelevant[table.user], table.n_negatives[table.user]
    if sampling == "hypergeometric" and np.any(table.n_negatives > table.n_nonrelevant):
        u = int(np.flatnonzero(table.n_negatives > table.n_nonrelevant)[0])
        raise ValueError(f"user {u}: M_u = {int(table.n_negatives[u])} distinct negatives "
                         f"(hypergeometric) from only N_u = {int(table.n_nonrelevant[u])}")
    s = table.position - table.above                    # r~ = 1 + y in 1..M+1
    out = {}
    for metric in metrics:
        for (name, _), label in zip(parsed, labels):
            if name == "sampled":
                terms = _term(metric, table.above, s, M + 1)
            elif name == "rank_estimate":     # eq. 20 with n = N + 1, m = M
                terms = _term(metric, table.above, rank_estimate(s, N + 1, M), N + 1)
            else:
                continue
            out[(metric.name, label)] = per_user_metric(table, metric, terms)
    moment = [(p, label) for p, label in zip(parsed, labels) if p[0] not in
              ("sampled", "rank_estimate")]
    if moment:
        terms = moment_terms(table, metrics, [p for p, _ in moment], s, N, M, sampling,
                              int(thin_to), processes)
        for k, metric in enumerate(metrics):
            for e, (_, label) in enumerate(moment):
                out[(metric.name, label)] = per_user_metric(table, metric, terms[k, e])
    return out
