"""``sampled-metrics evaluators``: the evaluator catalogue, one line each, or one entry in
full (its code references and metrics)."""
from __future__ import annotations

from .inputs import add_format_option

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``evaluators`` sub-command to the ``sampled-metrics`` parser."""
    p = sub.add_parser("evaluators", help="the evaluators whose sampled numbers can be "
                       "corrected (--evaluator)",
                       description="List the evaluators --evaluator names: how each draws "
                                   "its negatives, breaks ties and averages; with NAME, one "
                                   "entry in full, with the code it was read from.")
    p.add_argument("name", nargs="?", help="one evaluator to show in full")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args):
    """The catalogue, or one entry as (field, value) rows."""
    import pandas as pd

    from ..evaluators.catalogue import EVALUATORS, get_evaluator

    if args.name is None:
        return pd.DataFrame({"evaluator": list(EVALUATORS),
                             "law": [e.summary() for e in EVALUATORS.values()]})
    e = get_evaluator(args.name)
    rows = [("title", e.title), ("negatives", e.negatives), ("draws", e.draws),
            ("pool", e.pool), ("self-draws", e.self_draw),
            ("duplicates", e.duplicates), ("ties", e.ties), ("unit", e.unit),
            ("corrected under", e.sampling or f"none: {e.refused}")]
    rows += [("notes", e.notes)] if e.notes else []
    rows += [("code", ref) for ref in e.code]
    rows += [(f"metric {own}", f"{ours or 'no project metric'}: {definition}")
             for own, ours, definition in e.metrics]
    return pd.DataFrame(rows, columns=["field", "value"])
