"""The MLE's EM runs its products on the sampled ranks some histogram observed
(``estimators.em._observed``): the EM map reads q = A^T pi only where h > 0, and a column of
A with h = 0 adds exact zeros to G = A (h / q), so the map is the same up to the order of
its sums."""
import numpy as np
from threadpoolctl import threadpool_limits

from sampled_metrics.estimators import em
from sampled_metrics.estimators.band import banded
from sampled_metrics.estimators.histogram import mixture_matrix

EPS = np.finfo(float).eps


def test_the_em_map_on_the_observed_ranks_is_the_full_map():
    n, m = 400, 19
    k = m + 1
    A = mixture_matrix(n, m, "binomial")
    rng = np.random.default_rng(0)
    H = rng.random((3, k)) * (rng.random((3, k)) < 0.5)
    H[:, :2] = 0.0                                           # never observed by any row
    H /= H.sum(axis=1, keepdims=True)
    PI = rng.dirichlet(np.ones(n), 3)
    A_seen, H_seen = em._observed(A, H)
    seen = (H > 0).any(axis=0)
    assert A_seen.shape == (n, seen.sum()) and np.array_equal(H_seen, H[:, seen])
    assert em._observed(A_seen, H_seen)[0] is A_seen        # all observed: A as it is
    with threadpool_limits(1):
        full = em._em_map(banded(A), H, PI, PI @ A)
        part = em._em_map(banded(A_seen), H_seen, PI, PI @ A_seen)
    # every sum has non-negative terms: G (k terms, the zeros dropped), the total over n
    # ranks, then Q (n terms); each side within (k + n) u of exact, so 2 (k + n) eps apart
    rtol = 2 * (k + n) * EPS
    assert np.allclose(part[0], full[0], rtol=rtol, atol=0)              # F(PI)
    assert np.allclose(part[1], full[1][:, seen], rtol=rtol, atol=0)     # Q, observed
    # log(F / PI): its terms log G and log total, each within a relative rtol
    assert np.allclose(part[2], full[2], rtol=0, atol=2 * rtol)
