"""The scoring step: fit a recommender once, then score each test user once, in shards of
contiguous users, and gather the shards into one rank file (exact rank, n_u and the sampled
ranks of every (m, repeat) the tables ask for).

The workflow runs :func:`fit_recommender` once per (dataset, recommender), :func:`rank_shard`
once per (dataset or view, recommender, shard) and :func:`.gather.gather_ranks` once per
(dataset or view, recommender). Negatives and ties are keyed by draw block
(:data:`~sampled_metrics.evaluation.negatives.BLOCK_USERS` users), and a shard is a whole
number of blocks, so the gathered file is the same whatever the shard size:
:func:`rank_recommender` (everything in one process) writes it byte for byte.
"""
from __future__ import annotations

import inspect
import json
import logging
import time

import numpy as np
from threadpoolctl import threadpool_limits

from ...datasets import Split, load_split
from ...evaluation.engine import check_sampled_ranks_size, evaluate
from ...evaluation.negatives import BLOCK_USERS, check_sample_size
from ...evaluation.rankfile import RankFile
from ...recommenders import KINDS, Recommender, load_model, make_recommender, save_model
from ...sampling import check_candidates
from ...seeds import derive_seed

__all__ = ["DEFAULT_USERS_PER_SHARD", "fit_recommender", "rank_shard", "rank_recommender",
           "shard_count", "check_users_per_shard"]

log = logging.getLogger(__name__)

#: users per shard unless the config says (ranks.users_per_shard): ML-1M in one shard,
#: ML-20M (138,493 users) in nine
DEFAULT_USERS_PER_SHARD = 16 * BLOCK_USERS


def check_users_per_shard(users_per_shard) -> int:
    """``users_per_shard`` as an int if it is a positive multiple of BLOCK_USERS."""
    if (isinstance(users_per_shard, bool) or not isinstance(users_per_shard, (int, np.integer))
            or users_per_shard < BLOCK_USERS or users_per_shard % BLOCK_USERS):
        raise ValueError(f"ranks.users_per_shard must be a positive multiple of {BLOCK_USERS} "
                         f"(the draw block), got {users_per_shard!r}")
    return int(users_per_shard)


def shard_count(n_users: int, users_per_shard: int) -> int:
    """Shards of ``users_per_shard`` contiguous evaluated users (the last may be shorter).

    Examples
    --------
    >>> shard_count(6040, 16384), shard_count(138493, 16384)
    (1, 9)
    """
    return max(1, -(-int(n_users) // check_users_per_shard(users_per_shard)))


def fit_recommender(split_path, recommender: str, model_spec: dict, out, *,
                    threads: int = 1) -> dict:
    """Fit ``recommender`` on the training set of the split and save it to ``out``.

    Parameters
    ----------
    split_path : path
        The dataset's split (``datasets.make_split``).
    recommender : str
        Its name in the config's catalogue (for messages).
    model_spec : dict
        ``{'model': kind, **parameters}`` (kinds: :data:`sampled_metrics.recommenders.KINDS`).
    out : path
        The model file (:func:`sampled_metrics.recommenders.save_model`).
    threads : int
        Threads inside the fit: the BLAS's, and the model's own (its ``threads``, unless
        ``model_spec`` sets them).

    Returns
    -------
    dict
        What was done (model, seconds), also logged.
    """
    split = load_split(split_path)
    model, seconds = _fit(split, recommender, model_spec, threads)
    save_model(model, out)
    info = {"recommender": recommender, "model": repr(model), "fit_seconds": round(seconds, 2),
            "users": int(split.n_users), "items": int(split.n_items)}
    log.info("fit: %s", json.dumps(info))
    return info


def rank_shard(split_path, model_path, recommender: str, out, *, dataset: str, seed: int,
               sample_sizes: dict, tie: str, sampling: str, fixed_negatives: bool = False,
               candidates: str = "unseen", shard: int = 0,
               users_per_shard: int | None = None) -> dict:
    """Rank shard ``shard`` of the evaluated users with a fitted model; write a rank file of
    those users to ``out`` (:func:`gather_ranks` joins the shards).

    Parameters
    ----------
    split_path, model_path : path
        The split and the model fitted on it (:func:`fit_recommender`).
    recommender : str
        Its name (recorded in the file).
    dataset : str
        The dataset or view the ranks are for; negatives and ties are drawn from
        ``derive_seed(seed, dataset)``, so every recommender of a dataset ranks the same
        negatives and a view's file equals the one a separate dataset of that name would
        get (same split and fit).
    seed : int
        The config seed.
    sample_sizes : dict m -> repeats
        Every sample size any table or figure needs for this recommender.
    tie, sampling, candidates : str
        Tie policy, law of the negatives (``hypergeometric`` = without replacement) and
        candidate set (:func:`sampled_metrics.evaluation.evaluate`).
    fixed_negatives : bool
        Rank the dataset's own negatives (NCF's ``.test.negative``) as the single repeat
        instead of drawing them; ``sample_sizes`` must then be ``{K: any}`` with K their
        number per user.
    shard, users_per_shard : int
        Rows ``shard * users_per_shard`` up to ``(shard + 1) * users_per_shard`` of the
        evaluated users; ``users_per_shard`` a multiple of BLOCK_USERS (None: all users).

    Returns
    -------
    dict
        What was done (users, seconds, sample sizes), also logged.
    """
    split = load_split(split_path)
    sizes, fixed = _protocol(split, dataset, sample_sizes, sampling, candidates,
                             fixed_negatives)
    n = split.users.size
    size = max(n, 1) if users_per_shard is None else check_users_per_shard(users_per_shard)
    if not 0 <= shard < -(-n // size):
        raise ValueError(f"dataset {dataset!r}: shard {shard} is past the last of the {n} "
                         f"evaluated users ({size} per shard)")
    model = load_model(model_path)
    if model.n_items != split.n_items or model.train_.shape != split.train.shape:
        raise ValueError(f"{model_path}: the model was fitted on {model.train_.shape[0]} "
                         f"users x {model.n_items} items, the split has {split.train.shape[0]}"
                         f" x {split.n_items}; refit it")
    rows = slice(shard * size, min(n, (shard + 1) * size))
    start = time.perf_counter()
    _rank(model, split, rows, out, recommender=recommender, dataset=dataset, seed=seed,
          sizes=sizes, fixed=fixed, tie=tie, sampling=sampling, candidates=candidates)
    info = {"dataset": dataset, "recommender": recommender, "shard": shard,
            "users": f"{rows.start}..{rows.stop - 1} of {n}",
            "rank_seconds": round(time.perf_counter() - start, 2),
            "sample_sizes": {str(m): r for m, r in sizes.items()}}
    log.info("ranks: %s", json.dumps(info))
    return info


def rank_recommender(split_path, recommender: str, model_spec: dict, out, *, dataset: str,
                     seed: int, sample_sizes: dict, tie: str, sampling: str,
                     fixed_negatives: bool = False, threads: int = 1,
                     candidates: str = "unseen", views: dict | None = None) -> dict:
    """Fit and rank in one process: the rank file the workflow's fit, shard and gather jobs
    write together, and one per view of the dataset.

    Parameters are those of :func:`fit_recommender` and :func:`rank_shard`, and
    ``views``: ``{view: {'out': path, 'candidates': ..., 'sampling': ...,
    'sample_sizes': ...}}`` (sample sizes default to ``sample_sizes``), further rank files
    of the same fitted model under other protocols, each drawn as
    :func:`rank_shard` draws for a dataset of the view's name.
    """
    split = load_split(split_path)
    protocols = {dataset: (out, sampling, candidates, sample_sizes)}
    for view, p in (views or {}).items():
        if fixed_negatives:
            raise ValueError(f"dataset {dataset!r}: view {view!r} cannot rank fixed negatives; "
                             f"set study.fixed_negatives: false")
        protocols[view] = (p["out"], p["sampling"], p.get("candidates", "unseen"),
                           p.get("sample_sizes", sample_sizes))
    checked = {name: _protocol(split, name, sizes, law, cands, fixed_negatives)
               for name, (_, law, cands, sizes) in protocols.items()}   # before the fit
    model, fit_seconds = _fit(split, recommender, model_spec, threads)
    log.info("fitted %s = %r on %s in %.2f s (its only fit in this job)", recommender, model,
             dataset, fit_seconds)
    start = time.perf_counter()
    for name, (path, law, cands, _) in protocols.items():
        sizes, fixed = checked[name]
        _rank(model, split, slice(0, split.users.size), path, recommender=recommender,
              dataset=name, seed=seed, sizes=sizes, fixed=fixed, tie=tie, sampling=law,
              candidates=cands)
    info = {"dataset": dataset, "views": list(protocols)[1:], "recommender": recommender,
            "model": repr(model), "fit_seconds": round(fit_seconds, 2),
            "rank_seconds": round(time.perf_counter() - start, 2),
            "users": int(split.users.size)}
    log.info("ranks: %s", json.dumps(info))
    return info


def _fit(split: Split, recommender: str, model_spec: dict, threads: int
         ) -> tuple[Recommender, float]:
    """The model of ``model_spec`` fitted on the split's training set, and the seconds it
    took; BLAS on ``threads`` threads, so that the same fit gives the same bits on any
    machine (EASE's inverse)."""
    model = _make(recommender, model_spec, threads)
    start = time.perf_counter()
    with threadpool_limits(threads, "blas"):
        model.fit(split.train)
    return model, time.perf_counter() - start


def _make(recommender: str, model_spec: dict, threads: int) -> Recommender:
    spec = dict(model_spec)
    kind = spec.pop("model", None)
    if kind is None:
        raise ValueError(f"recommender {recommender!r}: 'model' (ials, itemknn or ease) is "
                         f"missing")
    if kind in KINDS and "threads" in inspect.signature(KINDS[kind]).parameters:
        spec.setdefault("threads", threads)       # the model's own threads
    return make_recommender(kind, **spec)


def _protocol(split: Split, dataset: str, sample_sizes: dict, sampling: str,
              candidates: str, fixed_negatives: bool):
    """The sample sizes to draw and the fixed negatives, checked against what only the data
    can tell (the corrections need n_u > m)."""
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
        return {}, fixed
    n_u = (split.n_u() if candidates != "all"
           else np.full(split.users.size, split.n_items, dtype=np.int64))
    for m in sizes:
        try:
            check_sample_size(n_u, m, sampling)
        except ValueError as err:
            raise ValueError(f"dataset {dataset!r}: {err}") from None
        try:
            check_candidates(n_u, m)
        except ValueError as err:
            raise ValueError(f"dataset {dataset!r}: {err}: use a smaller m or drop those "
                             f"users") from None
    check_sampled_ranks_size(split.users.size, sizes, dataset)
    return sizes, None


def _rank(model, split: Split, rows: slice, out, *, recommender, dataset, seed, sizes, fixed,
          tie, sampling, candidates) -> None:
    """Rank users ``rows`` of the split (a whole number of draw blocks from the start) and
    write their rank file."""
    part = Split(split.train, split.test_items[rows], split.users[rows], split.n_dropped,
                 None if split.negatives is None else split.negatives[rows])
    draw_seed = derive_seed(seed, dataset)
    result = evaluate(model, part, sizes, tie=tie, sampling=sampling, seed=draw_seed,
                      fixed_negatives=None if fixed is None else fixed[rows],
                      candidates=candidates, first_block=rows.start // BLOCK_USERS)
    loss = np.asarray(getattr(model, "loss_history_", None) or [], dtype=np.float64)
    RankFile(users=result.users, exact=result.ranks, n_u=result.n_u,
             sampled=result.sampled, n_items=split.n_items,
             sampling="hypergeometric" if fixed is not None else sampling,
             tie=tie, seed=draw_seed, negatives="uniform" if fixed is None else "fixed",
             dataset=dataset, recommender=recommender, loss=loss).write(out)
