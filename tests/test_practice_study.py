"""The practice study: the ranking of several positives (the engine's, per positive), the
simulated draws and the laws they claim, and the study end to end."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from sampled_metrics.datasets import Split, save_split
from sampled_metrics.evaluation import TIE_POLICIES, evaluate, exact_ranks, mean_metrics
from sampled_metrics.evaluation.several import rank_positives
from sampled_metrics.multipositive.draws import (categorical_counts, popularity_table,
                                                 prefix_sums, uniform_counts)
from sampled_metrics.multipositive.holdout import (Positives, leave_last_out_positives,
                                                   random_holdout)
from sampled_metrics.recommenders import make_recommender
from sampled_metrics.workflow.steps.practice_study import practice_runs, practice_table, write_outputs


def test_uniform_counts_follow_the_laws():
    rng = np.random.default_rng(9)
    # two users: cuts (40, 3, 3) of N = 100, in any order, and 0 of N = 50
    cuts = np.array([40, 0, 3, 3])
    row = np.array([0, 1, 0, 0])
    N, M = np.array([100, 50]), np.array([30, 20])
    for replace in (True, False):
        ds = np.array([uniform_counts(rng, cuts, row, N, M, replace) for _ in range(3000)])
        assert (ds[:, 1] == 0).all() and (ds[:, 2] == ds[:, 3]).all()
        assert (ds[:, 0] >= ds[:, 2]).all()                  # nested prefixes
        mean = M[row] * cuts / N[row]
        var = M[row] * (cuts / N[row]) * (1 - cuts / N[row])
        if not replace:
            var = var * (N[row] - M[row]) / (N[row] - 1)
        se = np.sqrt(var / len(ds))
        assert np.all(np.abs(ds.mean(axis=0) - mean) <= 4 * se + 1e-12)
        assert np.allclose(ds[:, [0, 2, 3]].var(axis=0), var[[0, 2, 3]], rtol=0.1)


def test_categorical_counts_and_prefix_sums():
    rng = np.random.default_rng(10)
    qn = popularity_table(np.array([[2, 0, 1, 0], [0, 1, 2, 3]]), np.array([3, 4]),
                          popularity=np.array([2.0, 1.0, 1.0, 4.0]), alpha=1.0)
    assert np.allclose(qn, [[0.25, 0.5, 0.25, 0.0], [0.25, 0.125, 0.125, 0.5]])
    N, M = np.array([3, 4]), np.array([1000, 2000])
    counts = sum(categorical_counts(rng, qn, N, M) for _ in range(50))
    assert counts[0, 3] == 0 and (counts.sum(axis=1) == 50 * M).all()
    expected = 50 * M[:, None] * qn
    assert np.all(np.abs(counts - expected) <= 4 * np.sqrt(expected) + 1e-9)
    D, W = prefix_sums(counts, qn)
    assert (D[:, -1] == 50 * M).all() and (D[:, 0] == 0).all()
    # sum over draws of 1 / q: each item's count / q_j, expectation 50 M per item drawn
    assert np.allclose(W[:, -1], (counts / np.where(qn > 0, qn, np.inf)).sum(axis=1))


def _split(n_users=40, n_items=90, seed=11):
    rng = np.random.default_rng(seed)
    dense = rng.random((n_users, n_items)) < 0.25
    test = np.array([rng.choice(np.flatnonzero(row)) for row in dense])
    dense[np.arange(n_users), test] = False
    return Split(sp.csr_matrix(dense.astype(float)), test, np.arange(n_users))


class Coarse:
    """Scores with many ties: a few levels per user."""

    def __init__(self, levels=3, seed=0):
        self.levels, self.seed = levels, seed

    def score(self, users):
        rng = np.random.default_rng([self.seed, len(users), int(np.sum(users))])
        return rng.integers(0, self.levels, (len(users), 90)).astype(float)


@pytest.mark.parametrize("tie", [t for t in TIE_POLICIES if t != "average"])
def test_one_positive_ranks_as_the_engine_under_every_tie_policy(tie):
    """With one positive per user the non-relevant items are the engine's candidates: the
    exact positions equal evaluate()'s exact ranks, tie draws and keys included."""
    split = _split()
    model = Coarse()
    want = evaluate(model, split, tie=tie, seed=5).ranks
    got = rank_positives(model, leave_last_out_positives(split), tie, seed=5)
    assert np.array_equal(got.exact_positions(), want)


def test_sampled_positions_follow_the_tie_policy():
    """Every item tied: pessimistic counts every drawn negative above, optimistic none,
    random_per_ranking a uniform number of them (mean M / 2)."""
    class Flat:
        def score(self, users):
            return np.zeros((len(users), 60))
    train = sp.csr_matrix((np.ones(5), (np.arange(5), np.arange(5))), shape=(5, 60))
    pos = Positives(train, np.arange(5), np.arange(5), np.arange(5) + 10)
    M = np.full(5, 8)
    y = {}
    for tie in ("pessimistic", "optimistic", "random", "random_per_ranking"):
        ranked = rank_positives(Flat(), pos, tie, seed=1)
        y[tie] = np.array([ranked.uniform_positions(M, False, lambda b, j=j: np.random.default_rng([j, b])) - 1
                           for j in range(400)])
    assert (y["pessimistic"] == 8).all() and (y["optimistic"] == 0).all()
    assert abs(y["random_per_ranking"].mean() - 4) < 0.2
    assert y["random_per_ranking"].min() == 0 and y["random_per_ranking"].max() == 8
    assert 0 < y["random"].mean() < 8


def test_weighted_estimate_is_unbiased_for_x():
    """Popularity draws: 1 + x^ has expectation 1 + x (Horvitz-Thompson), here with keyed
    ties."""
    split = _split()
    pos = random_holdout(split, 0.2, seed=3)
    ranked = rank_positives(Coarse(levels=4), pos, "random", seed=2)
    pop = np.asarray(pos.train.sum(axis=0)).ravel() + 1.0
    M = 20 * pos.k
    est = np.mean([ranked.popularity_positions(M, pop, 1.0, lambda b, j=j:
                                               np.random.default_rng([j, b]))[1]
                   for j in range(300)], axis=0)
    assert np.abs(est - 1 - ranked.x).mean() < 0.05 * (1 + ranked.x).mean()


def test_practice_runs_on_a_small_split(tmp_path):
    """End to end: the exact metric equals the library's exact evaluation, every protocol
    and method is there, and a rerun is identical."""
    split = _split()
    save_split(split, tmp_path / "split.npz")
    recs = {"A": {"model": "ease", "lam": 5.0}, "B": {"model": "ease", "lam": 500.0}}
    options = dict(dataset="toy", seed=1, fraction=0.2, m=5, repeats=2, alphas=[1.0],
                   popularity_repeats=2, metrics=["recall@10", "ndcg@10"],
                   corrections=["sampled", "rank_estimate", "cls", "bv_0.1"],
                   tie="random_per_ranking")
    runs = practice_runs(tmp_path / "split.npz", "last", recs, **options)
    for name, spec in recs.items():
        spec = dict(spec)
        model = make_recommender(spec.pop("model"), **spec).fit(split.train)
        r, n_u = exact_ranks(model.score(split.users), split.train, split.test_items,
                             "pessimistic")                       # EASE: no ties
        want = mean_metrics(r, n_u, ["recall@10", "ndcg@10"])
        got = runs[(runs.method == "exact") & (runs.recommender == name)].set_index(
            "metric").value
        assert got["recall@10"] == want["recall@10"]
        assert abs(got["ndcg@10"] - want["ndcg@10"]) < 1e-12
    assert set(runs.protocol) == {"exact", "per_user", "per_positive", "pop1"}
    assert set(runs[runs.protocol == "pop1"].method) == {"sampled", "weighted_rank_estimate"}
    holdout = practice_runs(tmp_path / "split.npz", "holdout", recs, **options)
    again = practice_runs(tmp_path / "split.npz", "holdout", recs, **options)
    pd.testing.assert_frame_equal(holdout, again)
    table = practice_table(pd.concat([runs, holdout]))
    assert (table.repeats == 2).all() and np.isfinite(table["rel_error"]).all()
    paths = []
    for name, frame in (("last", runs), ("holdout", holdout)):
        paths.append(tmp_path / f"runs_{name}.csv")
        frame.to_csv(paths[-1], index=False)
    outputs = {"table": tmp_path / "practice.csv", "table_md": tmp_path / "practice.md",
               "ordering": tmp_path / "ordering.csv", "pdf": tmp_path / "practice.pdf",
               "png": tmp_path / "practice.png"}
    write_outputs(paths, outputs, "toy")
    assert all(path.stat().st_size > 0 for path in outputs.values())
    assert len(pd.read_csv(outputs["table"])) == len(table)
    with pytest.raises(ValueError, match="tie policy 'average'"):
        practice_runs(tmp_path / "split.npz", "last", recs, **{**options, "tie": "average"})
