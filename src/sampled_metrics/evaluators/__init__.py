"""The evaluators researchers run (SASRec, BERT4Rec, NCF, ReChorus, DaisyRec, Elliot,
Microsoft Recommenders, RecBole): each one's sampling law, tie rule, unit and metrics
(:mod:`.catalogue`), the law of the rank it reports (:mod:`.law`), and its scores turned into
the long format the corrections read (:mod:`.scores`), and its evaluation simulated for
users whose full ranks are known (:mod:`.simulate`).

The names load on first use, so that a command that only looks an evaluator up in the
catalogue does not import the laws' special functions.
"""
from __future__ import annotations

from ..lazy import lazy_names

#: each public name -> the module defining it (imported on first use)
_NAMES = {"EVALUATORS": "catalogue", "Evaluator": "catalogue", "evaluator_names": "catalogue",
          "evaluator_sampling": "catalogue", "get_evaluator": "catalogue",
          "resolve_evaluator": "catalogue", "design_of": "catalogue",
          "reported_rank_pmf": "law", "distinct_draws_pmf": "law", "from_scores": "scores",
          "simulate_candidates": "simulate", "reported_ranks": "simulate"}

__all__ = list(_NAMES)

__getattr__, __dir__ = lazy_names(__name__, _NAMES, __all__)
