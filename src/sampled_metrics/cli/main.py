"""Command line: ``sampled-metrics correct | estimate | plan | compare | bound | evaluators``: the parser,
with one sub-command per module of this package, and the entry point that runs one and prints
its table (see ``--help`` of each)."""
from __future__ import annotations

import argparse
import sys
import warnings

from threadpoolctl import threadpool_limits

from ..corrections.vectors import UnboundedCorrectionWarning
from ..logs import cli_logging
from . import bound, compare, correct, estimate, evaluators, plan

__all__ = ["build_parser", "main"]

#: The sub-commands in the order ``--help`` lists them.
COMMANDS = (correct, estimate, plan, compare, bound, evaluators)


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors in one line (``sampled-metrics correct: error: ...``),
    not the whole usage block; subcommands inherit it."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message[:200]} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``sampled-metrics`` parser; each sub-command sets ``func``, its table's maker."""
    parser = _Parser(
        prog="sampled-metrics",
        description="Correct sampled evaluation metrics for item recommendation "
                    "(Krichene & Rendle, KDD'20).")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv=None) -> int:
    """Run ``sampled-metrics`` with ``argv`` (default: the process's arguments); the exit
    code: 0, or 2 after a usage error or a ValueError printed in one line."""
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
    for note in table.attrs.get("notes", []):
        print(f"note: {note}", file=sys.stderr)
    return 0
