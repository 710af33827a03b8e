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
``policies``   the names of the tie policies and candidate sets
"""
import importlib

#: The engine's names, importable from this package; loaded on first use, so that reading a
#: rank file does not load the compiled kernels.
_ENGINE = ("TIE_POLICIES", "DEFAULT_TIE", "CANDIDATES", "Evaluation", "tie_keys", "ranks_from_counts",
           "exact_ranks", "sampled_ranks", "evaluate", "rank_all", "mean_metrics",
           "check_sampled_ranks_size")

__all__ = list(_ENGINE)


def __getattr__(name: str):
    if name in _ENGINE:
        return getattr(importlib.import_module(".engine", __name__), name)
    if name in ("engine", "kernels", "negatives", "several", "rankfile", "policies"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_ENGINE))
