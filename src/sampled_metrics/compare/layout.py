"""The results table as a researcher pastes it: one row per model (its letter, its name), one
column per metric, each cell the headline value in percent with its interval, the best per
metric marked, and the letters of the models it beats (as ranx prints them); and the one
caption line that says how the numbers were made. The cells are marked up for the
terminal, Markdown, LaTeX or HTML; :mod:`sampled_metrics.writers` renders them.

Examples
--------
>>> import numpy as np
>>> from sampled_metrics import draw_sampled_ranks
>>> from sampled_metrics.compare.table import results_table
>>> rng = np.random.default_rng(0)
>>> r = rng.geometric(0.01, 3000).clip(1, 2000)
>>> sampled = {name: draw_sampled_ranks(np.minimum(f * r, 2000), 2000, 100, rng=rng)
...            for name, f in [("B", 3), ("A", 1)]}
>>> cells, caption = results_cells(results_table(sampled, ["recall@10"], ["recommended"],
...                                              n=2000, m=100), "latex")
>>> cells.columns.tolist(), cells.model.tolist()
(['#', 'model', 'recall@10'], ['A', 'B'])
>>> [(x.startswith("\\\\textbf"), "$^{b}$" in x) for x in cells["recall@10"]]
[(True, True), (False, False)]
"""
from __future__ import annotations

import html

import pandas as pd

from ..intervals.recommended import RECOMMENDED
from ..registry import unknown_name
from ..writers import latex_escape, render_html, render_latex, render_markdown
from .table import ResultsTable

__all__ = ["STYLES", "DOCUMENTS", "results_cells", "results_caption", "results_document"]

#: the mark-ups of a cell
STYLES = ("text", "markdown", "latex", "html")
_PROCEDURES = {"maxstat": "max-statistic paired bootstrap, step-down",
               "holm": "Holm's step-down on the paired bootstrap"}


def _cell(value, low, high, best: bool, beats: str, style: str) -> str:
    """One cell: the value in percent (marked where best), the letters it beats, the
    interval."""
    if pd.isna(value):
        return "n/a"
    v, span = f"{100 * value:.2f}", f"[{100 * low:.2f}, {100 * high:.2f}]"
    if style == "text":
        return f"{v}{'*' if best else ''} {span}" + (f" >{beats}" if beats else "")
    if style == "markdown":
        return (f"**{v}**" if best else v) + (f"<sup>{beats}</sup>" if beats else "") \
            + f" {span}"
    if style == "latex":
        return (rf"\textbf{{{v}}}" if best else v) + (f"$^{{{beats}}}$" if beats else "") \
            + rf" {{\scriptsize {span}}}"
    return (f"<b>{v}</b>" if best else v) + (f"<sup>{beats}</sup>" if beats else "") \
        + f" {span}"


def results_cells(table: ResultsTable, style: str = "text") -> tuple[pd.DataFrame, str]:
    """The wide table of a :class:`~sampled_metrics.compare.table.ResultsTable`: columns
    ``#`` (the letter), ``model`` and one per metric, rows in table order; and its caption
    (:func:`results_caption`).

    Parameters
    ----------
    table : ResultsTable
    style : {'text', 'markdown', 'latex', 'html'}
        text: the best value starred, ``>bc`` for the models beaten; the others: bold and
        superscript letters, model names escaped for LaTeX and HTML.

    Returns
    -------
    (pandas.DataFrame of str, str)
    """
    if style not in STYLES:
        raise unknown_name("style", style, STYLES)
    rows = table.models[table.models.correction == table.headline]
    metrics = list(dict.fromkeys(rows.metric))
    best = rows.groupby("metric").value.max()
    name = {"latex": latex_escape, "html": html.escape}.get(style, str)
    out = {"#": [], "model": []}
    for metric in metrics:
        out[metric] = []
    for model, part in rows.groupby("model", sort=False):
        out["#"].append(part.letter.iloc[0])
        out["model"].append(name(str(model)))
        for row in part.itertuples():
            out[row.metric].append(_cell(row.value, row.ci_low, row.ci_high,
                                         row.value == best[row.metric], row.beats, style))
    return pd.DataFrame(out), results_caption(table, style)


#: the documents :func:`results_document` writes
DOCUMENTS = ("markdown", "latex", "html")


def results_document(table: ResultsTable, form: str) -> str:
    """The results table as a document to paste: ``markdown`` (the caption below),
    ``latex`` (booktabs: the letter and the values centred, the caption in ``\\caption``)
    or ``html`` (a standalone page, the caption below), from :func:`results_cells`."""
    if form not in DOCUMENTS:
        raise unknown_name("document", form, DOCUMENTS)
    cells, caption = results_cells(table, form)
    if form == "markdown":
        return render_markdown(cells, note=caption)
    if form == "latex":
        return render_latex(cells, caption=caption, escape=False,
                            align="cl" + "c" * (cells.shape[1] - 2))
    # the page escapes the caption itself: take it unescaped (the same words as Markdown's)
    return render_html(cells, note=results_caption(table, "markdown"), escape=False)


def results_caption(table: ResultsTable, style: str = "text") -> str:
    """The caption line: the metrics and what the headline value is, the sampling, the
    marks, the verdicts' method and the family-wise level."""
    metrics = ", ".join(dict.fromkeys(table.models.metric))
    level = f"{100 * table.level:g} %"
    if table.headline == RECOMMENDED:
        what = f"the full-ranking metric estimated from sampled ranks with its {level} interval"
    else:
        what = (f"the {table.headline} value with its {level} bootstrap interval (the users' "
                f"noise, not the correction's bias)")
    law = {"binomial": "drawn with replacement",
           "hypergeometric": "drawn without replacement"}[table.sampling]
    if table.m is not None:
        sample = f"m = {table.m:,} negatives {law} among n = {table.n:,} items"
    else:
        sample = f"each user's negatives and items as its rows give them, {law}"
    if table.evaluator:
        sample += f" ({table.evaluator})"
    marks = ("*: the best per metric; >letters" if style == "text"
             else "Bold: the best per metric; superscripts")
    k = table.models.model.nunique()
    text = (f"{metrics} in %: {what}; {sample}. {marks}: the models a model beats (the "
            f"{table.method} verdict, paired and bias-aware, at family-wise level {level} over "
            f"{len(table.pairs)} comparisons of {k * (k - 1) // 2} pairs, "
            f"{_PROCEDURES[table.familywise]}, {table.bootstrap:,} draws).")
    return {"latex": latex_escape, "html": html.escape}.get(style, str)(text)
