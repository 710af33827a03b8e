"""The comparison on every repeat of workflow rank files, with the exact answer beside it,
and its summary over repeats (how often the sign agrees, how often a confident verdict is
wrong): the validation of :func:`~sampled_metrics.compare.paired.compare_ranks`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics import parse_metric
from ..seeds import generator
from .matching import check_rank_files
from .paired import compare_ranks
from .verdicts import VERDICTS, orders_like_exact

__all__ = ["compare_repeats", "agreement_summary"]


def compare_repeats(rank_files: dict, m: int, metrics, methods, *, repeats=None,
                    n: int | None = None, seed: int = 0, **options) -> pd.DataFrame:
    """:func:`compare_ranks` on every repeat of workflow rank files, with the exact answer.

    Parameters
    ----------
    rank_files : dict name -> :class:`sampled_metrics.evaluation.rankfile.RankFile`
        The same users in the same order, each among the same n_u candidates, the same
        n_items and sampling law (negatives shared within a repeat, as the workflow draws
        them; :func:`~sampled_metrics.compare.matching.check_rank_files`).
    m : int
    repeats : sequence of int, optional
        Which repeats (default all of the first file's).
    n : int, optional
        Items of the corrections (default the files' n_items).
    seed : int
        Repeat t resamples from ``seeds.generator(seed, 'compare', t)``.
    **options
        Passed to :func:`compare_ranks` (``level``, ``bootstrap``, ``plugin``, ...).

    Returns
    -------
    The rows of :func:`compare_ranks` with ``repeat``, ``exact_a``, ``exact_b``,
    ``exact_difference`` (exact ranks, each user's own n_u for AUC) and ``agrees`` (the sign
    of ``difference`` is that of the exact difference, Table 4's criterion) and ``wrong``
    (a confident verdict that contradicts the exact order).
    """
    files = dict(rank_files)
    check_rank_files(files)
    first = next(iter(files.values()))
    for f in files.values():
        f.sampled_ranks(m)                                       # ValueError if m is absent
    n = first.n_items if n is None else n
    count = min(f.sampled_ranks(m).shape[0] for f in files.values())
    repeats = range(count) if repeats is None else repeats
    metric_list = [parse_metric(x) for x in ([metrics] if isinstance(metrics, str) else metrics)]
    exact = {(name, x.name): x.mean(f.exact, f.n_u)
             for name, f in files.items() for x in metric_list}
    parts = []
    for t in repeats:
        frame = compare_ranks({k: f.sampled_ranks(m, t) for k, f in files.items()}, n, m,
                              metric_list, methods, sampling=first.sampling,
                              rng=generator(seed, "compare", int(t)), **options)
        frame.insert(0, "repeat", int(t))
        parts.append(frame)
    out = pd.concat(parts, ignore_index=True)
    out["exact_a"] = [exact[(a, x)] for a, x in zip(out.a, out.metric)]
    out["exact_b"] = [exact[(b, x)] for b, x in zip(out.b, out.metric)]
    out["exact_difference"] = out.exact_a - out.exact_b
    truth = np.sign(out.exact_difference)
    out["agrees"] = orders_like_exact(out.difference, 0.0, out.exact_difference, 0.0)
    out["wrong"] = _wrong(out.verdict, truth)
    out["naive_wrong"] = _wrong(out.naive_verdict, truth)
    return out


def _wrong(verdicts, truth) -> np.ndarray:
    v = np.asarray(verdicts)
    return ((v == VERDICTS[0]) & (truth <= 0)) | ((v == VERDICTS[1]) & (truth >= 0))


def agreement_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (a, b, metric, method) over repeats: ``repeats``, ``agree`` (Table 4's count: the
    sign of D^ is the exact one), ``a_better`` / ``b_better`` / ``not_distinguishable``
    (verdict counts), ``wrong`` and ``wrong_rate`` (confident and wrong), ``naive_wrong`` and
    ``naive_wrong_rate`` (the bootstrap interval alone), and ``exact_difference``."""
    keys = ["a", "b", "metric", "method"]
    g = frame.groupby(keys, sort=False)
    out = g.agg(repeats=("repeat", "size"), exact_difference=("exact_difference", "first"),
                mean_difference=("difference", "mean"), agree=("agrees", "sum"),
                wrong=("wrong", "sum"), naive_wrong=("naive_wrong", "sum")).reset_index()
    counts = (frame.groupby(keys + ["verdict"], sort=False).size().unstack(fill_value=0)
              .reindex(columns=list(VERDICTS), fill_value=0).reset_index())
    out = out.merge(counts, on=keys, how="left")
    out["wrong_rate"] = out.wrong / out.repeats
    out["naive_wrong_rate"] = out.naive_wrong / out.repeats
    return out
