"""Li et al.'s mapping of cut-offs as a correction (mapping)."""
import doctest

import numpy as np
import pytest

import sampled_metrics as sm
from sampled_metrics.corrections import mapping
from sampled_metrics.corrections.mapping import mapping_correction, mapping_function


def test_docstring_examples():
    result = doctest.testmod(mapping)
    assert result.attempted >= 4 and result.failed == 0


@pytest.mark.parametrize("sampling", ["binomial", "hypergeometric"])
def test_mapping_function_is_increasing_from_0_to_n(sampling):
    f = mapping_function(500, 20, sampling)
    assert f[0] == 0 and f[-1] == 500 and np.all(np.diff(f) > 0)
    # with replacement f(k) = sum_r P(Bin(m, (r-1)/(n-1)) <= k-1) ~ 1/2 + (n-1) k / (m+1)
    if sampling == "binomial":
        k = np.arange(1, 21)
        assert np.allclose(f[1:21], 0.5 + 499 * k / 21, atol=0.6)


@pytest.mark.parametrize("metric", ["recall@10", "ndcg@10", "ap", "auc", "precision@5"])
@pytest.mark.parametrize("sampling", ["binomial", "hypergeometric"])
def test_exact_in_expectation_under_the_uniform_rank_distribution(metric, sampling):
    # f makes SHR@k = HR@f(k) exact for uniform P(r), so E[M^(r~)] = mean_r M(r) for every
    # metric (a sum of hit ratios)
    n, m = 800, 30
    v = mapping_correction(metric, n, m, sampling)
    got = sm.expected_sampled_metric(metric, np.arange(1, n + 1), n, m, sampling,
                                     correction=v).mean()
    assert got == pytest.approx(sm.metrics.metric_weights(metric, n).mean(), rel=1e-9, abs=1e-12)


def test_no_sampling_loss_gives_the_metric_itself():
    # without replacement and m = n - 1, r~ = r: f(k) = k and M^ = M
    n = 30
    for metric in ("recall@7", "ndcg", "ap@5"):
        v = mapping_correction(metric, n, n - 1, "hypergeometric")
        assert np.allclose(v, sm.metrics.metric_weights(metric, n))


def test_registered_as_a_correction():
    v = sm.correction("recall@10", 3706, 100, "mapping")
    g = np.interp(10, mapping_function(3706, 100), np.arange(102))
    assert v[0] == pytest.approx(g) and np.all(v[1:] == 0)         # g(10) < 1
    lookup = sm.corrections.correction_lookup(["ndcg@10"], ["mapping", "sampled"],
                                              [3000, 3706], 100)
    assert np.allclose(lookup[1, 0, 0], sm.correction("ndcg@10", 3706, 100, "mapping"))
