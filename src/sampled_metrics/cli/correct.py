"""``sampled-metrics correct``: the sampled metric and its corrections (KDD'20 Sec. 5) from
sampled ranks, or from a long-format CSV of several positives per user (see ``--help``)."""
from __future__ import annotations

from ..registry import CORRECT_METHODS, DEFAULT_METHODS, name_list
from .inputs import add_bootstrap_options, add_evaluator_option, add_format_option, \
    add_method_option, add_metric_option, add_sample_options, add_shape_option, \
    add_thin_to_option, \
    apply_evaluator, check_bootstrap, \
    check_rank_text, file_name, read_rank_files, read_sampled_ranks, CLI_NAMES, \
    resolve_inputs

__all__ = ["add_parser", "run", "DEFAULT"]

#: the methods printed unless --method says otherwise
DEFAULT = DEFAULT_METHODS["correct"]

DESCRIPTION = (
    "Read sampled ranks r~ (the rank of each held-out item among itself and m "
    "sampled items, 1..m+1) and print, per metric, the recommended answer first: the "
    "full-ranking metric with an interval that covers it (profile likelihood over the "
    "non-increasing rank distributions; covers = 'full metric'), then the uncorrected "
    "metric and its corrections (KDD'20 Sec. 5): rank_estimate (eq. 20), minimal_bias "
    "(eq. 21-23), cls (eq. 21 with monotone M^), bv_<gamma> (eq. 24-25; bv_1 = "
    "posterior mean, eq. 26), each the mean over the ranks with its standard error and a "
    "percentile bootstrap interval over users (seeded) that covers the users' noise, not "
    "the correction's bias (covers = \"users' noise\"). "
    "Several positives per user: give --ranks a long-format CSV with columns "
    "user,position,n_nonrelevant,n_negatives (one row per positive) or "
    "user,position,n_nonrelevant,above,prob (one row per drawn negative, "
    "popularity sampling: corrections sampled, weighted_rank_estimate); "
    "see docs/formats.md.")


def add_parser(sub) -> None:
    """Add the ``correct`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("correct", help="corrected metrics from sampled ranks",
                       description=DESCRIPTION)
    p.add_argument("--ranks", required=True, type=file_name,
                   help="file: one integer rank per line, a CSV "
                   "with a header (then give --column), a workflow rank file "
                   "results/<dataset>/ranks/<recommender>.npz, or a long-format CSV")
    add_metric_option(p)
    add_method_option(p, CORRECT_METHODS, DEFAULT)
    p.add_argument("--gamma", type=float, help="gamma in [0, 1] for the method 'bv' (eq. 24)")
    add_sample_options(p)
    add_evaluator_option(p)
    add_bootstrap_options(p)
    add_thin_to_option(p)
    add_shape_option(p)
    add_format_option(p)
    p.set_defaults(func=run, columns=["metric", "correction", "value", "std_error", "ci_low",
                                      "ci_high", "covers", "users"])


def run(args):
    """The table of ``correct``: per metric, the recommended row, then one per correction."""
    from ..evaluators.catalogue import evaluator_notes
    from ..multipositive.longformat import long_format

    kind = long_format(args.ranks) if args.column is None else None
    design = apply_evaluator(args, kind is not None)
    if kind:
        table, evaluator = _correct_long(args, kind)
    else:
        table, evaluator = _correct_ranks(args), None if design is None else design.evaluator
    if evaluator is not None:
        table.attrs["notes"] = table.attrs.get("notes", []) + evaluator_notes(evaluator)
    return table


def _correct_ranks(args):
    """``correct`` on sampled ranks, one per user."""
    from ..intervals.table import correct

    if args.thin_to is not None:
        raise ValueError("--thin-to only applies to a long-format CSV of positives")
    check_rank_text(args.ranks)
    files = read_rank_files([args.ranks])
    design = resolve_inputs(args, files)
    check_bootstrap(args)
    ranks = read_sampled_ranks(args.ranks, design.m, args.column, args.repeat,
                               files.get(args.ranks))
    corrections = name_list(args.method, "method")
    _check_gamma(args, corrections)
    _check_shape(args, corrections)
    return correct(ranks, design, None, name_list(args.metric, "metric"), corrections,
                   bootstrap=args.bootstrap, level=args.level, seed=args.seed,
                   gamma=args.gamma, shape=args.shape)


def _correct_long(args, kind: str):
    """``correct`` on a long-format CSV of several positives per user, in the format
    ``kind`` that ``multipositive.longformat.long_format`` found (positions or draws), and
    the entry of the evaluator it names or ``--evaluator`` names (None: neither)."""
    from ..corrections.vectors import correction_label
    from ..intervals.atoms import check_shape
    from ..intervals.table import correct_positions, is_recommended
    from ..multipositive.longformat import read_long, resolve_long_evaluator, \
        summarise_long

    for option in ("n", "m", "repeat"):
        if getattr(args, option) is not None:
            raise ValueError(f"--{option} does not apply to a long-format CSV ({args.ranks} "
                             f"gives n_nonrelevant and n_negatives per row)")
    if args.thin_to is not None and args.thin_to < 1:
        raise ValueError(f"--thin-to must be >= 1, got {args.thin_to}")
    check_bootstrap(args)
    corrections = name_list(args.method, "method")
    _check_gamma(args, corrections)
    corrections = [correction_label(x, args.gamma) if x.lower() == "bv" else x
                   for x in corrections]
    metrics = name_list(args.metric, "metric")
    if kind == "draws":
        evaluator = _check_draw_options(args)
        if check_shape(args.shape) != "non-increasing":
            raise ValueError(f"--shape {args.shape} applies to the recommended answer, which "
                             f"popularity-sampled draws ({args.ranks}) do not allow")
        if args.method == ",".join(DEFAULT):
            corrections = ["sampled", "weighted_rank_estimate"]
        elif any(map(is_recommended, corrections)):
            raise ValueError(f"{args.ranks}: the recommended answer needs uniform negatives; "
                             "popularity-sampled draws allow the corrections sampled and "
                             "weighted_rank_estimate")
        return summarise_long("draws", args.ranks, metrics, corrections, "binomial",
                              args.bootstrap, args.level, args.seed, args.thin_to), evaluator
    _check_shape(args, corrections)
    long = read_long(args.ranks)
    design = resolve_long_evaluator(args.evaluator, long.evaluator, args.ranks,
                                    sampling=args.sampling, names=CLI_NAMES)
    # the evaluator, the file's column included, is resolved into the law passed on
    table = correct_positions(long._replace(evaluator=None), metrics, corrections,
                              sampling=design.sampling, bootstrap=args.bootstrap,
                              level=args.level, seed=args.seed, thin_to=args.thin_to,
                              shape=args.shape)
    return table, design.evaluator


def _check_shape(args, corrections) -> None:
    """--shape other than the default needs the recommended row: refused naming the option
    as written."""
    from ..intervals.atoms import check_shape
    from ..intervals.table import is_recommended

    if check_shape(args.shape) != "non-increasing" and not any(map(is_recommended,
                                                                    corrections)):
        raise ValueError(f"--shape {args.shape} applies to the recommended answer, which "
                         f"--method {args.method} does not include")


def _check_draw_options(args):
    """Popularity-sampled draws carry their law in each row's prob: --sampling does not
    apply, and --evaluator must name a popularity sampler (its entry, None without)."""
    from ..evaluators.catalogue import get_evaluator

    if args.sampling is not None:
        raise ValueError(f"--sampling does not apply to popularity-sampled draws ({args.ranks}:"
                         f" each row's prob gives the law)")
    if args.evaluator is None:
        return None
    e = get_evaluator(args.evaluator)
    if e.draws != "popularity":
        raise ValueError(f"--evaluator {args.evaluator} draws its negatives uniformly, but "
                         f"{args.ranks} holds popularity-sampled draws (above, prob)")
    return e


def _check_gamma(args, corrections) -> None:
    """--gamma is for the method 'bv' alone."""
    if args.gamma is not None and "bv" not in [x.lower() for x in corrections]:
        raise ValueError(f"--gamma {args.gamma:g} only applies to the method 'bv', but "
                         f"--method is {args.method!r}")
