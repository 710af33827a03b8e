"""Corrected sampled metrics for users with several positives (KDD'20 Sec. 8, generalised).

User u has k = k_u test positives, N = N_u non-relevant candidates and M = M_u sampled
negatives; its sampled list holds the k positives and the M negatives (k + M items). Sort
its positives by sampled position p_1 < ... < p_k. For the i-th:

    a_i = i - 1               positives above it (their relative order is observed)
    y_i = p_i - i             sampled negatives above it
    x_i                       non-relevant items above it in the full ranking (unknown)
    r_i = 1 + a_i + x_i       its full-ranking position among the k + N candidates

Every metric of eq. 2-6 is a per-user normaliser times a sum over positives of a term
that depends on r_i only once a_i is known:

==============  ======================================  ==================
metric          term of positive i                      normaliser
==============  ======================================  ==================
``recall@K``    delta(r_i <= K)                         1 / k
``precision@K`` delta(r_i <= K) / K                     1
``ndcg@K``      delta(r_i <= K) / log2(r_i + 1)         1 / IDCG(min(k, K))
``ap@K``        delta(r_i <= K) (a_i + 1) / r_i         1 / min(k, K)
``ap``, ``ndcg`` the same without delta                 1 / k, 1 / IDCG(k)
``auc``         (N - x_i) / N                           1 / k
``hit@K``       delta(a_i = 0) delta(r_i <= K)          1
``mrr@K``       delta(a_i = 0) delta(r_i <= K) / r_i    1
``mrr``         delta(a_i = 0) / r_i                    1
==============  ======================================  ==================

(AP's precision at r_i is (a_i + 1) / r_i; AUC of eq. 2 reduces to the mean of
(N - x_i) / N since sum_i a_i = k (k - 1) / 2.) The metric on the sampled list is the same
formula with y_i for x_i and M for N.

Reduction. Under uniform sampling (:mod:`sampled_metrics.multipositive.laws`),
y_i | x_i is the one-item law of :mod:`sampled_metrics.sampling` with n = N + 1 items,
m = M samples, true rank r = 1 + x_i and sampled rank r~ = 1 + y_i = p_i - a_i. So the
i-th term is a one-item problem with the *shifted* metric vector W_a(r) = term(a + r)
(:class:`ShiftedMetric`), and every correction M^ of :mod:`sampled_metrics.corrections`
applies term by term: the corrected metric of u is

    normaliser(k_u) * sum_i M^_{W_{a_i}; N_u + 1, M_u}(p_i - a_i).

By linearity, E[corrected | x] - metric = normaliser * sum_i (E[M^(r~_i) | x_i] - W(r_i)):
a correction unbiased per one-item problem (rank estimate of AUC, CLS of AUC) stays
unbiased, and the bias of the others is the sum of their one-item biases. What does not
carry over: BV's variance term treats the positives' terms as independent, while they
share the M negatives (their sampled ranks are positively correlated).

Large M. The moment-based corrections (``minimal_bias``, ``cls``, ``bv``) solve systems of
size M + 1 per (N, M); RecBole's ``uni100`` gives M = 100 k_u, thousands for heavy users.
For M > ``thin_to`` they are applied at m' = ``thin_to`` to the *thinned* count: a uniform
m'-subset of the M draws is itself a sample of m' draws under the same law (binomial or
hypergeometric), so y' | y ~ Hypergeom(M, y, m') and y' | x follows the one-item law at m'.
The correction used is its Rao-Blackwell average over the thinning,

    M^_M(y) = sum_t Hypergeom(t; M, y, m') M^_{m'}(1 + t),

which has the expectation of M^_{m'} (same bias) and no more variance. ``sampled`` and
``rank_estimate`` always use M itself.

Modules (the names of ``positives`` are importable from this package):

``positives``   the per-positive reduction above: :class:`PositiveTable`, the corrected and
                the exact metric of users with several positives
``shifted``     the shifted one-item metric vectors W_a(r) = term(a + r)
``lookup``      the moment-based per-positive corrections for many users at once
``laws``        the laws of the sampled protocols in use (per user, per positive, with or
                without replacement, popularity)
``draws``       simulated draws of those protocols: how many negatives fall in prefixes of a
                ranking (uniform or popularity), without drawing the items
``weighted``    popularity-sampled negatives: the weighted (Horvitz-Thompson) rank estimate
``longformat``  the long-format CSV of an evaluation with several positives per user
``holdout``     the random holdout split (a share of each user's items as test positives)
"""
from .shifted import ShiftedMetric
from .positives import (DEFAULT_THIN_TO, PositiveTable, correct_multi_positive, correct_positives,
                        multi_positive_metric, per_user_metric)

__all__ = ["ShiftedMetric", "PositiveTable", "correct_multi_positive", "correct_positives",
           "multi_positive_metric", "per_user_metric", "DEFAULT_THIN_TO"]
