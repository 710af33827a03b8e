"""``compare`` refuses inputs that do not belong to one comparison, before any arithmetic:
one line naming the file and the first user or field that differs, and no verdict."""
import numpy as np
import pytest
from conftest import run_cli

from sampled_metrics.compare import (MIN_USERS, check_positive_tables, check_rank_files,
                                     compare_positives, compare_repeats)
from sampled_metrics.evaluation.rankfile import RankFile
from sampled_metrics.multipositive.longformat import read_positions

N, M, USERS = 400, 20, 300


def _rank_file(path, users=None, n_items=N, sampling="binomial", n_u=None, seed=0,
               recommender="X"):
    rng = np.random.default_rng(seed)
    users = np.arange(USERS) if users is None else np.asarray(users)
    n_u = np.full(users.size, n_items) if n_u is None else np.asarray(n_u)
    exact = np.minimum(rng.geometric(0.05, users.size), n_u)
    sampled = rng.integers(1, M + 2, (2, users.size))
    RankFile(users=users, exact=exact, n_u=n_u, sampled={M: sampled}, n_items=n_items,
             sampling=sampling, tie="random", seed=0, recommender=recommender).write(path)
    return path


def _compare(capsys, a, b, *extra):
    code, out, err = run_cli(capsys, "compare", str(a), str(b), "--metric",
                             "recall@10", "--method", "sampled", "--bootstrap", "100", *extra)
    return code, out, err


def _refused(capsys, a, b, *extra) -> str:
    code, out, err = _compare(capsys, a, b, *extra)
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_matching_rank_files_are_compared(tmp_path, capsys):
    a = _rank_file(tmp_path / "A.npz", seed=1)
    b = _rank_file(tmp_path / "B.npz", seed=2, recommender="Y")
    code, out, err = _compare(capsys, a, b, "--format", "csv")
    assert code == 0, err
    assert len(out.strip().splitlines()) == 2, out


@pytest.mark.parametrize("change, expected", [
    (dict(users=np.arange(100, 100 + USERS)),
     "B.npz: the inputs hold different users (100 only in {A}, 100 only in {B}); e.g. user "
     "300 is in {B} but not in {A}"),
    (dict(users=np.arange(USERS)[::-1].copy()),
     "B.npz: the same users as {A} in another order (row 0 holds user 299, {A}'s holds 0)"),
    (dict(n_items=500), "B.npz: n_items = 500, but {A} records 400"),
    (dict(sampling="hypergeometric"),
     "B.npz: ranks drawn hypergeometric, but {A}'s binomial; the two follow different "
     "sampling laws"),
    (dict(n_u=np.r_[np.full(17, N), N - 1, np.full(USERS - 18, N)]),
     "B.npz: user 17 has n_u = 399 candidates, but 400 in {A}"),
])
def test_rank_files_that_differ_are_refused(tmp_path, capsys, change, expected):
    a = _rank_file(tmp_path / "A.npz", seed=1)
    b = _rank_file(tmp_path / "B.npz", seed=2, recommender="Y", **change)
    err = _refused(capsys, a, b)
    assert expected.format(A=a, B=b) in err, err


def test_rank_files_of_different_n_are_refused_even_with_n(tmp_path, capsys):
    a = _rank_file(tmp_path / "A.npz", seed=1)
    b = _rank_file(tmp_path / "B.npz", seed=2, n_items=500)
    assert f"{b}: the file records n = 500 items, but --n is 400" in _refused(
        capsys, a, b, "--n", "400")


def test_rank_file_of_one_user_is_refused(tmp_path, capsys):
    a = _rank_file(tmp_path / "A.npz", users=[5], seed=1)
    b = _rank_file(tmp_path / "B.npz", users=[5], seed=2)
    assert f"{a}: holds 1 user; a comparison needs at least {MIN_USERS}" in _refused(
        capsys, a, b)


def test_compare_repeats_checks_its_files(tmp_path):
    from sampled_metrics.evaluation.rankfile import read_rank_file
    a = read_rank_file(_rank_file(tmp_path / "A.npz", seed=1))
    b = read_rank_file(_rank_file(tmp_path / "B.npz", seed=2,
                                  n_u=np.r_[N - 3, np.full(USERS - 1, N)]))
    with pytest.raises(ValueError, match=r"^B: user 0 has n_u = 397 candidates, but 400 in A"):
        compare_repeats({"A": a, "B": b}, M, ["recall@10"], ["sampled"], bootstrap=100)
    with pytest.raises(ValueError, match="need rank files of at least two"):
        check_rank_files({"A": a})


def _long_csv(path, rows):
    path.write_text("user,position,n_nonrelevant,n_negatives\n"
                    + "".join(f"{u},{p},{n},{m}\n" for u, p, n, m in rows))
    return path


def _long_pair(tmp_path, b_change=None, users=40):
    rng = np.random.default_rng(5)
    rows_a = [(u, int(rng.integers(1, 40)), 900, 100) for u in range(users)]
    rows_b = [(u, int(rng.integers(1, 40)), 900, 100) for u in range(users)]
    if b_change:
        rows_b = [b_change(row) for row in rows_b]
    return _long_csv(tmp_path / "a.csv", rows_a), _long_csv(tmp_path / "b.csv", rows_b)


@pytest.mark.parametrize("change, expected", [
    (lambda r: (r[0], r[1], 901, r[3]) if r[0] == 7 else r,
     "b.csv: user '7' has n_nonrelevant = 901, but 900 in {A}"),
    (lambda r: (r[0], r[1], r[2], 200) if r[0] == 12 else r,
     "b.csv: user '12' has n_negatives = 200, but 100 in {A}"),
])
def test_long_format_files_that_differ_are_refused(tmp_path, capsys, change, expected):
    a, b = _long_pair(tmp_path, change)
    err = _refused(capsys, a, b)
    assert expected.format(A=a) in err, err


def test_long_format_of_one_user_is_refused(tmp_path, capsys):
    a, b = _long_pair(tmp_path, users=1)
    assert f"{a}: holds 1 user; a comparison needs at least {MIN_USERS}" in _refused(
        capsys, a, b)
    tables = {"A": read_positions(a), "B": read_positions(b)}
    with pytest.raises(ValueError, match="^A: holds 1 user; a comparison needs at least 2"):
        compare_positives(tables, ["recall@10"], ["sampled"], bootstrap=100)


def test_long_format_of_two_users_gives_an_interval(tmp_path, capsys):
    a, b = _long_pair(tmp_path, users=MIN_USERS)
    code, out, err = _compare(capsys, a, b, "--format", "csv")
    assert code == 0, err


def test_positive_tables_compared_in_python(tmp_path):
    a, b = _long_pair(tmp_path, lambda r: (r[0], r[1], r[2], 150) if r[0] == 3 else r,
                      users=10)                       # ids '0'..'9': user index = id
    tables = {"A": read_positions(a), "B": read_positions(b)}
    with pytest.raises(ValueError, match="^B: user 3 has n_negatives = 150, but 100 in A"):
        compare_positives(tables, ["recall@10"], ["sampled"], bootstrap=100)
    with pytest.raises(ValueError, match="need the positives of at least two"):
        check_positive_tables({"A": tables["A"]})
