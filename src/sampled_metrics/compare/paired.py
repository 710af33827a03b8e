"""The paired comparison of recommenders from one sampled evaluation: every pair's difference,
bootstrap interval, bias, debiased interval and verdict (the columns:
:mod:`sampled_metrics.compare`), from one sampled rank per user or from several positives
per user.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from ..checks import check_distinct, check_integer, check_sampled_ranks
from ..corrections.mn import mn_correction
from ..corrections.vectors import correction_label, correction_vectors
from ..evaluators.catalogue import design_of
from ..estimators.dispatch import estimate_from_histogram
from ..estimators.histogram import sampled_rank_histogram
from ..metrics import parse_metrics
from ..multipositive.positives import DEFAULT_THIN_TO, correct_positives
from ..registry import COMPARE_METHODS, CORRECTIONS, PAIRINGS, name_list, resolve_name
from ..resampling import percentile_interval, resampled_counts, resampled_users
from ..seeds import as_generator, generator
from .bias import MES_ETA, bias_curve, mes_gradient
from .matching import MIN_USERS, check_positive_tables
from .verdicts import check_interval_draws, exact_interval, verdict

__all__ = ["ESTIMATOR_METHODS", "PRIOR_METHODS", "COMPARE_COLUMNS", "compare_ranks",
           "compare_positives", "RankDraws", "PositiveDraws", "rank_draws", "positive_draws",
           "pair_rows", "pair_frame", "parse_methods", "check_sampled"]

#: Methods that are P(R) estimators (Jin et al.), not correction vectors.
ESTIMATOR_METHODS = ("mle", "mes")
#: Methods whose correction vector depends on the recommender's estimated P(R).
PRIOR_METHODS = ("mn",)
#: bootstrap replicates counted at once (:func:`_replicate_histograms`)
HISTOGRAM_BLOCK = 256
COMPARE_COLUMNS = ["a", "b", "metric", "method", "value_a", "value_b", "difference", "ci_low",
                   "ci_high", "bias", "bias_se", "debiased", "low", "high", "naive_verdict",
                   "verdict"]


def parse_methods(methods) -> list[str]:
    """Canonical labels (:data:`~sampled_metrics.registry.COMPARE_METHODS`); ValueError (one
    line) for an unknown method."""
    given = name_list(methods, "method")
    out = []
    for method in given:
        name, _ = COMPARE_METHODS.resolve(method)
        out.append(correction_label(method) if name in CORRECTIONS else name)
    check_distinct("method", out, given)
    return out


def check_sampled(sampled: dict, m: int, paired: bool = True) -> dict:
    """{name: sampled ranks as an int array} of at least two recommenders, each of at least
    :data:`~sampled_metrics.compare.matching.MIN_USERS` users (the same number where
    ``paired``); a one-line ValueError naming the recommender at fault."""
    if not isinstance(sampled, Mapping):
        raise ValueError(f"sampled must be a mapping name -> sampled ranks, got "
                         f"{type(sampled).__name__}")
    if len(sampled) < 2:
        raise ValueError("need sampled ranks of at least two recommenders")
    if not isinstance(paired, (bool, np.bool_)):
        raise ValueError(f"paired must be True or False, got {paired!r:.60}")
    out = {}
    for name, ranks in sampled.items():
        if not str(name).strip():
            raise ValueError(f"a recommender's name must not be blank, got {name!r}")
        out[name] = check_sampled_ranks(f"{name}: sampled ranks", ranks, m, MIN_USERS)
    sizes = {r.size for r in out.values()}
    if paired and len(sizes) != 1:
        raise ValueError(f"paired comparison needs the same users for every recommender, got "
                         f"{', '.join(f'{k}: {v.size}' for k, v in out.items())} users")
    return out


def _replicate_histograms(sampled: dict, m: int, draws: int, rng, paired: bool) -> dict:
    """Counts of r~ among users resampled with replacement: {name: (draws, m+1)}; paired:
    the same resampled users for every recommender. Counted in blocks of
    :data:`HISTOGRAM_BLOCK` replicates (paired: each block's c_bu, how often replicate b
    drew user u, times each recommender's 0/1 matrix of users by r~), so that the memory
    stays a block's; the counts are integers, the same whatever the block."""
    names = list(sampled)
    out = {}
    if paired:
        users = sampled[names[0]].size
        idx = resampled_users(rng, users, draws)          # refuses a draw too large first
        out = {name: np.empty((draws, m + 1), dtype=np.int64) for name in names}
        onehot = {name: sparse.csc_matrix((np.ones(users, dtype=np.int64),
                                           (np.arange(users), r - 1)), shape=(users, m + 1))
                  for name, r in sampled.items()}
        for start in range(0, draws, HISTOGRAM_BLOCK):
            rows = idx[start:start + HISTOGRAM_BLOCK]
            b = rows.shape[0]
            counts = np.bincount((rows + users * np.arange(b, dtype=np.int64)[:, None]).ravel(),
                                 minlength=b * users).reshape(b, users)
            for name in names:
                out[name][start:start + b] = counts @ onehot[name]
        return out
    for name, r in sampled.items():
        idx = resampled_users(rng, r.size, draws)
        out[name] = np.empty((draws, m + 1), dtype=np.int64)
        for start in range(0, draws, HISTOGRAM_BLOCK):
            rows = idx[start:start + HISTOGRAM_BLOCK]
            keys = r[rows] - 1 + (m + 1) * np.arange(rows.shape[0])[:, None]
            out[name][start:start + rows.shape[0]] = np.bincount(
                keys.ravel(), minlength=rows.shape[0] * (m + 1)).reshape(-1, m + 1)
    return out


class RankDraws(NamedTuple):
    """The paired bootstrap of a comparison from one sampled rank per user: each
    recommender's value of every (metric, method) at the evaluation (row 0) and in each
    replicate (rows 1..B), and the method's estimated bias on that value (zeros where it
    has none: ``mes``, or no plug-in), arrays (1 + B, K, E) by name; the observed and
    replicate frequencies of r~ and the MES plug-ins that gave them."""
    metrics: list
    labels: list
    values: dict
    biases: dict
    plugin: bool
    hists: dict
    reps: dict
    pis: dict

    def point(self, name) -> np.ndarray:
        """(K, E): the recommender's values at the evaluation."""
        return self.values[name][0]

    def pair(self, a, b) -> tuple:
        """(1 + B, K, E) each: the difference D^ = a - b and its bias b^."""
        return self.values[a] - self.values[b], self.biases[a] - self.biases[b]


class PositiveDraws(NamedTuple):
    """The paired bootstrap of a comparison from several positives per user: each
    recommender's corrected value of every (metric, correction) per user, (K, E, U) by
    name, and the replicates' weights of the users, c_bu / U, (B, U). The bias of a
    difference is unknown (``pair`` gives None)."""
    metrics: list
    labels: list
    values: dict
    weights: np.ndarray
    plugin: bool = False

    def point(self, name) -> np.ndarray:
        """(K, E): the recommender's values at the evaluation (means over users)."""
        return self.values[name].mean(axis=-1)

    def pair(self, a, b) -> tuple:
        """((1 + B, K, E) difference D^ = a - b, its point value first; None)."""
        diff = self.values[a] - self.values[b]                               # (K, E, U)
        return np.concatenate([diff.mean(axis=-1)[None],
                               np.einsum("bu,keu->bke", self.weights, diff)]), None


def rank_draws(sampled: dict, design, metric_list, labels, *, bootstrap: int, rng,
               paired: bool = True, plugin: str | None = "mes", pis: dict | None = None
               ) -> RankDraws:
    """The bootstrap replicates of every recommender's values (:class:`RankDraws`) of
    checked sampled ranks under ``design`` (:class:`~sampled_metrics.design.Design`), for
    the methods ``labels`` that have replicates (corrections, ``mn``, ``mes``; not ``mle``,
    which refits). ``pis``: the MES plug-ins of the
    recommenders' observed histograms, when already estimated
    (:func:`~sampled_metrics.estimators.estimate_from_histogram` with ``eta=MES_ETA``)."""
    n, m = design.n, design.m
    names = list(sampled)
    K = len(metric_list)
    W = np.stack([x.weights(n) for x in metric_list])                       # (K, n)
    users = {k: v.size for k, v in sampled.items()}
    hists = {k: sampled_rank_histogram(v, m) for k, v in sampled.items()}   # frequencies
    reps = {k: c / users[k] for k, c in
            _replicate_histograms(sampled, m, int(bootstrap), rng, paired).items()}
    if plugin and pis is None:
        pis = {k: estimate_from_histogram(h, design, estimator="mes", eta=MES_ETA)
               for k, h in hists.items()}
    pis = pis if plugin else {}
    vec_labels = [x for x in labels if x not in ESTIMATOR_METHODS]
    vectors = _method_vectors(metric_list, vec_labels, design, pis, users)
    # per recommender and replicate: value of every (metric, method) and linearised bias
    values, biases = {}, {}
    E = len(vec_labels)
    for name in names:
        V = vectors[name].reshape(K * E, m + 1)
        value = (np.vstack([hists[name], reps[name]]) @ V.T).reshape(
            1 + reps[name].shape[0], K, E)
        if plugin is None or E == 0:
            bias = np.zeros_like(value)
        else:
            curves = np.stack([bias_curve(vectors[name][k], metric_list[k], design)
                               for k in range(K)]).reshape(K * E, n)
            grad = mes_gradient(hists[name], pis[name], curves, design)
            full = curves @ pis[name]
            shift = (reps[name] - hists[name]) @ grad.T
            bias = np.vstack([full, full + shift]).reshape(-1, K, E)
        if "mes" in labels:                  # the delta method around MES's P^, no bias
            val = W @ pis[name]
            mes = np.vstack([val, val + (reps[name] - hists[name])
                             @ mes_gradient(hists[name], pis[name], W, design).T])
            value = np.concatenate([value, mes[:, :, None]], axis=2)
            bias = np.concatenate([bias, np.zeros_like(mes)[:, :, None]], axis=2)
        order = [(vec_labels + ["mes"]).index(x) for x in labels]
        values[name], biases[name] = value[:, :, order], bias[:, :, order]
    return RankDraws(list(metric_list), list(labels), values, biases, plugin is not None,
                     hists, reps, pis)


def positive_draws(tables: dict, metric_list, labels, sampling: str, *, bootstrap: int,
                   seed: int, thin_to: int = DEFAULT_THIN_TO) -> PositiveDraws:
    """The per-user corrected values of checked long-format tables
    (:func:`~sampled_metrics.multipositive.correct_positives`) and the replicates' weights
    of the users (:class:`PositiveDraws`)."""
    names = list(tables)
    U = tables[names[0]].k.size
    values = {}
    for name, table in tables.items():
        per_user = correct_positives(table, metric_list, labels, sampling, thin_to=thin_to)
        values[name] = np.array([[per_user[(x.name, label)] for label in labels]
                                 for x in metric_list])                   # (K, E, U)
    rng = generator(seed, "compare")
    weights = resampled_counts(rng, U, bootstrap) / U                      # (B, U)
    return PositiveDraws(list(metric_list), list(labels), values, weights)


def compare_ranks(sampled: dict, n: int, m: int | None, metrics, methods, *,
                  sampling: str | None = None, pairing: str = "paired", level: float = 0.95,
                  bootstrap: int = 1000, plugin: str | None = "mes",
                  estimator_bootstrap: int = 50, seed: int = 0, rng=None,
                  evaluator: str | None = None) -> pd.DataFrame:
    """Compare every pair of recommenders (see the module docstring for every column).

    Parameters
    ----------
    sampled : dict name -> int array (U,)
        Sampled ranks r~ in 1..m+1 of the same users in the same order (with
        ``pairing='paired'``).
        Pairs are (first, second), (first, third), ... in the dict's order; D = a - b.
    n, m : int
        Items the true rank is taken among, sampled negatives per user (m may be None
        with ``evaluator``: its own number); or ``n`` a
        :class:`~sampled_metrics.design.Design` and ``m`` None (then no ``sampling`` or
        ``evaluator``).
    metrics : sequence of str
    methods : sequence of str
        Corrections (``sampled``, ``rank_estimate``, ``minimal_bias``, ``cls``,
        ``bv_<gamma>``), ``mn`` (Li et al.'s correction, prior = the MES P^ of each
        recommender) and estimators ``mes`` (interval by the delta method) and ``mle``
        (interval by refits on ``estimator_bootstrap`` replicates).
    sampling : {'binomial', 'hypergeometric'}, optional
        The law of the negatives: the evaluator's where ``evaluator`` is given (a
        contradicting one is refused), else default ``binomial``.
    pairing : {'paired', 'unpaired'}
        ``paired`` (default): the same users in the same order, resampled together (the
        negatives shared or drawn independently); ``unpaired``: different users, each
        recommender's resampled on their own (:data:`~sampled_metrics.registry.PAIRINGS`).
    level : float in (0, 1)
        Confidence level of every interval (alpha = 1 - level).
    bootstrap : int >= 1
        Replicates of the bootstrap.
    plugin : 'mes' or None
        Estimator of P(R) plugged into the bias curve (and MN's prior); None: no bias
        estimate (bias 0, verdict = naive_verdict; not with ``mn``).
    estimator_bootstrap : int >= 0
        Refits of the ``mle`` estimator for its interval (0: NaN interval).
    seed : int
        Seed of the resampling (``seeds.generator(seed, 'compare')``), unless ``rng``.
    evaluator : str, optional
        The evaluator that reported the ranks (``sampled-metrics evaluators``); it sets
        ``sampling`` (and refuses one that contradicts it) and m unless given
        (:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator`).

    Returns
    -------
    pandas.DataFrame with :data:`COMPARE_COLUMNS`, one row per (pair, metric, method).

    Examples
    --------
    >>> import numpy as np
    >>> from sampled_metrics import draw_sampled_ranks
    >>> rng = np.random.default_rng(0)
    >>> r = rng.geometric(0.01, 400).clip(1, 1000)          # A's true ranks; B ranks twice as low
    >>> a = draw_sampled_ranks(r, 1000, 99, rng=rng)
    >>> b = draw_sampled_ranks(np.minimum(2 * r, 1000), 1000, 99, rng=rng)
    >>> t = compare_ranks({"A": a, "B": b}, 1000, 99, ["recall@10"], ["sampled"],
    ...                   bootstrap=200, plugin=None)
    >>> t[["a", "b", "method", "verdict"]].values.tolist()
    [['A', 'B', 'sampled', 'a_better']]
    """
    design = design_of(n, m, sampling=sampling, evaluator=evaluator)
    m = design.m
    paired = resolve_name("pairing", pairing, PAIRINGS) == "paired"
    sampled = check_sampled(sampled, m, paired)
    labels = parse_methods(methods)
    metric_list = parse_metrics(metrics, distinct=True)
    check_interval_draws("bootstrap", bootstrap, level)
    check_integer("estimator_bootstrap", estimator_bootstrap, 0)
    if plugin is not None:
        plugin = resolve_name("plug-in estimator", plugin, ("mes",), choices="mes, None")
    if plugin is None and ("mn" in labels or "mes" in labels):
        raise ValueError("methods 'mn' and 'mes' need the MES plug-in (plugin='mes')")
    rng = generator(seed, "compare") if rng is None else as_generator(rng)
    draws = rank_draws(sampled, design, metric_list, [x for x in labels if x != "mle"],
                       bootstrap=int(bootstrap), rng=rng, paired=paired, plugin=plugin)
    names = list(sampled)
    rows = []
    for a, b in itertools.combinations(names, 2):
        rows += pair_rows(draws, a, b, level)
        if "mle" in labels:
            val, boot = _mle_values(a, b, draws, metric_list, design,
                                    int(estimator_bootstrap))
            lo_e, hi_e = percentile_interval(boot, level)
            K = len(metric_list)
            rows += _rows(a, b, metric_list, "mle", val[0], val[1], lo_e, hi_e, np.zeros(K),
                          np.zeros(K), lo_e, hi_e)
    return pair_frame(rows, names, metric_list, labels)


def compare_positives(tables: dict, metrics, methods, *, sampling: str = "binomial",
                      level: float = 0.95, bootstrap: int = 1000, seed: int = 0,
                      thin_to: int = DEFAULT_THIN_TO) -> pd.DataFrame:
    """Compare recommenders evaluated with several positives per user (the long format).

    Each user's corrected value v_u = normaliser(k_u) sum_i M^(p_i - a_i) is that of
    :func:`sampled_metrics.multipositive.correct_positives`; D^ = (1/U) sum_u v_{A,u} - v_{B,u}
    over the same users, with its paired percentile bootstrap interval over users. A
    correction's bias on the difference needs one rank distribution per recommender, which
    several positives per user do not give: ``bias`` is NaN, [low, high] is the bootstrap
    interval and ``verdict`` equals ``naive_verdict`` (use an unbiased or low-bias
    correction: ``cls``, ``bv_<gamma>``).

    Parameters
    ----------
    tables : dict name -> PositiveTable
        The same users 0..U-1, in the same order, in every table, each user with the same
        positives k, N and M in every table, and at least
        :data:`~sampled_metrics.compare.matching.MIN_USERS` users
        (:func:`~sampled_metrics.compare.matching.check_positive_tables`).
    metrics, methods : sequences of str
        Metrics; corrections ``sampled``, ``rank_estimate``, ``minimal_bias``, ``cls``,
        ``bv_<gamma>``.
    sampling : {'binomial', 'hypergeometric'}
    level, bootstrap, seed : as for :func:`compare_ranks`.
    thin_to : int
        As for :func:`sampled_metrics.multipositive.correct_positives`.

    Returns
    -------
    pandas.DataFrame with :data:`COMPARE_COLUMNS`, one row per (pair, metric, method).
    """
    metric_list = parse_metrics(metrics, distinct=True)
    labels = parse_methods(methods)
    refused = [x for x in labels if x in ESTIMATOR_METHODS + PRIOR_METHODS]
    if refused:
        raise ValueError(f"with several positives per user compare takes corrections only, "
                         f"not {', '.join(refused)} (they estimate a rank distribution from "
                         f"one positive per user)")
    check_interval_draws("bootstrap", bootstrap, level)
    check_positive_tables(tables)
    draws = positive_draws(tables, metric_list, labels, sampling, bootstrap=bootstrap,
                           seed=seed, thin_to=thin_to)
    names = list(tables)
    rows = []
    for a, b in itertools.combinations(names, 2):
        rows += pair_rows(draws, a, b, level)
    return pair_frame(rows, names, metric_list, labels)


def _method_vectors(metric_list, labels, design, pis, users) -> dict:
    """{name: (K, E, m+1)} correction vectors of every correction-like method (MN per
    recommender, with its MES P^ as prior)."""
    corrections = [x for x in labels if x != "mn"]
    fixed = None
    if corrections:
        vec = correction_vectors(metric_list, design, corrections=corrections)
        fixed = np.stack([[vec[(x.name, c)] for c in corrections] for x in metric_list])
    out = {}
    for name in users:
        parts = []
        for label in labels:
            if label == "mn":
                parts.append(np.stack([mn_correction(x, design, prior=pis[name],
                                                     users=users[name])
                                       for x in metric_list])[:, None])
            else:
                parts.append(fixed[:, [corrections.index(label)]])
        out[name] = (np.concatenate(parts, axis=1) if parts
                     else np.zeros((len(metric_list), 0, design.m + 1)))
    return out


def _mle_values(a, b, draws, metric_list, design, refits):
    """((value_a, value_b), bootstrap replicates of the difference) of Jin et al.'s MLE, by
    refits on the first ``refits`` replicates."""
    W = np.stack([x.weights(design.n) for x in metric_list])                # (K, n)
    fits = {x: [estimate_from_histogram(h, design, estimator="mle")
                for h in np.vstack([draws.hists[x], draws.reps[x][:refits]])] for x in (a, b)}
    val = [W @ fits[x][0] for x in (a, b)]
    boot = np.array([W @ (pa - pb) for pa, pb in zip(fits[a][1:], fits[b][1:])])
    return val, boot.reshape(-1, W.shape[0])


def pair_rows(draws, a: str, b: str, level: float) -> list:
    """The rows of pair (a, b) for every metric and method of ``draws``
    (:class:`RankDraws` or :class:`PositiveDraws`) at ``level``: the percentile intervals of
    D^ and of D^ - b^ over the replicates (the second equals the first where the bias is
    unknown), the bias and its standard error; :func:`pair_frame` turns them into the
    table."""
    diff, bias = draws.pair(a, b)                                          # (1 + B, K, E)
    K, E = diff.shape[1:]
    lo, hi = percentile_interval(diff[1:], level)
    if bias is None:                                   # several positives: bias unknown
        bias0 = se = np.full((K, E), np.nan)
        dlo, dhi = lo, hi
    else:
        dlo, dhi = percentile_interval(diff[1:] - bias[1:], level)
        se = bias[1:].std(axis=0, ddof=1) if draws.plugin else np.zeros((K, E))
        bias0 = bias[0]
    va, vb = draws.point(a), draws.point(b)
    rows = []
    for e, label in enumerate(draws.labels):
        rows += _rows(a, b, draws.metrics, label, va[:, e], vb[:, e], lo[:, e], hi[:, e],
                      bias0[:, e], se[:, e], dlo[:, e], dhi[:, e])
    return rows


def pair_frame(rows, names, metric_list, labels) -> pd.DataFrame:
    """The rows of :func:`pair_rows` ordered by pair, metric and method, with
    [low, high] (the hull of the two intervals), the naive verdict and the verdict: the
    table of :func:`compare_ranks` (:data:`COMPARE_COLUMNS`)."""
    rank = {**{x.name: i for i, x in enumerate(metric_list)},
            **{x: i for i, x in enumerate(labels)}}
    rows = sorted(rows, key=lambda row: (names.index(row[0]), names.index(row[1]),
                                         rank[row[2]], rank[row[3]]))
    frame = pd.DataFrame(rows, columns=COMPARE_COLUMNS[:12] + ["dlo", "dhi"])
    frame["naive_verdict"] = verdict(frame.ci_low.fillna(0), frame.ci_high.fillna(0))
    low, high = exact_interval(frame.ci_low.fillna(0), frame.ci_high.fillna(0),
                               frame.dlo.fillna(0), frame.dhi.fillna(0))
    frame["low"], frame["high"] = low, high
    frame["verdict"] = verdict(low, high)
    return frame[COMPARE_COLUMNS]


def _rows(a, b, metric_list, label, val_a, val_b, lo, hi, bias, se, dlo, dhi) -> list:
    return [(a, b, x.name, label, float(val_a[k]), float(val_b[k]),
             float(val_a[k] - val_b[k]), float(lo[k]), float(hi[k]), float(bias[k]),
             float(se[k]), float(val_a[k] - val_b[k] - bias[k]), float(dlo[k]), float(dhi[k]))
            for k, x in enumerate(metric_list)]
