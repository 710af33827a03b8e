import numpy as np
import pandas as pd
import pytest

from sampled_metrics import correction
from sampled_metrics.datasets import (DataError, generate_synthetic, load_split, make_split,
                                      md5sum, prepare_archive)
from sampled_metrics.pipeline import derive_seed, load_ranks, rank_recommender, study_tables
from sampled_metrics.study import (correction_lookup, estimator_table, exact_metric,
                                   figure6_frame, table3_frame, table4_frame)


@pytest.fixture(scope="module")
def ranks_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("study")
    prepare_archive("syn", {"format": "synthetic", "n_users": 150, "n_items": 200, "seed": 3},
                    d / "syn.zip")
    make_split(d / "syn.zip", "synthetic", d / "split.npz")
    specs = {"X": {"model": "ials", "factors": 4, "iterations": 3, "seed": 0},
             "Y": {"model": "itemknn", "q": 3.0},
             "Z": {"model": "itemknn", "q": 1.0, "k_prime": 10}}
    for rec, spec in specs.items():
        rank_recommender(d / "split.npz", rec, spec, d / f"{rec}.npz", seed=1, dataset="syn",
                         m=20, repeats=6, repeat_chunk=4, tie="random")
    return d


def test_rank_files_consistent(ranks_dir):
    ranks = load_ranks({r: ranks_dir / f"{r}.npz" for r in "XYZ"})
    split = load_split(ranks_dir / "split.npz")
    for a in ranks.values():
        assert np.array_equal(a["n_u"], split.n_candidates())
        assert a["sampled"].shape == (6, split.users.size)
        assert a["sampled"].min() >= 1 and a["sampled"].max() <= 21
        assert np.all((a["exact"] >= 1) & (a["exact"] <= a["n_u"]))
        # with one tie order per user a sampled rank can never exceed the exact rank
        assert np.all(a["sampled"] <= a["exact"][None, :])


def test_repeat_chunking_does_not_change_ranks(ranks_dir, tmp_path):
    for tie in ("random", "random_per_ranking"):
        out = {}
        for chunk in (1, 4):
            rank_recommender(ranks_dir / "split.npz", "Z", {"model": "itemknn", "q": 1.0,
                                                             "k_prime": 10},
                             tmp_path / f"Z{chunk}.npz", seed=1, dataset="syn", m=20,
                             repeats=6, repeat_chunk=chunk, tie=tie)
            out[chunk] = np.load(tmp_path / f"Z{chunk}.npz")
        assert np.array_equal(out[1]["sampled"], out[4]["sampled"]), tie
        assert np.array_equal(out[1]["exact"], out[4]["exact"]), tie


def test_estimator_table_matches_direct_computation(ranks_dir):
    a = load_ranks({"Y": ranks_dir / "Y.npz"})["Y"]
    est = estimator_table(a["sampled"], a["n_u"], 20, ["ap"], ["sampled", "bv_0.1"],
                          "hypergeometric", "per_user")
    j, u = 2, 5
    direct = np.mean([correction("ap", int(n), 20, "bv_0.1", sampling="hypergeometric")[s - 1]
                      for n, s in zip(a["n_u"], a["sampled"][j])])
    assert est[0, 1, j] == pytest.approx(direct, rel=1e-12)
    assert est[0, 0, j] == pytest.approx(np.mean(1.0 / a["sampled"][j]))
    glob = estimator_table(a["sampled"], a["n_u"], 20, ["ap"], ["bv_0.1"], "hypergeometric",
                           "global", n_items=200)
    v = correction("ap", 200, 20, "bv_0.1", sampling="hypergeometric")
    assert glob[0, 0, u] == pytest.approx(v[a["sampled"][u] - 1].mean())


def test_lookup_independent_of_processes():
    args = (["ap", "recall@10"], ["cls", "bv_0.01"], [300, 301, 305, 310, 400], 30,
            "hypergeometric")
    assert np.array_equal(correction_lookup(*args, processes=1),
                          correction_lookup(*args, processes=2))


def test_table4_counts_agreement():
    t3 = pd.DataFrame({"dataset": "d", "recommender": ["A", "B"], "metric": "ap",
                       "estimator": "exact", "mean": [0.2, 0.1], "std": 0.0})
    per = pd.DataFrame({"dataset": "d", "recommender": ["A"] * 4 + ["B"] * 4, "metric": "ap",
                        "estimator": "sampled", "repeat": [0, 1, 2, 3] * 2,
                        "value": [0.5, 0.4, 0.3, 0.3, 0.4, 0.5, 0.2, 0.3]})
    t4 = table4_frame(t3, per)
    assert t4.loc[0, "pair"] == "A vs B" and t4.loc[0, "correct"] == 2    # repeat 3 ties


def test_table3_exact_and_sampled(ranks_dir):
    ranks = load_ranks({r: ranks_dir / f"{r}.npz" for r in "XY"})
    t3, per = table3_frame("syn", ranks, 20, ["recall@10", "auc"], ["sampled"],
                           "hypergeometric")
    exact = t3[(t3.estimator == "exact") & (t3.metric == "auc")].set_index("recommender")
    a = ranks["X"]
    assert exact.loc["X", "mean"] == pytest.approx(np.mean((a["n_u"] - a["exact"]) /
                                                           (a["n_u"] - 1)))
    assert exact_metric("recall@10", [1, 11], [50, 50]) == 0.5
    assert len(per) == 2 * 2 * 6


def test_figure6_large_m_recovers_exact(ranks_dir):
    ranks = load_ranks({"Y": ranks_dir / "Y.npz"})
    f6 = figure6_frame(ranks, "recall@10", [199], ["sampled"], n_items=200,
                       sampling="hypergeometric")
    # with m = n - 1 without replacement the sampled metric is exact (ranks among n = 200)
    r = np.floor(ranks["Y"]["exact"])
    assert f6.expected.iloc[0] == pytest.approx(np.mean(r <= 10))


def test_study_tables_write_files(ranks_dir, tmp_path):
    outs = {k: tmp_path / f"{k}.{ext}" for k, ext in (
        ("table3", "csv"), ("table3_md", "md"), ("table3_tex", "tex"), ("per_repeat", "csv"),
        ("table4", "csv"), ("table4_md", "md"), ("table4_tex", "tex"))}
    study_tables("syn", {r: ranks_dir / f"{r}.npz" for r in "XYZ"}, ["ap"], ["sampled", "cls"],
                 sampling="hypergeometric", n_mode="per_user", outputs=outs)
    assert pd.read_csv(outs["table3"]).shape[0] == 3 * 3
    assert "\\begin{tabular}" in outs["table3_tex"].read_text()


def test_prepare_archive_rejects_bad_md5(tmp_path):
    src = generate_synthetic(tmp_path / "src.zip", n_users=5, n_items=60, seed=0)
    with pytest.raises(DataError, match="MD5"):
        prepare_archive("x", {"format": "ml-1m", "path": str(src), "md5": "0" * 32},
                        tmp_path / "out" / "x.zip")
    assert not (tmp_path / "out" / "x.zip").exists()
    ok = prepare_archive("x", {"format": "ml-1m", "path": str(src), "md5": md5sum(src)},
                         tmp_path / "out" / "x.zip")
    assert md5sum(ok) == md5sum(src)
    with pytest.raises(ValueError, match="unknown dataset format"):
        prepare_archive("x", {"format": "csv"}, tmp_path / "y.zip")


def test_derive_seed_depends_on_keys():
    assert derive_seed(1, "ml-1m") == derive_seed(1, "ml-1m")
    assert derive_seed(1, "ml-1m") != derive_seed(1, "ml-20m")
    assert derive_seed(1, "a", 0) != derive_seed(2, "a", 0)


def test_exact_metrics_agree_with_implicit_evaluation(ranks_dir):
    """Cross-check against implicit.evaluation.ranking_metrics_at_k on the same model: for
    one held-out item its precision@10 (hits / min(K, |relevant|)) is our Recall@10."""
    import scipy.sparse as sp
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.evaluation import ranking_metrics_at_k

    from sampled_metrics.evaluation import evaluate, mean_metrics
    from sampled_metrics.recommenders import IALS

    split = load_split(ranks_dir / "split.npz")
    model = IALS(factors=8, iterations=5, seed=0).fit(split.train)
    ev = evaluate(model, split, (), "pessimistic")
    ours = mean_metrics(ev.ranks, ev.n_candidates, ["recall@10", "ndcg@10"])
    other = AlternatingLeastSquares(factors=8, dtype=np.float64)
    other.user_factors, other.item_factors = model.user_factors_, model.item_factors_
    test = sp.csr_matrix((np.ones(split.users.size), (split.users, split.test_items)),
                         shape=split.train.shape)
    theirs = ranking_metrics_at_k(other, split.train, test, K=10, show_progress=False)
    assert ours["recall@10"] == pytest.approx(theirs["precision"], abs=1e-12)
    assert ours["ndcg@10"] == pytest.approx(theirs["ndcg"], abs=1e-12)


def test_jin_winners_and_table2():
    from sampled_metrics.jin import jin_table2_frame, jin_winners_frame
    rows = []
    for rec, exact, est in (("A", 0.3, [0.5, 0.1, 0.2]), ("B", 0.2, [0.4, 0.3, 0.2])):
        rows += [("d", rec, "recall@1", "exact", j, exact) for j in range(3)]
        rows += [("d", rec, "recall@1", "mle", j, v) for j, v in enumerate(est)]
    per = pd.DataFrame(rows, columns=["dataset", "recommender", "metric", "estimator",
                                      "repeat", "value"])
    w = jin_winners_frame(per)
    # A is best exactly; mle picks A in repeat 0, B in 1, a tie in 2 (counts as wrong)
    assert w.loc[0, "correct"] == 1 and w.loc[0, "repeats"] == 3
    t2 = jin_table2_frame(per)
    assert list(t2.estimator[:2]) == ["exact", "mle"]
    assert t2.loc[1, "mean"] == pytest.approx(0.8 / 3)


def test_fixed_ncf_negatives_are_used(tmp_path):
    """An NCF-format dataset with a .test.negative file: the sampled rank of each user is its
    rank among exactly those negatives."""
    from sampled_metrics.recommenders import make_recommender
    prepare_archive("syn", {"format": "synthetic", "n_users": 60, "n_items": 90, "seed": 5},
                    tmp_path / "syn.zip")
    make_split(tmp_path / "syn.zip", "synthetic", tmp_path / "s.npz")
    split = load_split(tmp_path / "s.npz")
    rng = np.random.default_rng(0)
    src = tmp_path / "ncf"
    src.mkdir()
    train = split.train.tocoo()
    (src / "t.train.rating").write_text("".join(f"{u}\t{i}\t5\t0\n" for u, i in
                                                zip(train.row, train.col)))
    (src / "t.test.rating").write_text("".join(f"{u}\t{i}\t5\t1\n" for u, i in
                                               zip(split.users, split.test_items)))
    negs = []
    for u, t in zip(split.users, split.test_items):
        cand = np.setdiff1d(np.arange(split.n_items), np.r_[split.train[u].indices, t])
        negs.append(rng.choice(cand, 9, replace=False))
    (src / "t.test.negative").write_text("".join(
        f"({u},{t})\t" + "\t".join(map(str, n)) + "\n"
        for u, t, n in zip(split.users, split.test_items, negs)))
    prepare_archive("ncf", {"format": "ncf", "path": str(src), "prefix": "t"}, tmp_path / "n.zip")
    make_split(tmp_path / "n.zip", {"format": "ncf", "prefix": "t"}, tmp_path / "n.npz")
    spec = {"model": "itemknn", "q": 1.0}
    rank_recommender(tmp_path / "n.npz", "Z", spec, tmp_path / "Z.npz", seed=0, dataset="ncf",
                     m=9, repeats=5, tie="pessimistic", fixed_negatives=True)
    z = np.load(tmp_path / "Z.npz")
    assert z["sampled"].shape == (1, split.users.size)
    ncf_split = load_split(tmp_path / "n.npz")
    scores = make_recommender("itemknn", q=1.0).fit(ncf_split.train).score(ncf_split.users)
    rows = np.arange(ncf_split.users.size)
    test = scores[rows, ncf_split.test_items]
    fixed = np.load(tmp_path / "n.npz")["negatives"]
    expected = 1 + (scores[rows[:, None], fixed] >= test[:, None]).sum(axis=1)
    assert np.array_equal(z["sampled"][0], expected)
    with pytest.raises(ValueError, match="fixed negatives per user"):
        rank_recommender(tmp_path / "n.npz", "Z", spec, tmp_path / "Z2.npz", seed=0,
                         dataset="ncf", m=5, repeats=5, fixed_negatives=True)


def test_average_ties_rejected_for_sampled_ranks(ranks_dir, tmp_path):
    with pytest.raises(ValueError, match="half-integer"):
        rank_recommender(ranks_dir / "split.npz", "Y", {"model": "itemknn", "q": 3.0},
                         tmp_path / "Y.npz", seed=1, dataset="syn", m=20, repeats=2,
                         tie="average")
    assert not (tmp_path / "Y.npz").exists()


def test_jin_options_are_validated(ranks_dir):
    from sampled_metrics.jin import jin_estimates
    arrays = load_ranks({"Y": ranks_dir / "Y.npz"})["Y"]
    with pytest.raises(ValueError, match="takes no option"):
        jin_estimates("syn", "Y", arrays, ["recall@10"], ["mes"], sampling="hypergeometric",
                      options={"mes": {"etaa": 0.1}})


def test_outputs_have_normal_permissions(tmp_path):
    import os
    from sampled_metrics.tables import atomic_write_text
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "t.csv", "a\n")
    finally:
        os.umask(old)
    assert (tmp_path / "t.csv").stat().st_mode & 0o777 == 0o644
