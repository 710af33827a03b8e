"""``sampled-metrics methods``: the named methods each ``--method`` takes, one line each, from
the registries (:mod:`sampled_metrics.registry`)."""
from __future__ import annotations

from ..registry import COMPARE_METHODS, CORRECT_METHODS, CORRECTIONS, ESTIMATORS
from .inputs import add_format_option

__all__ = ["add_parser", "run", "REGISTRIES"]

#: the registries by the commands that read them
REGISTRIES = {"correct": CORRECT_METHODS, "plan": CORRECTIONS, "estimate": ESTIMATORS,
              "compare": COMPARE_METHODS}


def add_parser(sub) -> None:
    """Add the ``methods`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("methods", help="the corrections, estimators and compare methods "
                       "--method takes",
                       description="List the names --method takes in each command, with "
                                   "their aliases, options and what each computes.")
    add_format_option(p)
    p.set_defaults(func=run, columns=["method", "commands", "what"])


def run(args):
    """One row per method: the commands that take it, its aliases, options and summary."""
    import pandas as pd

    rows = {}
    for commands, registry in REGISTRIES.items():
        for e in registry.values():
            row = rows.setdefault(e.name, [e.label, [], ", ".join(e.aliases),
                                           ", ".join(e.options), e.summary])
            row[1].append(commands)
    table = pd.DataFrame([[label, ", ".join(cmds), aliases, options, what]
                          for label, cmds, aliases, options, what in rows.values()],
                         columns=["method", "commands", "aliases", "options", "what"])
    table.attrs["notes"] = ["aliases and options: sampled-metrics methods --format csv"]
    return table
