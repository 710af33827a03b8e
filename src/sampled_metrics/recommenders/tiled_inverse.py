"""The inverse of a large symmetric positive definite matrix on several threads, with the same
bits whatever the number of threads: a tiled Cholesky inverse whose tiles are computed by
single-threaded BLAS and LAPACK calls, the threads taking whole tiles.

G = L Lᵀ (tiled right-looking Cholesky), V = L⁻¹ (tiled triangular inverse), G⁻¹ = Vᵀ V
(tiled product), each tile summed over k in increasing order by one task: the order of
every floating-point operation is fixed by the tile size alone, never by which thread ran
which tile. Its flops are those of LAPACK's ``dpotrf`` + ``dpotri`` (n³ in all): the
products with a triangular tile go through ``dtrmm`` and ``dlauum`` (for a float32 G, the
single-precision ``s`` routines of each).

Why not LAPACK's own threads: OpenBLAS's multi-threaded ``dsyrk`` (which its threaded
``dpotrf`` calls) ends in a segmentation fault for n of about 22,600 and more
(``workflow/benchmarks/bench_spd_inverse.py --crash`` reproduces it in a child process),
and its result differs in the last bits from the single-threaded one, so a fit would depend
on the number of cores. Here each BLAS call is a tile of at most ``tile`` x ``tile`` on
one thread. On one thread it is slower than LAPACK's (0.79x at 16,384 items), on two
faster (1.36x).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.linalg import blas, lapack
from threadpoolctl import threadpool_limits

from ..checks import check_integer
from .dense_kernels import check_threads

__all__ = ["TILE", "tiled_spd_inverse", "check_gram", "not_positive_definite"]

#: Rows and columns of a tile: large enough for BLAS to run at full speed, small enough
#: that the last steps still give every thread a tile.
TILE = 2048


def check_gram(G: np.ndarray) -> None:
    """A one-line ValueError unless G is a square C-contiguous float64 or float32 array (what
    both inverses overwrite in place)."""
    if (G.ndim != 2 or G.shape[0] != G.shape[1] or G.dtype not in (np.float64, np.float32)
            or not G.flags.c_contiguous):
        raise ValueError("G must be a square C-contiguous float64 or float32 array")


def not_positive_definite(info: int) -> np.linalg.LinAlgError:
    """The error of a Cholesky factorisation that LAPACK refused (its ``info``)."""
    return np.linalg.LinAlgError(f"XᵀX + λI is not positive definite (LAPACK info {info})")


def tiled_spd_inverse(G: np.ndarray, threads: int | None = 1, tile: int | None = None
                      ) -> np.ndarray:
    """G⁻¹ of a symmetric positive definite C-ordered float64 (or float32) G, overwriting G.

    G = L Lᵀ, then G⁻¹ = Vᵀ V with V = L⁻¹, tile by tile:

    - L_kk = chol(A_kk), L_ik = A_ik L_kk⁻ᵀ, A_ij ← A_ij − L_ik L_jkᵀ (i ≥ j > k);
    - V_jj = L_jj⁻¹, V_ij = −(Σ_{l=j+1..i} V_il L_lj) V_jj (j from the last tile down);
    - P_ij = Σ_{l ≥ j} V_liᵀ V_lj (i ≤ j), then P_ji = P_ijᵀ.

    Parameters
    ----------
    G : numpy.ndarray, shape (n, n), C-contiguous float64 or float32, exactly symmetric
        (float32: the single-precision BLAS and LAPACK routines, half the memory and about
        half the time)
    threads : int or None
        Threads taking tiles (None: one per core); the result does not depend on it.
    tile : int, optional
        Tile size (default :data:`TILE`); the result depends on it, not on ``threads``.

    Returns
    -------
    numpy.ndarray
        ``G``, now G⁻¹ (symmetric).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 2.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]])
    >>> P = tiled_spd_inverse(A.copy(), threads=2, tile=2)
    >>> bool(np.allclose(P @ A, np.eye(3)))
    True
    """
    check_gram(G)
    n = G.shape[0]
    potrf, trtrs, trtri, lauum = lapack.get_lapack_funcs(("potrf", "trtrs", "trtri", "lauum"),
                                                         dtype=G.dtype)
    trmm, = blas.get_blas_funcs(("trmm",), dtype=G.dtype)
    workers = check_threads(threads)
    tile = check_integer("tile", TILE if tile is None else tile, 1)
    s = [slice(a, min(a + tile, n)) for a in range(0, n, tile)]
    T = len(s)
    with threadpool_limits(1, "blas"), ThreadPoolExecutor(workers) as pool:
        def run(fn, items):
            list(pool.map(fn, items))            # re-raises a task's error here

        # ---- G = L Lᵀ, L in the lower tiles (diagonal tiles with zeros above)
        for k in range(T):
            c, info = potrf(G[s[k], s[k]], lower=1, clean=1)
            if info != 0:
                raise not_positive_definite(info)
            G[s[k], s[k]] = c
            Lkk = G[s[k], s[k]]

            def panel(i, k=k, Lkk=Lkk):          # L_ik = A_ik L_kk⁻ᵀ
                x, info = trtrs(Lkk, G[s[i], s[k]].T, lower=1)
                G[s[i], s[k]] = x.T

            run(panel, range(k + 1, T))

            def update(ij, k=k):                 # A_ij -= L_ik L_jkᵀ
                i, j = ij
                G[s[i], s[j]] -= G[s[i], s[k]] @ G[s[j], s[k]].T

            run(update, [(i, j) for j in range(k + 1, T) for i in range(j, T)])

        # ---- V = L⁻¹ in place, from the last column of tiles to the first
        for j in reversed(range(T)):
            column = {l: G[s[l], s[j]].copy() for l in range(j + 1, T)}     # L_lj
            v, info = trtri(G[s[j], s[j]], lower=1)
            if info != 0:
                raise not_positive_definite(info)
            v = np.tril(v)

            def inverse(i, j=j, v=v, column=column):   # V_ij = −(Σ V_il L_lj) V_jj
                acc = trmm(1.0, G[s[i], s[i]], column[i], lower=1)   # V_ii triangular
                for l in range(j + 1, i):
                    acc += G[s[i], s[l]] @ column[l]
                G[s[i], s[j]] = trmm(-1.0, v, acc, side=1, lower=1)

            run(inverse, range(j + 1, T))
            G[s[j], s[j]] = v

        # ---- P = Vᵀ V: upper tiles in place, diagonal tiles aside, then mirrored
        def product(ij):
            i, j = ij
            if i == j:                           # V_jjᵀ V_jj of the triangular V_jj
                c, _ = lauum(G[s[j], s[j]], lower=1)
                acc = np.tril(c) + np.tril(c, -1).T
            else:
                acc = trmm(1.0, G[s[j], s[j]], G[s[j], s[i]].T, side=1, lower=1)
            for l in range(j + 1, T):
                acc += G[s[l], s[i]].T @ G[s[l], s[j]]
            return acc

        upper = [(i, j) for j in range(T) for i in range(j)]
        diagonal = list(pool.map(product, [(j, j) for j in range(T)]))
        for (i, j), acc in zip(upper, pool.map(product, upper)):
            G[s[i], s[j]] = acc
        for j in range(T):
            G[s[j], s[j]] = diagonal[j]

        def mirror(ij):
            i, j = ij
            G[s[j], s[i]] = G[s[i], s[j]].T

        run(mirror, upper)
    return G
