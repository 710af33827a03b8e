import numpy as np
import pytest
from conftest import run_cli, toy_rank_file

from sampled_metrics.cli import build_parser
from sampled_metrics.sampling import draw_sampled_ranks

N, M = 500, 20


@pytest.fixture()
def rank_files(tmp_path):
    rng = np.random.default_rng(0)
    users = 1500
    ra = np.minimum(1 + rng.geometric(0.05, users), N)       # A clearly better than B
    rb = np.minimum(1 + rng.geometric(0.01, users), N)
    paths = {}
    for name, r in (("A", ra), ("B", rb)):
        f = toy_rank_file(r, N, M, rng, repeats=4, recommender=name)
        paths[name] = f.write(tmp_path / f"{name}.npz")
    return paths


def test_help_explains_the_verdict():
    text = " ".join(build_parser()._subparsers._group_actions[0].choices["compare"]
                    .format_help().split())
    assert "VERDICT" in text and "not distinguishable" in text and "paired" in text


def test_compare_text_files(tmp_path, capsys, rank_files):
    from sampled_metrics.evaluation.rankfile import read_rank_file
    for name in ("A", "B"):
        ranks = read_rank_file(rank_files[name]).sampled_ranks(M, 0)
        (tmp_path / f"{name}.txt").write_text("\n".join(map(str, ranks)) + "\n")
    code, out, err = run_cli(capsys, "compare", str(tmp_path / "A.txt"),
                         str(tmp_path / "B.txt"), "--n", str(N), "--m", str(M), "--metric",
                         "recall@10", "--method", "sampled,cls",
                         "--format", "csv")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].startswith("metric,method,value_a,value_b,difference")
    assert len(lines) == 3 and all(line.endswith("A better") for line in lines[1:])


def test_compare_rank_files_over_repeats(capsys, rank_files):
    code, out, err = run_cli(capsys, "compare", str(rank_files["A"]),
                         str(rank_files["B"]), "--repeats", "all", "--metric", "recall@10",
                         "--method", "cls", "--bootstrap", "200",
                         "--format", "csv")
    assert code == 0, err
    header, row = out.strip().splitlines()
    values = dict(zip(header.split(","), row.split(",")))
    assert values["repeats"] == "4" and values["agree"] == "4" and values["wrong"] == "0"
    assert int(values["a_better"]) + int(values["not_distinguishable"]) == 4


@pytest.mark.parametrize("extra, message", [
    (["OTHER.txt"], "must all be rank files"),
    (["--repeats", "9"], "--repeats must lie in 1..4"),
    (["--repeats", "x"], "positive integer or 'all'"),
    (["--repeats", "2", "--repeat", "1"], "not both"),
    (["--n", "999"], "records n = 500"),
    (["--m", "7"], "sampled with m=20"),
    (["--method", "cls,foo"], "unknown method 'foo'"),
    (["--level", "2"], "level must lie in"),
    (["--column", "rank"], "--column only applies"),
])
def test_compare_bad_inputs_one_line(capsys, rank_files, tmp_path, extra, message):
    argv = ["compare", str(rank_files["A"]), str(rank_files["B"]),
            "--estimator-bootstrap", "0"]
    if extra == ["OTHER.txt"]:
        (tmp_path / "OTHER.txt").write_text("1\n2\n")
        argv[2], extra = str(tmp_path / "OTHER.txt"), []
    code, out, err = run_cli(capsys, *argv, *extra)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_compare_text_needs_n_and_m(capsys, tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.txt").write_text("1\n2\n3\n")
    code, _, err = run_cli(capsys, "compare", str(tmp_path / "a.txt"),
                       str(tmp_path / "b.txt"), "--m", "5")
    assert code == 2 and "--n is required" in err
    (tmp_path / "b.txt").write_text("1\n9\n3\n")
    code, _, err = run_cli(capsys, "compare", str(tmp_path / "a.txt"),
                       str(tmp_path / "b.txt"), "--m", "5", "--n", "50")
    assert code == 2 and "b.txt:2: sampled rank 9 outside 1..m+1=6" in err


def _long_csv(path, users, positions, N_u, M_u):
    rows = ["user,position,n_nonrelevant,n_negatives"]
    rows += [f"{u},{p},{n},{m}" for u, ps, n, m in zip(users, positions, N_u, M_u) for p in ps]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_long_format_with_one_positive_equals_compare_ranks(tmp_path):
    """One positive per user, the same n = N + 1 and m = M for all: the long-format path
    gives compare_ranks' values, differences and bootstrap intervals (same resampled users)."""
    from sampled_metrics.compare import compare_positives, compare_ranks
    from sampled_metrics.multipositive.longformat import read_positions
    rng = np.random.default_rng(3)
    users = 400
    ra = draw_sampled_ranks(np.minimum(1 + rng.geometric(0.05, users), N), N, M, rng=rng)
    rb = draw_sampled_ranks(np.minimum(1 + rng.geometric(0.02, users), N), N, M, rng=rng)
    ids = [f"user{u:03d}" for u in range(users)]                   # sorted as given
    tables = {name: read_positions(_long_csv(tmp_path / f"{name}.csv", ids,
                                             [[p] for p in r], [N - 1] * users,
                                             [M] * users))
              for name, r in (("A", ra), ("B", rb))}
    metrics, methods = ["recall@5", "ndcg@10", "mrr@10"], ["sampled", "cls", "bv_0.1"]
    got = compare_positives(tables, metrics, methods, bootstrap=300)
    want = compare_ranks({"A": ra, "B": rb}, N, M, metrics, methods, plugin=None,
                         bootstrap=300)
    for column in ("value_a", "value_b", "difference", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[column], want[column], atol=1e-12, err_msg=column)
    assert (got.verdict == want.naive_verdict).all() and got.bias.isna().all()


def test_long_format_pairs_users_by_id_and_takes_names(tmp_path, capsys):
    rng = np.random.default_rng(4)
    users = 300
    k = rng.integers(1, 4, users)
    good = [np.sort(rng.choice(np.arange(1, 6), kk, replace=False)) for kk in k]
    bad = [np.sort(rng.choice(np.arange(30, 60), kk, replace=False)) for kk in k]
    ids = rng.permutation(users)
    a = _long_csv(tmp_path / "a.csv", ids, good, [900] * users, [100] * users)
    order = rng.permutation(users)                       # B's rows in another user order
    b = _long_csv(tmp_path / "b.csv", ids[order], [bad[i] for i in order], [900] * users,
                  [100] * users)
    code, out, err = run_cli(capsys, "compare", str(a), str(b), "--name-a", "BPR",
                         "--name-b", "Pop", "--metric", "hit@10,recall@10",
                         "--method", "sampled,cls", "--format", "csv", "--bootstrap", "200")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 5 and all(line.endswith("BPR better") for line in lines[1:]), out
    code, _, err = run_cli(capsys, "compare", str(a), str(b), "--method", "mn")
    assert code == 2 and "corrections only, not mn" in err
    c = _long_csv(tmp_path / "c.csv", ids[:-1], bad[:-1], [900] * (users - 1),
                  [100] * (users - 1))
    code, _, err = run_cli(capsys, "compare", str(a), str(c))
    assert code == 2 and "hold different users (1 only in" in err, err
    code, _, err = run_cli(capsys, "compare", str(a), str(b), "--n", "1000")
    assert code == 2 and "--n do(es) not apply to long-format CSVs" in err, err
    code, _, err = run_cli(capsys, "compare", str(a), str(b), "--name-a", "X",
                       "--name-b", "X")
    assert code == 2 and "--name-a and --name-b must differ" in err, err
