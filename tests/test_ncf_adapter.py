"""NCF's evaluation read from its files, written as its data were (99 distinct items outside
the user's training set, the test item included): positions equal the rank of NCF's
evaluate.py (scores in a dict keyed by item, heapq.nlargest), the self-containing lines are
named and ranked among 98, and the recommended interval holds the full-ranking metric."""
import heapq

import numpy as np

from sampled_metrics.evaluators import from_scores
from sampled_metrics.integrations.ncf import candidates
from sampled_metrics.intervals import correct_positions
from sampled_metrics.metrics import parse_metric

USERS, ITEMS = 2000, 1200


def test_ncf_candidates_and_positions(tmp_path):
    rng = np.random.default_rng(4)
    train, test, negative, truth = [], [], [], []
    scores = rng.normal(size=(USERS, ITEMS)) + np.linspace(2, -2, ITEMS)   # popular first
    for u in range(USERS):
        items = rng.choice(ITEMS, size=rng.integers(5, 30), replace=False)
        train += [f"{u}\t{i}\t5\t{t}" for t, i in enumerate(items[:-1])]
        held = int(items[-1])
        test.append(f"{u}\t{held}\t5\t999")
        outside = np.setdiff1d(np.arange(ITEMS), items[:-1])     # the test item among them
        negs = rng.choice(outside, 99, replace=False)
        negative.append(f"({u},{held})\t" + "\t".join(map(str, negs)))
        truth.append((1 + (scores[u, outside] > scores[u, held]).sum(), outside.size))
    for suffix, lines in (("train.rating", train), ("test.rating", test),
                          ("test.negative", negative)):
        (tmp_path / f"toy.{suffix}").write_text("\n".join(lines) + "\n")
    found = candidates(tmp_path, "toy")
    assert found.items.shape == (USERS, 100)
    own = [u for u in range(USERS) if int(test[u].split("\t")[1]) in
           map(int, negative[u].split("\t")[1:])]
    assert found.self_lines.tolist() == own and len(own) > 100
    cand_scores = np.take_along_axis(scores[found.users], found.items, axis=1)
    table = from_scores(cand_scores, found.n_nonrelevant, evaluator="ncf", items=found.items,
                        positive=99)
    for r in range(USERS):             # NCF's evaluate.py: a dict, then heapq.nlargest
        by_item = {int(i): s for i, s in zip(found.items[r], cand_scores[r])}
        ranking = heapq.nlargest(len(by_item), by_item, key=by_item.get)
        assert table.position[r] == ranking.index(int(found.items[r, -1])) + 1
        assert table.n_negatives[r] == len(by_item) - 1
    assert (table.n_negatives[found.self_lines] == 98).all()
    truth = np.array(truth)
    assert (table.n_nonrelevant == truth[:, 1] - 1).all()
    result = correct_positions(table, ["hit@10", "ndcg@10"], ["recommended"], evaluator="ncf")
    for row in result.itertuples():
        exact = parse_metric(row.metric).mean(truth[:, 0], truth[:, 1])
        assert row.ci_low <= exact <= row.ci_high, row.metric
