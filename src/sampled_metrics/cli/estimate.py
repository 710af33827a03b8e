"""``sampled-metrics estimate``: metrics from the distribution of true ranks estimated from
sampled ranks (Jin et al.; see ``--help``)."""
from __future__ import annotations

from ..registry import DEFAULT_METHODS, ESTIMATORS, name_list
from .inputs import add_bootstrap_options, add_evaluator_option, add_format_option, \
    add_method_option, add_metric_option, add_processes_option, add_sample_options, \
    apply_evaluator, check_bootstrap, \
    check_processes, check_rank_text, file_name, read_rank_files, read_sampled_ranks, \
    resolve_inputs

__all__ = ["add_parser", "run"]

#: bootstrap draws: each refits every estimator, so fewer than a mean's
BOOTSTRAP = 100

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
    e.add_argument("--ranks", required=True, type=file_name,
                   help="file: one integer rank per line, a CSV "
                   "with a header (then give --column), or a workflow rank file "
                   "results/<dataset>/ranks/<recommender>.npz")
    add_metric_option(e)
    add_method_option(e, ESTIMATORS, DEFAULT_METHODS["estimate"])
    e.add_argument("--eta", type=float, help="MES entropy weight (eq. 26; default 0.001)")
    e.add_argument("--weight", choices=("ndcg", "ap", "none"),
                   help="WMLE weight w(r~) = M(r~/c) (after eq. 23; default ndcg)")
    e.add_argument("--c", type=float, help="WMLE weight constant C (default 10)")
    add_sample_options(e)
    add_evaluator_option(e)
    add_bootstrap_options(e, BOOTSTRAP, what=", each refitting the estimators")
    add_processes_option(e, "the bootstrap")
    add_format_option(e)
    e.set_defaults(func=run)


def run(args):
    """The table of ``estimate``: one row per metric and estimator
    (:func:`sampled_metrics.estimators.table.estimate`)."""
    from ..estimators.table import check_estimate_size, estimate
    from ..multipositive.longformat import long_format

    check_rank_text(args.ranks)
    if args.column is None and long_format(args.ranks) is not None:
        raise ValueError(f"{args.ranks}: a long-format CSV (several positives per user); "
                         f"estimate reads one sampled rank per user: correct and compare "
                         f"read this format")
    apply_evaluator(args, long=False)
    files = read_rank_files([args.ranks])
    design = resolve_inputs(args, files)
    n, m = design.n, design.m
    check_bootstrap(args)
    processes = check_processes(args.processes)
    estimators = name_list(args.method, "method")
    for option, owner in (("eta", "mes"), ("weight", "wmle"), ("c", "wmle")):
        if getattr(args, option) is not None and owner not in estimators:
            raise ValueError(f"--{option} only applies to the estimator {owner!r}, but "
                             f"--method is {args.method!r}")
    options = {"mes": {"eta": args.eta}, "wmle": {"weight": args.weight, "C": args.c}}
    options = {name: {k: v for k, v in opts.items() if v is not None}
               for name, opts in options.items() if name in estimators}
    check_estimate_size(n, m, args.bootstrap, "--bootstrap")   # before the ranks are read
    ranks = read_sampled_ranks(args.ranks, m, args.column, args.repeat,
                               files.get(args.ranks))
    return estimate(ranks, design, None, name_list(args.metric, "metric"), estimators,
                    bootstrap=args.bootstrap, level=args.level,
                    seed=args.seed, processes=processes, options=options)
