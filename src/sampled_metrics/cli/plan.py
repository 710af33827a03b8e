"""``sampled-metrics plan``: the smallest number of sampled items m whose analytic bias meets
a target (see ``--help``; the method is :mod:`sampled_metrics.corrections.planning`)."""
from __future__ import annotations

from ..registry import CORRECTIONS, DEFAULT_METHODS, name_list
from .inputs import add_format_option, add_method_option, add_metric_option, add_n_option, \
    add_sampling_option, read_prior

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
    add_n_option(p)
    add_metric_option(p)
    p.add_argument("--target-bias", type=float, required=True,
                   help="largest acceptable bias, in metric units (e.g. 0.005)")
    add_method_option(p, CORRECTIONS, DEFAULT_METHODS["plan"])
    p.add_argument("--criterion", choices=("rms", "mean"), default="rms",
                   help="which bias (default rms)")
    p.add_argument("--prior-ranks", help="file of exact ranks 1..n (one per line) whose "
                   "empirical distribution is the prior p(r)")
    p.add_argument("--max-m", type=int, help="largest m considered (default n - 1)")
    add_sampling_option(p)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args):
    """The table of ``plan``: one row per metric and correction; m_needed is empty where
    even m = max_m misses the target (a note says so)."""
    import pandas as pd

    from ..checks import check_distinct
    from ..corrections.planning import required_sample_size
    from ..corrections.vectors import correction_label
    from ..logs import progress
    from ..metrics import parse_metrics
    from ..sampling import check_nm

    args.sampling = args.sampling or "binomial"
    check_nm(args.n, 1, args.sampling)
    if args.max_m is not None and args.max_m < 1:
        raise ValueError(f"--max-m must be >= 1, got {args.max_m}")
    prior = read_prior(args.prior_ranks, args.n) if args.prior_ranks else None
    rows = []
    methods = name_list(args.method, "method")
    check_distinct("correction", [correction_label(x) for x in methods], methods)
    pairs = [(metric, correction)
             for metric in parse_metrics(name_list(args.metric, "metric"), distinct=True)
             for correction in methods]
    with progress("sampled-metrics plan", total=len(pairs)) as bar:
        for metric, correction in pairs:
            what = f"{metric.name} {correction}"

            def report(m: int, bias: float) -> None:
                bar.advance(0, f"{what}: bias {bias:.3g} at m={m}")
            plan = required_sample_size(metric, args.n, args.target_bias, correction,
                                        args.sampling, prior, args.criterion, args.max_m,
                                        callback=report)
            rows.append((plan.metric, plan.correction, plan.m, plan.bias, plan.max_m,
                         plan.bias_at_max_m))
            bar.advance()
    table = pd.DataFrame(rows, columns=["metric", "correction", "m_needed", "bias_at_m", "max_m",
                                        "bias_at_max_m"]).astype({"m_needed": "Int64"})
    missed = table[table.m_needed.isna()]
    if len(missed):
        table.attrs["notes"] = [f"{row.metric} {row.correction}: no m up to {row.max_m} "
                                f"reaches a bias of {args.target_bias:g} (its bias there: "
                                f"{row.bias_at_max_m:.3g})" for row in missed.itertuples()]
    return table
