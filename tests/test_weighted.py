"""Weighted (Horvitz-Thompson) rank estimate under popularity sampling."""
import numpy as np
import pytest

from sampled_metrics.multipositive.weighted import weighted_corrected_metric, weighted_rank_estimate
from sampled_metrics.metrics import parse_metric
from sampled_metrics.multipositive.weighted import weighted_rank_variance


def _popularity_draws(rng, N, alpha, above_items, M, repeats):
    # lognormal popularity (sigma 1.5: the most popular item ~1000x the least); with
    # heavier tails a rarely drawn item above the positive makes x^ very skewed (unbiased,
    # but its mean converges too slowly for a 4-SE test of this size)
    pop = rng.lognormal(0.0, 1.5, N)
    q = pop ** alpha / (pop ** alpha).sum()
    draws = rng.choice(N, size=(repeats, M), p=q)
    return np.isin(draws, above_items), q[draws]


@pytest.mark.parametrize("alpha", [1.0, 0.75])
def test_weighted_rank_estimate_is_unbiased(alpha):
    rng = np.random.default_rng(5)
    N, M, repeats = 400, 100, 5000
    pop_order = rng.permutation(N)
    for x in (0, 3, 60, 250):
        above_items = pop_order[:x]
        above, probs = _popularity_draws(np.random.default_rng(x), N, alpha, above_items, M,
                                         repeats)
        est = weighted_rank_estimate(above, probs)
        se = est.std(ddof=1) / np.sqrt(repeats)
        assert abs(est.mean() - (1 + x)) <= 4 * se + 1e-12, (x, est.mean(), se)
        # the variance estimate is unbiased too (loosely: within 15 %)
        if x:
            assert weighted_rank_variance(above, probs).mean() == pytest.approx(
                est.var(ddof=1), rel=0.15)


def test_ragged_rows_equal_matrix():
    rng = np.random.default_rng(6)
    above = rng.random((5, 7)) < 0.3
    probs = rng.uniform(0.01, 0.2, (5, 7))
    rows = np.repeat(np.arange(5), 7)
    np.testing.assert_allclose(weighted_rank_estimate(above.ravel(), probs.ravel(), rows),
                               weighted_rank_estimate(above, probs))
    # uniform probabilities 1/N: the estimate is 1 + N y / M, KDD'20's rank estimate
    N = 50
    np.testing.assert_allclose(weighted_rank_estimate(above, np.full((5, 7), 1 / N)),
                               1 + N * above.sum(axis=1) / 7)


def test_weighted_corrected_metric():
    # a user with positives at sampled positions 4 and 1 (so a = 1, 0) and estimates
    est = np.array([12.7, 3.2])            # positive order as given: p = 4, then p = 1
    got = weighted_corrected_metric("ndcg@10", [[4, 1]], [100], est)
    # full ranks: first-ranked positive (p = 1): 1 + 0 + floor(2.2) = 3; other: 2 + 11 = 13
    want = parse_metric("ndcg@10").of_set([3, 13], 102)
    assert got[0] == pytest.approx(want)
    # capped at N
    assert weighted_corrected_metric("auc", [[1]], [10], [500.0])[0] == 0.0


@pytest.mark.parametrize("above, probs, message", [
    ([[True, False]], [[0.5, 0.0]], "in \\(0, 1\\]"),
    ([[True, False]], [[0.5, 1.5]], "in \\(0, 1\\]"),
    ([[True, False]], [[0.5, np.nan]], "in \\(0, 1\\]"),
    ([[1, 2]], [[0.5, 0.5]], "booleans"),
    ([[True, False]], [[0.5]], "same shape"),
    ([[True, False]], [[True, True]], "got booleans"),
    (np.zeros((2, 0), bool), np.zeros((2, 0)), "at least one draw"),
])
def test_bad_input(above, probs, message):
    with pytest.raises(ValueError, match=message):
        weighted_rank_estimate(above, probs)
    with pytest.raises(ValueError, match="no draws"):
        weighted_rank_estimate([True], [0.5], rows=[1])
