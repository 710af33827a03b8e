"""``estimate`` runs every estimator's estimate and bootstrap batches in one pool of processes
(``estimate_each``): the same bits as each estimator on its own, whatever the processes."""
import numpy as np
from threadpoolctl import threadpool_limits

from sampled_metrics.estimators import estimate_batches, estimate_from_histogram
from sampled_metrics.estimators.dispatch import BATCH_HISTOGRAMS, estimate_each
from sampled_metrics.estimators.histogram import sampled_rank_histogram
from sampled_metrics.estimators.table import estimate
from sampled_metrics.resampling import bootstrap_histograms
from sampled_metrics.sampling import draw_sampled_ranks


def _ranks(n, m, users, seed):
    rng = np.random.default_rng(seed)
    return draw_sampled_ranks(rng.geometric(0.02, users).clip(1, n), n, m, rng=rng)


def test_one_pool_gives_each_estimator_its_own_bits():
    n, m = 400, 19
    ranks = _ranks(n, m, 300, 0)
    hist = sampled_rank_histogram(ranks, m)
    boot = bootstrap_histograms(ranks, m, BATCH_HISTOGRAMS + 7, 0)   # two batches, unequal
    estimators = {"mle": {}, "wmle": {"C": 5}, "mes": {"eta": 0.01}, "bv_0.1": {}}
    for processes in (1, 2):
        found = estimate_each(boot, n, m, estimators, processes=processes, first=hist)
        for (name, options), got in zip(estimators.items(), found):
            with threadpool_limits(1):
                point = estimate_from_histogram(hist, n, m, name, **options)
            alone = estimate_batches(boot, n, m, name, processes=1, **options)
            assert got.shape == (1 + len(boot), n)
            assert np.array_equal(got[0], point), (name, processes)
            assert np.array_equal(got[1:], alone), (name, processes)
    assert [f.shape for f in estimate_each([], n, m, estimators, first=hist)] == [(1, n)] * 4
    assert [f.shape for f in estimate_each(boot[:3], n, m, {"mle": {}})] == [(3, n)]


def test_the_table_reads_the_estimate_and_its_draws():
    """Each row's value is the metric of the estimator's own estimate, and the table is the
    same with one process or two."""
    n, m = 400, 19
    ranks = _ranks(n, m, 300, 1)
    tables = [estimate(ranks, n, m, "recall@10,ap", ["mle", "bv_0.1"], bootstrap=40, seed=3,
                       processes=p) for p in (1, 2)]
    assert tables[0].equals(tables[1])
    with threadpool_limits(1):
        point = estimate_from_histogram(sampled_rank_histogram(ranks, m), n, m, "mle")
    recall = tables[0].set_index(["metric", "estimator"]).loc[("recall@10", "mle")]
    # a length-n dot product against a 10-term sum of terms summing to <= 1: n eps apart
    assert abs(recall["value"] - point[:10].sum()) <= n * np.finfo(float).eps
