import numpy as np
import pytest

from sampled_metrics.cli import main
from sampled_metrics.planning import bias_at, required_sample_size


def test_bv_is_mean_unbiased_under_its_own_prior():
    # 1^T ((1-g) G + g diag c) = c^T, so c^T M^ = sum_r p(r) M(r): zero mean bias
    for g in ("bv_1", "bv_0.1", "bv_0.01"):
        assert bias_at("ndcg@10", 500, 20, g, criterion="mean") < 1e-12


def test_exact_when_sampling_all_items_without_replacement():
    assert bias_at("recall@10", 300, 299, "sampled", "hypergeometric") < 1e-12
    assert bias_at("recall@10", 300, 299, "sampled", "binomial") > 1e-3


def test_required_sample_size_is_tight():
    n, target = 400, 0.02
    plan = required_sample_size("ndcg@10", n, target, "sampled", "hypergeometric")
    assert plan.m is not None and plan.bias <= target
    assert bias_at("ndcg@10", n, plan.m - 1, "sampled", "hypergeometric") > target
    rms = [bias_at("recall@10", n, m) for m in (5, 20, 80, 320)]
    assert all(a > b for a, b in zip(rms, rms[1:]))


def test_unreachable_target_reports_none():
    plan = required_sample_size("recall@10", 200, 1e-6, "sampled", "binomial")
    assert plan.m is None and plan.bias_at_max_m > 1e-6


def test_prior_changes_the_answer():
    n = 300
    prior = np.zeros(n)
    prior[:30] = 1 / 30                       # a good recommender: ranks in the top 30
    top = bias_at("recall@10", n, 50, prior=prior, criterion="mean")
    uniform = bias_at("recall@10", n, 50, criterion="mean")
    assert top > uniform


def test_cli_plan_and_estimate(tmp_path, capsys):
    assert main(["plan", "--n", "300", "--metric", "ndcg@10", "--target-bias", "0.02",
                 "--correction", "sampled", "--sampling", "hypergeometric", "--format", "csv"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("metric,correction,m_needed") and out[1].startswith("ndcg@10,sampled,")
    ranks = tmp_path / "r.txt"
    ranks.write_text("\n".join(str(x) for x in [1, 2, 5, 30, 51, 3, 1, 10] * 20))
    assert main(["estimate", "--ranks", str(ranks), "--n", "1000", "--m", "50",
                 "--metric", "recall@10", "--estimator", "mle,mes,bv_0.1", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and all(0 <= float(x.split(",")[2]) <= 1.0 + 1e-9 for x in lines[1:])
    ranks.write_text("1\n60\n")
    assert main(["estimate", "--ranks", str(ranks), "--n", "1000", "--m", "50"]) == 2
    assert "outside 1..m+1" in capsys.readouterr().err
    assert main(["plan", "--n", "10", "--target-bias", "-1"]) == 2
    assert "target bias" in capsys.readouterr().err
