"""sampled_metrics: sampled evaluation metrics for item recommendation.

Reproduces Krichene & Rendle, "On Sampled Metrics for Item Recommendation" (KDD'20), the
rank-distribution estimators of Jin et al. (AAAI'21) and the corrections of Li et al.

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

The API: one function per task
-------------------------------
correct                  the full-ranking metric with an interval that covers it, then the
                         corrections, from sampled ranks
estimate                 metrics from the rank distribution Jin et al.'s estimators infer
compare_ranks            whether recommender A beats B, paired and bias-aware
results_table            k recommenders' corrected values in order, and which differences
                         hold over all pairs (family-wise)
bound_full_metric        what published sampled values allow the full-ranking metric to be
required_sample_size     how large m must be for a target bias
rank_pmf                 the law p(r~ | r) of the sampled rank
draw_sampled_ranks       sampled ranks drawn from true ranks
expected_sampled_metric  E[M^(r~) | r], the expected value of a sampled metric
correction               a correction's vector M^
Metric, parse_metrics    the metrics (recall@K, ndcg@K, ap, auc, ...)
get_evaluator            what an evaluator (SASRec, NCF, ReChorus, ...) samples and reports
from_scores              the scores an evaluator ranked -> the long format ``correct`` reads

Everything else lives in the documented subpackages (``corrections``, ``estimators``,
``compare``, ``bounds``, ``intervals``, ``evaluators``, ``multipositive``, ``integrations``).
The names load on first use, so ``import sampled_metrics`` stays fast.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: each public name -> the module defining it (imported on first use)
_API = {
    "correct": "intervals.table",
    "estimate": "estimators.table",
    "compare_ranks": "compare.paired",
    "results_table": "compare.table",
    "bound_full_metric": "bounds",
    "required_sample_size": "corrections.planning",
    "rank_pmf": "sampling",
    "draw_sampled_ranks": "sampling",
    "expected_sampled_metric": "sampling",
    "correction": "corrections.vectors",
    "Metric": "metrics",
    "parse_metrics": "metrics",
    "get_evaluator": "evaluators.catalogue",
    "from_scores": "evaluators.scores",
}

__all__ = list(_API)


def __getattr__(name: str):
    """Import a public name's module on first use (PEP 562); a subpackage by its name."""
    if name in _API:
        value = getattr(importlib.import_module(f".{_API[name]}", __name__), name)
        globals()[name] = value
        return value
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as err:
        if err.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
