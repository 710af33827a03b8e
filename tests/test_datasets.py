"""The datasets package: checked download, format readers (each layout parses its fixture,
and errors name file and line), binarisation, the leave-last-out split and its file, the
registry and the config schema generated from it."""
import hashlib
import importlib.util
import io
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT, write_zip

from sampled_metrics import datasets
from sampled_metrics.datasets import (FORMATS, MOVIELENS, DataError, fetch_archive,
                                      generate_synthetic, get_format, index_interactions,
                                      leave_last_out, load_split, make_split, md5sum, pack_ncf,
                                      prepare_archive, read_movielens, read_ncf, save_split)
from sampled_metrics.datasets import download
from sampled_metrics.textfile import chunks

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "formats"
CONFIGS = ROOT / "config" / "datasets"
HAS_PYARROW = importlib.util.find_spec("pyarrow") is not None


def read_ratings(path):
    """The ml-1m reader (``UserID::MovieID::Rating::Timestamp`` in ``ml-1m/ratings.dat``)."""
    return read_movielens(path, "ml-1m")


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
    good = md5sum(src)
    dest = fetch_archive(src.as_uri(), good, tmp_path / "dl" / "a.zip")
    assert md5sum(dest) == good
    with pytest.raises(DataError, match="MD5 mismatch"):
        fetch_archive(src.as_uri(), "f" * 32, tmp_path / "dl" / "b.zip")
    assert [p.name for p in (tmp_path / "dl").iterdir()] == ["a.zip"]


def test_fetch_truncated_download_leaves_nothing(tmp_path, monkeypatch):
    class Response(io.BytesIO):
        headers = {"Content-Length": "100"}

    monkeypatch.setattr(download.urllib.request, "urlopen", lambda *a, **k: Response(b"x" * 60))
    with pytest.raises(DataError, match="truncated, got 60 of 100 bytes"):
        fetch_archive("http://example.org/a.zip", "0" * 32, tmp_path / "a.zip")
    assert list(tmp_path.iterdir()) == []


def test_failed_fetch_says_in_one_line_which_config_keys_to_set(tmp_path, monkeypatch):
    """A failed download or an MD5 mismatch names datasets.<name>.path and .md5 as the user
    writes them, and says what became of the file: a download is discarded, a local file is
    left as it is."""
    src = write_zip(tmp_path / "src.zip", "1::2::3::4\n")
    good = md5sum(src)
    messages = {}
    with pytest.raises(DataError) as err:
        fetch_archive("http://unused", "0" * 32, tmp_path / "out" / "a.zip", local_path=src,
                      name="mine")
    messages["local"] = str(err.value)
    with pytest.raises(DataError) as err:
        fetch_archive(src.as_uri(), "0" * 32, tmp_path / "out" / "a.zip", name="mine")
    messages["download"] = str(err.value)

    def refused(*args, **kwargs):
        raise download.urllib.error.URLError("connection refused")

    monkeypatch.setattr(download.urllib.request, "urlopen", refused)
    with pytest.raises(DataError) as err:
        fetch_archive("http://example.org/a.zip", good, tmp_path / "out" / "a.zip", name="mine")
    messages["failed"] = str(err.value)
    assert messages == {
        "local": f"{src}: MD5 mismatch, expected {'0' * 32}, got {good}; the file is left as "
                 f"it is; if it is the right one, set datasets.mine.md5: {good}, else correct "
                 f"datasets.mine.path",
        "download": f"{src.as_uri()}: MD5 mismatch, expected {'0' * 32}, got {good}; the "
                    f"download is discarded; download it elsewhere, then set "
                    f"datasets.mine.path to your copy in config/local.yaml, which every run "
                    f"reads, or in a --configfile (datasets.mine.md5 must be its MD5)",
        "failed": "http://example.org/a.zip: download failed (<urlopen error connection "
                  "refused>); download it elsewhere, then set datasets.mine.path to your copy "
                  "in config/local.yaml, which every run reads, or in a --configfile "
                  "(datasets.mine.md5 must be its MD5)"}
    assert md5sum(src) == good and list((tmp_path / "out").iterdir()) == []


def test_a_failed_movielens_download_names_both_ways_to_a_local_copy(tmp_path, monkeypatch):
    """For MovieLens-1M the message names where config/offline.yaml expects the archive (its
    own datasets.ml-1m.path, read from the file) as well as the key to set in the config
    file every run reads, which git ignores."""
    def refused(*args, **kwargs):
        raise download.urllib.error.URLError("connection refused")

    monkeypatch.setattr(download.urllib.request, "urlopen", refused)
    offline = yaml.safe_load((ROOT / "config" / "offline.yaml").read_text())
    with pytest.raises(DataError) as err:
        fetch_archive(offline["datasets"]["ml-1m"]["url"], offline["datasets"]["ml-1m"]["md5"],
                      tmp_path / "a.zip", name="ml-1m")
    assert str(err.value).endswith(
        f"download it elsewhere, then put it at {offline['datasets']['ml-1m']['path']} and add "
        f"--configfile config/offline.yaml (or copy that file to config/local.yaml, which "
        f"every run reads), or set datasets.ml-1m.path to your copy in config/local.yaml "
        f"(datasets.ml-1m.md5 must be its MD5)")
    assert "config/local.yaml" in (ROOT / ".gitignore").read_text().splitlines()


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

def rows_frame(rows):
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])


def test_index_interactions_dedups_and_maps_sorted_ids():
    df = rows_frame([[10, 500, 5, 3], [10, 200, 4, 1], [7, 500, 3, 2], [10, 500, 1, 9],
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
    assert split.n_u().tolist() == [2, 3]


def test_leave_last_out_rejects_bad_input():
    df = pd.DataFrame({"user": [0, 0], "item": [1, 1], "timestamp": [1, 2]})
    with pytest.raises(ValueError, match="duplicate"):
        leave_last_out(df, 1, 2)
    with pytest.raises(ValueError, match="item indices must lie in 0..0"):
        leave_last_out(df, 1, 1)


def test_movielens_1m_counts(ml1m):
    df = read_ratings(ml1m)
    interactions, users, items = index_interactions(df)
    split = leave_last_out(interactions, len(users), len(items))
    assert (len(df), len(users), len(items)) == (1_000_209, 6040, 3706)
    assert split.train.nnz == 994_169 and split.users.size == 6040


# ----------------------------------------------------------------------------- formats

def fixture(name):
    return (FIXTURES / name).read_text()


def frame(rows, rating_dtype):
    user, item, rating, ts = zip(*rows)
    return pd.DataFrame({"user": np.array(user, dtype=np.int64),
                         "item": np.array(item, dtype=np.int64),
                         "rating": np.array(rating, dtype=rating_dtype),
                         "timestamp": np.array(ts, dtype=np.int64)})


CSV_ROWS = [(4, 30, 2.5, 1260000000), (4, 1029, 3.0, 1260000500), (6, 30, 4.5, 1300000000),
            (6, 7, 0.5, 1300000000)]

# format -> (fixture, member, expected frame)
MOVIELENS_CASES = {
    "ml-100k": ("ml-100k.u.data", "ml-100k/u.data", frame(
        [(3, 17, 4, 880000100), (1, 42, 5, 880000050), (3, 9, 2, 880000300),
         (1, 17, 3, 880000040), (2, 42, 1, 880000200)], np.int64)),
    "ml-1m": ("ml-1m.ratings.dat", "ml-1m/ratings.dat", frame(
        [(7, 11, 5, 970000100), (7, 23, 3, 970000200), (9, 11, 4, 970000050),
         (9, 31, 1, 970000050)], np.int64)),
    "ml-10m": ("ml-10m.ratings.dat", "ml-10M100K/ratings.dat", frame(
        [(5, 120, 3.5, 838900000), (5, 185, 5.0, 838900010), (8, 120, 0.5, 1100000000),
         (8, 231, 4.5, 1100000001)], np.float64)),
    "ml-20m": ("ml-csv.ratings.csv", "ml-20m/ratings.csv", frame(CSV_ROWS, np.float64)),
    "ml-25m": ("ml-csv.ratings.csv", "ml-25m/ratings.csv", frame(CSV_ROWS, np.float64)),
    "ml-latest-small": ("ml-csv.ratings.csv", "ml-latest-small/ratings.csv",
                        frame(CSV_ROWS, np.float64)),
}


# ----------------------------------------------------------------------------- registry

def test_registry():
    assert set(MOVIELENS_CASES) == set(MOVIELENS) <= set(FORMATS)
    assert {"interactions", "ncf", "synthetic"} <= set(FORMATS)
    for name, fmt in FORMATS.items():
        assert fmt.name == name and len(fmt.layout) > 40
        assert fmt.kind == ("split" if name == "ncf" else "ratings")
    for entry in MOVIELENS.values():
        assert re.fullmatch(r"[0-9a-f]{32}", entry["md5"])
        assert entry["url"].startswith("https://files.grouplens.org/datasets/movielens/")
    assert get_format("ml-1m") is FORMATS["ml-1m"]
    with pytest.raises(ValueError, match="unknown dataset format 'ml-2m'.*ml-100k"):
        get_format("ml-2m")
    with pytest.raises(ValueError, match="exactly one of"):
        datasets.Format("x", "layout", read=None, read_split=None)


# ----------------------------------------------------------------------------- MovieLens

@pytest.mark.parametrize("fmt", list(MOVIELENS_CASES))
def test_movielens_reader_parses_fixture(fmt, tmp_path):
    name, member, expected = MOVIELENS_CASES[fmt]
    archive = write_zip(tmp_path / f"{fmt}.zip", fixture(name), member)
    got = FORMATS[fmt].read(archive, {"format": fmt})
    pd.testing.assert_frame_equal(got, expected)
    interactions, users, items = index_interactions(got)  # the split pipeline accepts it
    split = leave_last_out(interactions, len(users), len(items))
    assert split.users.size + split.n_dropped == len(users)


# format -> (text with a malformed line, its line number)
BAD = {
    "ml-100k": ("3\t17\t4\t880000100\n1\t42\t5\t880000050\n3\t9\tx\t880000300\n", 3),
    "ml-1m": ("7::11::5::970000100\n7::23::3\n", 2),
    "ml-10m": ("5::120::3.5::838900000\n5::185::5::838900010\n8::120::0.5::1::2\n"
               "8::231::4.5::1100000001\n", 3),
    "ml-20m": ("userId,movieId,rating,timestamp\n4,30,2.5,1260000000\n4,1029,,1260000500\n", 3),
    "ml-25m": ("userId,movieId,rating,timestamp\n4,30,2.5,1260000000\n\n6,7,0.5,1\n", 3),
    "ml-latest-small": ("userId,movieId,rating,timestamp\n4,30,2.5,1260000000\n"
                        "6,7.5,4,1300000000\n", 3),
}


@pytest.mark.parametrize("fmt", list(BAD))
def test_movielens_malformed_line_is_named(fmt, tmp_path):
    text, line = BAD[fmt]
    member = MOVIELENS_CASES[fmt][1]
    archive = write_zip(tmp_path / "a.zip", text, member)
    with pytest.raises(DataError, match=rf"a\.zip:{re.escape(member)}: line {line}:"):
        FORMATS[fmt].read(archive, {})


def test_csv_header_and_empty_file(tmp_path):
    archive = write_zip(tmp_path / "a.zip", "user,movie,rating,ts\n1,2,3,4\n", "ml-20m/ratings.csv")
    with pytest.raises(DataError, match="line 1: expected the header 'userId,movieId,rating,"
                                        "timestamp', got 'user,movie,rating,ts'"):
        FORMATS["ml-20m"].read(archive, {})
    archive = write_zip(tmp_path / "b.zip", "userId,movieId,rating,timestamp\n",
                        "ml-20m/ratings.csv")
    with pytest.raises(DataError, match="no data lines"):
        FORMATS["ml-20m"].read(archive, {})


def test_bad_line_found_in_a_later_chunk(tmp_path, monkeypatch):
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 24)
    lines = [f"{u}\t{u + 1}\t3\t{1000 + u}" for u in range(9)]
    lines[6] = "6\t7\t3\t1006\t99"                       # line 7: a fifth field
    archive = write_zip(tmp_path / "a.zip", "\n".join(lines) + "\n", "ml-100k/u.data")
    with pytest.raises(DataError, match=r"line 7: expected 4 fields \(user item rating "
                                        r"timestamp\) separated by '\\t', got '6\\t7\\t3"):
        FORMATS["ml-100k"].read(archive, {})
    lines[6] = "6\t7\t3\t1006.0"                         # integral decimal: accepted
    archive = write_zip(tmp_path / "b.zip", "\r\n".join(lines), "ml-100k/u.data")
    got = FORMATS["ml-100k"].read(archive, {})
    assert got.timestamp.tolist() == [1000 + u for u in range(9)]


def test_missing_member_names_what_exists(tmp_path):
    archive = write_zip(tmp_path / "a.zip", fixture("ml-csv.ratings.csv"), "ml-25m/ratings.csv")
    with pytest.raises(DataError, match="no member 'ml-20m/ratings.csv'; the archive holds "
                                        "'ml-25m/ratings.csv'"):
        FORMATS["ml-20m"].read(archive, {})
    with pytest.raises(DataError, match="no member 'ml-1m/ratings.dat'; the archive holds"):
        FORMATS["ml-1m"].read(archive, {})
    got = FORMATS["ml-20m"].read(archive, {"member": "ml-25m/ratings.csv"})
    assert len(got) == 4
    with pytest.raises(DataError, match="archive not found"):
        FORMATS["ml-10m"].read(tmp_path / "none.zip", {})


# ----------------------------------------------------------------------------- interactions

CSV_SPEC = {"format": "interactions", "user_col": "customer", "item_col": "product",
            "time_col": "when", "rating_col": "stars"}
TSV_SPEC = {"format": "interactions", "user_col": "uid", "item_col": "iid", "time_col": "ts"}


def test_interactions_csv_string_ids_and_dates():
    got = FORMATS["interactions"].read(FIXTURES / "interactions.csv", CSV_SPEC)
    t0 = 1614592800  # 2021-03-01T10:00:00Z
    expected = pd.DataFrame({"user": [2, 0, 1, 0], "item": [1, 0, 0, 2],
                             "rating": [5.0, 4.0, 3.5, 1.0],
                             "timestamp": [t0 + 5, t0, 1614643200, t0]})
    pd.testing.assert_frame_equal(got, expected.astype({"user": np.int64, "item": np.int64,
                                                         "timestamp": np.int64}))
    assert got.attrs["user_ids"].tolist() == ["alice", "bob, jr", "carol"]
    assert got.attrs["item_ids"].tolist() == ["B0001", "B0002", "B0003"]


def test_interactions_tsv_and_renamed_copy(tmp_path):
    expected = frame([(10, 200, 1.0, 1600000000), (10, 201, 1.0, 1600000100),
                      (11, 200, 1.0, 1600000050)], np.float64)
    got = FORMATS["interactions"].read(FIXTURES / "interactions.tsv", TSV_SPEC)
    pd.testing.assert_frame_equal(got, expected)
    # the workflow copies every archive to <name>.zip: sep then comes from the config path
    copy = shutil.copy(FIXTURES / "interactions.tsv", tmp_path / "data.zip")
    spec = dict(TSV_SPEC, path="somewhere/interactions.tsv")
    pd.testing.assert_frame_equal(FORMATS["interactions"].read(copy, spec), expected)
    # ... or is sniffed from the header when no name helps
    pd.testing.assert_frame_equal(FORMATS["interactions"].read(copy, TSV_SPEC), expected)
    # inside a zip: the only member, or the named one
    archive = write_zip(tmp_path / "z.zip", fixture("interactions.tsv"), "dir/log.tsv")
    pd.testing.assert_frame_equal(FORMATS["interactions"].read(archive, TSV_SPEC), expected)
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("README", "x")
    with pytest.raises(DataError, match="zip holds 'dir/log.tsv', 'README'; give 'member'"):
        FORMATS["interactions"].read(archive, TSV_SPEC)
    got = FORMATS["interactions"].read(archive, dict(TSV_SPEC, member="dir/log.tsv"))
    pd.testing.assert_frame_equal(got, expected)


def test_interactions_missing_column_and_spec(tmp_path):
    spec = dict(TSV_SPEC, time_col="time", rating_col="score")
    with pytest.raises(DataError, match=r"interactions\.tsv: no column 'time', 'score'; the "
                                        r"columns are 'iid', 'uid', 'ts'"):
        FORMATS["interactions"].read(FIXTURES / "interactions.tsv", spec)
    with pytest.raises(ValueError, match="needs time_col"):
        FORMATS["interactions"].read(FIXTURES / "interactions.tsv",
                                     {"user_col": "uid", "item_col": "iid"})
    with pytest.raises(DataError, match="file not found"):
        FORMATS["interactions"].read(tmp_path / "none.csv", TSV_SPEC)


@pytest.mark.parametrize("text, message", [
    ("uid,iid,ts\n1,2,3\n1,3,4,5\n", r"line 3: expected 3 fields separated by ',', got 4"),
    ("uid,iid,ts\n1,2,3\n1,3\n2,2,2\n", r"line 3: expected 3 fields separated by ',', got 2"),
    ("uid,iid,ts\n1,2,3\n\n2,2,2\n", r"line 3: expected 3 fields"),
    ("uid,iid,ts\n1,2,3\n2,2,2\n,5,6\n", r"line 4: empty user \('uid'\)"),
    ("uid,iid,ts\n1,2,3\n1,3.5,4\n", r"line 3: item \('iid'\) is not an integer"),
    ("uid,iid,ts\n1,2,3\n1,3,4.5\n", r"line 3: time \('ts'\) is not an integer"),
    ("uid,iid,ts\n1,2,3\n1,3,soon\n", r"line 3: time \('ts'\) is not an integer: 'soon'"),
    ("uid,iid,ts\n1,2,2020-01-01\n1,3,soon\n", r"line 3: time \('ts'\) is neither an integer "
                                               r"nor an ISO 8601 date"),
    ('uid,iid,ts\n1,"a\nb",3\n1,3\n', r"line 4: expected 3 fields separated by ',', got 2"),
])
def test_interactions_malformed_line_is_named(tmp_path, text, message):
    path = tmp_path / "log.csv"
    path.write_text(text)
    with pytest.raises(DataError, match=rf"log\.csv: {message}"):
        FORMATS["interactions"].read(path, {"user_col": "uid", "item_col": "iid",
                                            "time_col": "ts"})


def test_interactions_bad_rating_line(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text('uid,iid,ts,r\n1,"x",3,4\n1,"y, z",4,good\n')
    with pytest.raises(DataError, match=r"line 3: rating \('r'\) is not a number: 'good'"):
        FORMATS["interactions"].read(path, {"user_col": "uid", "item_col": "iid",
                                            "time_col": "ts", "rating_col": "r"})


@pytest.mark.skipif(HAS_PYARROW, reason="pyarrow installed: the error path is not reachable")
def test_interactions_parquet_needs_pyarrow(tmp_path):
    path = tmp_path / "log.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 16 + b"PAR1")
    with pytest.raises(ImportError, match=r"log\.parquet is a Parquet file; reading Parquet "
                                          r"needs pyarrow \(pip install pyarrow\)"):
        FORMATS["interactions"].read(path, TSV_SPEC)


@pytest.mark.skipif(not HAS_PYARROW, reason="pyarrow not installed")
def test_interactions_parquet(tmp_path):
    path = tmp_path / "log.parquet"
    pd.DataFrame({"uid": [10, 10, 11], "iid": [200, 201, 200],
                  "ts": [1600000000, 1600000100, 1600000050]}).to_parquet(path)
    got = FORMATS["interactions"].read(path, TSV_SPEC)
    assert got.user.tolist() == [10, 10, 11] and got.timestamp.dtype == np.int64
    with pytest.raises(DataError, match="no column 'score'"):
        FORMATS["interactions"].read(path, dict(TSV_SPEC, rating_col="score"))
    pd.DataFrame({"uid": [10, None], "iid": [1, 2], "ts": [1, 2]}).to_parquet(path)
    with pytest.raises(DataError, match=r"row 2: empty user"):
        FORMATS["interactions"].read(path, TSV_SPEC)


# ----------------------------------------------------------------------------- NCF

NCF_DIR = FIXTURES / "ncf"


def ncf_copy(tmp_path, **replace):
    """Copy of the NCF fixture with some files' text replaced (None: removed)."""
    out = tmp_path / "ncf"
    shutil.copytree(NCF_DIR, out)
    for suffix, text in replace.items():
        target = out / f"tiny.{suffix.replace('_', '.')}"
        if text is None:
            target.unlink()
        else:
            target.write_text(text)
    return out


def check_tiny(split, negatives):
    expected = np.zeros((4, 8))
    for u, i in [(0, 1), (0, 2), (1, 0), (1, 3), (2, 4), (2, 5), (3, 6)]:
        expected[u, i] = 1
    np.testing.assert_array_equal(split.train.toarray(), expected)
    assert split.users.tolist() == [0, 1, 2] and split.test_items.tolist() == [3, 5, 6]
    assert split.n_dropped == 1  # user 3 has no test line
    # the file lists users 2, 0, 1: rows follow split.users
    assert negatives.tolist() == [[4, 5, 7], [1, 2, 7], [0, 1, 7]]
    assert negatives.dtype == np.int64


def test_ncf_directory_and_zip(tmp_path):
    check_tiny(*read_ncf(NCF_DIR, "tiny"))
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in NCF_DIR.iterdir():
            zf.write(file, f"Data/{file.name}")
    check_tiny(*read_ncf(archive, "tiny"))
    split, info = FORMATS["ncf"].read_split(archive, {"format": "ncf", "prefix": "tiny"})
    check_tiny(split, info["negatives"])
    assert info["counts"] == {"ratings": 10, "interactions": 10, "users": 4, "items": 8,
                              "train_interactions": 7, "evaluated_users": 3,
                              "dropped_users": 1, "duplicate_train_pairs": 0,
                              "negatives_per_user": 3, "negatives_in_history": 0}
    with pytest.raises(ValueError, match="needs 'prefix'"):
        FORMATS["ncf"].read_split(archive, {"format": "ncf"})


def test_ncf_without_negatives_and_missing_files(tmp_path):
    split, negatives = read_ncf(ncf_copy(tmp_path, test_negative=None), "tiny")
    assert negatives is None and split.test_items.tolist() == [3, 5, 6]
    with pytest.raises(DataError, match=r"no 'ml-1m\.train\.rating' \(prefix 'ml-1m'\); it "
                                        r"holds 'tiny.test.rating', 'tiny.train.rating'"):
        read_ncf(tmp_path / "ncf", "ml-1m")


@pytest.mark.parametrize("negative, message", [
    ("(0,3)\t4\t5\t7\n(2,6)\t0\t1\t7\n(1,5)\t1\t2\t7\n",
     r"line 1: \(0,3\) but .*tiny\.test\.rating line 1 is \(2,6\): negatives must follow"),
    ("(2,6)\t0\t1\t7\n(0,3)\t4\t5\t7\n",
     r"2 lines, but .*tiny\.test\.rating has 3"),
    ("(2,6)\t0\t1\t7\n(0,3)\t4\t5\t7\n(1,5)\t1\t2\t7\n(3,0)\t1\t2\t4\n",
     r"4 lines, but .*tiny\.test\.rating has 3"),
    ("(2,6)\t0\t1\t7\n(0,3)\t4\t5\n(1,5)\t1\t2\t7\n",
     r"tiny\.test\.negative: line 2: expected \(user,item\) and 3 tab-separated negatives "
     r"as on line 1, got '\(0,3\)\\t4\\t5'"),
    ("(2,6)\t0\t1\t7\n(0,3)\t4\tx\t7\n(1,5)\t1\t2\t7\n",
     r"tiny\.test\.negative: line 2: negative2 is not an integer"),
    ("(2,6)\t0\t1\t7\n(0,3)\t4\t5\t7\n1,5\t1\t2\t7\n",
     r"tiny\.test\.negative: line 3: expected '\(user,item\)' then tab-separated"),
])
def test_ncf_rejects_bad_negatives(tmp_path, negative, message):
    with pytest.raises(DataError, match=message):
        read_ncf(ncf_copy(tmp_path, test_negative=negative), "tiny")


def test_ncf_negatives_trailing_tab_and_crlf(tmp_path):
    text = "(2,6)\t0\t1\t7\t\r\n(0,3)\t4\t5\t7\t\r\n(1,5)\t1\t2\t7\t\r\n"
    check_tiny(*read_ncf(ncf_copy(tmp_path, test_negative=text), "tiny"))


@pytest.mark.parametrize("replace, message", [
    ({"train_rating": "0\t1\t5\t100\n0\tx\t3\t110\n"},
     r"tiny\.train\.rating: line 2: item is not an integer"),
    ({"test_rating": "2\t6\t4\t900\n0\t3\t5\n1\t5\t3\t800\n"},
     r"tiny\.test\.rating: line 2: expected 4 fields"),
    ({"test_rating": "2\t6\t4\t900\n0\t3\t5\t700\n2\t7\t3\t800\n"},
     r"tiny\.test\.rating: line 3: user 2 has a second test item"),
    ({"test_rating": "2\t6\t4\t900\n0\t2\t5\t700\n1\t5\t3\t800\n", "test_negative": None},
     r"tiny\.test\.rating: line 2: test pair \(0,2\) is also in"),
    ({"train_rating": "0\t1\t5\t100\n-1\t2\t3\t110\n"},
     r"tiny\.train\.rating: line 2: negative user id -1"),
])
def test_ncf_rejects_bad_ratings(tmp_path, replace, message):
    with pytest.raises(DataError, match=message):
        read_ncf(ncf_copy(tmp_path, **replace), "tiny")


def test_ncf_three_field_lines_and_duplicates(tmp_path):
    train = "0\t1\t1\n0\t2\t1\n0\t2\t1\n1\t0\t1\n1\t3\t1\n2\t4\t1\n2\t5\t1\n3\t6\t1\n"
    test = "2\t6\t1\n0\t3\t1\n1\t5\t1\n"
    path = ncf_copy(tmp_path, train_rating=train, test_rating=test)
    split, info = FORMATS["ncf"].read_split(path, {"prefix": "tiny"})
    check_tiny(split, info["negatives"])
    assert info["counts"]["duplicate_train_pairs"] == 1


def test_pack_ncf_is_deterministic(tmp_path):
    first = pack_ncf(NCF_DIR, "tiny", tmp_path / "a" / "tiny.zip")
    second = pack_ncf(ncf_copy(tmp_path), "tiny", tmp_path / "b" / "tiny.zip")
    digest = [hashlib.md5(p.read_bytes()).hexdigest() for p in (first, second)]
    assert digest[0] == digest[1]
    with zipfile.ZipFile(first) as zf:
        assert sorted(zf.namelist()) == ["tiny.test.negative", "tiny.test.rating",
                                         "tiny.train.rating"]
    check_tiny(*read_ncf(first, "tiny"))


# ----------------------------------------------------------------------------- configs

@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.stem)
def test_dataset_configs(path):
    config = yaml.safe_load(path.read_text())
    name = path.stem
    assert list(config["datasets"]) == [name]
    assert config["study"]["datasets"] == [name]
    spec = config["datasets"][name]
    assert spec["format"] in FORMATS
    if name in MOVIELENS:
        assert spec["format"] == name
        assert (spec["url"], spec["md5"]) == (MOVIELENS[name]["url"], MOVIELENS[name]["md5"])
    elif spec["format"] == "synthetic":             # ML-20M's shape, generated
        assert (spec["n_users"], spec["n_items"], spec["n_events"]) == (138_493, 26_744,
                                                                        20_000_263)
    elif spec["format"] == "citeulike":             # pinned to a commit, MD5-checked
        assert re.fullmatch(r"https://raw\.githubusercontent\.com/\S+/[0-9a-f]{40}/\S+",
                            spec["url"]) and re.fullmatch(r"[0-9a-f]{32}", spec["md5"])
    else:
        assert spec["format"] == "ncf" and spec["prefix"] and spec["path"]
        # NCF ships 99 negatives per user: the study ranks among them, one repeat
        assert config["study"]["m"] == 99 and config["study"]["fixed_negatives"] is True


def test_all_dataset_configs_exist():
    names = {p.stem for p in CONFIGS.glob("*.yaml")}
    assert names == set(MOVIELENS) | {"ncf-ml-1m", "pinterest-20", "ml-20m-synthetic",
                                        "citeulike-a"}


# ----------------------------------------------------------------------------- schema

def config_entries():
    """Every ``datasets:`` entry of config/*.yaml and config/datasets/*.yaml."""
    for path in sorted((ROOT / "config").glob("*.yaml")) + sorted(CONFIGS.glob("*.yaml")):
        for name, spec in (yaml.safe_load(path.read_text()).get("datasets") or {}).items():
            yield pytest.param(name, spec, id=f"{path.parent.name}/{path.stem}:{name}")


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = datasets.dataset_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("name, spec", list(config_entries()))
def test_config_entries_satisfy_the_schema(validator, name, spec):
    validator.validate(spec)
    get_format(spec["format"]).check_spec(spec, name)       # the library agrees


SYN = {"format": "synthetic", "n_users": 300, "n_items": 400, "seed": 1}
ML1M_SPEC = {"format": "ml-1m", "url": "https://example.org/ml-1m.zip", "md5": "0" * 32}

# spec -> what the library's one-line message says
BAD_SPECS = [
    (dict(SYN, n_user=300), r"dataset 'x': unknown key 'n_user' \(did you mean 'n_users'\?\)"),
    ({"format": "synthetic", "n_items": 400}, r"'n_users' is required \(number of users\)"),
    (dict(SYN, n_users=0), r"n_users must be an integer >= 1, got 0"),
    (dict(SYN, n_users=2.5), r"n_users must be an integer >= 1, got 2.5"),
    (dict(SYN, zipf_exponent="steep"), r"zipf_exponent must be a number >= 0"),
    (dict(SYN, url="https://example.org"), r"unknown key 'url'"),
    ({"format": "ml-1m", "url": "https://example.org/ml-1m.zip"}, r"'md5' is required"),
    ({"format": "ml-1m", "md5": "0" * 32}, r"give 'url' or 'path'"),
    (dict(ML1M_SPEC, md5="xyz"), r"md5 must be a string matching"),
    (dict(ML1M_SPEC, prefix="ml-1m"), r"unknown key 'prefix'"),
    ({"format": "ncf", "path": "Data"}, r"'prefix' is required"),
    ({"format": "interactions", "path": "log.csv", "md5": "0" * 32, "user_col": "u",
      "item_col": "i"}, r"'time_col' is required"),
    ({"format": "ml-2m"}, r"unknown dataset format 'ml-2m'"),
    ({"url": "https://example.org"}, r"unknown dataset format None"),
]


@pytest.mark.parametrize("spec, message", BAD_SPECS)
def test_schema_and_library_reject_bad_specs(validator, tmp_path, spec, message):
    assert not validator.is_valid(spec)
    with pytest.raises(ValueError, match=message):
        prepare_archive("x", spec, tmp_path / "x.zip")
    assert not (tmp_path / "x.zip").exists()


def test_schema_names_the_misspelt_key(validator):
    errors = list(validator.iter_errors(dict(SYN, n_user=300)))
    assert errors and all("'n_user' was unexpected" in e.message for e in errors)
    schema = datasets.dataset_schema()
    assert schema["properties"]["format"]["enum"] == list(FORMATS)
    assert len(schema["allOf"]) == len(FORMATS)


def test_spec_fragments_use_only_checked_keywords():
    from sampled_metrics.datasets.errors import SCHEMA_KEYWORDS
    for fmt in FORMATS.values():
        for key, fragment in fmt.properties.items():
            assert key == "format" or set(fragment) <= SCHEMA_KEYWORDS, (fmt.name, key)


# ----------------------------------------------------------------------------- generic steps

def test_prepare_archive_copies_packs_and_generates(tmp_path):
    src = write_zip(tmp_path / "src.zip", "1::2::3::4\n1::3::3::5\n")
    spec = {"format": "ml-1m", "path": str(src), "md5": md5sum(src)}
    assert md5sum(prepare_archive("a", spec, tmp_path / "a.zip")) == md5sum(src)
    packed = prepare_archive("n", {"format": "ncf", "path": str(NCF_DIR), "prefix": "tiny"},
                             tmp_path / "n.zip")
    again = prepare_archive("n", {"format": "ncf", "path": str(NCF_DIR), "prefix": "tiny",
                                  "md5": md5sum(packed).upper()}, tmp_path / "n2.zip")
    assert md5sum(again) == md5sum(packed)
    with pytest.raises(DataError, match="dataset 'n': packed files have MD5"):
        prepare_archive("n", {"format": "ncf", "path": str(NCF_DIR), "prefix": "tiny",
                              "md5": "0" * 32}, tmp_path / "n3.zip")
    assert not (tmp_path / "n3.zip").exists()
    generated = prepare_archive("s", SYN, tmp_path / "s.zip")
    assert md5sum(generated) == md5sum(generate_synthetic(tmp_path / "t.zip", n_users=300,
                                                          n_items=400, seed=1))


def test_make_split_file_and_counts(tmp_path):
    src = write_zip(tmp_path / "r.zip", "7::30::5::10\n7::20::4::10\n9::20::3::5\n7::40::1::2\n")
    info = make_split(src, "ml-1m", tmp_path / "split.npz")
    assert info == {"ratings": 4, "interactions": 4, "format": "ml-1m", "users": 2,
                    "items": 3, "train_interactions": 3, "evaluated_users": 1,
                    "dropped_users": 1}
    with np.load(tmp_path / "split.npz") as z:
        assert sorted(z.files) == ["indices", "indptr", "item_ids", "n_dropped", "shape",
                                   "test_items", "user_ids", "users"]
        assert z["user_ids"].tolist() == [7, 9] and z["item_ids"].tolist() == [20, 30, 40]
    split = load_split(tmp_path / "split.npz")
    # user 7: items 30 and 20 both at t=10, 20 is last in the file -> held out
    assert split.users.tolist() == [0] and split.test_items.tolist() == [0]
    assert split.negatives is None and split.train.toarray().tolist() == [[0, 1, 1],
                                                                          [1, 0, 0]]
    with pytest.raises(ValueError, match="unknown key 'n_users'"):
        make_split(src, {"format": "ml-1m", "n_users": 3}, tmp_path / "bad.npz")
    with pytest.raises(DataError, match=r"e\.zip: no ratings to split"):
        make_split(write_zip(tmp_path / "e.zip", ""), "ml-1m", tmp_path / "e.npz")
    assert not (tmp_path / "bad.npz").exists() and not (tmp_path / "e.npz").exists()


def _ratings(users_items) -> str:
    """ml-1m ratings lines: user u rated items 1..k (k = users_items[u - 1]), one a second."""
    return "".join(f"{u}::{i}::4::{1000 * u + i}\n"
                   for u, k in enumerate(users_items, 1) for i in range(1, k + 1))


def test_split_counts_duplicate_rows_in_the_log_and_the_info(tmp_path, caplog):
    """Duplicate (user, item) rows are collapsed into one interaction: a warning line says
    how many, and the split's counts hold them as ratings - interactions."""
    text = _ratings([4, 3]) + "1::2::5::9999\n2::3::5::9999\n2::3::1::9998\n"
    with caplog.at_level("WARNING", logger="sampled_metrics.datasets"):
        info = make_split(write_zip(tmp_path / "r.zip", text), "ml-1m", tmp_path / "s.npz")
    assert info["ratings"] - info["interactions"] == 3 and info["interactions"] == 7
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == ["3 duplicate (user, item) rows collapsed: each pair is one "
                        "interaction, its latest row kept (split_info.json: ratings - "
                        "interactions)"]


def test_split_reports_users_with_too_few_candidates(tmp_path, caplog):
    """n_u <= m (no more unseen items than sampled ones) before any fit: one line naming how
    many users, the key of m and the key that drops them; with it they are not evaluated
    (their held-out item back in training), counted in the log and the info."""
    src = write_zip(tmp_path / "r.zip", _ratings([3, 3, 9, 10]))      # 10 items
    # n_u = 10 - (k - 1): users 1, 2: 8; user 3: 2; user 4: 1
    with pytest.raises(DataError) as err:
        make_split(src, "ml-1m", tmp_path / "s.npz", "mine", m=5, m_key="study.m",
                   drop_key="study.drop_users_with_few_candidates")
    message = str(err.value)
    assert "\n" not in message and len(message.replace(str(src), "clicks.csv")) <= 240
    assert message == (f"{src} (dataset 'mine'): 2 of 4 evaluated users have n_u <= m = 5 "
                       f"items outside their training set (fewest: 1); lower study.m, or set "
                       f"study.drop_users_with_few_candidates: true to leave them out")
    assert not (tmp_path / "s.npz").exists()
    with caplog.at_level("WARNING", logger="sampled_metrics.datasets"):
        info = make_split(src, "ml-1m", tmp_path / "s.npz", "mine", m=5,
                          drop_few_candidates=True, drop_key="study.drop_users_with_few_candidates")
    assert (info["evaluated_users"], info["few_candidate_users"], info["dropped_users"]) == \
        (2, 2, 0)
    assert "2 of 4 evaluated users have n_u <= m = 5 items outside their training set " \
           "(fewest: 1): not evaluated (study.drop_users_with_few_candidates)" in caplog.text
    split = load_split(tmp_path / "s.npz")
    assert split.users.tolist() == [0, 1] and split.n_u().tolist() == [8, 8]
    assert np.diff(split.train.indptr).tolist() == [2, 2, 9, 10]    # nothing held out: all kept
    assert info["train_interactions"] == split.train.nnz == 23
    # without m, or when every user has enough candidates, the counts are as before
    plain = make_split(src, "ml-1m", tmp_path / "p.npz")
    assert "few_candidate_users" not in plain and plain["evaluated_users"] == 4
    assert make_split(src, "ml-1m", tmp_path / "q.npz", m=0,
                      drop_few_candidates=True)["few_candidate_users"] == 0
    with pytest.raises(DataError, match="4 of 4 evaluated users .* so none is left to "
                                        "evaluate; lower m"):
        make_split(src, "ml-1m", tmp_path / "t.npz", m=9, drop_few_candidates=True)


def test_split_file_keeps_fixed_negatives(tmp_path):
    info = make_split(pack_ncf(NCF_DIR, "tiny", tmp_path / "n.zip"),
                      {"format": "ncf", "prefix": "tiny"}, tmp_path / "n.npz")
    assert info["negatives_per_user"] == 3 and info["format"] == "ncf"
    split = load_split(tmp_path / "n.npz")
    check_tiny(split, split.negatives)
    save_split(split, tmp_path / "copy.npz")
    again = load_split(tmp_path / "copy.npz")
    assert (again.train != split.train).nnz == 0 and again.negatives.tolist() == \
        split.negatives.tolist()
    with np.load(tmp_path / "copy.npz") as z:
        assert z["user_ids"].tolist() == list(range(4))


def test_read_interactions_by_spec(tmp_path):
    src = write_zip(tmp_path / "r.zip", "1::2::3::4\n")
    assert datasets.read_interactions(src, "ml-1m").to_numpy().tolist() == [[1, 2, 3, 4]]
    frame = datasets.read_interactions(generate_synthetic(tmp_path / "s.zip", n_users=3,
                                                          n_items=80), {"format": "synthetic"})
    assert list(frame.columns) == ["user", "item", "rating", "timestamp"] and len(frame) == 60
    with pytest.raises(ValueError, match="holds a ready split"):
        datasets.read_interactions(NCF_DIR, {"format": "ncf", "prefix": "tiny"})
