"""What the commands of ``sampled-metrics`` share: one vocabulary of options (the same name,
help and default for the same idea in every command, the choices read from the registries),
one reader of rank files that resolves n, m and the sampling law against what the files
record, and the checks of the bootstrap and process options.

Nothing heavy is imported here at module level, so that ``--help`` stays fast; the readers
import what they need when they run.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ..metrics import METRIC_NAMES
from ..registry import DEFAULT_METRICS, SAMPLING_LAWS

__all__ = ["add_metric_option", "add_method_option", "add_sample_options", "add_shape_option",
           "add_bootstrap_options", "add_evaluator_option", "add_format_option",
           "add_n_option", "add_m_option", "add_sampling_option", "add_level_option",
           "add_thin_to_option", "add_processes_option",
           "read_sampled_ranks", "read_rank_files", "file_m", "resolve_inputs", "check_bootstrap",
           "check_processes", "read_prior", "apply_evaluator", "resolve_cli_evaluator",
           "CLI_NAMES",
           "DEFAULT_BOOTSTRAP", "FORMATS", "Rendered", "aligned", "file_name",
           "check_rank_text", "sampling_law"]

#: bootstrap draws over users, where each draw is a mean (correct, compare)
DEFAULT_BOOTSTRAP = 1000
#: the outputs of every command: an aligned table, CSV, Markdown, LaTeX
FORMATS = ("table", "csv", "markdown", "latex")


class Rendered(str):
    """A command's output already laid out (``attrs['notes']``: the notes printed below
    it on standard error, as for a table)."""

    def __new__(cls, text: str, notes=()):
        out = super().__new__(cls, text)
        out.attrs = {"notes": list(notes)}
        return out


def file_name(text: str) -> str:
    """argparse type of an input file: refuses an empty name (which would mean the current
    folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty file name")
    return text


def sampling_law(text: str) -> str:
    """argparse type of ``--sampling``: the canonical name of the law ``text`` names (in any
    case), else the registry's one-line message."""
    try:
        return SAMPLING_LAWS.canonical(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_metric_option(p, what: str = "metrics") -> None:
    """``--metric``: comma-separated metrics, default :data:`DEFAULT_METRICS` everywhere."""
    p.add_argument("--metric", default=",".join(DEFAULT_METRICS),
                   help=f"comma-separated {what}: {METRIC_NAMES}; default %(default)s")


def add_method_option(p, registry, default, extra: str = "") -> None:
    """``--method``: comma-separated names of ``registry`` (its choices in the help)."""
    p.add_argument("--method", default=",".join(default),
                   help=f"comma-separated {registry.kind}s: {extra}{registry.choices()} "
                        f"(sampled-metrics methods); default %(default)s")


def add_shape_option(p) -> None:
    """``--shape``: the family of P(r) the recommended interval assumes (one help text for
    every command that gives the interval; ``bound`` lists several shapes to compare)."""
    p.add_argument("--shape", default="non-increasing",
                   help="the family of rank distributions P(r) the recommended interval "
                   "assumes: non-increasing (default), convex (convex and non-increasing: a "
                   "narrower interval; correct prints a likelihood-ratio check of the shape) "
                   "or none")


def add_n_option(p, default: str | None = None) -> None:
    """``--n``, the one help text of every command (``default``: where it comes from when
    not given; None: required)."""
    p.add_argument("--n", type=int, required=default is None,
                   help="number of items each held-out item is truly ranked among (true ranks "
                        "1..n)" + (f"; default {default}" if default else ""))


def add_m_option(p, default: str) -> None:
    """``--m``, the one help text of every command (``default``: where it comes from when
    not given)."""
    p.add_argument("--m", type=int, help="number of sampled irrelevant items per evaluation "
                   f"(1 <= m < n); default {default}")


def add_sampling_option(p, default: str = "binomial") -> None:
    """``--sampling``, the one help text of every command (``default``: what it is when not
    given)."""
    p.add_argument("--sampling", type=sampling_law, choices=SAMPLING_LAWS,
                   help="how the m sampled items are drawn: with replacement (binomial) or "
                        f"without (hypergeometric); default {default}")


def add_sample_options(p, what: str = "--ranks") -> None:
    """``--n``, ``--m``, ``--sampling``, ``--column``, ``--repeat``: how the ranks arose."""
    add_n_option(p, f"with rank files (.npz): what {what} record")
    add_m_option(p, "with rank files: their only sample size")
    add_sampling_option(p, "the law rank files record, else binomial")
    p.add_argument("--column", help="CSV column holding the sampled ranks")
    p.add_argument("--repeat", type=int, help="with rank files (.npz): which sampling repeat "
                   "to read (default 0)")


def add_bootstrap_options(p, bootstrap: int | None = DEFAULT_BOOTSTRAP, what: str = "",
                          none: bool = True, default: str = "%(default)s") -> None:
    """``--bootstrap``, ``--level``, ``--seed`` (``none``: 0 draws, no interval, allowed;
    ``default``: how the help names the default draws)."""
    p.add_argument("--bootstrap", type=int, default=bootstrap,
                   help=f"bootstrap draws over users{what} (default {default}; "
                        + ("0 = no interval; else " if none else "")
                        + "at least 2 / (1 - level), 40 at level 0.95)")
    add_level_option(p)
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default %(default)s)")


def add_level_option(p, applies: str | None = None) -> None:
    """``--level``, the one help text of every command (``applies``: the option it applies
    with, where it does not apply alone)."""
    p.add_argument("--level", type=float, default=0.95,
                   help="confidence level of every interval"
                        + (f" (applies with {applies})" if applies else "")
                        + "; default %(default)s")


def add_thin_to_option(p) -> None:
    """``--thin-to``: the thinned list's size of CLS and BV for the long format."""
    p.add_argument("--thin-to", type=int, help="long-format CSV: users with more than this "
                   "many negatives get CLS/BV of a thinned list of this size (default 100)")


def add_processes_option(p, what: str) -> None:
    """``--processes``: worker processes for ``what`` (results never depend on them)."""
    p.add_argument("--processes", type=int, help=f"worker processes for {what} (default: "
                   "the CPUs available; the result does not depend on it)")


def add_format_option(p) -> None:
    """``--format``: an aligned table of the main columns (fits 100 columns), CSV with all,
    or the main columns as Markdown or a booktabs LaTeX table."""
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="table: aligned, the main columns; csv: every column; markdown, "
                        "latex: the main columns to paste into a page or paper (LaTeX: "
                        "booktabs) (default table)")


def aligned(table, columns=None, width: int = 100) -> str:
    """The table as aligned text: ``columns`` (default all) of it, floats with 6 decimals
    and integers right-aligned, text left-aligned; a last text column that would pass
    ``width`` characters wraps onto indented lines."""
    import textwrap

    import pandas as pd

    columns = [c for c in (columns or table.columns) if c in table.columns]
    cells, right = [], []
    for c in columns:
        values = table[c]
        if pd.api.types.is_float_dtype(values):
            text = ["" if pd.isna(v) else f"{v:.6f}" for v in values]
        else:
            text = ["" if v is None or v is pd.NA else str(v) for v in values]
        cells.append([str(c), *text])
        right.append(pd.api.types.is_numeric_dtype(values))
    widths = [max(map(len, col)) for col in cells]
    indent = sum(widths[:-1]) + len(widths) - 1
    wrap = not right[-1] and indent + widths[-1] > width and width - indent >= 20
    lines = []
    for i in range(len(table) + 1):
        row = [col[i].rjust(w) if r else col[i].ljust(w)
               for col, w, r in zip(cells, widths, right)]
        if not wrap:
            lines.append(" ".join(row).rstrip())
            continue
        parts = textwrap.wrap(cells[-1][i], width - indent) or [""]
        lines.append(" ".join(row[:-1] + [parts[0]]).rstrip())
        lines += [" " * indent + part for part in parts[1:]]
    return "\n".join(lines)


def add_evaluator_option(p, what: str = "the evaluator that drew the negatives, which "
                         "sets the sampling law (and m, unless given)") -> None:
    """``--evaluator NAME``: the evaluator whose law the ranks follow."""
    p.add_argument("--evaluator", help=f"{what} (sampled-metrics evaluators lists them)")


def read_sampled_ranks(path, m: int | None, column: str | None = None,
                       repeat: int | None = None, rank_file=None):
    """Read sampled ranks r~ (integers in 1..m+1) from a text file with one per line, from
    column ``column`` of a CSV file with a header, or from a rank file of the workflow
    (``results/<dataset>/ranks/<recommender>.npz``: sample size ``m`` (default: the file's
    only one), repeat ``repeat`` (default 0); ``rank_file``: that file already read, by
    :func:`read_rank_files`). Raises ValueError naming the problem."""
    import numpy as np

    from ..evaluation.rankfile import read_rank_file
    from ..textfile import read_integers

    path = Path(path)
    if path.suffix == ".npz":
        rank_file = read_rank_file(path) if rank_file is None else rank_file
        if rank_file.users.size == 0:
            raise ValueError(f"{path}: the rank file holds no users")
        try:
            ranks = rank_file.sampled_ranks(file_m(rank_file, path, m),
                                            0 if repeat is None else repeat)
        except ValueError as err:
            raise ValueError(f"{path}: {str(err).split(': ', 1)[-1]}") from None
        return ranks.astype(np.int64)
    if repeat is not None:
        raise ValueError("--repeat only applies to a workflow rank file (.npz)")
    if m is None:
        raise ValueError("--m is required unless the ranks are a workflow rank file (.npz)")
    return read_integers(path, 1, m + 1, "sampled rank", column, hi_name="m+1")


def check_rank_text(*paths) -> None:
    """Each input that is not a workflow rank file (.npz) a readable text file with
    something in it: a missing, empty or binary file is named before the options its
    ranks would need (--n, --m) are asked for."""
    from ..textfile import check_readable
    from ..textfile.files import check_text

    for path in paths:
        if Path(path).suffix != ".npz":
            check_text(check_readable(path, str(path), "text file of sampled ranks"),
                       str(path), "sampled rank")


def file_m(rank_file, path, m: int | None) -> int:
    """The sample size to read from a rank file: ``m``, or the file's only one."""
    if m is None:
        if len(rank_file.m_values) != 1:
            raise ValueError(f"{path}: holds sampled ranks for m in {rank_file.m_values}; "
                             f"choose one with --m")
        return rank_file.m_values[0]
    if m not in rank_file.m_values:
        raise ValueError(f"{path}: ranks were sampled with m="
                         f"{'/'.join(map(str, rank_file.m_values))}, but --m is {m}")
    return m


def read_rank_files(paths) -> dict:
    """{path as given: RankFile} when every input is a workflow rank file (.npz), {} when
    none is; a one-line ValueError when they mix."""
    from ..evaluation.rankfile import read_rank_files as read_each

    npz = [Path(p).suffix == ".npz" for p in paths]
    if any(npz) and not all(npz):
        raise ValueError("the inputs must all be rank files (.npz) or none")
    return read_each({str(p): p for p in paths}) if all(npz) else {}


def resolve_inputs(args, files: dict, evaluator=None):
    """The design of the ranks (:class:`~sampled_metrics.design.Design`, built once and
    passed to the library): the options, with what the workflow rank files ``files``
    (:func:`read_rank_files`; {} for other inputs) record filling in what is not given
    (their |I|, their only m, their law) and refusing what contradicts it, file by file.
    Sets ``args.n``, ``args.m``, ``args.sampling``; ``evaluator``: the entry
    ``--evaluator`` resolved to, which the design carries."""
    from ..design import Design

    if files and getattr(args, "column", None) is not None:
        raise ValueError("--column only applies to CSV input, not rank files (.npz)")
    for path, rank_file in files.items():
        args.m = file_m(rank_file, path, args.m)
        if args.n is None:
            args.n = rank_file.n_items
        elif args.n != rank_file.n_items:
            raise ValueError(f"{path}: the file records n = {rank_file.n_items} items, but "
                             f"--n is {args.n}")
        if args.sampling is None:
            args.sampling = rank_file.sampling
        elif args.sampling != rank_file.sampling:
            raise ValueError(f"{path}: ranks were drawn {rank_file.sampling}, but --sampling "
                             f"is {args.sampling}")
    if args.n is None:
        raise ValueError("--n is required unless the ranks are workflow rank files (.npz)")
    if args.m is None:
        raise ValueError("--m is required unless the ranks are workflow rank files (.npz)")
    args.sampling = args.sampling or "binomial"
    return Design(args.n, args.m, args.sampling, evaluator)


def check_bootstrap(args) -> None:
    """``--level``, ``--bootstrap`` and ``--seed``: ValueError naming the option at fault."""
    from ..checks import check_bootstrap_draws, check_integer, check_level

    check_level("--level", args.level)
    check_bootstrap_draws("--bootstrap", args.bootstrap, args.level)
    check_integer("--seed", args.seed, 0)


def check_processes(processes: int | None) -> int:
    """``--processes``: a positive count, default the CPUs this process may use."""
    from ..checks import available_cpus

    if processes is None:
        return available_cpus()
    if processes < 1:
        raise ValueError(f"--processes must be >= 1, got {processes}")
    return processes


def read_prior(path, n: int):
    """Empirical p(r) from exact ranks 1..n: a text file with one per line, or the ``exact``
    ranks of a workflow rank file (.npz; averaged ties rounded down)."""
    import numpy as np

    from ..evaluation.rankfile import read_rank_file
    from ..textfile import read_integers

    path = Path(path)
    if path.suffix == ".npz":
        ranks = np.floor(read_rank_file(path).exact).astype(np.int64)
        if ranks.size == 0 or ranks.min() < 1 or ranks.max() > n:
            raise ValueError(f"{path}: exact ranks outside 1..n={n}")
    else:
        ranks = read_integers(path, 1, n, "exact rank", hi_name="n")
    return np.bincount(ranks - 1, minlength=n) / ranks.size


def apply_evaluator(args, long: bool, path=None):
    """``--evaluator`` with ``--sampling`` and ``--m`` for the ranks at ``path`` (default
    ``args.ranks``), resolved once (:func:`resolve_cli_evaluator`): for plain ranks, sets
    ``args.sampling`` and ``args.m`` and returns the design; None without ``--evaluator``
    and for the long format, whose ``evaluator`` column is resolved with it where the file
    is read. A one-line ValueError where the ranks are a workflow rank file, whose law the
    file records."""
    if args.evaluator is None:
        return None
    path = str(args.ranks if path is None else path)
    if path.endswith(".npz"):
        from ..evaluators.catalogue import get_evaluator

        raise ValueError(f"--evaluator {get_evaluator(args.evaluator).name} applies to ranks "
                         f"an evaluator reported, not to a workflow rank file ({path} records "
                         f"its own law)")
    if long:
        return None
    design = resolve_cli_evaluator(args.evaluator, args.sampling, m=args.m, long=False)
    args.sampling, args.m = design.sampling, design.m
    return design


#: how messages name the law and the evaluator: by their options
CLI_NAMES = ("--sampling", "--evaluator")


def resolve_cli_evaluator(evaluator, sampling, *, long, m=None, n=None):
    """:func:`~sampled_metrics.evaluators.catalogue.resolve_evaluator` with the options'
    names in its messages (:data:`CLI_NAMES`)."""
    from ..evaluators.catalogue import resolve_evaluator

    return resolve_evaluator(evaluator, sampling=sampling, m=m, long=long, n=n,
                             names=CLI_NAMES)
