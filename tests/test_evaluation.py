"""Exact ranks, shared negatives and sampled ranks."""
import numpy as np
import pytest
import scipy.sparse as sp

from sampled_metrics.datasets import Split
from sampled_metrics.evaluation import (evaluate, exact_ranks, mean_metrics, rank_all,
                                        sampled_ranks, tie_keys)
from sampled_metrics.evaluation.negatives import BLOCK_USERS, draw_negatives
from sampled_metrics.recommenders import Recommender, check_train


class TableModel(Recommender):
    """A 'recommender' returning a fixed score table (for exact expectations)."""

    def __init__(self, table):
        self.table = np.asarray(table, dtype=np.float64)

    def fit(self, train):
        self.train_ = check_train(train)
        return self

    def _score(self, users):
        return self.table[users]


def random_split(n_users=50, n_items=30, density=0.3, seed=0) -> Split:
    rng = np.random.default_rng(seed)
    dense = rng.random((n_users, n_items)) < density
    test = rng.integers(n_items, size=n_users)
    dense[np.arange(n_users), test] = False
    return Split(sp.csr_matrix(dense, dtype=np.float64), test, np.arange(n_users))


def tied_model(split, seed=1, levels=4):
    table = np.random.default_rng(seed).integers(levels, size=(split.n_users, split.n_items))
    return TableModel(table).fit(split.train)


def brute_force_rank(scores, train_items, test, tie):
    candidates = [j for j in range(scores.size) if j not in train_items and j != test]
    above = sum(scores[j] > scores[test] for j in candidates)
    equal = sum(scores[j] == scores[test] for j in candidates)
    return {"pessimistic": 1 + above + equal, "optimistic": 1 + above,
            "average": 1 + above + equal / 2}[tie], len(candidates) + 1


# ----------------------------------------------------------------------------- exact

def test_exact_ranks_hand_example():
    scores = np.array([[0.5, 0.9, 0.5, 0.1, 0.5]])
    train = sp.csr_matrix(np.array([[0, 1, 0, 0, 0]]))  # item 1 (score 0.9) is not a candidate
    results = {tie: exact_ranks(scores, train, [0], tie)[0][0]
               for tie in ("pessimistic", "optimistic", "average")}
    assert results == {"pessimistic": 3, "optimistic": 1, "average": 2.0}
    assert exact_ranks(scores, train, [0], "average")[1].tolist() == [4]
    draws = {exact_ranks(scores, train, [0], "random", rng=s)[0][0] for s in range(40)}
    assert draws == {1, 2, 3}


@pytest.mark.parametrize("tie", ["pessimistic", "optimistic", "average"])
def test_exact_ranks_match_brute_force(tie):
    split = random_split()
    scores = tied_model(split).score(split.users)
    ranks, n_u = exact_ranks(scores, split.train, split.test_items, tie)
    for u in range(split.n_users):
        r, n = brute_force_rank(scores[u], set(split.train[u].indices), split.test_items[u], tie)
        assert (ranks[u], n_u[u]) == (r, n)


def test_tie_policies_are_ordered():
    split = random_split(seed=2)
    model = tied_model(split, levels=3)
    ranks = {tie: rank_all(model, split, tie, seed=3)[0]
             for tie in ("pessimistic", "optimistic", "average", "random")}
    assert np.all(ranks["pessimistic"] >= ranks["average"])
    assert np.all(ranks["average"] >= ranks["optimistic"])
    assert np.array_equal(ranks["average"], (ranks["pessimistic"] + ranks["optimistic"]) / 2)
    assert np.all((ranks["random"] >= ranks["optimistic"]) & (ranks["random"] <= ranks["pessimistic"]))
    assert ranks["pessimistic"].dtype == np.int64 and ranks["average"].dtype == np.float64


@pytest.mark.parametrize("tie", ["random", "random_per_ranking"])
def test_random_ties_do_not_depend_on_what_else_is_ranked(tie):
    """Draws are keyed by (m, repeat, draw block): ranking more sample sizes or repeats in
    the same pass, over several draw blocks, changes no rank."""
    split = random_split(n_users=BLOCK_USERS + 37, seed=4)
    model = tied_model(split, levels=2)
    a = evaluate(model, split, {5: 2}, tie=tie, seed=9)
    b = evaluate(model, split, {5: 3, 7: 1}, tie=tie, seed=9)
    assert np.array_equal(a.ranks, b.ranks)
    assert np.array_equal(a.sampled[5], b.sampled[5][:2])
    assert not np.array_equal(b.sampled[5][0], b.sampled[5][1])


def test_exact_ranks_reject_bad_input():
    train = sp.csr_matrix(np.array([[1.0, 0, 0]]))
    with pytest.raises(ValueError, match="^unknown tie policy 'worst'; expected one of "
                                         "pessimistic, optimistic, average, random, "
                                         "random_per_ranking$"):
        exact_ranks(np.zeros((1, 3)), train, [1], "worst")
    with pytest.raises(ValueError, match="training items"):
        exact_ranks(np.zeros((1, 3)), train, [0], "average")
    with pytest.raises(ValueError, match="NaN"):
        exact_ranks(np.array([[0, np.nan, 1]]), train, [1], "average")
    with pytest.raises(ValueError, match="needs rng"):
        exact_ranks(np.zeros((1, 3)), train, [1], "random")


# ----------------------------------------------------------------------------- negatives

def test_negatives_exclude_train_and_test_items():
    split = random_split(seed=5)
    for replace in (False, True):
        neg = draw_negatives(split, 8, repeat=0, seed=1, replace=replace)
        assert neg.shape == (50, 8)
        for u in range(50):
            forbidden = set(split.train[u].indices) | {split.test_items[u]}
            assert not forbidden & set(neg[u].tolist())
            assert replace or len(set(neg[u].tolist())) == 8


def test_negatives_are_deterministic_per_seed_and_repeat():
    split = random_split(seed=6)
    a = draw_negatives(split, 6, repeat=3, seed=7)
    assert np.array_equal(a, draw_negatives(split, 6, repeat=3, seed=7))
    assert not np.array_equal(a, draw_negatives(split, 6, repeat=4, seed=7))
    assert not np.array_equal(a, draw_negatives(split, 6, repeat=3, seed=8))


@pytest.mark.parametrize("train_items,candidates", [([0, 3], [1, 4, 5]),  # keys path
                                                     ([0], [1, 3, 4, 5])])  # rejection path
def test_negatives_are_uniform_over_candidates(train_items, candidates):
    train = sp.csr_matrix((np.ones(len(train_items)), ([0] * len(train_items), train_items)),
                          shape=(1, 6))
    split = Split(train, np.array([2]), np.array([0]))
    for replace in (False, True):
        draws = np.concatenate([draw_negatives(split, 2, r, replace=replace).ravel()
                                for r in range(600)])
        counts = np.bincount(draws, minlength=6)
        assert counts.sum() == counts[candidates].sum()
        assert np.all(np.abs(counts[candidates] / 1200 - 1 / len(candidates)) < 0.05)


def test_negatives_need_enough_candidates():
    split = random_split(n_items=30, density=0.5, seed=7)
    fewest = split.n_u().min()
    with pytest.raises(ValueError, match=r"users have fewer than .* with replacement"):
        draw_negatives(split, int(fewest))
    assert draw_negatives(split, int(fewest), replace=True).shape[1] == fewest


@pytest.mark.parametrize("tie", ["pessimistic", "optimistic", "average"])
def test_all_candidates_sampled_gives_exact_rank(tie):
    split = random_split(n_users=20, n_items=15, density=0.4, seed=8)
    dense = split.train.toarray()
    dense[0] = 0  # one user with every item a candidate
    split.train = sp.csr_matrix(dense)
    model = tied_model(split, levels=3)
    exact, n_u = rank_all(model, split, tie)
    for u in range(20):  # m = n_u - 1 without replacement: the sample is every candidate
        one = Split(split.train[[u]], split.test_items[[u]], np.array([0]))
        neg = draw_negatives(one, int(n_u[u]) - 1, repeat=u)
        scores = model.score([u])
        r = sampled_ranks(scores[0, one.test_items], np.take_along_axis(scores, neg, 1), tie)
        assert r[0] == exact[u]


# ----------------------------------------------------------------------------- drivers

def test_evaluate_one_pass_agrees_with_parts():
    split = random_split(seed=9)
    model = tied_model(split, seed=3, levels=5)
    result = evaluate(model, split, {10: 3}, tie="pessimistic", seed=2)
    scores = model.score(split.users)
    test_scores = scores[np.arange(50), split.test_items]
    assert np.array_equal(result.ranks, exact_ranks(scores, split.train, split.test_items,
                                                    "pessimistic")[0])
    for j in range(3):
        neg = draw_negatives(split, 10, repeat=j, seed=2)
        gathered = np.take_along_axis(scores, neg, 1)
        assert np.array_equal(result.sampled[10][j],
                              sampled_ranks(test_scores, gathered, "pessimistic"))
    assert np.all(result.sampled[10] <= result.ranks)  # a sample can only rank higher


def test_sampled_ranks_count_duplicates_and_ties():
    r = sampled_ranks([0.5, 0.5], [[0.9, 0.9, 0.5, 0.1], [0.1, 0.1, 0.1, 0.1]], "pessimistic")
    assert r.tolist() == [4, 1]


def test_mean_metrics_uses_per_user_n():
    values = mean_metrics([1, 3], [3, 5], ["auc", "recall@1", "ap"])
    assert values == pytest.approx({"auc": (1.0 + 0.5) / 2, "recall@1": 0.5,
                                    "ap": (1 + 1 / 3) / 2})


def test_synthetic_end_to_end_all_paper_recommenders(tmp_path):
    from sampled_metrics.datasets import (generate_synthetic, index_interactions,
                                          leave_last_out, read_synthetic)
    from sampled_metrics.recommenders import paper_recommender

    interactions, users, items = index_interactions(read_synthetic(
        generate_synthetic(tmp_path / "syn.zip", n_users=300, n_items=400)))
    split = leave_last_out(interactions, len(users), len(items))
    for name in "XYZ":
        model = paper_recommender(name, **({"iterations": 5} if name == "X" else {}))
        result = evaluate(model.fit(split.train), split, {50: 2})
        assert np.all((result.ranks >= 1) & (result.ranks <= result.n_u))
        assert np.all((result.sampled[50] >= 1) & (result.sampled[50] <= 51))
        assert mean_metrics(result.ranks, result.n_u, ["auc"])["auc"] > 0.6


def test_random_ties_share_one_order_between_exact_and_sampled():
    """With tie='random' the tied items are ordered once per user (tie_keys): sampling every
    candidate reproduces the exact rank, and a sample never ranks the item lower."""
    split = random_split(n_users=30, n_items=40, density=0.2, seed=11)
    model = tied_model(split, seed=4, levels=3)          # many ties
    n_u = split.n_u()
    m = int(n_u.min()) - 1
    result = evaluate(model, split, {m: 1}, tie="random", seed=9)
    assert np.all(result.sampled[m] <= result.ranks)
    everyone = n_u - 1 == m
    assert everyone.any()
    assert np.array_equal(result.sampled[m][0, everyone], result.ranks[everyone])
    # ties do not depend on how many repeats are ranked in the same pass
    again = evaluate(model, split, tie="random", seed=9)
    assert np.array_equal(again.ranks, result.ranks)
    # and they are really random: another seed changes some tied ranks
    other = evaluate(model, split, tie="random", seed=10)
    assert not np.array_equal(other.ranks, result.ranks)


def test_negative_and_tie_streams_differ_for_the_same_seed():
    split = random_split(n_users=5, n_items=40, density=0.1, seed=12)
    from sampled_metrics.evaluation.negatives import negatives_generator
    keys = tie_keys(0, 0, (1, split.n_items))[0]
    assert not np.allclose(keys, negatives_generator(0, 5, 0, 0).random(split.n_items))
    assert not np.array_equal(draw_negatives(split, 5, 0, 0), draw_negatives(split, 5, 1, 0))
    assert not np.array_equal(draw_negatives(split, 5, 0, 0),
                              draw_negatives(split, 6, 0, 0)[:, :5])


def test_all_items_protocol_ranks_among_every_item_with_binomial_law():
    """Jin et al.'s protocol: exact rank among all items (training items included),
    negatives uniform with replacement over all items but the held-out one, so that
    E[r~ - 1] = m (r - 1)/(n - 1) (their eq. 16-17), checked within 4 SE."""
    split = random_split(n_users=400, n_items=40, density=0.4, seed=3)
    table = np.random.default_rng(5).random((split.n_users, split.n_items))
    model = TableModel(table).fit(split.train)
    m, reps = 20, 50
    ev = evaluate(model, split, {m: reps}, tie="pessimistic", sampling="binomial", seed=9,
                  candidates="all")
    s_test = table[split.users, split.test_items]
    want = 1 + (table[split.users] > s_test[:, None]).sum(axis=1)
    assert np.array_equal(ev.ranks, want)
    assert np.all(ev.n_u == split.n_items)
    unseen = evaluate(model, split, tie="pessimistic")
    assert np.all(unseen.ranks <= ev.ranks) and np.any(unseen.ranks < ev.ranks)
    theta = (ev.ranks - 1) / (split.n_items - 1)
    dev = (ev.sampled[m] - 1 - m * theta).mean(axis=0)          # per user, over repeats
    se = np.sqrt(m * theta * (1 - theta) / reps)
    z = dev.sum() / np.sqrt((se ** 2).sum())
    assert abs(z) < 4
    with pytest.raises(ValueError, match="^unknown candidate set 'seen'; expected one of "
                                         "unseen, all$"):
        evaluate(model, split, candidates="seen")
