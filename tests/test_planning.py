import numpy as np
import pytest

from sampled_metrics.cli import main
from sampled_metrics.corrections.planning import bias_at, required_sample_size


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
                 "--method", "sampled", "--sampling", "hypergeometric", "--format", "csv"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("metric,correction,m_needed") and out[1].startswith("ndcg@10,sampled,")
    ranks = tmp_path / "r.txt"
    ranks.write_text("\n".join(str(x) for x in [1, 2, 5, 30, 51, 3, 1, 10] * 20))
    assert main(["estimate", "--ranks", str(ranks), "--n", "1000", "--m", "50",
                 "--metric", "recall@10", "--method", "mle,mes,bv_0.1", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and all(0 <= float(x.split(",")[2]) <= 1.0 + 1e-9 for x in lines[1:])
    ranks.write_text("1\n60\n")
    assert main(["estimate", "--ranks", str(ranks), "--n", "1000", "--m", "50"]) == 2
    assert "outside 1..m+1" in capsys.readouterr().err
    assert main(["plan", "--n", "10", "--target-bias", "-1"]) == 2
    assert "target bias" in capsys.readouterr().err


@pytest.mark.parametrize("law", ["binomial", "hypergeometric"])
@pytest.mark.parametrize("name", ["sampled", "bv_0.1", "cls", "rank_estimate"])
def test_bias_is_its_definition(law, name):
    """bias_at (narrow blocks, banded pmf rows) against the definition with full pmf rows
    and the default correction vector, under the uniform prior and a peaked one."""
    from sampled_metrics import correction
    from sampled_metrics.metrics import parse_metric
    from sampled_metrics.sampling import rank_pmf
    n, m = 600, 450
    r = np.arange(1, n + 1)
    diff = rank_pmf(r, n, m, law) @ correction("ndcg@10", n, m, name, sampling=law) \
        - parse_metric("ndcg@10")(r, n)
    prior = np.exp(-r / 40.0)
    prior /= prior.sum()
    for p in (np.full(n, 1 / n), prior):
        rms = bias_at("ndcg@10", n, m, name, law, prior=p)
        mean = bias_at("ndcg@10", n, m, name, law, prior=p, criterion="mean")
        assert rms == pytest.approx(np.sqrt(p @ diff ** 2), rel=1e-9, abs=1e-13)
        assert mean == pytest.approx(abs(p @ diff), rel=1e-7, abs=1e-13)


def test_plan_scans_the_grid_only_up_to_the_target():
    """The grid is evaluated upwards to its first m below the target, then bisected below
    it; beyond it only max_m is evaluated (for bias_at_max_m). Each reported bias is
    bias_at's, and m - 1 misses the target (bisection to one item below m = 100)."""
    n, target = 900, 0.02
    seen = {}
    plan = required_sample_size("ndcg@10", n, target, "bv_0.1",
                                callback=lambda m, b: seen.setdefault(m, b))
    grid = sorted({int(x) for x in np.round(np.geomspace(1, n - 1, 16))})
    first_below = next(m for m in grid if seen.get(m, np.inf) <= target)
    assert [m for m in grid if m in seen] == grid[:grid.index(first_below) + 1] + [n - 1]
    assert all(seen[m] > target for m in grid[:grid.index(first_below)])
    assert plan.m <= first_below and plan.bias == seen[plan.m] <= target
    assert plan.bias_at_max_m == seen[n - 1] == bias_at("ndcg@10", n, n - 1, "bv_0.1")
    assert plan.m < 100 and bias_at("ndcg@10", n, plan.m - 1, "bv_0.1") > target
