import numpy as np
import pytest
from conftest import run_cli
from threadpoolctl import threadpool_limits

from sampled_metrics import correction
from sampled_metrics.cli import main
from sampled_metrics.corrections import apply_correction
from sampled_metrics.evaluation.rankfile import RankFile


def test_correct_prints_corrected_means(tmp_path, capsys):
    ranks = np.random.default_rng(0).integers(1, 102, size=200)
    f = tmp_path / "ranks.txt"
    f.write_text("\n".join(map(str, ranks)) + "\n")
    code, out, err = run_cli(capsys, "correct", "--ranks", str(f), "--n", "3706", "--m", "100",
                         "--metric", "ap,recall@10", "--method", "sampled,bv_0.1,cls",
                         "--format", "csv")
    assert code == 0, err
    lines = dict(((a, b), float(c)) for a, b, c, *_ in
                 (line.split(",") for line in out.strip().splitlines()[1:]))
    expected = apply_correction(correction("ap", 3706, 100, "bv_0.1"), ranks).mean()
    assert lines[("ap", "bv_0.1")] == pytest.approx(expected, rel=1e-5)
    assert lines[("recall@10", "sampled")] == pytest.approx((ranks <= 10).mean(), rel=1e-5)
    assert ("ap", "cls") in lines


def test_correct_reads_csv_column(tmp_path, capsys):
    f = tmp_path / "ranks.csv"
    f.write_text("user,rank\n1,1\n2,5\n3,11\n")
    code, out, err = run_cli(capsys, "correct", "--ranks", str(f), "--column", "rank", "--n",
                         "1000", "--m", "10", "--metric", "recall@10", "--method", "sampled")
    assert code == 0, err
    assert "0.666667" in out


@pytest.mark.parametrize("content,args,message", [
    ("", [], "empty"),
    ("1\n0\n", [], ":2: sampled rank 0 outside 1..m+1=11"),
    ("1\n12\n", [], "outside 1..m+1"),
    ("1\n2.5\n", [], "not an integer"),
    ("1\nabc\n", [], "not an integer"),
    ("1\n", ["--m", "1000"], "need n > m"),
    ("1\n", ["--method", "bv", "--gamma", "3"], "gamma"),
    ("1\n", ["--metric", "bogus"], "unknown metric"),
    ("a,b\n1,2\n", ["--column", "rank"], "no column 'rank'"),
])
def test_correct_rejects_bad_input(tmp_path, capsys, content, args, message):
    f = tmp_path / "r.txt"
    f.write_text(content)
    argv = ["correct", "--ranks", str(f), "--n", "1000", "--m", "10"] + args
    if "--m" in args:
        argv = ["correct", "--ranks", str(f), "--n", "1000"] + args
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_missing_file(capsys):
    code, _, err = run_cli(capsys, "correct", "--ranks", "/nonexistent/x", "--n", "10", "--m", "2")
    assert code == 2 and "no such file" in err


def test_bootstrap_interval_and_npz_input(tmp_path, capsys):
    rng = np.random.default_rng(1)
    sampled = rng.integers(1, 52, size=(3, 400)).astype(np.int16)
    f = tmp_path / "X.npz"
    RankFile(users=np.arange(400), exact=rng.integers(1, 900, size=400),
             n_u=np.full(400, 900), sampled={50: sampled}, n_items=1000,
             sampling="hypergeometric", tie="random", seed=0).write(f)
    argv = ["correct", "--ranks", str(f), "--repeat", "2", "--n", "1000", "--m", "50",
            "--metric", "ap", "--method", "sampled,bv_0.1", "--format", "csv"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first                  # seeded: identical output
    rows = [line.split(",") for line in first.strip().splitlines()[1:]]
    value, lo, hi = (float(rows[0][i]) for i in (2, 4, 5))
    assert value == pytest.approx(np.mean(1.0 / sampled[2]), rel=1e-5)
    assert lo < value < hi
    # the bootstrap interval is about mean +- 1.96 standard errors
    se = float(rows[0][3])
    assert (hi - lo) / (2 * 1.96 * se) == pytest.approx(1.0, abs=0.15)
    assert main(["correct", "--ranks", str(f), "--repeat", "7", "--n", "1000", "--m", "50"]) == 2
    assert "repeat 7 outside" in capsys.readouterr().err
    assert main(["correct", "--ranks", str(f), "--n", "1000", "--m", "40"]) == 2
    assert "m=50" in capsys.readouterr().err


def test_help_documents_equations(capsys):
    for cmd, eqs in (("correct", ["eq. 20", "eq. 21", "eq. 24"]), ("estimate", ["eq. 14", "eq. 15"]),
                     ("plan", ["eq. 21"])):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert all(e in out for e in eqs), (cmd, eqs)


@pytest.mark.numerical
def test_estimate_bootstrap_is_the_batched_estimate_of_each_draw(tmp_path, capsys):
    """``estimate``: the value is the one-histogram estimate; the interval is that of the
    bootstrap histograms' estimates, batched (MLE, WMLE: estimate_batches, the workflow's
    path; MES, BV: one at a time, the same numbers), whatever --processes."""
    from sampled_metrics.resampling import bootstrap_histograms, percentile_interval
    from sampled_metrics.estimators import (estimate_batches, estimate_from_histogram,
                                            sampled_rank_histogram)
    from sampled_metrics.metrics import parse_metrics
    n, m, draws, seed = 600, 30, 60, 4
    ranks = 1 + np.random.default_rng(5).binomial(m, np.random.default_rng(6).beta(0.5, 3, 400))
    f = tmp_path / "ranks.txt"
    f.write_text("\n".join(map(str, ranks)) + "\n")
    argv = ["estimate", "--ranks", str(f), "--n", str(n), "--m", str(m), "--bootstrap",
            str(draws), "--seed", str(seed), "--metric", "recall@10,ndcg@10", "--format", "csv",
            "--method", "mle,wmle,mes,bv_0.1"]
    outputs = []
    for processes in ("1", "2"):
        code, out, err = run_cli(capsys, *argv, "--processes", processes)
        assert code == 0 and all(line.startswith("note: ") for line in err.splitlines())
        outputs.append(out)
    assert outputs[0] == outputs[1]
    rows = {(a, b): tuple(map(float, rest[:-1])) for a, b, *rest in
            (line.split(",") for line in outputs[0].strip().splitlines()[1:])}
    weights = np.stack([x.weights(n) for x in parse_metrics(["recall@10", "ndcg@10"])])
    boot = bootstrap_histograms(ranks, m, draws, seed)
    for name in ("mle", "wmle", "mes", "bv_0.1"):
        value = weights @ estimate_from_histogram(sampled_rank_histogram(ranks, m), n, m, name)
        batched = estimate_batches(boot, n, m, name) @ weights.T
        if name in ("mes", "bv_0.1"):
            with threadpool_limits(1):    # exact: the same calls on one BLAS thread, as there
                one = np.stack([estimate_from_histogram(h, n, m, name) for h in boot])
            assert np.array_equal(batched, one @ weights.T)
        for k, metric in enumerate(["recall@10", "ndcg@10"]):
            expected = (value[k], *percentile_interval(batched[:, k], 0.95))
            assert rows[metric, name] == pytest.approx(expected, rel=1e-5, abs=1e-9)


def test_estimate_rejects_bad_processes(tmp_path, capsys):
    f = tmp_path / "r.txt"
    f.write_text("1\n2\n")
    code, _, err = run_cli(capsys, "estimate", "--ranks", str(f), "--n", "100", "--m", "5",
                       "--processes", "0")
    assert code == 2 and "--processes must be >= 1" in err and len(err.splitlines()) == 1
