"""The convex shape of the recommended answer: its atoms are the law's weighted averages, a
convex P is exactly their mixture, its interval covers a convex truth and is narrower than
the non-increasing one, and the likelihood-ratio check rejects shapes that rise."""
import numpy as np
import pandas as pd
import pytest
from rounding import gamma
from test_intervals import closed_form_rounding
from test_sampling import pmf_rounding

from sampled_metrics.cli import main
from sampled_metrics.design import Design
from sampled_metrics.estimators.histogram import mixture_matrix
from sampled_metrics.intervals import correct, correct_positions, recommended_interval
from sampled_metrics.intervals.atoms import (LIKELIHOOD_FLOOR, atom_grid, atom_metric,
                                             atom_ranges, histogram_atoms, user_atoms)
from sampled_metrics.intervals.profile import MLE_GAP, mixture_mle
from sampled_metrics.intervals.shape_test import TEST_GAP, shape_note, shape_test
from sampled_metrics.metrics import parse_metric
from sampled_metrics.sampling import draw_sampled_ranks
from sampled_metrics.workflow.steps.interval_study import several_positives, true_ranks

LAWS = ["binomial", "hypergeometric"]


def atom_weights(a, b, slope, n):
    """The n x K matrix of the atoms' laws on 1..n, each column g(r) / Z on its range clipped
    to the n ranks (exact integers before the division)."""
    r = np.arange(1, n + 1)[:, None]
    inside = (r > np.minimum(a, n - 1)) & (r <= np.minimum(b, n))
    g = np.where(inside, np.where(slope == 1, b + 1 - r, 1), 0).astype(float)
    return g / g.sum(axis=0)


@pytest.mark.numerical
@pytest.mark.parametrize("law", LAWS)
def test_convex_atoms_are_weighted_averages_of_the_law_and_of_the_metric(law):
    n, m = 200, 15
    a, b, slope = atom_ranges(atom_grid(300, m, [10]), "convex")    # triangles beyond n clip
    assert np.any(b > n) and set(slope.tolist()) == {0, 1}
    A = mixture_matrix(n, m, law)
    W = atom_weights(a, b, slope, n)
    reference = W.T @ A
    # every term non-negative: the running sums of the running sums (2k additions), the
    # clipped part, the division, against the reference's n-term dot products and its
    # weights' division: relative gamma(3n + 8), and the floor
    L = histogram_atoms(Design(n, m, law), a, b, slope)
    assert np.all(np.abs(L.T - reference) <= gamma(3 * n + 8) * reference + LIKELIHOOD_FLOOR)
    weights = parse_metric("ndcg@10").weights(n)
    c = atom_metric(parse_metric("ndcg@10").weights, n, a, b, slope)
    assert np.all(np.abs(c - W.T @ weights) <= gamma(3 * n + 8) * (W.T @ weights))
    s = np.array([1, 4, 16, 2])
    got = user_atoms(s, np.full(4, n), np.full(4, m), law, a, b, slope)
    # the users' laws come from the same formula (binomial) or the closed form: each entry
    # within its own rounding, carried through the non-negative averages
    rel = pmf_rounding(np.arange(1, n + 1), n, m, law) + (
        pmf_rounding(np.arange(1, n + 1), n, m, law) if law == "binomial"
        else closed_form_rounding(n, m))
    with np.errstate(invalid="ignore"):
        moved = W.T @ np.where(A > 0, rel * A, 0.0)
    bound = 2 * gamma(3 * n + 8) * reference + moved * (1 + gamma(n + 2)) + 2 * LIKELIHOOD_FLOOR
    assert np.all(np.abs(got - L[s - 1]) <= bound.T[s - 1])


@pytest.mark.numerical
def test_a_convex_p_is_the_mixture_of_its_second_differences():
    """P(r) = P(n) + sum_k e_k (k + 1 - r)_+ with e_k = D(k) - D(k + 1), D(k) = P(k) -
    P(k + 1) (D(n) = 0): on the full grid 1..n the weights w_k = e_k Z_k and n P(n) give P's
    law of the sampled rank and its metric."""
    n, m = 300, 20
    P = 0.3 * 0.9 ** np.arange(n) + 0.7 * np.maximum(1 - np.arange(n) / 150, 0) ** 2 + 0.01
    P /= P.sum()
    D = np.append(-np.diff(P), 0.0)
    e = D[:-1] - D[1:]
    k = np.arange(1, n)
    # each P(r) within gamma(9) of itself (pow within an ulp, three products, two sums and
    # the normalisation's sum and quotient, counted generously), each e_k three subtractions
    # of them: within gamma(12) of P(k) + 2 P(k + 1) + P(k + 2)
    size = np.append(P[:-2] + 2 * P[1:-1] + P[2:], P[-2] + P[-1])
    assert np.all(e >= -gamma(12) * size)                # convex and non-increasing
    a, b, slope = atom_ranges(np.arange(1, n + 1), "convex")
    w = np.concatenate([e * k * (k + 1) / 2, [0.0], [n * P[-1]]])   # T_1..T_{n-1}, T_n, flat
    dw = np.concatenate([gamma(14) * size * k * (k + 1) / 2, [0.0], [gamma(14) * n * P[-1]]])
    assert abs(w.sum() - 1) <= gamma(n + 2) * np.abs(w).sum() + dw.sum()
    A = mixture_matrix(n, m, "binomial")
    law = A.T @ P
    # the atoms within gamma(3n + 8) relative, the n + 1 products with the weights
    # (gamma(n + 2) of the terms' sizes), the weights' own rounding dw, and the reference's
    # n-term products (gamma(n)): every term's size is L |w| or A^T P
    L = histogram_atoms(Design(n, m, "binomial"), a, b, slope)
    got = L @ w
    bound = gamma(4 * n + 10) * (L @ np.abs(w) + law) + L @ dw + LIKELIHOOD_FLOOR
    assert np.all(np.abs(got - law) <= bound)
    c = atom_metric(parse_metric("recall@10").weights, n, a, b, slope)
    value = c @ w
    assert abs(value - P[:10].sum()) <= gamma(4 * n + 10) * (np.abs(c) @ np.abs(w) + 1) + c @ dw


def _coverage(shape, interval, seeds, n=1000, m=50, users=2000):
    rows = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        r = true_ranks(shape, np.full(users, n), rng)
        s = draw_sampled_ranks(r, n, m, rng=rng)
        out = recommended_interval(s, n, m, "recall@10,ndcg@10", **interval)
        for row in out.itertuples():
            truth = parse_metric(row.metric)(r, n).mean()
            rows.append((seed, row.metric, row.ci_low <= truth <= row.ci_high,
                         row.ci_high - row.ci_low, getattr(row, "shape_p", np.nan)))
    return pd.DataFrame(rows, columns=["seed", "metric", "contains", "width", "p"])


def test_the_convex_interval_covers_a_convex_truth_and_is_narrower():
    seeds = range(10)
    convex = _coverage("sharp", {"shape": "convex"}, seeds)
    default = _coverage("sharp", {}, seeds)
    # a 95 % interval: 9 of 10 or better, per metric (10 of 10 has probability >= 0.6)
    assert (convex.groupby("metric")["contains"].sum() >= 9).all()
    assert (convex["width"].to_numpy() <= default["width"].to_numpy()).mean() >= 0.9
    assert (convex.groupby("metric")["width"].median()
            < default.groupby("metric")["width"].median()).all()
    # the check rejects a true shape at p <= 0.05 in about 5 % of draws: 8 of 10 or more
    # not rejected has probability >= 0.98
    p = convex.drop_duplicates("seed")["p"].to_numpy()
    assert (p > 0.05).sum() >= 8


@pytest.mark.parametrize("shape", ["rising", "rising_head"])
def test_the_check_rejects_a_rising_p(shape):
    n, m, users = 3706, 100, 6040
    rng = np.random.default_rng(7)
    r = true_ranks(shape, np.full(users, n), rng)
    s = draw_sampled_ranks(r, n, m, rng=rng)
    out = recommended_interval(s, n, m, "recall@10", shape="convex")
    assert out["shape_p"].iloc[0] <= 0.05 and out["shape_loss"].iloc[0] > 0


def test_the_statistic_is_the_two_fits_loss():
    n, m, users = 1000, 50, 3000
    rng = np.random.default_rng(3)
    r = true_ranks("ml1m", np.full(users, n), rng)
    s = draw_sampled_ranks(r, n, m, rng=rng)
    ks = atom_grid(n, m, [10])
    convex, family = atom_ranges(ks, "convex"), atom_ranges(ks, "non-increasing")
    T, p = shape_test([(s, np.full(users, n), np.full(users, m))], "binomial", convex,
                      family, draws=0)
    assert np.isnan(p)
    h = np.bincount(s - 1, minlength=m + 1).astype(float)
    seen = h > 0
    _, l_convex = mixture_mle(histogram_atoms(Design(n, m, "binomial"), *convex)[seen], h[seen])
    _, l_family = mixture_mle(histogram_atoms(Design(n, m, "binomial"), *family)[seen], h[seen])
    # each of the four fits within its solver's gap of its maximum (TEST_GAP, MLE_GAP)
    assert abs(T - (l_family - l_convex)) <= 2 * TEST_GAP + 2 * MLE_GAP


def test_correct_takes_the_shape_and_prints_the_check(tmp_path, capsys):
    rng = np.random.default_rng(2)
    r = np.minimum(rng.geometric(0.02, 3000), 1000)
    s = draw_sampled_ranks(r, 1000, 50, rng=rng)
    table = correct(s, 1000, 50, "recall@10", ["recommended"], shape="convex")
    best = recommended_interval(s, 1000, 50, "recall@10", shape="convex")
    assert table.loc[0, "ci_low"] == best.loc[0, "ci_low"]
    assert table.attrs["notes"] == [shape_note(best.loc[0, "shape_loss"],
                                               best.loc[0, "shape_p"])]
    path = tmp_path / "ranks.txt"
    np.savetxt(path, s, fmt="%d")
    assert main(["correct", "--ranks", str(path), "--n", "1000", "--m", "50", "--metric",
                 "recall@10", "--method", "recommended", "--shape", "Convex"]) == 0
    out = capsys.readouterr()
    assert "shape convex: the sampled ranks lose" in out.out + out.err
    assert f"{best.loc[0, 'ci_low']:.6f}" in out.out
    assert main(["correct", "--ranks", str(path), "--n", "1000", "--m", "50", "--metric",
                 "recall@10", "--method", "sampled", "--shape", "convex"]) == 2
    assert ("--shape convex applies to the recommended answer, which --method sampled does "
            "not include") in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown shape 'concave'"):
        correct(s, 1000, 50, "recall@10", shape="concave")


def test_several_positives_take_the_convex_shape_for_their_best():
    frame, _, _ = several_positives("sharp", 1500, 1000, 50, "binomial",
                                    np.random.default_rng(4))
    table = correct_positions(frame, "recall@10", ["recommended"], shape="convex")
    plain = correct_positions(frame, "recall@10", ["recommended"])
    assert table.loc[0, "ci_high"] - table.loc[0, "ci_low"] \
        < plain.loc[0, "ci_high"] - plain.loc[0, "ci_low"]
    assert table.attrs["notes"][-1].startswith("shape convex:")
