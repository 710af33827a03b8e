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

Sampled rank. m negatives are drawn uniformly from the candidates other than the held-out
item (with or without replacement); r~ in 1..m+1 is the same formula with g, e counted
over the m negatives. Negatives are drawn once per (seed, repeat) and shared by every
recommender (as the fixed negatives file of the NCF protocol). All ranks needed for one
model come from a single pass of user-block scoring (:func:`evaluate`).

Default tie policy of the drivers: ``'random_per_ranking'`` (seeded). Evidence (ML-1M,
recommender Z, whose score is exactly 0 for ~2600 users' held-out items and ~3350 of their
candidates): sampled Recall@10 over 30 repeats is 54.20±0.19 with random ties (paper:
54.20±0.22) but 52.82±0.13 with averaged ranks; sampled Z AUC has a std of 0.23 across
repeats only when ties are drawn afresh in every sampled ranking (paper 0.23; one shared
order, ``'random'``, gives 0.04, like X and Y; averaged ranks 0.02). X and Y have no ties
that matter.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from .datasets import Split
from .metrics import parse_metric

__all__ = ["TIES", "DEFAULT_TIE", "Evaluation", "tie_keys", "ranks_from_counts", "exact_ranks",
           "sampled_ranks",
           "draw_negatives", "evaluate", "rank_all", "sampled_ranks_for_model",
           "mean_metrics"]

log = logging.getLogger(__name__)

TIES = ("pessimistic", "optimistic", "average", "random", "random_per_ranking")
DEFAULT_TIE = "random_per_ranking"
_KEYS_BLOCK = 1024
# purpose words mixed into seeds, so that streams for different purposes never coincide
_NEGATIVES_WORD, _TIES_WORD = 0x6E656773, 0x74696573          # 'negs', 'ties'


def tie_keys(users, n_items: int, seed: int) -> np.ndarray:
    """Random tie-breaking keys, one uniform per (user, item), from
    ``SeedSequence([seed, 'ties', user])``: independent of blocks and repeats.

    With ``tie='random'`` items of equal score are ordered by these keys (larger key ranks
    higher), the same order for the exact and every sampled ranking of a user, so a sampled
    rank is the rank within a subset of one total order (r~ <= r, and r~ | r follows the
    sampling law exactly)."""
    users = np.asarray(users, dtype=np.int64).reshape(-1)
    out = np.empty((users.size, n_items))
    for i, u in enumerate(users):
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), _TIES_WORD, int(u)]))
        out[i] = rng.random(n_items)
    return out


def _check_tie(tie: str) -> str:
    if tie not in TIES:
        raise ValueError(f"tie policy must be one of {TIES}, got {tie!r}")
    return tie


def _uniforms(rng, size: int) -> np.ndarray:
    """``size`` uniforms in [0, 1) from a Generator or an integer seed."""
    if rng is None:
        raise ValueError("tie='random' needs rng (an integer seed or a numpy Generator)")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    return rng.random(size)


def ranks_from_counts(n_greater, n_equal, tie: str, rng=None) -> np.ndarray:
    """1-based rank from the counts of scores above (g) and equal to (e) the relevant one.

    See the module docstring for the four policies. Returns int64, except float64 for
    ``'average'``. ``rng`` (seed or Generator) is used by ``'random'`` only, drawing one
    uniform per rank, so consecutive blocks consume one stream.
    """
    n_greater, n_equal = np.asarray(n_greater, np.int64), np.asarray(n_equal, np.int64)
    base = 1 + n_greater
    if _check_tie(tie) == "pessimistic":
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
    if np.isnan(scores).any():
        raise ValueError("scores contain NaN; cannot rank")
    return scores, test_items


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
    n_candidates : int64 array (b,)
        n_u = n_items - |H_u|.
    """
    scores, test_items = _as_block(scores, test_items)
    _check_tie(tie)
    train_rows = sp.csr_matrix(train_rows)
    if train_rows.shape != scores.shape:
        raise ValueError(f"train_rows shape {train_rows.shape} != scores shape {scores.shape}")
    train_rows.sum_duplicates()
    b = test_items.size
    s_test = scores[np.arange(b), test_items]
    rows = np.repeat(np.arange(b), np.diff(train_rows.indptr))
    if np.any(train_rows.indices == test_items[rows]):
        raise ValueError("a held-out item is in its user's training items; it would not be "
                         "a candidate")
    train_scores = scores[rows, train_rows.indices]
    n_greater = (scores > s_test[:, None]).sum(axis=1) - np.bincount(
        rows, train_scores > s_test[rows], minlength=b).astype(np.int64)
    n_equal = (scores == s_test[:, None]).sum(axis=1) - 1 - np.bincount(
        rows, train_scores == s_test[rows], minlength=b).astype(np.int64)
    n_candidates = scores.shape[1] - np.diff(train_rows.indptr).astype(np.int64)
    if tie == "random" and keys is not None:
        keys = np.asarray(keys, dtype=np.float64)
        k_test = keys[np.arange(b), test_items]
        tied_above = (scores == s_test[:, None]) & (keys > k_test[:, None])
        n_above = tied_above.sum(axis=1) - np.bincount(
            rows, tied_above[rows, train_rows.indices], minlength=b).astype(np.int64)
        return 1 + n_greater + n_above, n_candidates
    return ranks_from_counts(n_greater, n_equal, tie, rng), n_candidates


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
    if tie == "random" and test_keys is not None:
        above = equal & (np.asarray(negative_keys) > np.asarray(test_keys)[:, None])
        return 1 + n_greater + above.sum(axis=1)
    return ranks_from_counts(n_greater, equal.sum(axis=1), tie, rng)


# ----------------------------------------------------------------------------- negatives

def _distinct_positions(rng: np.random.Generator, c: np.ndarray, m: int) -> np.ndarray:
    """m distinct uniform positions in 0..c_u-1 per row (requires c_u >= m), sorted.

    Rows with 2m <= c_u: draw with replacement and redraw duplicates until none are left
    (the result is a uniform m-subset by symmetry). Other rows: the m smallest of c_u
    uniform keys.
    """
    out = np.empty((c.size, m), dtype=np.int64)
    sparse_rows, dense_rows = np.flatnonzero(2 * m <= c), np.flatnonzero(2 * m > c)
    p = rng.integers(0, c[sparse_rows, None], size=(sparse_rows.size, m))
    while True:
        p.sort(axis=1)
        dup = np.zeros(p.shape, dtype=bool)
        dup[:, 1:] = p[:, 1:] == p[:, :-1]
        if not dup.any():
            break
        r, col = np.nonzero(dup)
        p[r, col] = rng.integers(0, c[sparse_rows[r]])
    out[sparse_rows] = p
    for start in range(0, dense_rows.size, _KEYS_BLOCK):
        rows = dense_rows[start:start + _KEYS_BLOCK]
        keys = rng.random((rows.size, int(c[rows].max())))
        keys[np.arange(keys.shape[1]) >= c[rows, None]] = 2.0
        out[rows] = np.sort(np.argpartition(keys, m - 1, axis=1)[:, :m], axis=1)
    return out


def draw_negatives(split: Split, m: int, repeat: int = 0, seed: int = 0,
                   replace: bool = False) -> np.ndarray:
    """Draw m negatives per evaluated user, uniformly among its candidates minus the held-out.

    The generator is ``default_rng(SeedSequence([seed, 'negs', repeat]))``: deterministic and
    independent of models, block sizes and other repeats. Positions p in 0..c_u-1 in the
    complement of E_u = H_u ∪ {held-out} (c_u = n_u - 1 items) map to items by
    item = p + #{k : e_k - k <= p} over E_u sorted (one searchsorted for all users).

    Returns
    -------
    numpy.ndarray
        (len(split.users), m) int64 item indices, aligned with ``split.users``; sorted per
        row.

    Raises
    ------
    ValueError
        If a user has fewer than m + 1 candidates without replacement (or fewer than 2
        with replacement).
    """
    if int(m) != m or m < 1:
        raise ValueError(f"number of negatives m must be a positive integer, got {m!r}")
    if int(seed) != seed or seed < 0 or int(repeat) != repeat or repeat < 0:
        raise ValueError(f"seed and repeat must be non-negative integers, got {seed!r}, "
                         f"{repeat!r}")
    n_users, n_items = split.users.size, split.n_items
    excluded = split.train[split.users] + sp.csr_matrix(
        (np.ones(n_users), (np.arange(n_users), split.test_items)), shape=(n_users, n_items))
    excluded.sum_duplicates()
    excluded.sort_indices()
    c = n_items - np.diff(excluded.indptr).astype(np.int64)
    need = 1 if replace else m
    short = c < need
    if short.any():
        raise ValueError(f"{short.sum()} of {n_users} users have fewer than {need + 1} "
                         f"candidates (smallest: {c.min() + 1}) for m={m} negatives"
                         f"{'' if replace else ' without replacement'}; use a smaller m"
                         f"{'' if replace else ', replace=True,'} or drop those users")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), _NEGATIVES_WORD,
                                                        int(repeat)]))
    if replace:
        positions = np.sort(rng.integers(0, c[:, None], size=(n_users, m)), axis=1)
    else:
        positions = _distinct_positions(rng, c, int(m))
    rows = np.repeat(np.arange(n_users), np.diff(excluded.indptr))
    within = np.arange(excluded.nnz) - excluded.indptr[rows]
    shifted = rows * n_items + (excluded.indices - within)
    queries = np.arange(n_users)[:, None] * n_items + positions
    below = np.searchsorted(shifted, queries, side="right") - excluded.indptr[:-1, None]
    return positions + below


# ----------------------------------------------------------------------------- drivers

@dataclass
class Evaluation:
    """Everything :func:`evaluate` measures for one model, aligned with ``users``.

    Attributes
    ----------
    users : int array (n,)
    ranks : array (n,)
        Exact ranks r.
    n_candidates : int array (n,)
        n_u.
    test_scores : float array (n,)
        Score of the held-out item.
    sampled_ranks : array (n_repeats, n)
        r~ for each negatives array passed in.
    negative_scores : list of float arrays (n, m), optional
        Scores of the negatives (only with ``keep_scores=True``).
    """

    users: np.ndarray
    ranks: np.ndarray
    n_candidates: np.ndarray
    test_scores: np.ndarray
    sampled_ranks: np.ndarray
    negative_scores: list = field(default_factory=list)


def evaluate(model, split: Split, negatives: Sequence[np.ndarray] = (),
             tie: str = DEFAULT_TIE, block_size: int = 1024, seed: int = 0,
             keep_scores: bool = False, repeat_ids: Sequence[int] | None = None) -> Evaluation:
    """Exact and sampled ranks of a fitted model in one pass of user-block scoring.

    For each block of users the model's scores are computed once; exact ranks use the full
    row, sampled ranks gather the m negatives' scores (``np.take_along_axis``) for every
    negatives array in ``negatives`` (one per repeat, from :func:`draw_negatives`).
    ``tie='random'`` orders tied items by :func:`tie_keys` (seeded per user), one order for
    the exact and all sampled rankings, and r~ <= r always. ``tie='random_per_ranking'``
    draws the exact ranking's ties from ``SeedSequence([seed, 'ties', 0])`` and those of
    repeat j from ``SeedSequence([seed, 'ties', 1, repeat_ids[j]])`` (default ``repeat_ids
    = 0, 1, ...``). Either way results depend neither on ``block_size`` nor on how the
    repeats are split between calls.
    """
    _check_tie(tie)
    n = split.users.size
    repeat_ids = range(len(negatives)) if repeat_ids is None else list(repeat_ids)
    if len(repeat_ids) != len(negatives):
        raise ValueError("repeat_ids must give one id per negatives array")
    streams = [np.random.default_rng(np.random.SeedSequence([int(seed), _TIES_WORD, 0]))]
    streams += [np.random.default_rng(np.random.SeedSequence([int(seed), _TIES_WORD, 1,
                                                              int(rid)]))
                for rid in repeat_ids]
    for j, neg in enumerate(negatives):
        if neg.ndim != 2 or neg.shape[0] != n:
            raise ValueError(f"negatives[{j}] must have one row per evaluated user ({n}), "
                             f"got shape {neg.shape}")
    ranks = np.empty(n, dtype=np.float64 if tie == "average" else np.int64)
    sampled = np.empty((len(negatives), n), dtype=ranks.dtype)
    n_cand, test_scores = np.empty(n, dtype=np.int64), np.empty(n)
    kept = [np.empty(neg.shape) for neg in negatives] if keep_scores else []
    start = 0
    for users, scores in model.score_blocks(split.users, block_size):
        block = slice(start, start + users.size)
        test = split.test_items[block]
        keys = tie_keys(users, scores.shape[1], seed) if tie == "random" else None
        ranks[block], n_cand[block] = exact_ranks(scores, split.train[users], test, tie,
                                                  streams[0], keys=keys)
        test_scores[block] = scores[np.arange(users.size), test]
        test_keys = None if keys is None else keys[np.arange(users.size), test]
        for j, neg in enumerate(negatives):
            neg_scores = np.take_along_axis(scores, neg[block], axis=1)
            neg_keys = None if keys is None else np.take_along_axis(keys, neg[block], axis=1)
            sampled[j, block] = sampled_ranks(test_scores[block], neg_scores, tie, streams[j + 1],
                                              test_keys=test_keys, negative_keys=neg_keys)
            if keep_scores:
                kept[j][block] = neg_scores
        start += users.size
        log.debug("ranked %d/%d users", start, n)
    return Evaluation(split.users, ranks, n_cand, test_scores, sampled, kept)


def rank_all(model, split: Split, tie: str = DEFAULT_TIE, block_size: int = 1024,
             seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Exact ranks r and candidate counts n_u of every evaluated user."""
    result = evaluate(model, split, (), tie, block_size, seed)
    return result.ranks, result.n_candidates


def sampled_ranks_for_model(model, split: Split, negatives_list: Sequence[np.ndarray],
                            tie: str = DEFAULT_TIE, block_size: int = 1024,
                            seed: int = 0) -> np.ndarray:
    """Sampled ranks (n_repeats, n_users) for all repeats from one scoring pass."""
    return evaluate(model, split, negatives_list, tie, block_size, seed).sampled_ranks


def mean_metrics(ranks, n_candidates, metrics: Sequence[str]) -> dict[str, float]:
    """Average of each metric over users, M(r_u) with n = n_u (per-user AUC).

    For sampled ranks pass ``n_candidates = m + 1``.
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    n_candidates = np.broadcast_to(np.asarray(n_candidates, dtype=np.int64), ranks.shape)
    out = {}
    for name in metrics:
        metric = parse_metric(name)
        if metric.kind == "auc":
            values = np.empty_like(ranks)
            for n in np.unique(n_candidates):
                mask = n_candidates == n
                values[mask] = metric(ranks[mask], int(n))
        else:
            values = metric(ranks)
        out[metric.name] = float(values.mean())
    return out
