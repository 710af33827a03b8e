"""The synthetic dataset: parameters, exact sizes, distinct items, the successive-sampling
law, determinism, and that the split pipeline accepts it."""
import itertools
import json
import zipfile

import numpy as np
import pytest

from sampled_metrics.datasets import (DataError, generate_synthetic, index_interactions,
                                      leave_last_out, make_split, read_synthetic,
                                      synthetic_parameters)
from sampled_metrics.datasets import synthetic as syn


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return generate_synthetic(tmp_path_factory.mktemp("syn") / "ratings.zip", n_users=300,
                              n_items=400)


def test_synthetic_is_byte_identical_and_seeded(tmp_path, synthetic):
    again = generate_synthetic(tmp_path / "again.zip", n_users=300, n_items=400)
    other = generate_synthetic(tmp_path / "other.zip", n_users=300, n_items=400, seed=1)
    assert again.read_bytes() == synthetic.read_bytes() != other.read_bytes()


def test_synthetic_end_to_end(synthetic):
    df = read_synthetic(synthetic)
    interactions, users, items = index_interactions(df)
    assert len(interactions) == len(df)  # no duplicate pairs
    split = leave_last_out(interactions, len(users), len(items))
    assert len(users) == 300 and split.n_dropped == 0
    assert np.diff(split.train.indptr).min() >= 19
    popularity = np.sort(np.asarray(split.train.sum(axis=0)).ravel())
    assert popularity[-10:].mean() > 5 * popularity[:100].mean()  # skewed
    assert not split.train[split.users, split.test_items].any()


def test_synthetic_archive_contents(synthetic):
    with np.load(synthetic) as z:
        assert z.files == list(syn.ARRAYS)
        assert json.loads(str(z["parameters"])) == synthetic_parameters(n_users=300,
                                                                        n_items=400)
        counts, items = z["counts"], z["items"]
        assert z["user_ids"].tolist() == list(range(1, 301))
        assert np.all(np.diff(z["item_ids"]) > 0) and items.dtype == np.uint16
    with zipfile.ZipFile(synthetic) as zf:  # a plain zip: no compression, fixed dates
        assert {(i.compress_type, i.date_time) for i in zf.infolist()} == \
            {(zipfile.ZIP_STORED, (1980, 1, 1, 0, 0, 0))}
    assert counts.sum() == 300 * 35 == items.size  # default: min_per_user + 15 per user
    assert counts.min() >= 20 and counts.max() <= 100  # default cap: n_items // 4
    df = read_synthetic(synthetic)
    assert not df.duplicated(["user", "item"]).any()
    assert df.rating.between(1, 5).all() and df.rating.nunique() == 5
    # same-second interactions, also at a user's latest second (the tie rule decides)
    latest = df.groupby("user").timestamp.transform("max")
    assert (df[df.timestamp == latest].groupby("user").size() > 1).mean() > 0.1
    assert df.duplicated(["user", "timestamp"]).mean() > 0.1


def test_ml20m_shape_counts():
    """The per-user distribution of the ML-20M config, without drawing items."""
    counts = syn.user_counts(138_493, 20_000_263, 20, 9254, 1.4,
                             np.random.default_rng(0))
    assert counts.sum() == 20_000_263 and counts.min() == 20 and counts.max() == 9254
    assert 60 <= np.median(counts) <= 75 and abs(counts.mean() - 144.4) < 0.1


@pytest.mark.parametrize("kw", [dict(n_users=50, n_items=120, n_events=1401),
                                dict(n_users=40, n_items=60, n_events=40 * 60,
                                     max_per_user=60),            # every user every item
                                dict(n_users=30, n_items=50, n_events=30 * 20, seed=3),
                                dict(n_users=20, n_items=300, n_events=1500, count_sigma=0,
                                     zipf_exponent=2.0, n_clusters=1),
                                dict(n_users=200, n_items=100, n_clusters=300)])
def test_exact_sizes_and_distinct_items(tmp_path, kw):
    df = read_synthetic(generate_synthetic(tmp_path / "s.zip", **kw))
    p = synthetic_parameters(**kw)
    counts = df.groupby("user").size()
    assert len(df) == p["n_events"] and len(counts) == p["n_users"]
    assert counts.min() >= p["min_per_user"] and counts.max() <= p["max_per_user"]
    assert not df.duplicated(["user", "item"]).any()


def test_items_follow_successive_sampling():
    """A user's items are the first distinct ones of independent draws by weight: compare
    the frequency of every 3-item set with its exact probability (chi-square)."""
    reps, weights = 20_000, np.array([5.0, 3.0, 1.0, 1.0, 0.5])
    clusters, boost = np.array([0, 1, 0, 1, 0]), 3.0
    sampler = syn.ItemSampler(weights, clusters, np.zeros(reps, dtype=int), 2, boost)
    keys = syn.draw_block(np.full(reps, 3), 0, sampler, 5, np.random.default_rng(1))
    assert keys.size == 3 * reps and np.all(np.diff(keys) > 0)
    sets = np.sort((keys % 5).reshape(reps, 3), axis=1)
    w = weights * np.where(clusters == 0, boost, 1.0)
    chi2 = 0.0
    for combo in itertools.combinations(range(5), 3):
        p = sum(np.prod([w[i] / (w.sum() - w[list(order[:k])].sum())
                         for k, i in enumerate(order)])
                for order in itertools.permutations(combo))
        seen = np.sum(np.all(sets == combo, axis=1))
        chi2 += (seen - reps * p) ** 2 / (reps * p)
    assert chi2 < 27.9  # 9 degrees of freedom, p = 0.001


@pytest.mark.parametrize("kw, message", [
    (dict(n_users=10), r"'n_items' is required"),
    (dict(n_users=10, n_items=100, n_user=3), r"unknown key 'n_user' \(did you mean "
                                              r"'n_users'\?\)"),
    (dict(n_users=0, n_items=100), r"n_users must be an integer >= 1, got 0"),
    (dict(n_users=10, n_items=100, cluster_boost=0.5), r"cluster_boost must be a number >= 1"),
    (dict(n_users=10, n_items=100, seed=-1), r"seed must be an integer >= 0"),
    (dict(n_users=10, n_items=10), r"min_per_user \(20\) exceeds n_items \(10\)"),
    (dict(n_users=10, n_items=100, max_per_user=101), r"max_per_user must lie in "
                                                      r"min_per_user..n_items \(20..100\)"),
    (dict(n_users=10, n_items=100, n_events=199), r"n_events must lie in .* \(200..250\), "
                                                  r"got 199"),
])
def test_parameters_are_checked(tmp_path, kw, message):
    with pytest.raises(ValueError, match=f"^synthetic: {message}"):
        generate_synthetic(tmp_path / "s.zip", **kw)
    assert not (tmp_path / "s.zip").exists()


def test_parameter_defaults():
    p = synthetic_parameters(n_users=120, n_items=160)
    assert (p["n_events"], p["min_per_user"], p["max_per_user"]) == (120 * 35, 20, 40)
    # a small catalogue: the cap is min_per_user, so is every user's count
    assert synthetic_parameters(n_users=5, n_items=60)["n_events"] == 100


def test_reader_rejects_other_files(tmp_path, synthetic):
    with pytest.raises(DataError, match="archive not found"):
        read_synthetic(tmp_path / "none.zip")
    (tmp_path / "text.zip").write_text("not an archive")
    with pytest.raises(DataError, match="not a synthetic dataset archive"):
        read_synthetic(tmp_path / "text.zip")
    np.savez(tmp_path / "other.npz", counts=np.array([1]))
    with pytest.raises(DataError, match=r"not a synthetic dataset archive \(no user_ids, "):
        read_synthetic(tmp_path / "other.npz")
    with np.load(synthetic) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["counts"] = arrays["counts"] + 1
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(DataError, match="inconsistent"):
        read_synthetic(tmp_path / "bad.npz")


def test_recommenders_learn_from_it(tmp_path, synthetic):
    """Popularity alone beats random, and item-kNN (clusters) beats popularity."""
    from sampled_metrics.datasets import load_split
    from sampled_metrics.evaluation import evaluate, mean_metrics
    from sampled_metrics.recommenders import make_recommender
    from sampled_metrics.recommenders.base import Recommender

    make_split(synthetic, "synthetic", tmp_path / "split.npz")
    split = load_split(tmp_path / "split.npz")

    class Popularity(Recommender):
        def fit(self, train):
            self.train_ = train
            return self

        def _score(self, users):
            counts = np.asarray(self.train_.sum(axis=0)).ravel()
            return np.tile(counts, (len(users), 1))

    auc = {}
    for name, model in (("popularity", Popularity().fit(split.train)),
                        ("itemknn", make_recommender("itemknn", q=1.0).fit(split.train))):
        ev = evaluate(model, split, tie="random", seed=0)
        auc[name] = mean_metrics(ev.ranks, ev.n_u, ["auc"])["auc"]
    assert 0.6 < auc["popularity"] < auc["itemknn"]
