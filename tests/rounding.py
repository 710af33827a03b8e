"""Rounding bounds of float64 sums, from which the numerical tests derive their tolerances
(docs/design.md, "Numerical tolerances").

u = 2**-53 is the unit roundoff of float64. A sum of k terms, or a length-k dot product,
computed in any order (BLAS's blocks, kernels and threads, numpy's pairwise sum, FMA or not)
is within gamma(k) = k u / (1 - k u) times the sum of the terms' absolute values of the exact
value (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., eq. 3.5 and
Lemma 3.1), so two orders are within twice that of each other. Terms of one sign make it a
relative bound: gamma(k) |sum|.

>>> import numpy as np
>>> x = np.random.default_rng(0).random(1000)
>>> bool(abs(x.sum() - x[::-1].sum()) <= 2 * sum_bound(x))
True
"""
import numpy as np

#: unit roundoff of float64: a correctly rounded operation errs by at most U relative
U = 2.0 ** -53
#: unit roundoff of float32
U32 = 2.0 ** -24


def gamma(k, u=U):
    """gamma(k) = k u / (1 - k u): the relative error bound of k operations' rounding (``u``:
    the unit roundoff, float64's by default)."""
    k = np.asarray(k, dtype=float)
    return k * u / (1 - k * u)


def sum_bound(terms, axis=None):
    """The bound gamma(k) sum |terms| of a sum of k terms in any order (along ``axis``)."""
    terms = np.abs(np.asarray(terms, dtype=float))
    k = terms.size if axis is None else terms.shape[axis]
    return gamma(k) * terms.sum(axis=axis) * (1 + gamma(k))   # the bound's own sum rounds too


def product_bound(a, b):
    """Entry-wise bound gamma(k) (|a| @ |b|) of a matrix product a @ b (k: a's last
    dimension) in any order."""
    a, b = np.abs(np.asarray(a, dtype=float)), np.abs(np.asarray(b, dtype=float))
    k = a.shape[-1]
    return gamma(k) * (a @ b) * (1 + gamma(k))                # the bound's own product too
