"""``sampled-metrics bound``: what published sampled values say about the full-ranking
metric (see ``--help``; the method is :mod:`sampled_metrics.bounds`)."""
from __future__ import annotations

from ..registry import name_list, resolve_name
from .inputs import add_evaluator_option, add_format_option, add_level_option, \
    add_m_option, add_metric_option, add_n_option, add_sampling_option, resolve_cli_evaluator

__all__ = ["add_parser", "run"]

DESCRIPTION = (
    "Interval of full-ranking values of each --metric consistent with published sampled "
    "values (--observed): low/high = min/max over rank distributions P(r), r = 1..n, of "
    "sum_r P(r) T(r) subject to |sum_r P(r) E[M_j(r~)|r] - S_j| <= tol_j for every observed "
    "M_j = S_j (KDD'20 eq. 16), two exact linear programmes (HiGHS). tol_j is half a unit of "
    "the last digit printed (0.730 -> 0.0005; 73.0 percent is 0.730), or --tolerance; --users U "
    "adds the allowance for the sampled mean's own noise over U users. --shape "
    "non-increasing assumes P(1) >= P(2) >= ... >= P(n). Observed values no P can give are "
    "named.")

#: the assumptions on P(r) by name (:data:`sampled_metrics.bounds.SHAPES`, and none)
SHAPE_NAMES = {"none": None, "non-increasing": "non-increasing"}


def add_parser(sub) -> None:
    """Add the ``bound`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("bound", help="full-ranking metric implied by published sampled values",
                       description=DESCRIPTION)
    add_n_option(p)
    add_m_option(p, "the --evaluator's own number; required without --evaluator")
    p.add_argument("--observed", required=True, help="published sampled values, "
                   "comma-separated metric=value, e.g. hr@10=0.730,ndcg@10=0.447 (fractions, "
                   "or percentages ending in %%)")
    add_metric_option(p, "full-ranking metrics to bound")
    p.add_argument("--shape", default="none,non-increasing",
                   help="comma-separated assumptions on P(r): none, non-increasing; default "
                        "%(default)s")
    add_sampling_option(p, "the --evaluator's law, else binomial")
    add_evaluator_option(p, "the evaluator that produced the published values: its own law "
                            "of the reported rank (self-draws, duplicates, ties) and its m; "
                            "--n then counts its pool with the positive")
    p.add_argument("--tolerance", type=float, help="half-width of every observed value "
                   "(default: half a unit of its last printed digit)")
    p.add_argument("--users", type=int, help="number of users averaged: allow for the "
                   "sampled means' own noise")
    add_level_option(p, "--users, to the noise allowance")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args):
    """The table of ``bound``: one row per metric and shape."""
    import pandas as pd

    from ..bounds import design_bounds, parse_observed
    from ..checks import check_distinct, check_level
    from ..metrics import parse_metric
    try:
        parse_observed(args.observed)
    except ValueError as err:
        raise ValueError(f"--observed {err}") from None
    targets = []
    for name in name_list(args.metric, "--metric"):
        try:
            targets.append(parse_metric(name))
        except ValueError as err:
            raise ValueError(f"--metric {name!r}: {err}") from None
    check_distinct("metric", [x.name for x in targets])
    given = name_list(args.shape, "--shape")
    names = []
    for name in given:
        try:
            names.append(resolve_name("shape", name, SHAPE_NAMES))
        except ValueError as err:
            raise ValueError(f"--shape {name!r}: {err}") from None
    check_distinct("shape", names, given)
    shapes = [SHAPE_NAMES[x] for x in names]
    check_level("--level", args.level)
    if args.tolerance is not None and not 0 <= args.tolerance < float("inf"):
        raise ValueError(f"--tolerance must be finite and >= 0, got {args.tolerance}")
    if args.users is not None and args.users < 1:
        raise ValueError(f"--users must be >= 1, got {args.users}")
    design = resolve_cli_evaluator(args.evaluator, args.sampling, m=args.m, long=None,
                                   n=args.n)
    if design.m is None:
        raise ValueError("--m is required unless --evaluator gives it")
    rows = []
    for shape in shapes:
        for name, low, high in design_bounds(design, args.observed, targets, args.tolerance,
                                             shape, args.users, args.level):
            rows.append((name, shape or "none", low, high))
    return pd.DataFrame(rows, columns=["metric", "shape", "low", "high"])
