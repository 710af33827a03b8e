"""The protocols study's simulation of drawn negatives: the laws it claims."""
import numpy as np

from sampled_metrics.steps.protocols import _categorical_counts, _uniform_counts


def test_uniform_counts_follow_the_laws():
    rng = np.random.default_rng(9)
    # two users: positives with x = (3, 3, 40) of N = 100, and x = (0,) of N = 50
    x = np.array([3, 3, 40, 0])
    row = np.array([0, 0, 0, 1])
    k, N, M = np.array([3, 1]), np.array([100, 50]), np.array([30, 20])
    for replace in (True, False):
        ys = np.array([_uniform_counts(rng, x, row, k, N, M, replace) for _ in range(3000)])
        assert (ys[:, 3] == 0).all() and (ys[:, 0] == ys[:, 1]).all()
        mean = M[row] * x / N[row]
        var = M[row] * (x / N[row]) * (1 - x / N[row])
        if not replace:
            var = var * (N[row] - M[row]) / (N[row] - 1)
        se = np.sqrt(var / len(ys))
        assert np.all(np.abs(ys.mean(axis=0) - mean) <= 4 * se + 1e-12)
        assert np.allclose(ys[:, :3].var(axis=0), var[:3], rtol=0.1)


def test_categorical_counts():
    rng = np.random.default_rng(10)
    qn = np.array([[0.5, 0.25, 0.25, 0.0], [0.1, 0.2, 0.3, 0.4]])
    N, M = np.array([3, 4]), np.array([1000, 2000])
    counts = sum(_categorical_counts(rng, qn, N, M) for _ in range(50))
    assert counts[0, 3] == 0 and (counts.sum(axis=1) == 50 * M).all()
    expected = 50 * M[:, None] * qn
    assert np.all(np.abs(counts - expected) <= 4 * np.sqrt(expected) + 1e-9)
