import math

import numpy as np
import pytest
from rounding import U, gamma, product_bound
from scipy import optimize, special

from sampled_metrics import correction
from sampled_metrics.design import Design
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


def loglik_rounding(ll, n, m):
    """Bound of the rounding of L = sum_r~ h(r~) log q(r~), q = pi A, sum h = 1, in any order:
    q sums n terms of one sign (gamma(n) relative, so gamma(n) in log q, times sum h = 1), and
    the k = m + 1 terms h log q <= 0 (q <= 1) have one sign: a product, a log and the sum,
    (gamma(m + 1) + 4 u) |L|."""
    return gamma(n) + (gamma(m + 1) + 4 * U) * np.abs(ll)


def em_step_rounding(n, m):
    """Relative bound of the difference of one EM step pi * A (h / pi A) / sum summed in two
    orders: per path q = pi A (gamma(n)), h / q, g = A (h / q) (gamma(m + 1)), pi g and its
    total (gamma(n)), the division; each path 3 gamma(n) + 2 gamma(m + 1) + 7 u. EM's map
    does not amplify a perturbation (the eigenvalues of its Jacobian lie in [0, 1], Dempster,
    Laird & Rubin 1977), so t steps differ by at most t times this."""
    return 2 * (3 * gamma(n) + 2 * gamma(m + 1) + 7 * U)


def mes_rounding(pi, hist, n, m, law, eta):
    """Rounding bounds of MES at its point pi, in any summation order: (1) of the KKT spread,
    twice the entry-wise bounds of the test's gradient -eta (log pi + 1) - 2 A (P (q - P))
    and of the solver's A (2 P (P + y / 2P - q)) (q = pi A sums n terms of one sign,
    gamma(n); the products over the k observed ranks gamma(k) of the absolute terms; each
    log, product or difference u); (2) of the primal and dual values f = -eta pi.log pi -
    P.(q - P)^2 and F = y.P + sum y^2 / 4P + eta logsumexp(-A y / eta) at y = 2 P (q - P)
    (grad F = 0): gamma(n + k + 4) times their absolute terms, with log pi = -A y / eta - lse
    and lse's rounding (gamma(n) + 2 u |lse|) and q's."""
    P = np.asarray(hist, dtype=float)
    obs = P > 0
    A, P = mixture_matrix(n, m, law)[:, obs], P[obs] / P.sum()
    k = P.size
    q = pi @ A
    d, dq, logpi = q - P, gamma(n) * q, np.abs(np.log(pi))
    test = (eta * (2 * U * logpi + 2 * U) + 2 * gamma(k) * (A @ np.abs(P * d))
            + 2 * A @ (P * (dq + U * np.abs(d))) + U * (eta * (logpi + 1) + 2 * A @ np.abs(P * d)))
    solver = 2 * (gamma(k) + 3 * U) * (A @ (P * (P + q + np.abs(d)))) + 2 * A @ (P * dq)
    spread = 2 * (test.max() + solver.max())
    y = 2 * P * d
    lse = np.abs(A @ y).max() / eta + np.log(n)
    terms = (eta * (pi * logpi).sum() + (P * d * d).sum() + np.abs(y * P).sum()
             + (y * y / (4 * P)).sum() + eta * lse)
    value = (gamma(n + k + 4) * terms + 2 * eta * (gamma(n) + 2 * U * lse)
             + pi @ (gamma(k) * (A @ np.abs(y))) + 2 * (P * np.abs(d)) @ dq)
    return spread, value


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


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
def test_em_recovers_known_distribution(law):
    n, m = 500, 49
    r, s = simulate(n, m, law, 200_000)
    pi, info = mle(sampled_rank_histogram(s, m), n, m, law)
    # pi = x / sum x (gamma(n)), summed again here (gamma(n))
    assert info["converged"] and pi.min() >= 0 and abs(pi.sum() - 1) <= 2 * gamma(n)
    assert np.abs(np.cumsum(pi) - np.cumsum(smooth_distribution(n))).max() < 0.02
    # the log-likelihood trace never decreases
    assert np.all(np.diff(info["loglik"]) >= 0)
    assert info["iterations"] == info["loglik"].size - 1


@pytest.mark.numerical
def test_em_loglik_non_decreasing_long_run():
    n, m = 200, 9
    _, s = simulate(n, m, "binomial", 2000, seed=3)
    w = weight_function("ap", 2)
    _, info = mle(sampled_rank_histogram(s, m), n, m, weights=w, tol=0, max_iter=3000)
    ll = info["loglik"]
    assert not info["converged"] and ll.size == 3001
    assert np.all(np.diff(ll) >= -loglik_rounding(ll[1:], n, m)
                  - loglik_rounding(ll[:-1], n, m))            # rounding only
    assert ll[-1] > ll[0]


def test_wmle_with_unit_weights_is_mle_exactly():
    n, m = 400, 19
    _, s = simulate(n, m, "binomial", 5000)
    h = sampled_rank_histogram(s, m)
    pi, info = mle(h, n, m)
    for w in (np.ones(m + 1), weight_function("none")):
        pw, infow = mle(h, n, m, weights=w)
        assert np.array_equal(pw, pi) and np.array_equal(infow["loglik"], info["loglik"])


@pytest.mark.numerical
def test_wmle_is_mle_of_reweighted_histogram():
    n, m = 400, 19
    _, s = simulate(n, m, "binomial", 5000)
    h = sampled_rank_histogram(s, m, normalize=False)
    w = weight_function("ndcg", 10)(np.arange(1, m + 2))
    # exact: mle_problem normalises hist * w once, as check_histogram normalises h * w
    assert np.array_equal(mle(h, n, m, weights=w)[0], mle(h * w, n, m)[0])
    # more weight on small sampled ranks moves mass to small true ranks
    assert mle(h, n, m, weights=w)[0][:20].sum() > mle(h, n, m)[0][:20].sum()


def test_weight_functions():
    s = np.array([1, 10, 50])
    assert np.allclose(weight_function("ndcg", 10)(s), 1 / np.log2(s / 10 + 1))
    assert np.allclose(weight_function("ap", 10)(s), 10 / s)
    assert np.allclose(weight_function("none")(s), 1)


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("eta", [1e-3, 1e-2, 0.3])
def test_mes_is_distribution_and_satisfies_kkt(law, eta):
    n, m = 50, 9
    _, s = simulate(n, m, law, 300, seed=int(eta * 1000))
    h = sampled_rank_histogram(s, m)
    pi, info = mes(h, n, m, law, eta=eta)
    # pi = exp(log pi), log pi = u - logsumexp(u): n exps and two n-term sums, ~2 gamma(n)
    # + u max |log pi| <= 1e-13 here
    assert info["converged"] and np.all(pi > 0) and pi.sum() == pytest.approx(1, abs=1e-12)
    spread, value = mes_rounding(pi, h, n, m, law, eta)
    # the solver stops at its own spread <= tol eta; the two spreads differ by rounding
    assert mes_kkt_residual(pi, h, n, m, law, eta) <= 1e-10 * eta + spread
    assert abs(info["gap"]) <= value        # F - f: >= 0 and ~kkt^2 exactly; rounding of both
    assert mes_kkt_residual(np.full(n, 1 / n), h, n, m, law, eta) > 1e-6


@pytest.mark.numerical
def test_mes_agrees_with_independent_primal_solver():
    """What the maths guarantees, not another solver's argmin. f = eta H - E is eta-strongly
    concave in the L1 norm on the simplex (Pinsker), so any simplex point x obeys
    ||x - pi*||_1 <= sqrt(2 (f* - f(x)) / eta), and the dual value F >= f* (weak duality)
    bounds f* from above: SLSQP's point must lie within sqrt(2 (F - f(x)) / eta) of the
    optimum, ours within sqrt(2 gap / eta), and ours must be at least as good as SLSQP's."""
    n, m, eta = 50, 9, 1e-3
    h = np.array([30, 12, 9, 0, 5, 2, 0, 1, 1, 40], float)     # zeros: unobserved ranks
    pi, info = mes(h, n, m, eta=eta)
    P, A = h / h.sum(), mixture_matrix(n, m)

    def f(x):
        return -eta * special.xlogy(x, x).sum() - P @ (x @ A - P) ** 2

    def jac(x):
        return eta * (np.log(np.maximum(x, 1e-300)) + 1) + 2 * A @ (P * (x @ A - P))

    res = optimize.minimize(lambda x: -f(x), np.full(n, 1 / n), jac=jac, method="SLSQP",
                            bounds=[(1e-300, 1)] * n,
                            constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
                            options={"ftol": 1e-14, "maxiter": 1000})
    x = np.clip(res.x, 0, None)
    x /= x.sum()                                  # SLSQP's point, on the simplex
    dual_value = info["objective"] + info["gap"]  # F(y) >= max f
    spread, r = mes_rounding(pi, h, n, m, "binomial", eta)
    # f at x, which sums to 1 to 2 gamma(n): f moves by eta 2 gamma(n) (sum |x log x| + 1)
    r_x = r + eta * 2 * gamma(n) * (np.abs(special.xlogy(x, x)).sum() + 1)
    assert abs(info["objective"] - f(pi)) <= r     # f in two orders: within F's and f's bound
    assert -r <= info["gap"] < 1e-12               # our point is optimal to 1e-12 (certified)
    assert mes_kkt_residual(pi, h, n, m, eta=eta) <= 1e-10 * eta + spread   # solver's tol
    # no worse than SLSQP's: f(x) <= f* <= F = objective + gap, each value rounded
    assert info["objective"] >= f(x) - max(info["gap"], 0) - r - r_x
    assert f(x) <= dual_value + r + r_x            # SLSQP cannot beat the dual bound
    radius = (np.sqrt(2 * (max(dual_value - f(x), 0) + r + r_x) / eta)
              + np.sqrt(2 * (max(info["gap"], 0) + r) / eta))
    assert np.abs(x - pi).sum() <= radius * (1 + gamma(n))


@pytest.mark.numerical
def test_mes_kkt_at_movielens_size():
    n, m = 3706, 99
    rng = np.random.default_rng(5)
    r = np.clip(np.ceil(n * rng.beta(0.3, 3, 6040)), 1, n).astype(int)
    h = sampled_rank_histogram(draw_sampled_ranks(r, n, m, rng=rng), m)
    pi, info = mes(h, n, m)
    assert info["converged"] and info["iterations"] < 30
    # the solver's tolerance tol eta = 1e-13, and the rounding of the two spreads
    assert mes_kkt_residual(pi, h, n, m) <= 1e-10 * 1e-3 + mes_rounding(pi, h, n, m,
                                                                      "binomial", 1e-3)[0]


@pytest.mark.parametrize("metric", ["recall@10", "precision@5", "ndcg@10", "ap@10", "ap",
                                    "ndcg", "auc"])
@pytest.mark.numerical
def test_metric_from_empirical_distribution_is_mean_metric(metric):
    n = 300
    r = np.random.default_rng(2).integers(1, n + 1, 1000)
    p = np.bincount(r, minlength=n + 1)[1:] / r.size
    values = parse_metric(metric)(r, n)
    exact = math.fsum(values) / r.size             # the sum correctly rounded (M >= 0)
    # p @ M(1..n): n terms of one sign (gamma(n)), p = count / size and the product (2u)
    assert abs(metric_from_distribution(metric, p) - exact) <= (gamma(n) + 3 * U) * exact
    assert abs(values.mean() - exact) <= (gamma(r.size) + U) * exact   # the mean, as well


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


# --- the (weighted) likelihood solvers: SQUAREM (default) against plain EM -----------------

def movielens_histogram(m, law, seed, a=0.53, n=3706, users=6040):
    """Sampled ranks of a synthetic recommender at ML-1M size (Recall@10 ~ 8 %)."""
    rng = np.random.default_rng(seed)
    r = np.clip(np.ceil(n * rng.beta(a, 3.0, users)), 1, n).astype(np.int64)
    return sampled_rank_histogram(draw_sampled_ranks(r, n, m, law, rng=rng), m)


def recall_standard_error(pi, users):
    """sqrt(R (1 - R) / N), R = pi's Recall@10: the standard error of Recall@10 over N users
    had their true ranks been seen, a lower bound of any estimator's spread from their
    sampled ranks (which carry less information than the true ranks)."""
    R = float(pi[:10].sum())
    return np.sqrt(R * (1 - R) / users)


def likelihood_gradient(pi, hist, n, m, law, weights=None):
    """g_r = dL/dpi_r = sum_r~ h(r~) p(r~|r) / q(r~) (h: the weighted, normalised histogram)."""
    h = np.asarray(hist, float) * (1 if weights is None else weights(np.arange(1, m + 2)))
    h = h / h.sum()
    obs = h > 0
    A = mixture_matrix(n, m, law)[:, obs]
    return A @ (h[obs] / (pi @ A))


@pytest.mark.numerical
@pytest.mark.parametrize("m, seeds", [(99, (0, 1)), (499, (0,))])
@pytest.mark.parametrize("weighted", [False, True])
def test_squarem_loglik_at_least_plain_em(m, seeds, weighted):
    n, law = 3706, "hypergeometric"
    w = weight_function("ndcg", 10) if weighted else None
    for seed in seeds:
        h = movielens_histogram(m, law, seed, a=0.48 + 0.08 * seed)
        pe, ie = mle(h, n, m, law, weights=w, solver="em")
        ps, info = mle(h, n, m, law, weights=w)
        assert info["solver"] == "squarem" and info["converged"] and ie["converged"]
        # not lower than EM's (the tolerance is rounding; measured margins are >= 1e-7)
        assert info["loglik"][-1] >= ie["loglik"][-1] - 2 * loglik_rounding(ie["loglik"][-1],
                                                                            n, m)
        assert np.all(np.diff(info["loglik"]) >= 0)     # monotone: it keeps only gains, exact
        assert info["iterations"] == info["loglik"].size - 1
        assert 2 * info["iterations"] <= info["evaluations"] <= 3 * info["iterations"]
        assert info["evaluations"] < ie["iterations"] / 2
        assert ps.min() >= 0 and abs(ps.sum() - 1) <= 2 * gamma(n)   # x / sum x, summed
        # the MLE is not unique: the estimate moves, but by less than the sampling noise (the
        # std of Recall@10 over repeats is ~0.015 for MLE, ~0.03 for WMLE at these sizes)
        assert abs(ps[:10].sum() - pe[:10].sum()) < 1e-2


def test_squarem_stopping_rule():
    """Stop at the first SQUAREM iteration whose gain is <= tol |L| per EM evaluation (2 or
    3 evaluations per iteration)."""
    n, m, law, tol = 3706, 99, "hypergeometric", 8e-9
    _, info = mle(movielens_histogram(m, law, 3), n, m, law, tol=tol)
    ll = info["loglik"]
    gain, ref = np.diff(ll), tol * np.abs(ll[:-1])
    assert info["converged"] and gain[-1] <= 3 * ref[-1]
    assert np.all(gain[:-1] > 2 * ref[:-1])
    # plain EM: the relative change per iteration
    _, info = mle(movielens_histogram(m, law, 3), n, m, law, solver="em")
    ll = info["loglik"]
    assert abs(ll[-1] - ll[-2]) <= 1e-8 * abs(ll[-2])
    assert np.all(np.abs(np.diff(ll[:-1])) > 1e-8 * np.abs(ll[:-2]))


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("weighted", [False, True])
def test_squarem_fixed_point_satisfies_mle_kkt(law, weighted):
    """KKT of max L over the simplex: g_r = dL/dpi_r = 1 where pi_r > 0, <= 1 where pi_r = 0
    (sum_r pi_r g_r = 1 always). EM-type solvers approach the (sparse) MLE slowly, so the
    tolerances are ~3-10x those reached in 3000 SQUAREM iterations (~7500 EM evaluations):
    max g - 1 and |g - 1| on the support 1e-5..3e-4, the pi-weighted mean |g - 1| ~1e-5."""
    n, m = 300, 19
    _, s = simulate(n, m, law, 5000, seed=1)
    h = sampled_rank_histogram(s, m)
    w = weight_function("ap", 5) if weighted else None
    pi, info = mle(h, n, m, law, weights=w, tol=0, max_iter=3000)
    g = likelihood_gradient(pi, h, n, m, law, w)
    # sum pi g = sum h = 1 exactly; q (gamma(n)), h / q, g (gamma(m + 1)) and pi @ g (gamma(n))
    assert abs(pi @ g - 1) <= 2 * gamma(n) + gamma(m + 1) + U
    assert g.max() <= 1 + 1e-3             # so L* - L(pi) <= log max g <= 1e-3 (Jensen)
    support = pi >= 1e-6 * pi.max()
    assert np.abs(g[support] - 1).max() <= 1e-3
    assert pi @ np.abs(g - 1) <= 5e-5
    # at the default stopping point the certified gap is already small
    pi, info = mle(h, n, m, law, weights=w)
    g = likelihood_gradient(pi, h, n, m, law, w)
    assert np.log(g.max()) <= 2e-3 and pi @ np.abs(g - 1) <= 1e-3


@pytest.mark.parametrize("solver", ["squarem", "em"])
def test_wmle_with_unit_weights_is_mle_for_each_solver(solver):
    n, m, law = 3706, 99, "hypergeometric"
    h = movielens_histogram(m, law, 2)
    pi, info = mle(h, n, m, law, solver=solver)
    for w in (np.ones(m + 1), weight_function("none")):
        pw, infow = mle(h, n, m, law, weights=w, solver=solver)
        assert np.array_equal(pw, pi) and np.array_equal(infow["loglik"], info["loglik"])
    hw = h * weight_function("ndcg", 10)(np.arange(1, m + 2))
    assert np.array_equal(mle(h, n, m, law, weights=weight_function("ndcg", 10),
                              solver=solver)[0], mle(hw, n, m, law, solver=solver)[0])


@pytest.mark.numerical
def test_plain_em_is_the_textbook_iteration():
    """solver='em' is pi <- pi * A (h / A^T pi) from the uniform start, stopped at the first
    relative change of L <= tol."""
    n, m, law = 500, 19, "binomial"
    _, s = simulate(n, m, law, 3000, seed=4)
    h = sampled_rank_histogram(s, m)
    A = mixture_matrix(n, m, law)
    got, info = mle(h, n, m, law, solver="em")
    trace, K = info["loglik"], info["iterations"]
    # the rule on the solver's own L values, the floats it compared: exact
    change = np.abs(np.diff(trace)) > 1e-8 * np.abs(trace[:-1])
    assert K == trace.size - 1 == info["evaluations"] and change[:-1].all() and not change[-1]
    pi, ll = np.full(n, 1 / n), [h @ np.log(np.full(n, 1 / n) @ A)]
    for _ in range(K):                      # the textbook iteration, as many steps
        pi = pi * (A @ (h / (pi @ A)))
        pi /= pi.sum()
        ll.append(h @ np.log(pi @ A))
    ll, t = np.array(ll), np.arange(K + 1)
    # after t steps pi differs by <= t em_step_rounding relative, so q and L by as much
    # (sum h = 1), and each L rounds by loglik_rounding
    bound = t * em_step_rounding(n, m) + 2 * loglik_rounding(ll, n, m)
    assert np.all(np.abs(trace - ll) <= bound)
    assert np.all(np.abs(got - pi) <= K * em_step_rounding(n, m) * pi)
    # so the textbook rule |L_t - L_t-1| <= 1e-8 |L_t-1| decides as the solver's did, up to
    # a change of L's within bound_t + bound_t-1 of the threshold
    margin = np.abs(np.diff(ll)) - 1e-8 * np.abs(ll[:-1])
    slack = (bound[1:] + bound[:-1]) * (1 + 1e-8)
    assert margin[-1] <= slack[-1] and np.all(margin[:-1] > -slack[:-1])


def _mle_repeat(hist, n, m, law):
    return mle(hist, n, m, law)[0]


@pytest.mark.numerical
def test_squarem_is_deterministic_whatever_the_processes():
    from sampled_metrics.parallel import map_items
    n, m, law = 3706, 99, "hypergeometric"
    hists = [movielens_histogram(m, law, seed) for seed in range(3)]
    one = map_items(_mle_repeat, hists, n, m, law, processes=1)
    two = map_items(_mle_repeat, hists, n, m, law, processes=2)
    again = [mle(h, n, m, law)[0] for h in hists]
    for a, b, c in zip(one, two, again):    # exact: each alone, on one BLAS thread (em.py)
        assert np.array_equal(a, b) and np.array_equal(a, c)


def test_estimate_dispatch_passes_the_solver():
    n, m = 300, 19
    _, s = simulate(n, m, "binomial", 2000)
    h = sampled_rank_histogram(s, m)
    for estimator, w in (("mle", None), ("wmle", weight_function("ndcg", 10))):
        for solver in ("em", "squarem"):
            assert np.array_equal(estimate_rank_distribution(s, n, m, estimator, solver=solver),
                                  mle(h, n, m, weights=w, solver=solver)[0])
    assert np.array_equal(estimate_rank_distribution(s, n, m, "mle"),
                          estimate_rank_distribution(s, n, m, "mle", solver="squarem"))


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("m", [99, 499])
def test_mes_banded_hessian_has_the_same_optimum(law, m):
    n = 3706
    h = movielens_histogram(m, law, 1)
    eta, tol = 1e-3, 1e-10
    pd, infod = mes(h, n, m, law, hessian="dense")
    pb, infob = mes(h, n, m, law)
    assert infob["converged"] and infod["converged"]
    assert infob["kkt"] <= tol * eta              # the solver's rule on its own number: exact
    (sb, rb), (sd, rd) = (mes_rounding(p, h, n, m, law, eta) for p in (pb, pd))
    kb, kd = (mes_kkt_residual(p, h, n, m, law) for p in (pb, pd))
    assert kb <= tol * eta + sb and kd <= tol * eta + sd          # each within the solver's tol
    if infob["iterations"] != infod["iterations"]:
        # the rule kkt <= tol eta decides on a float: it may flip only where a spread lies
        # within its rounding of the threshold, one Newton step earlier or later
        first = min(infob["iterations"], infod["iterations"])
        near = [abs(mes(h, n, m, law, hessian=x, max_iter=first)[1]["kkt"] - tol * eta)
                for x in ("dense", "banded")]
        assert abs(infob["iterations"] - infod["iterations"]) == 1
        assert min(near) <= max(sb, sd)
    # eta H is eta-strongly concave in the chi-square metric: with s the exact KKT spread,
    # sum (pi - pi*)^2 / xi <= 2 (s / 2 eta)^2 (xi between pi and pi*), so |pi_r - pi*_r|
    # <= sqrt(2 xi_r) s / (2 eta) with xi_r <= 2 max(pb_r, pd_r) + 2 c^2
    c = (kb + sb + kd + sd) / (2 * eta)
    xi = 2 * np.maximum(pb, pd) + 2 * c * c
    assert np.all(np.abs(pb - pd) <= np.sqrt(2 * xi) * c)
    # f* lies in [objective - r, objective + gap + r] for each
    assert abs(infob["objective"] - infod["objective"]) <= (max(infob["gap"], infod["gap"], 0)
                                                           + rb + rd)


@pytest.mark.parametrize("call", [
    lambda: mle(np.ones(11), 100, 10, solver="newton"),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "wmle", solver="mixsqp"),
    lambda: estimate_rank_distribution([1, 2], 100, 10, "mes", solver="em"),
    lambda: mes(np.ones(11), 100, 10, hessian="sparse"),
])
def test_bad_solver_options_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


# --- EM schedule (epochs) and WMLE readings (Jin et al. as their code runs them) ----------

@pytest.mark.numerical
def test_epochs_is_exactly_n_plain_em_steps_from_uniform():
    n, m = 300, 19
    _, s = simulate(n, m, "binomial", 2000)
    h = sampled_rank_histogram(s, m)
    A = mixture_matrix(n, m, "binomial")
    pi = np.full(n, 1 / n)
    for _ in range(7):                       # eq. 21 written out
        pi = pi * (A @ (h / (pi @ A)))
        pi /= pi.sum()
    got, info = mle(h, n, m, epochs=7)
    assert np.all(np.abs(got - pi) <= 7 * em_step_rounding(n, m) * pi)   # 7 steps' rounding
    assert info["iterations"] == 7 and info["solver"] == "em"
    assert np.array_equal(estimate_rank_distribution(s, n, m, "mle-e7", epochs=7), got)


def test_epochs_excludes_stopping_options():
    for opts in ({"epochs": 5, "tol": 1e-6}, {"epochs": 5, "solver": "squarem"},
                 {"epochs": 0}, {"epochs": True}):
        with pytest.raises(ValueError):
            estimate_rank_distribution([1, 2, 3], 100, 10, "mle", **opts)


def test_zero_based_weights_are_the_metric_of_the_shifted_rank():
    s = np.arange(1, 101)
    assert np.allclose(weight_function("ndcg", 10, zero_based=True)(s),
                       1 / np.log2((s - 1) / 10 + 2))
    assert np.allclose(weight_function("ap", 10, zero_based=True)(s), 10 / (s - 1 + 10))


def test_wmle_detilt_undoes_the_tilt_of_the_printed_fit():
    from sampled_metrics.estimators import expected_weights, wmle
    n, m = 300, 19
    _, s = simulate(n, m, "binomial", 3000)
    h = sampled_rank_histogram(s, m)
    w = weight_function("ndcg", 10)
    printed, _ = wmle(h, n, m)
    detilt, info = wmle(h, n, m, reading="detilt")
    wbar = mixture_matrix(n, m, "binomial") @ w(np.arange(1, m + 2))
    assert np.allclose(expected_weights(w, n, m), wbar)
    assert np.allclose(detilt, printed / wbar / (printed / wbar).sum())
    assert info["reading"] == "detilt" and detilt.sum() == pytest.approx(1)
    # the printed reading moves mass to small ranks; de-tilting moves it back (toward MLE)
    plain = mle(h, n, m)[0]
    assert plain[:10].sum() < detilt[:10].sum() < printed[:10].sum()
    with pytest.raises(ValueError):
        wmle(h, n, m, reading="tilted")


@pytest.mark.numerical
@pytest.mark.parametrize("weighted", [False, True])
def test_batched_squarem_equals_one_row_at_a_time(weighted):
    """mle_rows runs each row's own SQUAREM (steps, safeguard, stopping rule) with shared
    matrix products. A product sums in another order than a matrix-vector product, and a
    rounding-level change can flip a safeguard decision and move the stopping point along
    the flat ridge of L (see mle), so each row must: converge, reach a log-likelihood within
    the certified gap log max g of the one-row solver's (L <= L* <= L + log max g) and not
    below plain EM's, and give Recall@10 within half a standard error of it
    (recall_standard_error, the spread even with the true ranks seen; the MLE's std over
    repeats is ~0.015)."""
    from sampled_metrics.estimators.em import squarem_rows
    from sampled_metrics.estimators import (MLE_TOL, SQUAREM_STEP_FACTOR, mle_problem,
                                            mle_rows)
    n, m, law = 3706, 99, "hypergeometric"
    w = weight_function("ndcg", 10) if weighted else None
    hists = [movielens_histogram(m, law, seed, a=0.44 + 0.04 * seed) for seed in range(4)]
    batch = mle_rows(hists, n, m, law, weights=w)
    problems = [mle_problem(h, Design(n, m, law), w, 10_000, None, None, None, None)
                for h in hists]
    _, info = squarem_rows(problems[0][0], np.stack([p[1] for p in problems]),
                           np.stack([p[2] for p in problems]), 10_000, MLE_TOL["squarem"],
                           SQUAREM_STEP_FACTOR)
    assert info["converged"].all()
    for j, h in enumerate(hists):
        one, ione = mle(h, n, m, law, weights=w)
        _, iem = mle(h, n, m, law, weights=w, solver="em")
        # each L is within the other's certified gap log max g (see the banded test below)
        gap_batch, gap_one = (np.log(likelihood_gradient(p, h, n, m, law, w).max())
                              for p in (batch[j], one))
        slack = gamma(m + 1) * (2 * abs(ione["loglik"][-1]) + 1)
        assert (ione["loglik"][-1] - gap_batch - slack <= info["loglik"][j]
                <= ione["loglik"][-1] + gap_one + slack)
        assert info["loglik"][j] >= iem["loglik"][-1] - 2 * loglik_rounding(iem["loglik"][-1],
                                                                           n, m)
        # two stopping points on the ridge: within half a standard error of Recall@10
        # (recall_standard_error of movielens_histogram's 6,040 users)
        diff = abs(batch[j, :10].sum() - one[:10].sum())
        assert diff <= 0.5 * recall_standard_error(one, 6040)
        assert batch[j].min() >= 0 and abs(batch[j].sum() - 1) <= 2 * gamma(n)


@pytest.mark.numerical
@pytest.mark.parametrize("law", ["binomial", "hypergeometric"])
def test_banded_products_are_the_dense_products(law):
    """The band leaves out only entries below BAND_FLOOR = 1e-30, so P @ A and R @ A^T agree
    with the dense products to rounding; the band is used at m = 499, not at m = 99."""
    from sampled_metrics.estimators.band import BAND_FLOOR, BandedMatrix, banded
    rng = np.random.default_rng(3)
    for n, m in [(3706, 499), (1000, 499), (3706, 99)]:
        A = mixture_matrix(n, m, law)
        B = BandedMatrix(A)
        assert [type(banded(A)).__name__ == "BandedMatrix"] == [m == 499]
        P = rng.random((7, n))
        P /= P.sum(axis=1, keepdims=True)
        R = rng.random((7, m + 1)) * 50
        # two orders of the same sums (2 product_bound), less the band's left-out entries,
        # each below BAND_FLOOR, times the other operand's row sum
        floor = BAND_FLOOR * np.c_[P.sum(axis=1)], BAND_FLOOR * np.c_[R.sum(axis=1)]
        assert np.all(np.abs(B.left(P) - P @ A) <= 2 * product_bound(P, A) + floor[0])
        assert np.all(np.abs(B.right(R) - R @ A.T) <= 2 * product_bound(R, A.T) + floor[1])
        # a permuted order of the dense sums is within the same bound of P @ A
        order = np.random.default_rng(1).permutation(n)
        assert np.all(np.abs(P[:, order] @ A[order] - P @ A) <= 2 * product_bound(P, A))
        assert B.share < (0.45 if m == 499 else 0.85)


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
def test_mes_band_on_observed_columns_carries_the_weighted_gram(law):
    """MES's band (entries >= MES_HESSIAN_DROP times their row's maximum, MES_HESSIAN_ROWS
    rows a block) restricted to the observed columns: disjoint row blocks, each spanning
    exactly the observed columns of its kept entries, so the banded A^T diag(w) A leaves out
    only terms with an entry below MES_HESSIAN_DROP (a row's maximum is <= 1)."""
    from sampled_metrics.estimators.band import band_blocks, restrict_blocks, weighted_gram
    from sampled_metrics.estimators.entropy import MES_HESSIAN_DROP, MES_HESSIAN_ROWS
    rng = np.random.default_rng(5)
    for n, m, observed in [(3706, 499, 1.0), (3706, 499, 0.1), (1000, 99, 0.5)]:
        full = mixture_matrix(n, m, law)
        cols = np.flatnonzero(rng.random(m + 1) < observed)
        blocks = restrict_blocks(band_blocks(full, MES_HESSIAN_DROP, MES_HESSIAN_ROWS,
                                             relative=True), cols)
        A = full[:, cols]
        keep = (full >= MES_HESSIAN_DROP * full.max(axis=1, keepdims=True))[:, cols]
        covered = np.zeros_like(keep)
        for lo, hi, c0, c1 in blocks:
            assert 0 < hi - lo <= MES_HESSIAN_ROWS
            assert keep[lo:hi, c0].any() and keep[lo:hi, c1 - 1].any()
            covered[lo:hi, c0:c1] = True
        assert all(b[1] <= c[0] for b, c in zip(blocks, blocks[1:]))
        assert not (keep & ~covered).any()
        w = rng.random(n)
        w /= w.sum()
        G, D = weighted_gram(A, np.sqrt(w), blocks), A.T @ (w[:, None] * A)
        # left out: sum_r w_r A_ra A_rb with A_ra or A_rb < MES_HESSIAN_DROP, at most
        # MES_HESSIAN_DROP (q_a + q_b), q = A^T w; rounding: n terms of one sign in each,
        # after up to 4 roundings of each term (sqrt w, B = A sqrt w, B_ra B_rb)
        q = w @ A
        assert np.all(np.abs(G - D) <= 2 * gamma(n + 4) * D
                      + MES_HESSIAN_DROP * (q[:, None] + q[None, :]))


def em_map_bounds(A, H, PI, Q, floor):
    """Entry-wise bounds of the rounding of one path of :func:`_em_map` (F, Q', log(F / PI))
    against the exact map, to first order in u: G = (H / Q) A^T sums k = m + 1 terms of one
    sign (gamma(k) + u relative, plus ``floor`` times sum H / Q for the band's left-out
    entries), PI * G adds u, the row total sums n terms (gamma(n)), Q' = F A sums n terms
    (gamma(n), plus ``floor`` times the row total); each division and log adds u (the log
    of x (1 + d) moves by d)."""
    n, k = A.shape
    ratio = np.divide(H, Q, out=np.zeros_like(H), where=H > 0)
    G = ratio @ A.T
    bG = (gamma(k) + U) * G + floor * ratio.sum(axis=1, keepdims=True)
    out = PI * G
    b_out = PI * bG + U * out
    total = out.sum(axis=1, keepdims=True)
    b_total = gamma(n) * total + b_out.sum(axis=1, keepdims=True)
    F, Qr = out / total, out @ A
    bF = b_out / total + F * (b_total / total + U)
    bQ = (gamma(n) * Qr + b_out @ A + floor * total) / total + Qr / total * (b_total / total + U)
    with np.errstate(divide="ignore", invalid="ignore"):
        logG, logt = np.log(G), np.log(total)
        bL = bG / G + b_total / total + 2 * U * (np.abs(logG) + np.abs(logt) + np.abs(logG - logt))
    return bF, bQ, bL


@pytest.mark.numerical
def test_banded_em_map_is_the_dense_map_and_squarem_stops_within_its_tolerance(monkeypatch):
    """One EM map through the band is the dense map to rounding (same maths): each path is
    within its rounding bound (em_map_bounds) of the map computed in long double, and of the
    map summed in a permuted order (another BLAS's order). SQUAREM on the band (m = 499,
    where it is used) then stops where a rounding-level change may leave it (see
    test_batched_squarem_equals_one_row_at_a_time): converged, log-likelihood within the
    certified gap of the dense solver's and not below plain EM's, Recall@10 within half a
    standard error."""
    from sampled_metrics.estimators import band
    from sampled_metrics.estimators.em import _em_map
    n, m, law = 3706, 499, "hypergeometric"
    A = mixture_matrix(n, m, law)
    hists = [movielens_histogram(m, law, seed) for seed in range(3)]
    H = np.stack([h / h.sum() for h in hists])
    rng = np.random.default_rng(0)
    PI = rng.random((3, n))
    PI /= PI.sum(axis=1, keepdims=True)
    Q = PI @ A
    dense, banded = band.banded(A, share=0.0), band.banded(A)
    assert isinstance(banded, band.BandedMatrix)
    on_dense, on_band = _em_map(dense, H, PI, Q), _em_map(banded, H, PI, Q)
    bound_dense = em_map_bounds(A, H, PI, Q, 0.0)
    bound_band = em_map_bounds(A, H, PI, Q, band.BAND_FLOOR)
    ld = np.longdouble             # the exact map, to u_ld / u of the bound (1 without it)
    exact = _em_map(band._Dense(A.astype(ld)), H.astype(ld), PI.astype(ld), Q.astype(ld))
    u_ld = float(np.finfo(ld).eps) / 2 / U
    order = np.random.default_rng(1)                           # another order of the sums
    rows, cols = order.permutation(n), order.permutation(m + 1)
    shuffled = _em_map(band._Dense(np.ascontiguousarray(A[rows][:, cols])), H[:, cols],
                       PI[:, rows], Q[:, cols])
    permuted = [np.empty_like(x) for x in shuffled]
    for back, x, index in zip(permuted, shuffled, (rows, cols, rows)):
        back[:, index] = x
    for x, y, e, p, bx, by in zip(on_dense, on_band, exact, permuted, bound_dense, bound_band):
        finite = np.isfinite(e)               # log(F / PI) is -inf where G = 0 exactly
        for z in (x, y, p):
            assert np.array_equal(np.isfinite(z), finite) and (z[~finite] == e[~finite]).all()
        e = e[finite]
        x, y, p, bx, by = (v[finite] for v in (x, y, p, bx, by))
        assert (np.abs(x - e) <= bx * (1 + u_ld)).all()       # dense: its rounding bound
        assert (np.abs(y - e) <= by + bx * u_ld).all()        # band: its own
        assert (np.abs(y - x) <= bx + by).all()               # so they differ by both at most
        assert (np.abs(p - x) <= 2 * bx).all()                # two orders of the dense sums
    from sampled_metrics.estimators import mle_rows
    on_band = mle_rows(hists, n, m, law)
    monkeypatch.setattr(band, "BAND_SHARE", -1.0)            # the dense products
    off_band = mle_rows(hists, n, m, law)
    for j, h in enumerate(hists):
        lb, ld = (_loglik_of(p, h, n, m, law) for p in (on_band[j], off_band[j]))
        # L* - L(pi) <= log max_r g_r(pi) (Jensen, see test_squarem_fixed_point_satisfies_
        # mle_kkt), and L <= L*: each is within the other's certified gap (plus L's rounding,
        # gamma(m + 1) |L| each, and log max g's, gamma(m + 1))
        gap_b, gap_d = (np.log(likelihood_gradient(p, h, n, m, law).max())
                        for p in (on_band[j], off_band[j]))
        slack = gamma(m + 1) * (2 * abs(ld) + 1)
        assert ld - gap_b - slack <= lb <= ld + gap_d + slack
        _, iem = mle(h, n, m, law, solver="em")
        assert lb >= iem["loglik"][-1] - 2 * loglik_rounding(iem["loglik"][-1], n, m)
        # two stopping points on the ridge: within half a standard error of Recall@10
        # (recall_standard_error of movielens_histogram's 6,040 users)
        diff = abs(on_band[j, :10].sum() - off_band[j, :10].sum())
        assert diff <= 0.5 * recall_standard_error(off_band[j], 6040)


def _loglik_of(pi, hist, n, m, law):
    h = np.asarray(hist, float) / np.sum(hist)
    q = pi @ mixture_matrix(n, m, law)
    return float((h[h > 0] * np.log(q[h > 0])).sum())


@pytest.mark.numerical
def test_batched_epochs_and_readings_equal_one_row_at_a_time():
    """The fixed EM schedule is the same arithmetic batched or not (to rounding); the WMLE
    readings apply to the batched fit as to one (SQUAREM rows within its rounding, as
    above); MES and BV are not batched."""
    from sampled_metrics.estimators import estimate_from_histogram, estimate_many
    n, m, law = 500, 19, "binomial"
    hists = [sampled_rank_histogram(simulate(n, m, law, 3000, seed=s)[1], m) for s in range(3)]
    top10 = np.r_[np.ones(10), np.zeros(n - 10)]
    for estimator, opts in [("mle", {"epochs": 40}), ("wmle", {"epochs": 40, "reading": "detilt"}),
                         ("wmle", {"reading": "zero_based", "C": 5}), ("mle", {}),
                         ("mes", {"eta": 0.01}), ("bv_0.1", {})]:
        many = estimate_many(hists, n, m, estimator, law, **opts)
        one = np.stack([estimate_from_histogram(h, n, m, estimator, law, **opts) for h in hists])
        assert many.shape == (3, n) and np.allclose(many.sum(axis=1), 1)
        if estimator in ("mes", "bv_0.1"):      # the same function on each row: exact
            assert np.array_equal(many, one), (estimator, opts)
        elif "epochs" in opts:                  # 40 steps, each summed in another order
            assert np.all(np.abs(many - one) <= 40 * em_step_rounding(n, m) * np.abs(one))
        else:
            # two stopping points on the ridge: within half a standard error of Recall@10
            # (recall_standard_error of the 3,000 users simulated)
            se = np.array([recall_standard_error(p, 3000) for p in one])
            assert np.all(np.abs((many - one) @ top10) <= 0.5 * se), (estimator, opts)


def test_mes_eta_scaling_bins_is_eta_over_the_number_of_bins():
    """eta_scaling='bins' (the authors' code: gamma / (m + 1)) is MES with eta / (m + 1)."""
    from sampled_metrics.estimators import estimate_from_histogram
    n, m, law = 400, 19, "binomial"
    h = sampled_rank_histogram(simulate(n, m, law, 4000, seed=5)[1], m)
    scaled = estimate_from_histogram(h, n, m, "mes", law, eta=0.01, eta_scaling="bins")
    direct = estimate_from_histogram(h, n, m, "mes", law, eta=0.01 / (m + 1))
    assert np.array_equal(scaled, direct)
    assert not np.allclose(scaled, estimate_from_histogram(h, n, m, "mes", law, eta=0.01))
    with pytest.raises(ValueError, match="eta_scaling"):
        estimate_from_histogram(h, n, m, "mes", law, eta_scaling="per_bin")


@pytest.mark.numerical
def test_estimate_batches_is_estimate_many_on_fixed_batches():
    """estimate_batches: estimate_many on batches of BATCH_HISTOGRAMS, the same numbers with
    one process or two (BLAS single-threaded either way)."""
    from threadpoolctl import threadpool_limits

    from sampled_metrics.estimators import (BATCH_HISTOGRAMS, estimate_batches,
                                            estimate_many)
    n, m, law = 500, 19, "binomial"
    hists = [sampled_rank_histogram(simulate(n, m, law, 400, seed=s)[1], m)
             for s in range(BATCH_HISTOGRAMS + 7)]
    for estimator in ("mle", "wmle", "mes"):
        with threadpool_limits(1):
            expected = np.concatenate([
                estimate_many(hists[:BATCH_HISTOGRAMS], n, m, estimator, law),
                estimate_many(hists[BATCH_HISTOGRAMS:], n, m, estimator, law)])
        for processes in (1, 2):
            got = estimate_batches(hists, n, m, estimator, law, processes=processes)
            assert np.array_equal(got, expected), (estimator, processes)
    assert estimate_batches([], n, m, "mle").shape == (0, n)
