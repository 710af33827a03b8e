"""The table of ``estimate``: per metric and estimator, the metric read off the estimated
rank distribution, metric = sum_r P^(r) M(r) (Jin et al. eq. 14), with a percentile
bootstrap interval over users that covers the users' noise, not the estimator's bias.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..checks import available_cpus, check_allocation, check_bootstrap_draws, \
    check_distinct, check_integer, check_sampled_ranks
from ..logs import progress
from ..metrics import parse_metrics
from ..registry import DEFAULT_METHODS, name_list
from ..resampling import COVERS_NOISE, bootstrap_histograms, percentile_interval
from ..evaluators.catalogue import design_of
from .dispatch import estimate_each, parse_estimator
from .histogram import check_law_matrix_size, sampled_rank_histogram

__all__ = ["DEFAULT_ESTIMATORS", "ESTIMATE_NOTE", "WMLE_NOTE", "estimate", "check_estimate_size"]

#: what ``estimate`` gives unless told otherwise (wmle, biased, only when named)
DEFAULT_ESTIMATORS = DEFAULT_METHODS["estimate"]
#: the lines below every ``estimate`` table (``DataFrame.attrs['notes']``)
ESTIMATE_NOTE = ("these intervals cover the users' noise around each estimate, not its bias; "
                 "for an interval that covers the full-ranking metric, see the 'recommended' "
                 "row of sampled-metrics correct")
WMLE_NOTE = ("wmle weighs the likelihood by the metric, which biases it: its value can lie "
             "far from the full-ranking metric")


def check_estimate_size(n: int, m: int, bootstrap: int, name: str = "bootstrap") -> None:
    """Refuse, before any is made, arrays of :func:`estimate` larger than the memory: the
    law matrix (n, m+1) and the ``bootstrap`` estimated distributions over n ranks
    (one-line ValueError naming ``name``)."""
    check_law_matrix_size(n, m)
    check_allocation(bootstrap * n, f"{name} {bootstrap} estimated distributions over the "
                     f"n = {n} true ranks")


def estimate(sampled_ranks, n: int, m: int | None, metrics, estimators=DEFAULT_ESTIMATORS, *,
             sampling: str | None = None, bootstrap: int = 100, level: float = 0.95,
             seed: int = 0, processes: int | None = 1, options: dict | None = None,
             evaluator: str | None = None) -> pd.DataFrame:
    """Metrics from the rank distribution P^ each estimator infers from sampled ranks.

    metric = sum_{r=1}^{n} P^(r) M(r) (Jin et al. eq. 14), P^ estimated from the histogram
    of the sampled ranks r~ in 1..m+1: ``mle`` (eq. 19-21), ``wmle`` (eq. 22-23), ``mes``
    (eq. 24-27) or ``bv_<gamma>`` (eq. 15). The interval is the percentile bootstrap over
    users: it covers the users' noise, not the estimator's bias (``covers`` column).

    Parameters
    ----------
    sampled_ranks : array_like of int
        One sampled rank r~ in 1..m+1 per user.
    n, m : int
        Items the true rank is taken among; sampled irrelevant items (1 <= m < n; m may
        be None with ``evaluator``: its own number); or ``n`` a
        :class:`~sampled_metrics.design.Design` and ``m`` None (then no ``sampling`` or
        ``evaluator``).
    metrics : str or list of str
        E.g. ``'recall@10,ndcg@10'``.
    estimators : list of str
        Estimator names (:func:`~sampled_metrics.estimators.parse_estimator`).
    sampling : {'binomial', 'hypergeometric'}, optional
        The law of the negatives: the evaluator's where ``evaluator`` is given (a
        contradicting one is refused), else default ``binomial``.
    bootstrap : int
        Bootstrap draws over users (0: no interval).
    level : float
        Confidence level of the interval.
    seed : int
        Seed of the bootstrap.
    processes : int or None
        Worker processes for the bootstrap (None: the CPUs available); the result does
        not depend on it.
    options : dict, optional
        {estimator: {option: value}}, e.g. ``{'mes': {'eta': 0.01}}``.
    evaluator : str, optional
        The evaluator that reported the ranks (``sampled-metrics evaluators``); it sets
        ``sampling`` (and refuses one that contradicts it) and m unless given
        (:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator`).

    Returns
    -------
    DataFrame with columns metric, estimator, value, ci_low, ci_high, covers;
    ``attrs['notes']`` holds the lines printed below it.

    Examples
    --------
    >>> import numpy as np
    >>> from sampled_metrics import draw_sampled_ranks
    >>> rng = np.random.default_rng(0)
    >>> r = rng.geometric(0.01, 500).clip(1, 1000)
    >>> t = estimate(draw_sampled_ranks(r, 1000, 99, rng=rng), 1000, 99, "recall@10",
    ...              ["mle"], bootstrap=0)
    >>> t[["metric", "estimator"]].values.tolist()
    [['recall@10', 'mle']]
    """
    design = design_of(n, m, sampling=sampling, evaluator=evaluator)
    n, m = design.n, design.m
    bootstrap = check_bootstrap_draws("bootstrap", bootstrap, level)
    seed = check_integer("seed", seed, 0)
    processes = available_cpus() if processes is None else check_integer("processes",
                                                                           processes, 1)
    check_estimate_size(n, m, bootstrap)
    metrics = parse_metrics(metrics, distinct=True)
    estimators = name_list(estimators, "estimator")
    check_distinct("estimator", [str(x).lower() for x in estimators], estimators)
    options = _check_options(options, estimators)
    for estimator in estimators:
        parse_estimator(estimator, **options.get(estimator, {}))     # fail early
    ranks = check_sampled_ranks("sampled ranks", sampled_ranks, m)
    weights = np.stack([metric.weights(n) for metric in metrics])
    hist = sampled_rank_histogram(ranks, m)
    boot = bootstrap_histograms(ranks, m, bootstrap, seed) if bootstrap else []
    with progress("sampled-metrics estimate", total=1) as bar:
        # every estimator's estimate and bootstrap batches in one pool of processes
        bar.advance(0, f"{', '.join(estimators)}: estimates and {bootstrap} bootstrap draws")
        found = estimate_each(boot, design,
                              estimators={e: options.get(e, {}) for e in estimators},
                              processes=processes, first=hist)
        bar.advance()
    rows = []
    for estimator, estimates in zip(estimators, found):      # the estimate, then the draws
        value, draws = weights @ estimates[0], estimates[1:] @ weights.T
        intervals = ([percentile_interval(draws[:, k], level) for k in range(len(metrics))]
                     if bootstrap else [(np.nan, np.nan)] * len(metrics))
        rows += [(metric.name, estimator, value[k], *intervals[k])
                 for k, metric in enumerate(metrics)]
    table = pd.DataFrame(rows, columns=["metric", "estimator", "value", "ci_low", "ci_high"])
    table["covers"] = COVERS_NOISE
    table.attrs["notes"] = ([WMLE_NOTE] if "wmle" in estimators else []) + [ESTIMATE_NOTE]
    return table


def _check_options(options, estimators: list) -> dict:
    """``options`` as {estimator: {option: value}}, each for one of ``estimators``; a
    one-line ValueError for anything else."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be a mapping estimator -> {{option: value}}, got "
                         f"{options!r:.60}")
    for name, given in options.items():
        if not isinstance(given, Mapping):
            raise ValueError(f"options for {name!r} must be a mapping option -> value, got "
                             f"{given!r:.60}")
    unknown = sorted(set(options) - set(estimators), key=str)
    if unknown:
        raise ValueError(f"options given for {', '.join(map(str, unknown))}, which are not "
                         f"among the estimators {', '.join(map(str, estimators))}")
    return dict(options)
