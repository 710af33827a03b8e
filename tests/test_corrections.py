import numpy as np
import pytest
from rounding import U, gamma

from sampled_metrics import correction
from sampled_metrics.corrections import (apply_correction, bias_variance, correction_vectors,
                                         parse_correction, rank_estimate, rank_estimate_ranks,
                                         rank_law_moments)
from sampled_metrics.metrics import parse_metric
from sampled_metrics.sampling import BAND_EPS, expected_sampled_metric, rank_pmf

LAWS = ["binomial", "hypergeometric"]


def posterior_mean(metric, n, m, law, prior=None):
    """Eq. 26 by brute force: sum_r p(r | r~) M(r)."""
    p = np.full(n, 1 / n) if prior is None else prior
    P = rank_pmf(np.arange(1, n + 1), n, m, law) * p[:, None]   # p(r) p(r~|r)
    return (P * parse_metric(metric).weights(n)[:, None]).sum(0) / P.sum(0)


#: BV 1 = diag(c)^-1 A^T b against the brute-force posterior mean: each is a ratio of two
#: n-term sums of one sign (M >= 0) of products (gamma(n) + 2u each), and the Cholesky
#: solve of the diagonal system adds a square root and two divisions; relative, two paths
def posterior_rounding(n):
    return 2 * (2 * gamma(n) + 8 * U)


#: The moments in two block layouts: n-term sums of one sign (the prior, pmf rows and metric
#: weights >= 0) of products of two or three factors, 2 (gamma(n) + 2u) relative; a band
#: leaves out mass <= BAND_EPS on each side of every pmf row (and renormalises the
#: hypergeometric rows by as much), so an entry (each factor <= 1) moves by <= 2 BAND_EPS
def moments_rtol(n):
    return 2 * (gamma(n) + 2 * U) + 2 * BAND_EPS


MOMENTS_ATOL = 2 * BAND_EPS


def bias_rounding(v, metric, n, m):
    """Rounding of bias_variance's bias2 = (v G) v - 2 v A^T b + b^T b on its moments: two
    k-term products and a dot (k = m + 1) and two additions, gamma(k + 2) times the absolute
    terms."""
    mom = rank_law_moments([metric], n, m)
    a = np.abs(v)
    return gamma(m + 3) * (2 * a @ np.abs(mom.gram) @ a + 2 * a @ np.abs(mom.atb[:, 0])
                           + abs(mom.btb[0]))


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("metric", ["ap", "recall@10", "ndcg", "auc"])
def test_bv_gamma_one_is_posterior_mean(law, metric):
    n, m = 2000, 40
    assert np.allclose(correction(metric, n, m, "bv", 1.0, law),
                       posterior_mean(metric, n, m, law), rtol=posterior_rounding(n), atol=0)


@pytest.mark.numerical
def test_bv_gamma_one_with_prior_is_posterior_mean():
    n, m = 500, 20
    prior = np.exp(-np.arange(n) / 50.0)
    prior /= prior.sum()
    got = correction("ndcg", n, m, "bv_1", prior=prior)
    assert np.allclose(got, posterior_mean("ndcg", n, m, "binomial", prior),
                       rtol=posterior_rounding(n), atol=0)


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
def test_chunked_and_direct_moments_agree(law, monkeypatch):
    import sampled_metrics.corrections.vectors as C
    from sampled_metrics.corrections import moments
    monkeypatch.setattr(moments, "BLOCK_ENTRIES", 997)        # many small blocks and bands
    n, m = 3000, 60
    prior = np.random.default_rng(0).dirichlet(np.ones(n))
    a = rank_law_moments(["ap", "recall@10"], n, m, law, prior)
    b = rank_law_moments(["ap", "recall@10"], n, m, law, prior, direct=True)
    for x, y in ((a.gram, b.gram), (a.atb, b.atb), (a.c, b.c), (a.btb, b.btb)):
        assert np.allclose(x, y, rtol=moments_rtol(n), atol=MOMENTS_ATOL)
    # the solves amplify the moments' ~1e-12: BV's system has condition <= 1 / gamma, CLS's
    # tie-break keeps its solution within ~1e-10 of such noise (solve_cls)
    for c in ("bv_0.1", "bv_0.01", "cls"):
        v1 = correction("ap", n, m, c, sampling=law, prior=prior)
        mom_direct = rank_law_moments(["ap"], n, m, law, prior, direct=True)
        fn = C.solve_cls if c == "cls" else (lambda mo, k: C.solve_bv(mo, k, float(c[3:])))
        assert np.allclose(v1, fn(mom_direct, 0), rtol=1e-6, atol=1e-9)


def test_small_m_minimal_bias_is_limit_of_bv():
    n, m = 400, 4     # A^T A well conditioned: unique minimiser of eq. 21
    mb = correction("ap", n, m, "minimal_bias")
    for gamma, tol in ((1e-4, 1e-2), (1e-7, 1e-5), (1e-10, 1e-8)):
        assert np.allclose(correction("ap", n, m, "bv", gamma), mb, atol=tol)


@pytest.mark.numerical
@pytest.mark.parametrize("metric", ["ap", "ndcg@10", "recall@10"])
def test_bv_bias_decreases_to_minimal_bias_as_gamma_goes_to_zero(metric):
    n, m = 10_000, 100
    floor = bias_variance(correction(metric, n, m, "minimal_bias"), metric, n, m)[0]
    biases = [bias_variance(correction(metric, n, m, "bv", g), metric, n, m)[0]
              for g in (1, 0.1, 0.01, 0.001, 1e-5, 1e-8, 1e-11, 1e-14)]
    vectors = [correction(metric, n, m, "bv", g) for g in (1, 0.1, 0.01, 0.001, 1e-5, 1e-8,
                                                            1e-11, 1e-14)]
    slack = [bias_rounding(v, metric, n, m) for v in vectors]      # each bias2 as evaluated
    assert all(a >= b - sa - sb for a, b, sa, sb in zip(biases, biases[1:], slack, slack[1:]))
    # eq. 21 is numerically ill-posed for m = 100, so the floor is approached slowly
    assert biases[-1] == pytest.approx(floor, rel=0.25)
    assert floor <= min(biases) * 1.05


@pytest.mark.numerical
@pytest.mark.parametrize("metric", ["ap", "ndcg", "recall@10", "ndcg@10"])
def test_cls_is_monotone_and_optimal(metric):
    n, m = 10_000, 100
    import sampled_metrics.corrections.vectors as C
    v = correction(metric, n, m, "cls")
    # exact: M^(s) = fl(M^(s + 1) + x_s) with x_s >= 0, and rounding is monotone
    assert np.all(np.diff(v) <= 0)
    # KKT of min f(T x) + CLS_TIE sum c M^2, x[:m] >= 0 (the problem solve_cls solves): its
    # gradient g + tie in x is zero on free coordinates, >= 0 on those at their bound (x = 0
    # exactly), up to nnls_last_free's tolerance (2 tol in these units) and g's rounding
    # (two k-term sums, k = m + 1, of the absolute terms)
    mom = rank_law_moments([metric], n, m)
    g = np.cumsum(2 * (mom.gram @ v - mom.atb[:, 0]))
    tie = np.cumsum(2 * C.CLS_TIE * mom.c * v)
    x = np.r_[-np.diff(v), v[-1]]
    free = np.r_[x[:-1] > 0, True]
    d, _, V = eig = C._scaled_eig(mom)
    RT, sl = C._cls_system(eig)
    z = (V.T @ (d * mom.atb[:, 0])) / sl                   # nnls_last_free's RT x ~ z
    tol = 10 * np.finfo(float).eps * max(RT.shape) * np.linalg.norm(RT, 1) * np.linalg.norm(z)
    slack = 2 * tol + gamma(2 * m + 2) * np.cumsum(
        2 * (np.abs(mom.gram) @ np.abs(v) + np.abs(mom.atb[:, 0]) + C.CLS_TIE * mom.c * np.abs(v)))
    assert np.all(np.abs(g + tie)[free] <= slack[free])
    assert np.all((g + tie)[~free] >= -slack[~free])
    # no monotone competitor does better: posterior mean (BV 1), rank estimate, sampled; CLS
    # minimises bias2 + CLS_TIE sum c M^2, so its bias2 may exceed w's by CLS_TIE times the
    # difference of those sums, and each bias2 rounds by bias_rounding
    bias = bias_variance(v, metric, n, m)[0]
    for other in ("bv_1", "rank_estimate", "sampled"):
        w = correction(metric, n, m, other)
        # BV 1 is a ratio of n-term sums of one sign (posterior_rounding relative)
        assert np.all(np.diff(w) <= posterior_rounding(n) * (np.abs(w[:-1]) + np.abs(w[1:])))
        tie_gap = C.CLS_TIE * max(mom.c @ w ** 2 - mom.c @ v ** 2, 0)
        assert bias <= (bias_variance(w, metric, n, m)[0] + tie_gap
                        + bias_rounding(v, metric, n, m) + bias_rounding(w, metric, n, m))


@pytest.mark.numerical
def test_cls_of_monotone_optimum_is_unconstrained_optimum():
    # for AUC the unique minimiser of eq. 21 (m small: A^T A invertible) is the sampled AUC
    # itself (unbiased, Sec. 4.4.1), which is decreasing: the constraint is inactive
    import sampled_metrics.corrections.vectors as C
    n, m = 400, 4
    mb = correction("auc", n, m, "minimal_bias")
    lam = C._scaled_eig(rank_law_moments(["auc"], n, m))[1]
    # a solve of condition kappa (~120 here) on moments rounded by gamma(n), with eigh's
    # backward error (~(m + 1) u): error <= kappa (2 gamma(n) + 10 (m + 1) u) max |M^|
    tol = lam.max() / lam.min() * (2 * gamma(n) + 10 * (m + 1) * U)
    assert np.allclose(mb, correction("auc", n, m, "sampled"), rtol=0, atol=tol)
    assert np.all(np.diff(mb) < 0)
    assert np.allclose(correction("auc", n, m, "cls"), mb, rtol=0, atol=tol)
    # for AP it is not monotone, and CLS differs from it
    mb_ap = correction("ap", n, m, "minimal_bias")
    assert np.any(np.diff(mb_ap) > 0)
    assert not np.allclose(correction("ap", n, m, "cls"), mb_ap, atol=1e-3)


def test_bv_gamma_zero_is_minimal_bias():
    # exact: solve_bv with gamma = 0 is _solve_minimal_bias
    assert np.array_equal(correction("ap", 2000, 50, "bv", 0.0),
                          correction("ap", 2000, 50, "minimal_bias"))


def test_corrections_reduce_bias_on_figure4_example():
    n, m = 10_000, 100
    sampled = bias_variance(correction("ap", n, m, "sampled"), "ap", n, m)[0]
    for c in ("rank_estimate", "cls", "bv_1", "bv_0.1", "bv_0.01", "bv_0.001"):
        assert bias_variance(correction("ap", n, m, c), "ap", n, m)[0] < sampled


def test_rank_estimate_rank_is_unbiased_binomial():
    n, m = 10_000, 100
    r = np.array([1, 2, 57, 4000, 10_000])
    s = np.arange(1, m + 2)
    r_hat_cont = 1 + (n - 1) * (s - 1) / m            # eq. 20 before flooring
    e = rank_pmf(r, n, m) @ r_hat_cont
    assert np.allclose(e, r)
    assert np.array_equal(rank_estimate_ranks(n, m), np.floor(r_hat_cont).astype(int))


def test_rank_estimate_is_eq_20_elementwise_and_its_vector():
    for n, m in [(101, 100), (3706, 100), (10_000, 7)]:
        assert np.array_equal(rank_estimate(np.arange(1, m + 2), n, m), rank_estimate_ranks(n, m))
        assert (rank_estimate(1, n, m), rank_estimate(m + 1, n, m)) == (1, n)
    # per user, each with its own n and m (as the several-positives correction calls it)
    rng = np.random.default_rng(0)
    m = rng.integers(1, 200, 500)
    n = m + rng.integers(1, 5000, 500)
    r = rng.integers(1, m + 2)
    assert np.array_equal(rank_estimate(r, n, m),
                          [rank_estimate_ranks(a, b)[c - 1] for a, b, c in zip(n, m, r)])


def test_rank_estimate_recall_equals_ndcg_at_10_as_in_table3():
    n, m = 3706, 100
    rec = correction("recall@10", n, m, "rank_estimate")
    ndcg = correction("ndcg@10", n, m, "rank_estimate")
    assert np.array_equal(rec, ndcg)       # only r~ = 1 maps into the top 10


def test_sampled_is_metric_on_sample():
    v = correction("auc", 1000, 9, "sampled")
    assert np.allclose(v, (10 - np.arange(1, 11)) / 9)


def test_apply_correction():
    v = np.array([1.0, 0.5, 0.25])
    assert np.array_equal(apply_correction(v, [1, 3, 3, 2]), [1, 0.25, 0.25, 0.5])
    with pytest.raises(ValueError, match="1..m\\+1"):
        apply_correction(v, [0, 1])
    with pytest.raises(ValueError, match="1..m\\+1"):
        apply_correction(v, [4])
    with pytest.raises(ValueError, match="integers"):
        apply_correction(v, [1.5])


def test_expected_corrected_metric_uses_vector():
    n, m = 1000, 10
    v = correction("ap", n, m, "bv_0.1")
    r = np.arange(1, n + 1)
    assert np.allclose(expected_sampled_metric("ap", r, n, m, correction=v),
                       rank_pmf(r, n, m) @ v)


@pytest.mark.parametrize("kwargs,match", [
    (dict(n=10, m=10), "n > m"), (dict(n=10, m=0), "m"),
    (dict(n=100, m=10, correction="bv", gamma=1.5), "gamma"),
    (dict(n=100, m=10, correction="bv"), "gamma"),
    (dict(n=100, m=10, correction="magic"), "unknown correction 'magic'"),
    (dict(n=100, m=10, prior=np.ones(99) / 99), "length n"),
    (dict(n=100, m=10, prior=np.ones(100)), "sum to 1"),
    (dict(n=100, m=10, sampling="poisson"), "sampling law"),
])
def test_invalid_arguments(kwargs, match):
    kwargs.setdefault("correction", "bv_0.1")
    with pytest.raises(ValueError, match=match):
        correction("ap", **kwargs)


def test_parse_method_labels():
    assert parse_correction("bv_0.1") == ("bv", 0.1)
    assert parse_correction("BV", 0.01) == ("bv", 0.01)
    assert parse_correction("none") == ("sampled", None)
    assert set(correction_vectors(["ap"], 100, 5, ["bv_1", ("bv", 0.5), "cls"])) == {
        ("ap", "bv_1"), ("ap", "bv_0.5"), ("ap", "cls")}


@pytest.mark.slow
def test_large_n_and_m_work_without_dense_matrix():
    # n x (m+1) float64 would be 1.6 GB; the band accumulation needs O(m^2) memory.
    # (n = 10^6 with m = 10^4 works too, in ~80 s: see workflow/benchmarks/bench_corrections.py)
    n, m = 1_000_000, 200
    mom = rank_law_moments(["recall@10"], n, m)
    assert mom.c.sum() == pytest.approx(1.0, abs=1e-9)
    v = correction("recall@10", n, m, "bv_1")
    assert np.all(np.isfinite(v)) and v[0] > v[-1]


# --- many n at once: correction_lookup, mean_corrected ------------------------------------

LOOKUP_METRICS = ["recall@10", "ndcg@10", "ap", "auc"]
LOOKUP_CORRECTIONS = ["sampled", "rank_estimate", "cls", "bv_1", "bv_0.1", "bv_0.01",
                      "bv_0.001"]


def _reference(n_values, m, law, metrics=LOOKUP_METRICS, corrections=LOOKUP_CORRECTIONS):
    """correction_vectors per n, stacked like correction_lookup (single-threaded BLAS)."""
    from threadpoolctl import threadpool_limits
    from sampled_metrics.corrections import correction_label
    with threadpool_limits(1):
        out = []
        for n in n_values:
            vecs = correction_vectors(metrics, int(n), m, corrections, law)
            out.append([[vecs[(parse_metric(x).name, correction_label(e))] for e in corrections]
                        for x in metrics])
    return np.array(out)


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
def test_lookup_exact_path_equals_correction_vectors(law):
    from sampled_metrics.corrections import correction_lookup
    n_values = [260, 31, 257, 260, 1000, 32]          # unsorted, repeated, n = m + 1 included
    corrections = LOOKUP_CORRECTIONS + ["minimal_bias"]
    got = correction_lookup(LOOKUP_METRICS, corrections, n_values, 30, law)
    assert got.shape == (6, 4, 8, 31)
    # exact: map_items runs correction_vectors' computation per n on one BLAS thread, as here
    assert np.array_equal(got, _reference(n_values, 30, law, corrections=corrections))
    assert np.array_equal(got, correction_lookup(LOOKUP_METRICS, corrections, n_values, 30,
                                                 law, exact=True))


@pytest.mark.parametrize("law", LAWS)
def test_lookup_grid_path_is_within_tolerance(law, caplog):
    import logging
    from sampled_metrics.corrections import correction_lookup
    from sampled_metrics.corrections.lookup import LOOKUP_TOL
    n_values = np.unique(np.r_[300, 700, np.random.default_rng(1).integers(300, 701, 60)])
    with caplog.at_level(logging.INFO, logger="sampled_metrics.corrections"):
        got = correction_lookup(LOOKUP_METRICS, LOOKUP_CORRECTIONS, n_values, 20, law)
    assert "check error" in caplog.text and "exact per n" not in caplog.text   # grid used
    error = np.abs(got - _reference(n_values, 20, law)).max()
    assert error <= LOOKUP_TOL
    assert np.all(np.diff(got[:, :, LOOKUP_CORRECTIONS.index("cls")], axis=-1) <= 1e-12)


def test_lookup_splits_a_wide_range_of_n(caplog):
    import logging
    from sampled_metrics.corrections import correction_lookup
    from sampled_metrics.corrections.lookup import LOOKUP_TOL
    n_values = np.unique(np.geomspace(11, 3000, 200).astype(int))      # n_min close to m
    with caplog.at_level(logging.INFO, logger="sampled_metrics.corrections"):
        got = correction_lookup(LOOKUP_METRICS, LOOKUP_CORRECTIONS, n_values, 10,
                                "hypergeometric")
    assert "split at" in caplog.text
    assert np.abs(got - _reference(n_values, 10, "hypergeometric")).max() <= LOOKUP_TOL


@pytest.mark.numerical
def test_lookup_independent_of_processes():
    from sampled_metrics.corrections import correction_lookup
    args = (["ap", "recall@10"], ["cls", "bv_0.01", "rank_estimate"],
            np.arange(300, 400, 3), 20, "hypergeometric")          # grid path
    # exact: each work item is computed alone on one BLAS thread, in whichever process
    assert np.array_equal(correction_lookup(*args, processes=1),
                          correction_lookup(*args, processes=2))
    small = (["ap"], ["cls"], [300, 301, 305], 20, "binomial")     # exact path
    assert np.array_equal(correction_lookup(*small, processes=1),
                          correction_lookup(*small, processes=3))


def test_lookup_falls_back_to_exact_when_grid_does_not_converge(monkeypatch):
    import sampled_metrics.corrections.lookup as C
    monkeypatch.setattr(C, "GRID_CHECK_TOL", 0.0)      # no level can pass: split, then exact
    n_values = np.arange(200, 260)
    got = C.correction_lookup(["ap"], ["cls", "bv_0.1"], n_values, 10)
    assert np.array_equal(got, _reference(n_values, 10, "binomial", ["ap"], ["cls", "bv_0.1"]))


def test_lookup_rejects_bad_n():
    from sampled_metrics.corrections import correction_lookup
    with pytest.raises(ValueError, match="n > m"):
        correction_lookup(["ap"], ["cls"], [50, 20], 20)
    with pytest.raises(ValueError, match="integers"):
        correction_lookup(["ap"], ["cls"], [50, 60.5], 20)
    assert correction_lookup(["ap"], ["cls"], [], 20).shape == (0, 1, 1, 21)


@pytest.mark.numerical
def test_mean_corrected_equals_gathered_mean():
    from sampled_metrics.corrections import mean_corrected
    rng = np.random.default_rng(3)
    J, K, E, m, users, repeats = 7, 2, 3, 9, 500, 13
    V = rng.random((J, K, E, m + 1))
    idx = rng.integers(0, J, users)
    sampled = rng.integers(1, m + 2, (repeats, users))
    want = np.array([[V[idx[None, :], k, e, sampled - 1].mean(axis=1) for e in range(E)]
                     for k in range(K)])
    got = mean_corrected(V, idx, sampled)
    assert got.shape == (K, E, repeats)
    rtol = 2 * (gamma(users) + U)       # means of `users` terms of one sign, in two orders
    assert np.allclose(got, want, rtol=rtol, atol=0)
    from sampled_metrics.corrections import lookup
    old, lookup.MEAN_BLOCK_CELLS = lookup.MEAN_BLOCK_CELLS, 150    # several blocks of repeats
    try:
        assert np.allclose(mean_corrected(V, idx, sampled), want, rtol=rtol, atol=0)
    finally:
        lookup.MEAN_BLOCK_CELLS = old
    with pytest.raises(ValueError, match="1..m\\+1"):
        mean_corrected(V, idx, sampled + 1)
    with pytest.raises(ValueError, match="n_index"):
        mean_corrected(V, idx + 1, sampled)
    with pytest.raises(ValueError, match="shape"):
        mean_corrected(V, idx[:-1], sampled)


# --- CLS numerics ---------------------------------------------------------------------------

def test_cls_of_auc_is_sampled_auc():
    for law in LAWS:
        assert np.array_equal(correction("auc", 3000, 100, "cls", sampling=law),
                              correction("auc", 3000, 100, "sampled"))


def perturbation_bound(A, dA, b, db, runs_a=0.0, runs_b=0.0):
    """Normwise bound on ||dx|| / ||x|| when A x = b becomes (A + dA)(x + dx) = b + db:
    kappa (||dA||/||A|| + ||db||/||b||) / (1 - kappa ||dA||/||A||), kappa = cond_2(A)
    (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Theorem 7.2), with
    ``runs_a`` and ``runs_b`` added to the two relative perturbations: the backward errors of
    the two computed solves."""
    kappa = np.linalg.cond(A)
    da = np.linalg.norm(dA, 2) / np.linalg.norm(A, 2) + runs_a
    db = np.linalg.norm(db) / np.linalg.norm(b) + runs_b
    assert kappa * da < 1, (kappa, da)          # the bound holds only then
    return kappa * (da + db) / (1 - kappa * da)


def solve_rounding(m):
    """Normwise relative backward error of one solve from the moments (m + 1 unknowns):
    D G D formed entrywise (7 u), then dsyevd and the products with V, or dgels, each
    backward stable with the customary p(m) = m + 1."""
    return gamma(3 * (m + 1) + 7)


def cls_differences(mom, k=0):
    """x of solve_cls (x[s] = M^(s) - M^(s+1), x[m] = M^(m+1)) by its own steps, with the
    scaled Gram matrix D G D and the least-squares system (R T, z) it solved."""
    import sampled_metrics.corrections.vectors as C
    eig = C._scaled_eig(mom)
    d, _, V = eig
    RT, sl = C._cls_system(eig)
    z = (V.T @ (d * mom.atb[:, k])) / sl
    return C.nnls_last_free(RT, z), d[:, None] * mom.gram * d[None, :], RT, z


def cls_free_system(mom, free, k=0):
    """CLS's system on its free variables x[free]: with M^ = T x (T upper-triangular ones)
    and S = T[:, free], the normal equations S^T (G + CLS_TIE diag(c)) S y = S^T A^T b,
    and S^T diag(c) S."""
    from sampled_metrics.corrections.vectors import CLS_TIE
    S = np.triu(np.ones((mom.m + 1, mom.m + 1)))[:, free]
    return (S.T @ (mom.gram + CLS_TIE * np.diag(mom.c)) @ S, S.T @ mom.atb[:, k],
            S.T @ (mom.c[:, None] * S))


def assert_cls_within_moments_noise(mom_a, mom_b, v_a, v_b, k=0):
    """CLS from two roundings of the moments: both runs pick the same active set (asserted),
    so their free variables solve the same linear system on moments that differ by what
    the test measures, each run within its own backward error (solve_rounding)."""
    (x_a, DGD, RT, z), (x_b, *_) = cls_differences(mom_a, k), cls_differences(mom_b, k)
    # the vectors are these x summed from the end (the same operations on the same moments)
    assert np.array_equal(v_a, np.cumsum(x_a[::-1])[::-1])
    assert np.array_equal(v_b, np.cumsum(x_b[::-1])[::-1])
    free = x_a != 0                       # nnls_last_free sets the bound variables to 0.0
    assert np.array_equal(free, x_b != 0)
    A, b, Sc = cls_free_system(mom_a, free, k)
    A_b, b_b, _ = cls_free_system(mom_b, free, k)
    norm = np.linalg.norm
    eps = 2 * solve_rounding(mom_a.m)     # two runs
    # each run: dsyevd's error E of D G D is S^T D^-1 E D^-1 S <= ||E|| ||S^T diag(c) S|| on
    # the free system, dgels' error of R T_free enters twice (R^T R = G + CLS_TIE diag(c))
    # and its right-hand side as ||R T_free|| ||z||
    runs_a = eps * (norm(DGD, 2) * norm(Sc, 2) / norm(A, 2) + 2)
    runs_b = eps * norm(RT[:, free], 2) * norm(z) / norm(b)
    bound = perturbation_bound(A, A_b - A, b, b_b - b, runs_a, runs_b)
    # the free system's kappa times the moments' measured difference and the solves' rounding
    assert norm(x_a - x_b) <= bound * norm(x_a)


@pytest.mark.numerical
@pytest.mark.parametrize("metric", ["ap", "ndcg"])
def test_cls_does_not_depend_on_rounding_noise_of_the_moments(metric, monkeypatch):
    # hypergeometric n = 2485, m = 100: without the tie-break, another block size (other
    # rounding of the moments) moved CLS of AP by 1.3e-5 at equal bias; with it, CLS stays
    # within the conditioning of its free variables' system (kappa ~1e8 for AP, ~4e9 for
    # NDCG) times the moments' difference. 30,011 entries: blocks of 297 of the 2,485 rows
    import sampled_metrics.corrections.moments as C
    from sampled_metrics.corrections import moments
    out, moms = [], []
    for block in (2_000_000, 30_011):
        monkeypatch.setattr(moments, "BLOCK_ENTRIES", block)
        C.clear_moment_cache()
        moms.append(rank_law_moments([metric], 2485, 100, "hypergeometric"))
        out.append(correction(metric, 2485, 100, "cls", sampling="hypergeometric"))
    C.clear_moment_cache()
    assert not np.array_equal(moms[0].gram, moms[1].gram)        # two roundings indeed
    assert_cls_within_moments_noise(moms[0], moms[1], out[0], out[1])


@pytest.mark.numerical
def test_nnls_last_free_matches_bvls():
    from scipy import optimize
    from sampled_metrics.corrections.vectors import nnls_last_free
    rng = np.random.default_rng(5)
    for _ in range(20):
        A = rng.standard_normal((30, 12))
        b = rng.standard_normal(30)
        x = nnls_last_free(A, b)
        lb = np.r_[np.zeros(11), -np.inf]
        ref = optimize.lsq_linear(A, b, bounds=(lb, np.inf), method="bvls", tol=1e-14).x
        assert np.all(x[:-1] >= 0)
        assert np.allclose(x, ref, atol=1e-10)


@pytest.mark.numerical
@pytest.mark.parametrize("law", ["binomial", "hypergeometric"])
def test_narrow_block_moments_agree_with_the_default_blocks(law):
    """At m ~ n one default block spans nearly every sampled rank; narrow blocks give the
    same moments and corrections up to rounding, and are not cached."""
    n, m = 900, 800
    a = rank_law_moments(["ndcg@10", "ap"], n, m, law)
    b = rank_law_moments(["ndcg@10", "ap"], n, m, law, narrow_blocks=True)
    for x, y in ((a.gram, b.gram), (a.atb, b.atb), (a.c, b.c), (a.btb, b.btb)):
        assert np.allclose(x, y, rtol=moments_rtol(n), atol=MOMENTS_ATOL)
    assert b is not rank_law_moments(["ndcg@10", "ap"], n, m, law, narrow_blocks=True)
    import sampled_metrics.corrections.vectors as C
    wide = correction_vectors(["ndcg@10"], n, m, ["bv_0.1", "cls"], law)
    narrow = correction_vectors(["ndcg@10"], n, m, ["bv_0.1", "cls"], law, narrow_blocks=True)
    # the moments these solves used (the cached ones; the narrow pass again, bit for bit)
    a = rank_law_moments(["ndcg@10"], n, m, law)
    b = rank_law_moments(["ndcg@10"], n, m, law, narrow_blocks=True)
    bv_a, bv_b = (C.solve_bv(x, 0, 0.1, C._scaled_eig(x)) for x in (a, b))
    assert np.array_equal(wide[("ndcg@10", "bv_0.1")], bv_a)
    assert np.array_equal(narrow[("ndcg@10", "bv_0.1")], bv_b)
    # BV 0.1 solves D H D (D^-1 x) = D A^T b, H = 0.9 G + 0.1 diag(c), D = diag(c)^-1/2 (its
    # kappa <= 1 / 0.1), each run within solve_rounding of its own D (scaled to a's D)
    d = 1 / np.sqrt(a.c)
    H_a, H_b = (d[:, None] * (0.9 * x.gram + 0.1 * np.diag(x.c)) * d[None, :] for x in (a, b))
    eps = solve_rounding(m) * (1 + np.max(b.c / a.c))
    bound = perturbation_bound(H_a, H_b - H_a, d * a.atb[:, 0], d * (b.atb[:, 0] - a.atb[:, 0]),
                               eps, eps)
    # the scaled system's kappa times the moments' measured difference and the solves' rounding
    assert np.linalg.norm((bv_a - bv_b) / d) <= bound * np.linalg.norm(bv_a / d)
    assert_cls_within_moments_noise(a, b, wide[("ndcg@10", "cls")], narrow[("ndcg@10", "cls")])


@pytest.mark.numerical
def test_bv_solve_is_the_cholesky_solve_of_the_bv_system():
    """The in-place, Fortran-ordered system of solve_bv is bit for bit the textbook
    (1 - gamma) G + gamma diag(c) factored by Cholesky."""
    from scipy import linalg

    import sampled_metrics.corrections.vectors as C
    mom = rank_law_moments(["ndcg@10", "ap"], 2000, 300, "hypergeometric")
    for gamma in (1.0, 0.1, 1e-3):
        H = (1.0 - gamma) * mom.gram + gamma * np.diag(mom.c)
        expected = linalg.cho_solve(linalg.cho_factor(H), mom.atb)
        # exact: the same products, then the same LAPACK calls on the same threads
        assert np.array_equal(C.solve_bv(mom, slice(None), gamma), expected)


@pytest.mark.numerical
def test_minimal_bias_outside_the_metric_range_is_flagged(capsys, tmp_path):
    """Eq. 21 alone at n = 1,682, m = 100 (RecBole's uni100 on ML-100K): Recall@10's
    least-norm minimiser reaches 1e5; the library warns with the condition, the command line
    refuses in one line; AUC's (the sampled AUC) stays in range and passes silently."""
    import warnings

    from sampled_metrics.cli import main
    from sampled_metrics.corrections import UnboundedCorrectionWarning, correction
    with pytest.warns(UnboundedCorrectionWarning, match=r"minimal_bias for recall@10 at "
                      r"n = 1682, m = 100 ranges from .* outside the metric's range \[0, 1\]"):
        vector = correction("recall@10", 1682, 100, "minimal_bias")
    assert np.abs(vector).max() > 1e3
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnboundedCorrectionWarning)
        auc = correction("auc", 1682, 100, "minimal_bias")
    # the pseudo-inverse keeps eigenvalues down to RCOND = 1e-15 of the largest, so rounding
    # has no useful a-priori bound there: the range check's own slack, 1e-6 (hi - lo), is the
    # contract (measured: -4e-9 on some BLAS kernels)
    assert auc.min() >= -1e-6 and auc.max() <= 1 + 1e-6
    path = tmp_path / "ranks.txt"
    path.write_text("1\n5\n30\n")
    assert main(["correct", "--ranks", str(path), "--n", "1682", "--m", "100",
                 "--metric", "recall@10", "--method", "sampled,minimal_bias"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ill-posed here; use cls or bv_<gamma>" in err[0], err
