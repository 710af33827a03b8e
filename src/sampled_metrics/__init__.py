"""sampled_metrics: sampled evaluation metrics for item recommendation.

Reproduces Krichene & Rendle, "On Sampled Metrics for Item Recommendation" (KDD'20) and the
rank-distribution estimators of Jin et al. (AAAI'21).

Notation (used everywhere in this package)
------------------------------------------
n        number of items a held-out item is ranked among (the catalogue, or a user's candidates)
m        number of sampled irrelevant items (negatives); a sampled ranking has m + 1 items
r        true (exact) 1-based rank of the relevant item among the n items, r in 1..n
r~       sampled rank of the relevant item among itself and the m samples, r~ in 1..m+1
M(r)     a metric of one relevant item at rank r (``metrics``)
M^       a correction: a vector of length m + 1, entry r~ - 1 is M^(r~) (``corrections``)
p(r~|r)  law of the sampled rank given the true rank (``sampling``)
P(r)     distribution of true ranks over the evaluated users, estimated from sampled ranks
         (``estimators``, Jin et al.)
"""
from .metrics import Metric, metric_value, metric_weights, metric_of_sets, parse_metric, parse_metrics

__version__ = "0.1.0"
from .sampling import (draw_sampled_ranks, expected_metric_matrix, expected_sampled_metric,
                       rank_pmf)
from .corrections import apply_correction, bias_variance, correction, correction_vectors
from .estimators import estimate_rank_distribution, metric_from_distribution
from .multipositive import correct_multi_positive, multi_positive_metric
from .multipositive.weighted import weighted_corrected_metric, weighted_rank_estimate

__all__ = ["Metric", "parse_metric", "parse_metrics", "metric_value", "metric_weights",
           "metric_of_sets", "rank_pmf", "expected_sampled_metric", "expected_metric_matrix",
           "draw_sampled_ranks", "correction", "correction_vectors", "apply_correction",
           "bias_variance", "estimate_rank_distribution", "metric_from_distribution",
           "correct_multi_positive", "multi_positive_metric", "weighted_rank_estimate",
           "weighted_corrected_metric"]

# Is A better than B (paired, bias-aware), Li et al.'s MN correction and adaptive sampling
from .compare import compare_ranks
from .corrections.mn import mn_correction
from .estimators.adaptive import adaptive_mle, draw_adaptive

__all__ += ["compare_ranks", "mn_correction", "adaptive_mle", "draw_adaptive"]

# The full-ranking metric with an interval that covers it, before the corrections
from .intervals import correct

__all__ += ["correct"]

# The scores an evaluator ranked (SASRec, NCF, ReChorus, ...) -> the long format `correct` reads
from .evaluators import from_scores

__all__ += ["from_scores"]

# What a published sampled value says about the full-ranking metric (exact LP bounds)
from .bounds import bound_full_metric, bound_full_metrics

__all__ += ["bound_full_metric", "bound_full_metrics"]
