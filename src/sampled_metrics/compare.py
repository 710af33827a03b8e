"""Is recommender A better than B? A paired answer from one sampled evaluation.

Two (or more) recommenders are evaluated on the same U users; user u's held-out item has the
sampled rank r~_{A,u} under A and r~_{B,u} under B (1..m+1). For a metric M and a method
(a correction vector M^ of KDD'20 Sec. 5, the MN correction of Li et al., or a P(R) estimator
of Jin et al.) the comparison reports

``difference``   D^ = (1/U) sum_u M^(r~_{A,u}) - M^(r~_{B,u})
                 (estimators: sum_r (P^_A(r) - P^_B(r)) M(r), Jin et al. eq. 14)
``ci_low/high``  percentile bootstrap interval of D^ at ``level``: users are resampled with
                 replacement, the *same* users for A and B (paired; see below)
``bias``         the correction's own bias on the difference, from its analytic bias curve
                 beta(r) = E[M^(r~) | r] - M(r) = sum_s p(s | r) M^(s) - M(r) under each
                 recommender's estimated rank distribution P^ (Jin et al.'s MES estimate,
                 eq. 24-27, as the plug-in):  b^ = sum_r P^_A(r) beta_A(r) - sum_r P^_B(r) beta_B(r)
``debiased``     D^ - b^
``bias_se``      bootstrap standard error of b^; b^ is resampled with D^ by the delta method:
                 each user's linear influence on sum_r P^(r) beta(r) is the entry of its
                 sampled rank in the gradient of that functional with respect to the
                 histogram (:func:`mes_gradient`), so no replicate refits P^ and the joint
                 noise of D^ and b^ (strongly correlated) is kept
``low/high``     interval for the exact difference D = (1/U) sum_u M(r_{A,u}) - M(r_{B,u}): the
                 hull of the bootstrap interval of D^ and that of D^ - b^,
                 low = min(ci_low, debiased_low), high = max(ci_high, debiased_high)
``verdict``      ``a_better`` if low > 0, ``b_better`` if high < 0, else
                 ``not_distinguishable``
``naive_verdict`` the same from [ci_low, ci_high] alone (what ignoring the bias concludes)

A verdict is therefore confident only if the sign of the difference survives the sampling
noise both when the method's bias is the estimated one and when it is zero (the plug-in may
be wrong; MES's entropy term biases P^ towards flat distributions). The ML-1M validation
(the docs, ``workflow/validation/compare_ml1m.py``) measures how often a confident verdict is
wrong. Estimators (``mes``, ``mle``) have no analytic bias curve: their bias is reported as 0;
``mes``'s interval comes from the delta method, ``mle``'s from refits.

Pairing. Users are the resampling unit: the pair (r~_{A,u}, r~_{B,u}) is one observation, and
pairs are independent across users whether the m negatives of a user are **shared** by A and
B (the workflow's rank files, the NCF protocol) or drawn **independently** for each. The
paired bootstrap is therefore right in both cases: with shared negatives the two sampled ranks
of a user are positively correlated and the bootstrap picks the covariance up (narrower
intervals); with independent draws the sampling noise of A and B is uncorrelated given the true
ranks and only the between-user covariance remains. The variance it estimates,
Var_u(d_u) / U with d_u = M^(r~_{A,u}) - M^(r~_{B,u}), is that of D^ over a new draw of users
*and* negatives; for the fixed users of the evaluation it is conservative (it adds the
between-user variance of the exact differences). ``paired=False`` is for evaluations on
different users (or in an unknown order): A and B are resampled independently, the variance
is Var(A)/U_A + Var(B)/U_B.

All bootstrap replicates are histograms of resampled sampled ranks (one ``bincount`` per
recommender over B x U indices), and every correction is linear in the histogram, so a
replicate of all metrics and corrections is one matrix product.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy import linalg

from .checks import check_bootstrap_draws, check_integer
from .corrections.vectors import correction_vectors, parse_correction
from .estimators.dispatch import estimate_from_histogram
from .estimators.histogram import mixture_matrix, sampled_rank_histogram
from .metrics import parse_metric
from .multipositive.positives import DEFAULT_MAX_M, correct_positives
from .resampling import percentile_interval, resampled_counts, resampled_users
from .sampling import check_nm
from .seeds import generator

#: Entropy weight of the MES plug-in (Jin et al.'s eta, the package default).
MES_ETA = 0.001

__all__ = ["VERDICTS", "ESTIMATOR_METHODS", "compare_ranks", "compare_positives", "compare_repeats", "verdict", "orders_like_exact", "mes_gradient",
           "exact_interval", "bias_curve", "agreement_summary", "COMPARE_COLUMNS"]

VERDICTS = ("a_better", "b_better", "not_distinguishable")
#: Methods that are P(R) estimators (Jin et al.), not correction vectors.
ESTIMATOR_METHODS = ("mle", "mes")
#: Methods whose correction vector depends on the recommender's estimated P(R).
PRIOR_METHODS = ("mn",)
COMPARE_COLUMNS = ["a", "b", "metric", "method", "value_a", "value_b", "difference", "ci_low",
                   "ci_high", "bias", "bias_se", "debiased", "low", "high", "naive_verdict",
                   "verdict"]


def check_interval_draws(name: str, draws, level: float) -> int:
    """Bootstrap replicates of a comparison: enough for an interval at ``level``
    (:func:`sampled_metrics.checks.check_bootstrap_draws`), and not 0 (a verdict needs one)."""
    if check_bootstrap_draws(name, draws, level) == 0:
        raise ValueError(f"{name} must be >= 1: a verdict needs an interval")
    return int(draws)


def verdict(low, high) -> np.ndarray:
    """``a_better`` where low > 0, ``b_better`` where high < 0, else ``not_distinguishable``
    (elementwise; an interval that touches 0 is not distinguishable)."""
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    if np.any(low > high):
        raise ValueError("interval with low > high")
    return np.where(low > 0, VERDICTS[0], np.where(high < 0, VERDICTS[1], VERDICTS[2]))


def orders_like_exact(value_a, value_b, exact_a, exact_b) -> np.ndarray:
    """Whether each estimate orders A and B as the exact metric does: sign(a - b) =
    sign(exact_a - exact_b) != 0 (strictly; a tie either way counts as wrong). Elementwise,
    e.g. over repeats; the count of True is KDD'20 Table 4's cell.

    Examples
    --------
    >>> orders_like_exact([0.3, 0.1, 0.2], [0.2, 0.2, 0.2], 0.08, 0.07).tolist()
    [True, False, False]
    """
    truth = np.sign(np.asarray(exact_a, dtype=np.float64) - np.asarray(exact_b, dtype=np.float64))
    got = np.sign(np.asarray(value_a, dtype=np.float64) - np.asarray(value_b, dtype=np.float64))
    return (got == truth) & (truth != 0)


def exact_interval(ci_low, ci_high, debiased_low, debiased_high
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Interval for the exact difference that holds whether the method's bias is the
    estimated one or zero: the hull of the interval of D^ and that of D^ - b^,

        low = min(ci_low, debiased_low),   high = max(ci_high, debiased_high).
    """
    arrays = [np.asarray(x, dtype=np.float64) for x in (ci_low, ci_high, debiased_low,
                                                          debiased_high)]
    if np.any(arrays[0] > arrays[1]) or np.any(arrays[2] > arrays[3]):
        raise ValueError("interval with low > high")
    return np.minimum(arrays[0], arrays[2]), np.maximum(arrays[1], arrays[3])


def mes_gradient(hist, pi, functionals, n: int, m: int, sampling: str = "binomial",
                 eta: float = MES_ETA) -> np.ndarray:
    """Gradient of f^T pi^ with respect to the histogram P~, pi^ = MES(P~) (Jin et al. eq.
    24-27), for each row f of ``functionals`` (L, n): the delta method for the plug-in.

    On the observed sampled ranks (P~ > 0), MES's optimum pi = softmax(-A y / eta) solves
    G(y, P~) = P~ + y / (2 P~) - A^T pi(y) = 0 (the dual stationarity of
    :func:`sampled_metrics.estimators.mes`), so y = 2 P~ (A^T pi - P~) and, by the implicit
    function theorem, with C = diag(pi) - pi pi^T, H = dG/dy = diag(1/(2 P~)) + A^T C A / eta
    and J = dG/dP~ = I - diag(y / (2 P~^2)),

        dpi = -C A dy / eta,   dy = -H^{-1} J dP~,   so   d(f^T pi) / dP~ = J H^{-1} A^T C f / eta.

    Returns (L, m+1); entries of unobserved sampled ranks are 0 (a resample never holds
    them). A user's linear influence on f^T pi^ is the entry of its sampled rank.
    """
    P = np.asarray(hist, dtype=np.float64)
    P = P / P.sum()
    obs = P > 0
    A = mixture_matrix(n, m, sampling)[:, obs]
    P = P[obs]
    F = np.atleast_2d(np.asarray(functionals, dtype=np.float64))
    q = pi @ A
    y = 2 * P * (q - P)
    H = (A.T @ (A * pi[:, None]) - np.outer(q, q)) / eta
    H[np.diag_indices_from(H)] += 1 / (2 * P)
    CF = F * pi[None, :] - np.outer(F @ pi, pi)                         # (C f)^T
    V = (CF @ A) / eta                                                  # (L, k)
    G = linalg.solve(H, V.T, assume_a="pos").T * (1 - y / (2 * P * P))[None, :]
    out = np.zeros((F.shape[0], obs.size))
    out[:, obs] = G
    return out


def bias_curve(vectors, metric, n: int, m: int, sampling: str = "binomial") -> np.ndarray:
    """beta(r) = E[M^(r~) | r] - M(r) = sum_s p(s | r) M^(s) - M(r) for r = 1..n.

    ``vectors``: one correction vector (m+1,) or several (E, m+1). Returns (n,) or (E, n).
    Uses the cached mixture matrix A[r - 1, s - 1] = p(s | r)
    (:func:`sampled_metrics.estimators.mixture_matrix`): beta = M^ A^T - M.
    """
    n, m = check_nm(n, m, sampling)
    V = np.asarray(vectors, dtype=np.float64)
    if V.shape[-1] != m + 1 or V.ndim > 2:
        raise ValueError(f"correction vectors for m={m} must have length m+1={m + 1}, got "
                         f"shape {V.shape}")
    out = np.atleast_2d(V) @ mixture_matrix(n, m, sampling).T - parse_metric(metric).weights(n)
    return out[0] if V.ndim == 1 else out


def _parse_methods(methods) -> list[str]:
    """Canonical labels; ValueError (one line) for an unknown method."""
    out = []
    for method in methods:
        name = str(method).strip().lower()
        if name in ESTIMATOR_METHODS or name in PRIOR_METHODS:
            out.append(name)
            continue
        try:
            label, gamma = parse_correction(name)
        except ValueError:
            raise ValueError(f"unknown method {method!r}; expected a correction (sampled, "
                             f"rank_estimate, minimal_bias, cls, bv_<gamma>), mn, or an "
                             f"estimator ({', '.join(ESTIMATOR_METHODS)})") from None
        out.append(label if gamma is None else f"bv_{gamma:g}")
    if not out:
        raise ValueError("no method given")
    if len(set(out)) != len(out):
        raise ValueError(f"a method is given twice: {', '.join(out)}")
    return out


def _check_inputs(sampled: dict, m: int, paired: bool) -> dict:
    if not isinstance(sampled, dict) or len(sampled) < 2:
        raise ValueError("need sampled ranks of at least two recommenders")
    out = {}
    for name, ranks in sampled.items():
        r = np.asarray(ranks)
        if r.ndim != 1 or r.size < 2:
            raise ValueError(f"{name}: sampled ranks must be a vector of at least 2 users, got "
                             f"shape {r.shape}")
        if not np.issubdtype(r.dtype, np.integer):
            if not (np.issubdtype(r.dtype, np.number) and np.all(np.mod(r, 1) == 0)):
                raise ValueError(f"{name}: sampled ranks must be integers")
        r = r.astype(np.int64)
        if r.min() < 1 or r.max() > m + 1:
            raise ValueError(f"{name}: sampled ranks must lie in 1..m+1={m + 1}, got "
                             f"{r.min()}..{r.max()}")
        out[name] = r
    sizes = {r.size for r in out.values()}
    if paired and len(sizes) != 1:
        raise ValueError(f"paired comparison needs the same users for every recommender, got "
                         f"{', '.join(f'{k}: {v.size}' for k, v in out.items())} users")
    return out


def _replicate_histograms(sampled: dict, m: int, draws: int, rng, paired: bool) -> dict:
    """Counts of r~ among users resampled with replacement: {name: (draws, m+1)}; paired:
    the same resampled users for every recommender."""
    out, idx = {}, None
    for name, r in sampled.items():
        if idx is None or not paired:
            idx = resampled_users(rng, r.size, draws)
        keys = r[idx] - 1 + (m + 1) * np.arange(draws)[:, None]
        out[name] = np.bincount(keys.ravel(), minlength=draws * (m + 1)).reshape(draws, m + 1)
    return out


def compare_ranks(sampled: dict, n: int, m: int, metrics, methods, *,
                  sampling: str = "binomial", paired: bool = True, level: float = 0.95,
                  bootstrap: int = 1000, plugin: str | None = "mes",
                  estimator_bootstrap: int = 50, seed: int = 0, rng=None) -> pd.DataFrame:
    """Compare every pair of recommenders (see the module docstring for every column).

    Parameters
    ----------
    sampled : dict name -> int array (U,)
        Sampled ranks r~ in 1..m+1 of the same users in the same order (``paired``).
        Pairs are (first, second), (first, third), ... in the dict's order; D = a - b.
    n, m : int
        Items the true rank is taken among, sampled negatives per user.
    metrics : sequence of str
    methods : sequence of str
        Corrections (``sampled``, ``rank_estimate``, ``minimal_bias``, ``cls``,
        ``bv_<gamma>``), ``mn`` (Li et al.'s correction, prior = the MES P^ of each
        recommender) and estimators ``mes`` (interval by the delta method) and ``mle``
        (interval by refits on ``estimator_bootstrap`` replicates).
    sampling : {'binomial', 'hypergeometric'}
    paired : bool
        Resample the same users for all recommenders (default) or each independently.
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

    Returns
    -------
    pandas.DataFrame with :data:`COMPARE_COLUMNS`, one row per (pair, metric, method).
    """
    n, m = check_nm(n, m, sampling)
    sampled = _check_inputs(sampled, m, paired)
    labels = _parse_methods(methods)
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    if not metric_list:
        raise ValueError("no metric given")
    check_interval_draws("bootstrap", bootstrap, level)
    check_integer("estimator_bootstrap", estimator_bootstrap, 0)
    if plugin not in ("mes", None):
        raise ValueError(f"unknown plug-in estimator {plugin!r}; expected 'mes' (or None)")
    if plugin is None and ("mn" in labels or "mes" in labels):
        raise ValueError("methods 'mn' and 'mes' need the MES plug-in (plugin='mes')")
    rng = generator(seed, "compare") if rng is None else rng
    names = list(sampled)
    K = len(metric_list)
    W = np.stack([x.weights(n) for x in metric_list])                       # (K, n)
    users = {k: v.size for k, v in sampled.items()}
    hists = {k: sampled_rank_histogram(v, m) for k, v in sampled.items()}   # frequencies
    reps = {k: c / users[k] for k, c in
            _replicate_histograms(sampled, m, int(bootstrap), rng, paired).items()}
    pis = ({k: estimate_from_histogram(h, n, m, "mes", sampling, eta=MES_ETA)
            for k, h in hists.items()} if plugin else {})
    vec_labels = [x for x in labels if x not in ESTIMATOR_METHODS]
    vectors = _method_vectors(metric_list, vec_labels, n, m, sampling, pis, users)

    # per recommender and replicate: value of every (metric, method) and linearised bias
    values, biases = {}, {}
    E = len(vec_labels)
    for name in names:
        V = vectors[name].reshape(K * E, m + 1)
        values[name] = (np.vstack([hists[name], reps[name]]) @ V.T).reshape(-1, K, E)
        if plugin is None or E == 0:
            biases[name] = np.zeros_like(values[name])
            continue
        curves = np.stack([bias_curve(vectors[name][k], metric_list[k], n, m, sampling)
                           for k in range(K)]).reshape(K * E, n)
        grad = mes_gradient(hists[name], pis[name], curves, n, m, sampling)
        full = curves @ pis[name]
        shift = (reps[name] - hists[name]) @ grad.T
        biases[name] = np.vstack([full, full + shift]).reshape(-1, K, E)
    rows = []
    for a, b in itertools.combinations(names, 2):
        diff = values[a] - values[b]                                      # (1 + B, K, E)
        bias = biases[a] - biases[b]
        lo, hi = percentile_interval(diff[1:], level)
        dlo, dhi = percentile_interval(diff[1:] - bias[1:], level)
        se = bias[1:].std(axis=0, ddof=1) if plugin else np.zeros((K, E))
        for e, label in enumerate(vec_labels):
            rows += _rows(a, b, metric_list, label, values[a][0, :, e], values[b][0, :, e],
                          lo[:, e], hi[:, e], bias[0, :, e], se[:, e], dlo[:, e], dhi[:, e])
        for label in (x for x in labels if x in ESTIMATOR_METHODS):
            val, boot = _estimator_values(label, a, b, hists, reps, pis, W, n, m, sampling,
                                          int(estimator_bootstrap))
            lo_e, hi_e = percentile_interval(boot, level)
            rows += _rows(a, b, metric_list, label, val[0], val[1], lo_e, hi_e, np.zeros(K),
                          np.zeros(K), lo_e, hi_e)
    frame = _frame(rows, names, metric_list, labels)
    frame["naive_verdict"] = verdict(frame.ci_low.fillna(0), frame.ci_high.fillna(0))
    low, high = exact_interval(frame.ci_low.fillna(0), frame.ci_high.fillna(0),
                               frame.dlo.fillna(0), frame.dhi.fillna(0))
    frame["low"], frame["high"] = low, high
    frame["verdict"] = verdict(low, high)
    return frame[COMPARE_COLUMNS]


def compare_positives(tables: dict, metrics, methods, *, sampling: str = "binomial",
                      level: float = 0.95, bootstrap: int = 1000, seed: int = 0,
                      max_m: int = DEFAULT_MAX_M) -> pd.DataFrame:
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
        The same users 0..U-1, in the same order, in every table.
    metrics, methods : sequences of str
        Metrics; corrections ``sampled``, ``rank_estimate``, ``minimal_bias``, ``cls``,
        ``bv_<gamma>``.
    sampling : {'binomial', 'hypergeometric'}
    level, bootstrap, seed : as for :func:`compare_ranks`.
    max_m : int
        As for :func:`sampled_metrics.multipositive.correct_positives`.

    Returns
    -------
    pandas.DataFrame with :data:`COMPARE_COLUMNS`, one row per (pair, metric, method).
    """
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    labels = _parse_methods(methods)
    refused = [x for x in labels if x in ESTIMATOR_METHODS + PRIOR_METHODS]
    if refused:
        raise ValueError(f"with several positives per user compare takes corrections only, "
                         f"not {', '.join(refused)} (they estimate a rank distribution from "
                         f"one positive per user)")
    check_interval_draws("bootstrap", bootstrap, level)
    names = list(tables)
    users = {name: table.k.size for name, table in tables.items()}
    if len(set(users.values())) > 1:
        raise ValueError("the recommenders were evaluated on different users (" + ", ".join(
            f"{name}: {count}" for name, count in users.items()) + ")")
    U = users[names[0]]
    values = {}
    for name, table in tables.items():
        per_user = correct_positives(table, metric_list, labels, sampling, max_m=max_m)
        values[name] = np.array([[per_user[(x.name, label)] for label in labels]
                                 for x in metric_list])                   # (K, E, U)
    rng = generator(seed, "compare")
    counts = resampled_counts(rng, U, bootstrap) / U                       # (B, U)
    rows = []
    nan = np.full(len(metric_list), np.nan)
    for a, b in itertools.combinations(names, 2):
        diff = values[a] - values[b]                                      # (K, E, U)
        lo, hi = percentile_interval(np.einsum("bu,keu->bke", counts, diff), level)
        for e, label in enumerate(labels):
            rows += _rows(a, b, metric_list, label, values[a][:, e].mean(axis=-1),
                          values[b][:, e].mean(axis=-1), lo[:, e], hi[:, e], nan, nan,
                          lo[:, e], hi[:, e])
    frame = _frame(rows, names, metric_list, labels)
    frame["debiased"] = np.nan
    frame["low"], frame["high"] = frame.ci_low, frame.ci_high
    frame["naive_verdict"] = frame["verdict"] = verdict(frame.ci_low, frame.ci_high)
    return frame[COMPARE_COLUMNS]


def _method_vectors(metric_list, labels, n, m, sampling, pis, users) -> dict:
    """{name: (K, E, m+1)} correction vectors of every correction-like method (MN per
    recommender, with its MES P^ as prior)."""
    from .corrections.mn import mn_correction
    corr = [x for x in labels if x != "mn"]
    fixed = None
    if corr:
        vec = correction_vectors(metric_list, n, m, corr, sampling)
        fixed = np.stack([[vec[(x.name, c)] for c in corr] for x in metric_list])
    out = {}
    for name in users:
        parts = []
        for label in labels:
            if label == "mn":
                parts.append(np.stack([mn_correction(x, n, m, pis[name], users[name], sampling)
                                       for x in metric_list])[:, None])
            else:
                parts.append(fixed[:, [corr.index(label)]])
        out[name] = (np.concatenate(parts, axis=1) if parts
                     else np.zeros((len(metric_list), 0, m + 1)))
    return out


def _estimator_values(label, a, b, hists, reps, pis, W, n, m, sampling, refits):
    """((value_a, value_b), bootstrap replicates of the difference) of a P(R) estimator:
    MES by the delta method (:func:`mes_gradient`), MLE by refits."""
    if label == "mes":
        val = [W @ pis[x] for x in (a, b)]
        boot = [val[i] + (reps[x] - hists[x]) @ mes_gradient(hists[x], pis[x], W, n, m,
                                                              sampling).T
                for i, x in enumerate((a, b))]
        return val, boot[0] - boot[1]
    fits = {x: [estimate_from_histogram(h, n, m, "mle", sampling)
                for h in np.vstack([hists[x], reps[x][:refits]])] for x in (a, b)}
    val = [W @ fits[x][0] for x in (a, b)]
    boot = np.array([W @ (pa - pb) for pa, pb in zip(fits[a][1:], fits[b][1:])])
    return val, boot.reshape(-1, W.shape[0])


def _frame(rows, names, metric_list, labels) -> pd.DataFrame:
    """The rows of :func:`_rows` ordered by pair, metric and method, as a DataFrame."""
    rank = {**{x.name: i for i, x in enumerate(metric_list)},
            **{x: i for i, x in enumerate(labels)}}
    rows = sorted(rows, key=lambda row: (names.index(row[0]), names.index(row[1]),
                                         rank[row[2]], rank[row[3]]))
    return pd.DataFrame(rows, columns=COMPARE_COLUMNS[:12] + ["dlo", "dhi"])


def _rows(a, b, metric_list, label, val_a, val_b, lo, hi, bias, se, dlo, dhi) -> list:
    return [(a, b, x.name, label, float(val_a[k]), float(val_b[k]),
             float(val_a[k] - val_b[k]), float(lo[k]), float(hi[k]), float(bias[k]),
             float(se[k]), float(val_a[k] - val_b[k] - bias[k]), float(dlo[k]), float(dhi[k]))
            for k, x in enumerate(metric_list)]


def compare_repeats(rank_files: dict, m: int, metrics, methods, *, repeats=None,
                    n: int | None = None, seed: int = 0, **options) -> pd.DataFrame:
    """:func:`compare_ranks` on every repeat of workflow rank files, with the exact answer.

    Parameters
    ----------
    rank_files : dict name -> :class:`sampled_metrics.evaluation.rankfile.RankFile`
        The same users in the same order, the same sampling law (negatives shared within a
        repeat, as the workflow draws them).
    m : int
    repeats : sequence of int, optional
        Which repeats (default all of the first file's).
    n : int, optional
        Items of the corrections (default the files' n_items).
    seed : int
        Repeat t resamples from ``seeds.generator(seed, 'compare', t)``.
    **options
        Passed to :func:`compare_ranks` (``level``, ``bootstrap``, ``plugin``, ...).

    Returns
    -------
    The rows of :func:`compare_ranks` with ``repeat``, ``exact_a``, ``exact_b``,
    ``exact_difference`` (exact ranks, each user's own n_u for AUC) and ``agrees`` (the sign
    of ``difference`` is that of the exact difference, Table 4's criterion) and ``wrong``
    (a confident verdict that contradicts the exact order).
    """
    files = dict(rank_files)
    if len(files) < 2:
        raise ValueError("need rank files of at least two recommenders")
    first = next(iter(files.values()))
    for name, f in files.items():
        if not np.array_equal(f.users, first.users):
            raise ValueError(f"{name}: rank files hold different users; a paired comparison "
                             f"needs the same users")
        if f.sampling != first.sampling:
            raise ValueError(f"rank files disagree on the sampling law: {first.sampling} vs "
                             f"{f.sampling} ({name})")
        f.sampled_ranks(m)                                       # ValueError if m is absent
    n = first.n_items if n is None else n
    count = min(f.sampled_ranks(m).shape[0] for f in files.values())
    repeats = range(count) if repeats is None else repeats
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    exact = {(name, x.name): x.mean(f.exact, f.n_u)
             for name, f in files.items() for x in metric_list}
    parts = []
    for t in repeats:
        frame = compare_ranks({k: f.sampled_ranks(m, t) for k, f in files.items()}, n, m,
                              metric_list, methods, sampling=first.sampling,
                              rng=generator(seed, "compare", int(t)), **options)
        frame.insert(0, "repeat", int(t))
        parts.append(frame)
    out = pd.concat(parts, ignore_index=True)
    out["exact_a"] = [exact[(a, x)] for a, x in zip(out.a, out.metric)]
    out["exact_b"] = [exact[(b, x)] for b, x in zip(out.b, out.metric)]
    out["exact_difference"] = out.exact_a - out.exact_b
    truth = np.sign(out.exact_difference)
    out["agrees"] = orders_like_exact(out.difference, 0.0, out.exact_difference, 0.0)
    out["wrong"] = _wrong(out.verdict, truth)
    out["naive_wrong"] = _wrong(out.naive_verdict, truth)
    return out


def _wrong(verdicts, truth) -> np.ndarray:
    v = np.asarray(verdicts)
    return ((v == VERDICTS[0]) & (truth <= 0)) | ((v == VERDICTS[1]) & (truth >= 0))


def agreement_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (a, b, metric, method) over repeats: ``repeats``, ``agree`` (Table 4's count: the
    sign of D^ is the exact one), ``a_better`` / ``b_better`` / ``not_distinguishable``
    (verdict counts), ``wrong`` and ``wrong_rate`` (confident and wrong), ``naive_wrong`` and
    ``naive_wrong_rate`` (the bootstrap interval alone), and ``exact_difference``."""
    keys = ["a", "b", "metric", "method"]
    g = frame.groupby(keys, sort=False)
    out = g.agg(repeats=("repeat", "size"), exact_difference=("exact_difference", "first"),
                mean_difference=("difference", "mean"), agree=("agrees", "sum"),
                wrong=("wrong", "sum"), naive_wrong=("naive_wrong", "sum")).reset_index()
    counts = (frame.groupby(keys + ["verdict"], sort=False).size().unstack(fill_value=0)
              .reindex(columns=list(VERDICTS), fill_value=0).reset_index())
    out = out.merge(counts, on=keys, how="left")
    out["wrong_rate"] = out.wrong / out.repeats
    out["naive_wrong_rate"] = out.naive_wrong / out.repeats
    return out
