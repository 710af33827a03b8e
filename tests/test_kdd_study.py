"""The KDD'20 study steps: rank files (fit once, score once), per-repeat corrections shared
by the tables, Tables 3-4, Figures 5-6."""
import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT, TINY_SPECS, synthetic_split
from rounding import U, gamma, product_bound

from sampled_metrics import correction
from sampled_metrics.datasets import (DataError, generate_synthetic, load_split, make_split,
                                      md5sum, prepare_archive)
from sampled_metrics.metrics import parse_metric
from sampled_metrics.evaluation.negatives import draw_negatives
from sampled_metrics.evaluation.rankfile import read_rank_file
from sampled_metrics.workflow.paper import KDD_CORRECTIONS, KDD_TABLE3
from sampled_metrics.recommenders import model_seed, with_model_seed
from sampled_metrics.workflow.steps.kdd_study import (correct_repeats, correct_seeds,
                                             figure6_frame, per_repeat_frame, per_seed_frame,
                                             read_per_seed, seed_spread_frame, seed_table,
                                             table3_frame, table4_frame, tables)
from sampled_metrics.workflow.steps.ranks import rank_recommender
from sampled_metrics.workflow.toy import FIG4_CORRECTIONS

SPECS = TINY_SPECS


def test_the_papers_corrections_are_one_list():
    """KDD'20's corrections (Table 3's columns after exact) are those of the running
    example's Figure 4 and of the shipped config's study."""
    assert list(dict.fromkeys(key[2] for key in KDD_TABLE3)) == ["exact", *KDD_CORRECTIONS]
    assert list(FIG4_CORRECTIONS) == list(KDD_CORRECTIONS)
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert config["study"]["corrections"] == list(KDD_CORRECTIONS)


def rank(split_path, rec, out, sizes=None, tie="random", **kw):
    return rank_recommender(split_path, rec, SPECS[rec], out, dataset="syn", seed=1,
                            sample_sizes=sizes or {20: 6}, tie=tie, sampling="hypergeometric",
                            **kw)


@pytest.fixture(scope="module")
def ranks_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("study")
    synthetic_split(d, 150, 200, seed=3)
    for rec in SPECS:
        rank(d / "split.npz", rec, d / f"{rec}.npz")
    return d


def files(d, recs="XYZ"):
    return {r: read_rank_file(d / f"{r}.npz") for r in recs}


def test_rank_files_consistent(ranks_dir):
    split = load_split(ranks_dir / "split.npz")
    for rec, f in files(ranks_dir).items():
        assert np.array_equal(f.n_u, split.n_u())
        assert f.m_values == [20] and f.recommender == rec and f.dataset == "syn"
        s = f.sampled_ranks(20)
        assert s.shape == (6, split.users.size)
        assert s.min() >= 1 and s.max() <= 21
        assert np.all((f.exact >= 1) & (f.exact <= f.n_u))
        # with one tie order per user a sampled rank can never exceed the exact rank
        assert np.all(s <= f.exact[None, :])


def test_negatives_are_shared_and_ranked(ranks_dir):
    """The sampled rank of repeat j is the rank among the negatives draw_negatives gives for
    (seed, m, j), for every recommender (shared negatives)."""
    from sampled_metrics.recommenders import make_recommender
    from sampled_metrics.seeds import derive_seed
    split = load_split(ranks_dir / "split.npz")
    f = read_rank_file(ranks_dir / "Y.npz")
    neg = draw_negatives(split, 20, repeat=4, seed=derive_seed(1, "syn"))
    model = make_recommender("itemknn", q=3.0).fit(split.train)
    scores = model.score(split.users)
    test = scores[np.arange(split.users.size), split.test_items]
    above = (np.take_along_axis(scores, neg, 1) > test[:, None]).sum(axis=1)
    tied = (np.take_along_axis(scores, neg, 1) == test[:, None]).sum(axis=1)
    r = f.sampled_ranks(20, 4)
    assert np.all((r >= 1 + above) & (r <= 1 + above + tied))


def test_other_sample_sizes_do_not_change_ranks(ranks_dir, tmp_path):
    """Fit once, score once: ranking more sample sizes in the same pass leaves the ranks of
    each (m, repeat) unchanged, for both random tie policies."""
    for tie in ("random", "random_per_ranking"):
        rank(ranks_dir / "split.npz", "Z", tmp_path / "a.npz", {20: 6}, tie)
        rank(ranks_dir / "split.npz", "Z", tmp_path / "b.npz", {20: 6, 35: 2}, tie)
        a, b = read_rank_file(tmp_path / "a.npz"), read_rank_file(tmp_path / "b.npz")
        assert b.m_values == [20, 35] and b.sampled_ranks(35).shape[0] == 2
        assert np.array_equal(a.sampled_ranks(20), b.sampled_ranks(20)), tie
        assert np.array_equal(a.exact, b.exact), tie


@pytest.mark.numerical
def test_per_repeat_corrections_match_direct_computation(ranks_dir):
    f = files(ranks_dir, "Y")
    per = per_repeat_frame("syn", f, 20, ["ap"], ["sampled", "bv_0.1"], n_mode="per_user")
    y = f["Y"]
    j = 2
    values = [correction("ap", int(n), 20, "bv_0.1", sampling="hypergeometric")[s - 1]
              for n, s in zip(y.n_u, y.sampled_ranks(20, j))]
    direct = np.mean(values)
    got = per.set_index(["method", "repeat"]).value
    # the same vectors (the lookup's exact path), the mean of the users' values (of either
    # sign) in two orders: 2 (gamma(users) + u) mean |value|
    bound = 2 * (gamma(len(values)) + U) * np.mean(np.abs(values))
    assert abs(got[("bv_0.1", j)] - direct) <= bound
    assert got[("sampled", j)] == pytest.approx(np.mean(1.0 / y.sampled_ranks(20, j)))
    glob = per_repeat_frame("syn", f, 20, ["ap"], ["bv_0.1"], n_mode="global")
    v = correction("ap", 200, 20, "bv_0.1", sampling="hypergeometric")
    assert glob.set_index(["method", "repeat"]).value[("bv_0.1", 5)] == \
        pytest.approx(v[y.sampled_ranks(20, 5) - 1].mean())


def test_table4_counts_agreement():
    t3 = pd.DataFrame({"dataset": "d", "recommender": ["A", "B"], "metric": "ap",
                       "method": "exact", "mean": [0.2, 0.1], "std": 0.0})
    per = pd.DataFrame({"dataset": "d", "recommender": ["A"] * 4 + ["B"] * 4, "metric": "ap",
                        "method": "sampled", "repeat": [0, 1, 2, 3] * 2,
                        "value": [0.5, 0.4, 0.3, 0.3, 0.4, 0.5, 0.2, 0.3]})
    t4 = table4_frame(t3, per)
    assert t4.loc[0, "pair"] == "A vs B" and t4.loc[0, "correct"] == 2    # repeat 3 ties


def test_table3_exact_and_sampled(ranks_dir):
    f = files(ranks_dir, "XY")
    per = per_repeat_frame("syn", f, 20, ["recall@10", "auc"], ["sampled"])
    t3 = table3_frame(per)
    exact = t3[(t3.method == "exact") & (t3.metric == "auc")].set_index("recommender")
    x = f["X"]
    assert exact.loc["X", "mean"] == pytest.approx(np.mean((x.n_u - x.exact) / (x.n_u - 1)))
    assert exact.loc["X", "std"] == 0
    assert parse_metric("recall@10").mean([1, 11], [50, 50]) == 0.5
    assert len(per) == 2 * 2 * 2 * 6                  # recs x metrics x (exact, sampled) x reps


def test_figure6_large_m_recovers_exact(ranks_dir):
    f = files(ranks_dir, "Y")
    f6 = figure6_frame(f, "recall@10", [199], ["sampled"], n_items=200,
                       sampling="hypergeometric")
    # with m = n - 1 without replacement the sampled metric is exact (ranks among n = 200)
    r = np.floor(f["Y"].exact)
    assert f6.expected.iloc[0] == pytest.approx(np.mean(r <= 10))


def test_study_tables_write_files(ranks_dir, tmp_path):
    per = tmp_path / "per_repeat.csv"
    correct_repeats("syn", {r: ranks_dir / f"{r}.npz" for r in "XYZ"}, 20, ["ap", "auc"],
                    ["sampled", "cls"], n_mode="per_user", out=per)
    outs = {k: tmp_path / f"{k}.{ext}" for k, ext in (
        ("table3", "csv"), ("table3_md", "md"), ("table3_tex", "tex"),
        ("table4", "csv"), ("table4_md", "md"), ("table4_tex", "tex"))}
    tables("syn", per, ["Z", "X"], ["ap"], ["sampled", "cls"], m=20, outputs=outs)
    t3 = pd.read_csv(outs["table3"])
    assert t3.shape[0] == 2 * 3 and list(t3.recommender[:3]) == ["Z"] * 3
    assert list(t3.method[:3]) == ["exact", "sampled", "cls"]
    assert "\\begin{tabular}" in outs["table3_tex"].read_text()
    with pytest.raises(ValueError, match="lack method bv_0.1"):
        tables("syn", per, ["X"], ["ap"], ["bv_0.1"], m=20, outputs=outs)


def test_seed_spread_is_mean_and_sd_over_fits():
    """Per fit the mean over repeats, then mean and sd (ddof = 1) over the fits; a fit
    without a seed gets sd 0, a single seeded fit no sd."""
    fits = {0: [0.10, 0.20], 1: [0.30, 0.50], 2: [0.60, 0.60]}       # fit means .15 .4 .6
    per_seed = pd.concat([pd.DataFrame({
        "dataset": "d", "recommender": rec, "seed": pd.array([s] * 2, dtype="Int64"),
        "metric": "ap", "method": "sampled", "repeat": [0, 1], "value": v})
        for rec, seeds in (("X", fits), ("Y", {None: [0.7, 0.9]}), ("W", {5: [0.2, 0.4]}))
        for s, v in seeds.items()], ignore_index=True)
    out = seed_spread_frame(per_seed).set_index("recommender")
    assert list(out.columns) == ["dataset", "metric", "method", "seeds", "mean", "sd"]
    assert list(out.index) == ["X", "Y", "W"]
    means = np.array([0.15, 0.4, 0.6])
    assert out.loc["X", "seeds"] == 3
    assert out.loc["X", "mean"] == pytest.approx(means.mean())
    assert out.loc["X", "sd"] == pytest.approx(np.std(means, ddof=1))
    assert (out.loc["Y", "seeds"], out.loc["Y", "mean"], out.loc["Y", "sd"]) == (1, 0.8, 0.0)
    assert out.loc["W", "mean"] == pytest.approx(0.3) and np.isnan(out.loc["W", "sd"])


def test_model_seeds_refit_only_seeded_kinds():
    assert [model_seed(SPECS[r]) for r in "XYZ"] == [0, None, None]
    assert model_seed({"model": "ials"}) == 0                 # the kind's default
    assert with_model_seed(SPECS["X"], 3)["seed"] == 3 and SPECS["X"]["seed"] == 0
    assert with_model_seed(SPECS["Y"], 3) == SPECS["Y"]


@pytest.fixture(scope="module")
def seed_files(ranks_dir):
    """X fitted with seeds 0 (its own: the file of ranks_dir) and 1, 2; Y once."""
    paths = {"X": {0: ranks_dir / "X.npz"}, "Y": {None: ranks_dir / "Y.npz"}}
    for s in (1, 2):
        out = ranks_dir / f"X_seed{s}.npz"
        rank_recommender(ranks_dir / "split.npz", "X", with_model_seed(SPECS["X"], s), out,
                         dataset="syn", seed=1, sample_sizes={20: 6}, tie="random",
                         sampling="hypergeometric")
        paths["X"][s] = out
    return paths


def test_per_seed_frame_holds_each_fit(ranks_dir, seed_files):
    """Each fit's rows are its per-repeat values (seed 0 = the one-seed table's), every fit
    ranks the same negatives, and the seeds change the model."""
    files = {r: {s: read_rank_file(p) for s, p in fits.items()} for r, fits in
             seed_files.items()}
    per_seed = per_seed_frame("syn", files, 20, ["ap", "recall@10"], ["sampled", "cls"])
    assert list(per_seed.columns) == ["dataset", "recommender", "seed", "metric", "method",
                                      "repeat", "value"]
    assert per_seed.seed.dtype == "Int64"
    assert per_seed[per_seed.recommender == "Y"].seed.isna().all()
    one = per_repeat_frame("syn", {r: read_rank_file(ranks_dir / f"{r}.npz") for r in "XY"},
                           20, ["ap", "recall@10"], ["sampled", "cls"])
    x0 = per_seed[(per_seed.recommender == "X") & (per_seed.seed == 0)]
    assert np.array_equal(x0.value, one[one.recommender == "X"].value)
    assert {int(s) for s in per_seed.seed.dropna()} == {0, 1, 2}
    losses = {s: tuple(f.loss) for s, f in files["X"].items()}
    assert len(set(losses.values())) == 3                    # three different fits
    assert files["X"][1].seed == files["X"][0].seed          # the same negatives


def test_seed_table_writes_files_deterministically(seed_files, tmp_path):
    outs = {}
    for run in ("a", "b"):
        d = tmp_path / run
        d.mkdir()
        correct_seeds("ml-1m", seed_files, 20, ["recall@10", "ndcg@10"], ["sampled", "cls"],
                      n_mode="per_user", out=d / "per_seed.csv")
        outs[run] = {k: d / f"{k}.{ext}" for k, ext in (("table", "csv"), ("table_md", "md"),
                                                          ("table_tex", "tex"))}
        seed_table("ml-1m", d / "per_seed.csv", ["X", "Y"], ["recall@10", "ndcg@10"],
                   ["sampled", "cls"], m=20, outputs=outs[run])
    for key in outs["a"]:
        assert outs["a"][key].read_bytes() == outs["b"][key].read_bytes(), key
    assert (tmp_path / "a/per_seed.csv").read_bytes() == (tmp_path / "b/per_seed.csv").read_bytes()
    table = pd.read_csv(outs["a"]["table"])
    assert list(table.columns) == ["dataset", "recommender", "metric", "method", "seeds", "mean",
                                   "sd"]
    assert table.set_index("recommender").seeds.to_dict() == {"X": 3, "Y": 1}
    assert (table[table.recommender == "Y"].sd == 0).all()
    per_seed = read_per_seed(tmp_path / "a/per_seed.csv")
    fit_means = per_seed[(per_seed.recommender == "X") & (per_seed.metric == "recall@10")
                         & (per_seed.method == "cls")].groupby("seed").value.mean()
    row = table[(table.recommender == "X") & (table.metric == "recall@10")
                & (table.method == "cls")].iloc[0]
    assert row["mean"] == pytest.approx(fit_means.mean())
    assert row["sd"] == pytest.approx(fit_means.std(ddof=1))
    md = outs["a"]["table_md"].read_text()
    assert "seeds 0, 1, 2" in md and "paper %" in md and "| 7.60 |" in md   # X's exact


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


@pytest.mark.numerical
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
    ev = evaluate(model, split, tie="pessimistic")
    ours = mean_metrics(ev.ranks, ev.n_u, ["recall@10", "ndcg@10"])
    other = AlternatingLeastSquares(factors=8, dtype=np.float64)
    other.user_factors, other.item_factors = model.user_factors_, model.item_factors_
    test = sp.csr_matrix((np.ones(split.users.size), (split.users, split.test_items)),
                         shape=split.train.shape)
    theirs = ranking_metrics_at_k(other, split.train, test, K=10, show_progress=False)
    # implicit scores the same factors by its own product: a held-out item's rank may differ
    # only where another candidate's score is within both products' rounding of its own
    # (2 product_bound each, k = 8 factors); each such user moves either mean by <= 1 / users,
    # and the means of the users' values round by 2 gamma(users)
    Uf, Vf = model.user_factors_[split.users], model.item_factors_
    rows = np.arange(split.users.size)
    scores, bound = Uf @ Vf.T, 2 * product_bound(Uf, Vf.T)
    near = (np.abs(scores - scores[rows, split.test_items][:, None])
            <= bound + bound[rows, split.test_items][:, None])
    near[rows, split.test_items] = False
    near &= split.train[split.users].toarray() == 0                 # candidates only
    slack = near.any(axis=1).sum() / rows.size + 2 * gamma(rows.size)
    assert abs(ours["recall@10"] - theirs["precision"]) <= slack
    assert abs(ours["ndcg@10"] - theirs["ndcg"]) <= slack


def test_fixed_ncf_negatives_are_used(tmp_path):
    """An NCF-format dataset with a .test.negative file: the sampled rank of each user is its
    rank among exactly those negatives."""
    from sampled_metrics.recommenders import make_recommender
    split = load_split(synthetic_split(tmp_path, 60, 90, seed=5))
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
                     sample_sizes={9: 5}, tie="pessimistic", sampling="hypergeometric",
                     fixed_negatives=True)
    z = read_rank_file(tmp_path / "Z.npz")
    assert z.negatives == "fixed" and z.sampled_ranks(9).shape == (1, split.users.size)
    ncf_split = load_split(tmp_path / "n.npz")
    scores = make_recommender("itemknn", q=1.0).fit(ncf_split.train).score(ncf_split.users)
    rows = np.arange(ncf_split.users.size)
    test = scores[rows, ncf_split.test_items]
    fixed = ncf_split.negatives
    expected = 1 + (scores[rows[:, None], fixed] >= test[:, None]).sum(axis=1)
    assert np.array_equal(z.sampled_ranks(9, 0), expected)
    with pytest.raises(ValueError, match="fixed negatives per user"):
        rank_recommender(tmp_path / "n.npz", "Z", spec, tmp_path / "Z2.npz", seed=0,
                         dataset="ncf", sample_sizes={5: 5}, tie="pessimistic",
                         sampling="hypergeometric", fixed_negatives=True)


def test_average_ties_rejected_for_sampled_ranks(ranks_dir, tmp_path):
    with pytest.raises(ValueError, match="half-integer"):
        rank(ranks_dir / "split.npz", "Y", tmp_path / "Y.npz", tie="average")
    assert not (tmp_path / "Y.npz").exists()


def test_outputs_have_normal_permissions(tmp_path):
    import os
    from sampled_metrics.workflow.tables import atomic_write_text
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "t.csv", "a\n")
    finally:
        os.umask(old)
    assert (tmp_path / "t.csv").stat().st_mode & 0o777 == 0o644


def test_view_equals_a_separate_dataset_of_its_name(ranks_dir, tmp_path):
    """A view (one fit, ranked under a second protocol) writes exactly the rank file that a
    dataset of the view's name with the same split would get from its own fit."""
    split = ranks_dir / "split.npz"
    jin = {"candidates": "all", "sampling": "binomial"}
    rank(split, "Z", tmp_path / "Z.npz", views={"syn-all": {**jin, "out": tmp_path / "v.npz"}})
    rank_recommender(split, "Z", SPECS["Z"], tmp_path / "alone.npz", dataset="syn-all", seed=1,
                     sample_sizes={20: 6}, tie="random", **jin)
    assert (tmp_path / "v.npz").read_bytes() == (tmp_path / "alone.npz").read_bytes()
    assert (tmp_path / "Z.npz").read_bytes() == (ranks_dir / "Z.npz").read_bytes()
    view = read_rank_file(tmp_path / "v.npz")
    assert view.dataset == "syn-all" and view.sampling == "binomial"
    assert np.all(view.n_u == load_split(split).n_items)   # all items are candidates
