"""Command line: ``sampled-metrics correct | estimate | plan | compare | table | bound |
evaluators | methods``: the parser, with one sub-command per module of this package, and the entry point
that runs one and prints its table (see ``--help`` of each)."""
from __future__ import annotations

import argparse
import sys
import warnings

from importlib.metadata import PackageNotFoundError, version

from . import bound, compare, correct, estimate, evaluators, methods, plan, table
from .inputs import aligned

__all__ = ["build_parser", "main"]

#: The sub-commands in the order ``--help`` lists them.
COMMANDS = (correct, estimate, plan, compare, table, bound, evaluators, methods)


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors in one line (``sampled-metrics correct: error: ...``),
    not the whole usage block; subcommands inherit it."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message[:200]} (see {self.prog} --help)\n")


def _version() -> str:
    """The installed distribution's version (``sampled_metrics.__version__`` at build)."""
    try:
        return version("sampled-metrics")
    except PackageNotFoundError:        # run from a source tree that is not installed
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The ``sampled-metrics`` parser; each sub-command sets ``func``, its table's maker."""
    parser = _Parser(
        prog="sampled-metrics",
        description="Correct sampled evaluation metrics for item recommendation "
                    "(Krichene & Rendle, KDD'20).")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv=None) -> int:
    """Run ``sampled-metrics`` with ``argv`` (default: the process's arguments); the exit
    code: 0, or 2 after a usage error or a ValueError printed in one line."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    from ..corrections.vectors import UnboundedCorrectionWarning
    from ..logs import cli_logging

    cli_logging()
    try:
        # a minimal-bias vector outside the metric's range is refused, not printed
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("error", UnboundedCorrectionWarning)
            table = args.func(args)
    except (ValueError, UnboundedCorrectionWarning) as err:
        print(f"sampled-metrics {args.command}: error: {err}", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(_output(table, args.format, getattr(args, "columns", None)))
    except BrokenPipeError:              # e.g. piped into head
        sys.stderr.close()
        return 0
    for note in table.attrs.get("notes", []):
        print(f"note: {note}", file=sys.stderr)
    return 0


def _output(table, form: str, columns=None) -> str:
    """What a command prints: its own layout (a str), or its table as CSV (every column),
    aligned text, Markdown or LaTeX (the main ``columns``)."""
    if isinstance(table, str):
        return table if table.endswith("\n") else table + "\n"
    if form == "csv":
        return table.to_csv(index=False, float_format="%.6g")
    from ..writers import render_latex, render_markdown

    shown = table[[c for c in (columns or table.columns) if c in table.columns]]
    if form == "markdown":
        return render_markdown(shown, "{:.6f}")
    if form == "latex":
        return render_latex(shown, "{:.6f}")
    return aligned(table, columns) + "\n"
