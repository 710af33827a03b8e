"""``sampled-metrics estimate``: metrics from the distribution of true ranks estimated from
sampled ranks (Jin et al.; see ``--help``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..checks import check_allocation
from ..estimators.dispatch import estimate_batches, estimate_from_histogram, parse_estimator
from ..estimators.histogram import check_law_matrix_size, sampled_rank_histogram
from ..intervals.recommended import COVERS_NOISE
from ..logs import progress
from ..metrics import METRIC_NAMES, parse_metrics
from ..resampling import bootstrap_histograms, percentile_interval
from .inputs import add_evaluator_option, add_input_options, apply_evaluator, check_bootstrap, \
    check_processes, read_sampled_ranks, resolve_inputs, split_names

__all__ = ["add_parser", "run", "ESTIMATE_NOTE", "WMLE_NOTE"]

#: the lines below every ``estimate`` table (``DataFrame.attrs['notes']``)
ESTIMATE_NOTE = ("these intervals cover the users' noise around each estimate, not its bias; "
                 "for an interval that covers the full-ranking metric, see the 'recommended' "
                 "row of sampled-metrics correct")
WMLE_NOTE = ("wmle weighs the likelihood by the metric, which biases it: its value can lie "
             "far from the full-ranking metric")

DESCRIPTION = (
    "Estimate the distribution P(r) of true ranks r = 1..n from sampled ranks "
    "(Jin et al. AAAI'21) and print metric@K = sum_r P(r) M(r) (their eq. 14): "
    "mle (EM on the mixture of binomials, eq. 19-21), wmle (weighted, eq. 22-23), "
    "mes (maximal entropy with squared distance, eq. 24-27), bv_<gamma> (from "
    "KDD'20 BV corrections of Recall@r, eq. 15).")


def add_parser(sub) -> None:
    """Add the ``estimate`` sub-command to the ``sampled-metrics`` parser."""
    e = sub.add_parser("estimate",
                       help="metrics from an estimated rank distribution (Jin et al.)",
                       description=DESCRIPTION)
    e.add_argument("--metric", default="recall@10,ndcg@10,ap@10",
                   help=f"comma-separated metrics: {METRIC_NAMES}; default %(default)s")
    e.add_argument("--estimator", default="mle,mes,bv_0.1",
                   help="comma-separated estimators: mle, wmle, mes, bv_<gamma>; "
                        "default %(default)s (wmle, biased, only when named)")
    e.add_argument("--eta", type=float, help="MES entropy weight (eq. 26; default 0.001)")
    e.add_argument("--weight", choices=("ndcg", "ap", "none"),
                   help="WMLE weight w(r~) = M(r~/C) (after eq. 23; default ndcg)")
    e.add_argument("--C", type=float, help="WMLE weight constant C (default 10)")
    add_input_options(e, bootstrap=100)
    add_evaluator_option(e)
    e.add_argument("--processes", type=int, help="worker processes for the bootstrap "
                   "(default: the CPUs available; the result does not depend on it)")
    e.add_argument("--format", choices=("table", "csv"), default="table")
    e.set_defaults(func=run)


def run(args) -> pd.DataFrame:
    """The table of ``estimate``: one row per metric and estimator."""
    apply_evaluator(args, long=False)
    n, m, sampling = resolve_inputs(args)
    check_bootstrap(args)
    processes = check_processes(args.processes)
    check_law_matrix_size(n, m)          # the largest arrays, refused before any is made
    check_allocation(args.bootstrap * n, f"--bootstrap {args.bootstrap} estimated "
                     f"distributions over the n = {n} true ranks")
    ranks = read_sampled_ranks(args.ranks, m, args.column, args.repeat)
    metrics = parse_metrics(split_names(args.metric, "metric"))
    estimators = split_names(args.estimator, "estimator")
    for option, owner in (("eta", "mes"), ("weight", "wmle"), ("C", "wmle")):
        if getattr(args, option) is not None and owner not in estimators:
            raise ValueError(f"--{option} only applies to the estimator {owner!r}, but "
                             f"--estimator is {args.estimator!r}")
    options = {estimator: _estimator_options(estimator, args) for estimator in estimators}
    weights = np.stack([metric.weights(n) for metric in metrics])
    hist = sampled_rank_histogram(ranks, m)
    boot = bootstrap_histograms(ranks, m, args.bootstrap, args.seed)
    rows = []
    with progress("sampled-metrics estimate", total=len(estimators)) as bar:
        for estimator in estimators:
            bar.advance(0, f"{estimator}: estimate and {args.bootstrap} bootstrap draws")
            opts = options[estimator]
            value = weights @ _estimate(estimator, hist[None], n, m, sampling, opts)[0]
            draws = _estimate(estimator, boot, n, m, sampling, opts, processes) @ weights.T
            rows += [(metric.name, estimator, value[k],
                      *percentile_interval(draws[:, k], args.level))
                     for k, metric in enumerate(metrics)]
            bar.advance()
    table = pd.DataFrame(rows, columns=["metric", "estimator", "value", "ci_low", "ci_high"])
    table["covers"] = COVERS_NOISE
    table.attrs["notes"] = ([WMLE_NOTE] if "wmle" in estimators else []) + [ESTIMATE_NOTE]
    return table


def _estimator_options(estimator: str, args) -> dict:
    """The options of ``estimator`` given on the command line (validated)."""
    options = {}
    if estimator == "mes" and args.eta is not None:
        options = {"eta": args.eta}
    if estimator == "wmle":
        options = {k: v for k, v in (("weight", args.weight), ("C", args.C)) if v is not None}
    parse_estimator(estimator, **options)                        # fail early
    return options


def _estimate(estimator: str, hists: np.ndarray, n: int, m: int, sampling: str, options: dict,
              processes: int | None = None) -> np.ndarray:
    """P^ of each histogram (rows of ``hists``): (J, n). ``processes=None``: one histogram
    at a time in this process (the point estimate, as :func:`estimate_from_histogram`);
    else the bootstrap's many histograms batched (:func:`estimate_batches`: MLE and WMLE
    iterate a batch together, so a draw's estimate equals the one-at-a-time estimate up to
    the rounding of the shared matrix products, see :mod:`sampled_metrics.estimators.em`)."""
    if processes is None:
        return np.stack([estimate_from_histogram(h, n, m, estimator, sampling, **options)
                         for h in hists])
    return estimate_batches(hists, n, m, estimator, sampling, processes=processes, **options)
