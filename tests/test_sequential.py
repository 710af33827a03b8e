"""The sequential recommender of the intervals' validation: the Markov chain's counts and
scores against a direct count, its split against leave_last_out, and its rank file."""
import numpy as np
import pandas as pd
import pytest

from conftest import write_zip
from rounding import gamma
from sampled_metrics.datasets.split import leave_last_out
from sampled_metrics.evaluation.rankfile import read_rank_file
from sampled_metrics.recommenders.markov import MarkovChain, training_sequences
from sampled_metrics.workflow.steps.sequential_ranks import sequential_rank_file


def _frame(seed=0, n_users=30, n_items=12, rows=300):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"user": rng.integers(0, n_users, rows),
                          "item": rng.integers(0, n_items, rows),
                          "timestamp": rng.integers(0, 20, rows)})
    return frame.drop_duplicates(["user", "item"], keep="last").reset_index(drop=True)


def test_training_sequences_hold_out_what_leave_last_out_holds_out():
    frame = _frame()
    users, items = training_sequences(frame)
    split = leave_last_out(frame, 30, 12)
    train = np.zeros((30, 12))
    train[users, items] = 1
    assert (train == split.train.toarray()).all()
    assert users.size == split.train.nnz
    # time order within each user: timestamps never decrease along a user's sequence
    ts = frame.set_index(["user", "item"])["timestamp"]
    seq_ts = ts.loc[list(zip(users, items))].to_numpy()
    same = users[1:] == users[:-1]
    assert (np.diff(seq_ts)[same] >= 0).all()


@pytest.mark.numerical
def test_markov_scores_are_the_smoothed_next_item_probabilities():
    frame = _frame(1)
    users, items = training_sequences(frame)
    alpha = 2.5
    model = MarkovChain(alpha).fit(users, items, n_users=30, n_items=12)
    counts = np.zeros((12, 12))
    last = {}
    for k in range(users.size):
        if k and users[k] == users[k - 1]:
            counts[items[k - 1], items[k]] += 1
        last[users[k]] = items[k]
    pop = np.bincount(items, minlength=12) / items.size
    scores = model.score(np.arange(30))
    for u in range(30):
        if u in last:
            row = counts[last[u]]
            want = (row + alpha * pop) / (row.sum() + alpha)
        else:
            want = pop                      # no training item: popularity alone
        # the same operations on the same integer counts (bit-identical after a last item);
        # without one alpha pop / alpha against pop: two roundings
        np.testing.assert_allclose(scores[u], want, rtol=float(gamma(2)), atol=0)
    # each score within gamma(4) of its exact value (pop, alpha pop, +, /), their 12-term
    # sum within gamma(11) more
    np.testing.assert_allclose(scores.sum(axis=1), 1.0, rtol=float(gamma(12 + 4)), atol=0)


def test_markov_refuses_bad_input():
    with pytest.raises(ValueError, match="alpha must be > 0"):
        MarkovChain(0)
    with pytest.raises(ValueError, match="grouped by user"):
        MarkovChain().fit([1, 0], [0, 1], n_users=2, n_items=2)
    with pytest.raises(ValueError, match="not fitted"):
        MarkovChain().score([0])


def test_sequential_rank_file_ranks_the_chains_next_item(tmp_path):
    frame = _frame(2, n_users=40, n_items=150, rows=3000)
    text = "".join(f"{u + 1}::{i + 1}::5::{t}\n" for u, i, t in frame.itertuples(index=False))
    archive = write_zip(tmp_path / "ml-1m.zip", text)
    out = tmp_path / "ranks" / "MarkovChain.npz"
    sequential_rank_file(archive, "ml-1m", out, dataset="toy-seq", m=20, repeats=3)
    ranks = read_rank_file(out)
    assert ranks.sampling == "binomial" and ranks.sampled_ranks(20).shape == (3, ranks.users.size)
    assert ranks.sampled_ranks(20).max() <= 21
    # exact ranks from the chain's own scores, among the user's unseen items
    from sampled_metrics.datasets.split import index_interactions
    from sampled_metrics.datasets.registry import read_interactions
    indexed, _, item_ids = index_interactions(read_interactions(archive, "ml-1m"))
    split = leave_last_out(indexed, ranks.users.max() + 1, item_ids.size)
    model = MarkovChain().fit(*training_sequences(indexed), n_users=ranks.users.max() + 1,
                              n_items=item_ids.size)
    scores = model.score(split.users)
    for row, (u, held) in enumerate(zip(split.users, split.test_items)):
        unseen = np.ones(item_ids.size, dtype=bool)
        unseen[split.train[u].indices] = False
        greater = (scores[row, unseen] > scores[row, held]).sum()
        ties = (scores[row, unseen] == scores[row, held]).sum()   # includes the item itself
        assert greater + 1 <= ranks.exact[row] <= greater + ties
        assert ranks.n_u[row] == unseen.sum()
