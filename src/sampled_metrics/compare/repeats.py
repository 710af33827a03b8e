"""The comparison on every repeat of workflow rank files, with the exact answer beside it,
and its summary over repeats (how often the sign agrees, how often a confident verdict is
wrong): the validation of :func:`~sampled_metrics.compare.paired.compare_ranks`; and the
same for the results table of k models, where the claim is family-wise (how often any
verdict of a repeat is confidently wrong, and how many true orders are found).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..intervals.recommended import RECOMMENDED
from ..logs import progress
from ..metrics import parse_metric
from ..seeds import generator
from .matching import check_rank_files
from .paired import ESTIMATOR_METHODS, PRIOR_METHODS, compare_ranks
from .table import results_table
from .verdicts import VERDICTS, orders_like_exact

__all__ = ["compare_repeats", "agreement_summary", "table_repeats", "familywise_summary"]


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
    files, first, n, repeats, metric_list, exact = _study(rank_files, m, metrics, repeats, n)
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


def _study(rank_files: dict, m: int, metrics, repeats, n):
    """The checked files, the first, n (default its n_items), the repeats (default all the
    files have at m), the metrics and every (file, metric)'s exact value."""
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
    return files, first, n, repeats, metric_list, exact


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


def table_repeats(rank_files: dict, m: int, metrics, variants, *, repeats=None,
                  n: int | None = None, seed: int = 0, **options) -> tuple[pd.DataFrame,
                                                                            pd.DataFrame]:
    """:func:`~sampled_metrics.compare.table.results_table` on every repeat of workflow
    rank files, for several verdict variants, with the exact answer beside: the validation
    of the table's family-wise claim.

    Parameters
    ----------
    rank_files : dict name -> :class:`sampled_metrics.evaluation.rankfile.RankFile`
        k >= 2 recommenders on the same users, negatives shared within a repeat
        (:func:`~sampled_metrics.compare.matching.check_rank_files`).
    m : int
    metrics : str or sequence of str
    variants : sequence of (method, familywise)
        The verdicts' method (``results_table``'s ``method``) and family-wise procedure
        of each variant. A variant whose method is a correction makes the models' rows of
        that correction (cheap); the others make the ``recommended`` rows.
    repeats : sequence of int, optional
        Which repeats (default all of the first file's).
    n : int, optional
        Items of the corrections (default the files' n_items).
    seed : int
        Repeat t uses seed ``seed + t`` for both bootstraps.
    **options
        Passed to ``results_table`` (``level``, ``bootstrap``, ``processes``).

    Returns
    -------
    (pairs, models)
        ``pairs``: per repeat, variant, pair and metric the table's row with
        ``exact_difference`` (exact a - b) and ``wrong`` (confident against the exact
        order) and ``found`` (confident with it). ``models``: per repeat, variant, model
        and metric the headline row with ``exact`` and ``covers_exact`` (the interval holds
        the exact value).
    """
    files, first, n, repeats, metric_list, exact = _study(rank_files, m, metrics, repeats, n)
    pair_parts, model_parts = [], []
    with progress("results table over repeats", total=len(repeats)) as bar:
        for t in repeats:
            _table_repeat(files, first, n, m, t, metric_list, variants, seed, options,
                          pair_parts, model_parts)
            bar.advance()
    pairs = pd.concat(pair_parts, ignore_index=True)
    pairs["exact_difference"] = [exact[(a, x)] - exact[(b, x)]
                                 for a, b, x in zip(pairs.a, pairs.b, pairs.metric)]
    truth = np.sign(pairs.exact_difference)
    pairs["wrong"] = _wrong(pairs.verdict, truth)
    pairs["found"] = (pairs.verdict != VERDICTS[2]) & ~pairs.wrong
    models = pd.concat(model_parts, ignore_index=True)
    models["exact"] = [exact[(a, x)] for a, x in zip(models.model, models.metric)]
    models["covers_exact"] = (models.ci_low <= models.exact) & (models.exact <= models.ci_high)
    return pairs, models


def _table_repeat(files, first, n, m, t, metric_list, variants, seed, options, pair_parts,
                  model_parts) -> None:
    """Repeat t's tables, one per variant, appended to the parts."""
    ranks = {k: f.sampled_ranks(m, t) for k, f in files.items()}
    for method, familywise in variants:
        headline = RECOMMENDED if method in ESTIMATOR_METHODS + PRIOR_METHODS else method
        table = results_table(ranks, metric_list, [headline], n=n, m=m,
                              sampling=first.sampling, verdict_method=method,
                              familywise=familywise,
                              seed=seed + int(t), **options)
        keys = dict(repeat=int(t), method=method, familywise=familywise)
        pair_parts.append(table.pairs.assign(**keys))
        model_parts.append(table.models.assign(**keys))


def familywise_summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per (method, familywise) of :func:`table_repeats`' pairs over repeats: ``repeats``,
    ``comparisons`` (pairs x metrics per repeat), ``familywise_wrong`` (repeats with any
    confidently wrong verdict) and its rate, ``wrong`` (confidently wrong verdicts in all),
    ``ordered`` (comparisons whose exact difference is not 0, per repeat) and ``power``
    (the share of those found: a confident verdict with the exact sign, over repeats)."""
    keys = ["method", "familywise"]
    per = pairs.groupby(keys + ["repeat"], sort=False).agg(
        comparisons=("wrong", "size"), any_wrong=("wrong", "any"), wrong=("wrong", "sum"),
        found=("found", "sum"))
    ordered = pairs.assign(ordered=pairs.exact_difference != 0).groupby(
        keys + ["repeat"], sort=False).ordered.sum()
    per = per.join(ordered).reset_index()
    out = per.groupby(keys, sort=False).agg(
        repeats=("repeat", "size"), comparisons=("comparisons", "first"),
        familywise_wrong=("any_wrong", "sum"), wrong=("wrong", "sum"),
        ordered=("ordered", "first"), found=("found", "sum")).reset_index()
    out["familywise_wrong_rate"] = out.familywise_wrong / out.repeats
    out["power"] = out.found / (out.ordered * out.repeats)
    return out
