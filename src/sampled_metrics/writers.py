"""The table writers: a frame as a GitHub-flavoured Markdown table, a booktabs LaTeX table or
a standalone HTML page. The command line (``--format markdown`` / ``latex``) and the
workflow's report render their tables through them.

Floats are written with ``float_format``, other cells as text. LaTeX and HTML cells are
escaped unless ``escape=False`` (cells already marked up: bold, superscripts).

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"model": ["A_1"], "recall@10": [0.0812]})
>>> print(render_markdown(frame), end="")
| model | recall@10 |
|---|---|
| A_1 | 0.081 |
>>> print(render_latex(frame, align="lr"), end="")
\\begin{table}[t]
\\centering
\\begin{tabular}{lr}
\\toprule
model & recall@10 \\\\
\\midrule
A\\_1 & 0.081 \\\\
\\bottomrule
\\end{tabular}
\\end{table}
"""
from __future__ import annotations

import html

import pandas as pd

__all__ = ["render_markdown", "render_latex", "render_html", "latex_escape"]


def _cells(df: pd.DataFrame, float_format: str) -> list[list[str]]:
    out = []
    for row in df.itertuples(index=False):
        out.append([float_format.format(v) if isinstance(v, float) else str(v) for v in row])
    return out


#: LaTeX's special characters, each as text
_LATEX = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
          "$": r"\$", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", "±": r"$\pm$"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters written as text, in one pass.

    >>> print(latex_escape("A_1 & 50% ± {x}"))
    A\\_1 \\& 50\\% $\\pm$ \\{x\\}
    """
    return "".join(_LATEX.get(c, c) for c in text)


def render_markdown(df: pd.DataFrame, float_format: str = "{:.3f}", title: str | None = None,
                    note: str | None = None) -> str:
    """A GitHub-flavoured Markdown table of ``df`` (columns as header)."""
    header = [str(c) for c in df.columns]
    lines = [f"**{title}**", ""] if title else []
    lines += ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in _cells(df, float_format)]
    if note:
        lines += ["", note]
    return "\n".join(lines) + "\n"


def render_latex(df: pd.DataFrame, float_format: str = "{:.3f}", caption: str | None = None,
                 *, escape: bool = True, align: str | None = None) -> str:
    """A booktabs LaTeX table of ``df`` (``\\usepackage{booktabs}``): the header escaped,
    the cells escaped unless ``escape=False``, the columns aligned by ``align`` (one of
    ``l``, ``c``, ``r`` per column; default all ``l``), the caption below."""
    cols = align or "l" * df.shape[1]
    if len(cols) != df.shape[1] or set(cols) - set("lcr"):
        raise ValueError(f"align must give l, c or r for each of the {df.shape[1]} columns, "
                         f"got {cols!r}")
    cell = latex_escape if escape else str
    lines = [r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
             " & ".join(latex_escape(str(c)) for c in df.columns) + r" \\", r"\midrule"]
    lines += [" & ".join(cell(c) for c in row) + r" \\" for row in _cells(df, float_format)]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption) if escape else caption}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def render_html(df: pd.DataFrame, float_format: str = "{:.3f}", title: str | None = None,
                note: str | None = None, *, escape: bool = True) -> str:
    """A standalone HTML page of ``df`` (columns as header; the title above, the note below),
    as the workflow's report shows a table; cells escaped unless ``escape=False``."""
    def esc(text) -> str:
        return html.escape(str(text))
    cell = esc if escape else str
    head = "".join(f"<th>{esc(c)}</th>" for c in df.columns)
    rows = "\n".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>"
                     for row in _cells(df, float_format))
    parts = [f"<h3>{esc(title)}</h3>" if title else "",
             f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>",
             f"<p>{esc(note)}</p>" if note else ""]
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>"
            "body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse} "
            "th,td{border-bottom:1px solid #ddd;padding:2px 8px;text-align:right;"
            "white-space:nowrap} th{background:#f4f4f4}"
            "</style></head><body>\n" + "\n".join(x for x in parts if x) + "\n</body></html>\n")
