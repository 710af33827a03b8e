"""Fast per-positive moment-based corrections (CLS, BV, minimal bias) for many users.

:func:`moment_terms` gives, for every positive of a
:class:`~sampled_metrics.multipositive.PositiveTable`, M^_{W_a; N + 1, m'}(r~) for each
metric and correction: positives are grouped by the sample size m' the corrections use
(M_u, or the thinned ``thin_to``), each group's shifted metric columns (one per a < K) are
corrected for all its distinct n = N_u + 1 at once by :class:`VectorTable`, and the
thinning kernel (module docstring of :mod:`sampled_metrics.multipositive`) is applied.
"""
from __future__ import annotations

import numpy as np

from ..corrections.lookup import (GRID_CHECK_TOL, GRID_LEVELS, Interpolant, correction_lookup,
                                  grid_points)
from ..sampling import log_rank_pmf
from .shifted import FIRST_ONLY, ShiftedMetric

__all__ = ["VectorTable", "moment_terms"]

#: Positives per block when gathering correction vectors (memory ~ block x (m' + 1) x E).
GATHER_BLOCK = 50_000


class VectorTable:
    """Correction vectors of several metric columns for many distinct n at one m.

    The shifted columns of several positives multiply the vectors to solve per n (31 for
    recall@10, ndcg@10, ap@10 and auc), so rather than solving every distinct n from
    interpolated moments (:func:`~sampled_metrics.corrections.correction_lookup`), the
    correction *vectors* are interpolated in log n: exact vectors at the Chebyshev-Lobatto
    points of N intervals (N in ``GRID_LEVELS``) and, as the check, at the N interleaved
    points of 2N intervals, which must agree with the N-interval interpolant within
    ``GRID_CHECK_TOL`` = 1e-7 entrywise; the interpolant through all 2N + 1 exact points is
    then used. (Were CLS's active set to change between nodes, its kink in n would fail the
    check.) If no level passes, or for few distinct n, the vectors are
    ``correction_lookup``'s. Measured: every level-8 check on ML-20M-shaped n
    (17,492..26,726, m = 100, recall/ndcg/ap@10 shifts 0..9 and auc x CLS, BV 0.1) within
    3e-14.

    ``column(c)`` is an array (distinct n, corrections, m + 1) for metric column c; ``index``
    maps each requested n to its row.
    """

    def __init__(self, metrics, parsed, n_values, m: int, sampling: str, processes: int = 1):
        self.distinct, self.index = np.unique(np.asarray(n_values, dtype=np.int64),
                                              return_inverse=True)
        self.weights, self.values = None, None
        if self.distinct.size > 4 * GRID_LEVELS[0] + 2:
            self._try_grid(metrics, parsed, m, sampling, processes)
        if self.values is None:
            self.values = correction_lookup(metrics, parsed, self.distinct, m, sampling,
                                            processes)

    def _try_grid(self, metrics, parsed, m, sampling, processes) -> None:
        lo, hi = int(self.distinct[0]), int(self.distinct[-1])
        for level in GRID_LEVELS:
            nodes, fine = grid_points(lo, hi, level), grid_points(lo, hi, 2 * level)
            if fine.size < 2 * level + 1 or fine.size >= self.distinct.size // 2:
                return
            exact = correction_lookup(metrics, parsed, fine, m, sampling, processes,
                                      exact=True)
            at = {int(n): i for i, n in enumerate(fine)}
            flat = exact.reshape(fine.size, -1)
            coarse = Interpolant(nodes, flat[[at[int(n)] for n in nodes]])
            error = max(float(np.max(np.abs(coarse(int(n)) - flat[at[int(n)]])))
                        for n in np.setdiff1d(fine, nodes))
            if error <= GRID_CHECK_TOL:
                self.weights = _barycentric_matrix(Interpolant(fine, flat), self.distinct)
                self.values = exact                                   # (nodes, C, E, m+1)
                return

    def column(self, c: int) -> np.ndarray:
        if self.weights is None:
            return self.values[:, c]
        nodes = self.values[:, c]
        return (self.weights @ nodes.reshape(nodes.shape[0], -1)).reshape(
            (self.distinct.size,) + nodes.shape[1:])


#: VectorTables of recent calls: repeats of one study share (N_u, M_u) and shifts, so they
#: reuse the vectors (the key holds every input of the table).
_TABLES: dict = {}
CACHE_TABLES = 8


def _cached_table(shifted, parsed, n_values, m, sampling, processes) -> VectorTable:
    n_values = np.asarray(n_values, dtype=np.int64)
    key = (tuple(shifted), tuple(parsed), n_values.tobytes(), m, sampling)
    if key not in _TABLES:
        if len(_TABLES) >= CACHE_TABLES:
            _TABLES.pop(next(iter(_TABLES)))
        _TABLES[key] = VectorTable(shifted, parsed, n_values, m, sampling, processes)
    return _TABLES[key]


def _barycentric_matrix(interp: Interpolant, n_values) -> np.ndarray:
    """(len(n_values), nodes): row j holds the weights with which ``interp`` combines its
    node values at n_values[j] (one-hot at a node)."""
    d = (np.log(np.asarray(n_values, dtype=np.float64))[:, None] - interp.centre) \
        / interp.half - interp.t[None, :]
    hit = d == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        q = interp.w[None, :] / d
    q = np.where(hit.any(axis=1, keepdims=True), hit.astype(np.float64), q)
    return q / q.sum(axis=1, keepdims=True)


def shift_columns(metrics, above) -> tuple[list, list]:
    """The ShiftedMetric columns needed and, per metric, each positive's column (-1 where
    the term is 0 because a >= K)."""
    shifted, cols, index = [], [], {}
    for metric in metrics:
        a = np.zeros_like(above) if metric.kind == "auc" else above
        col = np.full(above.size, -1, dtype=np.int64)
        for shift in np.unique(a):
            if (metric.k is not None and metric.kind != "auc" and shift >= metric.k) or (
                    metric.kind in FIRST_ONLY and shift > 0):
                continue
            key = ShiftedMetric(metric.kind, metric.k, int(shift))
            if key not in index:
                index[key] = len(shifted)
                shifted.append(key)
            col[a == shift] = index[key]
        cols.append(col)
    return shifted, cols


def thinning_kernel(y, M, mq: int) -> np.ndarray:
    """(p, mq + 1): Hypergeom(t; M, y, mq) for t = 0..mq, the count above the positive among
    a uniform mq-subset of its M draws (computed once per distinct (M, y))."""
    pairs, inverse = np.unique(np.stack([M, y]), axis=1, return_inverse=True)
    kernel = np.exp(log_rank_pmf((pairs[1] + 1)[:, None], np.arange(mq + 1),
                                 (pairs[0] + 1)[:, None], mq, "hypergeometric"))
    return kernel, inverse.reshape(-1)


def moment_terms(table, metrics, parsed, s, N, M, sampling, thin_to, processes) -> np.ndarray:
    """Per-positive corrected terms (K, E, P) of the moment-based corrections ``parsed``
    (module docstring); s = sampled rank 1 + y, N and M per positive."""
    terms = np.zeros((len(metrics), len(parsed), s.size))
    m_eff = np.minimum(M, thin_to)
    if sampling == "binomial":        # n = N + 1 > m needed; thinning to m' <= N is exact
        m_eff = np.minimum(m_eff, N)
    for mq in np.unique(m_eff):
        sel = np.flatnonzero(m_eff == mq)
        shifted, cols = shift_columns(metrics, table.above[sel])
        if not shifted:
            continue
        vectors = _cached_table(shifted, parsed, N[sel] + 1, int(mq), sampling, processes)
        thin = M[sel] > mq
        kernel, kid = thinning_kernel(s[sel][thin] - 1, M[sel][thin], int(mq)) \
            if thin.any() else (None, None)
        thin_pos = np.cumsum(thin) - 1            # row of a thinned positive in kid
        owner = {}
        for k, col in enumerate(cols):
            for c in np.unique(col[col >= 0]):
                owner[int(c)] = k
        for c, k in owner.items():
            rows = np.flatnonzero(cols[k] == c)
            vec = vectors.column(c)                                  # (J, E, mq + 1)
            for lo in range(0, rows.size, GATHER_BLOCK):
                r = rows[lo:lo + GATHER_BLOCK]
                n_row = vectors.index[r]
                out = np.empty((r.size, len(parsed)))
                plain = ~thin[r]
                out[plain] = vec[n_row[plain], :, s[sel][r[plain]] - 1]
                if (~plain).any():
                    rt = r[~plain]
                    out[~plain] = np.einsum("pet,pt->pe", vec[vectors.index[rt]],
                                            kernel[kid[thin_pos[rt]]])
                terms[k, :, sel[r]] = out
    return terms
