"""Estimators of the true-rank distribution from sampled ranks (Jin et al., AAAI'21).

Instead of correcting each metric (KDD'20), estimate the distribution P(r) of true ranks
once and read every metric off it (Jin et al. eq. 13-14):

    metric@K ~= sum_{r=1}^{n} P^(r) M(r).

All estimators see the data only through the histogram of sampled ranks
P~(r~) = (1/U) sum_u 1[r~_u = r~], r~ = 1..m+1 (:func:`sampled_rank_histogram`), and the
mixture matrix A[r - 1, r~ - 1] = p(r~ | r) (:func:`mixture_matrix`, eq. 16-18): the sampled
rank follows the mixture p(r~ | pi) = sum_r pi_r p(r~ | r) = (A^T pi)[r~ - 1].

==========  ===============================================================  ==========
estimator   estimate                                                         Jin et al.
==========  ===============================================================  ==========
``mle``     argmax_pi sum_r~ P~(r~) log (A^T pi)(r~), by (SQUAREM) EM        eq. 19-21
``wmle``    the same with weights w(r~) on the sampled ranks                 eq. 22-23
``mes``     argmax_pi eta H(pi) - sum_r~ P~(r~) ((A^T pi)(r~) - P~(r~))^2    eq. 24-27
``bv``      differences of KDD'20 BV Recall@r corrections                    eq. 15
==========  ===============================================================  ==========

Notation as in the package: Jin et al.'s N, n, R, r are our n, m + 1, r, r~.

Modules (the names of the first five are importable from this package):

``dispatch``    every estimator by name: parse, estimate from ranks or histograms (batched
                over processes), read a metric off P^
``histogram``   the histogram of sampled ranks and the mixture matrix A
``likelihood``  MLE and WMLE
``entropy``     MES
``bv``          Jin et al.'s BV estimate from KDD'20's BV corrections
``em``          the (SQUAREM) EM iterations of the MLE on many histograms at once
``adaptive``    Li et al.'s adaptive sampling (AAAI'23): its law, its draws and the MLE of
                P(r) from per-user sample sizes
"""
from .histogram import check_law_matrix_size, mixture_matrix, sampled_rank_histogram
from .likelihood import (MLE_SOLVERS, MLE_TOL, SQUAREM_STEP_FACTOR, WMLE_READINGS,
                         expected_weights, mle, mle_problem, mle_rows, weight_function, wmle)
from .entropy import MES_HESSIAN_DROP, MES_HESSIAN_ROWS, mes, mes_kkt_residual
from .bv import bv_distribution
from .dispatch import (BATCH_HISTOGRAMS, ESTIMATORS, estimate_batches, estimate_from_histogram,
                       estimate_many, estimate_rank_distribution, metric_from_distribution,
                       parse_estimator)

__all__ = ["sampled_rank_histogram", "mixture_matrix", "check_law_matrix_size", "mle",
           "weight_function", "wmle", "WMLE_READINGS", "expected_weights", "mes",
           "mes_kkt_residual", "bv_distribution", "MLE_SOLVERS", "estimate_rank_distribution",
           "estimate_from_histogram", "estimate_many", "estimate_batches", "mle_rows",
           "parse_estimator", "metric_from_distribution", "ESTIMATORS", "mle_problem",
           "MLE_TOL", "SQUAREM_STEP_FACTOR", "MES_HESSIAN_DROP", "MES_HESSIAN_ROWS",
           "BATCH_HISTOGRAMS"]
