"""Evaluation: the exact and sampled ranks of the held-out item, from one scoring pass.

``engine``     :func:`evaluate`, :func:`rank_all`, the tie policies and the per-block drivers
               (KDD'20 Sec. 2 and 6); its names are importable from this package
``kernels``    the compiled loops of the engine (numba)
``negatives``  the samplers of the m negatives (uniform with or without replacement,
               fixed), keyed by draw block, and the candidate table
``several``    the same ranking for several test positives per user (the engine's scoring
               loop, tie keys and policies) and their simulated sampled positions
``rankfile``   the rank file: what one evaluation of one recommender produced (the contract
               between the scoring step, the tables and the command line)
"""
from .engine import (CANDIDATES, DEFAULT_TIE, TIES, Evaluation, check_sampled_ranks_size,
                     evaluate, exact_ranks, mean_metrics, rank_all, ranks_from_counts,
                     sampled_ranks, tie_keys)

__all__ = ["TIES", "DEFAULT_TIE", "CANDIDATES", "Evaluation", "tie_keys", "ranks_from_counts",
           "exact_ranks", "sampled_ranks", "evaluate", "rank_all", "mean_metrics",
           "check_sampled_ranks_size"]
