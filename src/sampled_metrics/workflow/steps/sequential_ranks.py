"""The rank file of a sequential recommender: the first-order Markov chain
(:class:`~sampled_metrics.recommenders.markov.MarkovChain`) fitted on each user's training
items in time order, its next item ranked among all the user's unseen items, and sampled
ranks drawn as SASRec's ``evaluate`` draws them (m uniform negatives *with replacement* from
the items outside the user's training set).

It gives the intervals' validation a rank distribution as sharp as a sequential model's,
with the exact ranks known.
"""
from __future__ import annotations

import logging

from ...datasets.registry import read_interactions
from ...datasets.split import index_interactions, leave_last_out
from ...evaluation.engine import DEFAULT_TIE, evaluate
from ...evaluation.rankfile import RankFile
from ...recommenders.markov import MarkovChain, training_sequences
from ...seeds import derive_seed

__all__ = ["RECOMMENDER", "sequential_rank_file"]

log = logging.getLogger(__name__)

#: the rank file's recommender name
RECOMMENDER = "MarkovChain"


def sequential_rank_file(archive, spec, out, *, dataset: str, m: int = 100,
                         repeats: int = 100, sampling: str = "binomial", seed: int = 0,
                         alpha: float = 10.0, tie: str = DEFAULT_TIE) -> RankFile:
    """Fit the Markov chain on a dataset archive's leave-last-out split, rank every user's
    held-out item exactly and at sample size ``m`` (``repeats`` draws), write the rank file
    ``out`` and return it.

    Parameters
    ----------
    archive : path
        The dataset archive; ``spec`` its dataset spec or format name (e.g. ``"ml-1m"``).
    dataset : str
        The rank file's dataset name (it keys the negatives' seed).
    sampling : {'binomial', 'hypergeometric'}
        Negatives with (SASRec) or without replacement.
    alpha : float
        The chain's popularity pseudo-counts.
    """
    frame, _, items = index_interactions(read_interactions(archive, spec))
    n_users = int(frame["user"].max()) + 1
    split = leave_last_out(frame, n_users, items.size)
    users, seq_items = training_sequences(frame)
    model = MarkovChain(alpha).fit(users, seq_items, n_users=n_users, n_items=items.size)
    log.info("%s: Markov chain on %d users, %d items, %d transitions", dataset, n_users,
             items.size, model.transitions_.nnz)
    draw_seed = derive_seed(seed, dataset)
    result = evaluate(model, split, {m: repeats}, tie=tie, sampling=sampling, seed=draw_seed)
    rank_file = RankFile(users=result.users, exact=result.ranks, n_u=result.n_u,
                         sampled=result.sampled, n_items=split.n_items, sampling=sampling,
                         tie=tie, seed=draw_seed, dataset=dataset, recommender=RECOMMENDER)
    rank_file.write(out)
    return rank_file
