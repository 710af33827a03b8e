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
between-user variance of the exact differences). ``pairing='unpaired'`` is for evaluations on
different users (or in an unknown order): A and B are resampled independently, the variance
is Var(A)/U_A + Var(B)/U_B.

All bootstrap replicates are histograms of resampled sampled ranks (one ``bincount`` per
recommender over B x U indices), and every correction is linear in the histogram, so a
replicate of all metrics and corrections is one matrix product.

Modules (their names are importable from this package):

``paired``    :func:`compare_ranks` (one sampled rank per user) and :func:`compare_positives`
              (several positives per user): the table above
``bias``      the bias curve of a correction and the delta method for the MES plug-in
``verdicts``  verdicts from intervals, the interval for the exact difference, Table 4's
              criterion
``repeats``   every repeat of workflow rank files against the exact answer, and its summary
``matching``  whether the inputs of a comparison belong together (the same users, candidates,
              items and law; at least :data:`MIN_USERS` users), checked before any arithmetic
``familywise`` the level each of many comparisons is read at so that the chance of any
              confidently wrong verdict stays below 1 - level: the max-statistic paired
              bootstrap or Holm, step-down (:func:`familywise_levels`)
``table``     :func:`results_table`: k recommenders' answers of ``correct``, in order, and
              every pair's verdict with the family-wise error controlled
``layout``    the results table as a researcher pastes it (:func:`results_cells`: the
              terminal, Markdown, LaTeX, HTML) with its caption

The bootstrap itself (resampled users, percentile intervals) is :mod:`sampled_metrics.resampling`,
shared with the commands. ``table`` and ``layout`` load the recommended answer's machinery
(:mod:`sampled_metrics.intervals`), so this package does not import them: their names are
imported from their modules (``sampled_metrics.results_table`` is the table's).
"""
from __future__ import annotations

from ..lazy import lazy_names

#: each public name -> the module defining it, imported on first use: a step that only reads
#: a verdict (Table 4's criterion) does not load the bootstrap's and the intervals' machinery
_NAMES = {**dict.fromkeys(["VERDICTS", "check_interval_draws", "exact_interval",
                           "orders_like_exact", "verdict"], "verdicts"),
          **dict.fromkeys(["MES_ETA", "bias_curve", "mes_gradient"], "bias"),
          **dict.fromkeys(["COMPARE_COLUMNS", "ESTIMATOR_METHODS", "PRIOR_METHODS",
                           "compare_positives", "compare_ranks"], "paired"),
          **dict.fromkeys(["agreement_summary", "compare_repeats"], "repeats"),
          **dict.fromkeys(["MIN_USERS", "check_positive_tables", "check_rank_files"],
                          "matching"),
          **dict.fromkeys(["FAMILYWISE_METHODS", "familywise_levels"], "familywise")}

__all__ = ["VERDICTS", "ESTIMATOR_METHODS", "compare_ranks", "compare_positives", "compare_repeats",
           "verdict", "orders_like_exact", "mes_gradient",
           "exact_interval", "bias_curve", "agreement_summary", "COMPARE_COLUMNS",
           "check_interval_draws", "PRIOR_METHODS", "MES_ETA", "MIN_USERS", "check_rank_files",
           "check_positive_tables", "FAMILYWISE_METHODS", "familywise_levels"]

__getattr__, __dir__ = lazy_names(__name__, _NAMES, __all__)
