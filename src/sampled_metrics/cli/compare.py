"""``sampled-metrics compare``: is recommender A better than B? (see ``--help``)."""
from __future__ import annotations

from pathlib import Path

from ..registry import COMPARE_METHODS, DEFAULT_METHODS, PAIRINGS, name_list
from .inputs import add_bootstrap_options, add_evaluator_option, add_format_option, \
    add_method_option, add_metric_option, add_sample_options, apply_evaluator, check_bootstrap, \
    check_rank_text, file_name, read_rank_files, read_sampled_ranks, CLI_NAMES, \
    resolve_inputs

__all__ = ["add_parser", "run"]

DESCRIPTION = (
    "Compare two recommenders evaluated on the same users from their sampled ranks r~ "
    "(1..m+1): for each metric and method, the difference A - B, its paired bootstrap "
    "interval over users (ci_low, ci_high), the method's own bias on the difference (from "
    "its analytic bias curve E[M^(r~)|r] - M(r) under each recommender's rank distribution "
    "estimated by Jin et al.'s MES, with its bootstrap standard error) and a verdict. "
    "VERDICT: 'A better' ('B better') only if the interval [low, high] for the exact "
    "difference lies above (below) zero, [low, high] being the hull of the bootstrap "
    "intervals of the difference and of the difference minus its estimated bias; otherwise "
    "the two are 'not distinguishable' at that --level (naive_verdict: what the bootstrap "
    "interval alone says, ignoring the bias). "
    "Shared negatives (the same m items for A and B, as in the workflow's rank files) and "
    "independent draws both give one independent pair of ranks per user, so both use the "
    "paired bootstrap (--pairing paired); --pairing unpaired is for different users. "
    "With two workflow rank files and --repeats, every repeat is compared against the exact "
    "ranks of the files and the counts over repeats are printed (agree = Table 4's count, "
    "wrong = confident and wrong verdicts).")

#: the methods that apply to one sampled rank per user but not to the long format
RANKS_ONLY = ("mn", "mle", "mes")


def add_parser(sub) -> None:
    """Add the ``compare`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("compare", help="is recommender A better than B? (paired, bias-aware)",
                       description=DESCRIPTION)
    p.add_argument("a", metavar="A", type=file_name,
                   help="sampled ranks of A: one integer per line, a "
                   "CSV with --column, a workflow rank file (.npz), or a long-format CSV "
                   "(user,position,n_nonrelevant,n_negatives: several positives per user)")
    p.add_argument("b", metavar="B", type=file_name,
                   help="sampled ranks of B, the same users in the "
                   "same order (same formats; long-format CSVs are matched by user id)")
    p.add_argument("--name-a", help="name of A in the output (default: the rank file's "
                   "recommender, else the file name)")
    p.add_argument("--name-b", help="name of B in the output (default as for --name-a)")
    add_metric_option(p)
    add_method_option(p, COMPARE_METHODS, DEFAULT_METHODS["compare"])
    add_sample_options(p, "A and B")
    add_evaluator_option(p)
    p.add_argument("--pairing", choices=PAIRINGS, default=PAIRINGS[0],
                   help="paired: the same users in the same order, negatives shared or "
                        "independent (default); unpaired: different users")
    p.add_argument("--repeats", help="with rank files: compare the first N repeats (or "
                   "'all') against the exact ranks and print counts over repeats")
    add_bootstrap_options(p, what=" of the difference", none=False)
    p.add_argument("--estimator-bootstrap", type=int, default=50,
                   help="refits of the mle estimator for its interval (default %(default)s)")
    add_format_option(p)
    p.set_defaults(func=run, columns=["metric", "method", "difference", "bias", "low", "high",
                                      "verdict"])


def run(args):
    """The table of ``compare``: one row per metric and method, or counts over repeats."""
    from ..compare.paired import compare_ranks
    from ..compare.repeats import agreement_summary, compare_repeats
    from ..compare.verdicts import check_interval_draws
    from ..multipositive.longformat import long_format

    paths = {"a": Path(args.a), "b": Path(args.b)}
    check_interval_draws("--bootstrap", args.bootstrap, args.level)
    check_bootstrap(args)
    if args.estimator_bootstrap < 0:
        raise ValueError(f"--estimator-bootstrap must be >= 0, got {args.estimator_bootstrap}")
    formats = {k: long_format(p) for k, p in paths.items()}
    apply_evaluator(args, any(formats.values()), args.a)
    if any(formats.values()):
        return _compare_long(args, paths, formats)
    check_rank_text(*paths.values())
    files = _read_rank_files(paths, args.n)
    if args.repeats is not None and not files:
        raise ValueError("--repeats needs workflow rank files (.npz) for A and B")
    design = resolve_inputs(args, {str(paths[k]): f for k, f in files.items()})
    n, m = design.n, design.m
    names = _display_names(files, paths, args)
    metrics, methods = name_list(args.metric, "metric"), name_list(args.method, "method")
    options = dict(level=args.level, bootstrap=args.bootstrap,
                   estimator_bootstrap=args.estimator_bootstrap,
                   pairing=args.pairing)
    if args.repeats is not None:
        if args.repeat is not None:
            raise ValueError("give --repeat (one repeat) or --repeats (several), not both")
        count = min(f.sampled_ranks(m).shape[0] for f in files.values())
        repeats = range(count) if args.repeats == "all" else range(_count(args.repeats, count))
        frame = compare_repeats({names[0]: files["a"], names[1]: files["b"]}, m, metrics,
                                methods, repeats=repeats, n=n, seed=args.seed, **options)
        out = agreement_summary(frame)
        args.columns = ["metric", "method", "exact_difference", "agree", "a_better",
                        "b_better", "not_distinguishable", "wrong"]
        return out[["a", "b", "metric", "method", "repeats", "exact_difference",
                    "mean_difference", "agree", "a_better", "b_better", "not_distinguishable",
                    "wrong", "naive_wrong"]]
    ranks = [read_sampled_ranks(paths[k], m, args.column, args.repeat, files.get(k))
             for k in ("a", "b")]
    frame = compare_ranks(dict(zip(names, ranks)), design, None, metrics, methods,
                          seed=args.seed, **options)
    return _worded(frame, names)


def _compare_long(args, paths: dict, formats: dict):
    """Both inputs in the long position format: corrections per user, paired by user id.
    The default methods that need one sampled rank per user are left out, with a note."""
    from ..compare.matching import check_positive_tables
    from ..compare.paired import compare_positives
    from ..multipositive.longformat import check_pools, read_long, resolve_long_evaluator

    for k, path in paths.items():
        if formats[k] is None:
            check_rank_text(path)                    # a missing or empty file is named
        if formats[k] != "positions":
            raise ValueError(f"{path}: compare takes the long position format (user,position,"
                             f"n_nonrelevant,n_negatives) for both A and B"
                             + ("; popularity-sampled draws are not supported"
                                if formats[k] == "draws" else ""))
    given = [f"--{k}" for k in ("n", "m", "column", "repeat", "repeats")
             if getattr(args, k) is not None]
    if given:
        raise ValueError(f"{', '.join(given)} do(es) not apply to long-format CSVs (every "
                         f"row carries its user's numbers)")
    long = {k: read_long(paths[k]) for k in ("a", "b")}
    (table_a, users_a), (table_b, users_b) = ((x.table, x.users) for x in long.values())
    recorded = {k: x.evaluator for k, x in long.items() if x.evaluator is not None}
    if len(set(recorded.values())) > 1:
        raise ValueError(f"{paths['a']} names evaluator {recorded['a']}, but {paths['b']} "
                         f"names {recorded['b']}: A and B must be one evaluation's")
    key = next(iter(recorded), "a")
    sampling = resolve_long_evaluator(args.evaluator, recorded.get(key), paths[key],
                                      sampling=args.sampling, names=CLI_NAMES).sampling
    for x in long.values():
        check_pools(x, sampling)
    shown = _shown(paths)
    check_positive_tables(dict(zip(shown, (table_a, table_b))),
                          dict(zip(shown, (users_a, users_b))))
    names = _display_names({}, paths, args)
    methods = name_list(args.method, "method")
    notes = []
    if args.method == ",".join(DEFAULT_METHODS["compare"]):
        left = [x for x in methods if x in RANKS_ONLY]
        methods = [x for x in methods if x not in RANKS_ONLY]
        notes = [f"{', '.join(left)} left out: they need one sampled rank per user, not "
                 f"the long format"]
    frame = compare_positives({names[0]: table_a, names[1]: table_b},
                              name_list(args.metric, "metric"), methods,
                              sampling=sampling, level=args.level,
                              bootstrap=args.bootstrap, seed=args.seed)
    frame = _worded(frame, names)
    frame.attrs["notes"] = notes + frame.attrs.get("notes", [])
    return frame


def _read_rank_files(paths: dict, n: int | None) -> dict:
    """The workflow rank files of A and B by key ('a', 'b'; {} when neither is one), checked
    to belong to one comparison (:func:`~sampled_metrics.compare.matching.check_rank_files`,
    each named by its path)."""
    from ..compare.matching import check_rank_files

    read = read_rank_files(list(paths.values()))
    if not read:
        return {}
    files = {key: read[str(p)] for key, p in paths.items()}
    check_rank_files(dict(zip(_shown(paths), files.values())), n)
    return files


def _shown(paths: dict) -> list[str]:
    """How messages name A and B: their paths (one file given twice is named twice)."""
    shown = [str(paths["a"]), str(paths["b"])]
    if shown[0] == shown[1]:
        shown[1] += " (again)"
    return shown


def _worded(frame, names: list):
    words = {"a_better": f"{names[0]} better", "b_better": f"{names[1]} better",
             "not_distinguishable": "not distinguishable"}
    frame["verdict"], frame["naive_verdict"] = frame.verdict.map(words), frame.naive_verdict.map(words)
    return frame.drop(columns=["a", "b", "debiased"])


def _display_names(files: dict, paths: dict, args) -> list[str]:
    names = [getattr(args, f"name_{k}") or (files[k].recommender if files and
                                             files[k].recommender else paths[k].stem)
             for k in ("a", "b")]
    if names[0] == names[1]:
        if args.name_a or args.name_b:
            raise ValueError(f"--name-a and --name-b must differ, got {names[0]!r} twice")
        return ["A", "B"]
    return names


def _count(text: str, available: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"--repeats must be a positive integer or 'all', got {text!r}") from None
    if not 1 <= value <= available:
        raise ValueError(f"--repeats must lie in 1..{available} (the files' repeats), got "
                         f"{value}")
    return value
