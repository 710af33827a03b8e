"""Several positives per user: one-positive identity, the term-wise reduction checked against
a simulation of the shared negatives, unbiasedness where it holds, and bad input."""
import numpy as np
import pytest

from sampled_metrics.multipositive import correct_multi_positive, multi_positive_metric
from sampled_metrics.corrections import apply_correction, correction
from sampled_metrics.metrics import parse_metric
from sampled_metrics.multipositive import ShiftedMetric
from sampled_metrics.multipositive.laws import negatives_above_pmf
from sampled_metrics.sampling import expected_sampled_metric

METRICS = ["recall@10", "ndcg@10", "ap", "ap@5", "auc", "precision@3", "ndcg", "hit@10",
           "hit@3", "mrr@10", "mrr"]


@pytest.mark.numerical
@pytest.mark.parametrize("sampling", ["binomial", "hypergeometric"])
def test_one_positive_identity(sampling):
    rng = np.random.default_rng(1)
    U = 60
    M = rng.integers(5, 40, U)
    N = M + rng.integers(1, 150, U)
    p = rng.integers(1, M + 2)
    for metric in ["recall@10", "ndcg@10", "ap", "auc"]:
        for c in ["sampled", "rank_estimate", "cls", "bv_0.1", "minimal_bias"]:
            got = correct_multi_positive(metric, p, N, M, c, sampling=sampling)
            want = [apply_correction(correction(metric, n + 1, m, c,
                                                sampling=sampling), [q])[0]
                    for n, m, q in zip(N, M, p)]
            # bit-identical: with one positive and M_u < thin_to each user's vector comes from
            # the same calls in the same order (rank_law_moments of the one metric column at
            # n, m, then correction_array; few distinct n per m, so exact per n, no grid),
            # the shift a = 0 adds 0.0 and multiplies by 1.0, and the user's sum of one term
            # times normaliser 1 is that term: minimal bias's pseudo-inverse included
            np.testing.assert_array_equal(got, want, err_msg=f"{metric} {c}")


def test_list_metric_is_eq_2_to_6():
    rng = np.random.default_rng(2)
    pos = [rng.choice(40, size=rng.integers(1, 8), replace=False) + 1 for _ in range(40)]
    N = np.full(40, 45)
    for metric in METRICS:
        want = [parse_metric(metric).of_set(sorted(P), len(P) + 45) for P in pos]
        np.testing.assert_allclose(multi_positive_metric(metric, pos, N), want, atol=1e-14,
                                   err_msg=metric)


def _simulate(x, N, M, repeats, rng, replace=True):
    """Sampled positions of positives with x[i] non-relevant items above (x sorted), for
    M shared negatives: a draw at full position j (1..N among non-relevant) is above
    positive i iff j <= x[i]. Returns (repeats, k) positions."""
    if replace:
        draws = rng.integers(1, N + 1, size=(repeats, M))
    else:
        draws = np.argsort(rng.random((repeats, N)), axis=1)[:, :M] + 1
    y = (draws[:, :, None] <= np.asarray(x)[None, None, :]).sum(axis=1)
    return y + np.arange(1, len(x) + 1)[None, :]


def _expected_termwise(metric, x, N, M, method, sampling, m_used=None):
    """normaliser * sum_i E[M^_{W_{a_i}}(r~) | x_i] from the one-item law at m_used."""
    m_used = m_used or M
    k = len(x)
    metric = parse_metric(metric)
    total = 0.0
    for a, xi in enumerate(x):
        shifted = metric if metric.kind == "auc" else ShiftedMetric(metric.kind, metric.k, a)
        vec = correction(shifted, N + 1, m_used, method, sampling=sampling)
        total += expected_sampled_metric(shifted, [1 + xi], N + 1, m_used, sampling,
                                         correction=vec)[0]
    exact = multi_positive_metric(metric, [np.arange(1, k + 1) + np.asarray(x)], [N])[0]
    # the normaliser: ratio of the exact metric to its sum of terms
    terms = sum(float((metric if metric.kind == "auc" else
                       ShiftedMetric(metric.kind, metric.k, a))([1 + xi], N + 1)[0])
                for a, xi in enumerate(x))
    return total * exact / terms, exact


@pytest.mark.parametrize("sampling", ["binomial", "hypergeometric"])
def test_expected_corrected_metric_shared_negatives(sampling):
    """Simulated shared negatives: the mean corrected metric matches the term-wise expectation
    (within 4 SE), and the unbiased cases (AUC uncorrected / CLS) match the exact metric."""
    rng = np.random.default_rng(3)
    N, M, repeats = 300, 40, 4000
    x = [2, 2, 9, 30, 120]          # ties in x: two positives with the same x
    pos = _simulate(x, N, M, repeats, rng, replace=sampling == "binomial")
    Ns, Ms = np.full(repeats, N), np.full(repeats, M)
    for metric in ["recall@10", "ndcg@10", "ap", "auc", "hit@10", "mrr@10"]:
        for method in ["sampled", "rank_estimate", "cls", "bv_0.1"]:
            got = correct_multi_positive(metric, pos, Ns, Ms, method, sampling=sampling)
            want, exact = _expected_termwise(metric, x, N, M, method, sampling)
            se = got.std(ddof=1) / np.sqrt(repeats)
            assert abs(got.mean() - want) <= 4 * se + 1e-12, (metric, method, got.mean(),
                                                               want, se)
            if metric == "auc" and method in ("sampled", "cls"):
                assert abs(got.mean() - exact) <= 4 * se, (method, got.mean(), exact)


def test_thinned_correction_has_the_thinned_expectation():
    """M > thin_to: the Rao-Blackwellised thinning has the expectation of M^ at m' = thin_to."""
    rng = np.random.default_rng(4)
    N, M, thin_to, repeats = 500, 150, 30, 4000
    x = [0, 5, 40]
    pos = _simulate(x, N, M, repeats, rng)
    for metric, method in [("recall@10", "cls"), ("ndcg@10", "bv_0.1")]:
        got = correct_multi_positive(metric, pos, np.full(repeats, N), np.full(repeats, M),
                                     method, thin_to=thin_to)
        want, _ = _expected_termwise(metric, x, N, M, method, "binomial", m_used=thin_to)
        se = got.std(ddof=1) / np.sqrt(repeats)
        assert abs(got.mean() - want) <= 4 * se, (metric, method, got.mean(), want, se)


def test_per_positive_law_moments():
    """The documented laws: mean M x / N for all; per_positive = Binomial(k m)."""
    N, x, m, k = 50, 12, 7, 3
    y = np.arange(k * m + 1)
    for protocol in ["per_positive", "per_positive_without"]:
        pmf = negatives_above_pmf(x, N, m, protocol, k)
        assert pmf.sum() == pytest.approx(1.0)
        assert pmf @ y == pytest.approx(k * m * x / N)
    var_with = negatives_above_pmf(x, N, m, "per_positive", k) @ (y - k * m * x / N) ** 2
    var_without = negatives_above_pmf(x, N, m, "per_positive_without", k) @ (
        y - k * m * x / N) ** 2
    assert var_with == pytest.approx(k * m * (x / N) * (1 - x / N))
    assert var_without == pytest.approx(var_with * (N - m) / (N - 1))
    with pytest.raises(ValueError, match="positions alone cannot be corrected"):
        negatives_above_pmf(x, N, m, "popularity")


@pytest.mark.parametrize("positions, N, M, message", [
    ([[1, 13]], [50], [10], "beyond its list of k_u \\+ M_u = 12"),
    ([[3, 3]], [50], [10], "position 3 given twice"),
    ([[1, 2]], [50], [0], "user 0: n_negatives 0 is not >= 1: no sampled negatives"),
    ([[1, 2]], [0], [5], "user 0: n_nonrelevant 0 is not >= 1"),
    ([[True, False]], [50], [10], "booleans"),
    ([[1.5, 2]], [50], [10], "non-integral"),
    ([[np.nan, 2]], [50], [10], "NaN"),
    ([[0, 2]], [50], [10], "user 0: position 0 is not >= 1"),
    ([[1, 2]], [50.5], [10], "n_nonrelevant must be integers"),
    ([[1, 2]], [50], [True], "n_negatives must be integers, got booleans"),
    ([[1], [2]], [50], [10], "positions given for 2 users but n_nonrelevant for 1"),
    ([[1, 2], []], [50, 50], [10, 10], "user 1 has no positives"),
])
def test_bad_input(positions, N, M, message):
    with pytest.raises(ValueError, match=message):
        correct_multi_positive("recall@10", positions, N, M, "cls")


def test_bad_correction_and_law():
    with pytest.raises(ValueError, match="unknown correction 'clss'"):
        correct_multi_positive("recall@10", [[1]], [50], [10], "clss")
    with pytest.raises(ValueError, match="unknown sampling law"):
        correct_multi_positive("recall@10", [[1]], [50], [10], "cls", sampling="pop")
    with pytest.raises(ValueError, match="from only N_u = 5"):
        correct_multi_positive("recall@10", [[1]], [5], [10], "cls",
                               sampling="hypergeometric")


def test_vector_table_grid_matches_exact_lookup():
    """Many distinct n: the interpolated vectors (VectorTable's grid) agree with the exact
    per-n vectors within the lookup's tolerance 1e-6."""
    from sampled_metrics.corrections import correction_lookup, parse_correction
    from sampled_metrics.corrections.lookup import LOOKUP_TOL
    from sampled_metrics.multipositive.lookup import VectorTable
    metrics = [ShiftedMetric("ndcg", 10, a) for a in (0, 3)] + [ShiftedMetric("auc")]
    parsed = [parse_correction("cls"), parse_correction("bv_0.1")]
    n_values = np.unique(np.geomspace(300, 3000, 80).astype(int))
    table = VectorTable(metrics, parsed, n_values, 20, "binomial")
    assert table.weights is not None            # the grid was used
    exact = correction_lookup(metrics, parsed, n_values, 20, "binomial", exact=True)
    for c in range(len(metrics)):
        assert np.abs(table.column(c) - exact[:, c]).max() <= LOOKUP_TOL


@pytest.mark.numerical
@pytest.mark.parametrize("sampling", ["binomial", "hypergeometric"])
def test_hit_and_mrr_correct_the_first_positive_as_one_item(sampling):
    """Hit@K and MRR@K of several positives are the one-item correction of the first
    positive's sampled rank p_1 (a_1 = 0), with n = N_u + 1, m = M_u."""
    rng = np.random.default_rng(5)
    U = 40
    M = rng.integers(5, 30, U)
    N = M + rng.integers(1, 100, U)
    k = rng.integers(1, 4, U)
    pos = [np.sort(rng.choice(m + kk, size=kk, replace=False) + 1) for m, kk in zip(M, k)]
    for metric, one_item in [("hit@10", "recall@10"), ("mrr@10", "ap@10"), ("mrr", "ap")]:
        for method in ["sampled", "rank_estimate", "cls", "bv_0.1"]:
            got = correct_multi_positive(metric, pos, N, M, method, sampling=sampling)
            want = [apply_correction(correction(one_item, n + 1, m, method,
                                                sampling=sampling), [p[0]])[0]
                    for n, m, p in zip(N, M, pos)]
            # bit-identical, as in test_one_positive_identity: Hit and MRR keep the first
            # positive's term alone (a_1 = 0), whose weights are recall's and AP's expressions
            np.testing.assert_array_equal(got, want, err_msg=f"{metric} {method}")
