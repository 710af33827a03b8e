"""What a published sampled metric says about the full-ranking metric: exact LP bounds.

A paper reports sampled metrics S_j (the mean of M_j(r~) over its users, each held-out item
ranked among itself and m sampled items) but not the distribution P(r) of the true ranks r in
1..n. Every such P gives, by the law of sampled ranks (KDD'20 eq. 16),

    E[S_j] = sum_{r=1}^{n} P(r) a_j(r),       a_j(r) = E[M_j(r~) | r] = sum_{r~} p(r~ | r) M_j(r~),

and the full-ranking value of a target metric T is sum_r P(r) T(r). Both are linear in P, so
the targets consistent with the published values form an interval whose ends are two linear
programmes over the probability simplex:

    low / high = min / max_P  sum_r P(r) T(r)
                 subject to   |sum_r P(r) a_j(r) - S_j| <= tol_j   for every observed j,
                              P(r) >= 0,  sum_r P(r) = 1.

A vertex of this polytope has at most (number of observed values + 1) ranks with mass, so
the programmes are tiny in rows and are solved exactly by scipy's HiGHS.

Tolerance. tol_j = rounding_j + noise_j. ``rounding_j`` is half a unit of the last printed
digit of S_j ("0.730" -> 0.0005; give values as strings to keep trailing zeros: the float
0.730 reads as "0.73", i.e. 0.005; "73.0%" is read as 0.730 +- 0.0005). ``noise_j`` is zero
unless the number of users U averaged is given: then the sampled mean's own randomness is
allowed for. Given the true ranks, the sampled mean has variance (1/U) sum_r P(r) Var[M_j(r~)|r],
and for a metric with values in [0, c], Var[M|r] <= h(r) (c - h(r)) with h(r) = E[M|r];
sum_r P(r) h(r)(c - h(r)) <= mu (c - mu) (Jensen, mu = sum_r P(r) h(r)), so
noise_j = z sqrt(max_mu mu (c - mu) / U) over mu within rounding_j of S_j, with z the normal
quantile at level ``level``, Bonferroni-adjusted over the observed values (the intervals then
hold for all of them at once with probability >= ``level``, to the normal approximation).

Shapes (optional assumptions on P):

``None``              any distribution over 1..n (always valid).
``'non-increasing'``  P(1) >= P(2) >= ... >= P(n): the held-out item is at least as likely at
                      rank r as at rank r + 1, at every depth. Such a P is a mixture of the
                      uniform distributions on 1..i (i = 1..n), so the programmes keep their
                      form with columns a_j and T averaged over 1..i. It holds for the smoothed
                      rank distribution of a recommender better than random at every depth
                      (e.g. scores whose quality decays with depth); it does not hold for the
                      empirical P of a handful of users, nor for a recommender with a second
                      mode deep in the catalogue (a popularity model ranking niche items last).

Infeasible inputs (no P gives all observed values) raise :class:`InconsistentObservations`
naming a minimal set of observed values that contradict each other (deletion filter: drop
each value in turn, keep it only if the rest becomes feasible without it).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

import numpy as np
from scipy import optimize, stats

from .checks import check_allocation, check_integer, check_level, check_real
from .design import Design
from .estimators.histogram import check_law_matrix_size
from .evaluators.catalogue import design_of
from .evaluators.law import reported_rank_pmf
from .metrics import Metric, parse_metric
from .registry import resolve_name
from .sampling import expected_metric_matrix, sampled_metric_weights

__all__ = ["SHAPES", "Observation", "InconsistentObservations", "parse_observed",
           "bound_full_metric", "bound_full_metrics", "design_bounds"]

#: Assumptions on the rank distribution P(r) the bounds accept.
SHAPES = (None, "non-increasing")


@dataclass(frozen=True)
class Observation:
    """One published sampled value: metric, value (a fraction), rounding half-width, and the
    text it was given as (``'hr@10=0.730'``) for messages."""

    metric: Metric
    value: float
    rounding: float
    text: str


class InconsistentObservations(ValueError):
    """No rank distribution gives all the observed values; ``conflict`` lists the texts of a
    minimal subset of them that contradict each other."""

    def __init__(self, message: str, conflict: list[str]):
        super().__init__(message)
        self.conflict = conflict


def _value_and_rounding(raw) -> tuple[float, float, str]:
    """(value as a fraction, half a unit of its last printed digit, its text)."""
    if isinstance(raw, (bool, np.bool_)):
        raise ValueError(f"expected a number, got the boolean {raw!r}")
    text = raw.strip() if isinstance(raw, str) else repr(float(raw)) if isinstance(
        raw, (int, float, np.integer, np.floating)) else None
    if text is None:
        raise ValueError(f"expected a number or its printed text, got {raw!r:.60}")
    percent = text.endswith("%")
    digits = text[:-1].strip() if percent else text
    try:
        dec = Decimal(digits)
    except InvalidOperation:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not dec.is_finite():
        raise ValueError(f"expected a finite number, got {text!r}")
    scale = 100.0 if percent else 1.0
    exponent = dec.as_tuple().exponent
    rounding = 0.5 * 10.0 ** exponent / scale
    if isinstance(raw, str) or percent:
        return float(dec) / scale, rounding, text
    # a float: its shortest repr ('0.73'); an integral float reads as printed without decimals
    if float(raw) == int(float(raw)):
        rounding = 0.5
    return float(raw), rounding, text


def parse_observed(observed) -> list[Observation]:
    """Observations from a mapping {metric name: value} or a string
    ``'hr@10=0.730,ndcg@10=0.447'``; values as strings keep their printed digits.

    Raises ValueError naming the entry as given for an unknown metric, a value that is not a
    number or outside the metric's range, or a metric given twice (``hr@10`` and
    ``recall@10`` are one metric).
    """
    if isinstance(observed, str):
        items = []
        for part in (p.strip() for p in observed.split(",")):
            if not part:
                continue
            if "=" not in part:
                raise ValueError(f"{part!r}: expected metric=value, e.g. hr@10=0.730")
            name, value = part.split("=", 1)
            items.append((name.strip(), value.strip(), part))
    elif hasattr(observed, "items"):
        items = [(name, value, f"{name}={value}") for name, value in observed.items()]
    else:
        raise ValueError(f"observed values must be a mapping metric -> value or a string "
                         f"'metric=value,...', got {type(observed).__name__}")
    if not items:
        raise ValueError("no observed values given")
    out, seen = [], {}
    for name, value, text in items:
        try:
            metric = parse_metric(name)
            number, rounding, _ = _value_and_rounding(value)
        except ValueError as err:
            raise ValueError(f"{text!r}: {err}") from None
        top = float(sampled_metric_weights(metric, 1).max()) if metric.kind != "auc" else 1.0
        if not 0.0 <= number <= top:
            raise ValueError(f"{text!r}: {metric.name} lies in [0, {top:g}], got {number:g}")
        metric = metric.one_item()          # one relevant item: hit = recall, mrr = ap
        if metric.name in seen:
            raise ValueError(f"{text!r}: {metric.name} is given twice (also as "
                             f"{seen[metric.name]!r})")
        seen[metric.name] = text
        out.append(Observation(metric, number, rounding, text))
    return out


def _tolerance_value(value, key=None) -> float:
    """A tolerance: a finite number >= 0 (or its text; not a boolean); ValueError naming
    ``key``."""
    where = "tolerance" if key is None else f"tolerance for {key!r}"
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ValueError(f"{where} must be a number, got {value!r:.60}") from None
    if not math.isfinite(check_real(where, value)) or value < 0:
        raise ValueError(f"{where} must be finite and >= 0, got {value!r}")
    return float(value)


def _tolerances(obs: list[Observation], tolerance, users, level) -> np.ndarray:
    """tol_j = rounding_j (or the caller's tolerance) + the sampling-noise allowance."""
    if tolerance is None:
        tol = np.array([o.rounding for o in obs])
    elif hasattr(tolerance, "items"):
        by_name, given = {}, {}
        for key, value in tolerance.items():
            try:
                name = parse_metric(key).one_item().name   # hr@10 is hit@10 is recall@10
            except ValueError as err:
                raise ValueError(f"tolerance for {key!r}: {err}") from None
            if name in given:
                raise ValueError(f"tolerance given twice for {name}: as {given[name]!r} and "
                                 f"{key!r}")
            by_name[name], given[name] = _tolerance_value(value, key), key
        unknown = [given[name] for name in by_name if name not in {o.metric.name for o in obs}]
        if unknown:
            raise ValueError(f"tolerance given for {', '.join(map(repr, unknown))}, which "
                             f"{'is' if len(unknown) == 1 else 'are'} not observed")
        tol = np.array([by_name.get(o.metric.name, o.rounding) for o in obs])
    else:
        tol = np.full(len(obs), _tolerance_value(tolerance))
    if users is None:
        return tol
    users = check_integer("users (number of users averaged)", users, 1)
    z = stats.norm.ppf(1.0 - (1.0 - level) / (2 * len(obs)))
    noise = np.empty(len(obs))
    for j, o in enumerate(obs):
        c = 1.0 / o.metric.k if o.metric.kind == "precision" else 1.0
        mu = np.clip(c / 2, o.value - tol[j], o.value + tol[j])   # maximiser of mu (c - mu)
        noise[j] = z * math.sqrt(max(mu * (c - mu), 0.0) / users)
    return tol + noise


@lru_cache(maxsize=32)
def _columns(metrics: tuple, targets: tuple, design: Design, shape, evaluator
             ) -> tuple[np.ndarray, np.ndarray]:
    """(A, T): A[j, i] = a_j of column i, T[t, i] = target t of column i; a column is the
    point mass at rank i (no shape) or the uniform distribution on 1..i (non-increasing).
    With the design's evaluator (``evaluator``, a key of the cache beside the design, whose
    equality leaves it out), a_j is the expectation under the law of the rank it reports.
    Cached: they depend on the metrics, not on the observed values (read-only arrays)."""
    n, m = design.n, design.m
    if evaluator is None:
        A = expected_metric_matrix([sampled_metric_weights(x, m) for x in metrics],
                                   np.arange(1, n + 1), design)
    else:
        law = reported_rank_pmf(evaluator, n - 1, m)        # rows r = 1..n
        A = np.stack([law @ sampled_metric_weights(x, m) for x in metrics])
    T = np.stack([t.weights(n) for t in targets])
    if shape == "non-increasing":
        count = np.arange(1, n + 1)
        A, T = np.cumsum(A, axis=1) / count, np.cumsum(T, axis=1) / count
    A.flags.writeable = T.flags.writeable = False
    return A, T


def _solve(c, A, lo, hi):
    """min c.x over x >= 0, sum x = 1, lo <= A x <= hi (HiGHS); the result object."""
    return optimize.linprog(c, A_ub=np.vstack([A, -A]), b_ub=np.concatenate([hi, -lo]),
                            A_eq=np.ones((1, A.shape[1])), b_eq=[1.0], bounds=(0, None),
                            method="highs")


def _feasible(A, lo, hi) -> bool:
    return _solve(np.zeros(A.shape[1]), A, lo, hi).status == 0


def _conflict(obs, A, lo, hi) -> list[int]:
    """Indices of a minimal infeasible subset of the constraints (deletion filter)."""
    keep = list(range(len(obs)))
    for j in range(len(obs)):
        trial = [i for i in keep if i != j]
        if trial and not _feasible(A[trial], lo[trial], hi[trial]):
            keep = trial
    return keep


def _check_shape(shape):
    """The shape of :data:`SHAPES`: None, or the one its name names (any case, as on the
    command line; ``'none'`` is None)."""
    if shape is None:
        return None
    name = resolve_name("shape", shape, ("none", "non-increasing"))
    return None if name == "none" else name


def _check_size(n: int, m: int, observed: int, targets: int, evaluator) -> None:
    """ValueError naming n unless the programmes' arrays over the n true ranks fit in memory
    (before any is made): the expected values and targets of every column, their cumulative
    means, the stacked constraints and the solver's copy; with an evaluator its n x (m+1)
    law of the reported rank."""
    check_allocation(n * (4 * observed + 2 * targets + 8), f"the bounds' linear programmes "
                     f"over n = {n} true ranks ({observed} observed, {targets} target "
                     f"metric{'s' if targets != 1 else ''})")
    if evaluator is not None:
        check_law_matrix_size(n, m)


def bound_full_metrics(observed, n: int, m: int | None, metrics, sampling: str | None = None,
                       tolerance=None, shape: str | None = None, users: int | None = None,
                       level: float = 0.95, evaluator: str | None = None
                       ) -> list[tuple[str, float, float]]:
    """:func:`bound_full_metric` for several full-ranking metrics sharing one set of
    constraints.

    Returns
    -------
    list of (metric name, low, high), in the order of ``metrics``.
    """
    return design_bounds(design_of(n, m, sampling=sampling, evaluator=evaluator, long=None),
                         observed, metrics, tolerance, shape, users, level)


def design_bounds(design: Design, observed, metrics, tolerance=None,
                  shape: str | None = None, users: int | None = None, level: float = 0.95
                  ) -> list[tuple[str, float, float]]:
    """:func:`bound_full_metrics` under a design already resolved
    (:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator` with ``long=None``: the
    law of the evaluator's draws, its m where none was given; n and m both known), as the
    command line resolves ``--evaluator`` with its own options' names.

    low / high = min / max over P of sum_r P(r) T(r) subject to |sum_r P(r) a_j(r) - S_j|
    <= tol_j, a_j(r) the expected sampled metric under the design's law (the evaluator's law
    of the reported rank where it names one).

    Examples
    --------
    SASRec's published ML-1M values (n = 3417): its own law, with self-draws, asks a
    slightly better full ranking than the plain binomial law at the same m:

    >>> from sampled_metrics.evaluators.catalogue import resolve_evaluator
    >>> for name in ("sasrec", None):
    ...     design = resolve_evaluator(name, m=100, long=None, n=3417)
    ...     [(t, low, high)] = design_bounds(design, "hr@10=0.8245,ndcg@10=0.5905",
    ...                                      ["recall@10"], shape="non-increasing")
    ...     print(f"{t} {low:.3f} {high:.3f}")
    recall@10 0.104 0.446
    recall@10 0.103 0.441
    """
    n, m = design.known().n, design.m
    evaluator = design.evaluator
    shape = _check_shape(shape)
    level = check_level("level", level)
    obs = parse_observed(observed)
    target_list = [parse_metric(t) for t in ([metrics] if isinstance(metrics, (str, Metric))
                                             else metrics)]
    if not target_list:
        raise ValueError("no target metric given")
    _check_size(n, m, len(obs), len(target_list), evaluator)
    tol = _tolerances(obs, tolerance, users, level)
    value = np.array([o.value for o in obs])
    lo, hi = value - tol, value + tol
    A, T = _columns(tuple(o.metric for o in obs), tuple(target_list), design, shape,
                    design.evaluator)
    out = []
    for t, target in enumerate(target_list):
        low, high = _solve(T[t], A, lo, hi), _solve(-T[t], A, lo, hi)
        if low.status != 0 or high.status != 0:
            # infeasible, or HiGHS unsure at the edge of feasibility: decide by a plain
            # feasibility programme, then name the conflicting values
            if 2 in (low.status, high.status) or not _feasible(A, lo, hi):
                _raise_infeasible(obs, A, lo, hi, tol, n, shape)
            raise RuntimeError(  # pragma: no cover - solver failure on a feasible programme
                f"HiGHS failed on {target.name}: {low.message} / {high.message}")
        out.append((target.name, float(low.fun), float(-high.fun)))
    return out


def _raise_infeasible(obs, A, lo, hi, tol, n, shape):
    conflict = _conflict(obs, A, lo, hi)
    texts = [obs[j].text for j in conflict]
    listed = ", ".join(f"{obs[j].text} (+-{tol[j]:.3g})" for j in conflict)
    under = "" if shape is None else f" with a {shape} P(r)"
    what = (f"observed value {listed} is impossible" if len(texts) == 1 else
            f"observed values {listed} contradict each other")
    raise InconsistentObservations(
        f"{what}: no distribution of true ranks over n={n} items{under} gives "
        f"{'it' if len(texts) == 1 else 'them all'}", texts)


def bound_full_metric(observed, n: int, m: int | None, metric, sampling: str | None = None,
                      tolerance=None, shape: str | None = None, users: int | None = None,
                      level: float = 0.95, evaluator: str | None = None
                      ) -> tuple[float, float]:
    """Interval of full-ranking values of ``metric`` consistent with published sampled values.

    low, high = min, max over rank distributions P on 1..n of sum_r P(r) T(r), subject to
    |sum_r P(r) E[M_j(r~) | r] - S_j| <= tol_j for every observed (M_j, S_j) (see the module
    docstring for the law, the tolerances and the shapes).

    Parameters
    ----------
    observed : mapping or str
        Published sampled values, ``{'hr@10': '0.730', 'ndcg@10': '0.447'}`` or
        ``'hr@10=0.730,ndcg@10=0.447'``: any metric of :func:`~sampled_metrics.parse_metric`,
        as fractions (a string may end in ``%``). Strings keep their printed digits, which
        set the default tolerance.
    n : int
        Number of items each held-out item is truly ranked among (true ranks 1..n); or a
        :class:`~sampled_metrics.design.Design` (then ``m`` None, no ``sampling`` or
        ``evaluator``).
    m : int
        Number of sampled irrelevant items per ranking (1 <= m < n).
    metric : str or Metric
        Full-ranking metric to bound, e.g. ``'recall@10'``.
    sampling : {'binomial', 'hypergeometric'}, optional
        Sampled items drawn with or without replacement (default the evaluator's law, else
        binomial).
    tolerance : float or mapping, optional
        Half-width of each observed value's uncertainty; default half a unit of its last
        printed digit. A mapping gives it per metric, named as in ``observed`` or by an
        alias (``hr@10``, ``hit@10`` and ``recall@10`` are one metric); others keep the
        default.
    shape : {None, 'none', 'non-increasing'}
        Assumption on P(r) (module docstring: when it holds); ``'none'`` is None.
    users : int, optional
        Number of users averaged: adds the allowance for the sampled mean's own noise.
    level : float in (0, 1)
        Simultaneous confidence level of that allowance (with ``users``; checked always).
    evaluator : str, optional
        The evaluator that produced the published values (``sampled-metrics evaluators``):
        E[M_j(r~) | r] is then taken under the law of the rank it reports (its self-draws,
        duplicates and ties; :func:`~sampled_metrics.evaluators.law.reported_rank_pmf`), n
        counts its pool with the positive, ``m`` may be None (its own number of negatives)
        and ``sampling``, if given, must be the law of its draws.

    Returns
    -------
    (low, high) : tuple of float

    Raises
    ------
    InconsistentObservations
        If no P gives all observed values; its message and ``conflict`` name a minimal set
        of the observed values that contradict each other.
    ValueError
        For an argument out of its range, or an n whose programmes would not fit in memory
        (naming n, before any array of that size is made).

    Examples
    --------
    NCF's published HR@10 = 0.730 and NDCG@10 = 0.447 on ML-1M (n = 3706, m = 100):

    >>> low, high = bound_full_metric({"hr@10": "0.730", "ndcg@10": "0.447"}, 3706, 100,
    ...                               "recall@10")
    >>> print(f"{low:.3f} {high:.3f}")
    0.000 0.359
    >>> low, high = bound_full_metric("hr@10=0.730,ndcg@10=0.447", 3706, 100, "recall@10",
    ...                               shape="non-increasing")
    >>> print(f"{low:.3f} {high:.3f}")
    0.048 0.242

    Values that no rank distribution gives are named (NDCG@10 can never exceed HR@10):

    >>> bound_full_metric("hr@10=0.730,ndcg@10=0.800", 3706, 100, "recall@10")
    Traceback (most recent call last):
    ...
    sampled_metrics.bounds.InconsistentObservations: observed values hr@10=0.730 (+-0.0005), \
ndcg@10=0.800 (+-0.0005) contradict each other: no distribution of true ranks over n=3706 items \
gives them all
    """
    return bound_full_metrics(observed, n, m, [metric], sampling, tolerance, shape, users,
                              level, evaluator)[0][1:]
