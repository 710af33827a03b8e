import numpy as np
import pytest
from scipy import optimize, special

from sampled_metrics import correction
from sampled_metrics.estimators import (bv_distribution, estimate_rank_distribution,
                                        metric_from_distribution, mes, mes_kkt_residual,
                                        mixture_matrix, mle, sampled_rank_histogram,
                                        weight_function)
from sampled_metrics.metrics import parse_metric
from sampled_metrics.sampling import draw_sampled_ranks, rank_pmf

LAWS = ["binomial", "hypergeometric"]


def smooth_distribution(n):
    r = np.arange(1, n + 1)
    p = np.exp(-r / (0.12 * n)) + 0.2 * np.exp(-((r - 0.6 * n) / (0.1 * n)) ** 2)
    return p / p.sum()


def simulate(n, m, law, users, seed=0, p=None):
    rng = np.random.default_rng(seed)
    r = rng.choice(np.arange(1, n + 1), users, p=smooth_distribution(n) if p is None else p)
    return r, draw_sampled_ranks(r, n, m, law, rng=rng)


def test_histogram_counts_and_frequencies():
    s = np.array([1, 3, 3, 4, 1, 1])
    assert sampled_rank_histogram(s, 3, normalize=False).tolist() == [3, 0, 2, 1]
    assert np.allclose(sampled_rank_histogram(s.astype(float), 3), [0.5, 0, 1 / 3, 1 / 6])


@pytest.mark.parametrize("law", LAWS)
def test_mixture_matrix_rows_are_rank_pmf_and_cached(law):
    A = mixture_matrix(300, 20, law)
    assert A.shape == (300, 21) and not A.flags.writeable
    assert mixture_matrix(300, 20, law) is A
    assert np.array_equal(A, rank_pmf(np.arange(1, 301), 300, 20, law))


@pytest.mark.parametrize("law", LAWS)
def test_em_recovers_known_distribution(law):
    n, m = 500, 49
    r, s = simulate(n, m, law, 200_000)
    pi, info = mle(sampled_rank_histogram(s, m), n, m, law)
    assert info["converged"] and pi.min() >= 0 and pi.sum() == pytest.approx(1, abs=1e-12)
    assert np.abs(np.cumsum(pi) - np.cumsum(smooth_distribution(n))).max() < 0.02
    # the log-likelihood trace never decreases
    assert np.all(np.diff(info["loglik"]) >= 0)
    assert info["iterations"] == info["loglik"].size - 1


def test_em_loglik_non_decreasing_long_run():
    n, m = 200, 9
    _, s = simulate(n, m, "binomial", 2000, seed=3)
    w = weight_function("ap", 2)
    _, info = mle(sampled_rank_histogram(s, m), n, m, weights=w, tol=0, max_iter=3000)
    ll = info["loglik"]
    assert not info["converged"] and ll.size == 3001
    assert np.all(np.diff(ll) >= -1e-15 * np.abs(ll[1:]))   # rounding only
    assert ll[-1] > ll[0]


def test_wmle_with_unit_weights_is_mle_exactly():
    n, m = 400, 19
    _, s = simulate(n, m, "binomial", 5000)
    h = sampled_rank_histogram(s, m)
    pi, info = mle(h, n, m)
    for w in (np.ones(m + 1), weight_function("none")):
        pw, infow = mle(h, n, m, weights=w)
        assert np.array_equal(pw, pi) and np.array_equal(infow["loglik"], info["loglik"])


def test_wmle_is_mle_of_reweighted_histogram():
    n, m = 400, 19
    _, s = simulate(n, m, "binomial", 5000)
    h = sampled_rank_histogram(s, m, normalize=False)
    w = weight_function("ndcg", 10)(np.arange(1, m + 2))
    assert np.allclose(mle(h, n, m, weights=w)[0], mle(h * w, n, m)[0], rtol=1e-9, atol=1e-15)
    # more weight on small sampled ranks moves mass to small true ranks
    assert mle(h, n, m, weights=w)[0][:20].sum() > mle(h, n, m)[0][:20].sum()


def test_weight_functions():
    s = np.array([1, 10, 50])
    assert np.allclose(weight_function("ndcg", 10)(s), 1 / np.log2(s / 10 + 1))
    assert np.allclose(weight_function("ap", 10)(s), 10 / s)
    assert np.allclose(weight_function("none")(s), 1)


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("eta", [1e-3, 1e-2, 0.3])
def test_mes_is_distribution_and_satisfies_kkt(law, eta):
    n, m = 50, 9
    _, s = simulate(n, m, law, 300, seed=int(eta * 1000))
    h = sampled_rank_histogram(s, m)
    pi, info = mes(h, n, m, law, eta=eta)
    assert info["converged"] and np.all(pi > 0) and pi.sum() == pytest.approx(1, abs=1e-12)
    assert mes_kkt_residual(pi, h, n, m, law, eta) <= 1e-10 * eta    # the solver tolerance
    assert abs(info["gap"]) < 1e-14
    assert mes_kkt_residual(np.full(n, 1 / n), h, n, m, law, eta) > 1e-6


def test_mes_matches_independent_primal_solver():
    n, m, eta = 50, 9, 1e-3
    h = np.array([30, 12, 9, 0, 5, 2, 0, 1, 1, 40], float)     # zeros: unobserved ranks
    pi, info = mes(h, n, m, eta=eta)
    P, A = h / h.sum(), mixture_matrix(n, m)

    def neg(x):
        return -(-eta * special.xlogy(x, x).sum() - P @ (x @ A - P) ** 2)

    def jac(x):
        return eta * (np.log(np.maximum(x, 1e-300)) + 1) + 2 * A @ (P * (x @ A - P))

    res = optimize.minimize(neg, np.full(n, 1 / n), jac=jac, method="SLSQP",
                            bounds=[(1e-300, 1)] * n,
                            constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
                            options={"ftol": 1e-14, "maxiter": 1000})
    assert info["objective"] >= -res.fun - 1e-12
    assert info["objective"] == pytest.approx(-neg(pi), abs=1e-15)
    assert np.abs(np.cumsum(res.x) - np.cumsum(pi)).max() < 1e-2


def test_mes_kkt_at_movielens_size():
    n, m = 3706, 99
    rng = np.random.default_rng(5)
    r = np.clip(np.ceil(n * rng.beta(0.3, 3, 6040)), 1, n).astype(int)
    h = sampled_rank_histogram(draw_sampled_ranks(r, n, m, rng=rng), m)
    pi, info = mes(h, n, m)
    assert info["converged"] and info["iterations"] < 30
    assert mes_kkt_residual(pi, h, n, m) < 1e-12


@pytest.mark.parametrize("metric", ["recall@10", "precision@5", "ndcg@10", "ap@10", "ap",
                                    "ndcg", "auc"])
def test_metric_from_empirical_distribution_is_mean_metric(metric):
    n = 300
    r = np.random.default_rng(2).integers(1, n + 1, 1000)
    p = np.bincount(r, minlength=n + 1)[1:] / r.size
    assert metric_from_distribution(metric, p) == pytest.approx(
        parse_metric(metric)(r, n).mean(), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("gamma", [0.1, 0.01, 1.0])
def test_bv_distribution_matches_bv_recall_corrections(law, gamma):
    n, m = 1000, 30
    _, s = simulate(n, m, law, 3000)
    p_hat = bv_distribution(sampled_rank_histogram(s, m), n, m, gamma, law)
    assert p_hat.sum() == pytest.approx(1, abs=1e-9)
    for K in (1, 5, 10, 100, n):
        want = correction(f"recall@{K}", n, m, "bv", gamma, law)[s - 1].mean()
        assert p_hat[:K].sum() == pytest.approx(want, abs=1e-9)


def test_bv_distribution_with_prior():
    n, m = 500, 20
    prior = smooth_distribution(n)
    _, s = simulate(n, m, "binomial", 2000)
    p_hat = bv_distribution(sampled_rank_histogram(s, m), n, m, 0.1, prior=prior)
    want = correction("recall@10", n, m, "bv", 0.1, prior=prior)[s - 1].mean()
    assert p_hat[:10].sum() == pytest.approx(want, abs=1e-9)


def test_estimate_rank_distribution_dispatch():
    n, m = 300, 19
    _, s = simulate(n, m, "binomial", 2000)
    h = sampled_rank_histogram(s, m)
    got = {k: estimate_rank_distribution(s, n, m, k, **o) for k, o in
           [("mle", {}), ("wmle", {}), ("mes", {"eta": 0.01}), ("bv", {"gamma": 0.1})]}
    assert np.array_equal(got["mle"], mle(h, n, m)[0])
    assert np.array_equal(got["wmle"], mle(h, n, m, weights=weight_function("ndcg", 10))[0])
    assert np.array_equal(got["mes"], mes(h, n, m, eta=0.01)[0])
    assert np.allclose(estimate_rank_distribution(s, n, m, "bv_0.1"), got["bv"])
    assert np.array_equal(estimate_rank_distribution(s, n, m, "wmle", weight="none"),
                          got["mle"])
    for p in got.values():
        assert p.shape == (n,) and p.sum() == pytest.approx(1, abs=1e-9)


@pytest.mark.parametrize("call", [
    lambda: sampled_rank_histogram([1, 2, 12], 10),
    lambda: sampled_rank_histogram([0, 2], 10),
    lambda: sampled_rank_histogram([], 10),
    lambda: sampled_rank_histogram([1.5], 10),
    lambda: sampled_rank_histogram([1], 0),
    lambda: estimate_rank_distribution([1, 12], 100, 10, "mle"),
    lambda: estimate_rank_distribution([], 100, 10, "mle"),
    lambda: estimate_rank_distribution([1, 2], 10, 10, "mle"),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "em"),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "mes", eta=-1),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "mes", eta=0),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "mle", eta=0.1),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "bv"),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "bv", gamma=2),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "wmle", weight="exp"),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "wmle", C=0),
    lambda: mle(np.ones(5), 100, 10),
    lambda: mle(-np.ones(11), 100, 10),
    lambda: mle(np.ones(11), 100, 10, weights=np.ones(3)),
    lambda: mle(np.ones(11), 100, 10, max_iter=0),
    lambda: mle(np.ones(11), 100, 10, sampling="poisson"),
    lambda: mes(np.ones(11), 100, 10, eta=-0.1),
    lambda: mes_kkt_residual(np.ones(5), np.ones(11), 100, 10),
    lambda: metric_from_distribution("recall@10", []),
    lambda: metric_from_distribution("foo", [1.0]),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()
