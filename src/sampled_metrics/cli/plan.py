"""``sampled-metrics plan``: the smallest number of sampled items m whose analytic bias meets
a target (see ``--help``; the method is :mod:`sampled_metrics.corrections.planning`)."""
from __future__ import annotations

import pandas as pd

from ..corrections.planning import required_sample_size
from ..logs import progress
from ..metrics import METRIC_NAMES, parse_metrics
from ..sampling import SAMPLING_LAWS, check_nm
from .inputs import read_prior, split_names

__all__ = ["add_parser", "run"]

DESCRIPTION = (
    "Smallest number of sampled items m for which the analytic bias of the "
    "sampled metric (uncorrected, or corrected as in KDD'20 Sec. 5) is at most "
    "--target-bias. rms bias = sqrt(sum_r p(r) (E[M^(r~)|r] - M(r))^2), the "
    "criterion of eq. 21; mean bias = |sum_r p(r) (E[M^(r~)|r] - M(r))|, the "
    "bias of the reported average. p(r) is uniform unless --prior-ranks gives "
    "exact ranks of a comparable full evaluation.")


def add_parser(sub) -> None:
    """Add the ``plan`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("plan", help="how many sampled items m an evaluation needs",
                       description=DESCRIPTION)
    p.add_argument("--n", type=int, required=True, help="number of items")
    p.add_argument("--metric", default="recall@10", help="comma-separated metrics: "
                   f"{METRIC_NAMES}; default %(default)s")
    p.add_argument("--target-bias", type=float, required=True,
                   help="largest acceptable bias, in metric units (e.g. 0.005)")
    p.add_argument("--correction", default="sampled,bv_0.1",
                   help="comma-separated: sampled (uncorrected), rank_estimate, cls, "
                        "bv_<gamma>; default %(default)s")
    p.add_argument("--criterion", choices=("rms", "mean"), default="rms",
                   help="which bias (default rms)")
    p.add_argument("--prior-ranks", help="file of exact ranks 1..n (one per line) whose "
                   "empirical distribution is the prior p(r)")
    p.add_argument("--max-m", type=int, help="largest m considered (default n - 1)")
    p.add_argument("--sampling", choices=SAMPLING_LAWS, default="binomial")
    p.add_argument("--format", choices=("table", "csv"), default="table")
    p.set_defaults(func=run)


def run(args) -> pd.DataFrame:
    """The table of ``plan``: one row per metric and correction."""
    check_nm(args.n, 1, args.sampling)
    prior = read_prior(args.prior_ranks, args.n) if args.prior_ranks else None
    rows = []
    pairs = [(metric, correction)
             for metric in parse_metrics(split_names(args.metric, "metric"))
             for correction in split_names(args.correction, "correction")]
    with progress("sampled-metrics plan", total=len(pairs)) as bar:
        for metric, correction in pairs:
            what = f"{metric.name} {correction}"

            def report(m: int, bias: float) -> None:
                bar.advance(0, f"{what}: bias {bias:.3g} at m={m}")
            plan = required_sample_size(metric, args.n, args.target_bias, correction,
                                        args.sampling, prior, args.criterion, args.max_m,
                                        callback=report)
            rows.append((plan.metric, plan.correction, "> max_m" if plan.m is None else plan.m,
                         plan.bias, plan.max_m, plan.bias_at_max_m))
            bar.advance()
    return pd.DataFrame(rows, columns=["metric", "correction", "m_needed", "bias_at_m", "max_m",
                                       "bias_at_max_m"])
