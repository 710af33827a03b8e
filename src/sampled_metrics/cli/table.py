"""``sampled-metrics table``: the results table of k models evaluated on the same users
(see ``--help``)."""
from __future__ import annotations

from pathlib import Path

from ..registry import COMPARE_METHODS, CORRECTIONS, DEFAULT_METHODS, FAMILYWISE_METHODS, \
    name_list
from .inputs import Rendered, add_bootstrap_options, add_evaluator_option, add_format_option, \
    add_method_option, add_metric_option, add_processes_option, add_sample_options, \
    add_thin_to_option, aligned, apply_evaluator, \
    check_processes, check_rank_text, file_name, read_rank_files, read_sampled_ranks, \
    resolve_inputs

__all__ = ["add_parser", "run"]

DESCRIPTION = (
    "The results table of k models evaluated on the same users, each file one model's "
    "sampled ranks: per model and metric the recommended answer of 'correct' (the "
    "full-ranking metric with an interval that covers it) and the corrections of --method, "
    "the models ordered by the first metric's recommended value and lettered a, b, ...; "
    "for every pair and metric the paired, bias-aware verdict of 'compare' by "
    "--verdict-method, with the family-wise error over all pairs and metrics held at "
    "--level (--familywise: maxstat, the max-statistic paired bootstrap, or holm; both "
    "step-down; each pair is read at the level the procedure sets, printed with --pairs). "
    "Printed: one row per model, one column per metric, each cell the value in percent "
    "with its interval, the best per metric marked, and the letters of the models it "
    "beats (as ranx prints them), with a caption stating the sampling, the verdicts and "
    "the level; --format csv gives the tidy rows, markdown and latex (booktabs) the table "
    "to paste.")
#: the outputs' width
WIDTH = 100


def add_parser(sub) -> None:
    """Add the ``table`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("table", help="a results table of k models: corrected values, "
                       "intervals, and which differences hold", description=DESCRIPTION)
    p.add_argument("inputs", metavar="FILE", nargs="+", type=file_name,
                   help="each model's sampled ranks: one integer per line, a CSV with "
                   "--column, a workflow rank file (.npz), or a long-format CSV "
                   "(user,position,n_nonrelevant,n_negatives: several positives per user, "
                   "matched by user id); at least two, all of one kind, the same users")
    p.add_argument("--names", help="comma-separated names of the models, one per file "
                   "(default: the rank file's recommender, else the file name)")
    add_metric_option(p)
    add_method_option(p, CORRECTIONS, DEFAULT_METHODS["correct"], extra="recommended, ")
    p.add_argument("--verdict-method", help="the method of the pairs' verdicts: "
                   f"{COMPARE_METHODS.choices()} but mle (default: bv_0.1)")
    p.add_argument("--familywise", choices=FAMILYWISE_METHODS, default=FAMILYWISE_METHODS[0],
                   help="how the family-wise error over all pairs and metrics is held: "
                   "maxstat, the max-statistic paired bootstrap, or holm, Holm's step-down "
                   "(default %(default)s)")
    add_sample_options(p, "the files")
    add_evaluator_option(p)
    add_bootstrap_options(p, None, what=" (the models' intervals and the pairs')", none=False,
                          default="max(2000, 2 H S / (1 - level)) for H pairs x metrics, "
                                  "S = 2 where the verdicts' method has a bias term, else 1")
    add_thin_to_option(p)
    add_processes_option(p, "the models' answers")
    p.add_argument("--pairs", action="store_true", help="print the pairs' verdicts (with "
                   "the level each is read at) instead of the models")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args):
    """The results table laid out for ``--format`` (csv: the tidy rows)."""
    from ..compare.layout import DOCUMENTS, results_cells, results_document
    from ..compare.matching import check_rank_files
    from ..compare.table import results_table
    from ..multipositive.longformat import long_format

    paths = [Path(x) for x in args.inputs]
    if len(paths) < 2:
        raise ValueError(f"a results table needs at least two files, got {len(paths)} "
                         f"({paths[0]})")
    _check_bootstrap(args)
    processes = check_processes(args.processes)
    kinds = [long_format(p) if p.suffix != ".npz" else None for p in paths]
    long = any(kinds)
    design = apply_evaluator(args, long, paths[0])
    metrics, methods = name_list(args.metric, "metric"), name_list(args.method, "method")
    # sampled ranks: the design --evaluator resolved to, taken as it is; the long format:
    # the name, resolved once with the files' evaluator column
    options = dict(sampling=args.sampling, evaluator=args.evaluator if long else design,
                   verdict_method=args.verdict_method, familywise=args.familywise,
                   level=args.level, bootstrap=args.bootstrap, seed=args.seed,
                   processes=processes)
    if long:
        for path, kind in zip(paths, kinds):
            if kind != "positions":
                if kind is None:
                    check_rank_text(path)
                raise ValueError(f"{path}: table takes the long position format (user,"
                                 f"position,n_nonrelevant,n_negatives) for every file, or "
                                 f"sampled ranks for every file"
                                 + ("; popularity-sampled draws are not supported"
                                    if kind == "draws" else ""))
        given = [f"--{k}" for k in ("n", "m", "column", "repeat") if getattr(args, k)
                 is not None]
        if given:
            raise ValueError(f"{', '.join(given)} do(es) not apply to long-format CSVs "
                             f"(every row carries its user's numbers)")
        if args.thin_to is not None and args.thin_to < 1:
            raise ValueError(f"--thin-to must be >= 1, got {args.thin_to}")
        names = _names(args, paths, {})
        read = _read_long(paths)
        result = results_table(dict(zip(names, read)), metrics, methods,
                               thin_to=args.thin_to, **options)
    else:
        if args.thin_to is not None:
            raise ValueError("--thin-to only applies to long-format CSVs of positives")
        check_rank_text(*paths)
        files = read_rank_files(paths)
        names = _names(args, paths, files)
        if files:
            check_rank_files(_keyed(paths, files), args.n)
        ranks_design = resolve_inputs(args, files, None if design is None else design.evaluator)
        ranks = [read_sampled_ranks(p, ranks_design.m, args.column, args.repeat,
                                    files.get(str(p))) for p in paths]
        for path, r in zip(paths[1:], ranks[1:]):
            if r.size != ranks[0].size:
                raise ValueError(f"{path}: {r.size} users, but {paths[0]} holds "
                                 f"{ranks[0].size}: the files must hold the same users in "
                                 f"the same order")
        options.update(sampling=None, evaluator=ranks_design)    # the design, built once
        result = results_table(dict(zip(names, ranks)), metrics, methods, **options)
    if args.pairs:
        args.columns = ["a", "b", "metric", "difference", "low", "high", "verdict", "level"]
        return result.pairs
    if args.format == "csv":
        return result.models
    if args.format in DOCUMENTS:
        return Rendered(results_document(result, args.format), result.notes)
    return Rendered(_layout(*results_cells(result, "text")), result.notes)


def _check_bootstrap(args) -> None:
    """--level, --seed and, where given, --bootstrap (its default depends on the family;
    a verdict needs draws, so never 0)."""
    from ..checks import check_integer, check_level
    from ..compare.verdicts import check_interval_draws

    check_level("--level", args.level)
    if args.bootstrap is not None:
        check_interval_draws("--bootstrap", args.bootstrap, args.level)
    check_integer("--seed", args.seed, 0)


def _layout(cells, caption: str) -> str:
    """The wide cells as the terminal's blocks of metrics within :data:`WIDTH` columns and
    the caption below."""
    import textwrap

    blocks, block = [], []
    fixed = [max(len(str(x)) for x in [c, *cells[c]]) + 1 for c in cells.columns[:2]]
    for metric in cells.columns[2:]:
        width = max(len(str(x)) for x in [metric, *cells[metric]]) + 1
        if block and sum(fixed) + sum(w for _, w in block) + width > WIDTH:
            blocks.append(block)
            block = []
        block.append((metric, width))
    blocks.append(block)
    text = "\n\n".join(aligned(cells, ["#", "model", *(x for x, _ in part)])
                       for part in blocks)
    # a number and its unit (95 %) stay on one line
    lines = textwrap.wrap(caption.replace(" %", "\u00a0%"), WIDTH, break_on_hyphens=False)
    return text + "\n\n" + "\n".join(lines).replace("\u00a0", " ") + "\n"


def _names(args, paths, files: dict) -> list[str]:
    """The models' names: --names, else each rank file's recommender, else its file name;
    a one-line error where two would be the same."""
    if args.names is not None:
        names = [x.strip() for x in args.names.split(",")]
        if len(names) != len(paths) or not all(names):
            raise ValueError(f"--names must give one non-empty name per file ({len(paths)}), "
                             f"got {args.names!r}")
    else:
        names = [files[str(p)].recommender if files and files[str(p)].recommender
                 else p.stem for p in paths]
    for i, name in enumerate(names):
        if name in names[:i]:
            j = names.index(name)
            raise ValueError(f"{paths[j]} and {paths[i]} are both named {name!r}; give "
                             f"--names" if args.names is None else
                             f"--names names {name!r} twice")
    return names


def _read_long(paths) -> list:
    """Each long-format CSV read, checked to be one evaluation's (one evaluator column, the
    same users with the same k, N and M), named by its path."""
    from ..compare.matching import check_positive_tables
    from ..multipositive.longformat import read_long

    read = [read_long(p) for p in paths]
    named = [(p, x.evaluator) for p, x in zip(paths, read) if x.evaluator is not None]
    for path, evaluator in named[1:]:
        if evaluator != named[0][1]:
            raise ValueError(f"{named[0][0]} names evaluator {named[0][1]}, but {path} names "
                             f"{evaluator}: the files must be one evaluation's")
    keys = list(_keyed(paths, dict(zip(map(str, paths), read))))
    check_positive_tables(dict(zip(keys, (x.table for x in read))),
                          dict(zip(keys, (x.users for x in read))))
    return read


def _keyed(paths, files: dict) -> dict:
    """Each file's rank file keyed by its path for messages (a file given twice: named
    twice)."""
    out = {}
    for path in paths:
        key = str(path)
        while key in out:
            key += " (again)"
        out[key] = files[str(path)]
    return out
