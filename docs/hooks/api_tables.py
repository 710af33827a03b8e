"""MkDocs hook: the Design page's table of the public API (each top-level name, its task and
its example, read from the installed package's docstrings) and its table of the registries
(every named method and sampling law, read from ``sampled_metrics.registry``), so neither can
drift."""
from __future__ import annotations

import re

from rest_docstrings import inline      # a sibling hook: MkDocs puts hooks/ on the path

API_MARKER = "<!-- api table -->"
REGISTRY_MARKER = "<!-- registry table -->"


def _example(name: str, doc: str) -> str:
    """The first line of a docstring's Examples that calls ``name`` (else the first line),
    continuation lines elided."""
    lines = [line.strip()[4:] for line in doc.split("Examples", 1)[-1].splitlines()
             if line.strip().startswith(">>> ")]
    first = next((line for line in lines if f"{name}(" in line), lines[0] if lines else "")
    if first.count("(") > first.count(")"):
        first = first.rstrip(", ") + ", ...)"
    return f"`{first}`" if first else ""


def _task(doc: str) -> str:
    """The docstring's first sentence, its reStructuredText roles and literals as Markdown
    code (as the API pages render them, :func:`rest_docstrings.inline`)."""
    text = " ".join(doc.strip().split("\n\n")[0].split())
    return inline(re.split(r"\.\s+(?=[A-Z])", text)[0].rstrip(".") + ".")


def api_table() -> str:
    import sampled_metrics as sm
    rows = ["| name | task | example |", "|---|---|---|"]
    for name in sm.__all__:
        doc = getattr(sm, name).__doc__ or ""
        task = _task(doc).replace("|", "\\|")
        rows.append(f"| `{name}` | {task} | {_example(name, doc).replace('|', chr(92) + '|')} |")
    return "\n".join(rows)


def registry_table() -> str:
    from sampled_metrics.registry import (COMPARE_METHODS, CORRECT_METHODS, CORRECTIONS,
                                          ESTIMATORS, SAMPLING_LAWS)
    rows = ["| registry | name | aliases | options | what |", "|---|---|---|---|---|"]
    for label, registry in (("`CORRECTIONS`", CORRECTIONS), ("`ESTIMATORS`", ESTIMATORS),
                            ("`COMPARE_METHODS`", COMPARE_METHODS),
                            ("`CORRECT_METHODS`", CORRECT_METHODS),
                            ("`SAMPLING_LAWS`", SAMPLING_LAWS)):
        own = registry._own         # the entries it adds to the registries it includes
        for e in own.values():
            rows.append(f"| {label} | `{e.label}` | {', '.join(e.aliases)} | "
                        f"{', '.join(e.options)} | {e.summary.replace('|', chr(92) + '|')} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if API_MARKER in markdown:
        markdown = markdown.replace(API_MARKER, api_table())
    if REGISTRY_MARKER in markdown:
        markdown = markdown.replace(REGISTRY_MARKER, registry_table())
    return markdown
