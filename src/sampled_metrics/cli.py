"""Command line: ``sampled-metrics correct | estimate | plan | compare | bound`` (see ``--help``
of each; ``compare`` lives in :mod:`sampled_metrics.compare_cli`, ``bound`` in
:mod:`sampled_metrics.bound_cli`)."""
from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from .checks import check_allocation, check_bootstrap_draws
from .corrections import UnboundedCorrectionWarning, apply_correction, correction_label, \
    correction_vectors, parse_correction
from .logs import cli_logging, progress
from .metrics import METRIC_NAMES, parse_metrics
from .positives_csv import correct_long_csv, long_format
from .rankfile import read_rank_file
from .sampling import SAMPLING_LAWS, check_nm
from .textfile import read_integers

__all__ = ["main", "read_sampled_ranks"]

DEFAULT_CORRECTIONS = "sampled,rank_estimate,cls,bv_1,bv_0.1,bv_0.01,bv_0.001"


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
            ranks = rank_file.sampled_ranks(_file_m(rank_file, path, m),
                                            0 if repeat is None else repeat)
        except ValueError as err:
            raise ValueError(f"{path}: {str(err).split(': ', 1)[-1]}") from None
        return ranks.astype(np.int64)
    if repeat is not None:
        raise ValueError("--repeat only applies to a workflow rank file (.npz)")
    if m is None:
        raise ValueError("--m is required unless --ranks is a workflow rank file (.npz)")
    return read_integers(path, 1, m + 1, "sampled rank", column, hi_name="m+1")


def _file_m(rank_file, path, m: int | None) -> int:
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


def _bootstrap_histograms(ranks: np.ndarray, m: int, draws: int, seed: int) -> np.ndarray:
    """Bootstrap over users, done on the histogram: each draw resamples the N users with
    replacement, i.e. counts ~ Multinomial(N, P~). Shape (draws, m+1), frequencies."""
    check_allocation(2 * draws * (m + 1), f"--bootstrap {draws} draws of the m+1 = {m + 1} "
                     f"rank frequencies")
    counts = np.bincount(ranks - 1, minlength=m + 1)
    rng = np.random.default_rng(seed)
    return rng.multinomial(ranks.size, counts / ranks.size, size=draws) / ranks.size


def _interval(samples: np.ndarray, level: float) -> tuple[float, float]:
    if samples.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(samples, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def _check_bootstrap(args) -> None:
    if not 0 < args.level < 1:
        raise ValueError(f"--level must lie in (0, 1), got {args.level}")
    check_bootstrap_draws("--bootstrap", args.bootstrap, args.level)
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")


def _resolve_inputs(args) -> tuple[int, int, str]:
    """(n, m, sampling): from the options, a workflow rank file filling in what is not given
    (its |I|, its only m, its sampling law) and refusing what contradicts it."""
    if str(args.ranks).endswith(".npz"):
        rank_file = read_rank_file(args.ranks)
        args.m = _file_m(rank_file, args.ranks, args.m)
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


def _names(text: str, what: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise ValueError(f"no {what} given")
    return names


def _cmd_correct(args) -> pd.DataFrame:
    if args.column is None and long_format(args.ranks):
        return _correct_long(args)
    if args.max_m is not None:
        raise ValueError("--max-m only applies to a long-format CSV of positives")
    n, m, sampling = _resolve_inputs(args)
    _check_bootstrap(args)
    ranks = read_sampled_ranks(args.ranks, m, args.column, args.repeat)
    metrics = parse_metrics(_names(args.metric, "metric"))
    names = _names(args.correction, "correction")
    for name in names:
        parse_correction(name, args.gamma if name.lower() == "bv" else None)
    if args.gamma is not None and "bv" not in [x.lower() for x in names]:
        raise ValueError(f"--gamma {args.gamma:g} only applies to the correction 'bv', but "
                         f"--correction is {args.correction!r}")
    specs = [(x, args.gamma) if x.lower() == "bv" else x for x in names]
    vectors = correction_vectors(metrics, n, m, specs, sampling)
    boot = _bootstrap_histograms(ranks, m, args.bootstrap, args.seed)
    rows = []
    for metric in metrics:
        for (name, label), vec in vectors.items():
            if name == metric.name:
                vals = apply_correction(vec, ranks)
                se = vals.std(ddof=1) / np.sqrt(vals.size) if vals.size > 1 else float("nan")
                rows.append((name, label, vals.mean(), se, *_interval(boot @ vec, args.level)))
    return pd.DataFrame(rows, columns=["metric", "correction", "value", "std_error", "ci_low",
                                       "ci_high"])


def _correct_long(args) -> pd.DataFrame:
    """``correct`` on a long-format CSV of several positives per user (positives_csv)."""
    for option in ("n", "m", "repeat"):
        if getattr(args, option) is not None:
            raise ValueError(f"--{option} does not apply to a long-format CSV ({args.ranks} "
                             f"gives n_nonrelevant and n_negatives per row)")
    _check_bootstrap(args)
    names = _names(args.correction, "correction")
    if long_format(args.ranks) == "draws" and args.correction == DEFAULT_CORRECTIONS:
        names = ["sampled", "weighted_rank_estimate"]
    if args.gamma is not None and "bv" not in [x.lower() for x in names]:
        raise ValueError(f"--gamma {args.gamma:g} only applies to the correction 'bv', but "
                         f"--correction is {args.correction!r}")
    names = [correction_label(x, args.gamma) if x.lower() == "bv" else x for x in names]
    return correct_long_csv(args.ranks, _names(args.metric, "metric"), names, args.sampling or "binomial",
                            args.bootstrap, args.level, args.seed, args.max_m)


def _cmd_estimate(args) -> pd.DataFrame:
    from .estimators import check_law_matrix_size, sampled_rank_histogram
    n, m, sampling = _resolve_inputs(args)
    _check_bootstrap(args)
    processes = _check_processes(args.processes)
    check_law_matrix_size(n, m)          # the largest arrays, refused before any is made
    check_allocation(args.bootstrap * n, f"--bootstrap {args.bootstrap} estimated "
                     f"distributions over the n = {n} true ranks")
    ranks = read_sampled_ranks(args.ranks, m, args.column, args.repeat)
    metrics = parse_metrics(_names(args.metric, "metric"))
    names = _names(args.estimator, "estimator")
    for option, owner in (("eta", "mes"), ("weight", "wmle"), ("C", "wmle")):
        if getattr(args, option) is not None and owner not in names:
            raise ValueError(f"--{option} only applies to the estimator {owner!r}, but "
                             f"--estimator is {args.estimator!r}")
    options = {name: _estimator_options(name, args) for name in names}
    weights = np.stack([metric.weights(n) for metric in metrics])
    hist = sampled_rank_histogram(ranks, m)
    boot = _bootstrap_histograms(ranks, m, args.bootstrap, args.seed)
    rows = []
    with progress("sampled-metrics estimate", total=len(names)) as bar:
        for name in names:
            bar.advance(0, f"{name}: estimate and {args.bootstrap} bootstrap draws")
            value = weights @ _estimate(name, hist[None], n, m, sampling, options[name])[0]
            draws = _estimate(name, boot, n, m, sampling, options[name], processes) @ weights.T
            rows += [(metric.name, name, value[k], *_interval(draws[:, k], args.level))
                     for k, metric in enumerate(metrics)]
            bar.advance()
    return pd.DataFrame(rows, columns=["metric", "estimator", "value", "ci_low", "ci_high"])


def _estimator_options(name: str, args) -> dict:
    """The options of estimator ``name`` given on the command line (validated)."""
    from .estimators import parse_estimator
    options = {}
    if name == "mes" and args.eta is not None:
        options = {"eta": args.eta}
    if name == "wmle":
        options = {k: v for k, v in (("weight", args.weight), ("C", args.C)) if v is not None}
    parse_estimator(name, **options)                        # fail early
    return options


def _estimate(name: str, hists: np.ndarray, n: int, m: int, sampling: str, options: dict,
              processes: int | None = None) -> np.ndarray:
    """P^ of each histogram (rows of ``hists``): (J, n). ``processes=None``: one histogram
    at a time in this process (the point estimate, as :func:`estimate_from_histogram`);
    else the bootstrap's many histograms batched (:func:`estimate_batches`: MLE and WMLE
    iterate a batch together, so a draw's estimate equals the one-at-a-time estimate up to
    the rounding of the shared matrix products, see :mod:`sampled_metrics.em_batch`)."""
    from .estimators import estimate_batches, estimate_from_histogram
    if processes is None:
        return np.stack([estimate_from_histogram(h, n, m, name, sampling, **options)
                         for h in hists])
    return estimate_batches(hists, n, m, name, sampling, processes=processes, **options)


def _check_processes(processes: int | None) -> int:
    """``--processes``: a positive count, default the CPUs this process may use."""
    if processes is None:
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)
    if processes < 1:
        raise ValueError(f"--processes must be >= 1, got {processes}")
    return processes


def _read_prior(path, n: int) -> np.ndarray:
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


def _cmd_plan(args) -> pd.DataFrame:
    from .planning import required_sample_size
    check_nm(args.n, 1, args.sampling)
    prior = _read_prior(args.prior_ranks, args.n) if args.prior_ranks else None
    rows = []
    pairs = [(metric, name) for metric in parse_metrics(_names(args.metric, "metric"))
             for name in _names(args.correction, "correction")]
    with progress("sampled-metrics plan", total=len(pairs)) as bar:
        for metric, name in pairs:
            what = f"{metric.name} {name}"

            def report(m: int, bias: float) -> None:
                bar.advance(0, f"{what}: bias {bias:.3g} at m={m}")
            plan = required_sample_size(metric, args.n, args.target_bias, name, args.sampling,
                                        prior, args.criterion, args.max_m, callback=report)
            rows.append((plan.metric, plan.correction, "> max_m" if plan.m is None else plan.m,
                         plan.bias, plan.max_m, plan.bias_at_max_m))
            bar.advance()
    return pd.DataFrame(rows, columns=["metric", "correction", "m_needed", "bias_at_m", "max_m",
                                       "bias_at_max_m"])


def _add_input_options(p, bootstrap: int) -> None:
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


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors in one line (``sampled-metrics correct: error: ...``),
    not the whole usage block; subcommands inherit it."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message[:200]} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sampled-metrics",
        description="Correct sampled evaluation metrics for item recommendation "
                    "(Krichene & Rendle, KDD'20).")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "correct", help="corrected metrics from sampled ranks",
        description="Read sampled ranks r~ (the rank of each held-out item among itself and m "
                    "sampled items, 1..m+1) and print the uncorrected metric and its corrections "
                    "(KDD'20 Sec. 5): rank_estimate (eq. 20), minimal_bias (eq. 21-23), cls "
                    "(eq. 21 with monotone M^), bv_<gamma> (eq. 24-25; bv_1 = posterior mean, "
                    "eq. 26). value = mean over the ranks, std_error = its standard error, "
                    "ci_low/ci_high = percentile bootstrap interval over users (seeded). "
                    "Several positives per user: give --ranks a long-format CSV with columns "
                    "user,position,n_nonrelevant,n_negatives (one row per positive) or "
                    "user,position,n_nonrelevant,above,prob (one row per drawn negative, "
                    "popularity sampling: corrections sampled, weighted_rank_estimate); "
                    "see the README.")
    p.add_argument("--metric", default="recall@10,ndcg@10,ap,auc",
                   help=f"comma-separated metrics: {METRIC_NAMES}; default %(default)s")
    p.add_argument("--correction", default=DEFAULT_CORRECTIONS,
                   help="comma-separated corrections: sampled (none), rank_estimate, "
                        "minimal_bias, cls, bv_<gamma> or bv with --gamma; default %(default)s")
    p.add_argument("--gamma", type=float, help="gamma in [0, 1] for the correction 'bv' (eq. 24)")
    _add_input_options(p, bootstrap=1000)
    p.add_argument("--max-m", type=int, help="long-format CSV: users with more than this "
                   "many negatives get CLS/BV of a thinned list of this size (default 100)")
    p.add_argument("--format", choices=("table", "csv"), default="table",
                   help="output format (default: aligned table)")
    p.set_defaults(func=_cmd_correct)

    e = sub.add_parser(
        "estimate", help="metrics from an estimated rank distribution (Jin et al.)",
        description="Estimate the distribution P(r) of true ranks r = 1..n from sampled ranks "
                    "(Jin et al. AAAI'21) and print metric@K = sum_r P(r) M(r) (their eq. 14): "
                    "mle (EM on the mixture of binomials, eq. 19-21), wmle (weighted, eq. 22-23), "
                    "mes (maximal entropy with squared distance, eq. 24-27), bv_<gamma> (from "
                    "KDD'20 BV corrections of Recall@r, eq. 15).")
    e.add_argument("--metric", default="recall@10,ndcg@10,ap@10",
                   help=f"comma-separated metrics: {METRIC_NAMES}; default %(default)s")
    e.add_argument("--estimator", default="mle,wmle,mes,bv_0.1",
                   help="comma-separated estimators: mle, wmle, mes, bv_<gamma>; "
                        "default %(default)s")
    e.add_argument("--eta", type=float, help="MES entropy weight (eq. 26; default 0.001)")
    e.add_argument("--weight", choices=("ndcg", "ap", "none"),
                   help="WMLE weight w(r~) = M(r~/C) (after eq. 23; default ndcg)")
    e.add_argument("--C", type=float, help="WMLE weight constant C (default 10)")
    _add_input_options(e, bootstrap=100)
    e.add_argument("--processes", type=int, help="worker processes for the bootstrap "
                   "(default: the CPUs available; the result does not depend on it)")
    e.add_argument("--format", choices=("table", "csv"), default="table")
    e.set_defaults(func=_cmd_estimate)

    p = sub.add_parser(
        "plan", help="how many sampled items m an evaluation needs",
        description="Smallest number of sampled items m for which the analytic bias of the "
                    "sampled metric (uncorrected, or corrected as in KDD'20 Sec. 5) is at most "
                    "--target-bias. rms bias = sqrt(sum_r p(r) (E[M^(r~)|r] - M(r))^2), the "
                    "criterion of eq. 21; mean bias = |sum_r p(r) (E[M^(r~)|r] - M(r))|, the "
                    "bias of the reported average. p(r) is uniform unless --prior-ranks gives "
                    "exact ranks of a comparable full evaluation.")
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
    p.set_defaults(func=_cmd_plan)

    from .compare_cli import add_compare_parser
    add_compare_parser(sub)
    from .bound_cli import add_bound_parser
    add_bound_parser(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    cli_logging()
    try:
        # a minimal-bias vector outside the metric's range is refused, not printed
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("error", UnboundedCorrectionWarning)
            table = args.func(args)
    except (ValueError, UnboundedCorrectionWarning) as err:
        print(f"sampled-metrics {args.command}: error: {err}", file=sys.stderr)
        return 2
    if args.format == "csv":
        sys.stdout.write(table.to_csv(index=False, float_format="%.6g"))
    else:
        print(table.to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
