"""MkDocs hook: the evaluators page lists every entry of the library's evaluator catalogue
as the installed package holds it (so the page cannot drift from the registry)."""
from __future__ import annotations

MARKER = "<!-- evaluator catalogue -->"


def _entry(e) -> str:
    rows = [("negatives", f"{e.negatives}, {e.draws.replace('_', ' ')}"), ("pool", e.pool),
            ("the positive drawn as a negative", e.self_draw),
            ("duplicates", e.duplicates), ("ties", e.ties), ("averaged per", e.unit),
            ("corrected under", f"`{e.sampling}`" if e.sampling else f"no correction: "
                                                                     f"{e.refused}")]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    code = "\n".join(f"- `{ref}`" for ref in e.code)
    metrics = "\n".join(f"- {own}: {definition}"
                        + (f" (the project's `{ours}`)" if ours else " (no project metric: "
                           "its own definition)") for own, ours, definition in e.metrics)
    notes = f"\n{e.notes[0].upper()}{e.notes[1:]}.\n" if e.notes else ""
    return (f"### `{e.name}`: {e.title}\n\n| | |\n|---|---|\n{table}\n\n"
            f"Read from:\n\n{code}\n\nMetrics:\n\n{metrics}\n{notes}")


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if MARKER not in markdown:
        return markdown
    from sampled_metrics.evaluators import EVALUATORS
    return markdown.replace(MARKER, "\n".join(_entry(e) for e in EVALUATORS.values()))
