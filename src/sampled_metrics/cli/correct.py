"""``sampled-metrics correct``: the sampled metric and its corrections (KDD'20 Sec. 5) from
sampled ranks, or from a long-format CSV of several positives per user (see ``--help``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..corrections.vectors import (apply_correction, correction_label, correction_vectors,
                                   parse_correction)
from ..metrics import METRIC_NAMES, parse_metrics
from ..multipositive.longformat import correct_long_csv, long_format
from ..paper import KDD_CORRECTIONS
from ..resampling import bootstrap_histograms, percentile_interval
from .inputs import add_input_options, check_bootstrap, read_sampled_ranks, resolve_inputs, \
    split_names

__all__ = ["add_parser", "run", "DEFAULT_CORRECTIONS"]

DEFAULT_CORRECTIONS = ",".join(KDD_CORRECTIONS)

DESCRIPTION = (
    "Read sampled ranks r~ (the rank of each held-out item among itself and m "
    "sampled items, 1..m+1) and print the uncorrected metric and its corrections "
    "(KDD'20 Sec. 5): rank_estimate (eq. 20), minimal_bias (eq. 21-23), cls "
    "(eq. 21 with monotone M^), bv_<gamma> (eq. 24-25; bv_1 = posterior mean, "
    "eq. 26). value = mean over the ranks, std_error = its standard error, "
    "ci_low/ci_high = percentile bootstrap interval over users (seeded). "
    "Several positives per user: give --ranks a long-format CSV with columns "
    "user,position,n_nonrelevant,n_negatives (one row per positive) or "
    "user,position,n_nonrelevant,above,prob (one row per drawn negative, "
    "popularity sampling: corrections sampled, weighted_rank_estimate); "
    "see docs/formats.md.")


def add_parser(sub) -> None:
    """Add the ``correct`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("correct", help="corrected metrics from sampled ranks",
                       description=DESCRIPTION)
    p.add_argument("--metric", default="recall@10,ndcg@10,ap,auc",
                   help=f"comma-separated metrics: {METRIC_NAMES}; default %(default)s")
    p.add_argument("--correction", default=DEFAULT_CORRECTIONS,
                   help="comma-separated corrections: sampled (none), rank_estimate, "
                        "minimal_bias, cls, bv_<gamma> or bv with --gamma; default %(default)s")
    p.add_argument("--gamma", type=float, help="gamma in [0, 1] for the correction 'bv' (eq. 24)")
    add_input_options(p, bootstrap=1000)
    p.add_argument("--max-m", type=int, help="long-format CSV: users with more than this "
                   "many negatives get CLS/BV of a thinned list of this size (default 100)")
    p.add_argument("--format", choices=("table", "csv"), default="table",
                   help="output format (default: aligned table)")
    p.set_defaults(func=run)


def run(args) -> pd.DataFrame:
    """The table of ``correct``: one row per metric and correction."""
    if args.column is None and long_format(args.ranks):
        return _correct_long(args)
    if args.max_m is not None:
        raise ValueError("--max-m only applies to a long-format CSV of positives")
    n, m, sampling = resolve_inputs(args)
    check_bootstrap(args)
    ranks = read_sampled_ranks(args.ranks, m, args.column, args.repeat)
    metrics = parse_metrics(split_names(args.metric, "metric"))
    corrections = split_names(args.correction, "correction")
    for correction in corrections:
        parse_correction(correction, args.gamma if correction.lower() == "bv" else None)
    if args.gamma is not None and "bv" not in [x.lower() for x in corrections]:
        raise ValueError(f"--gamma {args.gamma:g} only applies to the correction 'bv', but "
                         f"--correction is {args.correction!r}")
    specs = [(x, args.gamma) if x.lower() == "bv" else x for x in corrections]
    vectors = correction_vectors(metrics, n, m, specs, sampling)
    boot = bootstrap_histograms(ranks, m, args.bootstrap, args.seed)
    rows = []
    for metric in metrics:
        for (metric_name, label), vec in vectors.items():
            if metric_name == metric.name:
                vals = apply_correction(vec, ranks)
                se = vals.std(ddof=1) / np.sqrt(vals.size) if vals.size > 1 else float("nan")
                rows.append((metric_name, label, vals.mean(), se,
                             *percentile_interval(boot @ vec, args.level)))
    return pd.DataFrame(rows, columns=["metric", "correction", "value", "std_error", "ci_low",
                                       "ci_high"])


def _correct_long(args) -> pd.DataFrame:
    """``correct`` on a long-format CSV of several positives per user (multipositive.longformat)."""
    for option in ("n", "m", "repeat"):
        if getattr(args, option) is not None:
            raise ValueError(f"--{option} does not apply to a long-format CSV ({args.ranks} "
                             f"gives n_nonrelevant and n_negatives per row)")
    check_bootstrap(args)
    corrections = split_names(args.correction, "correction")
    if long_format(args.ranks) == "draws" and args.correction == DEFAULT_CORRECTIONS:
        corrections = ["sampled", "weighted_rank_estimate"]
    if args.gamma is not None and "bv" not in [x.lower() for x in corrections]:
        raise ValueError(f"--gamma {args.gamma:g} only applies to the correction 'bv', but "
                         f"--correction is {args.correction!r}")
    corrections = [correction_label(x, args.gamma) if x.lower() == "bv" else x
                   for x in corrections]
    return correct_long_csv(args.ranks, split_names(args.metric, "metric"), corrections,
                            args.sampling or "binomial", args.bootstrap, args.level, args.seed,
                            args.max_m)
