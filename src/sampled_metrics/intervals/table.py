"""The table of ``correct``: per metric, the recommended answer first, then each correction
asked for, each row saying what its interval covers.

The recommended row's interval covers the full-ranking metric of the evaluated users
(:mod:`.recommended`). A correction's row carries a percentile bootstrap interval over users
around the correction's mean: it covers the users' noise, not the correction's bias, which on
real rank distributions is often larger (the docs' validation page measures both).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..checks import check_bootstrap_draws, check_distinct, check_integer, check_sampled_ranks
from ..corrections.vectors import correction_label, correction_vectors
from ..evaluators.catalogue import design_of
from ..metrics import parse_metrics
from ..multipositive.longformat import check_pools, read_long, resolve_long_evaluator, \
    summarise_long
from ..registry import CORRECT_METHODS, DEFAULT_METHODS, name_list
from ..resampling import COVERS_FULL, COVERS_NOISE, bootstrap_histograms, percentile_interval
from .atoms import check_shape
from .recommended import RECOMMENDED, recommended_interval
from .shape_test import shape_note

__all__ = ["DEFAULT_CORRECTIONS", "COLUMNS", "NOISE_NOTE", "correct", "correct_positions",
           "correction_names", "is_recommended"]

#: what ``correct`` gives unless told otherwise
DEFAULT_CORRECTIONS = DEFAULT_METHODS["correct"]
COLUMNS = ["metric", "correction", "value", "std_error", "ci_low", "ci_high", "covers",
           "users"]
#: the line a table with a correction's row carries (``DataFrame.attrs['notes']``)
NOISE_NOTE = ("only the 'recommended' rows' intervals cover the full-ranking metric; a "
              "correction's interval covers the users' noise around its mean, not its bias")


def correct(sampled_ranks, n: int, m: int | None, metrics, corrections=DEFAULT_CORRECTIONS, *,
            sampling: str | None = None, bootstrap: int = 1000, level: float = 0.95,
            seed: int = 0, gamma: float | None = None, evaluator: str | None = None,
            shape: str = "non-increasing") -> pd.DataFrame:
    """The full-ranking metrics of a sampled evaluation: the recommended answer and the
    corrections asked for (module docstring), one row per metric and correction.

    Parameters
    ----------
    sampled_ranks : array_like of int
        r~ in 1..m+1, one per user.
    n, m : int
        Items each held-out item is ranked among in full, negatives sampled (m may be None
        with ``evaluator``: its own number); or ``n`` a
        :class:`~sampled_metrics.design.Design` and ``m`` None (then no ``sampling`` or
        ``evaluator``: the design holds them).
    metrics : str or list of str
    corrections : list of str
        ``recommended`` and any correction: ``sampled`` (none), ``rank_estimate``,
        ``minimal_bias``, ``cls``, ``bv_<gamma>`` (or ``bv`` with ``gamma``).
    sampling : {'binomial', 'hypergeometric'}, optional
        The law of the negatives: the evaluator's where ``evaluator`` is given (a
        contradicting ``sampling`` is refused), else default ``binomial``.
    bootstrap : int
        Draws over users for a correction's interval (0: none).
    level : float in (0, 1)
    seed : int
        The bootstrap's seed.
    evaluator : str, optional
        The evaluator that reported the ranks (``sampled-metrics evaluators``); it sets
        ``sampling`` (and refuses one that contradicts it) and m unless given
        (:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator`).
    shape : {'non-increasing', 'convex', 'none'}
        The family of P(r) the recommended row assumes
        (:func:`~sampled_metrics.intervals.recommended.recommended_interval`); with
        ``'convex'`` a note says whether the sampled ranks reject it.

    Returns
    -------
    DataFrame with columns ``metric, correction, value, std_error, ci_low, ci_high,
    covers, users``; ``covers`` is ``full metric`` or ``users' noise``. ``attrs['notes']`` holds
    the one-line notes the command line prints below the table.

    Examples
    --------
    >>> from sampled_metrics import draw_sampled_ranks
    >>> rng = np.random.default_rng(0)
    >>> r = np.clip(rng.geometric(0.01, 3000), 1, 3706)
    >>> table = correct(draw_sampled_ranks(r, 3706, 100, rng=rng), 3706, 100, "recall@10",
    ...                 ["recommended", "cls"])
    >>> table.correction.tolist(), table.covers.tolist()
    (['recommended', 'cls'], ['full metric', "users' noise"])
    """
    design = design_of(n, m, sampling=sampling, evaluator=evaluator)
    m = design.m
    bootstrap = check_bootstrap_draws("bootstrap", bootstrap, level)
    seed = check_integer("seed", seed, 0)
    metrics = parse_metrics(metrics, distinct=True)
    names = correction_names(corrections)
    recommended = [is_recommended(x) for x in names]
    specs = [(x, gamma) if x.lower() == "bv" else x for x, rec in zip(names, recommended)
             if not rec]
    if gamma is not None and not any(x.lower() == "bv" for x in names):
        raise ValueError(f"gamma {gamma:g} only applies to the correction 'bv', but the "
                         f"corrections are {', '.join(names)}")
    check_distinct("correction", [RECOMMENDED if rec else correction_label(
        x, gamma if x.lower() == "bv" else None) for x, rec in zip(names, recommended)], names)
    shape = _check_shape(shape, any(recommended))
    ranks = check_sampled_ranks("sampled ranks", sampled_ranks, m)
    vectors = correction_vectors(metrics, design, corrections=specs) if specs else {}
    boot = bootstrap_histograms(ranks, m, bootstrap, seed) if specs else None
    best = (recommended_interval(ranks, design, metrics=[x.name for x in metrics], level=level,
                                 shape=shape).set_index("metric")
            if any(recommended) else None)
    rows = []
    for metric in metrics:
        if best is not None:
            rows.append(_recommended_row(metric.name, best.loc[metric.name], ranks.size))
        for (metric_name, label), vec in vectors.items():
            if metric_name == metric.name:
                vals = vec[ranks - 1]
                se = vals.std(ddof=1) / np.sqrt(vals.size) if vals.size > 1 else np.nan
                rows.append((metric_name, label, vals.mean(), se,
                             *percentile_interval(boot @ vec, level), COVERS_NOISE, vals.size))
    return _table(rows, best)


def correct_positions(path, metrics, corrections=DEFAULT_CORRECTIONS, *,
                      sampling: str | None = None, bootstrap: int = 1000, level: float = 0.95,
                      seed: int = 0, thin_to: int | None = None, evaluator: str | None = None,
                      shape: str = "non-increasing") -> pd.DataFrame:
    """:func:`correct` of the long format of positions (a CSV, a DataFrame with columns
    ``user, position, n_nonrelevant, n_negatives`` or what
    :func:`~sampled_metrics.multipositive.longformat.read_long` read): the recommended row
    takes each user's own n_u = N_u + 1 and m_u = M_u and its several positives (each at its
    rank among the user's negatives, position minus the positives above it); the
    corrections are those of :func:`~sampled_metrics.multipositive.longformat.summarise_long`
    (``thin_to``: the thinned list's size, default 100). The evaluator is ``evaluator`` or
    the one the input's ``evaluator`` column names (both: they must agree); it sets
    ``sampling`` (a contradicting one is refused), whose default is otherwise
    ``binomial``. ``shape``: as in :func:`correct` (the users' best positives take it).

    Examples
    --------
    >>> from sampled_metrics import draw_sampled_ranks
    >>> rng = np.random.default_rng(1)
    >>> pool = 3706 - rng.integers(0, 300, 2000)                  # each user's own n_u
    >>> s = draw_sampled_ranks(rng.geometric(0.01, 2000).clip(1, pool), pool, 100, rng=rng)
    >>> frame = pd.DataFrame({"user": range(2000), "position": s, "n_nonrelevant": pool - 1,
    ...                       "n_negatives": 100})
    >>> correct_positions(frame, "recall@10", ["recommended", "sampled"]).correction.tolist()
    ['recommended', 'sampled']
    """
    check_bootstrap_draws("bootstrap", bootstrap, level)
    metrics = parse_metrics(metrics, distinct=True)
    names = correction_names(corrections)
    recommended = [is_recommended(x) for x in names]
    check_distinct("correction", [RECOMMENDED if rec else correction_label(x)
                                  for x, rec in zip(names, recommended)], names)
    if thin_to is not None:
        check_integer("thin_to", thin_to, 1)
    shape = _check_shape(shape, any(recommended))
    long = read_long(path)
    sampling = resolve_long_evaluator(evaluator, long.evaluator, long,
                                      sampling=sampling).sampling
    check_pools(long, sampling, any(recommended))
    others = [x for x, rec in zip(names, recommended) if not rec]
    rows, best = [], None
    table = long.table
    if any(recommended):
        best = recommended_interval(table.position - table.above,
                                    table.n_nonrelevant[table.user] + 1,
                                    table.n_negatives[table.user],
                                    [x.name for x in metrics], sampling, level,
                                    shape=shape, user=table.user,
                                    above=table.above).set_index("metric")
    frame = (summarise_long("positions", path, metrics, others, sampling, bootstrap, level,
                            seed, thin_to, table=table) if others else None)
    for metric in metrics:
        if best is not None:
            rows.append(_recommended_row(metric.name, best.loc[metric.name],
                                         table.k.size))
        if frame is not None:
            for row in frame[frame["metric"] == metric.name].itertuples():
                rows.append((row.metric, row.correction, row.value, row.std_error,
                             row.ci_low, row.ci_high, COVERS_NOISE, row.users))
    return _table(rows, best)


def correction_names(corrections) -> list[str]:
    """The corrections asked for, as a list of names (a string is one name, or several
    separated by commas, never its letters)."""
    return [correction_label(*x) if isinstance(x, tuple) else str(x)
            for x in name_list(corrections, "correction")]


def is_recommended(name) -> bool:
    """Whether ``name`` asks for the recommended answer: its entry of
    :data:`~sampled_metrics.registry.CORRECT_METHODS` is the one ``name`` spells (in any
    case); False for any other name, known or not (the corrections refuse an unknown one).

    Examples
    --------
    >>> is_recommended(" Recommended"), is_recommended("bv_0.1"), is_recommended("magic")
    (True, False, False)
    """
    try:
        return CORRECT_METHODS.resolve(name)[0] == RECOMMENDED
    except ValueError:
        return False


def _recommended_row(metric: str, row, users: int) -> tuple:
    return (metric, RECOMMENDED, row["value"], np.nan, row["ci_low"], row["ci_high"],
            COVERS_FULL, users)


def _check_shape(shape, recommended: bool) -> str:
    """The shape's canonical name; a shape other than the default needs the recommended
    row, the one answer that assumes one."""
    shape = check_shape(shape)
    if shape != "non-increasing" and not recommended:
        raise ValueError(f"shape {shape!r} applies to the recommended answer, which the "
                         f"corrections asked for do not include")
    return shape


def _table(rows, best=None) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=COLUMNS)
    table.attrs["notes"] = [NOISE_NOTE] if (table["covers"] == COVERS_NOISE).any() else []
    if best is not None and "shape_p" in best:
        table.attrs["notes"].append(shape_note(best["shape_loss"].iloc[0],
                                               best["shape_p"].iloc[0]))
    return table
