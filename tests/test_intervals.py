"""The recommended answer (sampled_metrics.intervals): its atoms are the law's sums, its
solver's ends are certified by duality and sit on the likelihood's level set, it reduces to
the exact metric when the sampled ranks are the true ones, and it covers the truth on
simulated evaluations whose true ranks are known."""
import re

import numpy as np
import pandas as pd
import pytest
from rounding import U, gamma
from scipy import special
from test_sampling import pmf_rounding

import sampled_metrics as sm
from sampled_metrics.cli import main
from sampled_metrics.design import Design
from sampled_metrics.estimators.histogram import mixture_matrix
from sampled_metrics.intervals import correct, correct_positions, recommended_interval
from sampled_metrics.intervals.atoms import (LIKELIHOOD_FLOOR, atom_grid, atom_metric,
                                             atom_ranges, histogram_atoms, user_atoms)
from sampled_metrics.intervals.profile import (MLE_GAP, SLACK_TOL, TILT_XTOL, _upper_end,
                                               certified_max, mixture_mle, profile_range,
                                               profile_ranges)
from sampled_metrics.metrics import parse_metric
from sampled_metrics.sampling import draw_sampled_ranks, log_rank_pmf_at
from sampled_metrics.workflow.steps.interval_study import (cell_intervals, several_positives,
                                                  summary_frame, true_ranks)

LAWS = ["binomial", "hypergeometric"]


def simulated(shape, n, m, users, law="binomial", seed=0):
    rng = np.random.default_rng(seed)
    r = true_ranks(shape, np.full(users, n), rng)
    return r, draw_sampled_ranks(r, n, m, law, rng=rng)


def cumsum_rounding(P, a, b):
    """Bound of the rounding of (C[b] - C[a]) / (b - a), C the running sums of the
    non-negative rows of P (columns along the last axis), from the exact average of rows
    a..b-1: the running sums to b and to a within gamma(b) S_b and gamma(a) S_a
    (S_k the sum of the first k rows), their difference and the division u each."""
    S_b = np.cumsum(P, axis=0)[b - 1] * (1 + gamma(b))[:, None]
    return (2 * gamma(b + 2))[:, None] * S_b / (b - a)[:, None]


def closed_form_rounding(n, m):
    """Entry-wise relative bound (n, m + 1) of log_rank_pmf_at's hypergeometric
    p(k + 1 | r): nine log-gamma values, each within 4 u of its size, added in eight steps
    (gamma(8) of their sizes), then exp (u |log p| + u)."""
    r, k = np.arange(1.0, n + 1)[:, None], np.arange(m + 1.0)[None, :]
    args = [r, k + 1, r - k, n - r + 1, m - k + 1, n - r - m + k + 1, n, m + 1, n - m]
    terms = sum(np.abs(special.gammaln(np.maximum(x, 1.0))) for x in args)
    log_p = log_rank_pmf_at(r, k, n, m, "hypergeometric")
    return np.expm1((4 * U + gamma(8)) * terms + U * np.where(np.isfinite(log_p),
                                                               np.abs(log_p), 0) + U)


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("shape", ["non-increasing", "none"])
def test_atoms_are_averages_of_the_law_and_of_the_metric(law, shape):
    n, m = 200, 15
    a, b, _ = atom_ranges(atom_grid(n, m, [10], shape), shape)
    A = mixture_matrix(n, m, law)
    L = histogram_atoms(Design(n, m, law), a, b)
    weights = parse_metric("ndcg@10").weights(n)
    c = atom_metric(parse_metric("ndcg@10").weights, n, a, b)
    # running sums against a mean of the b - a rows (gamma(b - a) of their sum, and u), and
    # the floor that zeroes likelihoods below LIKELIHOOD_FLOOR
    width = (b - a)[:, None]
    mean_L = np.stack([A[a[j]:b[j]].mean(axis=0) for j in range(a.size)])
    bound_L = cumsum_rounding(A, a, b) + gamma(b - a + 1)[:, None] * mean_L + LIKELIHOOD_FLOOR
    assert np.all(np.abs(L.T - mean_L) <= bound_L)
    mean_c = np.array([weights[a[j]:b[j]].mean() for j in range(a.size)])
    bound_c = cumsum_rounding(weights[:, None], a, b)[:, 0] + gamma(b - a + 1) * mean_c
    assert np.all(np.abs(c - mean_c) <= bound_c)
    s = np.array([1, 4, 16, 2])
    got = user_atoms(s, np.full(4, n), np.full(4, m), law, a, b)
    # both running sums of the same pmf entries, each entry within its own rounding: rank_pmf's
    # (pmf_rounding) and, for the users, the same formula (binomial) or the closed form
    rel = pmf_rounding(np.arange(1, n + 1), n, m, law) + (
        pmf_rounding(np.arange(1, n + 1), n, m, law) if law == "binomial"
        else closed_form_rounding(n, m))
    with np.errstate(invalid="ignore"):
        moved = np.where(A > 0, rel * A, 0.0)             # impossible entries: 0 both sides
    moved = np.stack([moved[a[j]:b[j]].sum(axis=0) for j in range(a.size)])
    bound_u = (2 * cumsum_rounding(A, a, b) + moved * (1 + gamma(b - a))[:, None] / width
               + 2 * LIKELIHOOD_FLOOR)
    assert np.all(np.abs(got - L[s - 1]) <= bound_u.T[s - 1])


@pytest.mark.numerical
def test_a_user_with_fewer_ranks_gets_the_atom_clipped_to_them():
    a, b, _ = atom_ranges(np.array([5, 50, 300]))
    row = user_atoms([3], [40], [10], "binomial", a, b)[0]
    col = mixture_matrix(40, 10)[:, 2]
    # both atoms clip to the user's ranks 1..40: the same (C[40] - C[0]) / 40, bit for bit
    assert row[2] == row[1]
    # the running sum and the mean of the 40 entries (cumsum_rounding, and gamma(41) of their
    # mean), each entry within its rounding in both (pmf_rounding: the same binomial formula)
    with np.errstate(invalid="ignore"):     # impossible entries (r = 1): 0 both sides
        moved = np.where(col > 0, 2 * pmf_rounding(np.arange(1, 41), 40, 10, "binomial")[:, 2]
                         * col, 0.0)
    bound = (cumsum_rounding(col[:, None], np.array([0]), np.array([40]))[0, 0]
             + gamma(41) * col.mean() + moved.mean() * (1 + gamma(41)))
    assert abs(row[1] - col.mean()) <= bound
    c = atom_metric(parse_metric("recall@10").weights, np.array([40, 300]), a, b)
    # exact: Recall@10's running sums are integers, so c is 10/40 + 10/300 (each rounded
    # once), then halved, the operations of the expected value in the same order
    assert c[2] == (10 / 40 + 10 / 300) / 2


def test_grid_holds_the_cutoffs_and_follows_the_law_width():
    ks = atom_grid(3706, 100, [10, 57])
    assert {10, 11, 57, 58, 3706} <= set(ks.tolist()) and ks[0] == 1
    assert np.all(np.diff(ks) >= 1) and np.all(np.diff(ks) <= np.maximum(1, 0.1 * ks[:-1] + 1))
    fine = atom_grid(3706, 1000, shape="none")
    assert np.all(np.diff(fine)[fine[:-1] > 100] <= 0.25 * np.sqrt(3.706 * fine[:-1][fine[:-1] > 100]) + 1)


def loglik_rounding(L, h, w):
    """Bound of the rounding of h @ log(L @ w): each (L w)_j a sum of K non-negative terms
    (gamma(K) relative, so its log off by gamma(K + 1) absolute), and the sum of the J
    terms h_j log (L w)_j with their products (gamma(J + 2) of their sizes)."""
    J, K = L.shape
    return float(gamma(K + 1) * h.sum() + gamma(J + 2) * (h @ np.abs(np.log(L @ w))))


def certificate_rounding(L, h, c, u_mle, kappa, w, t0):
    """Bound of the rounding of certified_max(L, h, c, u_mle, kappa, w, t0): its value is
    [kappa + sum_j h_j log(u_j / u_mle_j) - N y - N + max_k (e^y g_k + t c_k)] / t with
    g = L^T (h / u), |y| <= 3 and t within e^3 of t0; u and u_mle within gamma(K), g within
    gamma(J + K + 2), and the few operations after, so every term within gamma(J + 2K + 10)
    of the sum of the terms' sizes (counted twice for the sums they enter), over t >= t0 e^-3."""
    J, K = L.shape
    N, u = h.sum(), L @ w
    g = L.T @ (h / u)
    size = kappa + h @ np.abs(np.log(u / u_mle)) + 5 * N + np.exp(3) * g.max() \
        + t0 * np.exp(3) * np.abs(c).max()
    return float(gamma(J + 2 * K + 10) * 2 * size / (t0 * np.exp(-3)))


def histogram_fit(metric, n=1000, m=50, users=3000):
    """The profile's inputs on a simulated histogram: (L, h) of its observed sampled ranks,
    the MLE and its log-likelihood, and the metric's functional c."""
    _, s = simulated("ml1m", n, m, users)
    a, b, _ = atom_ranges(atom_grid(n, m, [10]))
    h = np.bincount(s - 1, minlength=m + 1).astype(float)
    L = histogram_atoms(Design(n, m, "binomial"), a, b)[h > 0]
    h = h[h > 0]
    w_mle, loglik = mixture_mle(L, h)
    return L, h, w_mle, loglik, atom_metric(parse_metric(metric).weights, n, a, b)


@pytest.mark.numerical
@pytest.mark.parametrize("metric", ["recall@10", "ndcg@10"])
def test_profile_ends_are_certified_and_on_the_level_set(metric):
    L, h, w_mle, loglik, c = histogram_fit(metric)
    kappa = 1.92
    lo, hi, w_lo, w_hi = profile_range(L, h, c, kappa, w_mle)
    u_mle = L @ w_mle
    level = loglik - kappa
    level_rounding = loglik_rounding(L, h, w_mle) + U * abs(level)
    # each end is certified_max at the point and tilt the solver found (the same solve
    # again, bit for bit): its rounding, from that tilt
    ends = {}
    for sign, reached, end in ((-1, w_lo, -lo), (1, w_hi, hi)):
        (w_end,), t = _upper_end([L], [h], [sign * c], [u_mle], kappa, [w_mle])
        assert np.array_equal(w_end, reached)
        ends[sign] = certificate_rounding(L, h, sign * c, u_mle, kappa, w_end, t)
        w, cs = w_end, sign * c
        assert w.sum() == pytest.approx(1) and w.min() > 0
        # the point reached is on the level set to the root search's tolerance: SLACK_TOL
        # kappa when the quadratic steps end it, or Brent's TILT_XTOL in log t, where the
        # drop ~ t^2 sigma^2 / 2 moves by expm1(2 TILT_XTOL) kappa; and the two log-likelihoods'
        # rounding
        slack, f_rounding = h @ np.log(L @ w) - level, loglik_rounding(L, h, w) + level_rounding
        assert abs(slack) <= max(SLACK_TOL, np.expm1(2 * TILT_XTOL)) * kappa + f_rounding
        # the end is certified_max, at most its bound at (t, alpha = 1): c.w + (slack + G) / t,
        # G = max_k (g + t c)_k - w.(g + t c) >= 0 the tilted problem's duality gap
        # (g = L^T (h / u), w.g = N), each side within its rounding; and at least the feasible
        # point on the way from w to the MLE when w is outside by -slack (concavity of l: l0 at
        # the fraction outside / (kappa + outside) of the way)
        g = L.T @ (h / (L @ w)) + t * cs
        gap = g.max() - w @ g
        assert end <= cs @ w + (slack + gap + f_rounding) / t + 2 * ends[sign]
        outside = max(f_rounding - slack, 0.0)
        assert end >= cs @ w - outside / (kappa + outside) * abs(cs @ (w - w_mle)) - ends[sign]

    def feasible(w):
        """l(w) >= l(w^) - kappa, decided only beyond the rounding of both sides."""
        margin = h @ np.log(L @ w) - level
        return margin > loglik_rounding(L, h, w) + level_rounding

    found = []
    # the points reached, and random ones near the MLE: no feasible point lies outside
    rng = np.random.default_rng(1)
    points = [w_lo, w_hi] + [(1 - 0.02) * w_mle + 0.02 * rng.dirichlet(np.ones(w_mle.size))
                             for _ in range(200)]
    for w in points:
        if feasible(w):
            cw, slack = c @ w, gamma(w.size) * (np.abs(c) @ w)   # c.w: K terms
            assert lo - ends[-1] - slack <= cw <= hi + ends[1] + slack
            found.append((cw, slack))
    assert len(found) > 100
    # a tilt far from the optimum (t = 1, the bound minimised over t in [e^-3, e^3]) still
    # gives an upper bound: weak duality, above every feasible point
    far = certified_max(L, h, c, u_mle, kappa, w_mle, 1.0)
    cw, slack = max(found)
    assert far >= cw - slack - certificate_rounding(L, h, c, u_mle, kappa, w_mle, 1.0)


@pytest.mark.numerical
@pytest.mark.parametrize("metric", ["recall@10", "ndcg@10"])
def test_joint_ends_are_certified_and_between_the_profile_and_the_sum(metric):
    """With a deviation e of fixed spread s added to c.w, each joint end is (1) at least
    every feasible point's c.w + e, e = s sqrt(2 (l(w) - l_0)) the largest e a w allows
    (certified), (2) at most the bound of weak duality at the point and tilt reached,
    c.w + t s^2 + (slack + G) / t, and (3) reached at a point of the profile's set whose
    e = t s^2 is at most z s = s sqrt(2 kappa): the joint end is no more than the profile's
    end plus z s (the two added in full), and here clearly less."""
    kappa = 1.92
    L, h, w_mle, loglik, c = histogram_fit(metric)
    u_mle, level = L @ w_mle, loglik - kappa
    level_rounding = loglik_rounding(L, h, w_mle) + U * abs(level)
    (lo, hi, _, _), = profile_ranges(L, h, [c], kappa, w_mle)
    sd = (hi - lo) / 4                              # the users' spread as large as the profile's
    (jlo, jhi, _, _, plo, phi), = profile_ranges(L, h, [c], kappa, w_mle,
                                                 spreads=[lambda ws: sd])
    assert (plo, phi) == (lo, hi)                   # the plain ends, solved as without a spread
    z = np.sqrt(2 * kappa)
    ends = {}
    for sign, end, profile_end in ((-1, -jlo, -lo), (1, jhi, hi)):
        cs = sign * c
        start = _upper_end([L], [h], [cs], [u_mle], kappa, [w_mle])   # as profile_ranges does
        (w,), t = _upper_end([L], [h], [cs], [u_mle], kappa, [w_mle], lambda ws: sd, start)
        rounding = certificate_rounding(L, h, cs, u_mle, kappa, w, t) + 2 * U * sd ** 2 * t
        ends[sign] = rounding
        f_rounding = loglik_rounding(L, h, w) + level_rounding
        margin = h @ np.log(L @ w) - level
        slack = margin - (t * sd) ** 2 / 2                           # the joint constraint's
        g = L.T @ (h / (L @ w)) + t * cs
        gap = g.max() - w @ g
        looseness = (slack + gap + f_rounding) / t + 2 * rounding
        assert end <= cs @ w + t * sd ** 2 + looseness                                   # (2)
        # (3): l(w) <= l(w^) + MLE_GAP, so (t s)^2 / 2 = margin - slack <= kappa + MLE_GAP -
        # slack; the root's slack is small, so w is in the profile's set
        assert (t * sd) ** 2 / 2 <= kappa + MLE_GAP - slack + f_rounding
        assert margin > f_rounding
        cw_slack = gamma(w.size) * (np.abs(c) @ w)
        assert cs @ w <= profile_end + certificate_rounding(L, h, cs, u_mle, kappa, w, t) \
            + cw_slack
        e_max = sd * np.sqrt(2 * (kappa + MLE_GAP - slack + f_rounding))
        assert end <= profile_end + e_max + looseness + cw_slack + 2 * rounding
        assert end < profile_end + 0.9 * z * sd     # the profile is not flat at its ends
    # (1): random points near the MLE with their largest e
    rng = np.random.default_rng(2)
    found = 0
    for _ in range(300):
        w = (1 - 0.03) * w_mle + 0.03 * rng.dirichlet(np.ones(w_mle.size))
        margin = h @ np.log(L @ w) - level
        f_rounding = loglik_rounding(L, h, w) + level_rounding
        if margin <= f_rounding:
            continue
        e = sd * np.sqrt(2 * (margin - f_rounding))
        cw, slack = c @ w, gamma(w.size) * (np.abs(c) @ w)
        assert jlo - ends[-1] - slack <= cw - e and cw + e <= jhi + ends[1] + slack
        found += 1
    assert found > 100


def test_joint_spread_is_narrower_than_linear_and_holds_the_profile():
    """On simulated evaluations: the joint interval holds the profile interval of M(P)
    (clipped to [0, 1] as the answer is) and is narrower than the linear one, and covers
    the users' metric in at least 9 of 10 seeded evaluations per metric."""
    hits = {"recall@10": 0, "ndcg@10": 0}
    for seed in range(5):
        for shape in ("ml1m", "very_sharp"):
            r, s = simulated(shape, 1500, 50, 2000, "binomial", seed)
            joint = recommended_interval(s, 1500, 50, list(hits), spread="joint")
            linear = recommended_interval(s, 1500, 50, list(hits), spread=True)
            pd.testing.assert_frame_equal(joint[["profile_low", "profile_high"]],
                                          linear[["profile_low", "profile_high"]])
            for j, row in zip(joint.itertuples(), linear.itertuples()):
                assert j.ci_low <= max(j.profile_low, 0) and min(j.profile_high, 1) <= j.ci_high
                assert j.ci_high - j.ci_low < row.ci_high - row.ci_low
                truth = parse_metric(j.metric)(r, 1500).mean()
                hits[j.metric] += j.ci_low <= truth <= j.ci_high
    assert min(hits.values()) >= 9, hits


def test_wider_level_gives_a_wider_interval():
    _, s = simulated("sharp", 1000, 50, 2000)
    narrow = recommended_interval(s, 1000, 50, "ndcg@10", level=0.8)
    wide = recommended_interval(s, 1000, 50, "ndcg@10", level=0.99)
    assert wide.ci_low[0] < narrow.ci_low[0] < narrow.ci_high[0] < wide.ci_high[0]


def test_exact_sampling_gives_the_users_metric():
    """Hypergeometric with m = n - 1 draws every other item: the sampled rank is the true
    rank, and only the users' spread is left in the interval."""
    n, users = 60, 4000
    r, s = simulated("ml1m", n, n - 1, users, "hypergeometric")
    assert np.array_equal(r, s)
    out = recommended_interval(s, n, n - 1, "recall@10,ndcg@10", "hypergeometric")
    for row in out.itertuples():
        values = parse_metric(row.metric)(r, n)
        truth, sd = values.mean(), values.std() / np.sqrt(users)
        assert row.ci_low <= truth <= row.ci_high
        assert row.ci_high - row.ci_low < 2 * (2 * 1.96 * sd)


@pytest.mark.numerical
def test_one_n_per_user_equal_for_all_is_the_histogram_path():
    _, s = simulated("sequential", 800, 40, 500)
    common = recommended_interval(s, 800, 40, "recall@10")
    per_user = recommended_interval(s, np.full(s.size, 800), np.full(s.size, 40), "recall@10")
    # exact: one n and m for all users take the histogram's path (the same operations)
    assert np.array_equal(common[["ci_low", "ci_high"]], per_user[["ci_low", "ci_high"]])


@pytest.mark.parametrize("law", LAWS)
def test_covers_the_truth_on_simulated_evaluations(law):
    """20 seeded evaluations per law (two shapes, 2,000 users): at a nominal 95 %, at least
    18 of the 20 intervals of each metric contain the users' exact metric."""
    hits = {"recall@10": 0, "ndcg@10": 0}
    for seed in range(10):
        for shape in ("ml1m", "very_sharp"):
            r, s = simulated(shape, 1500, 50, 2000, law, seed)
            for row in recommended_interval(s, 1500, 50, list(hits), law).itertuples():
                truth = parse_metric(row.metric)(r, 1500).mean()
                hits[row.metric] += row.ci_low <= truth <= row.ci_high
    assert min(hits.values()) >= 18, hits


def test_correct_puts_the_recommended_row_first_and_labels_every_interval():
    r, s = simulated("ml1m", 3706, 100, 2000)
    table = sm.correct(s, 3706, 100, "recall@10,ndcg@10", "recommended,cls")
    assert table.correction.tolist() == ["recommended", "cls"] * 2
    assert table.covers.tolist() == ["full metric", "users' noise"] * 2
    assert table.users.tolist() == [2000] * 4
    assert table.attrs["notes"] and "users' noise" in table.attrs["notes"][0]
    only = correct(s, 3706, 100, "recall@10", ["recommended"])
    assert only.attrs["notes"] == []
    cls = correct(s, 3706, 100, "recall@10", "cls", bootstrap=0)      # a name, not letters
    assert cls.correction.tolist() == ["cls"]


def long_frame(positions, n_nonrelevant, users=None):
    users = np.arange(len(positions)) if users is None else users
    return pd.DataFrame({"user": users, "position": positions,
                         "n_nonrelevant": n_nonrelevant, "n_negatives": 100})


def test_long_format_takes_each_users_own_n():
    rng = np.random.default_rng(4)
    n_u = 3706 - rng.integers(0, 300, 3000)
    r = true_ranks("ml1m", n_u, rng)
    s = draw_sampled_ranks(r, n_u, 100, rng=rng)
    table = correct_positions(long_frame(s, n_u - 1), "recall@10", ["recommended", "sampled"])
    want = recommended_interval(s, n_u, 100, "recall@10")
    assert table.correction.tolist() == ["recommended", "sampled"]
    assert table.ci_low[0] == pytest.approx(want.ci_low[0])
    assert table.ci_low[0] <= (r <= 10).mean() <= table.ci_high[0]


@pytest.mark.slow
@pytest.mark.parametrize("law", LAWS)
def test_several_positives_per_user_are_covered(law):
    """Users with 1-4 positives sharing their negatives: the recommended interval of the
    several-positives metric (normaliser times the positives' shifted terms) contains the
    users' exact metric in at least 9 of 10 seeded evaluations per metric."""
    from sampled_metrics.multipositive.positives import multi_positive_metric
    hits = {"recall@10": 0, "ndcg@10": 0, "hit@10": 0}
    for seed in range(5):
        for shape in ("ml1m", "sharp"):
            rng = np.random.default_rng([seed, 11])
            frame, full, user = several_positives(shape, 1500, 1000, 50, law, rng)
            table = correct_positions(frame, list(hits), ["recommended"], sampling=law)
            positions = [full[user == u] for u in range(1500)]
            for row in table.itertuples():
                truth = multi_positive_metric(row.metric, positions, np.full(1500, 999)).mean()
                hits[row.metric] += row.ci_low <= truth <= row.ci_high
    assert min(hits.values()) >= 9, hits


def test_command_line_prints_the_recommended_row_and_the_note(tmp_path, capsys):
    _, s = simulated("ml1m", 3706, 100, 1000)
    path = tmp_path / "ranks.txt"
    np.savetxt(path, s, fmt="%d")
    assert main(["correct", "--ranks", str(path), "--n", "3706", "--m", "100",
                 "--metric", "recall@10", "--format", "csv"]) == 0
    out = capsys.readouterr()
    rows = out.out.splitlines()
    assert rows[0] == "metric,correction,value,std_error,ci_low,ci_high,covers,users"
    assert rows[1].startswith("recall@10,recommended,") and "full metric" in rows[1]
    assert out.err.startswith("note: only the 'recommended' rows' intervals")


@pytest.mark.parametrize("call, message", [
    (lambda s: recommended_interval(s, 1000, 50, "recall@10", level=1.5), "level must lie"),
    (lambda s: recommended_interval(s[:1], 1000, 50, "recall@10"), "at least 2 users"),
    (lambda s: recommended_interval(s + 60, 1000, 50, "recall@10"), "of user 0 is not in 1..m+1 = 51"),
    (lambda s: recommended_interval(s, 1000, 50, "recall@10", shape="concave"),
     "unknown shape 'concave'"),
    (lambda s: recommended_interval(s, 1000, 50, "recall@10", "poisson"), "poisson"),
    (lambda s: recommended_interval(s, 1000, 50, "recall@10", spread="quadrature"),
     "unknown spread 'quadrature'"),
])
def test_bad_input_is_refused_in_one_line(call, message):
    _, s = simulated("flat", 1000, 50, 100)
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        call(s)
    assert "\n" not in str(err.value)


def test_the_study_cell_and_summary():
    cell = dict(shape="ml1m", n=400, m=20, sampling="binomial", pool="common", draw=0)
    frame = cell_intervals(cell, 300, 40, 0)
    assert set(frame.method) == {"recommended", "profile", "profile_no_shape", "cls", "bv_0.1",
                                 "mes", "mle"}
    assert (frame.width >= 0).all() and frame.contains.dtype == bool
    summary = summary_frame(frame)
    assert set(summary.group) == {"all", "common-n", "ml1m"}
    assert summary.cells.eq(1).all()


def test_estimate_labels_its_intervals_and_warns_of_wmle(tmp_path, capsys):
    _, s = simulated("ml1m", 1000, 50, 500)
    path = tmp_path / "ranks.txt"
    np.savetxt(path, s, fmt="%d")
    base = ["estimate", "--ranks", str(path), "--n", "1000", "--m", "50", "--metric",
            "recall@10", "--bootstrap", "40", "--format", "csv"]
    assert main(base) == 0
    out = capsys.readouterr()
    assert [row.split(",")[1] for row in out.out.splitlines()[1:]] == ["mle", "mes", "bv_0.1"]
    assert out.out.splitlines()[1].endswith("users' noise")
    assert out.err.count("note:") == 1 and "'recommended' row" in out.err
    assert main(base + ["--method", "wmle"]) == 0
    assert "note: wmle weighs the likelihood" in capsys.readouterr().err


def test_model_validation_reads_rank_files(tmp_path):
    from conftest import toy_rank_file

    from sampled_metrics.workflow.steps.interval_models import validation
    rng = np.random.default_rng(7)
    exact = true_ranks("sharp", np.full(800, 500), rng)
    paths = {}
    for name, m in (("A", 30), ("B", 40)):
        path = tmp_path / f"{name}.npz"
        toy_rank_file(exact, 500, m, rng, repeats=3, recommender=name).write(path)
        paths[("toy", name)] = str(path)
    summary = validation(paths, [40, 30], tmp_path / "out", repeats=range(3))
    # three metrics (recall@10, ndcg@10, ap) per file, each at the first size it holds
    assert summary.m.tolist() == [30] * 3 + [40] * 3 and summary.repeats.eq(3).all()
    per = pd.read_csv(tmp_path / "out_per_repeat.csv")
    assert len(per) == 18
    recall = per[(per.recommender == "A") & (per.metric == "recall@10")]
    assert np.allclose(recall.exact, (exact <= 10).mean())
    assert recall.contains.all()


def test_long_format_refuses_too_few_bootstrap_draws():
    frame = long_frame([1, 5, 3, 40], [500] * 4)
    with pytest.raises(ValueError, match="bootstrap 5 is too few draws for a 95% interval"):
        correct_positions(frame, "recall@10", "sampled,cls", bootstrap=5)
    table = correct_positions(frame, "recall@10", "sampled,cls", bootstrap=0)
    assert table.correction.tolist() == ["sampled", "cls"]


def test_the_answer_has_the_same_bits_on_any_number_of_threads(monkeypatch):
    """Per-user pools (user_atoms' groups) and two metrics (four profile ends) spread over
    1, 2 or 3 threads: the same bits, since each part writes its own result."""
    import sampled_metrics.intervals.recommended as recommended
    import sampled_metrics.parallel as parallel
    monkeypatch.setattr(recommended, "THREAD_ROWS", 0)      # threads even for a small problem
    rng = np.random.default_rng(8)
    n_u = 1500 - rng.integers(0, 40, 800)
    r = true_ranks("ml1m", n_u, rng)
    s = draw_sampled_ranks(r, n_u, 50, "hypergeometric", rng=rng)
    tables = []
    for threads in (1, 2, 3):
        monkeypatch.setattr(parallel, "available_cpus", lambda: threads)
        assert parallel.thread_count() == threads
        tables.append(recommended_interval(s, n_u, 50, "recall@10,ndcg@10", "hypergeometric"))
    for other in tables[1:]:
        pd.testing.assert_frame_equal(other, tables[0], check_exact=True)
    inside = parallel.map_items(lambda _: parallel.thread_count(), [0])
    assert inside == [1]                  # inside map_items' calls: one thread
