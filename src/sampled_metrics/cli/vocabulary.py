"""The library and the command line name an idea alike: each option of a command is the
keyword of the library function the command calls (``--thin-to`` is ``thin_to=``), a
comma-separated option in the singular being the plural keyword of its list (``--metric``,
``metrics=``). The few options that are not a keyword are listed here, each with its reason;
:func:`vocabulary` reads the rest from the parser and the functions' signatures (the Design
page's table, and the test that keeps the two names one).

Nothing is imported here at module level but the parser; the functions are imported when
:func:`vocabulary` reads their signatures.
"""
from __future__ import annotations

import importlib
import inspect
from typing import NamedTuple

__all__ = ["CALLS", "EXCEPTIONS", "Row", "vocabulary"]

#: the library functions each command passes its options to ('module:function' under
#: ``sampled_metrics``), the public one first: an option is the keyword of the first that
#: takes it
CALLS = {
    "correct": ("intervals.table:correct", "intervals.table:correct_positions"),
    "estimate": ("estimators.table:estimate",),
    "plan": ("corrections.planning:required_sample_size", "intervals.width:width_sample_size"),
    "compare": ("compare.paired:compare_ranks", "compare.repeats:compare_repeats"),
    "table": ("compare.table:results_table",),
    "bound": ("bounds:bound_full_metric",),
    "evaluators": ("evaluators.catalogue:get_evaluator",),
    "methods": (),
}

_FILE = "the command line reads a file; the library takes what it holds"
_METHOD = ("--method is one option in every command, choosing from the command's registry; "
           "the keyword names that registry's kind (a correction, an estimator)")
_READER = "how the command line reads a rank file; the library takes the ranks"
_NAMES = "the names of the inputs: the library takes them as the keys of the mapping"

#: (command, option's dest) -> (what the library takes instead, or None: nothing; why[; the
#: function that takes it, where not the first of :data:`CALLS` that does]). Command '*':
#: every command that has the option.
EXCEPTIONS = {
    ("*", "format"): (None, "how the table is printed"),
    ("*", "column"): (None, _READER),
    ("*", "repeat"): (None, _READER),
    ("*", "ranks"): ("sampled_ranks", _FILE),
    ("correct", "method"): ("corrections", _METHOD),
    ("table", "method"): ("corrections", _METHOD),
    ("plan", "method"): ("correction", _METHOD + "; plan asks once per correction"),
    ("estimate", "method"): ("estimators", _METHOD),
    ("estimate", "eta"): ("options", "an estimator's option, in `options['mes']`"),
    ("estimate", "weight"): ("options", "an estimator's option, in `options['wmle']`"),
    ("estimate", "c"): ("options", "an estimator's option, `options['wmle']['C']` (the "
                                   "paper's C; options are lower case)"),
    ("compare", "a"): ("sampled", _FILE + ", as a mapping name -> sampled ranks"),
    ("compare", "b"): ("sampled", _FILE + ", as a mapping name -> sampled ranks"),
    ("compare", "name_a"): ("sampled", _NAMES),
    ("compare", "name_b"): ("sampled", _NAMES),
    ("table", "names"): ("inputs", _NAMES),
    ("table", "pairs"): (None, "which of the result's tables is printed (`.pairs`)"),
    ("plan", "prior_ranks"): ("prior", _FILE + " as the distribution p(r)"),
    ("plan", "pilot_ranks"): ("prior", _FILE + ": `pilot_prior` fits p(r) to the pilot",
                              "width_sample_size"),
    ("plan", "pilot_m"): ("prior", "the pilot's m, read with --pilot-ranks into p(r)",
                          "width_sample_size"),
}


class Row(NamedTuple):
    """One option of one command: the function it goes to, its keyword there, and why it
    differs from the option (empty where it is the option's name)."""

    command: str
    option: str
    function: str
    keyword: str | None
    reason: str


def _function(path: str):
    module, name = path.split(":")
    return getattr(importlib.import_module(f"sampled_metrics.{module}"), name)


def _keywords(command: str) -> list[tuple[str, list[str]]]:
    """(function name, its parameters) for each function ``command`` calls."""
    return [(path.split(":")[1], list(inspect.signature(_function(path)).parameters))
            for path in CALLS[command]]


def vocabulary(parser=None) -> list[Row]:
    """Every option of every command (``--help`` aside), in the parser's order, with the
    library keyword it is passed as: its own name, or the plural of a comma-separated
    option's, in the first function of :data:`CALLS` that takes it; else
    :data:`EXCEPTIONS`' entry. An option that is neither has keyword None and no reason."""
    if parser is None:
        from .main import build_parser
        parser = build_parser()
    rows = []
    for command, sub in parser._subparsers._group_actions[0].choices.items():
        functions = _keywords(command)
        for action in sub._actions:
            dest = action.dest
            if dest == "help":
                continue
            option = max(action.option_strings, key=len, default=action.metavar or dest)
            found = next(((f, k) for f, params in functions for k in (dest, dest + "s")
                          if k in params), None)
            exception = EXCEPTIONS.get((command, dest), EXCEPTIONS.get(("*", dest)))
            if found is not None and exception is None:
                rows.append(Row(command, option, found[0], found[1], ""))
            elif exception is not None:
                keyword, reason, *named = exception
                function = next((f for f, params in functions if keyword in params
                                 and (not named or f in named)), "")
                rows.append(Row(command, option, function, keyword, reason))
            else:
                rows.append(Row(command, option, "", None, ""))
    return rows
