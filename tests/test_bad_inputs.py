"""Bad inputs and ordinary file faults: each ends in one line that names what is wrong, with
the right exit code, and leaves no output behind (a catalogue of hostile inputs).

Four families, each parametrised: the command line, the workflow's config (the checker the
Snakefile runs, plus a few real ``snakemake -n`` runs), data files read by the split, and
library arguments.
"""
import copy
import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import copy_workflow, place_local_files, snakemake, write_zip

from sampled_metrics import correction
from sampled_metrics.bounds import bound_full_metric
from sampled_metrics.checks import check_integer
from sampled_metrics.cli import main
from sampled_metrics.workflow.configuration.check import ConfigError, check_config, load_yaml_strict
from sampled_metrics.corrections import apply_correction
from sampled_metrics.datasets import DataError, make_split
from sampled_metrics.evaluation import check_sampled_ranks_size
from sampled_metrics.metrics import metric_value, metric_weights
from sampled_metrics.evaluation.negatives import check_sample_size
from sampled_metrics.evaluation.rankfile import RankFile, read_rank_file
from sampled_metrics.integrations.recbole import capture
from sampled_metrics.sampling import draw_sampled_ranks, expected_sampled_metric, rank_pmf

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
MAX_LINE = 240


def one_line(message: str) -> str:
    message = message.strip()
    assert "\n" not in message, message
    assert len(message) <= MAX_LINE, (len(message), message)
    assert "Traceback" not in message
    return message


def files_under(path: Path) -> set:
    return {p.relative_to(path) for p in path.rglob("*")}


# --- the command line -------------------------------------------------------------------

def _rank_file(path: Path) -> Path:
    rng = np.random.default_rng(0)
    RankFile(users=np.arange(50), exact=rng.integers(1, 300, 50), n_u=np.full(50, 400),
             sampled={60: rng.integers(1, 62, (3, 50))}, n_items=400, sampling="binomial",
             tie="random", seed=1).write(path)
    return path


def _inputs(d: Path) -> None:
    (d / "ok.txt").write_text("\n".join(map(str, range(1, 51))) + "\n")
    (d / "big.txt").write_text("1\n123456789012345678901234\n")
    (d / "frac.txt").write_text("1\n2.5\n")
    (d / "nan.txt").write_text("1\nnan\n")
    (d / "neg.txt").write_text("3\n-1\n")
    (d / "zero.txt").write_text("0\n")
    (d / "word.txt").write_text("1\n2\nseven\n")
    (d / "two.txt").write_text("1,2\n")
    (d / "empty.txt").write_text("")
    (d / "blank.txt").write_text("\n\n  \n")
    (d / "comments.txt").write_text("# only a comment\n")
    (d / "long.txt").write_text("9" * 100_000 + "x\n")
    (d / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (d / "latin1.txt").write_bytes(b"1\n\xe9\xe9\n")
    (d / "ranks.csv").write_text("user,rank\n1,3\n2,x\n")
    (d / "garbage.npz").write_bytes(b"\x00\x01garbage" * 10)
    np.savez(d / "objects.npz", a=np.array([{"x": 1}], dtype=object))
    np.savez(d / "plain.npz", a=np.arange(3))
    rank = _rank_file(d / "X.npz")
    damaged = bytearray(rank.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    (d / "damaged.npz").write_bytes(bytes(damaged))
    (d / "adir").mkdir()
    (d / "shifted.csv").write_text("rank,user\n3,1,7\n4,2,7\n")
    (d / "twice.csv").write_text("user,rank,rank\n1,3,4\n")
    (d / "true.txt").write_text("True\n")
    (d / "late.txt").write_text("\n" * 70_000 + "5\n99\n")
    head = "user,position,n_nonrelevant,n_negatives\n"
    (d / "pos_word.csv").write_text(head + "1,1,50,10\n1,x,50,10\n")
    (d / "pos_wide.csv").write_text(head + "1,1,50,10\n2,1,50,10,7\n")
    (d / "pos_no_user.csv").write_text(head + "1,1,50,10\n ,1,50,10\n")
    (d / "pos_bool.csv").write_text(head + "1,1,50,10\n2,true,50,10\n")
    (d / "pos_empty.csv").write_text(head)
    head = "user,position,n_nonrelevant,above,prob\n"
    (d / "draw_prob.csv").write_text(head + "1,1,50,1,0.5\n1,1,50,0,0\n")
    (d / "draw_above.csv").write_text(head + "1,1,50,1,0.5\n1,1,50,2,0.5\n")
    os.mkfifo(d / "fifo")
    arrays = dict(np.load(rank))
    for name, change in {"m2d": {"m_values": np.array([[60]])},
                         "nan_exact": {"exact": np.full(50, np.nan)},
                         "banana": {"tie": np.array("banana")},
                         "float_items": {"n_items": np.array(400.9)},
                         "twice_users": {"users": np.zeros(50, dtype=np.int64)},
                         "few_candidates": {"n_u": np.r_[np.full(48, 400), 60, 30],
                                            "exact": np.ones(50, dtype=np.int64)}}.items():
        np.savez(d / f"{name}.npz", **{**arrays, **change})


CLI_CASES = [
    # (argv, expected message fragment)
    ("correct --ranks missing.txt --n 1000 --m 60", "missing.txt: no such file"),
    ("correct --ranks adir --n 1000 --m 60", "adir: is a directory"),
    ("correct --ranks empty.txt --n 1000 --m 60", "empty.txt: file is empty"),
    ("correct --ranks blank.txt --n 1000 --m 60", "blank.txt: file is empty"),
    ("correct --ranks comments.txt --n 1000 --m 60", "comments.txt: no sampled ranks found"),
    ("correct --ranks big.txt --n 1000 --m 60",
     "big.txt:2: sampled rank 123456789012345678901234 outside 1..m+1=61"),
    ("correct --ranks frac.txt --n 1000 --m 60", "frac.txt:2: '2.5' is not an integer"),
    ("correct --ranks nan.txt --n 1000 --m 60", "nan.txt:2: 'nan' is not an integer"),
    ("correct --ranks neg.txt --n 1000 --m 60", "neg.txt:2: sampled rank -1 outside"),
    ("correct --ranks zero.txt --n 1000 --m 60", "zero.txt:1: sampled rank 0 outside"),
    ("correct --ranks word.txt --n 1000 --m 60", "word.txt:3: 'seven' is not an integer"),
    ("correct --ranks two.txt --n 1000 --m 60", "two.txt:1: '1,2' is not an integer"),
    ("correct --ranks long.txt --n 1000 --m 60", "long.txt:1: '9999"),
    ("correct --ranks binary.txt --n 1000 --m 60", "binary.txt: binary data"),
    ("correct --ranks latin1.txt --n 1000 --m 60", "latin1.txt: not UTF-8 text"),
    ("correct --ranks ranks.csv --column rank --n 1000 --m 60",
     "ranks.csv:3: 'x' in column 'rank' is not an integer"),
    ("correct --ranks ranks.csv --column score --n 1000 --m 60",
     "ranks.csv: no column 'score'; columns are user, rank"),
    ("correct --ranks ok.txt --m 60", "--n is required"),
    ("correct --ranks ok.txt --n 1000", "--m is required"),
    ("correct --ranks ok.txt --n 60 --m 60", "need n > m"),
    ("correct --ranks ok.txt --n 1000 --m 0", "m (number of sampled items) must be >= 1"),
    ("correct --ranks ok.txt --n 1000 --m 60 --method ,", "no method given"),
    ("correct --ranks ok.txt --n 1000 --m 60 --metric ,", "no metric given"),
    ("correct --ranks ok.txt --n 1000 --m 60 --metric recall@0", "cut-off must be >= 1"),
    ("correct --ranks ok.txt --n 1000 --m 60 --metric hitrate", "metric 'hitrate' needs a cut-off"),
    ("correct --ranks ok.txt --n 1000 --m 60 --method bv_2", "gamma must lie in [0, 1]"),
    ("correct --ranks ok.txt --n 1000 --m 60 --method magic", "magic"),
    ("correct --ranks ok.txt --n 1000 --m 60 --method cls --gamma 0.5",
     "--gamma 0.5 only applies to the method 'bv'"),
    ("correct --ranks ok.txt --n 1000 --m 60 --level 1.5", "--level must lie in (0, 1)"),
    ("correct --ranks ok.txt --n 1000 --m 60 --bootstrap -1", "--bootstrap must be >= 0"),
    ("correct --ranks ok.txt --n 1000 --m 60 --bootstrap 1",
     "--bootstrap 1 is too few draws for a 95% interval (each tail needs a draw): give at "
     "least 40, or 0 for none"),
    ("estimate --ranks ok.txt --n 1000 --m 60 --bootstrap 39",
     "--bootstrap 39 is too few draws for a 95% interval"),
    ("estimate --ranks ok.txt --n 1000 --m 60 --level 0.99",
     "--bootstrap 100 is too few draws for a 99% interval (each tail needs a draw): give at "
     "least 200, or 0 for none"),
    ("correct --ranks ok.txt --n 1000 --m 60 --bootstrap 100000000",
     "--bootstrap 100000000 draws of the m+1 = 61 rank frequencies would need"),
    ("correct --ranks ok.txt --n 1000000000000 --m 60", "items would need"),
    ("correct --ranks ok.txt --n 1000 --m 60 --repeat 1", "--repeat only applies"),
    ("correct --ranks X.npz --n 60", "the file records n = 400 items, but --n is 60"),
    ("correct --ranks X.npz --m 99", "ranks were sampled with m=60, but --m is 99"),
    ("correct --ranks X.npz --repeat 7", "repeat 7 outside 0..2"),
    ("correct --ranks garbage.npz", "garbage.npz: not a rank file"),
    ("correct --ranks objects.npz", "objects.npz: not a readable rank file (it holds Python"),
    ("correct --ranks plain.npz", "plain.npz: not a rank file of this version"),
    ("correct --ranks damaged.npz", "damaged.npz: not a readable rank file"),
    ("correct --ranks adir.npz", "adir.npz: no such file"),
    ("correct --ranks shifted.csv --column rank --n 1000 --m 60",
     "shifted.csv:2: expected 2 fields (as the header), got 3"),
    ("correct --ranks twice.csv --column rank --n 1000 --m 60",
     "twice.csv: column 'rank' appears 2 times in the header"),
    ("correct --ranks true.txt --n 1000 --m 60", "true.txt:1: 'True' is not an integer"),
    ("correct --ranks late.txt --n 1000 --m 60", "late.txt:70002: sampled rank 99 outside"),
    ("correct --ranks fifo --n 1000 --m 60", "fifo: not a regular file"),
    ("correct --ranks ok.txt --n inf --m 60", "argument --n: invalid int value: 'inf'"),
    ("correct --ranks ok.txt --n 1000 --m 60 --format json", "argument --format: invalid"),
    ("correct --ranks ok.txt --n 1000 --m 60 --seed -1", "--seed must be >= 0"),
    ("correct --ranks m2d.npz", "m2d.npz: 'm_values' must be a 1-D integer array"),
    ("correct --ranks nan_exact.npz", "nan_exact.npz: exact ranks must be finite"),
    ("correct --ranks banana.npz", "banana.npz: unknown tie policy 'banana'; expected one of "
                                   "pessimistic, "),
    ("correct --ranks float_items.npz", "float_items.npz: 'n_items' must be an integer"),
    ("correct --ranks twice_users.npz", "twice_users.npz: users must be distinct"),
    ("correct --ranks few_candidates.npz",
     "few_candidates.npz: sampled ranks for m=60: 2 of 50 users have n_u <= m = 60 "
     "candidates (smallest n_u: 30); the corrections need n_u > m"),
    ("estimate --ranks few_candidates.npz", "few_candidates.npz: sampled ranks for m=60: 2 of"),
    ("correct --ranks pos_word.csv",
     "pos_word.csv:3: 'x' in column 'position' is not an integer position"),
    ("correct --ranks pos_wide.csv", "pos_wide.csv:3: expected 4 fields (as the header), got 5"),
    ("correct --ranks pos_no_user.csv", "pos_no_user.csv:3: no user id"),
    ("correct --ranks pos_bool.csv",
     "pos_bool.csv:3: 'true' in column 'position' is not an integer position"),
    ("correct --ranks pos_empty.csv", "pos_empty.csv: no positives found"),
    ("correct --ranks draw_prob.csv", "draw_prob.csv:3: prob 0 outside (0, 1]"),
    ("correct --ranks draw_above.csv", "draw_above.csv:3: above 2 outside 0..1"),
    ("estimate --ranks ok.txt --n 1000 --m 60 --method foo", "unknown estimator 'foo'"),
    ("estimate --ranks ok.txt --n 1000 --m 60 --method ,", "no method given"),
    ("estimate --ranks ok.txt --n 1000 --m 60 --method mle --c 5",
     "--c only applies to the estimator 'wmle'"),
    ("estimate --ranks ok.txt --n 1000 --m 60 --method mle --eta 0.1",
     "--eta only applies to the estimator 'mes'"),
    ("estimate --ranks ok.txt --n 1000 --m 60 --method mes --eta -1",
     "eta (entropy weight) must be positive"),
    ("estimate --ranks ok.txt --n 100000000 --m 60 --method mle --bootstrap 0",
     "the law matrix p(r~ | r) of n = 100000000 true ranks"),
    ("estimate --ranks ok.txt --n 100000000 --m 60",
     "the law matrix p(r~ | r) of n = 100000000 true ranks by m+1 = 61 sampled ranks would "
     "need 45.4 GiB of memory, more than the 8 GiB available; use a smaller size"),
    ("estimate --ranks ok.txt --n 20000000 --m 10 --bootstrap 100",
     "--bootstrap 100 estimated distributions over the n = 20000000 true ranks would need "
     "14.9 GiB"),
    ("correct --ranks ok.txt --n 200000 --m 100000 --method cls",
     "the (m+1) x (m+1) system of the corrections at m = 100000 (and its factorisation) "
     "would need 149 GiB of memory, more than the 8 GiB available"),
    ("plan --n 1000 --target-bias -1", "target bias must be positive"),
    ("plan --n 1000 --target-bias 0.01 --max-m 5000", "need n > m"),
    ("plan --n 1000 --target-bias 0.01 --prior-ranks binary.txt", "binary.txt: binary data"),
    ("plan --n 1000 --target-bias 0.01 --prior-ranks big.txt", "exact rank"),
    ("plan --n 1000000000000 --target-bias 0.01", "would need"),
    ("bound --n 1000 --m 100 --observed hr@10=0.730 --level 7",
     "--level must lie in (0, 1), got 7.0"),
    ("bound --n 1000 --m 100 --observed hr@10=0.730 --level nan", "--level must lie in (0, 1)"),
    ("bound --n 1000 --m 100 --observed hr@10=0.730 --tolerance nan",
     "--tolerance must be finite and >= 0, got nan"),
    ("bound --n 1000 --m 100 --observed hr@10=0.730 --users 0", "--users must be >= 1"),
    ("bound --n 1000000000 --m 100 --observed hr@10=0.730",
     "the bounds' linear programmes over n = 1000000000 true ranks (1 observed, 3 target "
     "metrics) would need 134 GiB of memory, more than the 8 GiB available"),
    ("bound --n 100000000 --observed hr@10=0.730 --evaluator ncf --metric recall@10",
     "over n = 100000000 true ranks"),
]


@pytest.mark.parametrize("argv, expected", CLI_CASES, ids=[a for a, _ in CLI_CASES])
def test_cli_bad_input(tmp_path, capsys, monkeypatch, argv, expected):
    _inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SAMPLED_METRICS_MEMORY", str(8 << 30))  # the same on every machine
    before = files_under(tmp_path)
    try:
        code = main(argv.split())
    except SystemExit as stop:  # argparse's own usage errors
        code = stop.code
    out = capsys.readouterr()
    assert code == 2, out
    assert out.out == ""
    message = one_line(out.err)
    assert message.startswith(f"sampled-metrics {argv.split()[0]}: error: ")
    assert expected in message, message
    assert files_under(tmp_path) == before


def test_cli_bootstrap_minimum_makes_an_interval(tmp_path, capsys):
    """The smallest --bootstrap accepted gives an interval with a draw beyond each end."""
    _inputs(tmp_path)
    assert main(["correct", "--ranks", str(tmp_path / "ok.txt"), "--n", "1000", "--m", "60",
                 "--metric", "auc", "--method", "sampled", "--bootstrap", "40",
                 "--format", "csv"]) == 0
    row = capsys.readouterr().out.splitlines()[1].split(",")
    assert float(row[4]) < float(row[2]) < float(row[5])


TOO_LARGE = ["estimate --ranks ok.txt --n 100000000 --m 60",
             "correct --ranks ok.txt --n 200000 --m 100000 --method cls",
             "estimate --ranks ok.txt --n 3000000 --m 60 --metric recall@10,ndcg@10,ap",
             "plan --n 1000000000000 --target-bias 0.01",
             "bound --n 100000000 --m 100 --observed hr@10=0.730,ndcg@10=0.447"]


@pytest.mark.parametrize("argv", TOO_LARGE)
def test_cli_refuses_sizes_before_allocating(tmp_path, capsys, monkeypatch, argv):
    """A size that does not fit is refused before any array of it is made: numpy's
    allocations (traced by tracemalloc) stay small until the error."""
    import tracemalloc

    import sampled_metrics.estimators  # noqa: F401  (imports are not what is measured)
    import sampled_metrics.corrections.planning  # noqa: F401
    import sampled_metrics.bounds  # noqa: F401
    _inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SAMPLED_METRICS_MEMORY", str(1 << 30))
    tracemalloc.start()
    try:
        code = main(argv.split())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2
    assert "would need" in one_line(capsys.readouterr().err)
    assert peak < 64 << 20, f"{peak / 2 ** 20:.0f} MiB allocated before the refusal"


def test_cli_size_check_knows_the_address_space_limit(tmp_path):
    """Under ``ulimit -v`` the check counts the memory the limit leaves, not the machine's:
    one line, not numpy's MemoryError."""
    _inputs(tmp_path)
    script = ("import resource, sys\n"
              "from sampled_metrics.cli import main\n"
              "mapped = int(open('/proc/self/statm').read().split()[0]) * 4096\n"
              "resource.setrlimit(resource.RLIMIT_AS, (mapped + (1 << 30), "
              "resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
              "sys.exit(main(sys.argv[1:]))\n")
    env = {k: v for k, v in os.environ.items() if k != "SAMPLED_METRICS_MEMORY"}
    proc = subprocess.run([sys.executable, "-c", script, "estimate", "--ranks", "ok.txt",
                           "--n", "4000000", "--m", "60", "--bootstrap", "0"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    message = one_line(proc.stderr)
    assert message.startswith("sampled-metrics estimate: error: the law matrix p(r~ | r) of "
                              "n = 4000000 true ranks by m+1 = 61 sampled ranks would need "
                              "1.82 GiB of memory, more than the "), message


@pytest.mark.parametrize("name, text", [("bom", "\ufeff5\n7\n"), ("trailing blank lines",
                                                                   "5\n7\n\n\n"),
                                         ("spaces", "  5 \n7\r\n"), ("comments",
                                                                     "# ranks\n5\n7\n")])
def test_cli_accepts_text_variants(tmp_path, capsys, name, text):
    """What ordinary files look like is read the same: a BOM, blank lines, CRLF, comments."""
    f = tmp_path / "r.txt"
    f.write_text(text, encoding="utf-8", newline="")
    code = main(["correct", "--ranks", str(f), "--n", "1000", "--m", "60", "--metric", "auc",
                 "--method", "sampled", "--bootstrap", "0", "--format", "csv"])
    out = capsys.readouterr()
    assert code == 0, out.err
    expected = np.mean([(61 - 5) / 60, (61 - 7) / 60])
    assert float(out.out.splitlines()[1].split(",")[2]) == pytest.approx(expected, rel=1e-5)


# --- the workflow's config ----------------------------------------------------------------

def _merged(**files) -> dict:
    from snakemake.utils import update_config
    config = load_yaml_strict(ROOT / "config" / "config.yaml")
    update_config(config, load_yaml_strict(ROOT / "config" / "test.yaml"))
    return config


BASE = _merged()


def _set(config, dotted, value):
    *path, last = dotted if isinstance(dotted, tuple) else dotted.split(".")
    node = config
    for key in path:
        node = node.setdefault(key, {})
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value


class _Delete:
    """The value that removes a key (its repr names a test: the same in every process)."""

    def __repr__(self):
        return "<deleted>"


_DELETE = _Delete()

CONFIG_CASES = [
    # (key, value, expected message fragment)
    ("repeets", 10, "config key (top level): unknown key 'repeets'"),
    ("study.figure5.edge", [10], "config key study.figure5: unknown key 'edge'; did you mean"),
    ("study.figure6.colour", "red", "config key study.figure6: unknown key 'colour'"),
    ("toy.figure2.point", 3, "config key toy.figure2: unknown key 'point'"),
    ("jin.figure2.topp", 3, "config key jin.figure2: unknown key 'topp'"),
    ("datasets.synthetic.n_user", 40, "config key datasets.synthetic: unknown key 'n_user'"),
    ("datasets.mine", {"path": "x.zip"}, "config key datasets.mine: 'format' is missing"),
    ("datasets.mine", {"format": "ml-2m", "path": "x.zip"}, "unknown dataset format 'ml-2m'"),
    ("datasets.synthetic.n_items", "many", "datasets.synthetic"),
    ("datasets.ml-1m.md5", "abc", "datasets.ml-1m"),
    ("seed", True, "config key seed: expected integer, found True (bool)"),
    ("seed", -1, "config key seed: expected minimum 0, found -1"),
    ("study.repeats", -1, "config key study.repeats: expected minimum 2"),
    ("study.m", "100", "config key study.m: expected integer, found '100' (str)"),
    ("study.sampling", "uniform", "config key study.sampling: expected one of binomial, "),
    ("study.tie", "average", "config key study.tie: 'average' gives fractional ranks"),
    ("study.tie", "first", "config key study.tie: expected one of"),
    ("study.metrics", [], "config key study.metrics: must not be empty"),
    ("study.metrics", ["recall@10", "mrrr"],
     "config key study.metrics[1]: unknown metric 'mrrr'"),
    ("datasets.synthetic.n_events", 10, "config key datasets.synthetic: synthetic: n_events must"),
    ("recommenders.X.seed", -1, "config key recommenders.X: IALS seed must be a non-negative"),
    ("recommenders.Y.q", "3", "config key recommenders.Y.q: expected a number, found '3' (str)"),
    ("recommenders.EASE.lam", True, "config key recommenders.EASE.lam: expected a number"),
    ("study.corrections", ["bv_2"], "config key study.corrections[0]: gamma must lie in"),
    ("study.corrections", ["magic"], "config key study.corrections[0]:"),
    ("study.figure6.metric", "recall@0", "config key study.figure6.metric: metric 'recall@0'"),
    ("study.figure6.corrections", ["bv"], "config key study.figure6.corrections[0]:"),
    ("study.figure5.edges", [100, 10], "config key study.figure5.edges: expected strictly"),
    ("study.recommenders", ["X", "W"], "config key study.recommenders[1]: recommender 'W' is "
                                       "not in 'recommenders'"),
    ("study.datasets", ["synthetic", "ml-2m"], "config key study.datasets[1]: dataset 'ml-2m'"),
    ("study.m", 400, "config key study.m: m = 400 sampled items, but dataset 'synthetic' has "
                     "only n_items = 400"),
    ("study.figure6.max_m", 500, "config key study.figure6.max_m: m = 500"),
    ("jin.m", 160, "config key jin.m: m = 160 sampled items, but dataset 'synthetic-small'"),
    ("jin.figure3.m_values", [49, 1000], "config key jin.figure3.m_values[1]: m = 1000"),
    ("practice.m", 5000, "config key practice.m: m = 5000 sampled items, but dataset 'ml-1m' "
                         "has only 3706 items (the published ml-1m) (need m < 3706)"),
    ("study.drop_users_with_few_candidates", "yes",
     "config key study.drop_users_with_few_candidates: expected boolean, found 'yes' (str)"),
    ("jin.figure3.recommender", "W", "config key jin.figure3.recommender: recommender 'W'"),
    ("jin.recommenders", ["X"], "config key jin.recommenders: must not be empty"),
    ("jin.figure1.recommender", "NeuMF", "config key jin.figure1.recommender: 'NeuMF' is not in "
                                         "jin.recommenders (X, Y, Z, EASE)"),
    ("jin.estimators", ["mle", "em"], "config key jin.estimators[1]"),
    ("jin.metrics", ["ndcg@ten"], "config key jin.metrics[0]"),
    ("jin.options", {"mes": {"etta": 0.1}}, "config key jin.options.mes: estimator 'mes' takes "
                                            "no option(s) etta"),
    ("jin.options", {"mle": {"C": 10}}, "config key jin.options.mle"),
    ("recommenders.X.factor", 8, "config key recommenders.X: model 'ials' takes no parameter "
                                 "'factor'"),
    ("recommenders.X.factors", 0, "config key recommenders.X: IALS factors must be a positive"),
    ("recommenders.EASE.lam", -5.0, "config key recommenders.EASE: EASE needs lam > 0"),
    ("recommenders.EASE.precision", "float16", "config key recommenders.EASE: unknown EASE "
                                               "precision 'float16'; expected one of float32, "
                                               "float64"),
    ("recommenders.W", {"model": "svd"}, "config key recommenders.W.model: expected one of"),
    ("recommenders.W", {"q": 1.0}, "config key recommenders.W: 'model' is a required property"),
    ("toy.table2.m", 10000, "config key toy.table2.m: m = 10000 sampled items, but toy.n = "),
    ("toy.figure3.m_values", [10, 20000], "config key toy.figure3.m_values[1]"),
    ("toy.figure4.metric", "auc@3", "config key toy.figure4.metric"),
    ("toy.n", _DELETE, "config key toy: 'n' is a required property"),
    ("datasets.synthetic.zipf_exponent", float("nan"),
     "config key datasets.synthetic.zipf_exponent: expected a finite number, found nan"),
    ("recommenders.X.alpha", float("inf"), "config key recommenders.X.alpha: expected a finite"),
    (("datasets", ".."), {"format": "synthetic", "n_users": 10, "n_items": 10},
     "config key datasets...: a name may hold only letters"),
    ("recommenders.my/X", {"model": "ease"}, "config key recommenders.my/X: a name may hold"),
    ("study.datasets", [], "config key study.datasets: empty, but jin.enabled is true"),
    (("dataset_protocols", "v"), {"of": "nope"},
     "config key dataset_protocols.v.of: 'nope' is not a dataset defined in 'datasets'"),
    (("dataset_protocols", "synthetic"), {"of": "synthetic-small"},
     "config key dataset_protocols.synthetic: a view ('of') needs a new name"),
    (("dataset_protocols", "other"), {"candidates": "all"},
     "config key dataset_protocols.other: not a dataset defined in 'datasets'"),
    (("dataset_protocols", "a/b"), {"of": "synthetic"},
     "config key dataset_protocols.a/b: a name may hold only letters"),
    (("dataset_protocols", "v"), {"of": "synthetic", "candidates": "some"},
     "config key dataset_protocols.v.candidates: expected one of"),
    ("practice.datasets", ["nowhere"], "config key practice.datasets[0]: dataset 'nowhere' "
                                        "is not in 'datasets'"),
    ("practice.recommenders", ["X", "W"], "config key practice.recommenders[1]: recommender "
                                           "'W' is not in 'recommenders'"),
    ("study.datasets", ["synthetic", "synthetic-all"],
     "config key study.datasets[1]: 'synthetic-all' is a view"),
    ("jin.datasets", ["synthetic", "elsewhere"],
     "config key jin.datasets[1]: 'elsewhere' is not defined in 'datasets' or as a view"),
    ("ranks.users_per_shard", 3000, "config key ranks.users_per_shard: expected a multiple of "
                                    "1024, found 3000"),
    ("ranks.users_per_shard", 0, "config key ranks.users_per_shard: expected minimum 1024"),
    ("ranks.shards", 4, "config key ranks: unknown key 'shards'"),
    ("study.repeats", 10 ** 9, "config key study.repeats: 1000000000 repeats of the sampled "
                              "ranks of the 300 users of dataset 'synthetic' at m = 49, 50, 99 "
                              "would need 3.27 TiB of memory, more than the "),
    (("datasets", "mine"), {"format": "interactions", "path": "mine.csv", "md5": "0" * 32,
                            "user_col": "id", "item_col": "id", "time_col": "t"},
     "config key datasets.mine: user_col and item_col both name column 'id'; each must name "
     "its own column"),
    (("datasets", "mine"), {"format": "interactions", "path": "mine.csv", "md5": "0" * 32,
                            "user_col": "u", "item_col": "i", "time_col": "t",
                            "rating_col": "t"},
     "config key datasets.mine: time_col and rating_col both name column 't'"),
    ("datasets.synthetic-small", {"format": "ml-1m", "path": "nowhere/ml-1m.zip",
                                  "md5": "0" * 32},
     "config key datasets.synthetic-small.path: 'nowhere/ml-1m.zip' does not exist (the local "
     "archive used instead of url)"),
    ("datasets.synthetic-small", {"format": "ncf", "path": "nowhere/Data", "prefix": "ml-1m"},
     "config key datasets.synthetic-small.path: 'nowhere/Data' does not exist (the directory "
     "or zip holding the files)"),
    ("study.fixed_negatives", True, "config key study.fixed_negatives: true, but dataset "
                                    "'synthetic' (study.datasets[0]) has format 'synthetic'"),
    ("study.model_seeds", [0, 1, 0], "config key study.model_seeds: expected every value "
                                     "once, found [0, 1, 0]"),
    ("study.model_seeds", [0, 1.5], "config key study.model_seeds[1]: expected integer or "
                                    "null, found 1.5 (float)"),
    ("study.model_seeds", [0, "1"], "config key study.model_seeds[1]: expected integer or "
                                    "null, found '1' (str)"),
    ("study.model_seeds", [0, True], "config key study.model_seeds[1]: expected integer or "
                                     "null, found True (bool)"),
    ("study.model_seeds", [-1, 2], "config key study.model_seeds[0]: expected minimum 0"),
    ("study.model_seeds", [], "config key study.model_seeds: must not be empty"),
    ("study.model_seeds", 3, "config key study.model_seeds: expected array or null, found 3"),
    ("study.model_seeds", [None, 1], "config key study.model_seeds: null (each recommender's "
                                     "own seed) stands alone"),
    ("study.model_seeds", [0, 2.0], "config key study.model_seeds[1]: expected integer or "
                                    "null, found 2.0 (float)"),
    ("ranks.users_per_shard", 2048.0, "config key ranks.users_per_shard: expected integer, "
                                      "found 2048.0 (float)"),
    ("study.repeats", 10.0, "config key study.repeats: expected integer, found 10.0 (float)"),
    ("seed", 0.0, "config key seed: expected integer, found 0.0 (float)"),
]


@pytest.mark.parametrize("key, value, expected", CONFIG_CASES,
                         ids=[f"{'.'.join(k) if isinstance(k, tuple) else k}={v!r}"[:60]
                              for k, v, _ in CONFIG_CASES])
def test_config_mistake(key, value, expected):
    config = copy.deepcopy(BASE)
    _set(config, key, value)
    with pytest.raises(ConfigError) as err:
        check_config(config, SCHEMA)
    assert expected in one_line(str(err.value)), str(err.value)


def test_the_shipped_configs_pass(tmp_path, monkeypatch):
    """Every shipped config passes, its local files (placeholders) standing where it says."""
    from snakemake.utils import update_config
    check_config(BASE, SCHEMA, [ROOT / "config" / "config.yaml", ROOT / "config" / "test.yaml"])
    for i, extra in enumerate(sorted((ROOT / "config" / "datasets").glob("*.yaml")) + [
            ROOT / "config" / "offline.yaml", ROOT / "config" / "jin-as-run.yaml"]):
        config = load_yaml_strict(ROOT / "config" / "config.yaml")
        update_config(config, load_yaml_strict(extra))
        wd = tmp_path / str(i) / "run"
        wd.mkdir(parents=True)
        monkeypatch.chdir(wd)
        place_local_files(config["datasets"], wd, tmp_path)
        check_config(config, SCHEMA, [extra])


@pytest.mark.parametrize("text, expected", [
    ("seed: 1\nseed: 2\n", "key 'seed' appears twice in one mapping (lines 1 and 2)"),
    ("study:\n  m: 10\n  m: 20\n", "key 'm' appears twice"),
    ("- a\n- b\n", "expected a mapping of keys at the top, found list"),
    ("study: [unclosed\n", "not valid YAML"),
])
def test_config_file_mistake(tmp_path, text, expected):
    f = tmp_path / "my.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_yaml_strict(f)
    assert expected in one_line(str(err.value))
    assert str(f) in str(err.value)


PARQUET = {"format": "interactions", "path": "mine.parquet", "md5": "0" * 32,
           "user_col": "u", "item_col": "i", "time_col": "t"}


@pytest.mark.parametrize("spec, file, data", [
    (PARQUET, "mine.parquet", b"PAR1" + b"\0" * 8 + b"PAR1"),
    ({**PARQUET, "path": "mine.dat"}, "mine.dat", b"PAR1" + b"\0" * 8 + b"PAR1"),
    ({**PARQUET, "path": "mine.zip", "member": "ratings.pq"}, "mine.zip", None),
])
def test_parquet_without_pyarrow_is_a_config_mistake(tmp_path, monkeypatch, spec, file, data):
    """A Parquet interactions file (by name or by its bytes) needs pyarrow at the check,
    not in the split job; with pyarrow the same config passes."""
    import sampled_metrics.workflow.configuration.check as check
    monkeypatch.chdir(tmp_path)
    if data is None:
        write_zip(tmp_path / file, "PAR1", "ratings.pq")
    else:
        (tmp_path / file).write_bytes(data)
    config = copy.deepcopy(BASE)
    config["datasets"]["mine"] = spec
    config["study"]["datasets"] = ["mine"]
    monkeypatch.setattr(check, "pyarrow_available", lambda: False)
    with pytest.raises(ConfigError) as err:
        check_config(config, SCHEMA)
    message = one_line(str(err.value))
    assert message.startswith("config key datasets.mine: "), message
    assert "is a Parquet file, which needs pyarrow, not installed: pip install pyarrow" in message
    monkeypatch.setattr(check, "pyarrow_available", lambda: True)
    check_config(copy.deepcopy(config), SCHEMA)
    (tmp_path / "mine.csv").write_text("u,i,t\n" + "".join(f"1,{i},{i}\n" for i in range(200)))
    config["datasets"]["mine"] = {**PARQUET, "path": "mine.csv"}
    monkeypatch.setattr(check, "pyarrow_available", lambda: False)
    check_config(config, SCHEMA)


def _clicks(path: Path, n_items: int) -> Path:
    """An interactions CSV of 30 users, each with every one of ``n_items`` items."""
    path.write_text("user,item,ts\n" + "".join(f"{u},{i},{u * 1000 + i}\n"
                                                for u in range(30) for i in range(n_items)))
    return path


CLICKS = {"format": "interactions", "path": "clicks.csv", "md5": "0" * 32, "user_col": "user",
          "item_col": "item", "time_col": "ts"}


@pytest.mark.parametrize("n_items, change, expected", [
    (40, {}, "config key study.m: m = 50 sampled items, but dataset 'mine' has only 40 items "
             "in clicks.csv (need m < 40)"),
    (60, {}, "config key jin.figure3.m_values[1]: m = 99 sampled items, but dataset 'mine' has "
             "only 60 items in clicks.csv (need m < 60); or set jin.enabled: false"),
    (60, {"jin": {"enabled": False}}, None),
    (60, {"jin": {"enabled": False}, "practice": {"datasets": ["mine"], "m": 70}},
     "config key practice.m: m = 70 sampled items, but dataset 'mine' has only 60 items"),
])
def test_m_is_checked_against_the_items_of_a_local_interactions_file(tmp_path, monkeypatch,
                                                                     n_items, change, expected):
    """Every m of every branch (study, Jin, practice) against the items of a local
    interactions file, read when the config is checked: one line naming the key, m and the
    item count; the file is not read when it is larger than READ_ITEMS_MAX_BYTES."""
    import sampled_metrics.workflow.configuration.check as check
    monkeypatch.chdir(tmp_path)
    _clicks(tmp_path / "clicks.csv", n_items)
    config = copy.deepcopy(BASE)
    config["datasets"]["mine"] = dict(CLICKS)
    config["study"]["datasets"] = ["mine"]
    for section, values in change.items():
        config[section].update(values)
    if expected is None:
        check_config(config, SCHEMA)
        return
    with pytest.raises(ConfigError) as err:
        check_config(config, SCHEMA)
    assert one_line(str(err.value)).startswith(expected), str(err.value)
    monkeypatch.setattr(check, "READ_ITEMS_MAX_BYTES", 100)      # too large to read now
    check_config(config, SCHEMA)


@pytest.mark.workflow
@pytest.mark.slow
@pytest.mark.parametrize("extra, expected", [
    ("seed: 1\nseed: 2\n", "sampled-metrics: config file my.yaml: key 'seed' appears twice"),
    ("study:\n  model_seeds: [0, 2.0]\n",
     "sampled-metrics: config key study.model_seeds[1]: expected integer or null, found 2.0"),
    ("ranks:\n  users_per_shard: 2048.0\n",
     "sampled-metrics: config key ranks.users_per_shard: expected integer, found 2048.0"),
    ("study:\n  figure5:\n    edges: [10]\n    bins: 3\n",
     "sampled-metrics: config key study.figure5: unknown key 'bins'"),
    ("study:\n  tie: average\n", "sampled-metrics: config key study.tie: 'average'"),
    ("study:\n  results_table:\n    recommenders: [X, W]\n",
     "sampled-metrics: config key study.results_table.recommenders[1]: recommender 'W' is not "
     "in 'recommenders'"),
    ("study:\n  model_seeds: [1, 2, 1]\n",
     "sampled-metrics: config key study.model_seeds: expected every value once"),
    ("study:\n  repeats: 1000000000\n", "sampled-metrics: config key study.repeats: "
                                         "1000000000 repeats of the sampled ranks of the 300 "
                                         "users of dataset 'synthetic'"),
    ("datasets:\n  mine:\n    format: ml-1m\n    path: nowhere/ml-1m.zip\n    md5: '"
     + "0" * 32 + "'\nstudy:\n  datasets: [mine]\n",
     "sampled-metrics: config key datasets.mine.path: 'nowhere/ml-1m.zip' does not exist"),
    ("datasets:\n  mine:\n    format: interactions\n    path: mine.csv\n    md5: '"
     + "0" * 32 + "'\n    user_col: id\n    item_col: id\n    time_col: t\n",
     "sampled-metrics: config key datasets.mine: user_col and item_col both name column 'id'"),
])
def test_snakemake_dry_run_fails_in_one_line(tmp_path, extra, expected):
    message = _dry_run_error(copy_workflow(tmp_path), extra)
    assert message.startswith(expected), message


def _dry_run_error(wd: Path, config: str) -> str:
    """The last line of ``snakemake -n`` with ``config`` as a second config file, my.yaml, in
    the workflow copy ``wd``: the run must fail, with no traceback and no file left."""
    (wd / "my.yaml").write_text(config)
    before = files_under(wd)
    proc = snakemake(wd, "my.yaml", "-n", timeout=300)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert {p for p in files_under(wd) - before if p.parts[0] != ".snakemake"} == set()
    return one_line(proc.stderr.strip().splitlines()[-1])


@pytest.mark.workflow
@pytest.mark.slow
def test_snakemake_dry_run_checks_m_against_a_local_interactions_file(tmp_path):
    """The quick start's own dataset: an m not below the file's item count stops
    ``snakemake -n`` in one line, naming the key, m and the count."""
    wd = copy_workflow(tmp_path)
    _clicks(wd / "clicks.csv", 40)
    config = yaml.safe_dump({"datasets": {"mine": CLICKS}, "study": {"datasets": ["mine"]}})
    assert _dry_run_error(wd, config) == (
        "sampled-metrics: config key study.m: m = 50 sampled items, but dataset 'mine' has "
        "only 40 items in clicks.csv (need m < 40)")


@pytest.mark.workflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is not None,
                    reason="pyarrow is installed: Parquet is readable")
def test_snakemake_dry_run_refuses_parquet_without_pyarrow(tmp_path):
    wd = copy_workflow(tmp_path)
    (wd / "mine.parquet").write_bytes(b"PAR1" + b"\0" * 8 + b"PAR1")
    config = ("datasets:\n  mine:\n    format: interactions\n    path: mine.parquet\n    md5: '"
              + "0" * 32 + "'\n    user_col: u\n    item_col: i\n    time_col: t\nstudy:\n  "
              "datasets: [mine]\n")
    assert _dry_run_error(wd, config) == (
        "sampled-metrics: config key datasets.mine: 'mine.parquet' is a Parquet file, which "
        "needs pyarrow, not installed: pip install pyarrow (or convert it to CSV)")


# --- data files ---------------------------------------------------------------------------

def _written(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


GOOD = "".join(f"{u}::{i}::4::{100 * u + i}\n" for u in range(1, 6) for i in range(1, 5))


def _corrupt(path: Path) -> Path:
    write_zip(path, GOOD * 50, compression=zipfile.ZIP_DEFLATED)    # corrupt compressed data
    data = bytearray(path.read_bytes())
    data[60] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


DATA_CASES = [
    ("huge id", lambda p: write_zip(p, GOOD + "123456789012345678901234::1::4::5\n"),
     "line 21: user '123456789012345678901234' is too large for a 64-bit integer"),
    ("huge timestamp", lambda p: write_zip(p, GOOD + "1::1::4::9223372036854775808\n"),
     "line 21: timestamp '9223372036854775808' is too large for a 64-bit integer"),
    ("three fields", lambda p: write_zip(p, GOOD + "1::2::3\n"), "line 21: expected 4 fields"),
    ("letters", lambda p: write_zip(p, GOOD + "1::x::3::4\n"), "line 21: expected 4 fields"),
    ("blank line inside", lambda p: write_zip(p, GOOD + "\n" + GOOD), "line 21: expected"),
    ("empty member", lambda p: write_zip(p, ""), "no ratings to split"),
    ("one rating per user", lambda p: write_zip(p, "1::1::4::5\n2::2::4::6\n3::1::5::7\n"),
     "no user is left to evaluate (3 users"),
    ("wrong member", lambda p: write_zip(p, GOOD, "ml-1m/ratings.csv"),
     "no member 'ml-1m/ratings.dat'; the archive holds 'ml-1m/ratings.csv'"),
    ("not a zip", lambda p: _written(p, b"hello"), "not a readable zip archive"),
    ("damaged zip", _corrupt, "ml-1m/ratings.dat: unreadable, the archive is damaged"),
    ("directory", lambda p: p.mkdir() or p, "is a directory, expected a zip archive"),
    ("missing", lambda p: p, "archive not found"),
]


@pytest.mark.parametrize("name, make, expected", DATA_CASES, ids=[c[0] for c in DATA_CASES])
def test_data_file_fault(tmp_path, name, make, expected):
    (tmp_path / "data" / "raw").mkdir(parents=True)
    archive = make(tmp_path / "data" / "raw" / "mine.zip")
    out = tmp_path / "out" / "split.npz"
    spec = {"format": "ml-1m", "path": "my/ml-1m.zip", "md5": "0" * 32}
    with pytest.raises(DataError) as err:
        make_split(archive, spec, out, name="mine")
    message = one_line(str(err.value))
    assert expected in message, message
    assert message.startswith("my/ml-1m.zip (dataset 'mine')"), message
    assert not out.exists() and not list((tmp_path).rglob(".split.npz.*"))


@pytest.mark.parametrize("row, expected", [
    ("1,3,9223372036854775808", "line 3: time ('ts') '9223372036854775808' is too large for "
                                "a 64-bit integer"),
    ("1,3,18446744073709551615", "line 3: time ('ts') '18446744073709551615' is too large"),
    ("1,3,18446744073709551616", "line 3: time ('ts') '18446744073709551616' is too large"),
    ("1,3,-9223372036854775809", "line 3: time ('ts') '-9223372036854775809' is too large"),
    ("1,3,1e19", "line 3: time ('ts') '1e+19' is too large for a 64-bit integer"),
    ("9223372036854775808,3,5", "line 3: user ('uid') '9223372036854775808' is too large"),
    ("1,1e19,5", "line 3: item ('iid') '1e+19' is too large for a 64-bit integer"),
])
def test_interactions_beyond_64_bits(tmp_path, row, expected):
    """Ids and times that do not fit in int64 are refused, not wrapped to -2**63."""
    archive = tmp_path / "mine.csv"
    archive.write_text("uid,iid,ts\n1,2,5\n" + row + "\n2,1,1\n2,2,2\n")
    out = tmp_path / "out" / "split.npz"
    spec = {"format": "interactions", "path": "my/mine.csv", "md5": "0" * 32,
            "user_col": "uid", "item_col": "iid", "time_col": "ts"}
    with pytest.raises(DataError) as err:
        make_split(archive, spec, out, name="mine")
    message = one_line(str(err.value))
    assert message.startswith("my/mine.csv (dataset 'mine'): "), message
    assert expected in message, message
    assert not out.exists()


def test_interactions_at_the_64_bit_edges(tmp_path):
    """The largest and smallest int64 times are read exactly."""
    from sampled_metrics.datasets import read_interactions_file
    path = tmp_path / "edges.csv"
    path.write_text("uid,iid,ts\n1,2,9223372036854775807\n1,3,-9223372036854775808\n")
    frame = read_interactions_file(path, user_col="uid", item_col="iid", time_col="ts")
    assert frame.timestamp.tolist() == [2 ** 63 - 1, -2 ** 63]


@pytest.mark.parametrize("variant", ["bom", "trailing blank lines", "crlf"])
def test_ratings_variants_read_alike(tmp_path, variant):
    """A BOM, trailing blank lines and CRLF line ends give the same split as the plain file."""
    text = {"bom": "\ufeff" + GOOD, "trailing blank lines": GOOD + "\n\n \n",
            "crlf": GOOD.replace("\n", "\r\n")}[variant]
    plain = make_split(write_zip(tmp_path / "a.zip", GOOD), "ml-1m", tmp_path / "a.npz")
    other = make_split(write_zip(tmp_path / "b.zip", text.encode()), "ml-1m", tmp_path / "b.npz")
    assert plain == other
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    assert all(np.array_equal(a[k], b[k]) for k in a.files)


# --- library arguments --------------------------------------------------------------------

class _HalfTrainer:
    """A trainer with two of the three methods a RecBole record wraps."""

    def evaluate(self, *args):
        return {}

    def _neg_sample_batch_eval(self, *args):
        return None


LIBRARY_CASES = [
    ("m=True", lambda: correction("recall@10", 100, True, "cls"),
     "m (number of sampled items) must be an integer, got the boolean True"),
    ("n=True", lambda: rank_pmf([1], True, 1), "n (number of items) must be an integer"),
    ("n=1.5", lambda: rank_pmf([1], 10.5, 3), "n (number of items) must be an integer"),
    ("bool ranks", lambda: apply_correction(np.ones(4), np.array([True, False])),
     "sampled ranks must be numbers, got booleans"),
    ("string ranks", lambda: apply_correction(np.ones(4), ["1", "2"]),
     "sampled ranks must be numbers"),
    ("fractional sampled", lambda: apply_correction(np.ones(4), [1.5]),
     "sampled ranks must be integers, got 1.5"),
    ("NaN sampled", lambda: apply_correction(np.ones(4), [np.nan]), "must be finite"),
    ("sampled beyond m+1", lambda: apply_correction(np.ones(4), [5]), "1..m+1=4, got 5..5"),
    ("2-D vector", lambda: apply_correction(np.ones((2, 4)), [1]), "must be 1-D, got shape"),
    ("NaN vector", lambda: apply_correction(np.array([1, np.nan]), [1]), "must be finite"),
    ("fractional true", lambda: expected_sampled_metric("auc", [2.5], 100, 10),
     "true ranks must be integers, got 2.5"),
    ("NaN true", lambda: expected_sampled_metric("auc", [np.nan], 100, 10),
     "true ranks must be finite"),
    ("true beyond n", lambda: expected_sampled_metric("auc", [101], 100, 10),
     "true ranks must lie in 1..n=100"),
    ("2-D correction", lambda: expected_sampled_metric("auc", [1], 100, 10,
                                                       correction=np.ones((1, 11))),
     "must be 1-D"),
    ("draw m=1.5", lambda: draw_sampled_ranks([1], 100, 1.5), "m (number of sampled items)"),
    ("draw bool ranks", lambda: draw_sampled_ranks(np.array([True]), 100, 10), "booleans"),
    ("check_sample_size m=True", lambda: check_sample_size([100], True, "binomial"),
     "positive integer"),
    ("weights n=True", lambda: metric_weights("ndcg", True), "got the boolean True"),
    ("weights huge n", lambda: metric_weights("ndcg", 10 ** 12), "would need"),
    ("integer check", lambda: check_integer("repeats", np.bool_(True)), "boolean"),
    ("metric rank 0", lambda: metric_value("ndcg", [0], 10), "ranks r must lie in 1..n=10"),
    ("metric rank > n", lambda: metric_value("auc", [50], 10), "ranks r must lie in 1..n=10"),
    ("gamma=True", lambda: correction("recall@10", 100, 10, "bv", gamma=True),
     "gamma must be a number in [0, 1], got the boolean True"),
    ("rank file missing", lambda: read_rank_file("nowhere/X.npz"), "no such file"),
    ("rank file range", lambda: RankFile(users=np.arange(2), exact=np.array([1, 2]),
                                         n_u=np.array([5, 5]), sampled={3: np.array([[1, 9]])},
                                         n_items=5, sampling="binomial", tie="random", seed=0),
     "sampled ranks for m=3 must lie in 1..m+1=4"),
    ("rank file n_u <= m", lambda: RankFile(users=np.arange(2), exact=np.array([1, 2]),
                                            n_u=np.array([5, 3]), sampled={3: np.ones((1, 2),
                                                                                  dtype=int)},
                                            n_items=5, sampling="binomial", tie="random",
                                            seed=0),
     "sampled ranks for m=3: 1 of 2 users have n_u <= m = 3 candidates (smallest n_u: 3)"),
    ("repeats x users", lambda: check_sampled_ranks_size(138493, {100: 10 ** 6}, "mine"),
     "1000000 repeats of the sampled ranks of the 138493 users of dataset 'mine' at m = 100 "
     "would need 516 GiB of memory, more than the 8 GiB available; use a smaller size"),
    ("rank file law", lambda: RankFile(users=np.arange(1), exact=np.array([1]),
                                       n_u=np.array([5]), sampled={}, n_items=5,
                                       sampling="uniform", tie="random", seed=0),
     "unknown sampling law 'uniform'; expected one of binomial, hypergeometric"),
    ("bound huge n", lambda: bound_full_metric("hr@10=0.730", 10 ** 9, 100, "recall@10"),
     "the bounds' linear programmes over n = 1000000000 true ranks (1 observed, 1 target "
     "metric) would need 104 GiB of memory, more than the 8 GiB available"),
    ("bound level", lambda: bound_full_metric("hr@10=0.730", 1000, 100, "recall@10",
                                              level=1.5), "level must lie in (0, 1), got 1.5"),
    ("bound level NaN", lambda: bound_full_metric("hr@10=0.730", 1000, 100, "recall@10",
                                                  level=float("nan")), "level must lie in"),
    ("bound shape", lambda: bound_full_metric("hr@10=0.730", 1000, 100, "recall@10",
                                              shape="flat"), "unknown shape 'flat'"),
    ("bound tolerance twice", lambda: bound_full_metric(
        "hr@10=0.730", 1000, 100, "recall@10", tolerance={"hr@10": 0.001, "recall@10": 0.002}),
     "tolerance given twice for recall@10: as 'hr@10' and 'recall@10'"),
    ("bound tolerance unobserved", lambda: bound_full_metric(
        "hr@10=0.730", 1000, 100, "recall@10", tolerance={"mrr": 0.01}),
     "tolerance given for 'mrr', which is not observed"),
    ("bound tolerance bool", lambda: bound_full_metric(
        "hr@10=0.730", 1000, 100, "recall@10", tolerance={"hr@10": True}),
     "tolerance for 'hr@10' must be a number, got True"),
    ("capture a half trainer", lambda: capture(_HalfTrainer()),
     "capture needs a RecBole Trainer, got _HalfTrainer, which lacks the method "
     "_full_sort_batch_eval"),
]


def test_bound_accepts_what_the_command_line_does():
    """A tolerance named by an alias of the observed metric (hr = hit = recall with one
    relevant item) applies to it; shape 'none' is no shape."""
    observed = {"hr@10": "0.730", "ndcg@10": "0.447"}
    wide = bound_full_metric(observed, 3706, 100, "recall@10", tolerance={"recall@10": 0.01})
    for alias in ("hr@10", "hit@10", "HR@10"):
        assert bound_full_metric(observed, 3706, 100, "recall@10",
                                 tolerance={alias: 0.01}) == wide
    assert wide[1] > bound_full_metric(observed, 3706, 100, "recall@10")[1]
    for none in ("none", "None"):
        assert bound_full_metric(observed, 3706, 100, "ndcg@10", shape=none) == \
            bound_full_metric(observed, 3706, 100, "ndcg@10", shape=None)


@pytest.mark.parametrize("name, call, expected", LIBRARY_CASES,
                         ids=[c[0] for c in LIBRARY_CASES])
def test_library_argument(monkeypatch, name, call, expected):
    monkeypatch.setenv("SAMPLED_METRICS_MEMORY", str(8 << 30))
    with pytest.raises(ValueError) as err:
        call()
    assert expected in one_line(str(err.value)), str(err.value)
