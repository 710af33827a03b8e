"""RecBole's uni<N> law: M draws with replacement whose repeats collapse into D distinct
negatives. Conditional on D the distinct set is a uniform D-subset of the N-item pool, so the
count y of sampled negatives above a positive with x non-relevant items above it is
Hypergeom(N, x, D): the without-replacement law at m = D. Checked by enumerating every
sequence of draws; the with-replacement law at m = M is shown to differ."""
import itertools

import numpy as np
import pytest

from sampled_metrics.sampling import rank_pmf


@pytest.mark.parametrize("N,M", [(6, 4), (5, 5), (7, 3)])
def test_distinct_negatives_follow_the_hypergeometric_law(N, M):
    draws = np.array(list(itertools.product(range(N), repeat=M)))   # all N^M sequences
    distinct = np.array([np.unique(row) for row in draws], dtype=object)
    D = np.array([d.size for d in distinct])
    for x in range(N + 1):                  # items 0..x-1 are above the positive
        y = np.array([int((d < x).sum()) for d in distinct])
        for size in np.unique(D):
            counts = np.bincount(y[D == size], minlength=size + 1)
            law = rank_pmf(1 + x, N + 1, int(size), "hypergeometric")
            np.testing.assert_allclose(counts / counts.sum(), law, atol=1e-12,
                                       err_msg=f"N={N} M={M} x={x} D={size}")
        # unconditionally y is a mixture over D, not the binomial law of M draws
        mixture = sum((D == s).mean() * np.pad(rank_pmf(1 + x, N + 1, int(s), "hypergeometric"),
                                              (0, M - s)) for s in np.unique(D))
        observed = np.bincount(y, minlength=M + 1) / y.size
        np.testing.assert_allclose(observed, mixture, atol=1e-12)
        if 0 < x < N:
            assert np.abs(observed - rank_pmf(1 + x, N + 1, M, "binomial")).max() > 0.01
