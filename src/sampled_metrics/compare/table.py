"""The results table of k recommenders evaluated on the same users: per recommender and
metric the answer of ``correct``, the recommenders in order, and for every pair the verdict
of ``compare`` with the family-wise error over all pairs and metrics controlled.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..checks import check_integer, check_level
from ..design import Design
from ..estimators.dispatch import estimate_from_histogram
from ..estimators.histogram import sampled_rank_histogram
from ..evaluators.catalogue import resolve_evaluator
from ..intervals.recommended import RECOMMENDED
from ..intervals.table import (DEFAULT_CORRECTIONS, correct, correct_positions,
                               correction_names, is_recommended)
from ..metrics import parse_metrics
from ..multipositive.longformat import LongPositions, check_pools, read_long, \
    resolve_long_evaluator
from ..multipositive.positives import DEFAULT_THIN_TO
from ..parallel import map_items
from ..registry import DEFAULT_METRICS, resolve_name
from ..sampling import check_sampling
from ..seeds import generator
from .bias import MES_ETA
from .familywise import FAMILYWISE_METHODS, familywise_draws, familywise_levels
from .matching import check_positive_tables
from .paired import (COMPARE_COLUMNS, ESTIMATOR_METHODS, PRIOR_METHODS, check_sampled,
                     pair_frame, pair_rows, parse_methods, positive_draws, rank_draws)
from .verdicts import VERDICTS, check_interval_draws

__all__ = ["ResultsTable", "results_table", "MODEL_COLUMNS", "PAIR_COLUMNS",
           "VERDICT_METHODS"]

#: the verdicts' method by input: BV 0.1, the bias-aware correction whose verdicts held the
#: family-wise level on the ML-1M study's six models (MES's did not: its AUC is biased
#: differently for different models) and the one the long format allows
VERDICT_METHODS = {"ranks": "bv_0.1", "positions": "bv_0.1"}
MODEL_COLUMNS = ["model", "letter", "metric", "correction", "value", "std_error", "ci_low",
                 "ci_high", "covers", "users", "beats"]
PAIR_COLUMNS = COMPARE_COLUMNS + ["level"]


class ResultsTable(NamedTuple):
    """What :func:`results_table` returns.

    ``models``: one row per (model, metric, correction) in table order (:data:`MODEL_COLUMNS`:
    the model's ``letter``, the columns of ``correct`` and ``beats``, the letters of the
    models it beats on that metric, on the rows of the ``headline`` correction).
    ``pairs``: one row per (pair, metric), a above b in table order (:data:`PAIR_COLUMNS`:
    compare's columns for the verdicts' method and the ``level`` the pair was read at).
    Both frames carry the notes in ``attrs['notes']``. The rest says how the table was
    made: the ``headline`` correction that orders the models, the verdicts' ``method``, the
    ``familywise`` procedure and ``level``, the ``bootstrap`` draws, the ``sampling`` law,
    the ``evaluator`` (None where not named) and n, m (None for the long format, whose rows
    give them per user)."""
    models: pd.DataFrame
    pairs: pd.DataFrame
    headline: str
    method: str
    familywise: str
    level: float
    bootstrap: int
    sampling: str
    evaluator: str | None = None
    n: int | None = None
    m: int | None = None

    @property
    def notes(self) -> list[str]:
        return self.models.attrs["notes"]


def results_table(inputs: Mapping, metrics=DEFAULT_METRICS, corrections=DEFAULT_CORRECTIONS,
                  *, n: int | None = None, m: int | None = None, sampling: str | None = None,
                  evaluator: str | Design | None = None,
                  verdict_method: str | None = None,
                  familywise: str = "maxstat", level: float = 0.95,
                  bootstrap: int | None = None, seed: int = 0, thin_to: int | None = None,
                  processes: int = 1) -> ResultsTable:
    """The results table of k >= 2 recommenders evaluated on the same users.

    Per recommender and metric: the rows of :func:`~sampled_metrics.correct` (one sampled
    rank per user) or :func:`~sampled_metrics.intervals.table.correct_positions` (the long
    format) for ``corrections``, with the same ``bootstrap``, ``level`` and ``seed``. The
    models are ordered by the value of the ``headline`` correction (``recommended`` when
    asked for, else the first) on the first metric, highest first, and lettered a, b, ...
    in that order. For every pair (a above b) and metric: the row of
    :func:`~sampled_metrics.compare.compare_ranks` (or ``compare_positives``) for the
    ``verdict_method``, from the same paired bootstrap over users, read at the level the
    family-wise procedure sets for it (:mod:`~sampled_metrics.compare.familywise`): D^ =
    (1/U) sum_u M^(r~_{a,u}) - M^(r~_{b,u}), [low, high] the hull of the percentile
    intervals of D^ and D^ - b^ at that level, ``a_better`` iff low > 0. Over the H = k (k - 1)
    / 2 x K pairs and metrics, the chance of any confidently wrong verdict is at most
    1 - ``level`` (under the bootstrap's approximation; a method's own bias beyond the
    hull's allowance is not covered).

    Parameters
    ----------
    inputs : mapping name -> sampled ranks or long format
        Either every value an array of sampled ranks r~ in 1..m+1 (the same users in the
        same order), or every value the long format of positions (a CSV path, a DataFrame
        or :func:`~sampled_metrics.multipositive.longformat.read_long`'s result; users
        matched by id, each with the same k, N and M in every input).
    metrics : str or sequence of str
    corrections : sequence of str
        The rows per model, as ``correct`` takes them.
    n, m : int
        Items and sampled negatives (sampled ranks only; the long format gives them per
        user); m may be None with ``evaluator``: its own number.
    sampling : str, optional
        The law of the negatives: the evaluator's where ``evaluator`` is given (a
        contradicting one is refused), else default ``binomial``.
    evaluator : str or Design, optional
        The evaluator whose law it is, resolved once with ``sampling`` and m
        (:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator`, the one rule), or
        the design already resolved (taken as it is, m where m is None; a ``sampling``
        given must be its law). The long format's ``evaluator`` column counts as
        ``evaluator``: every input must name the same, and an ``evaluator`` given must be
        it.
    verdict_method : str, optional
        The verdicts' method (:data:`~sampled_metrics.registry.COMPARE_METHODS` but ``mle``,
        which refits): default :data:`VERDICT_METHODS`, the correction ``bv_0.1`` (with
        its estimated bias on the difference for sampled ranks; for the long format, whose
        bias on a difference is unknown, its bootstrap interval alone).
    familywise : {'maxstat', 'holm'}
        :func:`~sampled_metrics.compare.familywise.familywise_levels`.
    level : float in (0, 1)
        The level of every model's interval and the family-wise level of the verdicts.
    bootstrap : int, optional
        Draws of the bootstrap over users (the models' intervals and the pairs'); default
        :func:`~sampled_metrics.compare.familywise.familywise_draws`, the fewest (and at
        least 2000) the procedure can always read the family with: 2 H S / (1 - level) for
        ``maxstat`` (S = 2 statistics per comparison where the verdict has a bias term, else
        1), 2 H / (1 - level) for ``holm``.
    seed : int
        Seed of both bootstraps (the pairs': ``seeds.generator(seed, 'compare')``, as
        ``compare_ranks``).
    thin_to : int, optional
        The long format: the thinned list's size of CLS / BV (default 100).
    processes : int
        Worker processes for the models' answers (same result for any number).

    Returns
    -------
    ResultsTable

    Examples
    --------
    >>> import numpy as np
    >>> from sampled_metrics import draw_sampled_ranks
    >>> rng = np.random.default_rng(0)
    >>> r = rng.geometric(0.01, 3000).clip(1, 2000)            # A's true ranks
    >>> sampled = {name: draw_sampled_ranks(np.minimum(f * r, 2000), 2000, 100, rng=rng)
    ...            for name, f in [("B", 3), ("A", 1), ("C", 1)]}
    >>> t = results_table(sampled, ["recall@10"], ["recommended"], n=2000, m=100)
    >>> t.models[["model", "letter", "beats"]].values.tolist()
    [['A', 'a', 'c'], ['C', 'b', 'c'], ['B', 'c', '']]
    >>> t.pairs[["a", "b", "verdict"]].values.tolist()
    [['A', 'C', 'not_distinguishable'], ['A', 'B', 'a_better'], ['C', 'B', 'a_better']]
    """
    if not isinstance(inputs, Mapping):
        raise ValueError(f"inputs must be a mapping name -> sampled ranks or long format, "
                         f"got {type(inputs).__name__}")
    if len(inputs) < 2:
        raise ValueError(f"a results table needs at least two models, got {len(inputs)}")
    names = [str(x) for x in inputs]
    for name, shown in zip(inputs, names):
        if not shown.strip():
            raise ValueError(f"a model's name must not be blank, got {name!r}")
    if len(set(names)) < len(names):
        twice = next(x for x in names if names.count(x) > 1)
        raise ValueError(f"model {twice!r} is named twice")
    long = [_is_long(x) for x in inputs.values()]
    if any(long) and not all(long):
        raise ValueError("give every model as sampled ranks or every model in the long "
                         "format, not both")
    kind = "positions" if long[0] else "ranks"
    metric_list = parse_metrics(metrics, distinct=True)
    names_given = [RECOMMENDED if is_recommended(x) else x
                   for x in correction_names(corrections)]
    headline = RECOMMENDED if RECOMMENDED in names_given else names_given[0]
    check_level("level", level)
    familywise = resolve_name("family-wise procedure", familywise, FAMILYWISE_METHODS)
    label = _verdict_method(verdict_method, kind)
    H = len(names) * (len(names) - 1) // 2 * len(metric_list)
    if bootstrap is None:
        # two statistics per comparison (D^ and D^ - b^) where the verdict has a bias term
        S = 1 if kind == "positions" or label in ESTIMATOR_METHODS else 2
        bootstrap = familywise_draws(H, S, level, familywise)
    check_interval_draws("bootstrap", bootstrap, level)
    seed = check_integer("seed", seed, 0)
    processes = check_integer("processes", processes, 1)
    values = dict(zip(names, inputs.values()))
    options = dict(level=level, bootstrap=int(bootstrap), seed=seed)
    if kind == "ranks":
        design = _ranks_design(evaluator, sampling, m, n)
        if design.n is None or design.m is None:
            raise ValueError("n and m are needed with sampled ranks")
        n, m, sampling = design.n, design.m, design.sampling
        evaluator = None if design.evaluator is None else design.evaluator.name
        values = check_sampled(values, m)
        answers = map_items(_rank_answer, list(values.items()), design, metric_list,
                            names_given, options, processes=processes)
    else:
        if n is not None or m is not None:
            raise ValueError("n and m do not apply to the long format (every row gives its "
                             "user's n_nonrelevant and n_negatives)")
        values, sampling, evaluator = _read_long(values, sampling, evaluator,
                                                 RECOMMENDED in names_given)
        answers = map_items(_long_answer, list(values.items()), metric_list, names_given,
                            sampling, options, thin_to, processes=processes)
    rows = {name: answer[0] for name, answer in zip(names, answers)}
    order = _order(rows, headline, metric_list[0].name, names)
    if kind == "ranks":
        # compare's default plug-in (MES) for the bias of every method
        draws = rank_draws({x: values[x] for x in order}, design, metric_list, [label],
                           bootstrap=int(bootstrap),
                           rng=generator(seed, "compare"),
                           pis={x: answers[names.index(x)][1] for x in order})
    else:
        draws = positive_draws({x: values[x].table for x in order}, metric_list, [label],
                               sampling, bootstrap=int(bootstrap), seed=seed,
                               thin_to=DEFAULT_THIN_TO if thin_to is None else thin_to)
    pairs = _pairs(draws, order, metric_list, label, level, familywise)
    letters = {x: _letter(i) for i, x in enumerate(order)}
    models = _models(rows, order, letters, pairs, headline)
    notes = _notes(rows, pairs, label, familywise, level, int(bootstrap), len(order),
                   metric_list, kind)
    models.attrs["notes"] = list(notes)
    pairs.attrs["notes"] = list(notes)
    return ResultsTable(models, pairs, headline, label, familywise, float(level),
                        int(bootstrap), sampling, evaluator, n, m)


def _ranks_design(evaluator, sampling, m, n) -> Design:
    """The design of sampled ranks of ``n`` items: ``evaluator`` resolved with ``sampling``
    and ``m`` (:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator`), or the
    design it already is, with ``n`` and ``m`` where given; a ``sampling`` other than its
    law is refused."""
    if not isinstance(evaluator, Design):
        return resolve_evaluator(evaluator, sampling=sampling, m=m, long=False, n=n)
    if sampling is not None and check_sampling(sampling) != evaluator.sampling:
        raise ValueError(f"sampling {sampling!r} contradicts the evaluator's design, whose "
                         f"ranks follow the {evaluator.sampling} law")
    if n is None and m is None:
        return evaluator
    return Design(evaluator.n if n is None else n, evaluator.m if m is None else m,
                  evaluator.sampling, evaluator.evaluator)


def _is_long(value) -> bool:
    """Whether an input is in the long format (a path, a frame or read positions)."""
    return isinstance(value, (str, Path, pd.DataFrame, LongPositions))


def _verdict_method(method, kind: str) -> str:
    """The verdicts' method, checked: one name, not a refitting estimator, a correction for
    the long format."""
    labels = parse_methods(VERDICT_METHODS[kind] if method is None else method)
    if len(labels) != 1:
        raise ValueError(f"the verdicts take one method, got {', '.join(labels)}")
    label = labels[0]
    if label == "mle":
        raise ValueError("the verdicts' method cannot be 'mle': its interval refits the "
                         "estimator on a few replicates, too few for a family-wise level")
    if kind == "positions" and label in ESTIMATOR_METHODS + PRIOR_METHODS:
        raise ValueError(f"with several positives per user the verdicts take a correction, "
                         f"not {label} (it estimates a rank distribution from one positive "
                         f"per user)")
    return label


def _rank_answer(item, design, metric_list, corrections, options):
    """One model's table of ``correct`` and its MES plug-in (a worker's task)."""
    name, ranks = item
    table = correct(ranks, design, None, [x.name for x in metric_list], corrections,
                    **options)
    pi = estimate_from_histogram(sampled_rank_histogram(ranks, design.m), design,
                                 estimator="mes", eta=MES_ETA)
    return table, pi


def _long_answer(item, metric_list, corrections, sampling, options, thin_to):
    """One model's table of ``correct_positions`` (a worker's task)."""
    name, long = item
    return (correct_positions(long, [x.name for x in metric_list], corrections,
                              sampling=sampling, thin_to=thin_to, **options), None)


def _read_long(values: dict, sampling, evaluator, recommended: bool):
    """Each model's long format read, checked to belong to one evaluation (one evaluator,
    the same users with the same k, N and M), the law they follow and their evaluator."""
    read = {name: read_long(x) for name, x in values.items()}
    recorded = {name: x.evaluator for name, x in read.items() if x.evaluator is not None}
    named = next(iter(recorded.values()), None)
    for name, other in recorded.items():
        if other != named:
            first = next(iter(recorded))
            raise ValueError(f"{first} names evaluator {named}, but {name} names {other}: "
                             f"the models must be one evaluation's")
    where = read[next(iter(recorded))] if recorded else next(iter(read.values()))
    if isinstance(evaluator, Design):
        # resolved without the column: its entry (no second look-up) and law, held against it
        evaluator, sampling = evaluator.evaluator, sampling or evaluator.sampling
    design = resolve_long_evaluator(evaluator, named, where, sampling=sampling)
    for x in read.values():
        check_pools(x, design.sampling, recommended)
    check_positive_tables({name: x.table for name, x in read.items()},
                          {name: x.users for name, x in read.items()})
    # the evaluator, the columns' included, is resolved into the law passed on
    read = {name: x._replace(evaluator=None) for name, x in read.items()}
    return read, design.sampling, None if design.evaluator is None else design.evaluator.name


def _order(rows: dict, headline: str, metric: str, names: list) -> list:
    """The models by their headline value on the first metric, highest first (ties: as
    given)."""
    def value(name):
        table = rows[name]
        row = table[(table.metric == metric) & (table.correction == headline)]
        return float(row.value.iloc[0])
    return sorted(names, key=lambda x: (-value(x), names.index(x)))


def _pairs(draws, order, metric_list, label, level, familywise) -> pd.DataFrame:
    """Every pair's row at the level the family-wise procedure sets for it."""
    pairs = list(itertools.combinations(order, 2))
    stats = []
    for a, b in pairs:
        diff, bias = draws.pair(a, b)
        parts = [diff[1:, :, 0]] + ([] if bias is None else [diff[1:, :, 0] - bias[1:, :, 0]])
        stats.append(np.stack(parts, axis=-1))                             # (B, K, S)
    levels, _ = familywise_levels(np.concatenate(stats, axis=1), level, familywise)
    levels = levels.reshape(len(pairs), len(metric_list))
    rows = []
    for p, (a, b) in enumerate(pairs):
        for at in np.unique(levels[p]):
            keep = {x.name for x, lv in zip(metric_list, levels[p]) if lv == at}
            rows += [row + (float(at),) for row in pair_rows(draws, a, b, float(at))
                     if row[2] in keep]
    frame = pair_frame([row[:-1] for row in rows], order, metric_list, [label])
    at = {(row[0], row[1], row[2]): row[-1] for row in rows}
    frame["level"] = [at[(a, b, x)] for a, b, x in zip(frame.a, frame.b, frame.metric)]
    return frame[PAIR_COLUMNS]


def _letter(i: int) -> str:
    """a, b, ..., z, aa, ab, ...: the i-th model's letter."""
    out = ""
    i += 1
    while i:
        i, rest = divmod(i - 1, 26)
        out = chr(ord("a") + rest) + out
    return out


def _models(rows: dict, order: list, letters: dict, pairs: pd.DataFrame,
            headline: str) -> pd.DataFrame:
    """The models' rows in table order with their letter and what each beats."""
    beats = {}
    for row in pairs.itertuples():
        if row.verdict != VERDICTS[2]:
            win, lose = (row.a, row.b) if row.verdict == VERDICTS[0] else (row.b, row.a)
            beats.setdefault((win, row.metric), []).append(lose)
    parts = []
    for name in order:
        table = rows[name].copy()
        table.insert(0, "letter", letters[name])
        table.insert(0, "model", name)
        table["beats"] = [
            "".join(sorted((letters[x] for x in beats.get((name, metric), [])),
                           key=lambda s: (len(s), s))) if correction == headline else ""
            for metric, correction in zip(table.metric, table.correction)]
        parts.append(table)
    return pd.concat(parts, ignore_index=True)[MODEL_COLUMNS]


def _notes(rows, pairs, label, familywise, level, bootstrap, k, metric_list, kind) -> list:
    """The lines the table carries: what the verdicts are and at which level, and the
    models' notes (``correct``'s)."""
    H = len(pairs)
    procedure = {"maxstat": "max-statistic paired bootstrap, step-down",
                 "holm": "Holm's step-down on the paired bootstrap"}[familywise]
    lo, hi = pairs.level.min(), pairs.level.max()
    at = f"{lo:.4g}" if lo == hi else f"{lo:.4g} to {hi:.4g}"
    notes = [f"verdicts: {label}, paired and bias-aware as compare's, over {H} comparisons "
             f"({k * (k - 1) // 2} pairs x {len(metric_list)} metrics), family-wise level "
             f"{level:g} ({procedure}, {bootstrap} draws): each read at level {at}"]
    if kind == "positions":
        notes.append("several positives per user: a correction's bias on a difference is "
                      "unknown, so the verdicts come from the bootstrap interval alone")
    seen = []
    for table in rows.values():
        seen += [x for x in table.attrs.get("notes", []) if x not in seen]
    return notes + seen
