"""Tidy CSV tables and their Markdown / LaTeX / HTML renderings (rendered from the CSV content
by :mod:`sampled_metrics.writers`, as the command line renders its tables)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from ..atomic import atomic_output
from ..writers import render_html, render_latex, render_markdown

__all__ = ["atomic_write_text", "write_csv", "write_json", "percent", "render_markdown",
           "render_latex", "render_html", "write_table", "write_validation"]


def atomic_write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and rename: never a partial file."""
    with atomic_output(path) as tmp:
        tmp.write_text(text, newline="\n")


def write_csv(df: pd.DataFrame, path, float_format: str = "%.10g") -> None:
    """Tidy CSV with a fixed float format (byte-identical for identical values)."""
    atomic_write_text(path, df.to_csv(index=False, float_format=float_format, lineterminator="\n"))


def write_json(obj, path) -> None:
    """``obj`` as indented JSON with sorted keys (byte-identical for equal content)."""
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def percent(mean: float, std: float | None = None) -> str:
    """A table cell in percent, ``'12.34±0.56'``; the mean alone when there is no spread
    (exact values, a single repeat)."""
    if std is None or std == 0 or not math.isfinite(std):
        return f"{100 * mean:.2f}"
    return f"{100 * mean:.2f}±{100 * std:.2f}"


def write_table(tidy: pd.DataFrame, csv_path, wide: pd.DataFrame | None = None,
                md_path=None, tex_path=None, float_format: str = "{:.3f}",
                title: str | None = None, note: str | None = None, html_path=None) -> None:
    """Write the tidy CSV, then render ``wide`` (default: the tidy frame re-read from the CSV)
    to Markdown, LaTeX and HTML (the report's rendering)."""
    write_csv(tidy, csv_path)
    shown = pd.read_csv(csv_path) if wide is None else wide
    if md_path:
        atomic_write_text(md_path, render_markdown(shown, float_format, title, note))
    if tex_path:
        atomic_write_text(tex_path, render_latex(shown, float_format, title))
    if html_path:
        atomic_write_text(html_path, render_html(shown, float_format, title, note))


def write_validation(out_stem, per_repeat: pd.DataFrame, summary: pd.DataFrame,
                     shown: pd.DataFrame, note: str) -> None:
    """The files of a validation over repeats: ``<out_stem>_per_repeat.csv`` (every repeat),
    ``<out_stem>.csv`` (the summary) and ``<out_stem>.md`` (``shown``, the summary as read,
    with ``note`` below it).

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "check"
    >>> frame = pd.DataFrame({"repeat": [0, 1], "value": [0.5, 0.25]})
    >>> write_validation(out, frame, frame.mean().to_frame().T, frame, "two repeats")
    >>> sorted(p.name for p in out.parent.iterdir())
    ['check.csv', 'check.md', 'check_per_repeat.csv']
    """
    out = Path(out_stem)
    write_csv(per_repeat, out.with_name(out.name + "_per_repeat.csv"))
    write_csv(summary, out.with_suffix(".csv"))
    atomic_write_text(out.with_suffix(".md"), render_markdown(shown, note=note))
