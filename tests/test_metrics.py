import numpy as np
import pytest

from sampled_metrics.metrics import parse_metric
from sampled_metrics.metrics import metric_of_sets
from sampled_metrics.workflow.paper import KDD_TABLE1
from sampled_metrics.workflow.toy import TOY_N, table1


def test_table1_matches_paper_to_three_decimals():
    got = table1()
    for row in got.itertuples():
        assert round(row.value, 3) == pytest.approx(KDD_TABLE1[row.recommender][row.metric],
                                                    abs=1e-9), row


@pytest.mark.parametrize("name,canonical", [("Recall@10", "recall@10"), ("hr@5", "hit@5"),
                                            ("HIT@5", "hit@5"), ("rr", "mrr"), ("MAP", "ap"),
                                            ("NDCG", "ndcg"), ("mrr@10", "mrr@10"), ("ap@3", "ap@3"),
                                            ("precision@10", "precision@10"), ("auc", "auc")])
def test_parse_names(name, canonical):
    assert parse_metric(name).name == canonical


@pytest.mark.parametrize("bad", ["foo", "recall", "auc@10", "ndcg@0", "ap@x", ""])
def test_parse_rejects_bad_names(bad):
    with pytest.raises(ValueError, match="metric"):
        parse_metric(bad)


def test_single_item_formulas():
    r = np.array([1, 2, 10, 11, 100])
    n = 100
    assert np.allclose(parse_metric("auc")(r, n), (n - r) / (n - 1))
    assert np.allclose(parse_metric("recall@10")(r), [1, 1, 1, 0, 0])
    assert np.allclose(parse_metric("precision@10")(r), [0.1, 0.1, 0.1, 0, 0])
    assert np.allclose(parse_metric("ap@10")(r), [1, 0.5, 0.1, 0, 0])
    assert np.allclose(parse_metric("ndcg")(r), 1 / np.log2(r + 1))
    assert parse_metric("ndcg")(2) == pytest.approx(1 / 1.584962500721156)


@pytest.mark.parametrize("name", ["auc", "ap", "ap@10", "ndcg", "ndcg@10", "recall@10",
                                  "precision@10"])
def test_set_metrics_reduce_to_single_item(name):
    ranks = [1, 2, 7, 10, 11, 500]
    single = parse_metric(name)(np.array(ranks), 1000)
    sets = metric_of_sets(name, [[r] for r in ranks], 1000)
    assert np.allclose(single, sets)


def test_set_metrics_hand_computed():
    R, n = [1, 3], 10
    # AUC: pairs (relevant, irrelevant) correctly ordered / (2 * 8) = (8 + 7) / 16
    assert parse_metric("auc").of_set(R, n) == pytest.approx(15 / 16)
    assert parse_metric("precision@3").of_set(R, n) == pytest.approx(2 / 3)
    assert parse_metric("recall@2").of_set(R, n) == pytest.approx(1 / 2)
    assert parse_metric("ap").of_set(R, n) == pytest.approx((1 + 2 / 3) / 2)
    ideal = 1 + 1 / np.log2(3)
    assert parse_metric("ndcg").of_set(R, n) == pytest.approx((1 + 1 / np.log2(4)) / ideal)
    assert parse_metric("ndcg@2").of_set(R, n) == pytest.approx(1 / ideal)


def test_auc_of_set_equals_pair_count():
    rng = np.random.default_rng(0)
    n = 50
    R = rng.choice(np.arange(1, n + 1), size=7, replace=False)
    others = np.setdiff1d(np.arange(1, n + 1), R)
    pairs = (R[:, None] < others[None, :]).mean()
    assert parse_metric("auc").of_set(R, n) == pytest.approx(pairs)
    assert TOY_N == 10_000


@pytest.mark.parametrize("hit,same", [("hit@10", "recall@10"), ("mrr@10", "ap@10"), ("mrr", "ap")])
def test_hit_and_mrr_equal_recall_and_ap_for_one_item(hit, same):
    ranks = [1, 2, 7, 10, 11, 500]
    assert np.array_equal(parse_metric(hit)(np.array(ranks)), parse_metric(same)(np.array(ranks)))
    assert np.array_equal(metric_of_sets(hit, [[r] for r in ranks], 1000),
                          metric_of_sets(same, [[r] for r in ranks], 1000))


def test_hit_and_mrr_read_the_best_positive_of_a_set():
    # positives at 2 and 3: MRR@10 = 1/2, AP@10 = (1/2 + 2/3) / 2; Hit = 1, Recall@2 = 1/2
    assert parse_metric("mrr@10").of_set([2, 3]) == pytest.approx(0.5)
    assert parse_metric("ap@10").of_set([2, 3]) == pytest.approx(7 / 12)
    assert parse_metric("hit@2").of_set([2, 3]) == 1.0
    assert parse_metric("recall@2").of_set([2, 3]) == 0.5
    assert parse_metric("hit@1").of_set([2, 3]) == 0.0
    assert parse_metric("mrr@1").of_set([2, 3]) == 0.0


def test_help_lists_every_kind_and_alias():
    from sampled_metrics.metrics import METRIC_ALIASES, METRIC_KINDS, METRIC_NAMES
    for kind in METRIC_KINDS:
        assert kind in METRIC_NAMES
    for alias, kind in METRIC_ALIASES.items():
        assert f"{alias} = {kind}" in METRIC_NAMES
        assert parse_metric(alias + ("@3" if kind in ("hit", "precision") else "")).kind == kind
