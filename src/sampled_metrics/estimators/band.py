"""The band of the mixture matrix A = p(r~ | r), and the products of A restricted to it: those
of the EM map and MES's weighted Gram A^T diag(w) A.

Row r of A is the law of the sampled rank of true rank r: it is concentrated near
r~ - 1 ~ m (r - 1)/(n - 1), within a few sqrt(m) columns, and is below 1e-30 elsewhere. In
blocks of rows whose centres span ``BAND_DRIFT`` columns, :class:`BandedMatrix` keeps only
the columns where some row of the block has an entry >= ``BAND_FLOOR`` and computes the two
products of the EM map,

    P @ A    (Q = A^T pi for each row of P)   and   R @ A^T   (G = A (h / q)),

block by block. The entries left out are below 1e-30, so each entry of a product moves by
at most 1e-30 times the sum of the other operand's row (1 for a distribution P), far below
the rounding of the entries the EM map reads (q on the observed sampled ranks, g where pi
is not negligible); what changes is the order in which BLAS sums, as between one row and
many (:mod:`sampled_metrics.estimators.em`).

:func:`banded` uses the band only where it saves enough: at n = 3,706 (hypergeometric) the
band holds 39 % of A at m = 499 (the MLE runs 2.2x faster on one core,
``workflow/benchmarks/bench_em_band.py``) and 84 % at m = 99 (not worth the block loop), so
A stays dense where the band holds more than ``BAND_SHARE``.

MES's Hessian (:mod:`sampled_metrics.estimators.entropy`) is summed over the same kind of
blocks, with the threshold relative to each row's maximum (``relative=True`` of
:func:`band_blocks`), restricted to the observed columns (:func:`restrict_blocks`), by
:func:`weighted_gram`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["BAND_DRIFT", "BAND_FLOOR", "BAND_SHARE", "BandedMatrix", "band_blocks", "banded",
           "restrict_blocks", "weighted_gram"]

#: Entries of A below this (absolute) value are left out of the banded products.
BAND_FLOOR = 1e-30
#: Columns by which the centre of A's rows moves within a block of the banded products (a
#: block has max(16, 16 n / k) rows: 118 at n = 3,706, m = 499).
BAND_DRIFT = 16
#: The band is used when its blocks hold at most this share of A's entries.
BAND_SHARE = 0.5


def band_blocks(A, floor: float = BAND_FLOOR, rows: int | None = None,
                relative: bool = False) -> list[tuple]:
    """(row start, row stop, column start, column stop) of the blocks of A's band: ``rows``
    rows each (default max(``BAND_DRIFT``, ``BAND_DRIFT`` n / k)), over the columns where a
    row of the block has an entry >= ``floor`` (``relative=True``: >= ``floor`` times that
    row's maximum); blocks with no such entry are left out."""
    n, k = A.shape
    if rows is None:
        rows = max(BAND_DRIFT, -(-BAND_DRIFT * n // max(1, k)))
    blocks = []
    for lo in range(0, n, rows):
        hi = min(n, lo + rows)
        block = A[lo:hi]
        cols = np.flatnonzero((block >= (floor * block.max(axis=1, keepdims=True) if relative
                                         else floor)).any(axis=0))
        if cols.size:
            blocks.append((lo, hi, int(cols[0]), int(cols[-1]) + 1))
    return blocks


def restrict_blocks(blocks, cols) -> list[tuple]:
    """``blocks`` of A (see :func:`band_blocks`) as blocks of A[:, cols] (``cols`` increasing
    column indices), in its column numbering: each over the columns of ``cols`` in its
    range; blocks left with none are left out."""
    cols = np.asarray(cols)
    out = []
    for lo, hi, c0, c1 in blocks:
        d0, d1 = (int(d) for d in np.searchsorted(cols, (c0, c1)))
        if d1 > d0:
            out.append((lo, hi, d0, d1))
    return out


def weighted_gram(A, sqrt_w, blocks) -> np.ndarray:
    """A^T diag(w) A = sum over ``blocks`` of B^T B, B = diag(sqrt w) A on the block (rows
    lo:hi, columns c0:c1); the entries of A outside the blocks are left out.

    Examples
    --------
    >>> import numpy as np
    >>> from sampled_metrics.estimators.histogram import mixture_matrix
    >>> A = mixture_matrix(2000, 99)
    >>> w = np.full(2000, 1 / 2000)
    >>> G = weighted_gram(A, np.sqrt(w), band_blocks(A, 1e-16, 128, relative=True))
    >>> D = A.T @ (w[:, None] * A)
    >>> # left out: terms with A[r, a] or A[r, b] < 1e-16 (of a row maximum <= 1), at most
    >>> # 1e-16 ((A^T w)_a + (A^T w)_b); then two summation orders of 2000 terms
    >>> bool(np.all(np.abs(G - D) <= 2e-16 * (w @ A).max() + 2 * 2000 * 2**-53 * D))
    True
    """
    G = np.zeros((A.shape[1], A.shape[1]))
    for lo, hi, c0, c1 in blocks:
        B = A[lo:hi, c0:c1] * sqrt_w[lo:hi, None]
        G[c0:c1, c0:c1] += B.T @ B
    return G


def _share(blocks, shape) -> float:
    """The share of a matrix's entries that ``blocks`` hold."""
    return sum((hi - lo) * (c1 - c0) for lo, hi, c0, c1 in blocks) / max(1, shape[0] * shape[1])


class BandedMatrix:
    """A matrix (n x k) kept as row blocks over the columns of their band.

    Parameters
    ----------
    A : (n, k) array_like, non-negative
    blocks : list, optional
        Its :func:`band_blocks` (computed here by default).

    Examples
    --------
    >>> import numpy as np
    >>> from sampled_metrics.estimators.histogram import mixture_matrix
    >>> A = mixture_matrix(2000, 499)
    >>> B = BandedMatrix(A)
    >>> round(B.share, 2) < 0.5
    True
    >>> P = np.full((1, 2000), 1 / 2000)
    >>> bool(np.allclose(B.left(P), P @ A, rtol=5e-13, atol=0))  # 2 gamma(2000), two orders
    True
    """

    def __init__(self, A, blocks: list | None = None):
        A = np.asarray(A, dtype=np.float64)
        self.shape = A.shape
        blocks = band_blocks(A) if blocks is None else blocks
        #: share of A's entries held in the blocks
        self.share = _share(blocks, A.shape)
        self.blocks = [(lo, hi, c0, c1, np.ascontiguousarray(A[lo:hi, c0:c1]))
                       for lo, hi, c0, c1 in blocks]

    def left(self, P) -> np.ndarray:
        """P @ A for P of shape (J, n): (J, k)."""
        out = np.zeros((P.shape[0], self.shape[1]))
        for lo, hi, c0, c1, block in self.blocks:
            out[:, c0:c1] += P[:, lo:hi] @ block
        return out

    def right(self, R) -> np.ndarray:
        """R @ A^T for R of shape (J, k): (J, n)."""
        out = np.zeros((R.shape[0], self.shape[0]))
        for lo, hi, c0, c1, block in self.blocks:
            out[:, lo:hi] = R[:, c0:c1] @ block.T
        return out


class _Dense:
    """A itself, with the interface of :class:`BandedMatrix`."""

    def __init__(self, A):
        self.A = A
        self.shape = A.shape
        self.share = 1.0

    def left(self, P) -> np.ndarray:
        return P @ self.A

    def right(self, R) -> np.ndarray:
        return R @ self.A.T


def banded(A, share: float | None = None):
    """The operator of the EM products for A: its :class:`BandedMatrix` when the band holds
    at most ``share`` of A's entries (default ``BAND_SHARE``, read at the call), else A
    itself; both have ``left(P) = P @ A`` and ``right(R) = R @ A^T``.

    Examples
    --------
    >>> from sampled_metrics.estimators.histogram import mixture_matrix
    >>> [type(banded(mixture_matrix(3706, m))).__name__ for m in (499, 99)]
    ['BandedMatrix', '_Dense']
    """
    A = np.asarray(A, dtype=np.float64)
    blocks = band_blocks(A)          # the blocks are copied only if the band is used
    if _share(blocks, A.shape) <= (BAND_SHARE if share is None else share):
        return BandedMatrix(A, blocks)
    return _Dense(A)
