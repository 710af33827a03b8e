from fractions import Fraction
from math import comb

import numpy as np
import pytest
from rounding import U, gamma, product_bound
from scipy import special

from sampled_metrics.estimators.adaptive import adaptive_mle
from sampled_metrics.evaluation.negatives import check_sample_size
from sampled_metrics.evaluation.rankfile import RankFile
from sampled_metrics.metrics import parse_metric
from sampled_metrics.multipositive import correct_multi_positive
from sampled_metrics.design import check_nm
from sampled_metrics.sampling import (BAND_EPS, draw_sampled_ranks, expected_metric_matrix,
                                      expected_sampled_metric, rank_pmf, rank_pmf_band)

LAWS = ["binomial", "hypergeometric"]


def exact_pmf(r, n, m, law):
    if law == "binomial":
        return np.array([float(Fraction(comb(m, k) * (r - 1) ** k * (n - r) ** (m - k),
                                        (n - 1) ** m)) for k in range(m + 1)])
    return np.array([float(Fraction(comb(r - 1, k) * comb(n - r, m - k), comb(n - 1, m)))
                     for k in range(m + 1)])


def pmf_rounding(r, n, m, law):
    """Entry-wise relative bound of the rounding of rank_pmf's p(k + 1 | r), k = 0..m: exp
    of a log adds u |log p| + u; binomial: log C(m, k) + k log q + (m - k) log(1 - q), each
    log-gamma and term within 4 u of its size; hypergeometric: the partial sums of the log
    ratios (np.cumsum over <= m + 1 terms) err by gamma(m + 1) sum_j |log ratio_j|, the
    log-sum-exp normalisation by as much again."""
    r = np.asarray(r, dtype=float)[:, None]
    k = np.arange(m + 1)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        if law == "binomial":
            q = (r - 1) / (n - 1)
            terms = (special.gammaln(m + 1) + special.gammaln(k + 1)
                     + special.gammaln(m - k + 1)
                     + np.abs(np.where(k > 0, k * np.log(q), 0))
                     + np.abs(np.where(k < m, (m - k) * np.log1p(-q), 0)))
            log_error = 4 * U * terms
        else:
            K, N = r - 1, n - 1
            j = k[:, :-1]
            t = np.log((K - j) * (m - j)) - np.log((j + 1) * (N - K - m + j + 1))
            t = np.where(np.isfinite(t), np.abs(t), 0).sum(axis=1, keepdims=True)
            log_error = 2 * gamma(m + 1) * (t + 1)
        log_p = np.log(rank_pmf(r[:, 0], n, m, law))
    return log_error + U * np.where(np.isfinite(log_p), np.abs(log_p), 0) + U


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("n,m,r", [(50, 7, 1), (50, 7, 20), (50, 7, 50), (100_000, 99, 40_001)])
def test_pmf_matches_exact_rational_arithmetic(law, n, m, r):
    exact = exact_pmf(r, n, m, law)
    got = rank_pmf(r, n, m, law)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)
    big = exact > 1e-250
    assert np.allclose(got[big], exact[big], rtol=1e-9, atol=0)
    assert np.all(got[~big] < 1e-240)


@pytest.mark.parametrize("law", LAWS)
def test_pmf_large_n_no_garbage(law):
    n, m = 1_000_000, 10_000
    P = rank_pmf(np.array([1, 2, 500_000, n]), n, m, law)
    assert np.all(np.isfinite(P)) and np.all(P >= 0)
    assert np.allclose(P.sum(axis=1), 1.0, atol=1e-9)
    assert P[0, 0] == pytest.approx(1.0, abs=1e-9) and P[-1, -1] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
def test_band_holds_all_mass(law):
    lo, B = rank_pmf_band(300, 700, 5000, 200, law)
    r = np.arange(300, 701)
    full = rank_pmf(r, 5000, 200, law)[:, lo:lo + B.shape[1]]
    eps = pmf_rounding(r, 5000, 200, law)[:, lo:lo + B.shape[1]]
    if law == "binomial":               # exact: the same element-wise formula per entry
        assert np.array_equal(full, B)
    else:                               # the recurrence over two ranges of k, renormalised
        assert np.all(np.abs(full - B) <= (2 * eps + 2 * BAND_EPS) * full)
    # each entry within eps, the band leaves out <= 2 BAND_EPS, the sum gamma(width)
    assert np.all(np.abs(B.sum(axis=1) - 1) <= (eps * B).sum(axis=1) + 2 * BAND_EPS
                  + gamma(B.shape[1]))


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("n,m", [(20, 1), (20, 19), (1000, 99), (10_000, 3)])
def test_sampled_auc_is_unbiased(law, n, m):
    r = np.arange(1, n + 1)
    assert np.allclose(expected_sampled_metric("auc", r, n, m, law), (n - r) / (n - 1),
                       atol=1e-12)


@pytest.mark.parametrize("metric", ["ap", "ndcg", "recall@10", "ap@5", "precision@3"])
def test_hypergeometric_with_all_items_is_exact(metric):
    n = 300
    r = np.arange(1, n + 1)
    got = expected_sampled_metric(metric, r, n, n - 1, "hypergeometric")
    assert np.allclose(got, parse_metric(metric)(r, n), atol=1e-12)


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("metric", ["ap", "ndcg", "recall@10", "auc", "ndcg@1"])
def test_m_equal_one_is_affine_in_rank(law, metric):
    n = 500
    r = np.arange(1, n + 1)
    e = expected_sampled_metric(metric, r, n, 1, law)
    M = parse_metric(metric).weights(2)
    # E = r (M(2) - M(1))/(n - 1) + (n M(1) - M(2))/(n - 1)    (Sec. 4.4.4)
    assert np.allclose(e, r * (M[1] - M[0]) / (n - 1) + (n * M[0] - M[1]) / (n - 1))


def test_expected_ap_closed_form_eq19():
    n, m = 10_000, 99
    r = np.array([2, 40, 100, 5342])
    p = (r - 1) / (n - 1)
    closed = (1 - (1 - p) ** (m + 1)) / (p * (m + 1))
    assert np.allclose(expected_sampled_metric("ap", r, n, m), closed, rtol=1e-12)


def test_expected_recall_is_binomial_cdf_eq18():
    from scipy import stats
    n, m, k = 10_000, 99, 10
    r = np.array([1, 50, 212, 743])
    assert np.allclose(expected_sampled_metric(f"recall@{k}", r, n, m),
                       stats.binom.cdf(k - 1, m, (r - 1) / (n - 1)))


@pytest.mark.parametrize("law", LAWS)
def test_draws_match_law_and_are_seeded(law):
    n, m, r = 200, 30, 80
    a = draw_sampled_ranks(np.full(40_000, r), n, m, law, rng=1)
    b = draw_sampled_ranks(np.full(40_000, r), n, m, law, rng=1)
    assert np.array_equal(a, b)
    assert a.min() >= 1 and a.max() <= m + 1
    freq = np.bincount(a - 1, minlength=m + 1) / a.size
    assert np.abs(freq - rank_pmf(r, n, m, law)).max() < 0.01


def test_expected_metric_matrix_agrees_with_single():
    n, m = 1000, 50
    r = np.arange(1, n + 1, 7)
    w = [parse_metric("ap").weights(m + 1), parse_metric("auc").weights(m + 1)]
    both = expected_metric_matrix(w, r, n, m)
    assert np.allclose(both[0], expected_sampled_metric("ap", r, n, m))
    assert np.allclose(both[1], expected_sampled_metric("auc", r, n, m))


@pytest.mark.parametrize("n,m,match", [(10, 10, "n > m"), (10, 0, "m"), (10.5, 3, "integer")])
def test_invalid_arguments(n, m, match):
    with pytest.raises(ValueError, match=match):
        rank_pmf(1, n, m)


#: every entry point that takes a sampling law, called with an unknown one
UNKNOWN_LAW = {
    "check_nm": lambda: check_nm(10, 3, "poisson"),
    "rank_pmf": lambda: rank_pmf(1, 10, 3, "poisson"),
    "draw_sampled_ranks": lambda: draw_sampled_ranks([1], 10, 3, "poisson"),
    "check_sample_size": lambda: check_sample_size([10], 3, "poisson"),
    "correct_multi_positive": lambda: correct_multi_positive("ap", [[1]], [50], [10], "cls",
                                                             sampling="poisson"),
    "adaptive_mle": lambda: adaptive_mle([0], [0], 10, sampling="poisson"),
    "RankFile": lambda: RankFile(users=np.arange(1), exact=np.array([1]), n_u=np.array([5]),
                                 sampled={}, n_items=5, sampling="poisson", tie="random",
                                 seed=0),
}


@pytest.mark.parametrize("call", UNKNOWN_LAW.values(), ids=UNKNOWN_LAW.keys())
def test_every_entry_point_checks_the_law_alike(call):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == ("unknown sampling law 'poisson'; expected one of binomial, "
                              "hypergeometric")


def test_invalid_law_and_ranks():
    with pytest.raises(ValueError, match="sampling law"):
        rank_pmf(1, 10, 3, "poisson")
    with pytest.raises(ValueError, match="1..n"):
        rank_pmf(11, 10, 3)


@pytest.mark.numerical
@pytest.mark.parametrize("law", ["binomial", "hypergeometric"])
@pytest.mark.parametrize("n,m", [(400, 390), (1000, 50), (3706, 3000)])
def test_narrow_blocks_give_the_same_expectation(law, n, m):
    """Band-restricted pmf rows in narrow blocks (the planning of m) against full rows, for
    true ranks in any order and with repeats; the two differ by rounding only."""
    r = np.random.default_rng(1).integers(1, n + 1, size=700)
    w = [parse_metric("ndcg@10").weights(m + 1), np.linspace(1.0, -0.3, m + 1) ** 3]
    full = expected_metric_matrix(w, r, n, m, law)
    narrow = expected_metric_matrix(w, r, n, m, law, narrow_blocks=True)
    W, P = np.stack(w, axis=1), rank_pmf(r, n, m, law)
    # the products in two orders (2 product_bound), the band's left-out mass 2 BAND_EPS
    # times max |w|, and for the hypergeometric rows the recurrence over another range
    pmf = 0 if law == "binomial" else (2 * pmf_rounding(r, n, m, law) * P) @ np.abs(W)
    bound = 2 * product_bound(P, W) + pmf + 2 * BAND_EPS * np.abs(W).max(axis=0)
    assert np.all(np.abs(narrow - full) <= bound.T)
