"""Dataset archive and split (moving to the ``datasets`` package)."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from . import data, formats
from .atomic import atomic_output
from .tables import atomic_write_text

__all__ = ["prepare_archive", "make_split", "load_split", "write_json"]

log = logging.getLogger(__name__)

def _atomic_savez(path, **arrays) -> None:
    with atomic_output(path, ".npz") as tmp:
        np.savez(tmp, **arrays)


# ----------------------------------------------------------------------------- data

def prepare_archive(name: str, spec: dict, out) -> Path:
    """Put dataset ``name``'s archive at ``out``: generate it (format ``synthetic``), pack the
    NCF files (format ``ncf``), copy the local ``path`` or download ``url``. The archive's
    MD5 must equal ``spec['md5']`` (optional for ``ncf``, whose authors publish none)."""
    fmt = formats.get_format(spec.get("format"))
    if fmt.name == "synthetic":
        params = {k: v for k, v in spec.items() if k in ("n_users", "n_items", "seed")}
        return data.synthetic_ratings(out, **params)
    if fmt.name == "ncf":
        if not spec.get("path") or not spec.get("prefix"):
            raise ValueError(f"dataset {name!r}: format 'ncf' needs 'path' and 'prefix'")
        packed = formats.pack_ncf(spec["path"], spec["prefix"], out)
        if spec.get("md5") and data.md5sum(packed) != spec["md5"]:
            actual = data.md5sum(packed)
            Path(packed).unlink(missing_ok=True)
            raise data.DataError(f"dataset {name!r}: packed NCF files have MD5 {actual}, "
                                 f"expected {spec['md5']}")
        return packed
    if not spec.get("md5"):
        raise ValueError(f"dataset {name!r}: 'md5' is required to check the archive")
    local = spec.get("path")
    if not local and not spec.get("url"):
        raise ValueError(f"dataset {name!r}: give 'url' or a local 'path'")
    return data.fetch_archive(spec.get("url"), spec["md5"], out, local_path=local)


def make_split(archive, spec: dict | str, out) -> dict:
    """Read a dataset archive in its format (``spec['format']``), binarise, index and split it
    leave-last-out (or take the split as given, format ``ncf``) into ``out`` (npz: train CSR
    arrays, held-out items, evaluated users, raw id maps, fixed negatives if any).
    Returns counts."""
    spec = {"format": spec} if isinstance(spec, str) else dict(spec)
    fmt = formats.get_format(spec.get("format"))
    extra = {}
    if fmt.kind == "split":
        split, meta = fmt.read_split(archive, spec)
        user_ids, item_ids = np.arange(split.n_users), np.arange(split.n_items)
        if meta.get("negatives") is not None:
            extra["negatives"] = meta["negatives"]
        info = dict(meta.get("counts", {}))
    else:
        ratings = fmt.read(archive, spec)
        interactions, user_ids, item_ids = data.index_interactions(ratings)
        if "user_ids" in ratings.attrs:      # string ids: keep the original labels
            user_ids = np.asarray(ratings.attrs["user_ids"])[user_ids].astype(str)
            item_ids = np.asarray(ratings.attrs["item_ids"])[item_ids].astype(str)
        split = data.leave_last_out(interactions, len(user_ids), len(item_ids))
        info = {"ratings": int(len(ratings)), "interactions": int(len(interactions))}
    train = split.train.tocsr()
    _atomic_savez(out, indptr=train.indptr, indices=train.indices, shape=np.array(train.shape),
                  test_items=split.test_items, users=split.users,
                  n_dropped=np.array(split.n_dropped), user_ids=user_ids, item_ids=item_ids,
                  **extra)
    info.update({"format": fmt.name, "users": int(split.n_users), "items": int(split.n_items),
                 "train_interactions": int(train.nnz), "evaluated_users": int(split.users.size),
                 "dropped_users": int(split.n_dropped)})
    log.info("split: %s", json.dumps(info, sort_keys=True))
    return info


def load_fixed_negatives(path) -> np.ndarray | None:
    """The fixed negatives stored with a split (users x m, aligned with ``users``), if any."""
    with np.load(path) as z:
        return z["negatives"].astype(np.int64) if "negatives" in z.files else None


def load_split(path) -> data.Split:
    """Read a split written by :func:`make_split` (fixed negatives, if any, as
    ``split.negatives``)."""
    z = np.load(path)
    train = sp.csr_matrix((np.ones(z["indices"].size), z["indices"], z["indptr"]),
                          shape=tuple(z["shape"]))
    split = data.Split(train, z["test_items"], z["users"], int(z["n_dropped"]))
    split.negatives = z["negatives"].astype(np.int64) if "negatives" in z.files else None
    return split




def write_json(obj, path) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")
