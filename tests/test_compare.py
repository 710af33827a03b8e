import numpy as np
import pytest
from conftest import toy_rank_file
from rounding import product_bound

from sampled_metrics.compare import (agreement_summary, bias_curve, compare_ranks,
                                     compare_repeats, exact_interval, mes_gradient, verdict)
from sampled_metrics.estimators import estimate_from_histogram, estimate_rank_distribution
from sampled_metrics.corrections import correction
from sampled_metrics.estimators import mixture_matrix
from sampled_metrics.metrics import parse_metric
from sampled_metrics.sampling import draw_sampled_ranks, expected_sampled_metric, rank_pmf

N, M = 1000, 50


def rank_law(power: float, n: int = N) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** power
    return p / p.sum()


def draw_pairs(rng, users, pa, pb, shared: bool, n: int = N, m: int = M, rho: float = 0.7):
    """True ranks (r_A, r_B) with marginals pa, pb, coupled through a common uniform with
    probability rho, and their sampled ranks: with ``shared`` negatives the items above the
    positive under A and under B are nested prefixes of one order of the n - 1 others and the
    same m negatives (with replacement) rank both; else independent draws."""
    u = rng.random(users)
    v = np.where(rng.random(users) < rho, u, rng.random(users))
    ra = np.minimum(np.searchsorted(np.cumsum(pa), u) + 1, n)
    rb = np.minimum(np.searchsorted(np.cumsum(pb), v) + 1, n)
    if not shared:
        return (ra, rb, draw_sampled_ranks(ra, n, m, rng=rng),
                draw_sampled_ranks(rb, n, m, rng=rng))
    lo, hi = np.minimum(ra, rb) - 1, np.maximum(ra, rb) - 1
    p = np.stack([lo, hi - lo, (n - 1) - hi], axis=1) / (n - 1)
    c = rng.multinomial(m, p)
    sa = 1 + c[:, 0] + np.where(ra > rb, c[:, 1], 0)
    sb = 1 + c[:, 0] + np.where(rb > ra, c[:, 1], 0)
    return ra, rb, sa, sb


@pytest.mark.parametrize("shared", [True, False])
def test_bootstrap_interval_covers_true_difference_at_nominal_rate(shared):
    """Coverage of the paired percentile interval of D^ for its expectation
    theta = sum_r (P_A(r) - P_B(r)) E[M^(r~) | r], over fresh users and negatives:
    0.95 within 3 Monte Carlo standard errors (trials = 400: SE = 0.011)."""
    rng = np.random.default_rng(11 if shared else 12)
    pa, pb = rank_law(0.9), rank_law(0.8)
    metrics, methods = ["recall@10", "ndcg@10"], ["sampled", "bv_0.1"]
    A = mixture_matrix(N, M)
    theta = {(x, c): (pa - pb) @ (A @ correction(x, N, M, c)) for x in metrics for c in methods}
    trials, hits = 400, {key: 0 for key in theta}
    for t in range(trials):
        _, _, sa, sb = draw_pairs(rng, 600, pa, pb, shared)
        frame = compare_ranks({"A": sa, "B": sb}, N, M, metrics, methods, bootstrap=200,
                              plugin=None, rng=np.random.default_rng(t))
        for row in frame.itertuples():
            hits[(row.metric, row.method)] += row.ci_low <= theta[(row.metric, row.method)] <= row.ci_high
    se = np.sqrt(0.95 * 0.05 / trials)
    for key, count in hits.items():
        assert abs(count / trials - 0.95) <= 3 * se, (key, count / trials)


def test_paired_interval_is_narrower_with_shared_negatives_and_unpaired_wider():
    rng = np.random.default_rng(3)
    pa, pb = rank_law(0.9), rank_law(0.8)
    widths = {}
    for shared in (True, False):
        _, _, sa, sb = draw_pairs(rng, 4000, pa, pb, shared, rho=1.0)
        for paired in (True, False):
            f = compare_ranks({"A": sa, "B": sb}, N, M, ["recall@10"], ["sampled"],
                              pairing="paired" if paired else "unpaired", plugin=None,
                              seed=1)
            widths[shared, paired] = float(f.ci_high[0] - f.ci_low[0])
    assert widths[True, True] < widths[False, True] < widths[False, False]
    assert widths[True, True] < widths[True, False]


def test_verdict_logic():
    got = verdict([0.1, -0.2, -0.1, 0.0, -0.3], [0.2, -0.1, 0.1, 0.2, 0.0])
    assert list(got) == ["a_better", "b_better", "not_distinguishable", "not_distinguishable",
                         "not_distinguishable"]
    # a positive bias (D^ too large) moves the lower end down, never up; bias 0 is kept
    # the hull of the interval of D^ and of D^ - b^: confident only if both agree
    low, high = exact_interval([0.1, 0.1, 0.1], [0.3, 0.3, 0.3], [-0.05, 0.2, 0.05],
                               [0.15, 0.4, 0.2])
    assert np.allclose(low, [-0.05, 0.1, 0.05]) and np.allclose(high, [0.3, 0.4, 0.3])
    assert list(verdict(low, high)) == ["not_distinguishable", "a_better", "a_better"]
    assert list(verdict(*exact_interval([-0.3], [-0.1], [0.1], [0.2]))) == [
        "not_distinguishable"]
    with pytest.raises(ValueError, match="low > high"):
        verdict([1.0], [0.0])


@pytest.mark.numerical
def test_bias_curve_matches_law_and_sampled_auc_is_unbiased():
    r = np.arange(1, N + 1)
    v = correction("recall@10", N, M, "cls")
    want = expected_sampled_metric("recall@10", r, N, M, correction=v) - (r <= 10)
    # the same pmf rows times v in two product orders (k = M + 1 terms): 2 product_bound
    bound = 2 * product_bound(rank_pmf(r, N, M), v)
    assert np.all(np.abs(bias_curve(v, "recall@10", N, M) - want) <= bound)
    auc = correction("auc", N, M, "sampled")
    # exactly 0; the pmf's own rounding (<= 4u times its log-gamma terms, ~1e-13 at M = 50)
    # and the product's gamma(M + 1) leave it below 1e-12
    assert np.max(np.abs(bias_curve(auc, "auc", N, M, "hypergeometric"))) < 1e-12


def test_verdicts_on_clear_cases():
    rng = np.random.default_rng(5)
    ra = np.minimum(1 + rng.geometric(0.2, 3000), N)         # A clearly better everywhere
    rb = np.minimum(1 + rng.geometric(0.02, 3000), N)
    sa, sb = draw_sampled_ranks(ra, N, M, rng=rng), draw_sampled_ranks(rb, N, M, rng=rng)
    f = compare_ranks({"A": sa, "B": sb}, N, M, ["recall@10", "auc"], ["sampled", "cls"],
                      seed=0)
    assert set(f.verdict) == {"a_better"} and set(f.naive_verdict) == {"a_better"}
    same = compare_ranks({"A": sa, "B": sa.copy()}, N, M, ["recall@10"], ["cls", "mes"],
                         seed=0)
    assert np.allclose(same.difference, 0) and set(same.verdict) == {"not_distinguishable"}


def test_bias_on_difference_matches_the_law_under_true_ranks():
    """b^ (MES plug-in) against sum_r (P_A - P_B)(r) beta(r) with the empirical P of the
    true ranks: within 3 bootstrap SE plus 0.01 (the plug-in's own estimation bias, which
    its SE does not see: MES's entropy term spreads P^)."""
    rng = np.random.default_rng(5)
    ra, rb, sa, sb = draw_pairs(rng, 6000, rank_law(0.9), rank_law(0.6), shared=True)
    pa = np.bincount(ra - 1, minlength=N) / ra.size
    pb = np.bincount(rb - 1, minlength=N) / rb.size
    f = compare_ranks({"A": sa, "B": sb}, N, M, ["recall@10"], ["sampled", "cls", "bv_0.1"],
                      seed=0)
    for row in f.itertuples():
        truth = (pa - pb) @ bias_curve(correction("recall@10", N, M, row.method), "recall@10",
                                       N, M)
        assert abs(row.bias - truth) <= 3 * row.bias_se + 0.01, (row.method, row.bias, truth)
        assert row.debiased == pytest.approx(row.difference - row.bias)
        assert row.low <= min(row.ci_low, row.debiased) and row.high >= row.ci_high


def test_mes_gradient_matches_finite_differences_and_refits():
    """The delta method of the MES plug-in: (1) its gradient against central differences of
    MES refitted on perturbed histograms; (2) its bootstrap SE of sum_r P^(r) M(r) against
    the SE over 40 refits on resampled users (within 25 %)."""
    rng = np.random.default_rng(4)
    r = np.minimum(1 + rng.geometric(0.01, 3000), N)
    s = draw_sampled_ranks(r, N, M, rng=rng)
    h = np.bincount(s - 1, minlength=M + 1) / s.size
    pi = estimate_rank_distribution(s, N, M, "mes")
    F = np.stack([parse_metric(x).weights(N) for x in ("recall@10", "ndcg@10")])
    grad = mes_gradient(h, pi, F, N, M)
    obs = np.flatnonzero(h > 0)
    direction = np.zeros(M + 1)
    direction[obs[:3]], direction[obs[-3:]] = 1.0, -1.0
    eps = 1e-5
    fd = (F @ estimate_from_histogram(h + eps * direction, N, M, "mes")
          - F @ estimate_from_histogram(h - eps * direction, N, M, "mes")) / (2 * eps)
    assert np.allclose(grad @ direction, fd, rtol=1e-4, atol=1e-8)
    idx = rng.integers(0, s.size, size=(40, s.size))
    refits = np.array([F @ estimate_rank_distribution(s[i], N, M, "mes") for i in idx])
    counts = np.array([np.bincount(s[i] - 1, minlength=M + 1) / s.size for i in idx])
    linear = (counts - h) @ grad.T
    ratio = linear.std(axis=0, ddof=1) / refits.std(axis=0, ddof=1)
    assert np.all(np.abs(ratio - 1) < 0.25), ratio


def test_compare_repeats_scores_verdicts_against_exact():
    rng = np.random.default_rng(8)
    pa, pb = rank_law(0.9), rank_law(0.8)
    ra, rb, _, _ = draw_pairs(rng, 2000, pa, pb, shared=False)
    files = {"A": toy_rank_file(ra, N, M, rng, repeats=3, recommender="A"),
             "B": toy_rank_file(rb, N, M, rng, repeats=3, recommender="B")}
    frame = compare_repeats(files, M, ["recall@10"], ["sampled", "cls"], bootstrap=200,
                            seed=0)
    assert len(frame) == 2 * 3
    assert frame.exact_difference.iloc[0] == pytest.approx((ra <= 10).mean() - (rb <= 10).mean())
    truth = np.sign(frame.exact_difference)
    assert (frame.wrong == (((frame.verdict == "a_better") & (truth <= 0))
                            | ((frame.verdict == "b_better") & (truth >= 0)))).all()
    summary = agreement_summary(frame)
    assert list(summary.repeats) == [3, 3]
    assert (summary[["a_better", "b_better", "not_distinguishable"]].sum(axis=1) == 3).all()
    assert (summary.agree == frame.groupby("method", sort=False).agrees.sum().values).all()


@pytest.mark.parametrize("kwargs, message", [
    (dict(sampled={"A": [1, 2, 3]}), "at least two recommenders"),
    (dict(sampled={"A": [1, 2, 3], "B": [1, 2]}), "same users"),
    (dict(sampled={"A": [1, 2, 52], "B": [1, 2, 3]}), "A: sampled ranks must lie in 1..m"),
    (dict(sampled={"A": [1.5, 2, 3], "B": [1, 2, 3]}), "integers"),
    (dict(methods=["cls", "magic"]), "unknown method 'magic'"),
    (dict(methods=["cls", "cls"]), "given twice"),
    (dict(level=1.0), "level must lie in"),
    (dict(bootstrap=0), "bootstrap 0 is too few draws for a 95% interval"),
    (dict(bootstrap=1), "bootstrap 1 is too few draws for a 95% interval"),
    (dict(plugin="mle"), "unknown plug-in"),
    (dict(plugin=None, methods=["mn"]), "need the MES plug-in"),
    (dict(estimator_bootstrap=-1), "estimator_bootstrap must be"),
    (dict(m=N), "need n > m"),
])
def test_bad_inputs_get_one_line_errors(kwargs, message):
    args = dict(sampled={"A": [1, 2, 3], "B": [3, 2, 1]}, n=N, m=M, metrics=["recall@10"],
                methods=["cls"])
    args.update(kwargs)
    with pytest.raises(ValueError, match=message) as err:
        compare_ranks(args.pop("sampled"), args.pop("n"), args.pop("m"), args.pop("metrics"),
                      args.pop("methods"), **args)
    assert "\n" not in str(err.value)


def test_unpaired_accepts_different_user_counts():
    rng = np.random.default_rng(0)
    f = compare_ranks({"A": rng.integers(1, M + 2, 300), "B": rng.integers(1, M + 2, 200)},
                      N, M, ["recall@10"], ["sampled"], pairing="unpaired",
                      plugin=None)
    assert len(f) == 1 and f.ci_low[0] < f.difference[0] < f.ci_high[0]
    assert parse_metric("recall@10").name == f.metric[0]


def test_resampled_counts_are_the_bincounts_of_resampled_users():
    """The bootstrap's two forms agree: per-user counts are the bincounts of the same
    generator's resampled indices, and a replicate mean is the mean over those users."""
    from sampled_metrics.resampling import bootstrap_means, resampled_counts, resampled_users
    idx = resampled_users(np.random.default_rng(7), 50, 20)
    counts = resampled_counts(np.random.default_rng(7), 50, 20)
    assert np.array_equal(counts, np.stack([np.bincount(row, minlength=50) for row in idx]))
    values = np.random.default_rng(1).random((50, 3))
    means = bootstrap_means(values, 20, np.random.default_rng(7))
    assert np.allclose(means, values[idx].mean(axis=1))
