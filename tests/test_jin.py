"""Jin et al.'s steps: per-repeat P(R) estimates, their Tables 2 and 4."""
import numpy as np
import pandas as pd
import pytest

from sampled_metrics.estimators import estimate_from_histogram, sampled_rank_histogram
from sampled_metrics.metrics import parse_metric
from sampled_metrics.evaluation.rankfile import RankFile
from sampled_metrics.workflow.steps.jin import estimates_per_repeat, table2_frame, winners_frame


def toy_rank_file(m=9, n=40, users=60, repeats=3):
    rng = np.random.default_rng(0)
    exact = rng.integers(1, n + 1, size=users)
    sampled = 1 + rng.hypergeometric(exact - 1, n - exact, m, size=(repeats, users))
    return RankFile(users=np.arange(users), exact=exact, n_u=np.full(users, n),
                    sampled={m: sampled}, n_items=n, sampling="hypergeometric",
                    tie="random", seed=0)


def test_winners_and_table2():
    rows = []
    for rec, exact, est in (("A", 0.3, [0.5, 0.1, 0.2]), ("B", 0.2, [0.4, 0.3, 0.2])):
        rows += [("d", rec, "recall@1", "exact", j, exact) for j in range(3)]
        rows += [("d", rec, "recall@1", "mle", j, v) for j, v in enumerate(est)]
    per = pd.DataFrame(rows, columns=["dataset", "recommender", "metric", "method",
                                      "repeat", "value"])
    w = winners_frame(per)
    # A is best exactly; mle picks A in repeat 0, B in 1, a tie in 2 (counts as wrong)
    assert w.loc[0, "correct"] == 1 and w.loc[0, "repeats"] == 3
    t2 = table2_frame(per)
    assert list(t2.method[:2]) == ["exact", "mle"]
    assert t2.loc[1, "mean"] == pytest.approx(0.8 / 3)


def test_estimates_per_repeat_read_the_metric_off_p(tmp_path):
    f = toy_rank_file()
    per, pmfs = estimates_per_repeat("d", "R", f, 9, ["recall@5", "ndcg@10"],
                                     ["mes", "bv_0.1"], processes=2)
    assert set(per.method) == {"mes", "dist_bv_0.1"}
    p = estimate_from_histogram(sampled_rank_histogram(f.sampled_ranks(9, 1), 9), 40, 9,
                                "mes", "hypergeometric")
    got = per.set_index(["method", "metric", "repeat"]).value
    assert got[("mes", "ndcg@10", 1)] == pytest.approx(parse_metric("ndcg@10").weights(40) @ p,
                                                       rel=1e-12)
    assert pmfs["exact"].sum() == pytest.approx(1.0)
    assert set(pmfs) == {"exact", "mes", "dist_bv_0.1"}


def test_estimator_options_are_validated():
    with pytest.raises(ValueError, match="takes no option"):
        estimates_per_repeat("d", "R", toy_rank_file(), 9, ["recall@10"], ["mes"],
                             options={"mes": {"etaa": 0.1}})
