"""Rank distributions P(r) as mixtures of atoms, simple laws on ranges of ranks, and each
atom's likelihood of the observed sampled ranks.

An atom is the law g(r) / Z on the ranks a < r <= b, with g(r) = 1 (uniform, slope 0) or
g(r) = b + 1 - r (a triangle, slope 1, a = 0), Z = sum_{a < r <= b} g(r). A distribution on
1..n is non-increasing exactly when it is a mixture of the uniform atoms (0, k] (Grenander's
representation: P = sum_k w_k U_k, U_k(r) = 1[r <= k] / k, w in the simplex); convex and
non-increasing exactly when it is a mixture of the triangles T_k(r) = (k + 1 - r)_+ / Z_k
and the uniform law on 1..n (P(r) = P(n) + sum_k (second difference of P at k) (k + 1 - r)_+);
with no shape, P is a mixture of the uniform atoms (k_{j-1}, k_j] (piecewise uniform between
grid points). Under P the sampled rank has the law q(r~) = sum_j w_j L_j(r~), with the atom's
law

    L_j(r~) = 1/Z_j sum_{a < r <= b} g_j(r) p(r~ | r),

and a metric is linear in the weights, M(P) = sum_j w_j c_j, c_j = 1/Z_j sum_{a < r <= b}
g_j(r) M(r). A triangle's sum is the running sum of the running sums, sum_{r <= k}
(k + 1 - r) x_r = sum_{i <= k} sum_{r <= i} x_r: no term is subtracted. The grid k
(:func:`atom_grid`) is spaced by the width of p(. | r).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..checks import check_allocation
from ..design import Design
from ..estimators.histogram import mixture_matrix
from ..parallel import thread_count
from ..registry import resolve_name
from ..sampling import check_sampling, log_rank_pmf_at

__all__ = ["SHAPES", "check_shape", "atom_grid", "atom_ranges", "histogram_atoms", "user_atoms",
           "atom_metric", "atom_means_by_n"]

#: the shapes P(r) may be given: its atoms are (0, k], the triangles on 1..k and (0, n], or
#: (k_{j-1}, k_j]
SHAPES = ("non-increasing", "convex", "none")

#: grid spacing, in units of the width sqrt(n k / m) of p(r~ | r) in true ranks near r = k
GRID_SPACING = 0.25
#: grid spacing at most this fraction of k
GRID_RELATIVE = 0.1
#: atom likelihoods below this are set to 0: they change no sum, and subnormal numbers
#: slow every matrix product they enter a hundredfold
LIKELIHOOD_FLOOR = 1e-150


def atom_grid(n: int, m: int, cutoffs=(), shape: str = "non-increasing") -> np.ndarray:
    """The grid k (1..n, increasing) of the atoms for n items and m negatives: every k
    while the step is 1, then steps of 0.1 k (non-increasing: the atoms (0, k] change
    slowly with k) or of max(1, min(0.1 k, 0.25 sqrt(n k / m))) (no shape: a quarter of the
    width of p(r~ | r) in true ranks near r = k, so that no bump of P(r) falls between two
    grid points), plus n and every metric cut-off K and K + 1 (where recall@K's weights
    change).

    Examples
    --------
    >>> atom_grid(3706, 100)[:12].tolist()
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    >>> int(atom_grid(3706, 100)[-1]), len(atom_grid(3706, 100)), len(atom_grid(3706, 100, shape="none"))
    (3706, 73, 104)
    """
    shape = check_shape(shape)
    ks, k = [1], 1.0
    while True:
        step = GRID_RELATIVE * k
        if shape == "none":
            step = min(step, GRID_SPACING * np.sqrt(n * k / m))
        k += max(1.0, step)
        if k >= n:
            break
        ks.append(int(round(k)))
    extra = {n} | {int(c) for c in cutoffs if c <= n} | {int(c) + 1 for c in cutoffs if c < n}
    return np.array(sorted(set(ks) | extra), dtype=np.int64)


def check_shape(shape) -> str:
    """The canonical name of the shape of ``SHAPES`` that ``shape`` names (in any case); the
    registries' one-line ValueError otherwise."""
    return resolve_name("shape", shape, SHAPES)


def atom_ranges(ks: np.ndarray, shape: str = "non-increasing"
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The atoms (a, b, slope) on the grid ``ks`` (module docstring): the uniform atoms (0, k]
    for a non-increasing P; the triangles on 1..k and the uniform atom (0, n], n = ks[-1],
    for a convex one; the uniform atoms between grid points for no shape.

    Examples
    --------
    >>> [r.tolist() for r in atom_ranges(np.array([1, 2, 5]), "none")]
    [[0, 1, 2], [1, 2, 5], [0, 0, 0]]
    >>> [r.tolist() for r in atom_ranges(np.array([1, 2, 5]), "convex")]
    [[0, 0, 0, 0], [1, 2, 5, 5], [1, 1, 1, 0]]
    """
    shape = check_shape(shape)
    if shape == "none":
        return np.concatenate([[0], ks[:-1]]), ks, np.zeros_like(ks)
    if shape == "convex":
        return (np.zeros(ks.size + 1, np.int64), np.append(ks, ks[-1]),
                np.append(np.ones_like(ks), 0))
    return np.zeros_like(ks), ks, np.zeros_like(ks)


def _clip(a, b, n):
    """The atom (a, b] for a user with n ranks: (min(a, n - 1), min(b, n)]."""
    return np.minimum(a, n - 1), np.minimum(b, n)


def _atom_means(C: np.ndarray, a, b, slope, n) -> np.ndarray:
    """The K x J matrix sum_{a' < r <= b'} g_j(r) x_r / Z_j of the atoms (a, b, slope)
    clipped to n ranks, (a', b'] = (min(a, n - 1), min(b, n)], from C, the (N + 1) x J
    running sums of the columns x (a first row of zeros), N >= n; ``n`` an array of shape
    (G, 1) gives the G x K x J means for each of its n. A clipped triangle keeps its
    g(r) = b + 1 - r on 1..b': its sum is CC[b'] + (b - b') C[b'], CC the running sums of C
    (rows 1..n), and Z = b'(b' + 1)/2 + (b - b') b'."""
    lo, hi = _clip(a, b, n)
    slope = np.zeros_like(a) if slope is None else np.asarray(slope)
    top = np.broadcast_to(b, hi.shape)
    flat = np.broadcast_to(slope == 0, hi.shape)
    out = np.empty(hi.shape + (C.shape[1],))
    out[flat] = (C[hi[flat]] - C[lo[flat]]) / (hi[flat] - lo[flat])[:, None]
    if not flat.all():
        tri, top = hi[~flat], top[~flat]
        CC = np.cumsum(C, axis=0)                 # CC[k] = sum_{i <= k} C[i], C[0] = 0
        Z = tri * (tri + 1) / 2 + (top - tri) * tri
        out[~flat] = (CC[tri] + (top - tri)[:, None] * C[tri]) / Z[:, None]
    return out


def atom_means_by_n(x: np.ndarray, ns, a: np.ndarray, b: np.ndarray,
                    slope: np.ndarray | None = None) -> np.ndarray:
    """The len(ns) x K matrix whose row i is 1/Z_j sum_{a' < r <= b'} g_j(r) x_r over the
    atoms clipped to n_i = ``ns[i]`` ranks (as :func:`atom_metric` with one n), for a
    vector x = (x_1, ..., x_N) that does not depend on n (x_r the same for every n >= r:
    M(r) of any metric but AUC), N >= max ns: one pass of running sums for every n,
    with the values of a pass per n.

    Examples
    --------
    >>> from sampled_metrics.metrics import parse_metric
    >>> a, b, slope = atom_ranges(np.array([5, 10, 40]), "convex")
    >>> x = parse_metric("ndcg@10").weights(40)
    >>> rows = atom_means_by_n(x, [40, 25], a, b, slope)
    >>> bool((rows[1] == atom_metric(parse_metric("ndcg@10").weights, 25, a, b, slope)).all())
    True
    """
    C = np.concatenate([[0.0], np.cumsum(x)])[:, None]
    ns = np.asarray(ns, dtype=np.int64)[:, None]
    return _atom_means(C, a, b, slope, ns)[..., 0]


def histogram_atoms(design: Design, a: np.ndarray, b: np.ndarray,
                    slope: np.ndarray | None = None) -> np.ndarray:
    """The (m+1) x K matrix L[r~ - 1, j] = 1/Z_j sum_{a' < r <= b'} g_j(r) p(r~ | r) for
    one design's n, m and law (module docstring; ``slope`` None: uniform atoms), the atom
    (a', b'] = (min(a_j, n - 1), min(b_j, n)] clipped to the n ranks as :func:`user_atoms`
    clips it (a grid made for a larger n may hold atoms beyond them).

    Examples
    --------
    >>> a, b, _ = atom_ranges(np.array([1, 50, 100]))
    >>> L = histogram_atoms(Design(100, 10), a, b)
    >>> L.shape, L.sum(axis=0).round(12).tolist()       # each atom's law sums to 1
    ((11, 3), [1.0, 1.0, 1.0])
    >>> bool((histogram_atoms(Design(60, 10), a, b)[:, 2]
    ...       == histogram_atoms(Design(60, 10), a, np.minimum(b, 60))[:, 2]).all())
    True
    >>> a, b, slope = atom_ranges(np.array([1, 50, 100]), "convex")
    >>> histogram_atoms(Design(100, 10), a, b, slope).sum(axis=0).round(12).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    n, m = design.n, design.m
    check_allocation(n * (m + 2.0), f"the law of the sampled rank over n = {n} ranks and "
                                    f"m = {m} negatives")
    C = np.cumsum(mixture_matrix(design), axis=0)
    C = np.vstack([np.zeros((1, m + 1)), C])
    return _floored(_atom_means(C, a, b, slope, n).T)


def _floored(L: np.ndarray) -> np.ndarray:
    """``L`` (C-ordered) with entries below ``LIKELIHOOD_FLOOR`` set to 0."""
    L = np.ascontiguousarray(L)
    L[L < LIKELIHOOD_FLOOR] = 0.0
    return L


def user_atoms(sampled_ranks, n_u, m_u, sampling: str, a: np.ndarray,
               b: np.ndarray, slope: np.ndarray | None = None) -> np.ndarray:
    """The U x K matrix L[u, j] = 1/Z_j sum_{a' < r <= b'} g_j(r) p(r~_u | r; n_u, m_u), the
    atom (a', b'] = (min(a_j, n_u - 1), min(b_j, n_u)] (module docstring; ``slope`` None:
    uniform atoms): each user's own law, for users whose n_u and m_u differ (an atom beyond
    a user's ranks is clipped to them). Each group of users sharing (n_u, m_u) has its
    design, checked once (:class:`~sampled_metrics.design.Design`); the groups are computed
    on :func:`~sampled_metrics.parallel.thread_count` threads, each into its own rows, so
    the bits do not depend on their number.

    Examples
    --------
    >>> a, b, _ = atom_ranges(np.array([1, 50, 100]))
    >>> rows = user_atoms([1, 1], [100, 60], [10, 10], "binomial", a, b)
    >>> bool(rows[0, 0] == 1.0), bool(rows[1, 2] > rows[0, 2])   # r = 1 always gives r~ = 1
    (True, True)
    """
    s = np.asarray(sampled_ranks, dtype=np.int64)
    n_u = np.asarray(n_u, dtype=np.int64)
    m_u = np.asarray(m_u, dtype=np.int64)
    sampling = check_sampling(sampling)
    out = np.empty((s.size, a.size))
    pairs, group = np.unique(np.stack([n_u, m_u]), axis=1, return_inverse=True)
    group = group.reshape(-1)
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(pairs.shape[1] + 1))
    designs = [Design(int(n), int(m), sampling) for n, m in pairs.T]     # each group's
    for g, design in enumerate(designs):
        size = int(starts[g + 1] - starts[g])
        check_allocation(design.n * size, f"the laws of {size} users over n = {design.n} ranks")

    def fill(g: int) -> None:          # each group's rows of ``out``: any order, same bits
        users = order[starts[g]:starts[g + 1]]
        C = np.cumsum(_law_columns(s[users], designs[g]), axis=0)
        C = np.vstack([np.zeros((1, users.size)), C])
        out[users] = _atom_means(C, a, b, slope, designs[g].n).T

    threads = min(thread_count(), pairs.shape[1])
    if threads > 1:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(fill, range(pairs.shape[1])))
    else:
        for g in range(pairs.shape[1]):
            fill(g)
    return _floored(out)


def _law_columns(sampled_ranks, design: Design) -> np.ndarray:
    """The n x U matrix p(r~_u | r), r = 1..n, for the users' sampled ranks under
    ``design``."""
    n, m, sampling = design.n, design.m, design.sampling
    r = np.arange(1, n + 1, dtype=np.float64)[:, None]
    k = np.asarray(sampled_ranks, dtype=np.float64)[None, :] - 1
    return np.exp(log_rank_pmf_at(r, k, n, m, sampling))


def atom_metric(weights, n_u, a: np.ndarray, b: np.ndarray,
                slope: np.ndarray | None = None) -> np.ndarray:
    """c_j = mean over users of 1/Z_j sum_{a' < r <= b'} g_j(r) M(r), (a', b'] the atom
    clipped to the user's n_u ranks (``n_u`` a number or one per user; ``slope`` None:
    uniform atoms); ``weights(n)`` gives (M(1), ..., M(n)) (e.g. :meth:`Metric.weights`).

    Examples
    --------
    >>> from sampled_metrics.metrics import parse_metric
    >>> a, b, _ = atom_ranges(np.array([5, 10, 40]))
    >>> atom_metric(parse_metric("recall@10").weights, 100, a, b).tolist()   # 1, 1, 10/40
    [1.0, 1.0, 0.25]
    >>> a, b, slope = atom_ranges(np.array([20, 100]), "convex")  # 155/210, 955/5050, 10/100
    >>> atom_metric(parse_metric("recall@10").weights, 100, a, b, slope).round(4).tolist()
    [0.7381, 0.1891, 0.1]
    """
    n_u = np.atleast_1d(np.asarray(n_u, dtype=np.int64))
    values, counts = np.unique(n_u, return_counts=True)
    c = np.zeros(a.size)
    for n, count in zip(values, counts):
        cum = np.concatenate([[0.0], np.cumsum(weights(int(n)))])
        c += count * _atom_means(cum[:, None], a, b, slope, n)[:, 0]
    return c / n_u.size
