"""Download check, parsing, binarisation and leave-last-out split."""
import hashlib
import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from sampled_metrics import data
from sampled_metrics.data import (DataError, fetch_archive, index_interactions, leave_last_out,
                                  read_ratings, synthetic_ratings)


def write_zip(path, text, member="ml-1m/ratings.dat"):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(member, text)
    return path


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return synthetic_ratings(tmp_path_factory.mktemp("syn") / "ratings.zip")


# ----------------------------------------------------------------------------- fetch

def test_fetch_local_copy_checks_md5(tmp_path):
    src = write_zip(tmp_path / "src.zip", "1::2::3::4\n")
    good = hashlib.md5(src.read_bytes()).hexdigest()
    dest = fetch_archive("http://unused", good, tmp_path / "out" / "a.zip", local_path=src)
    assert dest.read_bytes() == src.read_bytes()
    with pytest.raises(DataError, match=f"expected {'0' * 32}, got {good}"):
        fetch_archive("http://unused", "0" * 32, tmp_path / "out" / "b.zip", local_path=src)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.zip"]


def test_fetch_url_streams_and_verifies(tmp_path):
    src = write_zip(tmp_path / "src.zip", "1::2::3::4\n")
    good = data.md5sum(src)
    dest = fetch_archive(src.as_uri(), good, tmp_path / "dl" / "a.zip")
    assert data.md5sum(dest) == good
    with pytest.raises(DataError, match="MD5 mismatch"):
        fetch_archive(src.as_uri(), "f" * 32, tmp_path / "dl" / "b.zip")
    assert [p.name for p in (tmp_path / "dl").iterdir()] == ["a.zip"]


def test_fetch_truncated_download_leaves_nothing(tmp_path, monkeypatch):
    class Response(io.BytesIO):
        headers = {"Content-Length": "100"}

    monkeypatch.setattr(data.urllib.request, "urlopen", lambda *a, **k: Response(b"x" * 60))
    with pytest.raises(DataError, match="truncated, got 60 of 100 bytes"):
        fetch_archive("http://example.org/a.zip", "0" * 32, tmp_path / "a.zip")
    assert list(tmp_path.iterdir()) == []


def test_fetch_rejects_bad_md5_string(tmp_path):
    with pytest.raises(ValueError, match="32 hex digits"):
        fetch_archive("http://x", "abc", tmp_path / "a.zip")


# ----------------------------------------------------------------------------- read

def test_read_ratings_parses_integral_decimals(tmp_path):
    path = write_zip(tmp_path / "r.zip", "1::3186.0::4::978824299\n2::7::5::9\n")
    df = read_ratings(path)
    assert list(df.columns) == ["user", "item", "rating", "timestamp"]
    assert (df.dtypes == np.int64).all()
    assert df.to_numpy().tolist() == [[1, 3186, 4, 978824299], [2, 7, 5, 9]]


def test_read_ratings_slow_path_agrees(tmp_path):
    path = write_zip(tmp_path / "r.zip", "1::3186.0::4::978824299\r\n 2 ::+7::5::9\r\n")
    assert read_ratings(path).to_numpy().tolist() == [[1, 3186, 4, 978824299], [2, 7, 5, 9]]
    assert read_ratings(write_zip(tmp_path / "e.zip", "")).shape == (0, 4)


@pytest.mark.parametrize("bad", ["1::2::3", "1::x::3::4", "1::2::3::4::5", "1::2.5::3::4", "",
                                 "1:2::3::4", "1::1e3::3::4"])
def test_read_ratings_names_first_bad_line(tmp_path, bad):
    path = write_zip(tmp_path / "r.zip", f"1::2::3::4\n1::3::3::5\n{bad}\n1::4::1::6\n")
    with pytest.raises(DataError, match=r"r\.zip:ml-1m/ratings\.dat: line 3: expected 4 "):
        read_ratings(path)


def test_read_ratings_archive_errors(tmp_path):
    with pytest.raises(DataError, match="no member"):
        read_ratings(write_zip(tmp_path / "r.zip", "1::2::3::4\n", member="x.dat"))
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(DataError, match="not a readable zip"):
        read_ratings(tmp_path / "bad.zip")
    with pytest.raises(DataError, match="not found"):
        read_ratings(tmp_path / "missing.zip")


# ----------------------------------------------------------------------------- index/split

def frame(rows):
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])


def test_index_interactions_dedups_and_maps_sorted_ids():
    df = frame([[10, 500, 5, 3], [10, 200, 4, 1], [7, 500, 3, 2], [10, 500, 1, 9],
                [10, 500, 2, 9]])
    out, users, items = index_interactions(df)
    assert users.tolist() == [7, 10] and items.tolist() == [200, 500]
    # duplicate (10, 500): latest timestamp 9, and of the two at t=9 the last in the file
    assert out.to_numpy().tolist() == [[1, 0, 1], [0, 1, 2], [1, 1, 9]]


def test_leave_last_out_tie_rule_and_dropped_users():
    df = pd.DataFrame({"user": [0, 0, 0, 1, 2, 2], "item": [0, 1, 2, 0, 3, 1],
                       "timestamp": [5, 7, 7, 1, 4, 3]})
    split = leave_last_out(df, n_users=4, n_items=4)
    # user 0: items 1 and 2 both at t=7, item 2 is last in the file -> held out
    assert split.users.tolist() == [0, 2] and split.test_items.tolist() == [2, 3]
    assert split.n_dropped == 2  # user 1 (one interaction), user 3 (none)
    assert split.train.toarray().tolist() == [[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0],
                                              [0, 0, 0, 0]]
    assert split.n_candidates().tolist() == [2, 3]


def test_leave_last_out_rejects_bad_input():
    df = pd.DataFrame({"user": [0, 0], "item": [1, 1], "timestamp": [1, 2]})
    with pytest.raises(ValueError, match="duplicate"):
        leave_last_out(df, 1, 2)
    with pytest.raises(ValueError, match="item indices must lie in 0..0"):
        leave_last_out(df, 1, 1)


# ----------------------------------------------------------------------------- synthetic

def test_synthetic_is_byte_identical_and_seeded(tmp_path, synthetic):
    again = synthetic_ratings(tmp_path / "again.zip")
    other = synthetic_ratings(tmp_path / "other.zip", seed=1)
    assert again.read_bytes() == synthetic.read_bytes() != other.read_bytes()


def test_synthetic_end_to_end(synthetic):
    df = read_ratings(synthetic)
    interactions, users, items = index_interactions(df)
    assert len(interactions) == len(df)  # no duplicate pairs
    split = leave_last_out(interactions, len(users), len(items))
    assert len(users) == 300 and split.n_dropped == 0
    assert np.diff(split.train.indptr).min() >= 19
    popularity = np.sort(np.asarray(split.train.sum(axis=0)).ravel())
    assert popularity[-10:].mean() > 5 * popularity[:100].mean()  # skewed
    assert not split.train[split.users, split.test_items].any()


def test_movielens_1m_counts(ml1m):
    df = read_ratings(ml1m)
    interactions, users, items = index_interactions(df)
    split = leave_last_out(interactions, len(users), len(items))
    assert (len(df), len(users), len(items)) == (1_000_209, 6040, 3706)
    assert split.train.nnz == 994_169 and split.users.size == 6040
