"""Documentation pages whose numbers come from result files, never typed by hand.

A page template is Markdown with directives ``{{ KIND PATH OPTION... }}``; each is replaced
by text built from one result file (a CSV, a Markdown table as the workflow writes them, or a
JSON object), so regenerating a page after a new run changes its numbers and nothing else.

==========  ===============================================================================
KIND        replaced by
==========  ===============================================================================
``table``   the rows of the file as a Markdown table (``columns=`` picks and orders them)
``pivot``   a wide table: one row per value of the ``rows=`` keys, one column per value of
            the ``cols=`` keys, each cell the ``cell=`` template over the matching row
``value``   the ``cell=`` template over the one matching row
``span``    ``"a to b"``: the least and largest ``cell=`` number over the matching rows
``figure``  a Markdown image of the figure file PATH (``alt=`` its text); :func:`render_pages`
            copies the file beside the page, under the same relative path
==========  ===============================================================================

Options are ``name=value`` words (quote a value with spaces: ``cell="{mean_pct:.2f}"``).
Any option that is not ``columns``, ``rows``, ``cols``, ``cell``, ``rel``, ``order``, ``sep``
or ``alt`` filters the rows: ``metric=recall@10`` keeps that value, ``method=cls,bv_0.1`` either.
A ``cell`` is a Python format string over the row's columns; each numeric column ``c`` also
has ``c_pct`` (100 c). ``rel=method:exact`` adds ``rel_pct`` = 100 (v / v_exact - 1), v the
row's ``mean`` (``rel=method:exact:COLUMN`` names another column) and v_exact the same column
in the row that agrees on every other text column and has ``method`` = ``exact``.
``order=a,b`` puts those values of the pivot's ``cols=`` key first, in that order; ``sep``
sets the word between a span's ends.

Examples
--------
>>> import pandas as pd, tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> pd.DataFrame({"recommender": ["X", "X"], "method": ["exact", "cls"],
...               "mean": [0.08, 0.09]}).to_csv(root / "t.csv", index=False)
>>> render_page('X: {{ value t.csv recommender=X method=cls cell="{mean_pct:.1f}" }} %', root)
'X: 9.0 %'
>>> render_page('{{ span t.csv method=cls rel=method:exact cell="{rel_pct:+.0f}" }}', root)
'+12'
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pandas as pd

from ...atomic import atomic_output
from ..tables import atomic_write_text

__all__ = ["PageError", "DIRECTIVE", "read_result", "render_page", "render_pages",
           "GENERATED_NOTE", "fill_region"]

DIRECTIVE = re.compile(r"\{\{(.*?)\}\}", re.S)
KINDS = ("table", "pivot", "value", "span", "figure")
OPTIONS = ("columns", "rows", "cols", "cell", "rel", "order", "sep", "alt")
GENERATED_NOTE = ("<!-- Generated from {template} by workflow/report/reproduction_pages.py; "
                  "edit the template, not this page. -->\n")
REGION_BEGIN = ("<!-- begin {name}: generated from {template} by "
                "workflow/report/reproduction_pages.py -->")
REGION_END = "<!-- end {name} -->"


class PageError(ValueError):
    """A directive that cannot be rendered: names the directive and what is wrong."""


def _read_markdown_table(path: Path) -> pd.DataFrame:
    """The first pipe table of a Markdown file, every cell as text."""
    rows = [line.strip() for line in path.read_text().splitlines() if line.startswith("|")]
    if len(rows) < 2:
        raise PageError(f"{path}: no Markdown table")
    split = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    header, body = split[0], [r for r in split[2:]]
    return pd.DataFrame(body, columns=header)


def read_result(path: Path) -> pd.DataFrame:
    """A result file as a frame: CSV, a Markdown table (text cells), or a JSON object (one
    row)."""
    if not path.is_file():
        raise PageError(f"{path}: no such result file (run the step that writes it first)")
    if path.suffix == ".md":
        return _read_markdown_table(path)
    if path.suffix == ".json":
        obj = json.loads(path.read_text())
        return pd.DataFrame([{k: v for k, v in obj.items() if not isinstance(v, (list, dict))}])
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _with_percent(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for col in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col]):
            out[f"{col}_pct"] = 100 * frame[col]
    return out


def _relative(frame: pd.DataFrame, spec: str) -> pd.DataFrame:
    """Add ``rel_pct`` = 100 (v / v_ref - 1) against the row with ``key`` = ``ref``."""
    parts = spec.split(":")
    if len(parts) not in (2, 3):
        raise PageError(f"rel={spec}: expected rel=COLUMN:VALUE[:NUMERIC_COLUMN]")
    key, ref, col = parts[0], parts[1], parts[2] if len(parts) == 3 else "mean"
    for c in (key, col):
        if c not in frame.columns:
            raise PageError(f"rel={spec}: no column {c!r}")
    text = [c for c in frame.columns
            if c != key and not pd.api.types.is_numeric_dtype(frame[c])]
    refs = frame[frame[key].astype(str) == ref][text + [col]].rename(columns={col: "_ref"})
    if refs.empty:
        raise PageError(f"rel={spec}: no row with {key} = {ref}")
    out = frame.merge(refs, on=text, how="left") if text else frame.assign(
        _ref=refs["_ref"].iloc[0])
    out["rel_pct"] = 100 * (out[col] / out["_ref"] - 1)
    return out.drop(columns="_ref")


def _parse(body: str) -> tuple[str, str, dict, dict]:
    try:
        words = shlex.split(body)
    except ValueError as err:
        raise PageError(f"{{{{{body}}}}}: {err}") from None
    if len(words) < 2 or words[0] not in KINDS:
        raise PageError(f"{{{{{body}}}}}: expected {{{{ KIND PATH OPTION... }}}} with KIND "
                        f"one of {', '.join(KINDS)}")
    options, filters = {}, {}
    for word in words[2:]:
        name, eq, value = word.partition("=")
        if not eq:
            raise PageError(f"{{{{{body}}}}}: {word!r} is not name=value")
        (options if name in OPTIONS else filters)[name] = value
    return words[0], words[1], options, filters


def _filter(frame: pd.DataFrame, filters: dict, where: str) -> pd.DataFrame:
    for name, value in filters.items():
        if name not in frame.columns:
            raise PageError(f"{where}: no column {name!r} (columns: {', '.join(frame.columns)})")
        frame = frame[frame[name].map(_label).isin(value.split(","))]
    if frame.empty:
        raise PageError(f"{where}: no row matches {filters}")
    return frame


def _cell(template: str, row: dict, where: str) -> str:
    try:
        return template.format(**row)
    except (KeyError, ValueError, IndexError) as err:
        raise PageError(f"{where}: cell={template!r}: {err!r}") from None


def _label(value) -> str:
    """A key or cell as text: integral floats (a column with a gap reads as float) as ints."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_label(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _ordered(values, order: list[str]) -> list:
    values = list(dict.fromkeys(values))
    ranked = [v for v in order if v in values]
    return ranked + [v for v in values if v not in ranked]


def _render(body: str, root: Path, files: dict, figures: list) -> str:
    kind, path, options, filters = _parse(body)
    where = f"{{{{{body.strip()}}}}}"
    if kind == "figure":
        if filters or set(options) - {"alt"}:
            raise PageError(f"{where}: a figure takes alt= only")
        if not (root / path).is_file():
            raise PageError(f"{root / path}: no such figure (run the step that draws it first)")
        figures.append(path)
        return f"![{options.get('alt', path)}]({path})"
    if path not in files:                          # each file read once per page
        files[path] = read_result(root / path)
    frame = files[path]
    if "rel" in options:
        frame = _relative(frame, options["rel"])
    frame = _with_percent(_filter(frame, filters, where))
    records = frame.to_dict("records")
    if kind == "table":
        cols = options.get("columns", ",".join(c for c in frame.columns
                                               if not c.endswith("_pct"))).split(",")
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise PageError(f"{where}: no column {missing[0]!r}")
        if "cell" in options:
            raise PageError(f"{where}: a table takes columns=, not cell=")
        return _markdown(cols, [[r[c] for c in cols] for r in records])
    if "cell" not in options:
        raise PageError(f"{where}: {kind} needs cell=\"...\"")
    template = options["cell"]
    if kind == "value":
        if len(records) != 1:
            raise PageError(f"{where}: {len(records)} rows match, expected one")
        return _cell(template, records[0], where)
    if kind == "span":
        values = [_cell(template, r, where) for r in records]
        try:
            numbers = [float(v.replace("−", "-")) for v in values]
        except ValueError:
            raise PageError(f"{where}: cell={template!r} does not give numbers") from None
        lo, hi = values[numbers.index(min(numbers))], values[numbers.index(max(numbers))]
        return lo if lo == hi else f"{lo}{options.get('sep', ' to ')}{hi}"
    # pivot
    row_keys = [k for k in options.get("rows", "").split(",") if k]
    col_keys = [k for k in options.get("cols", "").split(",") if k]
    if not row_keys or not col_keys:
        raise PageError(f"{where}: pivot needs rows=KEY[,KEY...] and cols=KEY[,KEY...]")
    for k in row_keys + col_keys:
        if k not in frame.columns:
            raise PageError(f"{where}: no column {k!r}")
    order = options.get("order", "").split(",")
    labels = [" ".join(_label(r[k]) for k in col_keys) for r in records]
    col_values = _ordered(labels, order)
    keys = list(dict.fromkeys(tuple(_label(r[k]) for k in row_keys) for r in records))
    cells = {}
    for r, label in zip(records, labels):
        at = (tuple(_label(r[k]) for k in row_keys), label)
        if at in cells:
            raise PageError(f"{where}: two rows for {dict(zip(row_keys, at[0]))}, "
                            f"{'/'.join(col_keys)} = {label}")
        cells[at] = _cell(template, r, where)
    rows = [list(key) + [cells.get((key, c), "") for c in col_values] for key in keys]
    return _markdown(row_keys + col_values, rows)


def render_page(template: str, root, figures: list | None = None) -> str:
    """``template`` with every directive replaced, paths read relative to ``root``; the
    paths of its figures are appended to ``figures``."""
    root = Path(root)
    files: dict = {}
    figures = [] if figures is None else figures
    return DIRECTIVE.sub(lambda match: _render(match.group(1), root, files, figures), template)


def _render_file(template: Path, root, figures: list | None = None) -> str:
    """:func:`render_page` of the template file ``template``; its errors name the file."""
    try:
        return render_page(template.read_text(), root, figures)
    except PageError as err:
        raise PageError(f"{template}: {err}") from None


def render_pages(templates, out_dir, root, check: bool = False) -> list[Path]:
    """Render each template file into ``out_dir`` under its own name.

    Returns the pages written, or with ``check`` the pages whose file differs from the
    rendering (nothing is written then). Every page is rendered before any is written, so a
    failing directive leaves the old pages as they were. A page's figures are copied to
    ``out_dir`` under their path relative to ``root`` (and checked byte for byte).
    """
    out_dir, root = Path(out_dir), Path(root)
    rendered, figures = {}, []
    for template in templates:
        template = Path(template)
        rendered[out_dir / template.name] = (GENERATED_NOTE.format(template=template)
                                             + _render_file(template, root, figures))
    copies = {out_dir / path: (root / path).read_bytes() for path in figures}
    if check:
        return ([p for p, text in rendered.items() if not p.is_file() or p.read_text() != text]
                + [p for p, data in copies.items() if not p.is_file() or p.read_bytes() != data])
    for path, text in rendered.items():
        atomic_write_text(path, text)
    for path, data in copies.items():
        with atomic_output(path, suffix=path.suffix) as tmp:
            tmp.write_bytes(data)
    return list(rendered) + list(copies)


def fill_region(document: str, name: str, template, root) -> str:
    """``document`` with the text between its markers ``<!-- begin NAME: ... -->`` and
    ``<!-- end NAME -->`` replaced by the rendering of ``template`` (a file); the markers
    stay. PageError if the document lacks them."""
    begin, end = f"<!-- begin {name}:", REGION_END.format(name=name)
    head, found, rest = document.partition(begin)
    _, found_end, tail = rest.partition(end)
    if not found or not found_end:
        raise PageError(f"no region {name!r}: expected the lines {begin} ... --> and {end}")
    template = Path(template)
    text = _render_file(template, root)
    marker = REGION_BEGIN.format(name=name, template=template)
    return f"{head}{marker}\n{text.strip()}\n{end}{tail}"
