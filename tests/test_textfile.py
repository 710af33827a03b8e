"""The text inputs' chunked reading: a fault in a later chunk is named by its line in the file,
the first bad line wins whatever its fault, and chunks join into the values of one read."""
import numpy as np
import pytest

from sampled_metrics.textfile import Column, chunks, parse_table, read_columns, read_integers

COLUMNS = {"user": Column("user id", label=True), "position": Column("position")}


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 16)


def test_values_join_across_chunks(tmp_path, small_chunks):
    path = tmp_path / "ranks.txt"
    path.write_text("\ufeff# ranks\n" + "".join(f"{r}\n" for r in range(1, 40)) + "\n\n7")
    assert read_integers(path, 1, 61, "sampled rank").tolist() == [*range(1, 40), 7]
    path = tmp_path / "positives.csv"
    path.write_text("user,position\n" + "".join(f"u{u},{u % 5 + 1}\n" for u in range(30)))
    got = read_columns(path, COLUMNS, "positive")
    assert got["user"].tolist() == [f"u{u}" for u in range(30)]
    assert got["position"].tolist() == [u % 5 + 1 for u in range(30)]


@pytest.mark.parametrize("text, message", [
    ("1\n2\n\n# note\n" + "3\n" * 20 + "99\n", "ranks.txt:25: sampled rank 99 outside"),
    ("1\n" * 20 + "seven\n", "ranks.txt:21: 'seven' is not an integer sampled rank"),
    ("1\n99\nseven\n", "ranks.txt:2: sampled rank 99 outside"),
])
def test_first_bad_line_of_a_later_chunk(tmp_path, small_chunks, text, message):
    path = tmp_path / "ranks.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_integers(path, 1, 61, "sampled rank")


def test_csv_line_counts_quoted_line_ends(tmp_path):
    path = tmp_path / "positives.csv"
    path.write_text('user,position\n"u\n1",1\nu2,x\n')
    with pytest.raises(ValueError, match=r"positives\.csv:4: 'x' in column 'position'"):
        read_columns(path, COLUMNS, "positive")


def test_table_chunks_agree_with_one_parse(monkeypatch):
    body = "".join(f"{u}::{u * 7}.0::{u % 5}::{10 ** 9 + u}\n" for u in range(200)).encode()
    whole = parse_table(body, "::", ("u", "i", "r", "t"), "iiii", "t")
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 64)
    slow = parse_table(body + b" 1 ::+2::3::4\n", "::", ("u", "i", "r", "t"), "iiii", "t")
    assert all(np.array_equal(a, b[:-1]) for a, b in zip(whole, slow))
    assert [b[-1] for b in slow] == [1, 2, 3, 4]
