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
                 recommender's estimated rank distribution P^ (Jin et al.'s estimator, MES by
                 default, as the plug-in):  b^ = sum_r P^_A(r) beta_A(r) - sum_r P^_B(r) beta_B(r)
``bias_se``      bootstrap standard error of b^ (P^ refitted on ``plugin_bootstrap`` paired
                 replicates); [b_lo, b_hi] = b^ -/+ z se, z = Phi^-1((1 + level) / 2)
``debiased``     D^ - b^
``low/high``     interval for the exact difference D = (1/U) sum_u M(r_{A,u}) - M(r_{B,u}):
                 low = ci_low - max(b_hi, 0), high = ci_high - min(b_lo, 0)
``verdict``      ``a_better`` if low > 0, ``b_better`` if high < 0, else
                 ``not_distinguishable``
``naive_verdict`` the same from [ci_low, ci_high] alone (what ignoring the bias concludes)

The interval [low, high] contains both the bootstrap interval of D^ and that interval shifted
by every bias in [b_lo, b_hi]: a verdict is confident only if the sign of the difference
survives both the sampling noise and the estimated bias, *and* survives the plug-in being
wrong (bias 0). Adding the two intervals is a union bound (conservative); the ML-1M
validation measures how often a confident verdict is wrong (``workflow/benchmarks`` and the
README). Estimators (``mle``, ``mes``) have no analytic bias curve: their bias is reported as 0
and their interval comes from the refits.

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
from scipy import stats

from .corrections import correction_vectors, parse_correction
from .estimators import estimate_from_histogram, mixture_matrix, sampled_rank_histogram
from .metrics import parse_metric
from .sampling import check_nm
from .seeds import generator

__all__ = ["VERDICTS", "ESTIMATOR_METHODS", "compare_ranks", "compare_repeats", "verdict",
           "exact_interval", "bias_curve", "agreement_summary", "COMPARE_COLUMNS"]

VERDICTS = ("a_better", "b_better", "not_distinguishable")
#: Methods that are P(R) estimators (Jin et al.), not correction vectors.
ESTIMATOR_METHODS = ("mle", "mes")
#: Methods whose correction vector depends on the recommender's estimated P(R).
PRIOR_METHODS = ("mn",)
COMPARE_COLUMNS = ["a", "b", "metric", "method", "value_a", "value_b", "difference", "ci_low",
                   "ci_high", "bias", "bias_se", "debiased", "low", "high", "naive_verdict",
                   "verdict"]


def verdict(low, high) -> np.ndarray:
    """``a_better`` where low > 0, ``b_better`` where high < 0, else ``not_distinguishable``
    (elementwise; an interval that touches 0 is not distinguishable)."""
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    if np.any(low > high):
        raise ValueError("interval with low > high")
    return np.where(low > 0, VERDICTS[0], np.where(high < 0, VERDICTS[1], VERDICTS[2]))


def exact_interval(ci_low, ci_high, bias_low, bias_high) -> tuple[np.ndarray, np.ndarray]:
    """Interval for the exact difference D = D^ - bias that holds for every bias in
    [bias_low, bias_high] and for bias 0:

        low = ci_low - max(bias_high, 0),   high = ci_high - min(bias_low, 0).
    """
    ci_low, ci_high = np.asarray(ci_low, float), np.asarray(ci_high, float)
    bias_low, bias_high = np.asarray(bias_low, float), np.asarray(bias_high, float)
    if np.any(bias_low > bias_high) or np.any(ci_low > ci_high):
        raise ValueError("interval with low > high")
    return ci_low - np.maximum(bias_high, 0.0), ci_high - np.minimum(bias_low, 0.0)


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
            idx = rng.integers(0, r.size, size=(draws, r.size), dtype=np.int32)
        keys = r[idx] - 1 + (m + 1) * np.arange(draws)[:, None]
        out[name] = np.bincount(keys.ravel(), minlength=draws * (m + 1)).reshape(draws, m + 1)
    return out


def _interval(samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval along axis 0 (NaN without samples)."""
    if samples.shape[0] == 0:
        nan = np.full(samples.shape[1:], np.nan)
        return nan, nan
    lo, hi = np.quantile(samples, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return lo, hi


def compare_ranks(sampled: dict, n: int, m: int, metrics, methods, *,
                  sampling: str = "binomial", paired: bool = True, level: float = 0.95,
                  bootstrap: int = 1000, plugin: str = "mes", plugin_bootstrap: int = 50,
                  seed: int = 0, rng=None) -> pd.DataFrame:
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
        ``bv_<gamma>``), ``mn`` (Li et al.'s correction, prior = the plug-in's P^ of each
        recommender) and estimators ``mle``, ``mes``.
    sampling : {'binomial', 'hypergeometric'}
    paired : bool
        Resample the same users for all recommenders (default) or each independently.
    level : float in (0, 1)
        Confidence level of every interval (alpha = 1 - level).
    bootstrap : int >= 1
        Replicates of the bootstrap interval of D^.
    plugin : {'mes', 'mle'} or None
        Estimator of P(R) whose P^ is plugged into the bias curve (and MN's prior); None:
        no bias estimate (bias 0, so verdict = naive_verdict; not with ``mn``).
    plugin_bootstrap : int >= 0
        Replicates on which P^ is refitted (bias standard error, estimator intervals);
        0: bias taken as exact (bias_se = 0) and estimator intervals NaN.
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
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    for key, value, lo in (("bootstrap", bootstrap, 1), ("plugin_bootstrap", plugin_bootstrap, 0)):
        if isinstance(value, bool) or int(value) != value or value < lo:
            raise ValueError(f"{key} must be an integer >= {lo}, got {value!r}")
    if plugin is not None and plugin not in ESTIMATOR_METHODS:
        raise ValueError(f"unknown plug-in estimator {plugin!r}; expected one of "
                         f"{', '.join(ESTIMATOR_METHODS)}")
    if plugin is None and "mn" in labels:
        raise ValueError("method 'mn' needs a plug-in estimator of P(R) for its prior")
    rng = generator(seed, "compare") if rng is None else rng
    names = list(sampled)
    corr = [x for x in labels if x not in ESTIMATOR_METHODS and x not in PRIOR_METHODS]
    K = len(metric_list)
    W = np.stack([x.weights(n) for x in metric_list])                       # (K, n)

    hists = {k: sampled_rank_histogram(v, m, normalize=False) for k, v in sampled.items()}
    reps = _replicate_histograms(sampled, m, int(bootstrap), rng, paired)
    fits = _plugin_fits(hists, reps, n, m, sampling, plugin, int(plugin_bootstrap), labels)

    # per recommender: vectors (K, E, m+1) of every correction-like method, and their bias
    vectors, bias = {}, {}
    fixed = None
    if corr:
        vec = correction_vectors(metric_list, n, m, corr, sampling)
        fixed = np.stack([[vec[(x.name, c)] for c in corr] for x in metric_list])
    for name in names:
        parts = [] if fixed is None else [fixed]
        if "mn" in labels:
            from .mn import mn_correction
            users = sampled[name].size
            parts.append(np.stack([mn_correction(x, n, m, fits[name]["full"][plugin], users,
                                                 sampling)[None] for x in metric_list]))
        vectors[name] = np.concatenate(parts, axis=1) if parts else np.zeros((K, 0, m + 1))
    vec_labels = corr + (["mn"] if "mn" in labels else [])
    if vec_labels:
        for name in names:
            if plugin is None:
                bias[name] = {"full": np.zeros((K, len(vec_labels))),
                              "reps": np.zeros((0, K, len(vec_labels)))}
                continue
            curves = np.stack([bias_curve(vectors[name][k], metric_list[k], n, m, sampling)
                               for k in range(K)])                            # (K, E, n)
            bias[name] = {"full": curves @ fits[name]["full"][plugin],
                          "reps": np.einsum("ken,bn->bke", curves, fits[name]["reps"][plugin])}

    z = stats.norm.ppf((1 + level) / 2)
    rows = []
    for a, b in itertools.combinations(names, 2):
        for e, label in enumerate(vec_labels):
            Va, Vb = vectors[a][:, e].T, vectors[b][:, e].T                  # (m+1, K)
            val_a, val_b = hists[a] @ Va / sampled[a].size, hists[b] @ Vb / sampled[b].size
            boot = (reps[a] @ Va / sampled[a].size) - (reps[b] @ Vb / sampled[b].size)
            lo, hi = _interval(boot, level)
            bias_ab = bias[a]["full"][:, e] - bias[b]["full"][:, e]
            reps_ab = bias[a]["reps"][:, :, e] - bias[b]["reps"][:, :, e]
            se = reps_ab.std(axis=0, ddof=1) if reps_ab.shape[0] > 1 else np.zeros(K)
            rows += _rows(a, b, metric_list, label, val_a, val_b, lo, hi, bias_ab, se, z)
        for label in (x for x in labels if x in ESTIMATOR_METHODS):
            val_a, val_b = W @ fits[a]["full"][label], W @ fits[b]["full"][label]
            boot = fits[a]["reps"][label] @ W.T - fits[b]["reps"][label] @ W.T
            lo, hi = _interval(boot, level)
            rows += _rows(a, b, metric_list, label, val_a, val_b, lo, hi, np.zeros(K),
                          np.zeros(K), z)
    rank = {**{x.name: i for i, x in enumerate(metric_list)},
            **{x: i for i, x in enumerate(labels)}}
    rows.sort(key=lambda row: (names.index(row[0]), names.index(row[1]), rank[row[2]],
                               rank[row[3]]))
    frame = pd.DataFrame(rows, columns=COMPARE_COLUMNS[:12])
    frame["naive_verdict"] = verdict(frame.ci_low.fillna(0), frame.ci_high.fillna(0))
    low, high = exact_interval(frame.ci_low.fillna(0), frame.ci_high.fillna(0),
                               frame.bias - z * frame.bias_se, frame.bias + z * frame.bias_se)
    frame["low"], frame["high"] = low, high
    frame["verdict"] = verdict(low, high)
    return frame[COMPARE_COLUMNS]


def _rows(a, b, metric_list, label, val_a, val_b, lo, hi, bias, se, z) -> list:
    return [(a, b, x.name, label, float(val_a[k]), float(val_b[k]),
             float(val_a[k] - val_b[k]), float(lo[k]), float(hi[k]), float(bias[k]),
             float(se[k]), float(val_a[k] - val_b[k] - bias[k])) for k, x in enumerate(metric_list)]


def _plugin_fits(hists, reps, n, m, sampling, plugin, draws, labels) -> dict:
    """P^ of every needed estimator on the full histogram and the first ``draws`` replicates:
    {name: {'full': {est: (n,)}, 'reps': {est: (draws, n)}}}."""
    needed = {x for x in labels if x in ESTIMATOR_METHODS} | ({plugin} - {None})
    out = {}
    for name, hist in hists.items():
        full = {est: estimate_from_histogram(hist, n, m, est, sampling) for est in needed}
        rep = {est: np.array([estimate_from_histogram(h, n, m, est, sampling)
                              for h in reps[name][:draws]]).reshape(-1, n) for est in needed}
        out[name] = {"full": full, "reps": rep}
    return out


def compare_repeats(rank_files: dict, m: int, metrics, methods, *, repeats=None,
                    n: int | None = None, seed: int = 0, **options) -> pd.DataFrame:
    """:func:`compare_ranks` on every repeat of workflow rank files, with the exact answer.

    Parameters
    ----------
    rank_files : dict name -> :class:`sampled_metrics.rankfile.RankFile`
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
    exact = {(name, x.name): float(np.mean(_exact_values(x, f.exact, f.n_u)))
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
    out["agrees"] = np.sign(out.difference) == truth
    out["wrong"] = _wrong(out.verdict, truth)
    out["naive_wrong"] = _wrong(out.naive_verdict, truth)
    return out


def _exact_values(metric, exact_ranks, n_u) -> np.ndarray:
    """M(r_u) with each user's own n_u for AUC, as Table 3's exact column."""
    return metric(exact_ranks, np.asarray(n_u))


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
