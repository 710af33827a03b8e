"""``sampled-metrics plan``: the smallest number of sampled items m whose analytic bias meets
a target (see ``--help``; the method is :mod:`sampled_metrics.corrections.planning`)."""
from __future__ import annotations

from ..registry import CORRECTIONS, DEFAULT_METHODS, name_list
from .inputs import add_format_option, add_level_option, add_method_option, \
    add_metric_option, add_n_option, add_sampling_option, add_shape_option, read_prior

__all__ = ["add_parser", "run"]

DESCRIPTION = (
    "Smallest number of sampled items m for which the analytic bias of the "
    "sampled metric (uncorrected, or corrected as in KDD'20 Sec. 5) is at most "
    "--target-bias. rms bias = sqrt(sum_r p(r) (E[M^(r~)|r] - M(r))^2), the "
    "criterion of eq. 21; mean bias = |sum_r p(r) (E[M^(r~)|r] - M(r))|, the "
    "bias of the reported average. p(r) is uniform unless --prior-ranks gives "
    "exact ranks of a comparable full evaluation. With --width instead: the smallest m "
    "(to 1 %) for which the recommended interval of --users users is at most that wide, on the "
    "expected sampled ranks under p(r) from --prior-ranks or fitted to a pilot's sampled "
    "ranks (--pilot-ranks, --pilot-m).")


def add_parser(sub) -> None:
    """Add the ``plan`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("plan", help="how many sampled items m an evaluation needs",
                       description=DESCRIPTION)
    add_n_option(p)
    add_metric_option(p)
    goal = p.add_mutually_exclusive_group(required=True)
    goal.add_argument("--target-bias", type=float,
                      help="largest acceptable bias, in metric units (e.g. 0.005)")
    goal.add_argument("--width", type=float,
                      help="largest acceptable width of the recommended interval, in metric "
                      "units (e.g. 0.05)")
    add_method_option(p, CORRECTIONS, DEFAULT_METHODS["plan"])
    p.add_argument("--criterion", choices=("rms", "mean"), default="rms",
                   help="which bias (default rms)")
    p.add_argument("--prior-ranks", help="file of exact ranks 1..n (one per line) whose "
                   "empirical distribution is the prior p(r)")
    p.add_argument("--pilot-ranks", help="--width: file of a pilot evaluation's sampled "
                   "ranks 1..m+1 (one per line), whose fitted rank distribution is p(r)")
    p.add_argument("--pilot-m", type=int, help="--width: the pilot's number of negatives")
    p.add_argument("--users", type=int, help="--width: users of the planned evaluation "
                   "(default: as many as the prior's or the pilot's ranks)")
    add_level_option(p, "--width")
    add_shape_option(p)
    p.add_argument("--max-m", type=int, help="largest m considered (default n - 1)")
    add_sampling_option(p)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args):
    """The table of ``plan``: one row per metric and correction; m_needed is empty where
    even m = max_m misses the target (a note says so)."""
    import pandas as pd

    from ..checks import check_distinct
    from ..intervals.atoms import check_shape
    from ..corrections.planning import required_sample_size
    from ..corrections.vectors import correction_label
    from ..logs import progress
    from ..metrics import parse_metrics
    from ..design import check_nm

    args.sampling = args.sampling or "binomial"
    check_nm(args.n, 1, args.sampling)
    if args.max_m is not None and args.max_m < 1:
        raise ValueError(f"--max-m must be >= 1, got {args.max_m}")
    if args.width is not None:
        return _plan_width(args)
    for option, given in (("pilot-ranks", args.pilot_ranks), ("pilot-m", args.pilot_m),
                          ("users", args.users), ("level", args.level != 0.95),
                          ("shape", check_shape(args.shape) != "non-increasing")):
        if given:
            raise ValueError(f"--{option} applies to --width, not to --target-bias")
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


def _plan_width(args):
    """The table of ``plan --width``: one row per metric."""
    import pandas as pd

    from ..checks import check_level
    from ..intervals.atoms import check_shape
    from ..intervals.width import pilot_prior, width_sample_size
    from ..logs import progress
    from ..metrics import parse_metrics
    from ..design import check_nm
    from ..textfile import read_integers

    if args.method != ",".join(DEFAULT_METHODS["plan"]) or args.criterion != "rms":
        raise ValueError("--method and --criterion apply to --target-bias, not to --width")
    if not args.width > 0:
        raise ValueError(f"--width must be positive, got {args.width}")
    check_level("--level", args.level)
    shape = check_shape(args.shape)
    if (args.prior_ranks is None) == (args.pilot_ranks is None):
        raise ValueError("--width needs the rank distribution from one of --prior-ranks "
                         "(exact ranks) and --pilot-ranks (a pilot's sampled ranks)")
    if args.prior_ranks is not None:
        if args.pilot_m is not None:
            raise ValueError("--pilot-m applies to --pilot-ranks")
        prior = read_prior(args.prior_ranks, args.n)
        count = None
    else:
        if args.pilot_m is None:
            raise ValueError("--pilot-ranks needs --pilot-m, the pilot's number of negatives")
        try:
            check_nm(args.n, args.pilot_m, args.sampling)
        except ValueError as err:
            raise ValueError(f"--pilot-m {args.pilot_m}: {err}") from None
        pilot = read_integers(args.pilot_ranks, 1, args.pilot_m + 1, "sampled rank",
                              hi_name="m+1")
        prior, count = pilot_prior(pilot, args.n, args.pilot_m, args.sampling, shape), pilot.size
    users = args.users if args.users is not None else (
        count if count is not None else _prior_count(args.prior_ranks, args.n))
    if users < 2:
        raise ValueError(f"--users must be >= 2, got {users}" if args.users is not None else
                         f"{args.pilot_ranks or args.prior_ranks} holds {users} rank: give "
                         f"--users, the planned evaluation's users (at least 2)")
    metrics = parse_metrics(name_list(args.metric, "metric"), distinct=True)
    rows = []
    with progress("sampled-metrics plan", total=len(metrics)) as bar:
        for metric in metrics:
            def report(m: int, width: float) -> None:
                bar.advance(0, f"{metric.name}: width {width:.3g} at m={m}")
            plan = width_sample_size(prior, args.n, users, args.width, metric, args.sampling,
                                     args.level, shape=shape, max_m=args.max_m,
                                     callback=report)
            rows.append((plan.metric, plan.m, plan.width, plan.max_m, plan.width_at_max_m))
            bar.advance()
    table = pd.DataFrame(rows, columns=["metric", "m_needed", "width_at_m", "max_m",
                                        "width_at_max_m"]).astype({"m_needed": "Int64"})
    notes = [f"expected widths of the recommended interval of {users} users (level "
             f"{args.level:g}, shape {shape}); a draw's width scatters around them"]
    notes += [f"{row.metric}: no m up to {row.max_m} gives a width of {args.width:g} (its "
              f"width there: {row.width_at_max_m:.3g})"
              for row in table[table.m_needed.isna()].itertuples()]
    table.attrs["notes"] = notes
    return table


def _prior_count(path, n: int) -> int:
    """The number of exact ranks behind --prior-ranks (the users of a comparable evaluation)."""
    from pathlib import Path

    from ..evaluation.rankfile import read_rank_file
    from ..textfile import read_integers

    if Path(path).suffix == ".npz":
        return int(read_rank_file(path).exact.size)
    return int(read_integers(path, 1, n, "exact rank", hi_name="n").size)
