"""MkDocs hook: the command-line reference page shows the ``--help`` of every command as
the installed program prints it, and the Design page the table of every option and the
library keyword it is passed as (so neither can drift from the behaviour)."""
from __future__ import annotations

MARKER = "<!-- command-line help -->"
VOCABULARY_MARKER = "<!-- cli vocabulary table -->"


def vocabulary_table() -> str:
    """Every option of every command and the library keyword it is passed as
    (:func:`sampled_metrics.cli.vocabulary.vocabulary`: read from the parser and the
    functions' signatures), an option that is not the keyword with its reason."""
    from sampled_metrics.cli.vocabulary import vocabulary
    rows = ["| command | option | library function | keyword | why it differs |",
            "|---|---|---|---|---|"]
    for row in vocabulary():
        function = f"`{row.function}`" if row.function else ""
        keyword = f"`{row.keyword}`" if row.keyword else ""
        rows.append(f"| `{row.command}` | `{row.option}` | {function} | {keyword} | "
                    f"{row.reason} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    if VOCABULARY_MARKER in markdown:
        markdown = markdown.replace(VOCABULARY_MARKER, vocabulary_table())
    if MARKER not in markdown:
        return markdown
    from sampled_metrics.cli import build_parser
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    parts = [f"## `sampled-metrics`\n\n```text\n{parser.format_help()}```\n"]
    for name, sub in commands.items():
        parts.append(f"## `sampled-metrics {name}`\n\n```text\n{sub.format_help()}```\n")
    return markdown.replace(MARKER, "\n".join(parts))
