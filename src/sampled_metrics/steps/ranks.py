"""The scoring step: fit a recommender once, score each test user once, write its rank file
(exact rank, n_u and the sampled ranks of every (m, repeat) the tables ask for)."""
from __future__ import annotations

import json
import logging
import time

import numpy as np

from ..datasets import load_split
from ..evaluation import evaluate
from ..protocols import check_sample_size
from ..rankfile import RankFile
from ..recommenders import make_recommender
from ..seeds import derive_seed

__all__ = ["rank_recommender"]

log = logging.getLogger(__name__)


def rank_recommender(split_path, recommender: str, model_spec: dict, out, *, dataset: str,
                     seed: int, sample_sizes: dict, tie: str, sampling: str,
                     fixed_negatives: bool = False, threads: int = 1,
                     candidates: str = "unseen", views: dict | None = None) -> dict:
    """Fit ``recommender`` on the training set and write its rank file to ``out``, and one
    rank file per view of the dataset (the same fit, ranked under another protocol).

    Parameters
    ----------
    split_path : path
        The dataset's split (``datasets.make_split``).
    recommender : str
        Its name in the config's catalogue (recorded in the file).
    model_spec : dict
        ``{'model': 'ials' | 'itemknn' | 'ease', **parameters}``.
    dataset : str
    seed : int
        The config seed; negatives and ties are drawn from ``derive_seed(seed, dataset)``,
        so every recommender of the dataset ranks the same negatives.
    sample_sizes : dict m -> repeats
        Every sample size any table or figure needs for this recommender.
    tie, sampling : str
        Tie policy and law of the negatives (``hypergeometric`` = without replacement).
    fixed_negatives : bool
        Rank the dataset's own negatives (NCF's ``.test.negative``) as the single repeat
        instead of drawing them; ``sample_sizes`` must then be ``{K: any}`` with K their
        number per user.
    threads : int
        Threads of the model fit.
    candidates : {'unseen', 'all'}
        Rank among the items outside the user's training set (KDD'20) or among all items
        (Jin et al.'s code); see :func:`sampled_metrics.evaluation.evaluate`.
    views : dict, optional
        ``{view: {'out': path, 'candidates': ..., 'sampling': ..., 'sample_sizes': ...}}``
        (sample sizes default to ``sample_sizes``): further rank files of
        the same fitted model under other protocols (config ``dataset_protocols`` with
        ``of``), each with negatives and ties drawn from ``derive_seed(seed, view)`` as if
        ``view`` were a dataset of its own with the same split, so a view's file equals
        the one a separate dataset of that name would give, without a second fit.

    Returns
    -------
    dict
        What was done (fit and ranking seconds, users, sample sizes), also logged.
    """
    split = load_split(split_path)
    spec = dict(model_spec)
    kind = spec.pop("model", None)
    if kind is None:
        raise ValueError(f"recommender {recommender!r}: 'model' (ials, itemknn or ease) is "
                         f"missing")
    if kind == "ials":
        spec.setdefault("num_threads", threads)
    sizes = {int(m): int(r) for m, r in sample_sizes.items()}
    fixed = None
    if fixed_negatives:
        fixed = split.negatives
        if fixed is None:
            raise ValueError(f"dataset {dataset!r} has no fixed negatives (only the 'ncf' "
                             f"format with a .test.negative file has); set "
                             f"study.fixed_negatives: false")
        if set(sizes) != {fixed.shape[1]}:
            raise ValueError(f"dataset {dataset!r} has {fixed.shape[1]} fixed negatives per "
                             f"user, but the tables ask for m = {sorted(sizes)}; set m to "
                             f"{fixed.shape[1]}")
        sizes = {}
    protocols = {dataset: {"out": out, "candidates": candidates, "sampling": sampling,
                           "sample_sizes": sizes}}
    for view, protocol in (views or {}).items():
        if fixed is not None:
            raise ValueError(f"dataset {dataset!r}: view {view!r} cannot rank fixed negatives; "
                             f"set study.fixed_negatives: false")
        view_sizes = protocol.get("sample_sizes", sample_sizes)
        protocols[view] = {**protocol,
                           "sample_sizes": {int(m): int(r) for m, r in view_sizes.items()}}
    for name, protocol in protocols.items():  # what only the data can tell, before the fit
        _check_candidates(split, name, protocol["sample_sizes"], protocol["candidates"],
                          protocol["sampling"])
    model = make_recommender(kind, **spec)
    start = time.perf_counter()
    model.fit(split.train)
    fit_seconds = time.perf_counter() - start
    log.info("fitted %s = %r on %s in %.2f s (its only fit in this job)", recommender, model,
             dataset, fit_seconds)
    loss = np.asarray(getattr(model, "loss_history_", None) or [], dtype=np.float64)
    start = time.perf_counter()
    for name, protocol in protocols.items():
        draw_seed = derive_seed(seed, name)
        result = evaluate(model, split, protocol["sample_sizes"], tie=tie,
                          sampling=protocol["sampling"],
                          seed=draw_seed, fixed_negatives=fixed,
                          candidates=protocol["candidates"])
        RankFile(users=result.users, exact=result.ranks, n_u=result.n_candidates,
                 sampled=result.sampled, n_items=split.n_items,
                 sampling="hypergeometric" if fixed is not None else protocol["sampling"],
                 tie=tie, seed=draw_seed, negatives="uniform" if fixed is None else "fixed",
                 dataset=name, recommender=recommender, loss=loss).write(protocol["out"])
    rank_seconds = time.perf_counter() - start
    info = {"dataset": dataset, "views": list(protocols)[1:], "recommender": recommender,
            "model": repr(model), "fit_seconds": round(fit_seconds, 2),
            "rank_seconds": round(rank_seconds, 2), "users": int(result.users.size),
            "sample_sizes": {name: {str(m): r for m, r in p["sample_sizes"].items()}
                             for name, p in protocols.items()}}
    log.info("ranks: %s", json.dumps(info))
    return info


def _check_candidates(split, dataset: str, sizes: dict, candidates: str,
                      sampling: str) -> None:
    """Refuse any m the users' candidates cannot support (the corrections need n_u > m)."""
    n_candidates = (split.n_candidates() if candidates != "all"
                    else np.full(split.users.size, split.n_items, dtype=np.int64))
    for m in sizes:
        try:
            check_sample_size(n_candidates, m, sampling)
        except ValueError as err:
            raise ValueError(f"dataset {dataset!r}: {err}") from None
        if n_candidates.size and n_candidates.min() <= m:
            raise ValueError(f"dataset {dataset!r}: {int((n_candidates <= m).sum())} users "
                             f"have n_u <= m = {m} candidates (smallest n_u: "
                             f"{int(n_candidates.min())}); the corrections need n_u > m: use "
                             f"a smaller m or drop those users")
