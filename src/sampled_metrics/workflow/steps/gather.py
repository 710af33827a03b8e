"""The gather of a rank file's shards: one job per (dataset, recommender) joins the rank
files its shard jobs wrote (kept apart from :mod:`.ranks`, so that the gather loads neither
the models nor the compiled engine)."""
from __future__ import annotations

import dataclasses

import numpy as np

from ...evaluation.rankfile import RankFile, read_rank_file

__all__ = ["gather_ranks"]


def gather_ranks(shard_paths, out) -> RankFile:
    """Join the rank files of consecutive shards (in the order given) into one at ``out``.

    Every shard must come from the same evaluation (dataset, recommender, protocol, seed,
    sample sizes and repeats); ValueError naming the first that does not.
    """
    parts = [read_rank_file(p) for p in shard_paths]
    if not parts:
        raise ValueError("no shard to gather")
    first = parts[0]
    same = ("n_items", "sampling", "tie", "seed", "negatives", "dataset", "recommender")
    for path, part in zip(shard_paths, parts):
        differ = [k for k in same if getattr(part, k) != getattr(first, k)]
        shapes = {m: s.shape[0] for m, s in part.sampled.items()}
        if differ or shapes != {m: s.shape[0] for m, s in first.sampled.items()}:
            raise ValueError(f"{path}: not a shard of the same evaluation as "
                             f"{shard_paths[0]} (differs in "
                             f"{', '.join(differ) or 'sample sizes or repeats'})")
    joined = dataclasses.replace(
        first, users=np.concatenate([p.users for p in parts]),
        exact=np.concatenate([p.exact for p in parts]),
        n_u=np.concatenate([p.n_u for p in parts]),
        sampled={m: np.concatenate([p.sampled[m] for p in parts], axis=1)
                 for m in first.sampled})
    joined.write(out)
    return joined
