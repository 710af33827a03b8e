import numpy as np
import pytest
from scipy import stats

from sampled_metrics.corrections.mn import mn_correction


def dense_mn(metric_weights, n, m, prior, users, sampling):
    """Li et al.'s closed form on the explicit n x (m+1) matrix A[r, s] = p(s | r), with the
    pmfs from scipy.stats (not the library's law)."""
    r = np.arange(1, n + 1)[:, None]
    k = np.arange(m + 1)[None, :]
    if sampling == "binomial":
        A = stats.binom.pmf(k, m, (r - 1) / (n - 1))
    else:
        A = stats.hypergeom.pmf(k, n - 1, r - 1, m)
    D = np.diag(prior)
    H = A.T @ D @ A + (np.diag(A.sum(axis=0)) - A.T @ A) / users
    W = np.linalg.solve(H, A.T @ D)                # the (m+1) x n map of the authors' code
    return W @ metric_weights


@pytest.mark.parametrize("sampling", ["binomial", "hypergeometric"])
@pytest.mark.parametrize("metric, weights", [("recall@5", lambda r: (r <= 5) * 1.0),
                                             ("ndcg@10", lambda r: (r <= 10) / np.log2(r + 1)),
                                             ("ap", lambda r: 1.0 / r)])
def test_mn_matches_dense_closed_form(sampling, metric, weights):
    n, m, users = 300, 20, 500
    prior = np.exp(-np.arange(n) / 40.0)
    prior /= prior.sum()
    want = dense_mn(weights(np.arange(1, n + 1)), n, m, prior, users, sampling)
    got = mn_correction(metric, n, m, prior, users, sampling)
    assert np.allclose(got, want, rtol=1e-7, atol=1e-9)


def test_mn_tends_to_unbiased_when_users_grow_and_to_shrinkage_when_few():
    """Many users: MN's bias term dominates (AUC is affine: the sampled AUC is unbiased, so
    MN -> an unbiased vector); few users: the variance term shrinks M^ towards a constant."""
    n, m = 400, 30
    prior = np.full(n, 1.0 / n)
    r = np.arange(1, n + 1)
    many = mn_correction("auc", n, m, prior, 10**9)
    A = stats.binom.pmf(np.arange(m + 1)[None, :], m, (r[:, None] - 1) / (n - 1))
    assert np.max(np.abs(A @ many - (n - r) / (n - 1))) < 1e-4
    few = mn_correction("recall@10", n, m, prior, 1)
    assert np.ptp(few) < np.ptp(mn_correction("recall@10", n, m, prior, 10**4))


def test_mn_bad_inputs():
    with pytest.raises(ValueError, match="needs a prior"):
        mn_correction("recall@10", 100, 10, None, 10)
    with pytest.raises(ValueError, match="users must be a positive integer"):
        mn_correction("recall@10", 100, 10, np.full(100, 0.01), 0)
    with pytest.raises(ValueError, match="prior must sum to 1"):
        mn_correction("recall@10", 100, 10, np.full(100, 0.02), 5)
