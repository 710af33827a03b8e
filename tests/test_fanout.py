"""The workflow's fan-out plan (sampled_metrics.workflow.configuration.fanout) on a small config: which rank files
(dataset, recommender, m) exist, which corrections and figures read them, which fits a model
seed adds; and on the shipped test config, the plan the end-to-end run checks."""
import pytest
from conftest import ROOT
from snakemake.utils import update_config

from sampled_metrics.workflow.configuration.fanout import FanOut

#: Two datasets, a view of the first, a study of A and C, Jin et al. on A, B and C with
#: Figure 1 of B and Figure 3 of A, model seeds, a practice study of a fourth recommender.
SMALL = {
    "seed": 1,
    "datasets": {"d1": {"format": "synthetic", "n_items": 400},
                 "d2": {"format": "synthetic", "n_items": 200}},
    "recommenders": {"A": {"model": "ials", "seed": 0}, "B": {"model": "ease"},
                     "C": {"model": "itemknn", "q": 1.0}, "D": {"model": "itemknn"}},
    "study": {"datasets": ["d1", "d2"], "recommenders": ["A", "C"], "m": 50, "repeats": 10,
              "sampling": "hypergeometric", "metrics": ["auc"], "corrections": ["cls"],
              "model_seeds": [0, 1, 2]},
    "jin": {"enabled": True, "recommenders": ["A", "B", "C"], "m": 49,
            "metrics": ["recall@10"], "corrections": ["bv_0.1"],
            "figure1": {"recommender": "B"},
            "figure3": {"recommender": "A", "m_values": [49, 99]}},
    "dataset_protocols": {"d1-all": {"of": "d1", "candidates": "all", "sampling": "binomial"},
                          "d2": {"sampling": "binomial"}},
    "practice": {"enabled": False, "datasets": ["d2"], "recommenders": ["C", "D"]},
}


@pytest.fixture
def plan():
    return FanOut(SMALL)


def test_rank_files_are_the_dataset_recommender_m_jobs(plan):
    """Study datasets first (the study's recommenders at study.m; Jin's at jin.m; Figure 3's
    recommender also at its m), then the view (Jin's m only: no Figure 3 on a view)."""
    assert [(d, r, list(sizes)) for d, r, sizes in plan.rank_files()] == [
        ("d1", "A", [49, 50, 99]), ("d1", "C", [49, 50]), ("d1", "B", [49]),
        ("d2", "A", [49, 50, 99]), ("d2", "C", [49, 50]), ("d2", "B", [49]),
        ("d1-all", "A", [49]), ("d1-all", "C", [49]), ("d1-all", "B", [49]),
    ]
    assert {r for _, _, sizes in plan.rank_files() for r in sizes.values()} == {10}
    assert plan.all_sample_sizes() == [49, 50, 99]
    # the practice study's own recommender has no rank file
    assert plan.sample_sizes("D") == {} and "D" in plan.all_recommenders()


def test_sample_sizes_per_dataset_and_seed(plan):
    assert plan.sample_sizes("A") == {49: 10, 50: 10, 99: 10}
    assert plan.sample_sizes("B", "d1") == {49: 10}
    assert plan.sample_sizes("A", "d1-all") == {49: 10}
    assert plan.sample_sizes("A", "nowhere") == {}
    assert plan.sample_sizes("A", "d1", seed=2) == {50: 10}        # a seed's fit: Table 3's m


def test_jin_datasets_default_to_the_study_and_its_views(plan):
    assert plan.jin_datasets() == ["d1", "d1-all", "d2"]
    assert FanOut({**SMALL, "jin": {**SMALL["jin"], "datasets": ["d1-all"]}}).jin_datasets() \
        == ["d1-all"]
    off = FanOut({**SMALL, "jin": {**SMALL["jin"], "enabled": False}})
    assert off.jin_datasets() == [] and off.jin == {}
    assert [(d, r, list(s)) for d, r, s in off.rank_files()] == [
        ("d1", "A", [50]), ("d1", "C", [50]), ("d2", "A", [50]), ("d2", "C", [50])]


def test_only_jins_own_datasets_get_jins_m():
    """jin.datasets naming only the view: the study datasets are ranked at study.m alone."""
    plan = FanOut({**SMALL, "jin": {**SMALL["jin"], "datasets": ["d1-all"]}})
    assert [(d, r, list(s)) for d, r, s in plan.rank_files()] == [
        ("d1", "A", [50]), ("d1", "C", [50]), ("d2", "A", [50]), ("d2", "C", [50]),
        ("d1-all", "A", [49]), ("d1-all", "C", [49]), ("d1-all", "B", [49])]


def test_views_and_dataset_protocols(plan):
    assert plan.views() == ["d1-all"] and plan.views_of("d1") == ["d1-all"]
    assert plan.is_view("d1-all") and not plan.is_view("d2") and not plan.is_view(None)
    assert plan.base_of("d1-all") == "d1" and plan.base_of("d2") == "d2"
    assert plan.dataset_names() == ["d1", "d2", "d1-all"]
    assert plan.fitted_datasets() == ["d1", "d2"]
    assert plan.dataset_protocol("d1") == {"candidates": "unseen", "sampling": "hypergeometric"}
    assert plan.dataset_protocol("d1-all") == {"candidates": "all", "sampling": "binomial"}
    assert plan.dataset_protocol("d2") == {"candidates": "unseen", "sampling": "binomial"}
    assert plan.used_datasets() == ["d1", "d2"]
    assert plan.dataset_spec("d2") == {"format": "synthetic", "n_items": 200}
    assert plan.recommender_spec("B") == {"model": "ease"}


def test_corrections_and_figures(plan):
    assert plan.correction_plan(50) == {"recommenders": ["A", "C"], "metrics": ["auc"],
                                        "corrections": ["cls"]}
    assert plan.correction_plan(49) == {"recommenders": ["A", "B", "C"],
                                        "metrics": ["recall@10"], "corrections": ["bv_0.1"]}
    assert plan.correction_plan(99) == {"recommenders": [], "metrics": [], "corrections": []}
    assert plan.correction_plan(49, "d1-all") == plan.correction_plan(49)
    # study.m == jin.m: one corrections job of a study dataset reads the union; a view,
    # which only Jin's tables read, the Jin branch alone (its rank files hold only Jin's
    # recommenders)
    same = FanOut({**SMALL, "jin": {**SMALL["jin"], "m": 50}})
    assert same.correction_plan(50, "d1") == {"recommenders": ["A", "C", "B"],
                                              "metrics": ["auc", "recall@10"],
                                              "corrections": ["cls", "bv_0.1"]}
    jin_only = FanOut({**SMALL, "jin": {**SMALL["jin"], "m": 50, "recommenders": ["B"]}})
    assert jin_only.correction_plan(50, "d1-all") == {"recommenders": ["B"],
                                                      "metrics": ["recall@10"],
                                                      "corrections": ["bv_0.1"]}
    assert {r for d, r, _ in jin_only.rank_files() if d == "d1-all"} == {"B"}
    assert plan.jin_figures() == [1, 2, 3] and plan.jin_figures("d1-all") == [1, 2]
    assert plan.jin_figure_panels(1) == {"B": ("B", 49)}
    assert plan.jin_figure_panels(2) == {"A": ("A", 49), "B": ("B", 49), "C": ("C", 49)}
    assert plan.jin_figure_panels(3) == {"n = 50": ("A", 49), "n = 100": ("A", 99)}
    no_figure1 = {k: v for k, v in SMALL["jin"].items() if k != "figure1"}
    assert FanOut({**SMALL, "jin": no_figure1}).jin_figures() == [2, 3]


def test_recommenders_and_model_seeds(plan):
    assert plan.ranked_recommenders() == ["A", "C", "B"]
    assert plan.all_recommenders() == ["A", "C", "B", "D"]
    assert plan.own_seed("A") == 0 and plan.own_seed("C") is None
    assert plan.seeded_recommenders() == ["A"]
    assert plan.model_seeds() == [0, 1, 2]
    assert plan.seed_plan() == [("A", 0), ("A", 1), ("A", 2), ("C", None)]
    assert FanOut({**SMALL, "study": {**SMALL["study"], "model_seeds": [None]}}).model_seeds() \
        == []


def test_paper_figures_are_copied_from_ml1m_only():
    """figures/figure5.pdf and the others are copies of ml-1m's (an entry of that name and
    format): made when the study (Figures 5-6) or Jin's tables (theirs) run it, and from no
    other dataset, first in the study or not."""
    ml1m = {"format": "ml-1m", "md5": "0" * 32, "path": "x.zip"}
    both = {**SMALL, "datasets": {**SMALL["datasets"], "ml-1m": ml1m},
            "study": {**SMALL["study"], "datasets": ["d1", "ml-1m"]}}
    assert FanOut(both).paper_figures() == ["figure5", "figure6", "jin_figure1",
                                            "jin_figure2", "jin_figure3"]
    assert FanOut(SMALL).paper_figures() == []
    no_jin = {**both, "jin": {**SMALL["jin"], "datasets": ["d1"]}}
    assert FanOut(no_jin).paper_figures() == ["figure5", "figure6"]
    renamed = {**both, "datasets": {**both["datasets"], "ml-1m": {"format": "synthetic"}}}
    assert FanOut(renamed).paper_figures() == []
    assert FanOut({"study": {"datasets": []}}).paper_figures() == []


def test_split_options_name_the_largest_m_drawn_among_unseen_items(plan):
    """The split checks each user's candidates against the largest m of the dataset's rank
    files drawn among unseen items (not a view's over all items), named by its config key."""
    assert plan.split_options("d1") == {"m": 99, "m_key": "jin.figure3.m_values[1]",
                                        "drop_few_candidates": False,
                                        "drop_key": "study.drop_users_with_few_candidates"}
    study_only = FanOut({**SMALL, "jin": {"enabled": False}})
    assert study_only.split_options("d2")["m"] == 50
    assert study_only.split_options("d2")["m_key"] == "study.m"
    assert study_only.split_options("elsewhere")["m"] is None
    drop = FanOut({**SMALL, "study": {**SMALL["study"], "drop_users_with_few_candidates": True}})
    assert drop.split_options("d1")["drop_few_candidates"] is True
    fixed = FanOut({**SMALL, "study": {**SMALL["study"], "fixed_negatives": True}})
    assert fixed.split_options("d1")["m"] is None


def _test_config() -> dict:
    from sampled_metrics.workflow.configuration.check import load_yaml_strict
    config = load_yaml_strict(ROOT / "config" / "config.yaml")
    update_config(config, load_yaml_strict(ROOT / "config" / "test.yaml"))
    return config


def test_shipped_test_config():
    """config/test.yaml over config/config.yaml: the rank files the end-to-end test reads
    (test_workflow.test_each_model_is_fitted_once)."""
    plan = FanOut(_test_config())
    files = {(d, r): list(sizes) for d, r, sizes in plan.rank_files()}
    for d in ("synthetic", "synthetic-small"):
        assert {r: files[(d, r)] for r in ("X", "Y", "Z", "EASE")} == {
            "X": [49, 50, 99], "Y": [49, 50], "Z": [49, 50], "EASE": [49, 50]}
    assert {r: files[("synthetic-all", r)] for r in ("X", "Y", "Z", "EASE")} == {
        r: [49] for r in ("X", "Y", "Z", "EASE")}
    assert len(files) == 12
    assert plan.users_per_shard == 1024
    assert plan.toy["n"] == 10000
    assert FanOut({"toy": {"enabled": False, "n": 10}}).toy == {}
    assert plan.seed_plan() == [("X", 0), ("X", 1), ("X", 2), ("Y", None), ("Z", None)]


def test_configcheck_checks_the_m_of_the_planned_rank_files():
    """The config check walks FanOut.rank_files: an m no job samples on a dataset passes, an m a
    job samples on a dataset only Jin's tables read is refused at snakemake -n."""
    from sampled_metrics.workflow.configuration.check import ConfigError, check_config
    schema = ROOT / "workflow" / "schemas" / "config.schema.yaml"
    config = _test_config()
    # Jin on synthetic (400 items) only: m = 200 and 300 are never drawn on synthetic-small
    # (160 items), whose rank files hold study.m alone
    config["jin"].update(datasets=["synthetic"], m=200,
                         figure3={**config["jin"]["figure3"], "m_values": [200, 300]})
    check_config(config, schema)
    assert FanOut(config).sample_sizes("X", "synthetic-small") == {50: 10}
    # a dataset of Jin's alone, of 90 items: Figure 3's m = 99 is refused there
    config = _test_config()
    config["datasets"]["extra"] = {"format": "synthetic", "n_users": 300, "n_items": 90,
                                   "seed": 3}
    config["jin"]["datasets"] = ["synthetic", "extra"]
    with pytest.raises(ConfigError, match=r"config key jin.figure3.m_values\[1\]: m = 99 "
                                          r"sampled items, but dataset 'extra' has only "
                                          r"n_items = 90"):
        check_config(config, schema)


@pytest.mark.parametrize("dataset", ["ml-20m", "ml-20m-synthetic"])
def test_the_ml20m_configs_fit_no_neural_model_unless_asked(dataset):
    """At ML-20M's size NeuMF and MultiVAE take hours of CPU: its configs leave them out of
    every table and figure (each names them as opt-in), so no job fits them."""
    from sampled_metrics.workflow.configuration.check import load_yaml_strict
    config = load_yaml_strict(ROOT / "config" / "config.yaml")
    update_config(config, load_yaml_strict(ROOT / "config" / "datasets" / f"{dataset}.yaml"))
    plan = FanOut(config)
    assert set(plan.all_recommenders()) == {"X", "Y", "Z", "EASE"}
    assert plan.table_recommenders() == ["X", "Y", "Z", "EASE"]
