"""Synthetic interaction data with the shape of MovieLens, generated vectorised.

The model, given the parameters of ``PARAMETERS``:

* **Items.** Popularity is Zipf-like, w_i ∝ rank_i^(-zipf_exponent), ranks shuffled over the
  items. Items and users belong to ``n_clusters`` latent clusters; user u picks item i with
  weight w_i · (``cluster_boost`` if their clusters match, else 1), so recommenders have
  something to learn beyond popularity.
* **Users.** User u has c_u interactions, min_per_user <= c_u <= max_per_user, summing to
  exactly ``n_events``: c_u = min_per_user + s · z_u (rounded, by largest remainders), with
  z_u lognormal(0, ``count_sigma``) and the scale s chosen so that the totals match after
  the cap. The default σ = 1.4 gives ML-20M's shape (there: median 68, mean 144, max 9,254
  interactions per user, with at least 20).
* **Draws.** A user's items are distinct: the first c_u distinct items of an endless
  sequence of independent draws by weight (successive sampling without replacement).
  Vectorised: the first round draws as many items as each user needs and keeps the
  distinct (user, item) pairs (one sort of the combined keys); later rounds continue the
  sequences of the users still short, sized by how many of their draws were new, and cut
  each sequence where the user has enough. Users are processed in blocks of bounded
  memory.
* **Times.** Integer seconds, uniform over a span of 1.5 s per interaction after a random
  start (1995-2014), so about a third of consecutive interactions share their second and
  the tie rule of the split is exercised; ratings are integers 1-5. Rows are grouped by
  user, by item index within the user (not in time order).

The archive is an uncompressed ``.npz`` (a zip of ``.npy`` arrays, see ``ARRAYS``); it is
byte-identical for identical parameters (numpy writes zip entries with a fixed date). Raw
ids are 1-based users and non-contiguous item ids, so the id maps of the split are used.
"""
from __future__ import annotations

import json
import logging
import os
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..atomic import atomic_output
from ..seeds import generator
from .errors import DataError, check_fields

__all__ = ["PARAMETERS", "DEFAULT_EXTRA_PER_USER", "ARRAYS", "synthetic_parameters",
           "user_counts", "generate_synthetic", "read_synthetic", "ItemSampler", "draw_block"]

log = logging.getLogger(__name__)

#: the generator's parameters (the keys of a ``synthetic`` dataset spec besides ``format``),
#: as JSON-schema fragments; defaults are in the descriptions and in ``_DEFAULTS``
PARAMETERS: dict[str, dict] = {
    "n_users": {"type": "integer", "minimum": 1, "description": "number of users"},
    "n_items": {"type": "integer", "minimum": 2, "description": "number of items"},
    "n_events": {"type": "integer", "minimum": 1,
                 "description": "number of interactions, exactly (default n_users x "
                                "(min_per_user + 15), at most n_users x max_per_user)"},
    "min_per_user": {"type": "integer", "minimum": 2,
                     "description": "fewest interactions of a user (default 20, as in "
                                    "MovieLens)"},
    "max_per_user": {"type": "integer", "minimum": 2,
                     "description": "most interactions of a user, at most n_items (default "
                                    "n_items // 4, at least min_per_user)"},
    "count_sigma": {"type": "number", "minimum": 0,
                    "description": "spread of the interactions per user beyond min_per_user: "
                                   "sigma of a lognormal (default 1.4, ML-20M's shape; 0: "
                                   "every user alike)"},
    "zipf_exponent": {"type": "number", "minimum": 0,
                      "description": "item popularity ∝ rank^-zipf_exponent (default 0.8)"},
    "n_clusters": {"type": "integer", "minimum": 1,
                   "description": "latent clusters of users and items (default 5)"},
    "cluster_boost": {"type": "number", "minimum": 1,
                      "description": "weight factor of the items of a user's own cluster "
                                     "(default 8)"},
    "seed": {"type": "integer", "minimum": 0,
             "description": "seed of every draw (default 0)"},
}

#: interactions per user beyond min_per_user when n_events is not given (as the earlier
#: generator's 20 + Poisson(15))
DEFAULT_EXTRA_PER_USER = 15

_DEFAULTS = {"min_per_user": 20, "count_sigma": 1.4, "zipf_exponent": 0.8, "n_clusters": 5,
             "cluster_boost": 8.0, "seed": 0}

#: arrays of the archive: raw ids, interactions per user, then one entry per interaction
#: (users' rows one after the other): item index, rating, Unix time
ARRAYS = ("user_ids", "item_ids", "counts", "items", "ratings", "timestamps", "parameters")

_START, _START_RANGE = 789_000_000, 600_000_000        # 1995-01 .. 2014-01
_SECONDS_PER_EVENT = 1.5
_BLOCK_DRAWS = 1 << 22                                 # draws per block of users
_MAX_ROUNDS = 100


def synthetic_parameters(**given) -> dict:
    """All parameters of the generator: ``given`` checked, the others at their defaults.

    Raises
    ------
    ValueError
        An unknown or missing parameter, a value of the wrong type or range, or an
        inconsistent combination (one line, naming the parameters).

    Examples
    --------
    >>> p = synthetic_parameters(n_users=300, n_items=400)
    >>> p["n_events"], p["max_per_user"], p["min_per_user"]
    (10500, 100, 20)
    """
    check_fields(given, PARAMETERS, required=("n_users", "n_items"), where="synthetic")
    p = {**_DEFAULTS, **given}
    n_users, n_items, low = int(p["n_users"]), int(p["n_items"]), int(p["min_per_user"])
    if low > n_items:
        raise ValueError(f"synthetic: min_per_user ({low}) exceeds n_items ({n_items})")
    high = int(p.get("max_per_user", max(low, n_items // 4)))
    if not low <= high <= n_items:
        raise ValueError(f"synthetic: max_per_user must lie in min_per_user..n_items "
                         f"({low}..{n_items}), got {high}")
    events = int(p.get("n_events", n_users * min(low + DEFAULT_EXTRA_PER_USER, high)))
    if not n_users * low <= events <= n_users * high:
        raise ValueError(f"synthetic: n_events must lie in n_users x min_per_user .. n_users "
                         f"x max_per_user ({n_users * low}..{n_users * high}), got {events}")
    return {**p, "n_users": n_users, "n_items": n_items, "n_events": events,
            "min_per_user": low, "max_per_user": high, "n_clusters": int(p["n_clusters"]),
            "seed": int(p["seed"]), "count_sigma": float(p["count_sigma"]),
            "zipf_exponent": float(p["zipf_exponent"]),
            "cluster_boost": float(p["cluster_boost"])}


def user_counts(n_users: int, n_events: int, low: int, high: int, sigma: float,
                rng: np.random.Generator) -> np.ndarray:
    """Interactions per user: ``low <= c_u <= high``, summing to exactly ``n_events``.

    c_u = low + min(s · z_u, high - low), z_u ~ lognormal(0, sigma), with s found by
    bisection so that the sum is ``n_events``; the fractions are rounded by largest
    remainders.

    Examples
    --------
    >>> c = user_counts(1000, 50_000, 20, 500, 1.4, np.random.default_rng(0))
    >>> int(c.sum()), int(c.min()) >= 20, int(c.max()) <= 500
    (50000, True, True)
    """
    z = rng.lognormal(0.0, sigma, size=n_users)
    room, target = high - low, n_events - n_users * low
    lo_s, hi_s = 0.0, room / z.min() if room else 0.0       # at hi_s every user is capped
    for _ in range(200):
        mid = 0.5 * (lo_s + hi_s)
        if np.minimum(mid * z, room).sum() <= target:
            lo_s = mid
        else:
            hi_s = mid
    extra = np.minimum(lo_s * z, room)
    whole = np.floor(extra).astype(np.int64)
    short = target - int(whole.sum())            # 0 <= short <= users below the cap
    fraction = np.where(whole < room, extra - whole, -1.0)
    whole[np.argsort(-fraction, kind="stable")[:short]] += 1
    return low + whole


class ItemSampler:
    """Draws items for given users from the mixture w_i · (boost if same cluster else 1):
    with probability W / (W + (boost - 1) W_c) by popularity over all items, otherwise by
    popularity within the user's cluster c (W: total weight, W_c: weight of cluster c).

    Each of the 1 + n_clusters distributions ("tables") is drawn by inverse CDF, exactly:
    a uniform u falls in one of K equal slices of [0, 1); a lookup holds the item of every
    slice that lies within one item's CDF interval, and only the draws in the other slices
    (at most (items of the table) / K of them) are resolved by binary search."""

    def __init__(self, popularity, item_cluster, user_cluster, n_clusters, boost):
        n = popularity.size
        by_cluster = np.argsort(item_cluster, kind="stable")
        ends = np.cumsum(np.bincount(item_cluster, minlength=n_clusters))
        self.members = [np.arange(n)] + np.split(by_cluster, ends[:-1])
        mass = np.array([popularity[m].sum() for m in self.members])
        self.cdf = [np.cumsum(popularity[m]) / w if m.size else np.ones(1)
                    for m, w in zip(self.members, mass)]
        slices = max(1024, 1 << int(32 * n - 1).bit_length())
        self.slices = min(slices, max(1024, (1 << 24) // len(self.members)))
        edges = np.arange(self.slices + 1) / self.slices
        quick = []
        for members, cdf in zip(self.members, self.cdf):
            first = np.minimum(np.searchsorted(cdf, edges[:-1], side="right"), cdf.size - 1)
            same = first == np.searchsorted(cdf, edges[1:], side="left")
            quick.append(np.where(same, members[first] if members.size else 0, -1))
        self.quick = np.concatenate(quick)
        self.user_cluster = user_cluster
        self.p_global = mass[0] / (mass[0] + (boost - 1.0) * mass[1 + user_cluster])

    def draw(self, users: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        pick, u = rng.random(users.size), rng.random(users.size)
        table = np.where(pick < self.p_global[users], 0, 1 + self.user_cluster[users])
        items = self.quick[table * self.slices + (u * self.slices).astype(np.int64)]
        slow = np.flatnonzero(items < 0)
        for t in np.unique(table[slow]):
            at = slow[table[slow] == t]
            pos = np.searchsorted(self.cdf[t], u[at], side="right")
            items[at] = self.members[t][np.minimum(pos, self.cdf[t].size - 1)]
        return items


def _first_draws(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct ``keys`` ascending, the position of each one's first occurrence)."""
    bits = int(keys.size).bit_length()
    if keys.size and int(keys.max()) < 1 << (62 - bits):   # key and position in one int64
        packed = np.sort((keys << bits) | np.arange(keys.size))
        head = np.ones(packed.size, dtype=bool)
        head[1:] = (packed[1:] >> bits) != (packed[:-1] >> bits)
        packed = packed[head]
        return packed >> bits, packed & ((1 << bits) - 1)
    return np.unique(keys, return_index=True)


def draw_block(counts: np.ndarray, first_user: int, sampler: ItemSampler, n_items: int,
               rng: np.random.Generator) -> np.ndarray:
    """Keys ``(user - first_user) * n_items + item``, ascending, of ``counts[k]`` distinct
    items for each user ``first_user + k``: the first distinct items of a sequence of
    independent draws (successive sampling without replacement).

    The first round draws, for every user, as many items as it needs and keeps the
    distinct ones. Each later round continues the sequence of every user still short with
    about as many draws as its lacking items needed in its previous round (more when its
    draws were mostly repeats), keeps the new distinct ones in draw order and cuts the
    sequence where the user has enough."""
    users = first_user + np.arange(counts.size)
    need = counts.astype(np.int64)
    per_new = np.ones(counts.size)               # draws per new item in the last round
    taken = [np.zeros(0, dtype=np.int64)]        # keys kept by each round, ascending
    for _ in range(_MAX_ROUNDS):
        short = np.flatnonzero(need)
        if short.size == 0:
            return np.sort(np.concatenate(taken), kind="stable")   # merges sorted runs
        n_draw = np.ceil(need[short] * per_new[short]).astype(np.int64)
        slot_user = np.repeat(short, n_draw)
        keys, first = _first_draws(slot_user * n_items + sampler.draw(users[slot_user], rng))
        for done in taken[1:]:
            found = done[np.minimum(np.searchsorted(done, keys), done.size - 1)] == keys
            keys, first = keys[~found], first[~found]
        owner = keys // n_items
        new = np.bincount(owner, minlength=counts.size)
        if (new > need).any():                   # cut each sequence where it has enough
            cut = np.flatnonzero((new > need)[owner])
            cut = cut[np.argsort(first[cut], kind="stable")]   # draw order, user by user
            rank = np.arange(cut.size) - np.searchsorted(owner[cut], owner[cut])
            keep = np.ones(keys.size, dtype=bool)
            keep[cut[rank >= need[owner[cut]]]] = False
            keys = keys[keep]
        per_new[short] = np.minimum(1.2 * n_draw / np.maximum(new[short], 0.5), 1e4)
        taken.append(keys)
        need -= np.bincount(keys // n_items, minlength=counts.size)
    raise ValueError(f"synthetic: could not draw {int(need.max())} distinct items for some "
                     f"user in {_MAX_ROUNDS} rounds (its last items are too rare); lower "
                     f"max_per_user or zipf_exponent")


def generate_synthetic(path: str | os.PathLike, **parameters) -> Path:
    """Write a synthetic dataset archive (see the module docstring) to ``path``.

    Parameters
    ----------
    path : path
        The archive to write (an uncompressed npz, whatever the name; written atomically).
    **parameters
        ``n_users`` and ``n_items`` (required) and the optional ones of ``PARAMETERS``.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     archive = generate_synthetic(Path(tmp) / "syn.zip", n_users=50, n_items=80)
    ...     frame = read_synthetic(archive)
    >>> len(frame), frame.user.nunique(), int(frame.groupby("user").size().min())
    (1000, 50, 20)
    """
    p = synthetic_parameters(**parameters)
    start = time.perf_counter()
    n_users, n_items, seed = p["n_users"], p["n_items"], p["seed"]
    rng = generator(seed, "synthetic", "items")
    popularity = rng.permutation(np.arange(1, n_items + 1) ** -p["zipf_exponent"])
    item_cluster = rng.integers(p["n_clusters"], size=n_items)
    user_cluster = rng.integers(p["n_clusters"], size=n_users)
    item_ids = 1 + 3 * np.arange(n_items) + rng.integers(0, 3, size=n_items)
    counts = user_counts(n_users, p["n_events"], p["min_per_user"], p["max_per_user"],
                         p["count_sigma"], generator(seed, "synthetic", "counts"))
    sampler = ItemSampler(popularity, item_cluster, user_cluster, p["n_clusters"],
                          p["cluster_boost"])
    draws = generator(seed, "synthetic", "draws")
    ends = np.cumsum(counts)
    blocks = np.searchsorted(ends, np.arange(_BLOCK_DRAWS, int(ends[-1]), _BLOCK_DRAWS))
    items = np.empty(int(ends[-1]), dtype=np.uint16 if n_items <= 1 << 16 else np.uint32)
    for lo, hi in zip(np.r_[0, blocks + 1], np.r_[blocks + 1, n_users]):
        if hi > lo:
            begin = int(ends[lo - 1]) if lo else 0
            items[begin:int(ends[hi - 1])] = draw_block(counts[lo:hi], lo, sampler, n_items,
                                                        draws) % n_items
            log.info("synthetic: items of users %d-%d of %d drawn", lo + 1, hi, n_users)
    times = generator(seed, "synthetic", "times")
    first = _START + times.integers(0, _START_RANGE, size=n_users)
    span = np.repeat(np.ceil(_SECONDS_PER_EVENT * counts), counts)
    stamps = (np.repeat(first, counts).astype(np.uint32)
              + (times.random(span.size) * span).astype(np.uint32))
    del span
    ratings = generator(seed, "synthetic", "ratings").integers(1, 6, size=stamps.size,
                                                               dtype=np.uint8)
    path = Path(path)
    with atomic_output(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, user_ids=np.arange(1, n_users + 1), item_ids=item_ids, counts=counts,
                 items=items, ratings=ratings, timestamps=stamps,
                 parameters=np.array(json.dumps(p, sort_keys=True)))
    log.info("synthetic: %d users, %d items, %d interactions in %.1f s -> %s", n_users,
             n_items, stamps.size, time.perf_counter() - start, path)
    return path


def read_synthetic(archive_path, spec: dict | None = None) -> pd.DataFrame:
    """Ratings of an archive written by :func:`generate_synthetic`.

    Returns
    -------
    pandas.DataFrame
        ``user, item, rating, timestamp`` (raw ids, int64), rows as in the archive.

    Raises
    ------
    DataError
        The file is missing, not such an archive, or inconsistent.
    """
    try:
        with np.load(archive_path, allow_pickle=False) as z:
            missing = [k for k in ARRAYS if k not in z.files]
            if missing:
                raise DataError(f"{archive_path}: not a synthetic dataset archive (no "
                                f"{', '.join(missing)})")
            arrays = {k: z[k] for k in ARRAYS[:-1]}
    except FileNotFoundError as exc:
        raise DataError(f"{archive_path}: archive not found") from exc
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(f"{archive_path}: not a synthetic dataset archive ({exc})") from exc
    counts, items = arrays["counts"], arrays["items"]
    n = items.size
    if (counts.size != arrays["user_ids"].size or int(counts.sum()) != n
            or arrays["ratings"].size != n or arrays["timestamps"].size != n
            or (n and int(items.max()) >= arrays["item_ids"].size)):
        raise DataError(f"{archive_path}: inconsistent synthetic dataset archive (array "
                        f"sizes do not match)")
    return pd.DataFrame({
        "user": np.repeat(arrays["user_ids"].astype(np.int64), counts),
        "item": arrays["item_ids"].astype(np.int64)[items],
        "rating": arrays["ratings"].astype(np.int64),
        "timestamp": arrays["timestamps"].astype(np.int64)}, copy=False)
