"""One registry mechanism: every named set a user types is resolved by
``sampled_metrics.registry`` (a ``Registry``, or its ``resolve_name`` for a set kept as a
tuple or a dict): stripped, in any case, ``-`` and ``_`` alike, to the canonical name the
library stores and writes; an unknown name gets one message, ``unknown <what> <name as
written>; expected one of <the names>``. And no other module writes that message by hand."""
import ast
import re

import numpy as np
import pytest
from conftest import ROOT

from sampled_metrics.datasets import FORMATS
from sampled_metrics.evaluation.policies import CANDIDATES, TIE_POLICIES
from sampled_metrics.evaluators import EVALUATORS
from sampled_metrics.registry import (COMPARE_METHODS, CORRECT_METHODS, CORRECTIONS, ESTIMATORS,
                                      SAMPLING_LAWS, Registry, resolve_name, unknown_name)
from sampled_metrics.metrics import parse_metrics
from sampled_metrics.sampling import draw_sampled_ranks, rank_pmf

PACKAGE = ROOT / "src" / "sampled_metrics"
#: a message that lists names (in a string of the code, not of a docstring)
LISTED = re.compile(r"expected one of|must be one of")
#: the modules whose code still writes such a message, and why
HAND_WRITTEN = {
    "registry.py": "unknown_name, the one message of every registry",
    "recommenders/dense_kernels.py": "a numpy dtype, spelt as numpy spells it",
    "workflow/configuration/check.py": "a config key's enumeration, in the config check's "
                                       "format ('config key <key>: expected one of ...')",
}

#: every Registry, by the name it is imported as
REGISTRIES = {"CORRECTIONS": CORRECTIONS, "ESTIMATORS": ESTIMATORS,
              "COMPARE_METHODS": COMPARE_METHODS, "CORRECT_METHODS": CORRECT_METHODS,
              "SAMPLING_LAWS": SAMPLING_LAWS, "EVALUATORS": EVALUATORS,
              "TIE_POLICIES": TIE_POLICIES, "CANDIDATES": CANDIDATES,
              "FORMATS": FORMATS}


def _spellings(name: str) -> list[str]:
    """Other ways a user may write ``name``: capitals, spaces around it, '-' for '_'."""
    return [name.upper(), f"  {name.title()} ", name.replace("_", "-"), name.replace("-", "_")]


@pytest.mark.parametrize("label", REGISTRIES)
def test_every_registry_resolves_any_case_to_its_canonical_name(label):
    registry = REGISTRIES[label]
    assert isinstance(registry, Registry) and len(registry) >= 2
    for name, entry in registry.items():
        assert entry.name == name
        for text in [name, *_spellings(name)]:
            assert registry.resolve(text) == (name, None), (label, text)
            assert registry.canonical(text) == name, (label, text)
    for alias, name in registry.aliases().items():
        for text in [alias, *_spellings(alias)]:
            assert registry.canonical(text) == name, (label, text)


@pytest.mark.parametrize("label", REGISTRIES)
@pytest.mark.parametrize("text", ["no-such Name", None, ["x"], 3, ""])
def test_every_registry_refuses_an_unknown_name_in_one_format(label, text):
    registry = REGISTRIES[label]
    with pytest.raises(ValueError) as err:
        registry.resolve(text)
    assert str(err.value) == (f"unknown {registry.kind} {text!r}; expected one of "
                              f"{registry.choices()}")
    assert "\n" not in str(err.value)


def _resolvers():
    """(what, a function of a name of the set, its names): the sets kept as a tuple or a
    dict and read through resolve_name. The function gives the same for every spelling of a
    name (None: it cannot run here, only its refusal is checked)."""
    from sampled_metrics.bounds import bound_full_metric
    from sampled_metrics.compare.paired import compare_ranks
    from sampled_metrics.registry import PAIRINGS
    from sampled_metrics.corrections.lookup import N_MODES, n_for_users
    from sampled_metrics.corrections.planning import CRITERIA, bias_at
    from sampled_metrics.datasets import LAYOUTS, get_format, read_movielens
    from sampled_metrics.estimators.entropy import mes
    from sampled_metrics.estimators.likelihood import (MLE_SOLVERS, WEIGHT_KINDS,
                                                       WMLE_READINGS, check_reading,
                                                       check_solver, weight_function)
    from sampled_metrics.intervals.atoms import SHAPES, check_shape
    from sampled_metrics.multipositive.laws import PROTOCOLS, check_protocol
    from sampled_metrics.recommenders import (KINDS, PAPER_RECOMMENDERS, ItemKNN,
                                              paper_recommender, recommender_class)
    from sampled_metrics.recommenders.ease import INVERSES, check_inverse
    hist = np.array([5.0, 3, 2, 1, 1, 1])
    return [
        ("dataset format", get_format, list(FORMATS)),
        ("recommender kind", recommender_class, list(KINDS)),
        ("paper recommender", lambda x: repr(paper_recommender(x)), list(PAPER_RECOMMENDERS)),
        ("MovieLens format", None, list(LAYOUTS), lambda x: read_movielens("no.zip", x)),
        ("shape", check_shape, list(SHAPES)),
        ("shape", lambda x: bound_full_metric("hr@10=0.5", 200, 20, "recall@10", shape=x),
         ["none", "non-increasing"]),
        ("protocol", check_protocol, list(PROTOCOLS)),
        ("pairing", lambda x: compare_ranks({"A": [1, 2, 3, 4] * 10, "B": [2, 1, 4, 3] * 10}, 50,
                                            4, ["recall@2"], ["sampled"], pairing=x,
                                            bootstrap=40, plugin=None).values.tolist(),
         list(PAIRINGS)),
        ("n_mode", lambda x: n_for_users([5, 7], x, 9).tolist(), list(N_MODES)),
        ("bias criterion", lambda x: bias_at("recall@10", 60, 10, criterion=x), list(CRITERIA)),
        ("WMLE reading", check_reading, list(WMLE_READINGS)),
        ("MLE solver", check_solver, list(MLE_SOLVERS)),
        ("weight kind", lambda x: weight_function(x)(np.arange(1, 6)).tolist(),
         list(WEIGHT_KINDS)),
        ("eta_scaling", lambda x: mes(hist, 40, 5, eta_scaling=x)[0].tolist(),
         ["fixed", "bins"]),
        ("Hessian assembly", lambda x: mes(hist, 40, 5, hessian=x)[0].tolist(),
         ["banded", "dense"]),
        ("ItemKNN norm", lambda x: repr(ItemKNN(norm=x)), ["l2", "l1", "none"]),
        ("ItemKNN diagonal", lambda x: repr(ItemKNN(diagonal=x)), ["auto", "keep", "exclude"]),
        ("EASE inverse", lambda x: check_inverse(x, "EASE inverse"), list(INVERSES)),
    ]


@pytest.mark.parametrize("case", _resolvers(), ids=lambda case: case[0])
def test_every_plain_set_resolves_any_case_and_refuses_in_one_format(case):
    what, resolve, names = case[:3]
    refuse = case[3] if len(case) > 3 else resolve
    for name in names if resolve is not None else ():
        for text in _spellings(name):
            assert resolve(text) == resolve(name), (what, text)
    for text in ("no-such Name", 7):
        with pytest.raises(ValueError) as err:
            refuse(text)
        assert str(err.value) == f"unknown {what} {text!r}; expected one of {', '.join(names)}"


def test_metric_names_resolve_through_the_one_resolver():
    from sampled_metrics.metrics import METRIC_ALIASES, METRIC_KINDS, METRIC_NAMES, Metric
    for kind in [*METRIC_KINDS, *METRIC_ALIASES]:
        for text in [kind, *_spellings(kind)]:
            assert Metric(text, 10 if kind != "auc" else None) == Metric(kind, 10 if kind
                                                                        != "auc" else None)
    for text, shown in (("recal@10", "recal@10"), ("@10", "@10"), ("re-call@10", "re-call@10")):
        with pytest.raises(ValueError) as err:
            Metric(text.split("@")[0], 10) if text[0] != "@" else parse_metrics(text)
        assert str(err.value) == str(unknown_name("metric", shown, METRIC_NAMES))


def test_the_plug_in_estimator_is_refused_in_one_format():
    from sampled_metrics import compare_ranks
    with pytest.raises(ValueError, match="^unknown plug-in estimator 'mle'; expected one of "
                                         "mes, None$"):
        compare_ranks({"A": [1, 2, 3], "B": [2, 1, 3]}, 100, 10, "recall@10", ["sampled"],
                      bootstrap=40, plugin="mle")


def test_a_number_the_name_carries():
    assert CORRECTIONS.resolve(" BV_0.1") == ("bv", 0.1)
    assert ESTIMATORS.resolve("bv-0.01") == ("bv", 0.01)
    assert CORRECT_METHODS.resolve("bv0.5") == ("bv", 0.5)
    with pytest.raises(ValueError, match="^unknown correction 'cls_0.1'; expected one of"):
        CORRECTIONS.resolve("cls_0.1")              # cls carries no number
    with pytest.raises(ValueError, match="^unknown correction 'bv_0.1'; expected one of"):
        CORRECTIONS.canonical("bv_0.1")             # a name alone, without its number


def test_the_listing_is_the_help_texts():
    assert CORRECTIONS.choices() == ("sampled, rank_estimate, minimal_bias, cls, bv_<gamma>, "
                                     "mapping")
    assert CORRECT_METHODS.choices() == "recommended, " + CORRECTIONS.choices()
    assert COMPARE_METHODS.choices() == CORRECTIONS.choices() + ", mn, mle, mes"
    assert SAMPLING_LAWS.choices() == "binomial, hypergeometric"


def test_register_refuses_a_name_taken_in_another_spelling():
    registry = Registry("toy", [])
    registry.register(type("E", (), {"name": "per_user", "aliases": ("pu",)})())
    for name in ("Per-User", "PU"):
        with pytest.raises(ValueError, match=f"^toy {name} is registered already$"):
            registry.register(type("E", (), {"name": name})())


def test_resolve_name_of_a_plain_set():
    names = ("non-increasing", "none")
    assert resolve_name("shape", "Non_Increasing", names) == "non-increasing"
    assert resolve_name("metric", " MAP ", ("ap",), {"map": "ap"}) == "ap"
    with pytest.raises(ValueError) as err:
        resolve_name("shape", "flat", names)
    assert str(err.value) == str(unknown_name("shape", "flat", names)) == (
        "unknown shape 'flat'; expected one of non-increasing, none")
    with pytest.raises(ValueError, match=r"^unknown metric 'x@10'; expected one of ap, ndcg$"):
        resolve_name("metric", "x", ("ap", "ndcg"), shown="x@10")


def test_a_sampling_law_in_capitals_gives_the_same_bits():
    r = np.arange(1, 201)
    for law in SAMPLING_LAWS:
        assert np.array_equal(rank_pmf(r, 200, 20, law.upper()), rank_pmf(r, 200, 20, law))
        assert np.array_equal(draw_sampled_ranks(r, 200, 20, f" {law.title()}", rng=4),
                              draw_sampled_ranks(r, 200, 20, law, rng=4))


def test_the_recommended_answer_is_read_from_the_registry():
    """correct takes the recommended answer by its registry name, in any case, as one row
    beside the corrections; sampled-metrics methods lists it from CORRECT_METHODS."""
    from sampled_metrics.cli.methods import REGISTRIES
    from sampled_metrics.intervals import correct
    rng = np.random.default_rng(2)
    ranks = draw_sampled_ranks(np.clip(rng.geometric(0.02, 400), 1, 500), 500, 50, rng=rng)
    want = correct(ranks, 500, 50, "recall@10", ["recommended", "cls"], bootstrap=40)
    got = correct(ranks, 500, 50, "recall@10", [" Recommended", "CLS"], bootstrap=40)
    assert got.correction.tolist() == ["recommended", "cls"]
    assert got.drop(columns="correction").equals(want.drop(columns="correction"))
    with pytest.raises(ValueError, match="^correction 'RECOMMENDED' is given twice "
                                         r"\(also as 'recommended'\)$"):
        correct(ranks, 500, 50, "recall@10", ["recommended", "RECOMMENDED"], bootstrap=0)
    assert REGISTRIES["correct"] is CORRECT_METHODS


def test_parse_estimator_reads_the_name_from_the_registry():
    from sampled_metrics.estimators import parse_estimator
    assert parse_estimator(" MES ") == ("mes", {})
    assert parse_estimator("BV_0.25") == parse_estimator("bv", gamma=0.25) == ("bv",
                                                                               {"gamma": 0.25})
    assert parse_estimator("WMLE-detilt", reading="detilt") == ("wmle", {"reading": "detilt"})
    for text in ("bv_x", "Foo-x", None):
        with pytest.raises(ValueError) as err:
            parse_estimator(text)
        assert str(err.value) == (f"unknown estimator {text!r}; expected one of mle, wmle, mes, "
                                  f"bv_<gamma>")


def test_a_rank_file_stores_the_canonical_names():
    from sampled_metrics.evaluation.rankfile import RankFile
    ranks = RankFile(users=np.arange(3), exact=np.array([1, 2, 3]), n_u=np.full(3, 9),
                     sampled={2: np.array([[1, 2, 3]])}, n_items=9, sampling=" Binomial",
                     tie="Random-Per-Ranking", seed=0, negatives="UNIFORM")
    assert (ranks.sampling, ranks.tie, ranks.negatives) == ("binomial", "random_per_ranking",
                                                            "uniform")
    with pytest.raises(ValueError, match="^unknown sampler 'drawn'; expected one of uniform, "
                                         "fixed$"):
        RankFile(users=np.arange(1), exact=np.array([1]), n_u=np.array([5]), sampled={},
                 n_items=5, sampling="binomial", tie="random", seed=0, negatives="drawn")


def test_a_tie_policy_in_capitals_gives_the_same_ranks():
    from sampled_metrics.evaluation.engine import ranks_from_counts
    g, e = np.array([0, 3, 5, 2]), np.array([4, 0, 2, 7])
    for tie in TIE_POLICIES:
        assert np.array_equal(ranks_from_counts(g, e, tie.upper(), rng=1),
                              ranks_from_counts(g, e, tie, rng=1))


def test_no_other_module_writes_a_list_of_names_by_hand():
    """The modules that still write 'expected one of' or 'must be one of' themselves are
    those of HAND_WRITTEN; every other list of names comes from the registries."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        lines = sorted({node.lineno for node in ast.walk(tree)
                        if isinstance(node, ast.Constant) and isinstance(node.value, str)
                        and id(node) not in docstrings and LISTED.search(node.value)})
        if lines:
            found[path.relative_to(PACKAGE).as_posix()] = lines
    assert set(found) <= set(HAND_WRITTEN), {k: v for k, v in found.items()
                                             if k not in HAND_WRITTEN}
    assert len(found["registry.py"]) == 1
