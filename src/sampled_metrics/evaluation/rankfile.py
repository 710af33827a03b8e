"""The rank file: everything one evaluation of one recommender produced (the contract between
the scoring step, the tables and the command line).

One ``.npz`` per (dataset, recommender), written by the workflow's ``ranks`` rule and read by
every table, figure and ``sampled-metrics correct | estimate --ranks FILE.npz``:

==================  ============  ===========================================================
key                 shape         meaning
==================  ============  ===========================================================
``schema``          ()            :data:`SCHEMA`, the version of this layout
``users``           (U,)          evaluated user indices (of the split)
``exact``           (U,)          exact rank r_u among the user's n_u candidates (1..n_u)
``n_u``             (U,)          candidates of the user (items not in its training set,
                                  the held-out item included); n_u > m for every m
``n_items``         ()            |I|, the number of items of the dataset
``m_values``        (k,)          sample sizes m with sampled ranks, ascending
``sampled_m<m>``    (R_m, U)      sampled rank r~ (1..m+1) of each user in each of R_m repeats
``sampling``        ()            law of the negatives: binomial (with replacement) or
                                  hypergeometric (without)
``negatives``       ()            ``uniform`` (drawn) or ``fixed`` (given, one repeat)
``tie``             ()            tie policy of the exact and sampled ranks
``seed``            ()            seed the negatives and ties were drawn from
``dataset``         ()            dataset name (informative)
``recommender``     ()            recommender name (informative)
``loss``            (sweeps,)     training loss per sweep, when the model records one
==================  ============  ===========================================================
"""
from __future__ import annotations

import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..atomic import atomic_output
from ..registry import resolve_name
from ..sampling import check_candidates, check_sampling
from ..textfile import check_readable
from .policies import TIE_POLICIES

__all__ = ["SCHEMA", "RankFile", "read_rank_file", "read_rank_files"]

SCHEMA = "sampled-metrics/ranks/2"
#: how the negatives of a rank file were obtained: drawn uniformly, or a fixed file
NEGATIVES = ("uniform", "fixed")
_SCALARS = ("n_items", "sampling", "negatives", "tie", "seed", "dataset", "recommender")


@dataclass
class RankFile:
    """Exact and sampled ranks of one recommender on one dataset (see the module docstring).

    Attributes
    ----------
    users, exact, n_u : arrays (U,)
    sampled : dict m -> int array (R_m, U)
    n_items : int
    sampling : {'binomial', 'hypergeometric'}
    tie : str
    seed : int
    negatives : {'uniform', 'fixed'}
    dataset, recommender : str
    loss : float array, optional
    """

    users: np.ndarray
    exact: np.ndarray
    n_u: np.ndarray
    sampled: dict
    n_items: int
    sampling: str
    tie: str
    seed: int
    negatives: str = "uniform"
    dataset: str = ""
    recommender: str = ""
    loss: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self):
        self.sampled = {int(m): np.asarray(s) for m, s in sorted(self.sampled.items())}
        self.validate()

    @property
    def m_values(self) -> list[int]:
        """Sample sizes with sampled ranks, ascending."""
        return list(self.sampled)

    def sampled_ranks(self, m: int, repeat: int | None = None) -> np.ndarray:
        """r~ at sample size m: (repeats, U), or (U,) of one ``repeat``."""
        if m not in self.sampled:
            raise ValueError(f"{self._name()}no sampled ranks for m={m}; the file has m in "
                             f"{self.m_values or 'nothing'}")
        ranks = self.sampled[m]
        if repeat is None:
            return ranks
        if isinstance(repeat, bool) or int(repeat) != repeat or not 0 <= repeat < len(ranks):
            raise ValueError(f"{self._name()}repeat {repeat!r} outside 0..{len(ranks) - 1} "
                             f"(m={m})")
        return ranks[int(repeat)]

    def _name(self) -> str:
        return f"{self.dataset}/{self.recommender}: " if self.recommender else ""

    def validate(self) -> None:
        """ValueError (one line) unless every array has the documented shape and range and
        every name is one its registry holds (then written in its canonical spelling)."""
        U = np.asarray(self.users).shape
        if len(U) != 1:
            raise ValueError("users must be a 1-D array")
        for key in ("exact", "n_u"):
            if np.asarray(getattr(self, key)).shape != U:
                raise ValueError(f"{key} must have one entry per user ({U[0]}), got shape "
                                 f"{np.asarray(getattr(self, key)).shape}")
        self.sampling = check_sampling(self.sampling)
        self.negatives = resolve_name("sampler", self.negatives, NEGATIVES)
        n_u = np.asarray(self.n_u)
        if n_u.size and (n_u.min() < 1 or n_u.max() > self.n_items):
            raise ValueError(f"n_u must lie in 1..n_items={self.n_items}")
        exact = np.asarray(self.exact)
        if exact.dtype == bool or not np.issubdtype(exact.dtype, np.number):
            raise ValueError(f"exact ranks must be numbers, got {exact.dtype}")
        if exact.size and not np.all(np.isfinite(exact)):
            raise ValueError("exact ranks must be finite, got NaN or infinity")
        if exact.size and (np.any(exact < 1) or np.any(exact > n_u)):
            raise ValueError("exact ranks must lie in 1..n_u")
        if np.unique(np.asarray(self.users)).size != np.asarray(self.users).size:
            raise ValueError("users must be distinct (one exact rank per user)")
        self.tie = TIE_POLICIES.canonical(self.tie)
        for m, s in self.sampled.items():
            if m < 1 or s.ndim != 2 or s.shape[1] != U[0]:
                raise ValueError(f"sampled ranks for m={m} must be (repeats, {U[0]}), got "
                                 f"shape {s.shape}")
            if not np.issubdtype(s.dtype, np.integer):
                raise ValueError(f"sampled ranks for m={m} must be integers, got {s.dtype}")
            if s.size and (s.min() < 1 or s.max() > m + 1):
                raise ValueError(f"sampled ranks for m={m} must lie in 1..m+1={m + 1}, got "
                                 f"{s.min()}..{s.max()}")
            try:
                check_candidates(n_u, m)
            except ValueError as err:
                raise ValueError(f"sampled ranks for m={m}: {err}") from None

    def write(self, path) -> Path:
        """Write the npz atomically (never a partial file under ``path``)."""
        arrays = {"schema": np.array(SCHEMA), "users": self.users, "exact": self.exact,
                  "n_u": self.n_u, "m_values": np.array(self.m_values, dtype=np.int64),
                  "loss": np.asarray(self.loss, dtype=np.float64)}
        arrays.update({k: np.array(getattr(self, k)) for k in _SCALARS})
        arrays.update({f"sampled_m{m}": s for m, s in self.sampled.items()})
        with atomic_output(path, ".npz") as tmp:
            np.savez(tmp, **arrays)
        return Path(path)


def _load_fault(err: Exception) -> str:
    """What went wrong in ``np.load``, in a few words."""
    if isinstance(err, zipfile.BadZipFile):
        return f"damaged zip archive: {str(err)[:80]}"
    if isinstance(err, zlib.error):
        return "corrupt compressed data"
    if isinstance(err, ValueError) and "pickle" in str(err):
        return "it holds Python objects, not arrays"
    if isinstance(err, OSError):
        return err.strerror or type(err).__name__
    return f"{type(err).__name__}: {str(err)[:100]}"


def read_rank_files(paths) -> dict:
    """{label: :func:`read_rank_file` (path)} for a mapping {label: path}."""
    return {label: read_rank_file(path) for label, path in paths.items()}


def read_rank_file(path) -> RankFile:
    """Read and validate a rank file; ValueError naming ``path`` and the problem."""
    shown = str(path)
    path = check_readable(path, shown, "rank file (.npz)")
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic != b"PK\x03\x04":
        raise ValueError(f"{shown}: not a rank file (.npz is a zip archive; this file starts "
                         f"with {magic!r})")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as err:  # noqa: BLE001 - zipfile, zlib, OSError, object arrays, ...
        raise ValueError(f"{shown}: not a readable rank file ({_load_fault(err)})") from None
    path = shown
    if str(arrays.get("schema", "")) != SCHEMA:
        found = str(arrays["schema"]) if "schema" in arrays else "no 'schema' entry"
        raise ValueError(f"{path}: not a rank file of this version (expected schema "
                         f"{SCHEMA!r}, found {found}); rerun the workflow's ranks rule")
    missing = [k for k in ("users", "exact", "n_u", "m_values", *_SCALARS) if k not in arrays]
    for key in _SCALARS:
        if key in arrays and arrays[key].ndim != 0:
            raise ValueError(f"{path}: {key!r} must be a single value, got shape "
                             f"{arrays[key].shape}")
    for key in ("n_items", "seed"):
        value = arrays.get(key)
        if value is not None and not np.issubdtype(value.dtype, np.integer):
            raise ValueError(f"{path}: {key!r} must be an integer, got {value!r:.60}")
    if "m_values" in arrays and (arrays["m_values"].ndim != 1 or not np.issubdtype(
            arrays["m_values"].dtype, np.integer)):
        raise ValueError(f"{path}: 'm_values' must be a 1-D integer array, got "
                         f"{arrays['m_values'].dtype} of shape {arrays['m_values'].shape}")
    missing += [f"sampled_m{int(m)}" for m in arrays.get("m_values", [])
                if f"sampled_m{int(m)}" not in arrays]
    if missing:
        raise ValueError(f"{path}: rank file lacks {', '.join(missing)}")
    try:
        return RankFile(
            users=arrays["users"], exact=arrays["exact"], n_u=arrays["n_u"],
            sampled={int(m): arrays[f"sampled_m{int(m)}"] for m in arrays["m_values"]},
            n_items=int(arrays["n_items"]), sampling=str(arrays["sampling"]),
            tie=str(arrays["tie"]), seed=int(arrays["seed"]),
            negatives=str(arrays["negatives"]), dataset=str(arrays["dataset"]),
            recommender=str(arrays["recommender"]), loss=arrays.get("loss", np.zeros(0)))
    except (ValueError, TypeError, OverflowError) as err:
        raise ValueError(f"{path}: {err}") from None
