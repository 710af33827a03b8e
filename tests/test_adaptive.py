import numpy as np
import pytest

from sampled_metrics.estimators.adaptive import adaptive_law, adaptive_mle, draw_adaptive
from sampled_metrics.estimators import metric_from_distribution
from sampled_metrics.metrics import parse_metric

N, SIZES = 400, (10, 20, 40, 80)


@pytest.mark.parametrize("sampling", ["binomial", "hypergeometric"])
def test_adaptive_law_sums_to_one_and_matches_draws(sampling):
    law = adaptive_law([1, 2, 7, 60, 399, 400], N, SIZES, sampling)
    assert np.allclose(law.sum(axis=(1, 2)), 1.0, atol=1e-12)
    assert np.all(law[:, :-1, 0] == 0)                       # c = 0 only at the last stage
    assert law[0, -1, 0] == pytest.approx(1.0)               # rank 1: always at the top
    # Monte Carlo: the frequency of every outcome within 4 SE of the law (r = 7)
    draws = 200_000
    stage, count = draw_adaptive(np.full(draws, 7), N, SIZES, sampling, rng=1)
    freq = np.zeros(law.shape[1:])
    np.add.at(freq, (stage, count), 1.0 / draws)
    p = law[2]
    se = np.sqrt(p * (1 - p) / draws)
    assert np.all(np.abs(freq - p) <= 4 * se + 1e-12)


def test_without_replacement_law_at_last_stage_is_hypergeometric_top():
    """Stopping at s_K with c = 0 means the held-out item beat all s_K items drawn without
    replacement: C(n - r, s_K) / C(n - 1, s_K)."""
    from scipy import stats
    law = adaptive_law([5], N, SIZES, "hypergeometric")
    assert law[0, -1, 0] == pytest.approx(stats.hypergeom.pmf(0, N - 1, 4, SIZES[-1]), rel=1e-9)


def test_em_over_per_user_sizes_recovers_known_rank_distribution():
    """Users with true ranks from P(r) ~ r^-1.1 (n = 400); from 20,000 adaptive outcomes the
    EM estimate gives Recall@1, Recall@5, NDCG@10, AP within 0.02 of the truth."""
    p = 1.0 / np.arange(1, N + 1) ** 1.1
    p /= p.sum()
    rng = np.random.default_rng(0)
    r = rng.choice(N, size=20_000, p=p) + 1
    stage, count = draw_adaptive(r, N, SIZES, "binomial", rng)
    pi, info = adaptive_mle(stage, count, N, SIZES)
    # exact: SQUAREM keeps a step only if it gains, so its trace never decreases
    assert info["converged"] and np.all(np.diff(info["loglik"]) >= 0)
    assert pi.sum() == pytest.approx(1.0) and np.all(pi >= 0)
    for metric in ("recall@1", "recall@5", "ndcg@10", "ap"):
        truth = parse_metric(metric)(r).mean()
        assert abs(metric_from_distribution(metric, pi) - truth) < 0.02, metric


@pytest.mark.parametrize("args, message", [
    (dict(sizes=(20, 10)), "strictly increasing"),
    (dict(sizes=(10, 400)), "need n > m"),
    (dict(sizes=()), "non-empty"),
])
def test_adaptive_bad_sizes(args, message):
    with pytest.raises(ValueError, match=message):
        draw_adaptive([1, 2], N, **args)


def test_adaptive_mle_bad_outcomes():
    with pytest.raises(ValueError, match="count 0 before the last stage"):
        adaptive_mle([0, 3], [0, 2], N, SIZES)
    with pytest.raises(ValueError, match="count must lie in"):
        adaptive_mle([0], [11], N, SIZES)
    with pytest.raises(ValueError, match="stage must lie in"):
        adaptive_mle([4], [1], N, SIZES)
