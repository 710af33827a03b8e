"""Fit once, score in shards: the gathered rank file is the one-process file, byte for byte,
whatever the shard size; bad shard inputs get one clear line."""
import pytest
from conftest import TINY_SPECS, synthetic_split

from sampled_metrics.datasets import load_split
from sampled_metrics.evaluation.negatives import BLOCK_USERS
from sampled_metrics.recommenders import load_model, save_model
from sampled_metrics.workflow.steps.gather import gather_ranks
from sampled_metrics.workflow.steps.ranks import (fit_recommender, rank_recommender, rank_shard,
                                                 shard_count)

SPECS = {rec: TINY_SPECS[rec] for rec in "XZ"}
PROTOCOL = dict(seed=7, sample_sizes={20: 3, 45: 2}, tie="random_per_ranking",
                sampling="hypergeometric")


@pytest.fixture(scope="module")
def split_path(tmp_path_factory):
    return synthetic_split(tmp_path_factory.mktemp("shards"), 2 * BLOCK_USERS + 300, 150, seed=5)


@pytest.mark.parametrize("rec", ["X", "Z"])
@pytest.mark.parametrize("dataset, protocol", [
    ("syn", {}), ("syn-all", {"candidates": "all", "sampling": "binomial"})])
def test_shards_gather_to_the_one_process_file(split_path, tmp_path, rec, dataset, protocol):
    kw = {**PROTOCOL, **protocol}
    rank_recommender(split_path, rec, SPECS[rec], tmp_path / "whole.npz", dataset=dataset, **kw)
    fit_recommender(split_path, rec, SPECS[rec], tmp_path / "model.pkl")
    users = load_split(split_path).users.size
    for size in (BLOCK_USERS, 2 * BLOCK_USERS, 4 * BLOCK_USERS):
        shards = [tmp_path / f"{size}_{k}.npz" for k in range(shard_count(users, size))]
        for k, out in enumerate(shards):
            rank_shard(split_path, tmp_path / "model.pkl", rec, out, dataset=dataset, shard=k,
                       users_per_shard=size, **kw)
        gather_ranks(shards, tmp_path / f"gathered_{size}.npz")
        assert len(shards) == -(-users // size)
        assert (tmp_path / f"gathered_{size}.npz").read_bytes() == \
            (tmp_path / "whole.npz").read_bytes(), size


def test_a_saved_model_scores_as_the_fitted_one_and_saves_the_same_bytes(split_path, tmp_path):
    fit_recommender(split_path, "X", SPECS["X"], tmp_path / "a.pkl")
    fit_recommender(split_path, "X", SPECS["X"], tmp_path / "b.pkl")
    assert (tmp_path / "a.pkl").read_bytes() == (tmp_path / "b.pkl").read_bytes()
    model = load_model(tmp_path / "a.pkl")
    save_model(model, tmp_path / "c.pkl")
    assert (tmp_path / "c.pkl").read_bytes() == (tmp_path / "a.pkl").read_bytes()


def test_bad_shard_inputs(split_path, tmp_path):
    fit_recommender(split_path, "Z", SPECS["Z"], tmp_path / "model.pkl")
    out = tmp_path / "s.npz"
    with pytest.raises(ValueError, match="shard 3 is past the last of the 2348 evaluated"):
        rank_shard(split_path, tmp_path / "model.pkl", "Z", out, dataset="syn", shard=3,
                   users_per_shard=BLOCK_USERS, **PROTOCOL)
    with pytest.raises(ValueError, match="ranks.users_per_shard must be a positive multiple "
                                         "of 1024"):
        rank_shard(split_path, tmp_path / "model.pkl", "Z", out, dataset="syn", shard=0,
                   users_per_shard=1000, **PROTOCOL)
    (tmp_path / "junk.pkl").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="junk.pkl: not a model file of this version"):
        load_model(tmp_path / "junk.pkl")
    with pytest.raises(ValueError, match="no such file"):
        load_model(tmp_path / "none.pkl")
    assert not out.exists()
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    rank_shard(split_path, tmp_path / "model.pkl", "Z", a, dataset="syn", shard=0,
               users_per_shard=BLOCK_USERS, **PROTOCOL)
    rank_shard(split_path, tmp_path / "model.pkl", "Z", b, dataset="syn", shard=1,
               users_per_shard=BLOCK_USERS, **{**PROTOCOL, "seed": 8})
    with pytest.raises(ValueError, match="b.npz: not a shard of the same evaluation as .* "
                                         "\\(differs in seed\\)"):
        gather_ranks([a, b], tmp_path / "g.npz")
    assert not (tmp_path / "g.npz").exists()
