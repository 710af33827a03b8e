"""Multi-threaded kernels (numba) for the dense item x item models, Y (ItemKNN without
sparsification) and EASE, whose results do not depend on the number of threads.

- :func:`sparse_dense_product`: scores S = X W of a block of users, X sparse (users x
  items), W dense (items x items). Each user's row S[u] = Σ_{j ∈ H_u} X[u, j] W[j] is
  summed by one thread, term by term in the order of the user's stored entries, the
  order of scipy's CSR x dense product: the same bits as ``X @ W`` for 1, 2 or any number
  of threads.  (Column-tiled, item-major loops, which read each row of W once per tile
  rather than once per user, were measured slower on this hardware at ML-20M width: the
  scattered updates of S cost more than the saved reads of W.)
- :func:`cooccurrence`: dense rows of C = Xᵀ X (C[i, j] = |U_i ∩ U_j|), counted in
  float64: integers, exact whatever the order, the same as scipy's sparse product.
- :func:`symmetrize_from_lower`: completes a symmetric matrix from its lower triangle,
  in place.

Threads: ``threads=None`` uses numba's current setting (all cores, or the environment
variable ``NUMBA_NUM_THREADS``); an int sets it for the duration of the call only.
"""
from __future__ import annotations

from contextlib import contextmanager

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange

__all__ = ["sparse_dense_product", "cooccurrence", "symmetrize_from_lower",
           "thread_count", "check_threads", "check_dtype", "to_c_order", "WEIGHT_DTYPES"]

#: Storage types of a dense weight matrix; the scores are summed in float64 either way.
WEIGHT_DTYPES = ("float32", "float64")


def check_threads(threads) -> int | None:
    """``threads`` as an int >= 1, or None; ValueError otherwise."""
    if threads is None:
        return None
    if isinstance(threads, bool) or int(threads) != threads or threads < 1:
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    return int(threads)


def check_dtype(dtype) -> str:
    """``dtype`` as 'float32' or 'float64'; ValueError otherwise."""
    name = np.dtype(dtype).name if dtype in (np.float32, np.float64) else dtype
    if name not in WEIGHT_DTYPES:
        raise ValueError(f"weights dtype must be one of {WEIGHT_DTYPES}, got {dtype!r}")
    return name


def to_c_order(a: np.ndarray, dtype: str, rows: int = 1024) -> np.ndarray:
    """``a`` as a new C-ordered array of ``dtype``, filled ``rows`` rows at a time (no
    temporary beyond one block of rows); ``a`` itself if it already is one."""
    if a.dtype == dtype and a.flags.c_contiguous:
        return a
    out = np.empty(a.shape, dtype=dtype)
    for start in range(0, a.shape[0], rows):
        out[start:start + rows] = a[start:start + rows]
    return out


@contextmanager
def thread_count(threads: int | None):
    """Run the block with ``numba.set_num_threads(threads)`` (None: leave it as is;
    more threads than numba's pool, ``NUMBA_NUM_THREADS``, are capped to the pool)."""
    n = check_threads(threads)
    if n is None:
        yield numba.get_num_threads()
        return
    n = min(n, numba.config.NUMBA_NUM_THREADS)
    previous = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        numba.set_num_threads(previous)


# ----------------------------------------------------------------------------- S = X W
@njit(parallel=True, cache=True, nogil=True)
def _user_rows(ptr, idx, data, weights, out, threads):
    """out[u] += Σ_p data[p] W[idx[p]] over u's stored entries, four rows of W per pass."""
    n_cols = weights.shape[1]
    for w in prange(threads):
        for u in range(w, ptr.size - 1, threads):   # round-robin: long users spread
            o = out[u]
            p, end = ptr[u], ptr[u + 1]
            while p + 4 <= end:   # o[c] = (((o[c] + t0) + t1) + t2) + t3: scipy's order
                w0, w1, w2, w3 = (weights[idx[p]], weights[idx[p + 1]],
                                  weights[idx[p + 2]], weights[idx[p + 3]])
                a0, a1, a2, a3 = data[p], data[p + 1], data[p + 2], data[p + 3]
                for c in range(n_cols):
                    s = o[c]
                    s += a0 * w0[c]
                    s += a1 * w1[c]
                    s += a2 * w2[c]
                    s += a3 * w3[c]
                    o[c] = s
                p += 4
            while p < end:
                w0, a0 = weights[idx[p]], data[p]
                for c in range(n_cols):
                    o[c] += a0 * w0[c]
                p += 1


def sparse_dense_product(X, weights: np.ndarray, threads: int | None = None
                         ) -> np.ndarray:
    """S = X W, summed in a fixed order whatever the number of threads.

    S[u, i] = (((0.0 + X[u, j_1] W[j_1, i]) + X[u, j_2] W[j_2, i]) + ...), the stored
    entries j_1, j_2, ... of CSR row u taken in storage order, as scipy's CSR x dense
    product does: the bits of ``X @ W`` for float64 W. Each row u is summed by one thread;
    the rows of W are read four at a time so that S[u] is loaded and stored once per four
    items instead of once per item (2x faster than scipy on one thread at ML-20M width).
    float32 W is widened exactly to float64 term by term.

    Parameters
    ----------
    X : scipy.sparse matrix, shape (b, n)
    weights : numpy.ndarray, shape (n, m), C-contiguous float64 or float32
    threads : int or None
        Threads for this call (see module docstring); the result does not depend on it.

    Returns
    -------
    numpy.ndarray, shape (b, m), float64
    """
    if weights.ndim != 2 or X.shape[1] != weights.shape[0]:
        raise ValueError(f"shapes {X.shape} and {weights.shape} do not multiply")
    if weights.dtype not in (np.float64, np.float32) or not weights.flags.c_contiguous:
        raise ValueError("weights must be a C-contiguous float64 or float32 array")
    X = sp.csr_matrix(X, dtype=np.float64)   # no copy if it is already float64 CSR
    out = np.zeros((X.shape[0], weights.shape[1]), dtype=np.float64)
    with thread_count(threads) as used:
        _user_rows(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data,
                   weights, out, int(used))
    return out


# ----------------------------------------------------------------------------- C = Xᵀ X
@njit(parallel=True, cache=True, nogil=True)
def _cooccurrence_rows(item_ptr, item_users, user_ptr, user_items, start, stop, out,
                       threads):
    """out[i - start, j] += |U_i ∩ U_j| for i in start..stop, rows dealt round-robin."""
    for w in prange(threads):
        for i in range(start + w, stop, threads):   # round-robin: popular items spread
            r = i - start
            for p in range(item_ptr[i], item_ptr[i + 1]):
                u = item_users[p]
                for q in range(user_ptr[u], user_ptr[u + 1]):
                    out[r, user_items[q]] += 1.0


def cooccurrence(train: sp.csr_matrix, start: int = 0, stop: int | None = None,
                 item_users: sp.csr_matrix | None = None, out: np.ndarray | None = None,
                 threads: int | None = None) -> np.ndarray:
    """Rows start..stop of the co-occurrence C = Xᵀ X of a binary users x items X.

    C[i, j] = |U_i ∩ U_j| = Σ_u X[u, i] X[u, j], counted as float64 integers (exact below
    2^53, so the bits of ``(Xᵀ X).toarray()`` whatever the order or number of threads), or
    in a float32 ``out`` (exact below 2^24 users).

    Parameters
    ----------
    train : scipy.sparse.csr_matrix, shape (U, n), binary
    start, stop : int
        Item rows of C to build (default all).
    item_users : scipy.sparse.csr_matrix, optional
        ``train.T.tocsr()`` if already at hand (items x users).
    out : numpy.ndarray, optional
        C-contiguous float64 or float32 (stop - start, n) to write into (overwritten).
    threads : int or None

    Returns
    -------
    numpy.ndarray, shape (stop - start, n), float64 (or ``out``'s float32)
    """
    n = train.shape[1]
    stop = n if stop is None else stop
    if item_users is None:
        item_users = train.T.tocsr()
    if out is None:
        out = np.zeros((stop - start, n), dtype=np.float64)
    else:
        if out.shape != (stop - start, n) or not out.flags.c_contiguous:
            raise ValueError("out must be a C-contiguous (stop - start, n_items) array")
        if out.dtype == np.float32 and train.shape[0] >= 2 ** 24:
            raise ValueError(f"float32 counts are exact below 2^24 users, not "
                             f"{train.shape[0]:,}")
        out.fill(0.0)
    with thread_count(threads) as used:
        _cooccurrence_rows(item_users.indptr.astype(np.int64), item_users.indices,
                           train.indptr.astype(np.int64), train.indices,
                           int(start), int(stop), out, int(used))
    return out


# ----------------------------------------------------------------------------- A = Aᵀ
@njit(parallel=True, cache=True, nogil=True)
def _lower_to_upper(a, block):
    n = a.shape[0]
    n_blocks = (n + block - 1) // block
    for bi in prange(n_blocks):          # block row bi of the upper triangle
        i0 = bi * block
        i1 = min(i0 + block, n)
        for j0 in range(i0, n, block):
            j1 = min(j0 + block, n)
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    a[i, j] = a[j, i]


def symmetrize_from_lower(a: np.ndarray, threads: int | None = None) -> np.ndarray:
    """a[i, j] ← a[j, i] for all i < j, in place (cache-blocked); returns ``a``.

    LAPACK's ``dpotri`` leaves the inverse in one triangle only; this completes it without
    a second matrix.
    """
    if a.ndim != 2 or a.shape[0] != a.shape[1] or not a.flags.c_contiguous:
        raise ValueError("a must be a square C-contiguous array")
    with thread_count(threads):
        _lower_to_upper(a, 64)
    return a
