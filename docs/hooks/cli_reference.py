"""MkDocs hook: the command-line reference page shows the ``--help`` of every command as
the installed program prints it (so the page cannot drift from the behaviour)."""
from __future__ import annotations

MARKER = "<!-- command-line help -->"


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if MARKER not in markdown:
        return markdown
    from sampled_metrics.cli import build_parser
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    parts = [f"## `sampled-metrics`\n\n```text\n{parser.format_help()}```\n"]
    for name, sub in commands.items():
        parts.append(f"## `sampled-metrics {name}`\n\n```text\n{sub.format_help()}```\n")
    return markdown.replace(MARKER, "\n".join(parts))
