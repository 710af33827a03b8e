"""The protocols study's simulation of drawn negatives: the laws it claims."""
import numpy as np

from sampled_metrics.steps.protocols import categorical_counts, uniform_counts


def test_uniform_counts_follow_the_laws():
    rng = np.random.default_rng(9)
    # two users: positives with x = (3, 3, 40) of N = 100, and x = (0,) of N = 50
    x = np.array([3, 3, 40, 0])
    row = np.array([0, 0, 0, 1])
    k, N, M = np.array([3, 1]), np.array([100, 50]), np.array([30, 20])
    for replace in (True, False):
        ys = np.array([uniform_counts(rng, x, row, k, N, M, replace) for _ in range(3000)])
        assert (ys[:, 3] == 0).all() and (ys[:, 0] == ys[:, 1]).all()
        mean = M[row] * x / N[row]
        var = M[row] * (x / N[row]) * (1 - x / N[row])
        if not replace:
            var = var * (N[row] - M[row]) / (N[row] - 1)
        se = np.sqrt(var / len(ys))
        assert np.all(np.abs(ys.mean(axis=0) - mean) <= 4 * se + 1e-12)
        assert np.allclose(ys[:, :3].var(axis=0), var[:3], rtol=0.1)


def test_categorical_counts():
    rng = np.random.default_rng(10)
    qn = np.array([[0.5, 0.25, 0.25, 0.0], [0.1, 0.2, 0.3, 0.4]])
    N, M = np.array([3, 4]), np.array([1000, 2000])
    counts = sum(categorical_counts(rng, qn, N, M) for _ in range(50))
    assert counts[0, 3] == 0 and (counts.sum(axis=1) == 50 * M).all()
    expected = 50 * M[:, None] * qn
    assert np.all(np.abs(counts - expected) <= 4 * np.sqrt(expected) + 1e-9)


def test_protocol_runs_on_a_small_split(tmp_path):
    """End to end on a random split: the exact metric equals the library's exact evaluation
    (EASE scores have no ties), every protocol and method is there, and a rerun is
    identical."""
    import pandas as pd
    import scipy.sparse as sp

    from sampled_metrics.datasets import Split, save_split
    from sampled_metrics.evaluation import exact_ranks, mean_metrics
    from sampled_metrics.recommenders import make_recommender
    from sampled_metrics.steps.protocols import protocol_runs, protocols_table

    rng = np.random.default_rng(11)
    dense = rng.random((40, 90)) < 0.25
    test = np.array([rng.choice(np.flatnonzero(row)) for row in dense])
    dense[np.arange(40), test] = False
    split = Split(sp.csr_matrix(dense.astype(float)), test, np.arange(40))
    save_split(split, tmp_path / "split.npz")
    recs = {"A": {"model": "ease", "lam": 5.0}, "B": {"model": "ease", "lam": 500.0}}
    options = dict(dataset="toy", seed=1, fraction=0.2, m=5, repeats=2, alphas=[1.0],
                   popularity_repeats=2, metrics=["recall@10", "ndcg@10"],
                   corrections=["sampled", "rank_estimate", "cls", "bv_0.1"])
    runs = protocol_runs(tmp_path / "split.npz", "last", recs, **options)
    for name, spec in recs.items():
        spec = dict(spec)
        model = make_recommender(spec.pop("model"), **spec).fit(split.train)
        r, n_u = exact_ranks(model.score(split.users), split.train, test, "pessimistic")
        want = mean_metrics(r, n_u, ["recall@10", "ndcg@10"])
        got = runs[(runs.method == "exact") & (runs.recommender == name)].set_index(
            "metric").value
        assert got["recall@10"] == want["recall@10"]
        assert abs(got["ndcg@10"] - want["ndcg@10"]) < 1e-12
    assert set(runs.protocol) == {"exact", "per_user", "per_positive", "pop1"}
    assert set(runs[runs.protocol == "pop1"].method) == {"sampled", "weighted_rank_estimate"}
    holdout = protocol_runs(tmp_path / "split.npz", "holdout", recs, **options)
    again = protocol_runs(tmp_path / "split.npz", "holdout", recs, **options)
    pd.testing.assert_frame_equal(holdout, again)
    table = protocols_table(pd.concat([runs, holdout]))
    assert (table.repeats == 2).all() and np.isfinite(table["rel_error"]).all()
