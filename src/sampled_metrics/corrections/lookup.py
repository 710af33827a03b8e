"""Correction vectors for many n at once, and their per-user averages.

:func:`correction_lookup` returns the vectors for thousands of distinct n (per-user candidate
counts n_u) by interpolating the moments in log n on a Chebyshev grid whose error is checked
per call (every entry within 1e-6 of the exact per-n vector), and :func:`mean_corrected`
averages M^_{n_u}(r~_u) over users for every repeat.
"""
from __future__ import annotations

import logging

import numpy as np
from threadpoolctl import threadpool_limits

from ..design import Design, check_nm
from ..metrics import parse_metric
from ..parallel import map_items
from ..registry import resolve_name
from .moments import RankLawMoments, rank_law_moments
from .vectors import correction_array, needs_moments, parse_corrections

__all__ = ["N_MODES", "n_for_users", "correction_lookup", "mean_corrected", "LOOKUP_TOL", "GRID_CHECK_TOL",
           "GRID_LEVELS", "LOOKUP_CHUNK", "MEAN_BLOCK_CELLS", "grid_points", "Interpolant"]

log = logging.getLogger(__name__)

#: The n a user's correction uses: ``per_user`` (its own n_u) or ``global`` (|I|).
N_MODES = ("per_user", "global")


def n_for_users(n_u, n_mode: str, n_items: int) -> np.ndarray:
    """The n of each user's correction under ``n_mode`` (:data:`N_MODES`): n_u, or |I| =
    ``n_items`` for every user.

    Examples
    --------
    >>> n_for_users([3000, 3600], "global", 3706).tolist()
    [3706, 3706]
    """
    n_mode = resolve_name("n_mode", n_mode, N_MODES)
    n_u = np.asarray(n_u, dtype=np.int64)
    return np.full_like(n_u, n_items) if n_mode == "global" else n_u


def correction_lookup(metrics, corrections, n_values, m: int, sampling: str = "binomial",
                      processes: int = 1, *, exact: bool = False) -> np.ndarray:
    """Correction vectors for many n at once (uniform prior p(r) = 1/n, as in KDD'20 Sec. 6).

    Parameters
    ----------
    metrics : sequence of str or Metric
        Metric names, e.g. ``'recall@10'``, or Metric objects (any object whose
        ``weights(n)`` gives M(1..n), such as the shifted per-positive terms of
        :mod:`sampled_metrics.multipositive`).
    corrections : sequence
        Correction names (``'cls'``, ``'bv_0.1'``, ...) or (name, gamma) tuples.
    n_values : sequence of int
        The n of each row of the result (any order, repeats allowed; every n > m).
    m : int
    sampling : {'binomial', 'hypergeometric'}
    processes : int
        Worker processes (:func:`sampled_metrics.parallel.map_items`); the result is
        bit-identical whatever their number.
    exact : bool
        Compute every distinct n from its own moments (the reference; slow for many n).

    Returns
    -------
    ndarray of shape (len(n_values), len(metrics), len(corrections), m + 1)
        Entry [j, k, e, s] is M^(s + 1) of metric k and correction e for n = n_values[j].

    Notes
    -----
    ``sampled`` and ``rank_estimate`` are closed forms, evaluated for every n. The
    others solve eq. 21-25 from the moments A^T A, A^T b, c of the rank law, and computing
    those (O(n m^2)) dominates: 0.1-0.3 s at n = 26,744, m = 100 without replacement,
    against 3-7 ms for all the solves of one n. With few distinct n (at most ``2 * GRID_LEVELS[0] +
    1``) or ``exact=True`` every n gets its exact moments, and the result equals
    :func:`correction_vectors` per n bit for bit. Otherwise:

    * Grid. The nodes are the Chebyshev-Lobatto points of [log n_min, log n_max] with N
      intervals, rounded to integers. Every entry of the moments is interpolated in log n
      by the barycentric polynomial through its exact values at the nodes, and every
      distinct n is then solved from its interpolated moments exactly as from exact ones
      (so CLS is still the monotone bounded least-squares solution; only its input is
      interpolated; n that are nodes get their exact vectors).
    * Why it converges. The moments are sums over r = 1..n of products of pmfs that are
      polynomials in r over polynomials in n (hypergeometric) or polynomials in
      (r - 1)/(n - 1) (binomial), weighted by M(r): analytic in n away from n in [0, m] and
      from the negative axis (poles of harmonic-number-like sums for AP, NDCG). In log n,
      the nearest singularities sit log(n_min / m) from the interval or pi off the real
      axis, so polynomial interpolation at Chebyshev points converges geometrically in N,
      the faster the narrower n_max / n_min and the larger n_min / m.
    * Check (a posteriori, per call). The points of 2N intervals interleave those of N:
      at angles (k + 1/2) pi / N, where sin(theta) sin(N theta), the nodal polynomial of
      the N + 1 nodes, peaks, so they are where the interpolation error's leading term is
      largest. For N = GRID_LEVELS[0], GRID_LEVELS[1], ... the corrections at the N
      interleaved points are computed from their exact moments and from the N-interval
      interpolant; the first level whose largest entrywise difference, over all metrics and
      corrections, is at most GRID_CHECK_TOL = LOOKUP_TOL / 10 is accepted, and that
      interpolant gives the lookup (the distinct n among the 2N + 1 exact points get their
      exact vectors). If no level passes (a wide n_max / n_min, or n_min close to m), the
      distinct n are split at sqrt(n_min n_max) and each half is treated the same way; a
      piece too small for a grid (a level would need as many exact points as it has
      distinct n, or rounding to integers merges points) is computed exactly per n.
      (``minimal_bias``, a pseudo-inverse cut at rounding level, is not continuous in the
      moments and would never pass: asking for it computes every n exactly.)
    * Bound. Target: every entry within LOOKUP_TOL = 1e-6 of the exact per-n vector, hence
      every per-user average of them. The check holds the entries to 1e-7 where the
      leading error term peaks, leaving a factor 10 for the rest of each interval (an a
      posteriori argument, not a proof), and the bound is measured by
      ``workflow/benchmarks/bench_corrections.py`` on the ML-20M shape (n 17,491..26,725,
      m = 100, both laws, Table 3's and Jin's metrics x corrections: largest error 2e-12,
      next to the check points) and by the tests.

    The result depends only on the arguments (the grid only on the set of distinct n).
    """
    metric_names = tuple(parse_metric(x) for x in metrics)   # Metric objects (hashable)
    parsed = tuple(parse_corrections(corrections))
    n_all = np.asarray(n_values).reshape(-1)
    if n_all.size and not np.all(np.mod(n_all, 1) == 0):
        raise ValueError("n values must be integers")
    n_all = n_all.astype(np.int64)
    if n_all.size == 0:
        return np.empty((0, len(metric_names), len(parsed), m + 1))
    distinct, inverse = np.unique(n_all, return_inverse=True)
    check_nm(int(distinct[0]), m, sampling)
    args = (metric_names, parsed, m, sampling)
    pseudo_inverse = any(name == "minimal_bias" or (name == "bv" and gamma == 0)
                         for name, gamma in parsed)
    if exact or pseudo_inverse or not needs_moments(parsed):
        table = _exact_arrays(distinct, args, processes)
    else:
        table = _grid_arrays(distinct, args, processes)
    return table[inverse]


#: Largest entrywise error of a lookup computed on the interpolation grid (see
#: :func:`correction_lookup`).
LOOKUP_TOL = 1e-6
#: A grid level is accepted when its a-posteriori check error is at most this.
GRID_CHECK_TOL = LOOKUP_TOL / 10
#: Numbers of Chebyshev intervals tried in turn (each level's nodes contain the previous').
GRID_LEVELS = (8, 16)
#: Distinct n per work item of the per-n stage (work items are striped over processes).
LOOKUP_CHUNK = 64


def _exact_arrays(n_values, args, processes) -> np.ndarray:
    return np.stack(map_items(_exact_one, [int(n) for n in n_values], *args,
                              processes=processes))


def _exact_one(n, metric_names, parsed, m, sampling) -> np.ndarray:
    return _node(n, metric_names, parsed, m, sampling)[1]


def _node(n, metric_names, parsed, m, sampling):
    """(flattened exact moments or None, correction array) for one n, as correction_vectors
    computes them."""
    metric_list = [parse_metric(x) for x in metric_names]
    design = Design(n, m, sampling)
    mom = rank_law_moments(metric_list, design) if needs_moments(parsed) else None
    flat = (None if mom is None else
            np.concatenate([mom.gram.ravel(), mom.atb.ravel(), mom.c, mom.btb]))
    return flat, correction_array(metric_list, design, parsed, mom)


def _unflatten(flat, n, metric_names, m, sampling) -> RankLawMoments:
    size, K = m + 1, len(metric_names)
    a = size * size
    return RankLawMoments(n, m, sampling, tuple(metric_names), flat[:a].reshape(size, size),
                          flat[a:a + size * K].reshape(size, K),
                          flat[a + size * K:a + size * K + size], flat[a + size * K + size:])


def grid_points(n_lo: int, n_hi: int, intervals: int) -> np.ndarray:
    """Integers nearest the Chebyshev-Lobatto points of [log n_lo, log n_hi]."""
    x_lo, x_hi = np.log(n_lo), np.log(n_hi)
    theta = np.pi * (np.arange(intervals + 1) / intervals)
    x = 0.5 * (x_lo + x_hi) + 0.5 * (x_hi - x_lo) * np.cos(theta)
    return np.unique(np.clip(np.rint(np.exp(x)), n_lo, n_hi).astype(np.int64))


class Interpolant:
    """Barycentric polynomial interpolation in log n through exact values at integer nodes."""

    def __init__(self, nodes, values):
        x = np.log(np.asarray(nodes, dtype=np.float64))
        self.centre, self.half = 0.5 * (x.max() + x.min()), 0.5 * (x.max() - x.min())
        self.t = (x - self.centre) / self.half
        diff = self.t[:, None] - self.t[None, :]
        np.fill_diagonal(diff, 1.0)
        w = 1.0 / np.prod(diff, axis=1)
        self.w = w / np.abs(w).max()
        self.values = values      # (nodes, D)

    def __call__(self, n: int) -> np.ndarray:
        d = (np.log(n) - self.centre) / self.half - self.t
        hit = np.flatnonzero(d == 0)
        if hit.size:
            return self.values[hit[0]]
        q = self.w / d
        return (q / q.sum()) @ self.values


def _interpolated(n_chunk, interp, metric_names, parsed, m, sampling) -> np.ndarray:
    """Correction arrays for the n of a chunk, each solved from its interpolated moments."""
    metric_list = [parse_metric(x) for x in metric_names]
    out = np.empty((len(n_chunk), len(metric_list), len(parsed), m + 1))
    for j, n in enumerate(n_chunk):
        mom = _unflatten(interp(int(n)), int(n), metric_names, m, sampling)
        out[j] = correction_array(metric_list, Design(int(n), m, sampling), parsed, mom)
    return out


def _grid_arrays(distinct, args, processes, done=None) -> np.ndarray:
    """Correction arrays for the sorted distinct n (see :func:`correction_lookup`); ``done``
    maps n to (exact flattened moments, exact correction array) already computed."""
    metric_names, parsed, m, sampling = args
    n_lo, n_hi = int(distinct[0]), int(distinct[-1])
    done = {} if done is None else done

    def exact_at(points):
        todo = [int(n) for n in points if int(n) not in done]
        for n, res in zip(todo, map_items(_node, todo, *args, processes=processes)):
            done[n] = res

    for level in GRID_LEVELS:
        nodes, fine = grid_points(n_lo, n_hi, level), grid_points(n_lo, n_hi, 2 * level)
        if fine.size < 2 * level + 1 or fine.size >= distinct.size:
            break   # points collide after rounding, or exact per n is as cheap
        exact_at(fine)
        checks = np.setdiff1d(fine, nodes)
        interp = Interpolant(nodes, np.stack([done[int(n)][0] for n in nodes]))
        got = np.concatenate(map_items(_interpolated, [[n] for n in checks], interp, *args,
                                       processes=processes))
        want = np.stack([done[int(n)][1] for n in checks])
        error = float(np.max(np.abs(got - want)))
        log.info("correction grid for n in %d..%d, m=%d: %d intervals, check error %.3g",
                 n_lo, n_hi, m, level, error)
        log.debug("per metric x correction: %s", np.abs(got - want).max(axis=(0, 3)))
        if error <= GRID_CHECK_TOL:
            rest = np.array([n for n in distinct if int(n) not in done], dtype=np.int64)
            chunks = [rest[i:i + LOOKUP_CHUNK] for i in range(0, rest.size, LOOKUP_CHUNK)]
            for chunk, arr in zip(chunks, map_items(_interpolated, chunks, interp, *args,
                                                     processes=processes)):
                done.update((int(n), (None, a)) for n, a in zip(chunk, arr))
            return np.stack([done[int(n)][1] for n in distinct])
    if distinct.size > 4 * GRID_LEVELS[0] + 2:          # each half can hold a grid
        cut = int(np.searchsorted(distinct, np.sqrt(float(n_lo) * n_hi)))
        log.info("correction grid for n in %d..%d, m=%d: split at %d", n_lo, n_hi, m,
                 distinct[cut])
        return np.concatenate([_grid_arrays(distinct[:cut], args, processes, done),
                               _grid_arrays(distinct[cut:], args, processes, done)])
    log.info("correction grid not used for n in %d..%d, m=%d: exact per n", n_lo, n_hi, m)
    rest = [int(n) for n in distinct if int(n) not in done]
    for n, arr in zip(rest, map_items(_exact_one, rest, *args, processes=processes)):
        done[n] = (None, arr)
    return np.stack([done[int(n)][1] for n in distinct])


def mean_corrected(lookup, n_index, sampled) -> np.ndarray:
    """Per-repeat mean over users of M^_{n_u}(r~_u) for every metric and correction.

    Parameters
    ----------
    lookup : array (J, K, E, m + 1)
        From :func:`correction_lookup`.
    n_index : array (users,) of int
        Row of ``lookup`` of each user's n.
    sampled : array (repeats, users) of int
        Sampled ranks r~ in 1..m+1.

    Returns
    -------
    ndarray (K, E, repeats): (1/U) sum_u lookup[n_index[u], k, e, sampled[t, u] - 1].

    Computed per block of repeats as the histogram of the (n index, r~) cells times the
    lookup (one matrix product), not by gathering U x K x E values per repeat.
    """
    V = np.asarray(lookup, dtype=np.float64)
    if V.ndim != 4:
        raise ValueError(f"lookup must have shape (n values, metrics, corrections, m+1), "
                         f"got {V.shape}")
    J, K, E, size = V.shape
    sampled = np.asarray(sampled)
    idx = np.asarray(n_index).reshape(-1)
    if sampled.ndim != 2 or sampled.shape[1] != idx.size:
        raise ValueError(f"sampled ranks must have shape (repeats, users={idx.size}), got "
                         f"{sampled.shape}")
    if idx.size == 0:
        raise ValueError("no users")
    if idx.min() < 0 or idx.max() >= J:
        raise ValueError(f"n_index must lie in 0..{J - 1}")
    if sampled.size and (sampled.min() < 1 or sampled.max() > size):
        raise ValueError(f"sampled ranks must lie in 1..m+1={size}")
    cells = J * size
    table = V.transpose(0, 3, 1, 2).reshape(cells, K * E)
    base = idx.astype(np.int64) * size - 1
    out = np.empty((sampled.shape[0], K * E))
    step = max(1, MEAN_BLOCK_CELLS // cells)
    with threadpool_limits(1):      # the same sums whatever the machine's BLAS threads
        for a in range(0, sampled.shape[0], step):
            block = sampled[a:a + step].astype(np.int64) + base[None, :]
            block += (np.arange(block.shape[0]) * cells)[:, None]
            counts = np.bincount(block.ravel(), minlength=block.shape[0] * cells)
            out[a:a + step] = counts.reshape(-1, cells).astype(np.float64) @ table
    return (out / idx.size).T.reshape(K, E, -1)


#: Histogram cells per block in :func:`mean_corrected` (32 MB of float64 counts).
MEAN_BLOCK_CELLS = 4_000_000
