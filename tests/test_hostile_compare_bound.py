"""Every option of ``compare`` and ``bound`` given a hostile value (empty, not a number, NaN,
infinite, negative, huge, a file of another kind): refused in one line with exit code 2, or
accepted; never a traceback, never a result from a value that cannot be right."""
import numpy as np
import pytest
from conftest import run_cli

from sampled_metrics.evaluation.rankfile import RankFile

HOSTILE = ["", "x", "nan", "inf", "-1", "0", "1e400", "99999999999999999999"]

BOUND = ["bound", "--n", "1000", "--m", "100", "--observed", "hr@10=0.730"]
BOUND_OPTIONS = ["--n", "--m", "--observed", "--metric", "--shape", "--sampling",
                 "--evaluator", "--tolerance", "--users", "--level", "--format"]
#: values a bound option may take: anything else must be refused
BOUND_ACCEPTS = {("--users", "99999999999999999999"), ("--tolerance", "0"),
                 ("--tolerance", "99999999999999999999")}

COMPARE_OPTIONS = ["--n", "--m", "--sampling", "--evaluator", "--metric", "--method",
                   "--pairing", "--repeat", "--repeats", "--level", "--bootstrap",
                   "--estimator-bootstrap", "--seed", "--format", "--column"]


def _set(argv, option, value):
    argv = list(argv)
    if option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv += [option, value]
    return argv


def _outcome(capsys, argv) -> int:
    try:
        code, out, err = run_cli(capsys, *argv)
    except SystemExit as stop:                    # argparse's own usage errors
        code, err = stop.code, capsys.readouterr().err
        out = ""
    assert code in (0, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        assert out == "" and err.strip().count("\n") == 0 or err.startswith("usage:"), err
    return code


@pytest.mark.parametrize("option", BOUND_OPTIONS)
def test_bound_options_refuse_hostile_values(capsys, monkeypatch, option):
    monkeypatch.setenv("SAMPLED_METRICS_MEMORY", str(1 << 30))
    refused = [v for v in HOSTILE if _outcome(capsys, _set(BOUND, option, v)) == 2]
    accepted = {(option, v) for v in HOSTILE if v not in refused}
    assert accepted <= BOUND_ACCEPTS, sorted(accepted - BOUND_ACCEPTS)


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(0)
    paths = {}
    for name in ("A", "B"):
        exact = rng.integers(1, 300, 60)
        RankFile(users=np.arange(60), exact=exact, n_u=np.full(60, 400),
                 sampled={30: rng.integers(1, 32, (3, 60))}, n_items=400, sampling="binomial",
                 tie="random", seed=0, recommender=name).write(tmp_path / f"{name}.npz")
        paths[name] = str(tmp_path / f"{name}.npz")
    (tmp_path / "plain.txt").write_text("1\n2\n3\n")
    (tmp_path / "long.csv").write_text("user,position,n_nonrelevant,n_negatives\n1,1,50,9\n"
                                       "2,3,50,9\n")
    paths["plain"], paths["long"] = str(tmp_path / "plain.txt"), str(tmp_path / "long.csv")
    return paths


@pytest.mark.parametrize("option", COMPARE_OPTIONS)
def test_compare_options_refuse_hostile_values(capsys, monkeypatch, files, option):
    """No hostile value of an option gives a verdict, but for the legitimate ones: repeat 0,
    a seed of 0 or of any size, and refits of the mle estimator (bounded by --bootstrap)."""
    monkeypatch.setenv("SAMPLED_METRICS_MEMORY", str(1 << 30))
    argv = ["compare", files["A"], files["B"], "--metric", "recall@10",
            "--method", "sampled", "--bootstrap", "100", "--estimator-bootstrap", "0"]
    accepted = [v for v in HOSTILE if _outcome(capsys, _set(argv, option, v)) == 0]
    legitimate = {"--repeat": {"0"}, "--seed": {"0", "99999999999999999999"},
                  "--estimator-bootstrap": {"0", "99999999999999999999"}}
    assert set(accepted) <= legitimate.get(option, set()), accepted


@pytest.mark.parametrize("a, b", [("A", "plain"), ("A", "long"), ("long", "A"),
                                  ("plain", "long")])
def test_compare_refuses_files_of_another_kind(capsys, files, a, b):
    argv = ["compare", files[a], files[b], "--n", "400", "--m", "30"]
    assert _outcome(capsys, argv) == 2
