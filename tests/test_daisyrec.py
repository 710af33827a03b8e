"""The DaisyRec adapter against real DaisyRec 2.3.0: its own candidate sets
(build_candidates_set), its own models (PureSVD, MostPop with its ties), its own ranking and
metrics (calc_ranking_results). The metrics recomputed from the captured positions equal
DaisyRec's to the rounding of a mean over users, one and several test positives per user;
the recommended interval contains PureSVD's full-ranking metric.

DaisyRec 2.3.0 needs numpy < 2 (np.asfarray, np.in1d), so it runs in the frameworks'
virtualenv beside RecBole (``pip install -e ".[test,recbole,daisyrec]"``; .ci/run makes
it). Where DaisyRec is not installed the test is skipped saying so, or fails if
``SAMPLED_METRICS_REQUIRE_DAISYREC=1`` (set by CI where it installed DaisyRec).
"""
import logging
import os

import numpy as np
import pandas as pd
import pytest
from rounding import gamma

pytestmark = pytest.mark.slow

REQUIRE = "SAMPLED_METRICS_REQUIRE_DAISYREC"
try:
    from torch.utils.data import DataLoader

    from daisy.model.PopRecommender import MostPop
    from daisy.model.PureSVDRecommender import PureSVD
    from daisy.utils.dataset import CandidatesDataset
    from daisy.utils.metrics import calc_ranking_results
    from daisy.utils.utils import build_candidates_set
except Exception as err:    # ImportError, or numpy 2 breaking it at import
    if os.environ.get(REQUIRE) == "1":
        raise
    pytest.skip(f"DaisyRec not importable ({type(err).__name__}: {err}); install the extra "
                f"[daisyrec] in the frameworks' virtualenv", allow_module_level=True)

from sampled_metrics.integrations.daisyrec import capture  # noqa: E402
from sampled_metrics.metrics import parse_metric  # noqa: E402
from sampled_metrics.multipositive.positives import multi_positive_metric  # noqa: E402

USERS, ITEMS = 300, 400
KPIS = ["recall", "mrr", "ndcg", "hit", "precision"]


def _data(positives: int, seed: int):
    """Ratings of USERS users on ITEMS items of Zipf-like popularity; each user's last
    ``positives`` interactions are its test items."""
    rng = np.random.default_rng(seed)
    pop = rng.zipf(1.3, ITEMS).astype(float)
    pop /= pop.sum()
    rows, test_ur, train_ur = [], {}, {}
    for u in range(USERS):
        items = rng.choice(ITEMS, size=rng.integers(15, 40), replace=False, p=pop)
        test_ur[u] = set(int(i) for i in items[-positives:])
        train_ur[u] = set(int(i) for i in items[:-positives])
        rows += [(u, int(i), 1.0) for i in items[:-positives]]
    train = pd.DataFrame(rows, columns=["user", "item", "rating"])
    return train, test_ur, train_ur


def _config(tmp_path, topk):
    return {"user_num": USERS, "item_num": ITEMS, "factors": 12, "topk": topk,
            "cand_num": 100, "logger": logging.getLogger("daisy"), "gpu": "0",
            "metrics": KPIS, "res_path": str(tmp_path), "UID_NAME": "user", "IID_NAME": "item"}


def _evaluate(model, config, test_ur, train_ur, seed):
    np.random.seed(seed)                  # DaisyRec draws with numpy's global generator
    test_u, test_ucands = build_candidates_set(test_ur, train_ur, config)
    loader = DataLoader(CandidatesDataset(test_ucands), batch_size=64, shuffle=False)
    record = capture(model, test_ur, train_ur, config["item_num"])
    preds = model.rank(loader)
    assert np.asarray(preds).shape == (USERS, config["topk"])
    return record, calc_ranking_results(test_ur, preds, test_u, config)


@pytest.mark.numerical
@pytest.mark.parametrize("kind,positives", [("PureSVD", 1), ("PureSVD", 3), ("MostPop", 2)])
def test_metrics_recomputed_from_positions_equal_daisyrecs(tmp_path, kind, positives):
    train, test_ur, train_ur = _data(positives, seed=positives)
    config = _config(tmp_path, topk=20)
    model = (PureSVD if kind == "PureSVD" else MostPop)(config)
    model.fit(train)
    record, results = _evaluate(model, config, test_ur, train_ur, seed=positives)
    table = record.positions()
    assert len(table) == USERS * positives
    assert (table.n_negatives == 100 - positives).all()
    assert (table.n_nonrelevant == [ITEMS - len(train_ur[u] | test_ur[u])
                                    for u in table.user]).all()
    results = results.set_index("KPI@K")
    names = {"recall": "Recall", "mrr": "MRR", "ndcg": "NDCG", "hit": "Hit Ratio",
             "precision": "Precision"}
    # Each side is the mean of U non-negative per-user values, summed in its own order
    # (gamma(U)) and divided by U (u); a user's NDCG is a quotient (u) of two sums of at most
    # `positives` positive terms (gamma each), the other metrics one exact ratio. So each
    # side is within gamma(U + 2 positives + 2) of the exact mean, relative, and the two
    # within twice that.
    users = table.user.nunique()
    rel = 2 * float(gamma(users + 2 * positives + 2))
    for k in (1, 5, 10, 20):
        ours = record.daisyrec_metrics(k)
        for kpi in KPIS:
            assert ours[kpi] == pytest.approx(results.loc[names[kpi], k], rel=rel, abs=0), \
                (kind, positives, kpi, k)


def test_recommended_interval_contains_the_full_ranking_metric(tmp_path):
    train, test_ur, train_ur = _data(1, seed=11)
    config = _config(tmp_path, topk=10)
    model = PureSVD(config)
    model.fit(train)
    record, _ = _evaluate(model, config, test_ur, train_ur, seed=11)
    table = record.correct(["recall@10", "ndcg@10"], ["recommended", "sampled"])
    # the full ranking: each user's test item among all items outside its training set
    scores = model.user_vec @ model.item_vec.T
    ranks, n_u = [], []
    for u in range(USERS):
        unseen = np.setdiff1d(np.arange(ITEMS), sorted(train_ur[u]))
        (held,) = test_ur[u]
        ranks.append(1 + (scores[u, unseen] > scores[u, held]).sum())
        n_u.append(unseen.size)
    best = table[table.correction == "recommended"].set_index("metric")
    for metric in ("recall@10", "ndcg@10"):
        truth = parse_metric(metric).mean(np.array(ranks), np.array(n_u))
        assert best.loc[metric, "ci_low"] <= truth <= best.loc[metric, "ci_high"], metric


def test_recommended_row_on_pools_that_shrink_with_the_test_items(tmp_path):
    """DaisyRec's layout where users share a training size but not a number of test items:
    a user's pool is the catalogue minus its training and its k = 1..3 test items, and it
    ranks cand_num - k negatives, so each k has its own n_u. The recommended row (which
    crashed where one stratum's pools were smaller than the largest) holds PureSVD's
    full-ranking metric over each user's test items."""
    rng = np.random.default_rng(5)
    pop = rng.zipf(1.3, ITEMS).astype(float)
    pop /= pop.sum()
    rows, test_ur, train_ur = [], {}, {}
    for u in range(USERS):
        k = int(rng.integers(1, 4))
        items = rng.choice(ITEMS, size=25 + k, replace=False, p=pop)
        test_ur[u] = set(int(i) for i in items[25:])
        train_ur[u] = set(int(i) for i in items[:25])
        rows += [(u, int(i), 1.0) for i in items[:25]]
    train = pd.DataFrame(rows, columns=["user", "item", "rating"])
    config = _config(tmp_path, topk=10)
    model = PureSVD(config)
    model.fit(train)
    record, _ = _evaluate(model, config, test_ur, train_ur, seed=5)
    frame = record.positions()
    assert sorted(frame.n_nonrelevant.unique()) == [ITEMS - 25 - k for k in (3, 2, 1)]
    metrics = ["recall@10", "ndcg@10", "hit@10"]
    table = record.correct(metrics, ["recommended", "sampled"])
    scores = model.user_vec @ model.item_vec.T
    positions, n_nonrelevant = [], []
    for u in range(USERS):
        unseen = np.setdiff1d(np.arange(ITEMS), sorted(train_ur[u]))
        held = np.array(sorted(test_ur[u]))
        positions.append(1 + (scores[u, unseen][None, :] > scores[u, held][:, None]).sum(1))
        n_nonrelevant.append(unseen.size - held.size)
    best = table[table.correction == "recommended"].set_index("metric")
    for metric in metrics:
        truth = multi_positive_metric(metric, positions, np.array(n_nonrelevant)).mean()
        assert best.loc[metric, "ci_low"] <= truth <= best.loc[metric, "ci_high"], metric
