import numpy as np
import pandas as pd
import pytest
from conftest import toy_rank_file

from sampled_metrics.workflow.steps.adaptive_study import equal_budget
from sampled_metrics.workflow.steps.compare_study import validation

N, M = 600, 20


@pytest.fixture()
def rank_paths(tmp_path):
    rng = np.random.default_rng(2)
    users, paths = 800, {}
    for name, q in (("A", 0.03), ("B", 0.01)):
        r = np.minimum(1 + rng.geometric(q, users), N)
        f = toy_rank_file(r, N, M, rng, repeats=3, sampling="hypergeometric", dataset="toy",
                          recommender=name)
        paths[name] = f.write(tmp_path / f"{name}.npz")
    return paths


def test_validation_writes_counts_that_add_up(rank_paths, tmp_path):
    summary = validation(rank_paths, M, ["recall@10", "auc"], ["sampled", "cls", "mes"],
                         tmp_path / "val", bootstrap=100)
    assert (summary[["a_better", "b_better", "not_distinguishable"]].sum(axis=1) == 3).all()
    per_repeat = pd.read_csv(tmp_path / "val_per_repeat.csv")
    assert len(per_repeat) == 3 * 2 * 3
    assert "| A vs B | recall@10 |" in (tmp_path / "val.md").read_text()
    # AUC is unbiased under sampling: A's clearly higher AUC is never called wrong
    assert summary[summary.metric == "auc"].wrong.sum() == 0


def test_equal_budget_reports_every_method_at_the_adaptive_budget(rank_paths, tmp_path):
    summary = equal_budget(rank_paths, [10, 20, 40], 2, ["recall@10"], tmp_path / "eb")
    assert set(summary.method) == {"adaptive_mle", "sampled", "cls", "bv_0.1", "mle", "mes",
                                   "mn"}
    per_repeat = pd.read_csv(tmp_path / "eb_per_repeat.csv")
    budget = per_repeat[per_repeat.method == "adaptive_mle"].items_per_user
    fixed = per_repeat[per_repeat.method == "cls"].items_per_user
    assert np.all(np.abs(budget.values - fixed.values) <= 0.5) and np.all(budget > 10)
    exact = summary.exact.iloc[0]
    assert exact == pytest.approx(np.mean(np.load(rank_paths["A"])["exact"] <= 10))
