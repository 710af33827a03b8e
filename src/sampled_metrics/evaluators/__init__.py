"""The evaluators researchers run (SASRec, BERT4Rec, NCF, ReChorus, DaisyRec, Elliot,
Microsoft Recommenders, RecBole): each one's sampling law, tie rule, unit and metrics
(:mod:`.catalogue`), the law of the rank it reports (:mod:`.law`), and its scores turned into
the long format the corrections read (:mod:`.scores`), and its evaluation simulated for
users whose full ranks are known (:mod:`.simulate`)."""
from .catalogue import EVALUATORS, Evaluator, evaluator_names, evaluator_sampling, get_evaluator
from .law import distinct_draws_pmf, reported_rank_pmf
from .scores import from_scores
from .simulate import reported_ranks, simulate_candidates

__all__ = ["EVALUATORS", "Evaluator", "evaluator_names", "evaluator_sampling", "get_evaluator", "reported_rank_pmf",
           "distinct_draws_pmf", "from_scores", "simulate_candidates", "reported_ranks"]
