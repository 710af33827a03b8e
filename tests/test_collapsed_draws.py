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


def test_law_expectations_match_a_simulation_of_collapsed_draws():
    """RecBole's uni<N> simulated: M draws with replacement from each user's pool of N,
    repeats collapsed. The mean sampled Recall@5 over repeats matches the expectation at
    the distinct count (hypergeometric) and not the one at M draws (binomial)."""
    import pandas as pd

    from sampled_metrics.integrations.recbole import law_expectations
    rng = np.random.default_rng(7)
    users, N, M, repeats = 200, 150, 100, 120
    rank = rng.integers(1, N + 2, users)                 # exact position among N + 1
    exact = pd.DataFrame({"user": np.arange(users), "position": rank,
                          "n_nonrelevant": N, "n_negatives": N})
    observed, distinct, draws = [], [], []
    for _ in range(repeats):
        picked = rng.integers(0, N, size=(users, M))     # pool items 0..N-1, best first
        sets = [np.unique(row) for row in picked]
        D = np.array([s.size for s in sets])
        above = np.array([(s < r - 1).sum() for s, r in zip(sets, rank)])
        observed.append((above + 1 <= 5).mean())
        frame = exact.assign(position=above + 1, n_negatives=D, n_draws=M)
        laws = law_expectations(exact, frame, "recall@5")
        distinct.append(laws["hypergeometric"])
        draws.append(laws["binomial"])
    se = np.std(observed, ddof=1) / np.sqrt(repeats)
    assert abs(np.mean(observed) - np.mean(distinct)) < 4 * se, (np.mean(observed),
                                                                   np.mean(distinct), se)
    assert abs(np.mean(observed) - np.mean(draws)) > 10 * se, (np.mean(observed),
                                                               np.mean(draws), se)
