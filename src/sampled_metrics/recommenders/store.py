"""Fitted recommenders on disk: a model is fitted once and scored by as many processes (user
shards) as the evaluation is split into.

A model file is a header line (:data:`HEADER`) followed by the fitted object pickled with
protocol 5 (numpy arrays written as raw buffers, no copy). It is meant to travel between the
steps of one workflow, like a checkpoint: load only files you or your workflow wrote, as
with any pickle.
"""
from __future__ import annotations

import copy
import pickle
from pathlib import Path

from ..atomic import atomic_output
from ..textfile import check_readable
from .base import Recommender

__all__ = ["HEADER", "save_model", "load_model"]

HEADER = b"sampled-metrics/model/1\n"
#: attributes that measure the fit rather than make the model (left out of the file, so the
#: same fit gives the same bytes)
TIMINGS = ("fit_seconds_",)


def save_model(model: Recommender, path) -> Path:
    """Write a fitted ``model`` to ``path`` atomically (never a partial file).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, tempfile, os
    >>> from sampled_metrics.recommenders import EASE
    >>> model = EASE(lam=1.0).fit(sp.csr_matrix(np.eye(3)))
    >>> path = os.path.join(tempfile.mkdtemp(), "ease.pkl")
    >>> np.array_equal(load_model(save_model(model, path)).score([0]), model.score([0]))
    True
    """
    model._fitted()                                   # ValueError unless fitted
    kept = copy.copy(model)                           # shares the arrays
    for name in TIMINGS:
        kept.__dict__.pop(name, None)
    with atomic_output(path, ".pkl") as tmp, open(tmp, "wb") as handle:
        handle.write(HEADER)
        pickle.dump(kept, handle, protocol=5)
    return Path(path)


def load_model(path) -> Recommender:
    """Read a model written by :func:`save_model`; ValueError naming ``path`` otherwise."""
    shown = str(path)
    path = check_readable(path, shown, "model file")
    with open(path, "rb") as handle:
        if handle.read(len(HEADER)) != HEADER:
            raise ValueError(f"{shown}: not a model file of this version (expected the "
                             f"header {HEADER.decode().strip()!r}); rerun the workflow's fit "
                             f"rule")
        try:
            model = pickle.load(handle)
        except Exception as err:  # noqa: BLE001 - truncated file, missing class, ...
            raise ValueError(f"{shown}: damaged model file ({type(err).__name__})") from None
    if not isinstance(model, Recommender):
        raise ValueError(f"{shown}: holds a {type(model).__name__}, not a recommender")
    return model
