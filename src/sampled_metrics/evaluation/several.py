"""Exact and simulated sampled positions of several test positives per user.

The ranking of :mod:`sampled_metrics.evaluation.engine` (its scoring loop, tie keys and tie
policies), for users with k_u test positives. User u's non-relevant items are the N_u items
in neither its training set H_u nor its positives. For its positive i with score s_i,

    g_i = #{non-relevant j : ŷ_j > s_i},   e_i = #{non-relevant j : ŷ_j = s_i}

and, under ``tie='random'``, t_i = #{tied non-relevant j with a larger tie key}
(:func:`~sampled_metrics.evaluation.engine.tie_keys`). The non-relevant items above it are
x_i = r - 1 with r = ``ranks_from_counts(g_i, e_i, tie)``: g_i + e_i (pessimistic), g_i
(optimistic), g_i + t_i (random), g_i + U{0..e_i} (random_per_ranking). Its position in
the full ranking is 1 + a_i + x_i, a_i the user's positives above it (positives sorted by
x, then by score and key).

Sampled lists. Each of the sets {ŷ_j > s_i}, {ŷ_j >= s_i} and {ŷ_j > s_i, or = s_i with a
larger key} is a prefix, of length g_i, g_i + e_i or g_i + t_i, of one total order of the
non-relevant items (score, then key, descending). A draw of M_u negatives is therefore
known to every positive from D(c), the draws among the first c items, at those cuts
(:mod:`sampled_metrics.multipositive.draws`), and the drawn negatives above positive i are
``ranks_from_counts(D(g), D(g+e) - D(g), tie, n_above=D(g+t) - D(g)) - 1`` under the same
tie policy as the exact ranking (fresh uniforms under ``random_per_ranking``).

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> from sampled_metrics.multipositive.holdout import Positives
>>> class Fixed:
...     def score(self, users):
...         return np.tile([5.0, 4.0, 3.0, 2.0, 1.0], (len(users), 1))
>>> pos = Positives(sp.csr_matrix((1, 5)), users=[0], user_row=[0, 0], item=[1, 3])
>>> ranked = rank_positives(Fixed(), pos, "pessimistic", seed=0)
>>> ranked.x.tolist(), ranked.exact_positions().tolist()   # items 0 and 2 are non-relevant
([1, 2], [2, 4])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..multipositive.draws import categorical_counts, popularity_table, prefix_sums, uniform_counts
from ..multipositive.holdout import Positives
from ..seeds import generator
from .engine import check_scores, check_tie, ranks_from_counts, score_blocks, tie_keys
from .negatives import BLOCK_USERS

__all__ = ["PositiveRanks", "rank_positives"]


@dataclass
class PositiveRanks:
    """The exact ranking of every test positive, and what its sampled lists need.

    Attributes
    ----------
    tie : str
        The tie policy.
    row : int array (P,)
        Each positive's user row (in ``Positives.users``), ascending.
    g, e, t : int arrays (P,)
        Non-relevant items scored above it, tied with it, tied with a larger key (module
        docstring; ``t`` is zero unless ``tie='random'``).
    x : int array (P,)
        Non-relevant items above it in the full ranking.
    order : int array (P,)
        Its position in the user's total order of all items (ties among positives).
    n_nonrelevant : int array (U,)
        N_u.
    items : list of int arrays (b, width)
        Per draw block, each user's non-relevant items in the total order (then padding).
    """

    tie: str
    row: np.ndarray
    g: np.ndarray
    e: np.ndarray
    t: np.ndarray
    x: np.ndarray
    order: np.ndarray
    n_nonrelevant: np.ndarray
    items: list

    def exact_positions(self) -> np.ndarray:
        """1 + a_i + x_i of each positive (in the order of ``row``)."""
        return _positions(self.row, self.x, self.order)

    def _blocks(self):
        """(block, user rows slice, positives slice) of every draw block."""
        U = self.n_nonrelevant.size
        bounds = np.searchsorted(self.row, np.arange(0, U + BLOCK_USERS, BLOCK_USERS))
        for block, lo in enumerate(range(0, U, BLOCK_USERS)):
            yield block, slice(lo, min(U, lo + BLOCK_USERS)), slice(bounds[block],
                                                                    bounds[block + 1])

    def _above(self, D: dict, rng) -> np.ndarray:
        """Drawn negatives above each positive of a block, from D at the cuts the tie policy
        reads (:meth:`_cuts`): D(g + e) pessimistic, D(g) optimistic, D(g + t) random, and
        ``ranks_from_counts(D(g), D(g + e) - D(g))`` - 1 under random_per_ranking."""
        if self.tie == "random_per_ranking":
            return ranks_from_counts(D["g"], D["g+e"] - D["g"], self.tie, rng) - 1
        return D[_CUT[self.tie]]

    def uniform_positions(self, M, replace: bool, streams) -> np.ndarray:
        """Sampled positions 1 + a_i + y_i of each positive under M_u uniform draws.

        Parameters
        ----------
        M : int array (U,)
            Negatives drawn per user.
        replace : bool
            With replacement (binomial) or without (hypergeometric).
        streams : callable
            ``streams(block)`` -> the numpy Generator of a draw block.
        """
        y = np.empty_like(self.x)
        for block, users, sl in self._blocks():
            rng = streams(block)
            row = self.row[sl] - users.start
            cuts = self._cuts(sl)
            D = uniform_counts(rng, np.concatenate(list(cuts.values())),
                               np.tile(row, len(cuts)), self.n_nonrelevant[users], M[users],
                               replace)
            y[sl] = self._above(dict(zip(cuts, np.split(D, len(cuts)))), rng)
        return _positions(self.row, y, self.order)

    def popularity_positions(self, M, popularity, alpha: float, streams
                             ) -> tuple[np.ndarray, np.ndarray]:
        """Sampled positions and weighted rank estimates 1 + x^_i of each positive under
        M_u draws with replacement, item j with probability ∝ popularity_j^alpha among the
        user's non-relevant items.

        x^_i = (1 / M_u) sum over the draws above the positive of 1 / q_j, the draws above
        being those y_i counts (under ``random_per_ranking``, where y_i takes a uniform
        number of the tied draws, the tied draws' sum of 1 / q_j counts in the same share).
        """
        y = np.empty_like(self.x)
        xhat = np.empty(self.x.size)
        for block, users, sl in self._blocks():
            rng = streams(block)
            row = self.row[sl] - users.start
            N = self.n_nonrelevant[users]
            qn = popularity_table(self.items[block], N, popularity, alpha)
            D, W = prefix_sums(categorical_counts(rng, qn, N, M[users]), qn)
            cuts = self._cuts(sl)
            drawn = {name: D[row, c] for name, c in cuts.items()}
            yb = self._above(drawn, rng)
            if self.tie == "random_per_ranking":     # a uniform share of the tied draws
                Dg, De = drawn["g"], drawn["g+e"]
                Wg, We = W[row, cuts["g"]], W[row, cuts["g+e"]]
                with np.errstate(invalid="ignore", divide="ignore"):
                    w = Wg + np.where(De > Dg, (yb - Dg) / (De - Dg), 0.0) * (We - Wg)
            else:
                w = W[row, cuts[_CUT[self.tie]]]
            y[sl], xhat[sl] = yb, 1.0 + w / M[users][row]
        return _positions(self.row, y, self.order), xhat

    def _cuts(self, sl) -> dict:
        """The cuts the tie policy reads, of the positives at ``sl``: name -> prefix
        lengths (``g``, ``g+e``, ``g+t``)."""
        g = self.g[sl]
        offset = {"g": 0, "g+e": self.e[sl], "g+t": self.t[sl]}
        names = ("g", "g+e") if self.tie == "random_per_ranking" else (_CUT[self.tie],)
        return {name: g + offset[name] for name in names}


#: the one cut each tie policy but random_per_ranking reads
_CUT = {"pessimistic": "g+e", "optimistic": "g", "random": "g+t"}


def _positions(row, above, order) -> np.ndarray:
    """1 + a_i + above_i, a_i the user's positives before i when sorted by (above, order)."""
    srt = np.lexsort((order, above, row))
    a = np.empty_like(row)
    starts = np.searchsorted(row, row[srt], side="left")
    a[srt] = np.arange(row.size) - starts
    return 1 + a + above


def rank_positives(model, positives: Positives, tie: str, seed: int) -> PositiveRanks:
    """The exact ranking of every test positive of ``positives`` by a fitted model.

    Users are scored draw block by draw block (:func:`~.engine.score_blocks`); the tie keys
    are :func:`~.engine.tie_keys` ``(seed, block)`` and the tie draws of the exact ranking
    ``seeds.generator(seed, "ties", "exact", block)``, as in :func:`~.engine.evaluate`.
    ``tie='average'`` is refused (sampled positions must be integers).
    """
    tie = check_tie(tie)
    if tie == "average":
        raise ValueError("tie policy 'average' gives half-integer positions, which the "
                         "corrections cannot index; use 'random' or 'random_per_ranking' "
                         "(whose expectation it is), 'pessimistic' or 'optimistic'")
    train, users = positives.train, positives.users
    n_items = train.shape[1]
    starts = np.concatenate([[0], np.cumsum(positives.k)])
    parts, items = [], []
    for block, rows, scores in score_blocks(model, users, label="rank positives"):
        check_scores(scores)
        b = scores.shape[0]
        p = slice(starts[rows.start], starts[rows.stop])
        prow, pitem = positives.user_row[p] - rows.start, positives.item[p]
        nonrel = ~np.asarray(train[users[rows]].todense(), dtype=bool)
        nonrel[prow, pitem] = False
        keyed = tie == "random"
        if keyed:
            order = np.lexsort((-tie_keys(seed, block, scores.shape), -scores), axis=-1)
        else:
            order = np.argsort(-scores, axis=-1, kind="stable")
        position = np.empty_like(order)
        position[np.arange(b)[:, None], order] = np.arange(n_items)[None, :]
        ranked = np.take_along_axis(scores, order, axis=1)
        nonrel_ranked = np.take_along_axis(nonrel, order, axis=1)
        below = np.concatenate([np.zeros((b, 1), np.int64),
                                np.cumsum(nonrel_ranked, axis=1)], axis=1)
        # the first and one past the last place of each place's score group
        at = np.arange(n_items)[None, :]
        new = np.concatenate([np.ones((b, 1), bool), ranked[:, 1:] != ranked[:, :-1]], axis=1)
        first = np.maximum.accumulate(np.where(new, at, 0), axis=1)
        end = np.concatenate([new[:, 1:], np.ones((b, 1), bool)], axis=1)
        last = np.minimum.accumulate(np.where(end, at, n_items)[:, ::-1], axis=1)[:, ::-1] + 1
        place = position[prow, pitem]
        g = below[prow, first[prow, place]]
        e = below[prow, last[prow, place]] - g
        t = below[prow, place] - g if keyed else np.zeros_like(g)
        x = ranks_from_counts(g, e, tie, generator(seed, "ties", "exact", block),
                              n_above=t if keyed else None) - 1
        parts.append((prow + rows.start, g, e, t, x, place))
        N = nonrel_ranked.sum(axis=1)
        width = max(int(N.max(initial=0)), 1)
        block_items = np.zeros((b, width), dtype=np.int32)
        block_items[np.arange(width)[None, :] < N[:, None]] = order[nonrel_ranked]
        items.append(block_items)
    row, g, e, t, x, place = (np.concatenate(v) for v in zip(*parts))
    return PositiveRanks(tie, row, g, e, t, x, place, positives.n_nonrelevant(), items)
