import numpy as np
import pytest

from sampled_metrics.cli import build_parser, main
from sampled_metrics.rankfile import RankFile
from sampled_metrics.sampling import draw_sampled_ranks

N, M = 500, 20


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def rank_files(tmp_path):
    rng = np.random.default_rng(0)
    users = 1500
    ra = np.minimum(1 + rng.geometric(0.05, users), N)       # A clearly better than B
    rb = np.minimum(1 + rng.geometric(0.01, users), N)
    paths = {}
    for name, r in (("A", ra), ("B", rb)):
        f = RankFile(users=np.arange(users), exact=r, n_u=np.full(users, N),
                     sampled={M: draw_sampled_ranks(r, N, M, rng=rng, size=(4, users))},
                     n_items=N, sampling="binomial", tie="random", seed=0, recommender=name)
        paths[name] = f.write(tmp_path / f"{name}.npz")
    return paths


def test_help_explains_the_verdict():
    text = " ".join(build_parser()._subparsers._group_actions[0].choices["compare"]
                    .format_help().split())
    assert "VERDICT" in text and "not distinguishable" in text and "paired" in text


def test_compare_text_files(tmp_path, capsys, rank_files):
    from sampled_metrics.rankfile import read_rank_file
    for name in ("A", "B"):
        ranks = read_rank_file(rank_files[name]).sampled_ranks(M, 0)
        (tmp_path / f"{name}.txt").write_text("\n".join(map(str, ranks)) + "\n")
    code, out, err = run(capsys, "compare", "--a", str(tmp_path / "A.txt"), "--b",
                         str(tmp_path / "B.txt"), "--n", str(N), "--m", str(M), "--metric",
                         "recall@10", "--method", "sampled,cls",
                         "--format", "csv")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].startswith("metric,method,value_a,value_b,difference")
    assert len(lines) == 3 and all(line.endswith("A better") for line in lines[1:])


def test_compare_rank_files_over_repeats(capsys, rank_files):
    code, out, err = run(capsys, "compare", "--a", str(rank_files["A"]), "--b",
                         str(rank_files["B"]), "--repeats", "all", "--metric", "recall@10",
                         "--method", "cls", "--bootstrap", "200",
                         "--format", "csv")
    assert code == 0, err
    header, row = out.strip().splitlines()
    values = dict(zip(header.split(","), row.split(",")))
    assert values["repeats"] == "4" and values["agree"] == "4" and values["wrong"] == "0"
    assert int(values["a_better"]) + int(values["not_distinguishable"]) == 4


@pytest.mark.parametrize("extra, message", [
    (["--b", "OTHER.txt"], "both be rank files"),
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
    argv = ["compare", "--a", str(rank_files["A"]), "--b", str(rank_files["B"]),
            "--estimator-bootstrap", "0"]
    if extra[:1] == ["--b"]:
        (tmp_path / "OTHER.txt").write_text("1\n2\n")
        extra = ["--b", str(tmp_path / "OTHER.txt")]
    code, out, err = run(capsys, *argv, *extra)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_compare_text_needs_n_and_m(capsys, tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.txt").write_text("1\n2\n3\n")
    code, _, err = run(capsys, "compare", "--a", str(tmp_path / "a.txt"), "--b",
                       str(tmp_path / "b.txt"), "--m", "5")
    assert code == 2 and "--n and --m are required" in err
    (tmp_path / "b.txt").write_text("1\n9\n3\n")
    code, _, err = run(capsys, "compare", "--a", str(tmp_path / "a.txt"), "--b",
                       str(tmp_path / "b.txt"), "--m", "5", "--n", "50")
    assert code == 2 and "b.txt:2: sampled rank 9 outside 1..m+1=6" in err
