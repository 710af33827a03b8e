"""The rank file: round trip, validation, one-line errors."""
import numpy as np
import pytest

from sampled_metrics.evaluation.rankfile import SCHEMA, RankFile, read_rank_file


def example(**over):
    rng = np.random.default_rng(0)
    args = dict(users=np.arange(5), exact=np.array([1, 3, 9, 2, 7]), n_u=np.full(5, 10),
                sampled={4: rng.integers(1, 6, size=(2, 5)), 2: np.ones((3, 5), np.int16)},
                n_items=12, sampling="binomial", tie="random", seed=7, dataset="d",
                recommender="R", loss=np.array([3.0, 2.0]))
    args.update(over)
    return RankFile(**args)


def test_round_trip(tmp_path):
    f = example()
    f.write(tmp_path / "r.npz")
    g = read_rank_file(tmp_path / "r.npz")
    assert g.m_values == [2, 4]
    for m in (2, 4):
        assert np.array_equal(g.sampled_ranks(m), f.sampled_ranks(m))
    assert np.array_equal(g.sampled_ranks(4, 1), f.sampled[4][1])
    assert (g.n_items, g.sampling, g.tie, g.seed, g.negatives) == (12, "binomial", "random", 7,
                                                                   "uniform")
    assert np.array_equal(g.loss, [3.0, 2.0]) and np.array_equal(g.exact, f.exact)


@pytest.mark.parametrize("over,message", [
    ({"exact": np.array([1, 3, 11, 2, 7])}, "exact ranks must lie in 1..n_u"),
    ({"n_u": np.full(5, 13)}, "n_u must lie in 1..n_items=12"),
    ({"sampled": {4: np.full((2, 5), 6)}}, "must lie in 1..m\\+1=5"),
    ({"sampled": {4: np.ones((2, 4), int)}}, "must be \\(repeats, 5\\)"),
    ({"sampled": {4: np.ones((2, 5))}}, "must be integers"),
    ({"sampling": "uniform"}, "unknown sampling law .uniform.; expected one of"),
    ({"exact": np.arange(4)}, "one entry per user"),
])
def test_invalid_content_is_rejected(over, message):
    with pytest.raises(ValueError, match=message):
        example(**over)


def test_bad_files_give_one_line_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_rank_file(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="is a directory"):
        read_rank_file(tmp_path)
    (tmp_path / "garbage.npz").write_bytes(b"\x00\x01garbage")
    with pytest.raises(ValueError, match="garbage.npz: not a rank file"):
        read_rank_file(tmp_path / "garbage.npz")
    np.savez(tmp_path / "old.npz", sampled=np.ones((2, 3)), m=np.array(5))
    with pytest.raises(ValueError, match=f"expected schema '{SCHEMA}'"):
        read_rank_file(tmp_path / "old.npz")
    f = example()
    f.write(tmp_path / "r.npz")
    with pytest.raises(ValueError, match="no sampled ranks for m=3"):
        read_rank_file(tmp_path / "r.npz").sampled_ranks(3)
    with pytest.raises(ValueError, match="repeat 2 outside 0..1"):
        read_rank_file(tmp_path / "r.npz").sampled_ranks(4, 2)
