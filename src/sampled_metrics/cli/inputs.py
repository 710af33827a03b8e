"""What the commands of ``sampled-metrics`` share: reading sampled ranks and exact ranks,
resolving n, m and the sampling law against a workflow rank file, the options that describe
sampled ranks, and checking the bootstrap and process options."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..checks import check_bootstrap_draws
from ..evaluation.rankfile import read_rank_file
from ..evaluators import evaluator_names, evaluator_sampling, get_evaluator
from ..sampling import SAMPLING_LAWS, check_nm
from ..textfile import read_integers

__all__ = ["read_sampled_ranks", "file_m", "resolve_inputs", "split_names",
           "check_bootstrap", "check_processes",
           "read_prior", "add_input_options", "add_evaluator_option", "apply_evaluator"]


def read_sampled_ranks(path, m: int | None, column: str | None = None,
                       repeat: int | None = None) -> np.ndarray:
    """Read sampled ranks r~ (integers in 1..m+1) from a text file with one per line, from
    column ``column`` of a CSV file with a header, or from a rank file of the workflow
    (``results/<dataset>/ranks/<recommender>.npz``: sample size ``m`` (default: the file's
    only one), repeat ``repeat`` (default 0)). Raises ValueError naming the problem."""
    path = Path(path)
    if path.suffix == ".npz":
        rank_file = read_rank_file(path)
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
        raise ValueError("--m is required unless --ranks is a workflow rank file (.npz)")
    return read_integers(path, 1, m + 1, "sampled rank", column, hi_name="m+1")


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


def resolve_inputs(args) -> tuple[int, int, str]:
    """(n, m, sampling): from the options, a workflow rank file filling in what is not given
    (its |I|, its only m, its sampling law) and refusing what contradicts it."""
    if str(args.ranks).endswith(".npz"):
        rank_file = read_rank_file(args.ranks)
        args.m = file_m(rank_file, args.ranks, args.m)
        if args.n is None:
            args.n = rank_file.n_items
        elif args.n != rank_file.n_items:
            raise ValueError(f"{args.ranks}: the file records n = {rank_file.n_items} items, "
                             f"but --n is {args.n}")
        if args.sampling is None:
            args.sampling = rank_file.sampling
    if args.n is None:
        raise ValueError("--n is required unless --ranks is a workflow rank file (.npz)")
    if args.m is None:
        raise ValueError("--m is required unless --ranks is a workflow rank file (.npz)")
    args.sampling = args.sampling or "binomial"
    n, m = check_nm(args.n, args.m, args.sampling)
    return n, m, args.sampling


def split_names(text: str, what: str) -> list[str]:
    """The comma-separated names of an option (blanks dropped); ValueError if there is none."""
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise ValueError(f"no {what} given")
    return names


def check_bootstrap(args) -> None:
    """``--level``, ``--bootstrap`` and ``--seed``: ValueError naming the option at fault."""
    if not 0 < args.level < 1:
        raise ValueError(f"--level must lie in (0, 1), got {args.level}")
    check_bootstrap_draws("--bootstrap", args.bootstrap, args.level)
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")


def check_processes(processes: int | None) -> int:
    """``--processes``: a positive count, default the CPUs this process may use."""
    if processes is None:
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)
    if processes < 1:
        raise ValueError(f"--processes must be >= 1, got {processes}")
    return processes


def read_prior(path, n: int) -> np.ndarray:
    """Empirical p(r) from exact ranks 1..n: a text file with one per line, or the ``exact``
    ranks of a workflow rank file (.npz; averaged ties rounded down)."""
    path = Path(path)
    if path.suffix == ".npz":
        ranks = np.floor(read_rank_file(path).exact).astype(np.int64)
        if ranks.size == 0 or ranks.min() < 1 or ranks.max() > n:
            raise ValueError(f"{path}: exact ranks outside 1..n={n}")
    else:
        ranks = read_integers(path, 1, n, "exact rank", hi_name="n")
    return np.bincount(ranks - 1, minlength=n) / ranks.size


def add_input_options(p, bootstrap: int) -> None:
    """Options shared by ``correct`` and ``estimate``: the sampled ranks and how they arose."""
    p.add_argument("--ranks", required=True, help="file: one integer rank per line, a CSV "
                   "with a header (then give --column), or a workflow rank file "
                   "results/<dataset>/ranks/<recommender>.npz")
    p.add_argument("--column", help="CSV column holding the sampled ranks")
    p.add_argument("--n", type=int, help="number of items each held-out item is truly ranked "
                   "among (true ranks 1..n); default with a rank file: its number of items")
    p.add_argument("--m", type=int, help="number of sampled irrelevant items per evaluation "
                   "(1 <= m < n); default with a rank file: its only sample size")
    p.add_argument("--sampling", choices=SAMPLING_LAWS,
                   help="how the m items were drawn: with replacement (binomial) or without "
                        "(hypergeometric); default: the law recorded in a workflow rank file, "
                        "else binomial")
    p.add_argument("--repeat", type=int, help="with a workflow rank file (.npz): which "
                   "sampling repeat to read (default 0)")
    p.add_argument("--bootstrap", type=int, default=bootstrap,
                   help="bootstrap draws over users for the confidence interval "
                        "(default %(default)s; 0 = none; at least 2 / (1 - level), "
                        "40 at level 0.95)")
    p.add_argument("--level", type=float, default=0.95,
                   help="confidence level of the interval (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default %(default)s)")


def add_evaluator_option(p, what: str = "the evaluator that drew the negatives, which "
                         "sets the sampling law (and m, unless given)") -> None:
    """``--evaluator NAME``: the evaluator whose law the ranks follow."""
    p.add_argument("--evaluator", help=f"{what}: one of {', '.join(evaluator_names())} "
                   "(sampled-metrics evaluators)")


def apply_evaluator(args, long: bool, path=None) -> None:
    """Set ``args.sampling`` (and ``args.m`` for plain ranks) from ``--evaluator``
    (:func:`~sampled_metrics.evaluators.catalogue.evaluator_sampling`) for the ranks at
    ``path`` (default ``args.ranks``); a one-line ValueError where --sampling contradicts
    it or the ranks are a workflow rank file, whose law the file records."""
    if args.evaluator is None:
        return
    path = str(args.ranks if path is None else path)
    e = get_evaluator(args.evaluator)
    if path.endswith(".npz"):
        raise ValueError(f"--evaluator {e.name} applies to ranks an evaluator reported, not "
                         f"to a workflow rank file ({path} records its own law)")
    try:
        sampling = evaluator_sampling(e, long=long)
    except ValueError as err:
        raise ValueError(f"--evaluator {str(err).removeprefix('evaluator ')}") from None
    if args.sampling is not None and args.sampling != sampling:
        raise ValueError(f"--evaluator {e.name} gives ranks of the {sampling} law, but "
                         f"--sampling is {args.sampling}")
    args.sampling = sampling
    if not long and args.m is None:
        args.m = e.negatives
