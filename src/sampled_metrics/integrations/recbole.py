"""Corrected metrics from RecBole's own sampled evaluation (``uni<N>``, ``pop<N>``).

Three lines around RecBole's trainer::

    from sampled_metrics.integrations.recbole import capture
    record = capture(trainer)                                   # before evaluating
    result = trainer.evaluate(test_data, load_best_model=False)  # RecBole's own numbers
    print(record.correct(["recall@10", "ndcg@10"], ["sampled", "cls", "bv_0.1"]))

:func:`capture` wraps the trainer's sampled-evaluation step. For every user of every
``trainer.evaluate`` call it records what RecBole really ranked: each test positive's
position among the user's candidates (in RecBole's own order, ties included), the number
of candidates, the number of distinct negatives and of draws, and the size of the pool the
negatives come from.

What RecBole's ``uni<N>`` does (RecBole 1.2). For a user with k test positives it draws
M = N k negatives uniformly *with replacement* from the user's pool (the N_u items, padding
excluded, in none of the user's training, validation and test sets), then writes every
candidate's score into a users x items matrix. A negative drawn twice is written twice
into the same cell: duplicates collapse, and the user's list holds the k positives and
D <= M *distinct* negatives (the fewer items in the pool, the fewer). Conditional
on D, the set of distinct negatives is a uniform D-subset of the pool (every sequence of M
draws with the same set of D items has the same probability), so the number y of sampled
negatives above a positive with x non-relevant items above it in the full ranking is

    y | x, D ~ Hypergeom(N_u, x, D),

the without-replacement law with m = D. The capture therefore reports ``n_negatives`` = D
and corrects with ``sampling="hypergeometric"``; reading RecBole's list as M draws with
replacement (the binomial law at m = N k) overstates the sampled negatives. The two laws'
expectations are compared with RecBole's measured metric by
``workflow/validation/recbole_law.py`` (:func:`law_expectations`).

``pop<N>`` draws each negative with probability q_j = w_j / sum_{i in pool} w_i, with
w_j = (c_j / C)^alpha (c_j: item j's interactions in the training, validation and test
sets, C their total; alpha = RecBole's ``alpha``), rejecting used items. The positions of
popularity-sampled negatives do not identify the full rank; the capture records every
draw (with its multiplicity) and whether it is ranked above the positive, and corrects
with the Horvitz-Thompson rank estimate of :mod:`sampled_metrics.multipositive.weighted` (corrections
``sampled`` and ``weighted_rank_estimate``).

Ties. RecBole orders a user's list with ``torch.topk`` on the score matrix; the capture
reruns that same call, so positions within the top K = max(``topk``) are exactly RecBole's;
below it, candidates follow in a stable descending sort of the scores. ``n_tied`` counts the
other candidates with a positive's score.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..checks import check_integer
from ..intervals import DEFAULT_CORRECTIONS, correct_positions
from ..intervals.table import correction_names
from ..metrics import parse_metrics
from ..multipositive.longformat import (DRAW_COLUMNS, POSITION_COLUMNS, read_positions,
                                        summarise_long)
from ..multipositive.positives import DEFAULT_THIN_TO, multi_positive_metric
from ..sampling import expected_sampled_metric

__all__ = ["capture", "Capture", "Evaluation", "law_expectations"]

#: RecBole's names of its sampling distributions, and the law the capture corrects with.
LAWS = {"uniform": "hypergeometric", "popularity": "weighted", "full": "exact"}


@dataclass
class Evaluation:
    """What one ``trainer.evaluate`` call ranked: one row per test positive (``positives``)
    and, for popularity sampling, one row per (positive, draw) (``draws``).
    ``distribution`` is RecBole's (``uniform``, ``popularity``) or ``full`` for a full
    ranking (its frame holds the exact positions: n_negatives = n_nonrelevant, every
    non-history item)."""

    distribution: str
    alpha: float
    phase: str
    top_k: int
    positives: list = field(default_factory=list)
    draws: list = field(default_factory=list)
    result: dict | None = None


class Capture:
    """Records a RecBole trainer's sampled evaluations; made by :func:`capture`.

    Attributes
    ----------
    evaluations : list of Evaluation
        One per ``trainer.evaluate`` call on a sampled (``uni<N>``/``pop<N>``) dataloader
        while the capture is on; ``evaluation=-1`` in the methods below is the last.
    """

    def __init__(self, trainer):
        self.evaluations: list[Evaluation] = []
        self._trainer = trainer
        self._evaluate = trainer.evaluate
        self._batch_eval = trainer._neg_sample_batch_eval
        self._full_batch_eval = trainer._full_sort_batch_eval
        self._current: Evaluation | None = None
        self._pool = None
        trainer.evaluate = self._wrapped_evaluate
        trainer._neg_sample_batch_eval = self._wrapped_batch
        trainer._full_sort_batch_eval = self._wrapped_full_batch

    def stop(self) -> None:
        """Restore the trainer's own methods (recorded evaluations are kept)."""
        for name in ("evaluate", "_neg_sample_batch_eval", "_full_sort_batch_eval"):
            self._trainer.__dict__.pop(name, None)

    def __enter__(self) -> "Capture":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- recording -------------------------------------------------------------------------
    def _wrapped_evaluate(self, eval_data, *args, **kwargs):
        sampler = getattr(eval_data, "_sampler", None)
        args_ = getattr(eval_data, "neg_sample_args", {}) or {}
        full = type(eval_data).__name__ == "FullSortEvalDataLoader"
        sampled = args_.get("distribution", "none") in ("uniform", "popularity") and \
            args_.get("sample_num", "none") != "none"
        if not (full or sampled):
            return self._evaluate(eval_data, *args, **kwargs)
        if not full and type(sampler).__name__ != "Sampler":
            raise ValueError(f"capture supports RecBole's general-recommendation Sampler, "
                             f"not {type(sampler).__name__} (repeatable or knowledge-graph "
                             f"evaluation)")
        config = self._trainer.config
        self._current = Evaluation("full" if full else args_["distribution"],
                                   float(getattr(sampler, "alpha", 1.0) or 1.0),
                                   str(getattr(sampler, "phase", "")),
                                   int(np.max(config["topk"])))
        self._pool = _Pool(eval_data, sampler, self._current.distribution)
        try:
            result = self._evaluate(eval_data, *args, **kwargs)
        finally:
            evaluation, self._current = self._current, None
        evaluation.result = dict(result) if result is not None else None
        self.evaluations.append(evaluation)
        return result

    def _wrapped_batch(self, batched_data):
        out = self._batch_eval(batched_data)
        if self._current is not None and out[1].dim() == 2:
            self._record(batched_data, out[1])
        return out

    def _wrapped_full_batch(self, batched_data):
        out = self._full_batch_eval(batched_data)
        if self._current is not None:
            self._record(batched_data, out[1])
        return out

    def _record(self, batched_data, scores) -> None:
        """One batch of users: positions of their positives and, per user, the distinct
        negatives, the draws and the pool (a full ranking: every non-history item)."""
        import torch
        interaction, row_idx, positive_u, positive_i = batched_data
        config = self._trainer.config
        full = self._current.distribution == "full"
        users = interaction[config["USER_ID_FIELD"]].cpu().numpy()
        positive_u, positive_i = positive_u.cpu().numpy(), positive_i.cpu().numpy()
        if full:                                     # one interaction row per user
            row_idx, items = np.arange(users.size), None
        else:
            row_idx = row_idx.cpu().numpy()
            items = interaction[config["ITEM_ID_FIELD"]].cpu().numpy()
        K = min(self._current.top_k, scores.shape[1])
        top = torch.topk(scores, K, dim=-1).indices            # RecBole's own call
        rest = torch.sort(scores, dim=-1, descending=True, stable=True).indices
        position = _positions(top, rest).cpu().numpy()
        values = scores.cpu().numpy()
        for b in range(int(positive_u[-1]) + 1):
            uid = int(users[row_idx == b][0])
            pos_items = np.unique(positive_i[positive_u == b])
            row_values = values[b]
            if full:
                candidates = np.flatnonzero(row_values > -np.inf)
                drawn = distinct = np.setdiff1d(candidates, pos_items)
                pool = distinct.size
            else:
                drawn = items[row_idx == b]
                drawn = drawn[~np.isin(drawn, pos_items)]      # the M draws, repeats kept
                distinct = np.unique(drawn)
                candidates = np.concatenate([pos_items, distinct])
                pool = self._pool.size(uid)
            n_candidates = pos_items.size + distinct.size
            token = self._pool.user_token(uid)
            for item in pos_items:
                p = int(position[b, item])
                if p > n_candidates:
                    raise ValueError(f"user {token}: positive ranked {p} among "
                                     f"{n_candidates} candidates (a score of -inf?)")
                tied = int(np.count_nonzero(row_values[candidates] == row_values[item])) - 1
                self._current.positives.append(
                    (token, p, pool, distinct.size, int(item), drawn.size, tied))
                if self._current.distribution == "popularity":
                    above = position[b, drawn] < p
                    prob = self._pool.probability(uid, drawn)
                    self._current.draws.extend(zip([token] * drawn.size, [p] * drawn.size,
                                                   [pool] * drawn.size, above.astype(int),
                                                   prob))

    # -- results ---------------------------------------------------------------------------
    def _evaluation(self, evaluation: int) -> Evaluation:
        if not self.evaluations:
            raise ValueError("no sampled evaluation captured yet: call trainer.evaluate on a "
                             "dataloader with eval_args mode uni<N> or pop<N> after capture()")
        evaluation = check_integer("evaluation", evaluation)
        try:
            return self.evaluations[evaluation]
        except IndexError:
            raise ValueError(f"evaluation {evaluation} not captured; there are "
                             f"{len(self.evaluations)}") from None

    def frame(self, evaluation: int = -1) -> pd.DataFrame:
        """The positions in the long format of ``sampled-metrics correct`` (one row per test
        positive: ``user, position, n_nonrelevant, n_negatives``, with n_negatives = D, the
        distinct negatives), plus ``item``, ``n_draws`` (M, repeats included) and
        ``n_tied``. Correct it on the command line with ``--sampling hypergeometric``."""
        rows = self._evaluation(evaluation).positives
        return pd.DataFrame(rows, columns=list(POSITION_COLUMNS) + ["item", "n_draws",
                                                                    "n_tied"])

    def draws_frame(self, evaluation: int = -1) -> pd.DataFrame:
        """Popularity sampling: one row per (positive, draw), the draw format of
        ``sampled-metrics correct`` (``user, position, n_nonrelevant, above, prob``)."""
        ev = self._evaluation(evaluation)
        if ev.distribution != "popularity":
            raise ValueError("draws are recorded for popularity sampling (pop<N>) only; "
                             "uniform sampling is corrected from frame()")
        return pd.DataFrame(ev.draws, columns=list(DRAW_COLUMNS))

    def metrics(self, metrics, evaluation: int = -1) -> dict:
        """RecBole's metrics recomputed from the captured positions: per metric, the mean
        over users of the metric of the user's positives in its list of k + D items (all
        its candidates for a full ranking): ``hit@10``, ``mrr@10``, ``ndcg@10``,
        ``recall@10``, ``precision@10``, ``ap@10`` (RecBole's ``map@10``)."""
        table = read_positions(self.frame(evaluation))
        positions = np.split(table.position, np.cumsum(table.k)[:-1])
        return {m.name: float(multi_positive_metric(m, positions, table.n_negatives).mean())
                for m in parse_metrics(metrics)}

    def correct(self, metrics, corrections=DEFAULT_CORRECTIONS, evaluation: int = -1,
                *, bootstrap: int = 1000, level: float = 0.95, seed: int = 0,
                thin_to: int = DEFAULT_THIN_TO) -> pd.DataFrame:
        """Corrected metrics of one captured evaluation, the table of
        :func:`sampled_metrics.correct` (``metric, correction, value, std_error, ci_low,
        ci_high, covers, users``), plus ``law`` (the sampling law used: ``hypergeometric``
        over the distinct negatives for ``uni<N>``, the weighted draws for ``pop<N>``).

        Uniform sampling takes every correction of ``sampled-metrics correct`` and gives
        the ``recommended`` row first (its interval covers
        the full-ranking metric); popularity sampling takes ``sampled`` and
        ``weighted_rank_estimate`` (its default).
        """
        ev = self._evaluation(evaluation)
        if ev.distribution == "full":
            raise ValueError("this evaluation is a full ranking: its metrics are exact and "
                             "need no correction (metrics() recomputes them)")
        if ev.distribution == "popularity":
            corrections = (("sampled", "weighted_rank_estimate")
                           if corrections == DEFAULT_CORRECTIONS
                           else correction_names(corrections))
            frame = summarise_long("draws", self.draws_frame(evaluation), metrics, corrections,
                                   bootstrap=bootstrap, level=level, seed=seed)
        else:
            frame = correct_positions(self.frame(evaluation), metrics, corrections,
                                      sampling="hypergeometric", bootstrap=bootstrap,
                                      level=level, seed=seed, thin_to=thin_to)
        frame["law"] = LAWS[ev.distribution]
        return frame


#: The methods of a RecBole Trainer that :class:`Capture` wraps.
_TRAINER_METHODS = ("evaluate", "_neg_sample_batch_eval", "_full_sort_batch_eval")


def capture(trainer) -> Capture:
    """Record every later sampled ``trainer.evaluate`` of a RecBole trainer (module
    docstring); ``record.stop()`` (or ``with capture(trainer) as record:``) ends it.

    Parameters
    ----------
    trainer : recbole.trainer.Trainer
        A trainer of a general recommender evaluated with ``eval_args.mode`` ``uni<N>`` or
        ``pop<N>`` (full-ranking evaluations pass through unrecorded).

    Returns
    -------
    Capture

    Raises
    ------
    ValueError
        If ``trainer`` lacks one of the Trainer methods the record wraps (``evaluate``,
        ``_neg_sample_batch_eval``, ``_full_sort_batch_eval``), naming it.
    """
    missing = [name for name in _TRAINER_METHODS if not callable(getattr(trainer, name, None))]
    if missing:
        raise ValueError(f"capture needs a RecBole Trainer, got {type(trainer).__name__}, "
                         f"which lacks the method{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)}")
    return Capture(trainer)


def law_expectations(exact: pd.DataFrame, sampled: pd.DataFrame, metric) -> dict:
    """Mean over users of the expected sampled metric of one ``uni<N>`` evaluation under two
    readings of RecBole's list, from the exact positions of a full ranking:

    ``hypergeometric``  E[M(r~) | r; n = N_u + 1, m = D_u], without replacement at the
                        user's distinct negatives D_u (what RecBole ranks)
    ``binomial``        E[M(r~) | r; n = N_u + 1, m = M_u], with replacement at its M_u draws

    E[M(r~) | r] = sum_s p(s | r) M(s) (KDD'20 eq. 16-19). One test positive per user
    (leave-one-out); ``exact`` and ``sampled`` are :meth:`Capture.frame` of a full and of a
    sampled evaluation of the same users.

    Examples
    --------
    >>> exact = pd.DataFrame({"user": ["a", "b"], "position": [1, 40],
    ...                       "n_nonrelevant": [99, 99], "n_negatives": [99, 99]})
    >>> sampled = exact.assign(n_negatives=[9, 10], n_draws=[10, 10])
    >>> {k: round(v, 4) for k, v in law_expectations(exact, sampled, "recall@5").items()}
    {'hypergeometric': 0.8272, 'binomial': 0.8241}
    """
    both = exact.merge(sampled, on="user", suffixes=("_full", ""), validate="one_to_one")
    if len(both) != len(exact) or len(both) != len(sampled):
        raise ValueError("a full and a sampled evaluation of the same users, one test "
                         "positive each, are needed")
    if not (both.n_nonrelevant_full == both.n_nonrelevant).all():
        raise ValueError("the full ranking's non-relevant items differ from the sampled "
                         "evaluation's pool")
    out = {}
    for law, m_column in (("hypergeometric", "n_negatives"), ("binomial", "n_draws")):
        values = np.empty(len(both))
        keys = both[["n_nonrelevant", m_column]].to_numpy()
        for (N, m), rows in pd.DataFrame(keys).groupby([0, 1]).groups.items():
            rows = np.asarray(rows)
            values[rows] = expected_sampled_metric(
                metric, both.position_full.to_numpy()[rows], int(N) + 1, int(m), law)
        out[law] = float(values.mean())
    return out


def _positions(top, rest):
    """(users, items) 1-based positions: the top K in ``top``'s order, then the other
    items in ``rest``'s (a stable descending sort)."""
    import torch
    users, n_items = rest.shape
    K = top.shape[1]
    position = torch.zeros((users, n_items), dtype=torch.long)
    in_top = torch.zeros((users, n_items), dtype=torch.bool)
    in_top.scatter_(1, top.cpu(), True)
    position.scatter_(1, top.cpu(), torch.arange(1, K + 1).expand(users, K).contiguous())
    rest = rest.cpu()
    later = ~in_top.gather(1, rest)                         # sorted order, outside the top K
    order = K + torch.cumsum(later.long(), dim=1)
    position.scatter_(1, rest, torch.where(later, order, position.gather(1, rest)))
    return position


class _Pool:
    """Per user: N_u (items the sampler may draw) and, for popularity sampling, the
    probability q_j that one draw picks item j."""

    def __init__(self, eval_data, sampler, distribution: str):
        self._dataset = eval_data._dataset
        self._uid_field = self._dataset.uid_field
        self._weights = None
        if distribution == "full":                              # no sampler: pools per row
            return
        self._used = sampler.used_ids
        self._items = int(sampler.item_num) - 1                 # id 0 is RecBole's padding
        if distribution == "popularity":
            counts = np.bincount(np.concatenate([d.inter_feat[sampler.iid_field].numpy()
                                                 for d in sampler.datasets]),
                                 minlength=int(sampler.item_num)).astype(np.float64)
            share = counts / counts.sum()
            self._weights = np.where(counts > 0, share ** float(sampler.alpha), 0.0)
            self._total = self._weights.sum()

    def size(self, uid: int) -> int:
        return self._items - len(self._used[uid])

    def user_token(self, uid: int):
        return self._dataset.id2token(self._uid_field, uid).item()

    def probability(self, uid: int, items) -> np.ndarray:
        used = np.fromiter(self._used[uid], dtype=np.int64)
        return self._weights[items] / (self._total - self._weights[used].sum())
