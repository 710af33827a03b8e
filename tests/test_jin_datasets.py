"""Jin et al.'s other datasets: the citeulike-a ``users.dat`` reader and the eALS
``yelp.rating`` reader, on tiny hand-made files in the sources' exact layouts (expected
values worked out by hand from the fixture), their leave-last-out splits, and one-line
errors naming file and line."""
import hashlib
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import write_zip

from sampled_metrics.datasets import (FORMATS, DataError, get_format, load_split, make_split,
                                      prepare_archive)
from sampled_metrics.datasets.citeulike import read_citeulike
from sampled_metrics.datasets.eals import read_eals

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
CITEULIKE = FIXTURES / "citeulike-a.users.dat"   # as users.dat: no newline after the last line
YELP = FIXTURES / "eals.yelp.rating"
CONFIG = Path(__file__).resolve().parents[1] / "config" / "datasets" / "citeulike-a.yaml"

# the fixture's lines: user u -> items (user 2 has none, user 4 one)
LINES = {0: [0, 4, 7], 1: [1, 4], 2: [], 3: [2, 3, 5, 6], 4: [7]}


def write(tmp_path, text, name="users.dat"):
    path = tmp_path / name
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------- citeulike

def test_citeulike_reads_each_line_as_one_user():
    frame = read_citeulike(CITEULIKE)
    assert list(frame.columns) == ["user", "item", "rating", "timestamp"]
    assert frame["user"].tolist() == [u for u, items in LINES.items() for _ in items]
    assert frame["item"].tolist() == [i for items in LINES.values() for i in items]
    assert frame.loc[frame["user"] == 3, "item"].tolist() == [2, 3, 5, 6]
    assert (frame["rating"] == 1.0).all()
    # the stand-in for time: a permutation of 0..N-1, fixed by the seed
    assert sorted(frame["timestamp"]) == list(range(10))
    assert read_citeulike(CITEULIKE)["timestamp"].tolist() == frame["timestamp"].tolist()


def test_citeulike_split(tmp_path):
    spec = {"format": "citeulike", "holdout_seed": 3}
    info = make_split(CITEULIKE, spec, tmp_path / "split.npz")
    assert (info["ratings"], info["interactions"], info["users"], info["items"]) == (10, 10, 4, 8)
    # users 0, 1, 3 are evaluated; user 4 (one item) is not, user 2 (none) does not exist
    assert (info["evaluated_users"], info["dropped_users"], info["train_interactions"]) == (3, 1, 7)
    split = load_split(tmp_path / "split.npz")
    raw_users = [0, 1, 3, 4]                                 # row -> line of users.dat
    for row, test_item in zip(split.users, split.test_items):
        items = LINES[raw_users[row]]
        train = split.train[row].indices.tolist()
        assert test_item in items and test_item not in train
        assert sorted(train + [test_item]) == items             # leave exactly one out
    assert split.train[3].indices.tolist() == [7]               # user 4 keeps its only item


def test_citeulike_holdout_is_uniform():
    """Each of user 3's 4 items is held out with probability 1/4 over seeds (400 seeds:
    SE of a frequency sqrt(1/4 * 3/4 / 400) = 0.022; tolerance 4 SE)."""
    held = []
    for seed in range(400):
        frame = read_citeulike(CITEULIKE, holdout_seed=seed)
        mine = frame[frame["user"] == 3]
        held.append(int(mine["item"].to_numpy()[np.argmax(mine["timestamp"].to_numpy())]))
    freq = np.array([held.count(i) for i in LINES[3]]) / len(held)
    assert np.all(np.abs(freq - 0.25) < 4 * np.sqrt(0.25 * 0.75 / 400)), freq


def test_citeulike_in_a_zip_and_crlf(tmp_path):
    archive = write_zip(tmp_path / "citeulike.zip",
                        CITEULIKE.read_text().replace("\n", "\r\n"), "citeulike-a/users.dat")
    got = read_citeulike(archive)                              # the only member
    assert got.equals(read_citeulike(CITEULIKE))
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("citeulike-a/tags.dat", "x\n")
    with pytest.raises(DataError, match=r"citeulike\.zip: zip holds 'citeulike-a/users.dat', "
                                        r"'citeulike-a/tags.dat'; give 'member'"):
        read_citeulike(archive)
    spec = {"format": "citeulike", "member": "citeulike-a/users.dat"}
    assert FORMATS["citeulike"].read(archive, spec).equals(got)


@pytest.mark.parametrize("text, message", [
    ("3 0 4 7\n2 1\n", r"users\.dat: line 2: the count says 2 items but the line lists 1: "
                       r"'2 1'"),
    ("3 0 4 7\n2 1 x\n", r"users\.dat: line 2: 'x' is not a non-negative integer in '2 1 x'"),
    ("2 1 -4\n", r"users\.dat: line 1: '-4' is not a non-negative integer"),
    ("3 0 4 7\n3 5 1 5\n", r"users\.dat: line 2: item 5 is listed twice"),
    ("3 0 4 7\n\n1 2\n", r"users\.dat: line 2: empty line; expected '<count> <item> <item>"),
    ("", r"users\.dat: no data lines"),
])
def test_citeulike_bad_lines(tmp_path, text, message):
    with pytest.raises(DataError, match=message):
        read_citeulike(write(tmp_path, text))


def test_citeulike_missing_file_and_bad_spec(tmp_path):
    with pytest.raises(DataError, match=r"nothing\.dat: file not found"):
        read_citeulike(tmp_path / "nothing.dat")
    fmt = get_format("citeulike")
    with pytest.raises(ValueError, match="holdout_seed"):
        fmt.check_spec({"format": "citeulike", "url": "u", "md5": "0" * 32,
                        "holdout_seed": -1}, "citeulike-a")
    with pytest.raises(ValueError, match=r"unknown key 'seed'"):
        fmt.check_spec({"format": "citeulike", "url": "u", "md5": "0" * 32, "seed": 1},
                       "citeulike-a")


def test_citeulike_config_runs_jin_on_it():
    """(URL pinned to a commit and MD5: test_datasets.test_dataset_configs.)"""
    config = yaml.safe_load(CONFIG.read_text())
    assert config["study"]["datasets"] == config["jin"]["datasets"] == ["citeulike-a"]
    assert config["datasets"]["citeulike-a"]["format"] == "citeulike"


# ----------------------------------------------------------------------------- eALS / yelp

def test_eals_reads_every_line():
    frame = read_eals(YELP)
    assert list(frame.columns) == ["user", "item", "rating", "timestamp"]
    assert frame["user"].tolist() == [0, 0, 0, 0, 1, 1, 2, 2, 3]
    assert frame["item"].tolist() == [0, 0, 1, 2, 0, 3, 2, 4, 4]
    assert frame["rating"].tolist() == [4.0, 4.0, 4.0, 2.0, 5.0, 1.0, 3.0, 5.0, 5.0]
    assert frame["timestamp"].iloc[1] == 1337011200 and frame["timestamp"].dtype == np.int64


def test_eals_split_latest_item_and_repeated_pairs(tmp_path):
    info = make_split(YELP, {"format": "eals"}, tmp_path / "split.npz")
    # 9 lines, user 0's pair (0, 0) twice: 8 interactions; user 3 has one item
    assert (info["ratings"], info["interactions"], info["users"], info["items"]) == (9, 8, 4, 5)
    assert (info["evaluated_users"], info["dropped_users"], info["train_interactions"]) == (3, 1, 5)
    split = load_split(tmp_path / "split.npz")
    # user 0: the repeated item 0 is dated by its later line (1337011200), the latest;
    # user 1: item 3 is latest; user 2: items 2 and 4 tie, the later line (item 4) is held out
    assert split.users.tolist() == [0, 1, 2] and split.test_items.tolist() == [0, 3, 4]
    assert [split.train[u].indices.tolist() for u in range(4)] == [[1, 2], [0], [2], [4]]


def test_eals_in_a_zip(tmp_path):
    archive = tmp_path / "yelp.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(YELP, "data/yelp.rating")
    assert FORMATS["eals"].read(archive, {"format": "eals"}).equals(read_eals(YELP))


@pytest.mark.parametrize("text, message", [
    ("0\t0\t4.0\t1329148800\n0\t1\t4.0\n",
     r"yelp\.rating: line 2: expected 4 tab-separated fields \(user item rating timestamp\)"),
    ("user\titem\trating\ttime\n0\t1\t4.0\t1\n", r"yelp\.rating: line 1: user is not an integer"),
    ("0\t0\t4.0\t1329148800\n0\t1\tgood\t1335888000\n", r"yelp\.rating: line 2: rating is not"),
    ("0\t0\t4.0\t1329148800\n0\t1.5\t4.0\t1335888000\n", r"yelp\.rating: line 2: item is not an "
                                                         r"integer"),
    ("0 0 4.0 1329148800\n", r"yelp\.rating: line 1: expected 4 tab-separated fields"),
    ("\n", r"yelp\.rating: no data lines"),
])
def test_eals_bad_lines(tmp_path, text, message):
    with pytest.raises(DataError, match=message):
        read_eals(write(tmp_path, text, "yelp.rating"))


def test_formats_are_registered_with_their_keys(tmp_path):
    assert FORMATS["citeulike"].kind == FORMATS["eals"].kind == "ratings"
    assert set(FORMATS["citeulike"].properties) == {"format", "url", "path", "md5",
                                                    "holdout_seed", "member"}
    assert set(FORMATS["eals"].properties) == {"format", "url", "path", "md5", "member"}
    # a local copy (yelp.rating is not downloadable with a known MD5) is MD5-checked
    good = hashlib.md5(YELP.read_bytes()).hexdigest()
    spec = {"format": "eals", "path": str(YELP), "md5": good}
    archive = prepare_archive("yelp", spec, tmp_path / "yelp.zip")
    assert archive.read_bytes() == YELP.read_bytes()
    with pytest.raises(DataError, match=f"MD5 mismatch, expected {'0' * 32}, got {good}"):
        prepare_archive("yelp", dict(spec, md5="0" * 32), tmp_path / "other.zip")
    with pytest.raises(ValueError, match=r"dataset 'yelp': give 'url' or 'path'"):
        get_format("eals").check_spec({"format": "eals", "md5": "0" * 32}, "yelp")
