"""Exact and sampled ranks of the held-out item (KDD'20 Sec. 2 and 6).

Exact rank. User u's candidates are the items not in the training set H_u, so there are
n_u = |I| - |H_u| of them, the held-out item included. With s the held-out item's score,
g = #{candidates j != held-out : ŷ_j > s} and e = #{candidates j != held-out : ŷ_j = s},

    pessimistic  r = 1 + g + e
    optimistic   r = 1 + g
    average      r = 1 + g + e / 2        (float, may end in .5)
    random       r = 1 + g + #{tied candidates ranked above it by a random total order}
                 (the order: seeded keys per (user, item), :func:`tie_keys`, shared by the
                 exact and every sampled ranking, so r~ <= r and r~ | r follows the law of
                 the sampling exactly; without keys, a uniform position among the tied)
    random_per_ranking
                 r = 1 + g + U{0..e}: a fresh uniform position among the tied in every
                 ranking (the exact one and each sampled one, independently), so r~ | r
                 follows the law only on average over the tie draws

Sampled rank. m negatives are drawn by a sampler of :mod:`sampled_metrics.evaluation.negatives`
(uniform among the candidates other than the held-out item, with or without replacement,
or fixed); r~ in 1..m+1 is the same formula with g, e counted over the m negatives.
Negatives are keyed by (seed, m, repeat, draw block) and so shared by every recommender
(as the fixed negatives file of the NCF protocol). :func:`evaluate` scores each user once
and computes from those scores the exact rank and the sampled ranks of every (m, repeat).

Random tie draws are keyed the same way: ``seeds.generator(seed, "ties", "exact", block)``
for the exact ranking, ``(seed, "ties", m, repeat, block)`` for a sampled one and
``(seed, "ties", "keys", block)`` for the keys of ``tie='random'``.

Default tie policy of the drivers: ``'random_per_ranking'`` (seeded). Evidence (ML-1M,
recommender Z, whose score is exactly 0 for ~2600 users' held-out items and ~3350 of their
candidates): sampled Recall@10 over 30 repeats is 54.20±0.19 with random ties (paper:
54.20±0.22) but 52.82±0.13 with averaged ranks; sampled Z AUC has a std of 0.23 across
repeats only when ties are drawn afresh in every sampled ranking (paper 0.23; one shared
order, ``'random'``, gives 0.04, like X and Y; averaged ranks 0.02). X and Y have no ties
that matter.
"""
from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from ..checks import check_allocation
from ..datasets import Split
from ..logs import progress
from ..metrics import parse_metrics
from ..sampling import check_sampling
from ..seeds import generator
from . import kernels
from .negatives import BLOCK_USERS, CandidateTable, check_sample_size, negatives_generator
from .policies import CANDIDATES, DEFAULT_TIE, TIE_POLICIES

__all__ = ["TIE_POLICIES", "DEFAULT_TIE", "CANDIDATES", "Evaluation", "tie_keys", "check_tie",
           "ranks_from_counts", "check_scores", "exact_ranks", "sampled_ranks", "score_blocks",
           "evaluate", "rank_all", "mean_metrics", "check_sampled_ranks_size"]

log = logging.getLogger(__name__)

#: :data:`TIE_POLICIES` under the name the workflow's configuration check imports
TIES = TIE_POLICIES


def tie_keys(seed: int, block: int, shape) -> np.ndarray:
    """Random tie-breaking keys of a draw block, one uniform per (user, item), from
    ``seeds.generator(seed, "ties", "keys", block)``.

    With ``tie='random'`` items of equal score are ordered by these keys (larger key ranks
    higher), the same order for the exact and every sampled ranking of a user, so a sampled
    rank is the rank within a subset of one total order (r~ <= r, and r~ | r follows the
    sampling law exactly)."""
    return generator(seed, "ties", "keys", block).random(shape)


def check_tie(tie: str) -> str:
    """The canonical name of the tie policy of :data:`TIE_POLICIES` that ``tie`` names (in
    any case); the registry's one-line ValueError otherwise."""
    return TIE_POLICIES.canonical(tie)


def _uniforms(rng, size: int) -> np.ndarray:
    """``size`` uniforms in [0, 1) from a Generator or an integer seed."""
    if rng is None:
        raise ValueError("tie='random' needs rng (an integer seed or a numpy Generator)")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    return rng.random(size)


def ranks_from_counts(n_greater, n_equal, tie: str, rng=None, n_above=None) -> np.ndarray:
    """1-based rank from the counts of scores above (g) and equal to (e) the relevant one.

    See the module docstring for the four policies. Returns int64, except float64 for
    ``'average'``. ``rng`` (seed or Generator) is used by ``'random'`` only, drawing one
    uniform per rank, so consecutive blocks consume one stream. ``n_above`` (a), for
    ``'random'`` with tie keys: the tied candidates with a larger key; the rank is then
    1 + g + a and nothing is drawn.
    """
    n_greater, n_equal = np.asarray(n_greater, np.int64), np.asarray(n_equal, np.int64)
    base = 1 + n_greater
    tie = check_tie(tie)
    if n_above is not None:
        if tie != "random":
            raise ValueError(f"counts of tie keys above (n_above) apply to tie policy "
                             f"'random' only, got {tie!r}")
        return base + np.asarray(n_above, np.int64)
    if tie == "pessimistic":
        return base + n_equal
    if tie == "optimistic":
        return base
    if tie == "average":
        return base + 0.5 * n_equal
    u = _uniforms(rng, n_equal.shape)                  # random, random_per_ranking
    return base + np.minimum(np.floor(u * (n_equal + 1)).astype(np.int64), n_equal)


def _as_block(scores, test_items) -> tuple[np.ndarray, np.ndarray]:
    scores = np.asarray(scores, dtype=np.float64)
    test_items = np.asarray(test_items, dtype=np.int64).reshape(-1)
    if scores.ndim != 2 or scores.shape[0] != test_items.size:
        raise ValueError(f"scores must be (n_users, n_items) with one row per test item; got "
                         f"shape {scores.shape} for {test_items.size} test items")
    if test_items.size and (test_items.min() < 0 or test_items.max() >= scores.shape[1]):
        raise ValueError(f"test items must lie in 0..{scores.shape[1] - 1}")
    check_scores(scores)
    return scores, test_items


def check_scores(scores: np.ndarray) -> None:
    """ValueError if a float array of scores holds a NaN (one cheap pass when it does not)."""
    if np.isnan(np.sum(scores)) and np.isnan(scores).any():
        raise ValueError("scores contain NaN; cannot rank")


def exact_ranks(scores, train_rows, test_items, tie: str, rng=None, keys=None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Exact rank of each held-out item among the user's candidates (items not in H_u).

    Parameters
    ----------
    scores : array (b, n_items)
        Scores of all items for b users.
    train_rows : sparse (b, n_items)
        The users' training items H_u (nonzeros); they are not candidates.
    test_items : int array (b,)
        Held-out item of each user; must not be in H_u.
    tie : {'pessimistic', 'optimistic', 'average', 'random'}
    rng : int or numpy.random.Generator, optional
        For ``tie='random'`` without ``keys``: a uniform position among the tied.
    keys : array (b, n_items), optional
        For ``tie='random'``: tie-breaking keys (:func:`tie_keys`); tied items with a larger
        key rank higher.

    Returns
    -------
    ranks : array (b,)
        r in 1..n_u (int64; float64 for ``'average'``).
    n_u : int64 array (b,)
        n_u = n_items - |H_u|.
    """
    scores, test_items = _as_block(scores, test_items)
    tie = check_tie(tie)
    train_rows = sp.csr_matrix(train_rows)
    if train_rows.shape != scores.shape:
        raise ValueError(f"train_rows shape {train_rows.shape} != scores shape {scores.shape}")
    train_rows.sum_duplicates()
    rows = np.repeat(np.arange(test_items.size), np.diff(train_rows.indptr))
    if np.any(train_rows.indices == test_items[rows]):
        raise ValueError("a held-out item is in its user's training items; it would not be "
                         "a candidate")
    table = CandidateTable(train_rows, test_items)
    keyed = tie == "random" and keys is not None
    _, g, e, above = table.codes(scores, keys if keyed else None)
    return (ranks_from_counts(g, e, tie, rng, n_above=above if keyed else None),
            table.counts + 1)


def sampled_ranks(test_scores, negative_scores, tie: str, rng=None, test_keys=None,
                  negative_keys=None) -> np.ndarray:
    """Sampled rank r~ in 1..m+1 of the held-out item among itself and m negatives.

    Parameters
    ----------
    test_scores : array (b,)
    negative_scores : array (b, m)
        Scores of the sampled negatives (duplicates, if drawn with replacement, count).
    tie, rng
        As in :func:`exact_ranks`.
    test_keys, negative_keys : arrays (b,) and (b, m), optional
        Tie-breaking keys for ``tie='random'`` (see :func:`tie_keys`).
    """
    test_scores = np.asarray(test_scores, dtype=np.float64).reshape(-1)
    negative_scores = np.asarray(negative_scores, dtype=np.float64)
    if negative_scores.ndim != 2 or negative_scores.shape[0] != test_scores.size:
        raise ValueError(f"negative_scores must be (b, m) with b = {test_scores.size}, got "
                         f"shape {negative_scores.shape}")
    if np.isnan(test_scores).any() or np.isnan(negative_scores).any():
        raise ValueError("scores contain NaN; cannot rank")
    n_greater = (negative_scores > test_scores[:, None]).sum(axis=1)
    equal = negative_scores == test_scores[:, None]
    tie = check_tie(tie)
    if tie == "random" and test_keys is not None:
        above = equal & (np.asarray(negative_keys) > np.asarray(test_keys)[:, None])
        return ranks_from_counts(n_greater, equal.sum(axis=1), tie, n_above=above.sum(axis=1))
    return ranks_from_counts(n_greater, equal.sum(axis=1), tie, rng)


# ----------------------------------------------------------------------------- driver

@dataclass
class Evaluation:
    """Everything :func:`evaluate` measures for one model, aligned with ``users``.

    Attributes
    ----------
    users : int array (U,)
    ranks : array (U,)
        Exact ranks r.
    n_u : int array (U,)
        Each user's number of candidates n_u.
    sampled : dict m -> int array (repeats, U)
        Sampled ranks r~ of every repeat, for each sample size m.
    """

    users: np.ndarray
    ranks: np.ndarray
    n_u: np.ndarray
    sampled: dict


def _rank_dtype(m: int):
    return np.int16 if m < np.iinfo(np.int16).max else np.int32


def check_sampled_ranks_size(n_users: int, sample_sizes: Mapping[int, int],
                             dataset: str) -> None:
    """ValueError unless the sampled ranks of the ``n_users`` users of ``dataset`` at every
    m (``sample_sizes``: m -> repeats) fit in memory twice, as the shards of a rank file and
    their gathered copy; checked before ranking."""
    need = 2 * int(n_users) * sum(int(r) * np.dtype(_rank_dtype(int(m))).itemsize
                                  for m, r in sample_sizes.items())
    repeats = "/".join(map(str, sorted({int(r) for r in sample_sizes.values()})))
    check_allocation(need, f"{repeats} repeats of the sampled ranks of the {n_users} users of "
                     f"dataset {dataset!r} at m = {', '.join(map(str, sample_sizes))}",
                     itemsize=1)


def evaluate(model, split: Split, sample_sizes: Mapping[int, int] | None = None, *,
             tie: str = DEFAULT_TIE, sampling: str = "hypergeometric", seed: int = 0,
             fixed_negatives: np.ndarray | None = None,
             candidates: str = "unseen", first_block: int = 0) -> Evaluation:
    """Exact ranks and the sampled ranks of every (m, repeat), scoring each user once.

    For each draw block of :data:`~sampled_metrics.evaluation.negatives.BLOCK_USERS` users the model's
    scores are computed once; the exact rank uses the whole row, and for every sample size
    m in ``sample_sizes`` and repeat j < ``sample_sizes[m]`` the block's negatives are drawn
    from ``negatives.negatives_generator(seed, m, j, block)`` and their scores gathered
    from the same row. ``fixed_negatives`` (U x K, aligned with ``split.users``) instead
    gives one repeat at m = K (NCF's fixed negatives).

    Parameters
    ----------
    model : fitted Recommender
    split : Split
    sample_sizes : mapping m -> number of repeats
    tie : str
        Tie policy (module docstring); 'average' only without sampled ranks.
    sampling : {'hypergeometric', 'binomial'}
        Negatives without or with replacement.
    seed : int
        Seed of the negatives and tie draws (derive it from the dataset, see
        :mod:`sampled_metrics.seeds`).
    fixed_negatives : int array (U, K), optional
    candidates : {'unseen', 'all'}
        The items the held-out item is ranked among, for the exact rank and the draws of
        negatives: those outside the user's training set H_u (default, n_u = |I| - |H_u|)
        or all items (n_u = |I| for everyone; with ``sampling='binomial'`` the negatives are
        then uniform with replacement over all items but the held-out one, Jin et al.'s
        protocol as their code draws it, and r~ | r follows their eq. 16-17 exactly).
    first_block : int
        Number of the first draw block: ``split.users`` are the evaluated users from row
        ``first_block * BLOCK_USERS`` on of a larger evaluation (a shard of it), and get
        the negatives and tie draws they have there.

    Returns
    -------
    Evaluation
        Results do not depend on which other sample sizes or repeats are ranked in the
        same pass.
    """
    tie = check_tie(tie)
    sampling = check_sampling(sampling)
    candidates = CANDIDATES.canonical(candidates)
    if candidates == "all":       # no item is excluded: an empty H_u for the ranking
        split = dataclasses.replace(split, train=sp.csr_matrix(split.train.shape))
    sizes = {int(m): int(r) for m, r in (sample_sizes or {}).items() if int(r) > 0}
    n = split.users.size
    n_u = split.n_u().astype(np.int64)
    for m in sizes:
        check_sample_size(n_u, m, sampling)
    if fixed_negatives is not None:
        fixed_negatives = np.asarray(fixed_negatives, dtype=np.int64)
        if fixed_negatives.ndim != 2 or fixed_negatives.shape[0] != n:
            raise ValueError(f"fixed negatives must have one row per evaluated user ({n}), "
                             f"got shape {fixed_negatives.shape}")
        if sizes:
            raise ValueError("give either sample sizes to draw or fixed negatives, not both")
        sizes = {fixed_negatives.shape[1]: 1}
    if sizes and tie == "average":
        raise ValueError("tie policy 'average' gives half-integer sampled ranks, which the "
                         "corrections cannot index; use 'random' or 'random_per_ranking' "
                         "(whose expectation it is), 'pessimistic' or 'optimistic'")
    ranks = np.empty(n, dtype=np.float64 if tie == "average" else np.int64)
    sampled = {m: np.empty((r, n), dtype=_rank_dtype(m)) for m, r in sizes.items()}
    with threadpool_limits(1, "blas"):     # reproducible scores whatever the cores
        _rank_blocks(model, split, sizes, tie, sampling == "binomial", seed,
                     fixed_negatives, ranks, sampled, first_block)
    return Evaluation(split.users, ranks, n_u, sampled)


#: sampled positions held at once per (m, chunk of repeats): bounds the engine's memory
_CHUNK_NEGATIVES = 1 << 23


def score_blocks(model, users, first_block: int = 0, label: str = "rank users"):
    """Score the users draw block by draw block: the one scoring loop of every ranking.

    Yields ``(block, rows, scores)`` for each block of
    :data:`~sampled_metrics.evaluation.negatives.BLOCK_USERS` consecutive users: the block's
    number (from ``first_block``), its slice of ``users`` and the model's scores of all
    items, float64 (b, n_items), computed with BLAS on one thread (the same bits whatever
    the cores). Progress is reported under ``label``.

    Examples
    --------
    >>> import numpy as np
    >>> class Constant:
    ...     def score(self, users):
    ...         return np.ones((len(users), 3))
    >>> [(block, rows.stop) for block, rows, _ in score_blocks(Constant(), np.arange(1500))]
    [(0, 1024), (1, 1500)]
    """
    n = len(users)
    with progress(label, total=n) as bar:
        for block, lo in enumerate(range(0, n, BLOCK_USERS), start=first_block):
            rows = slice(lo, min(n, lo + BLOCK_USERS))
            with threadpool_limits(1, "blas"):
                scores = np.asarray(model.score(users[rows]), dtype=np.float64)
            yield block, rows, scores
            bar.advance(rows.stop - rows.start)


def _rank_blocks(model, split, sizes, tie, replace, seed, fixed_negatives, ranks,
                 sampled, first_block=0) -> None:
    """The loop of :func:`evaluate` over draw blocks (fills ``ranks`` and ``sampled``)."""
    for block, rows, scores in score_blocks(model, split.users, first_block):
        _rank_block(scores, split, sizes, tie, replace, seed, fixed_negatives, ranks,
                    sampled, block, rows)


def _rank_block(scores, split, sizes, tie, replace, seed, fixed_negatives, ranks, sampled,
                block: int, rows: slice) -> None:
    """One draw block of :func:`_rank_blocks`: the users at ``rows``, scored."""
    users, test = split.users[rows], split.test_items[rows]
    scores, test = _as_block(scores, test)
    b = users.size
    table = CandidateTable(split.train[users], test)
    keyed = tie == "random"
    keys = tie_keys(seed, block, scores.shape) if keyed else None
    codes, g, e, above = table.codes(scores, keys)
    ranks[rows] = ranks_from_counts(g, e, tie, generator(seed, "ties", "exact", block),
                                    n_above=above if keyed else None)
    for m, repeats in sizes.items():
        if fixed_negatives is not None:
            neg, at = fixed_negatives[rows], np.arange(b)
            sampled[m][0, rows] = sampled_ranks(
                scores[at, test], np.take_along_axis(scores, neg, axis=1), tie,
                generator(seed, "ties", m, 0, block),
                test_keys=keys[at, test] if keyed else None,
                negative_keys=np.take_along_axis(keys, neg, 1) if keyed else None)
            continue
        chunk = max(1, _CHUNK_NEGATIVES // (b * m))
        for first in range(0, repeats, chunk):
            js = range(first, min(repeats, first + chunk))
            pos = table.positions_many(
                m, [negatives_generator(seed, m, j, block) for j in js], replace)
            g, e, above = kernels.count_positions(codes, pos)
            for r, j in enumerate(js):
                sampled[m][j, rows] = ranks_from_counts(
                    g[r], e[r], tie, generator(seed, "ties", m, j, block),
                    n_above=above[r] if keyed else None)


def rank_all(model, split: Split, tie: str = DEFAULT_TIE, seed: int = 0
             ) -> tuple[np.ndarray, np.ndarray]:
    """Exact ranks r and candidate counts n_u of every evaluated user."""
    result = evaluate(model, split, tie=tie, seed=seed)
    return result.ranks, result.n_u


def mean_metrics(ranks, n_u, metrics: Sequence[str]) -> dict[str, float]:
    """Average of each metric over users, M(r_u) with n = n_u (per-user AUC).

    For sampled ranks pass ``n_u = m + 1``.
    """
    n_u = np.broadcast_to(np.asarray(n_u, dtype=np.int64), np.shape(ranks))
    return {metric.name: metric.mean(ranks, n_u) for metric in parse_metrics(metrics)}
