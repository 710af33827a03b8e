"""The one evaluator resolution (evaluators.catalogue.resolve_evaluator): its rule, the same
in the library and on the command line, and run once per public call.

A public call with an evaluator resolves it exactly once: the resolver runs once with an
evaluator, and the evaluator's name is looked up in the catalogue once (everything below
the entry point takes the entry the resolver gave)."""
import numpy as np
import pandas as pd
import pytest

from conftest import run_cli
from sampled_metrics import bound_full_metric, correct, draw_sampled_ranks
from sampled_metrics.evaluators import EVALUATORS
from sampled_metrics.evaluators import catalogue
from sampled_metrics.compare import compare_ranks
from sampled_metrics.compare.table import results_table
from sampled_metrics.estimators.table import estimate
from sampled_metrics.evaluators.catalogue import resolve_evaluator
from sampled_metrics.intervals import correct_positions
from sampled_metrics.multipositive.longformat import resolve_long_evaluator

N = 801                                    # items each positive is ranked among
OBSERVED = "hr@10=0.8245,ndcg@10=0.5905"   # SASRec's published ML-1M values


def parts(design) -> tuple:
    """A design's n, m, law and evaluator (its equality leaves the evaluator out)."""
    return design.n, design.m, design.sampling, design.evaluator


# --- the rule --------------------------------------------------------------------------

def test_without_an_evaluator_the_design_is_what_was_given():
    assert parts(resolve_evaluator(None, long=False)) == (None, None, "binomial", None)
    assert (parts(resolve_evaluator(None, sampling="Hypergeometric", m=7, long=None))
            == (None, 7, "hypergeometric", None))


@pytest.mark.parametrize("name", [e.name for e in EVALUATORS.values() if e.sampling])
def test_an_evaluator_gives_its_law_and_its_m(name):
    e = EVALUATORS[name]
    reported = e.self_draw == "never" and e.duplicates != "collapsed"
    for long in ((False, True, None) if reported else (True, None)):
        design = resolve_evaluator(name.upper(), long=long)
        assert design.evaluator is e and design.sampling == e.sampling
        assert design.m == (None if long else e.negatives)
        # a law equal to the evaluator's is accepted (in any case), an m given is kept
        same = resolve_evaluator(name, sampling=e.sampling.title(), m=3, long=long)
        assert (same.sampling, same.m) == (e.sampling, 3)
    if not reported:
        with pytest.raises(ValueError, match=f"evaluator '{name}' (can draw|collapses)"):
            resolve_evaluator(name, long=False)


def test_a_contradicting_law_is_refused_naming_both_as_written():
    with pytest.raises(ValueError) as err:
        resolve_evaluator("ReChorus", sampling="Binomial", long=False)
    assert str(err.value) == ("sampling 'Binomial' contradicts evaluator 'ReChorus', whose "
                              "ranks follow the hypergeometric law")
    with pytest.raises(ValueError) as err:
        resolve_evaluator(" SASRec", sampling="hypergeometric", long=None,
                          names=("--sampling", "--evaluator"))
    assert str(err.value).startswith("--sampling 'hypergeometric' contradicts --evaluator "
                                     "' SASRec', whose ranks follow the binomial law")


@pytest.mark.parametrize("name", [e.name for e in EVALUATORS.values() if not e.sampling])
def test_an_evaluator_without_a_correction_is_refused(name):
    for long in (False, True, None):
        with pytest.raises(ValueError, match=f"^evaluator '{name.title()}': "):
            resolve_evaluator(name.title(), long=long)


def _ranks(m=100, seed=0, p=0.02, users=500):
    rng = np.random.default_rng(seed)
    exact = np.minimum(rng.geometric(p, users), N)
    return draw_sampled_ranks(exact, N, m, "hypergeometric", rng=rng)


def test_the_library_takes_the_evaluators_m_as_the_command_line_does(tmp_path, capsys):
    """``correct`` with m=None and an evaluator: the evaluator's m, as ``--evaluator``
    without ``--m`` gives it; the same table as the law and m given by hand."""
    ranks = _ranks()
    args = (ranks, N, None, "recall@10", ["recommended", "sampled"])
    by_name = correct(*args, evaluator="elliot", bootstrap=0)
    by_hand = correct(ranks, N, 100, "recall@10", ["recommended", "sampled"],
                      sampling="hypergeometric", bootstrap=0)
    pd.testing.assert_frame_equal(by_name, by_hand)
    path = tmp_path / "ranks.txt"
    np.savetxt(path, ranks, fmt="%d")
    code, out, err = run_cli(capsys, "correct", "--ranks", str(path), "--n", str(N),
                             "--evaluator", "elliot", "--method", "recommended,sampled",
                             "--metric", "recall@10", "--bootstrap", "0", "--format", "csv")
    assert code == 0, err
    cli = pd.read_csv(pd.io.common.StringIO(out))
    assert cli.correction.tolist() == by_name.correction.tolist()
    # the CSV prints what the library computed (6 decimals at most: a printed digit)
    assert np.allclose(cli.value, by_name.value, rtol=0, atol=5e-7)
    with pytest.raises(ValueError, match="m \\(number of sampled items\\)"):
        correct(*args, bootstrap=0)                     # no evaluator: m is needed


def test_the_long_format_holds_the_given_evaluator_against_its_column():
    """One rule for the long format: the evaluator given, else the column's; one naming
    the column's evaluator (in any case) accepted, another refused naming both as given."""
    elliot = EVALUATORS["elliot"]
    assert parts(resolve_long_evaluator(None, "elliot", "x.csv")) == (
        None, None, elliot.sampling, elliot)
    assert parts(resolve_long_evaluator(" ELLIOT", "elliot", "x.csv")) == (
        None, None, elliot.sampling, elliot)
    assert parts(resolve_long_evaluator(None, None, "x.csv")) == (None, None, "binomial", None)
    with pytest.raises(ValueError) as err:
        resolve_long_evaluator("ReChorus", "elliot", "x.csv", names=("--sampling",
                                                                     "--evaluator"))
    assert str(err.value) == ("x.csv: its evaluator column names elliot, but --evaluator is "
                              "ReChorus")
    with pytest.raises(ValueError) as err:
        resolve_long_evaluator(None, "elliot", "x.csv", sampling="Binomial")
    assert str(err.value) == ("sampling 'Binomial' contradicts the evaluator column of x.csv: "
                              "'elliot', whose ranks follow the hypergeometric law")
    with pytest.raises(ValueError, match="^the evaluator column of x.csv: 'recbole-pop': "):
        resolve_long_evaluator(None, "recbole-pop", "x.csv")


def _two_models():
    return {"A": _ranks(seed=1, p=0.02), "B": _ranks(seed=2, p=0.005)}


SMALL = dict(bootstrap=0, processes=1)         # estimate without an interval


@pytest.mark.parametrize("call", [
    lambda **kw: estimate(_ranks(), N, metrics="recall@10", estimators=["mes"], **SMALL,
                          **kw),
    lambda **kw: compare_ranks(_two_models(), N, metrics=["recall@10"], methods=["sampled"],
                               bootstrap=50, plugin=None, **kw),
    lambda **kw: results_table(_two_models(), ["recall@10"], ["recommended"], n=N,
                               bootstrap=100, level=0.5, **kw).models,
], ids=["estimate", "compare_ranks", "results_table"])
def test_with_an_evaluator_m_defaults_to_its_own(call):
    """m=None with an evaluator: the evaluator's m (Elliot's 100), as ``correct`` and the
    command line take it; the same table as the law and m given by hand."""
    by_hand = call(m=100, sampling="hypergeometric")
    pd.testing.assert_frame_equal(call(m=None, evaluator="Elliot"), by_hand)
    pd.testing.assert_frame_equal(call(m=100, evaluator="elliot"), by_hand)
    needed = "(m \\(number of sampled items\\)|n and m are needed)"
    with pytest.raises(ValueError, match=needed):
        call(m=None)                                    # no evaluator: m is needed


def test_results_table_takes_a_resolved_design_as_it_is():
    models = _two_models()
    design = resolve_evaluator("elliot", long=False)
    options = dict(n=N, bootstrap=100, level=0.5)
    by_name = results_table(models, ["recall@10"], ["recommended"], evaluator="Elliot",
                            **options)
    by_design = results_table(models, ["recall@10"], ["recommended"], evaluator=design,
                              **options)
    pd.testing.assert_frame_equal(by_design.models, by_name.models)
    assert (by_design.evaluator, by_design.sampling, by_design.m) == ("elliot",
                                                                      "hypergeometric", 100)
    with pytest.raises(ValueError, match="^sampling 'binomial' contradicts the evaluator's "
                                         "design, whose ranks follow the hypergeometric law"):
        results_table(models, ["recall@10"], ["recommended"], evaluator=design,
                      sampling="binomial", **options)


# --- once per public call --------------------------------------------------------------

@pytest.fixture
def counted(monkeypatch):
    """Counts of the resolver's runs with an evaluator and of the catalogue's name lookups,
    reset at each use; the resolver is wrapped wherever a module holds it."""
    counts = {"resolutions": 0, "lookups": 0}
    original, lookup = catalogue.resolve_evaluator, EVALUATORS.canonical

    def resolver(evaluator=None, **options):
        counts["resolutions"] += evaluator is not None
        return original(evaluator, **options)

    def canonical(*args, **options):
        counts["lookups"] += 1
        return lookup(*args, **options)

    import sys
    for module in list(sys.modules.values()):
        if (getattr(module, "__name__", "").startswith("sampled_metrics")
                and getattr(module, "resolve_evaluator", None) is original):
            monkeypatch.setattr(module, "resolve_evaluator", resolver)
    monkeypatch.setattr(EVALUATORS, "canonical", canonical)

    def measure(call):
        counts.update(resolutions=0, lookups=0)
        call()
        return dict(counts)
    return measure


def test_the_library_resolves_the_evaluator_once(counted):
    ranks = _ranks()
    once = {"resolutions": 1, "lookups": 1}
    assert counted(lambda: correct(ranks, N, None, "recall@10", ["recommended", "cls"],
                                   evaluator="elliot", bootstrap=50)) == once
    assert counted(lambda: bound_full_metric(OBSERVED, 3417, None, "recall@10",
                                             evaluator="sasrec")) == once
    frame = pd.DataFrame({"user": range(ranks.size), "position": ranks,
                          "n_nonrelevant": N - 1, "n_negatives": 100})
    assert counted(lambda: correct_positions(frame, "recall@10", ["recommended"],
                                             evaluator="elliot"))["resolutions"] == 1
    models = _two_models()
    table = dict(metrics=["recall@10"], corrections=["recommended"], n=N, bootstrap=100,
                 level=0.5)
    for call in (lambda: estimate(ranks, N, None, "recall@10", ["mes"], evaluator="elliot",
                                  **SMALL),
                 lambda: compare_ranks(models, N, None, ["recall@10"], ["sampled"],
                                       evaluator="elliot", bootstrap=50, plugin=None),
                 lambda: results_table(models, evaluator="elliot", **table)):
        assert counted(call) == once
    # a design already resolved is taken as it is
    design = resolve_evaluator("elliot", long=False)
    assert counted(lambda: results_table(models, evaluator=design, **table)) == {
        "resolutions": 0, "lookups": 0}
    # the long format: each file's evaluator column is read (one look-up per file), then
    # the evaluator is resolved once with it
    frames = {k: frame.assign(evaluator="elliot") for k in "AB"}
    assert counted(lambda: results_table(frames, evaluator="Elliot", **{
        k: v for k, v in table.items() if k != "n"})) == {"resolutions": 1, "lookups": 3}


@pytest.fixture
def rank_files(tmp_path):
    """Two plain rank files of Elliot-like draws (m = 100, distinct) and their long
    format with Elliot named in an evaluator column."""
    paths = {}
    for key, seed, p in (("a", 1, 0.02), ("b", 2, 0.005)):
        ranks = _ranks(seed=seed, p=p)
        paths[key] = tmp_path / f"{key}.txt"
        np.savetxt(paths[key], ranks, fmt="%d")
        paths[f"{key}_long"] = tmp_path / f"{key}_long.csv"
        pd.DataFrame({"user": range(ranks.size), "position": ranks, "n_nonrelevant": N - 1,
                      "n_negatives": 100, "evaluator": "elliot"}).to_csv(paths[f"{key}_long"],
                                                                         index=False)
    return {k: str(v) for k, v in paths.items()}


COMMANDS = {
    "correct": "correct --ranks {a} --n 801 --evaluator Elliot --method recommended,cls "
               "--bootstrap 50",
    "estimate": "estimate --ranks {a} --n 801 --evaluator Elliot --method mle --bootstrap 0 "
                "--processes 1",
    "compare": "compare {a} {b} --n 801 --evaluator Elliot --method cls --bootstrap 100",
    "bound": f"bound --n 3417 --observed {OBSERVED} --evaluator SASRec",
    "correct long": "correct --ranks {a_long} --evaluator Elliot --method recommended",
    "correct long, the column's evaluator": "correct --ranks {a_long} --method recommended",
    "compare long": "compare {a_long} {b_long} --evaluator Elliot --method cls "
                    "--bootstrap 100",
    "compare long, the column's evaluator": "compare {a_long} {b_long} --method cls "
                                            "--bootstrap 100",
    "table": "table {a} {b} --n 801 --evaluator Elliot --method recommended --bootstrap 100 "
             "--level 0.5 --processes 1",
    "table long": "table {a_long} {b_long} --evaluator Elliot --method recommended "
                  "--bootstrap 100 --level 0.5 --processes 1",
    "table long, the column's evaluator": "table {a_long} {b_long} --method recommended "
                                          "--bootstrap 100 --level 0.5 --processes 1",
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_resolves_the_evaluator_once(counted, rank_files, capsys, command):
    argv = COMMANDS[command].format(**rank_files).split()
    ran = []
    found = counted(lambda: ran.append(run_cli(capsys, *argv)))
    code, _, err = ran[0]
    assert code == 0, err
    assert found["resolutions"] == 1, found
    # the long format: reading each file's evaluator column looks its name up (one per
    # file); the evaluator given is then held against it by the one resolution
    read = argv.count(rank_files["a_long"]) + argv.count(rank_files["b_long"])
    assert found["lookups"] == 1 + read, found
