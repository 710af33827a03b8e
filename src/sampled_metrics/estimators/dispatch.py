"""One entry to every estimator by name (``mle``, ``wmle``, ``mes``, ``bv``, with options):
parse it, estimate P(r) from sampled ranks or from histograms (one, many, or batches spread
over processes), and read a metric off the estimate.
"""
from __future__ import annotations

import re

import numpy as np

from ..corrections.vectors import parse_correction
from ..design import as_design, require
from ..metrics import parse_metric
from ..parallel import map_items
from ..registry import ESTIMATORS
from .entropy import mes
from .histogram import sampled_rank_histogram
from .likelihood import check_solver, mle, mle_rows, wmle, wmle_reading, wmle_weights

__all__ = ["ESTIMATORS", "BATCH_HISTOGRAMS", "mle_distribution", "wmle_distribution",
           "mes_distribution", "parse_estimator", "estimate_rank_distribution",
           "estimate_from_histogram", "estimate_many", "estimate_batches", "estimate_each",
           "metric_from_distribution"]



#: Histograms estimated together by :func:`estimate_batches`; fixed, so that each estimate
#: does not depend on the number of processes.
BATCH_HISTOGRAMS = 50


def estimate_many(hists, n, m: int | None = None, estimator: str | None = None,
                  sampling: str | None = None, **options) -> np.ndarray:
    """:func:`estimate_from_histogram` of each histogram (rows of ``hists``): (J, n).

    MLE and WMLE from the uniform start iterate all rows together (:func:`mle_rows`), the
    others run one histogram at a time.
    """
    design = as_design(n, m, sampling)
    name, opts = parse_estimator(estimator, **options)
    hists = list(hists)
    if name in ("mle", "wmle") and opts.get("init") is None:
        opts.pop("init", None)
        weights, reading = None, None
        if name == "wmle":
            reading = opts.get("reading", "printed")
            weights = wmle_weights(**{key: opts.pop(key) for key in ("weight", "C", "reading")
                                       if key in opts})
        pi = mle_rows(hists, design, weights=weights, **opts)
        return wmle_reading(pi, weights, reading, design) if weights is not None else pi
    return np.stack([estimate_from_histogram(h, design, estimator=estimator, **options)
                     for h in hists]) if hists else np.zeros((0, design.n))


def estimate_batches(hists, n, m: int | None = None, estimator: str | None = None,
                     sampling: str | None = None, *, processes: int = 1, **options
                     ) -> np.ndarray:
    """:func:`estimate_many` on fixed batches of ``BATCH_HISTOGRAMS`` histograms, spread over
    worker processes: (J, n).

    The batches do not depend on ``processes``, and BLAS runs single-threaded in the workers
    and in this process alike (:func:`~sampled_metrics.parallel.map_items`), so the result
    is the same whatever the number of processes. The workflow's Jin et al. repeats and the
    command line's bootstrap both estimate their many histograms so.

    Parameters
    ----------
    hists : sequence of histograms of length m + 1
    n, m : int
    estimator : str
        As for :func:`estimate_from_histogram`.
    sampling : {'binomial', 'hypergeometric'}
    processes : int
        Worker processes (1: this process).
    **options
        The estimator's options.
    """
    return estimate_each(hists, as_design(n, m, sampling), estimators={estimator: options},
                         processes=processes)[0]


def estimate_each(hists, n, m: int | None = None, estimators: dict | None = None,
                  sampling: str | None = None, *, processes: int = 1, first=None
                  ) -> list[np.ndarray]:
    """:func:`estimate_batches` of several estimators, all their batches in one pool:
    [(J, n) per estimator], in the order of ``estimators`` ({name: options}).

    ``first``: a histogram every estimator also estimates (the point estimate beside a
    bootstrap's), returned first as one more row, [(1 + J, n)]: it runs in the pool beside
    the batches, as one histogram, which gives the same bits as
    :func:`estimate_from_histogram`. The batches of one estimator follow one another in the
    pool's items and the workers take the items in turn, so each worker gets its share of
    the costly estimators.
    """
    require(estimators=estimators)
    design = as_design(n, m, sampling)
    hists = list(hists)
    batches = [hists[lo:lo + BATCH_HISTOGRAMS] for lo in range(0, len(hists), BATCH_HISTOGRAMS)]
    heads = [[first]] if first is not None else []
    items = [(name, batch) for name in estimators for batch in batches]
    items += [(name, batch) for name in estimators for batch in heads]
    done = iter(map_items(_estimate_batch, items, design, estimators, processes=processes))
    parts = {name: [] for name in estimators}
    for name, _ in items:
        parts[name].append(next(done))
    out = []
    for name in estimators:                     # the batches, then the head: head first
        found = parts[name][len(batches):] + parts[name][:len(batches)]
        out.append(np.concatenate(found) if found else np.zeros((0, design.n)))
    return out


def _estimate_batch(item, design, estimators) -> np.ndarray:
    name, hists = item
    return estimate_many(hists, design, estimator=name, **estimators[name])


def estimate_rank_distribution(sampled_ranks, n, m: int | None = None,
                               estimator: str | None = None, sampling: str | None = None,
                               **options) -> np.ndarray:
    """Estimate P(r), r = 1..n, from sampled ranks r~ in 1..m+1 (Jin et al.); see
    :func:`estimate_from_histogram` for the estimators and options.

    Examples
    --------
    >>> import numpy as np
    >>> from sampled_metrics.sampling import draw_sampled_ranks
    >>> sampled = draw_sampled_ranks(np.arange(1, 1001), n=1000, m=99, rng=1)
    >>> p = estimate_rank_distribution(sampled, n=1000, m=99, estimator="mle")
    >>> p.shape, round(float(p.sum()), 6)
    ((1000,), 1.0)
    """
    design = as_design(n, m, sampling)
    m = design.m
    return estimate_from_histogram(sampled_rank_histogram(sampled_ranks, m), design,
                                   estimator=estimator, **options)


def parse_estimator(estimator: str, **options) -> tuple[str, dict]:
    """Validate an estimator of P(R) (its name) and its options: ('mle' | 'wmle' | 'mes' |
    'bv', options), with ``bv_<gamma>`` turned into ('bv', {'gamma': gamma, ...}). A label
    after a dash names a variant (``mle-e100``, ``wmle-detilt``: the estimator before the
    dash, with the options given for that label). The name before the dash is
    :data:`~sampled_metrics.registry.ESTIMATORS`' (:meth:`~sampled_metrics.registry.Registry.resolve`:
    any case, and the gamma a ``bv_<gamma>`` carries, checked as the correction's). One-line
    ValueError for an unknown estimator or option, or bv without gamma.

    Examples
    --------
    >>> parse_estimator("BV_0.1"), parse_estimator("mle-e100", epochs=100)
    (('bv', {'gamma': 0.1}), ('mle', {'epochs': 100}))
    """
    text = estimator.strip().lower() if isinstance(estimator, str) else estimator
    if isinstance(text, str) and "-" in text:
        text, label = text.split("-", 1)
        if not re.fullmatch(r"[a-z0-9_.]+", label):
            raise ValueError(f"estimator variant {estimator!r}: the label after '-' must be "
                             f"lower-case letters, digits, '_' or '.'")
    name, number = ESTIMATORS.resolve(text, shown=estimator)
    if number is not None:
        options = {**options, "gamma": parse_correction(text, options.get("gamma"))[1]}
    allowed = ESTIMATORS[name].options
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"estimator {name!r} takes no option(s) {', '.join(unknown)}; "
                         f"allowed: {', '.join(allowed)}")
    if "epochs" in options and options["epochs"] is not None:
        clash = sorted({"max_iter", "tol"} & set(options))
        solver = options.get("solver", "em")
        if clash or solver is None or check_solver(solver) != "em":
            raise ValueError(f"estimator {name!r}: epochs (a fixed EM schedule) excludes "
                             f"{', '.join(clash) or 'solver ' + repr(options['solver'])}")
    if name == "bv" and "gamma" not in options:
        raise ValueError("estimator 'bv' needs gamma, e.g. gamma=0.1 or 'bv_0.1'")
    return name, dict(options)


def estimate_from_histogram(hist, n, m: int | None = None, estimator: str | None = None,
                            sampling: str | None = None, **options) -> np.ndarray:
    """Estimate P(r), r = 1..n, from the histogram P~(r~) of sampled ranks (Jin et al.).

    Parameters
    ----------
    hist : array_like of length m + 1 (counts or frequencies)
    n, m : int
        Or ``n`` a :class:`~sampled_metrics.design.Design`.
    estimator : {'mle', 'wmle', 'mes', 'bv'} (or 'bv_<gamma>', or a variant ``name-label``)
        The estimator's name (:func:`parse_estimator`).
    sampling : {'binomial', 'hypergeometric'}
    **options
        mle: ``max_iter``, ``tol``, ``init``, ``solver``, ``epochs`` (see :func:`mle`);
        wmle: also ``weight`` ('ndcg' default, 'ap', 'none'), ``C`` (10) and ``reading``
        ('printed' default, 'zero_based', 'detilt') (see :func:`wmle`);
        mes: ``eta`` (0.001), ``eta_scaling`` ('fixed'; 'bins': eta / (m + 1)), ``max_iter``,
        ``tol``; bv: ``gamma`` (required), ``prior``.
        Any other option raises ValueError.

    Returns
    -------
    ndarray of length n: P^(r) at index r - 1.
    """
    name, options = parse_estimator(estimator, **options)
    design = as_design(n, m, sampling)
    return ESTIMATORS[name].load()(hist, design, **options)


def mle_distribution(hist, design, **options) -> np.ndarray:
    """``mle``: P^ of :func:`~sampled_metrics.estimators.likelihood.mle`."""
    return mle(hist, design, **options)[0]


def wmle_distribution(hist, design, **options) -> np.ndarray:
    """``wmle``: P^ of :func:`~sampled_metrics.estimators.likelihood.wmle`."""
    return wmle(hist, design, **options)[0]


def mes_distribution(hist, design, **options) -> np.ndarray:
    """``mes``: P^ of :func:`~sampled_metrics.estimators.entropy.mes`."""
    return mes(hist, design, **options)[0]


def metric_from_distribution(metric, p) -> float:
    """metric = sum_{r=1}^{n} p(r) M(r) with n = len(p) (Jin et al. eq. 13-14).

    Works for every metric of :mod:`sampled_metrics.metrics` (truncated ``@K`` or not; AUC
    uses n = len(p)). ``p`` need not be normalised or non-negative (BV estimates).

    Examples
    --------
    >>> import numpy as np
    >>> round(metric_from_distribution("recall@10", np.full(1000, 1e-3)), 4)   # uniform P(R)
    0.01
    """
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)):
        raise ValueError("a rank distribution must be a non-empty finite 1-D vector")
    return float(p @ parse_metric(metric).weights(p.size))
