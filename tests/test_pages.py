"""Reproduction pages are generated from result files (sampled_metrics.workflow.steps.pages): the
directives pick, pivot and format real rows, refuse what they cannot render, and the
committed pages are the rendering of their templates."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT

from sampled_metrics.workflow.steps.pages import (GENERATED_NOTE, PageError, fill_region, render_page,
                                         render_pages)

TEMPLATES = ROOT / "workflow" / "report" / "pages"
PAGES = ROOT / "docs" / "reproduction"


@pytest.fixture()
def root(tmp_path):
    pd.DataFrame({
        "recommender": ["X", "X", "X", "Y", "Y", "Y"],
        "method": ["exact", "cls", "bv_0.1"] * 2,
        "mean": [0.08, 0.0836, 0.0654, 0.0884, 0.0828, 0.07],
        "std": [0.0, 0.0017, 0.0026, 0.0, 0.0015, 0.0024],
    }).to_csv(tmp_path / "t3.csv", index=False)
    (tmp_path / "t4.md").write_text("**caption**\n\n| pair | method | correct | paper |\n"
                                    "|---|---|---|---|\n| X vs Y | cls | 31 | 31 |\n"
                                    "| X vs Y | bv_0.1 | 91 | 93 |\n")
    (tmp_path / "info.json").write_text('{"users": 6040, "items": [1, 2]}')
    return tmp_path


def test_value_formats_the_one_matching_row(root):
    text = "Y: {{ value t3.csv recommender=Y method=cls cell=\"{mean_pct:.2f}±{std_pct:.2f}\" }}"
    assert render_page(text, root) == "Y: 8.28±0.15"
    assert render_page('{{ value info.json cell="{users:,}" }}', root) == "6,040"


def test_span_and_relative_to_exact(root):
    # CLS: 0.0836 / 0.08 - 1 = +4.5 %, 0.0828 / 0.0884 - 1 = -6.3 %
    text = '{{ span t3.csv method=cls rel=method:exact cell="{rel_pct:+.1f}" }}'
    assert render_page(text, root) == "-6.3 to +4.5"
    assert render_page('{{ span t3.csv method=exact cell="{mean:.2f}" sep=".." }}',
                       root) == "0.08..0.09"


def test_pivot_makes_one_row_per_key_and_orders_columns(root):
    out = render_page('{{ pivot t3.csv rows=recommender cols=method '
                      'cell="{mean_pct:.2f}" order=cls,exact }}', root)
    assert out.splitlines() == ["| recommender | cls | exact | bv_0.1 |", "|---|---|---|---|",
                                "| X | 8.36 | 8.00 | 6.54 |", "| Y | 8.28 | 8.84 | 7.00 |"]


def test_table_reads_markdown_cells_as_written(root):
    out = render_page("{{ table t4.md method=bv_0.1 columns=pair,correct,paper }}", root)
    assert out.splitlines()[-1] == "| X vs Y | 91 | 93 |"


@pytest.mark.parametrize("directive, message", [
    ("{{ value missing.csv cell=x }}", "no such result file"),
    ("{{ value t3.csv method=cls cell=\"{mean}\" }}", "2 rows match, expected one"),
    ("{{ value t3.csv method=mle cell=\"{mean}\" }}", "no row matches"),
    ("{{ value t3.csv model=X cell=\"{mean}\" }}", "no column 'model'"),
    ("{{ value t3.csv recommender=X method=cls cell=\"{median}\" }}", "KeyError('median')"),
    ("{{ chart t3.csv }}", "KIND one of"),
    ("{{ pivot t3.csv rows=recommender cell=x }}", "pivot needs"),
    ("{{ pivot t3.csv rows=method cols=method cell=x }}", "two rows for"),
    ("{{ value t3.csv recommender }}", "is not name=value"),
])
def test_bad_directives_name_what_is_wrong(root, directive, message):
    with pytest.raises(PageError, match=re.escape(message)):
        render_page(directive, root)


def test_a_failing_page_leaves_every_page_as_it_was(root, tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "a.md").write_text('{{ value t3.csv recommender=X method=cls cell="{mean}" }}')
    (templates / "b.md").write_text('{{ value t3.csv method=mle cell="{mean}" }}')
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.md").write_text("old")
    with pytest.raises(PageError, match="b.md"):
        render_pages(sorted(templates.glob("*.md")), out, root)
    assert (out / "a.md").read_text() == "old" and not (out / "b.md").exists()
    (templates / "b.md").unlink()
    assert render_pages([templates / "a.md"], out, root, check=True) == [out / "a.md"]
    render_pages([templates / "a.md"], out, root)
    assert render_pages([templates / "a.md"], out, root, check=True) == []
    assert (out / "a.md").read_text().endswith("0.0836")


def test_a_figure_is_copied_beside_its_page_and_checked(root, tmp_path):
    (root / "figures").mkdir()
    (root / "figures" / "f.png").write_bytes(b"png 1")
    template = tmp_path / "p.md"
    template.write_text('{{ figure figures/f.png alt="Our figure" }}')
    out = tmp_path / "out"
    written = render_pages([template], out, root)
    assert written == [out / "p.md", out / "figures" / "f.png"]
    assert (out / "p.md").read_text().endswith("![Our figure](figures/f.png)")
    assert (out / "figures" / "f.png").read_bytes() == b"png 1"
    assert render_pages([template], out, root, check=True) == []
    (root / "figures" / "f.png").write_bytes(b"png 2")             # a new run's figure
    assert render_pages([template], out, root, check=True) == [out / "figures" / "f.png"]
    with pytest.raises(PageError, match="no such figure"):
        render_page("{{ figure figures/g.png }}", root)
    with pytest.raises(PageError, match="a figure takes alt= only"):
        render_page("{{ figure figures/f.png cell=x }}", root)


def test_every_reproduction_page_is_generated_from_its_template():
    pages = sorted(p.name for p in PAGES.glob("*.md"))
    assert pages == sorted(p.name for p in TEMPLATES.glob("*.md"))
    for name in pages:
        first = (PAGES / name).read_text().splitlines()[0] + "\n"
        assert first == GENERATED_NOTE.format(template=f"workflow/report/pages/{name}"), name
    # the figures beside the pages are those the templates name, and no others
    named = {m.group(1) for t in TEMPLATES.glob("*.md")
             for m in re.finditer(r"\{\{\s*figure\s+(\S+)", t.read_text())}
    assert {p.relative_to(PAGES).as_posix() for p in (PAGES / "figures").rglob("*")
            if p.is_file()} == named


def test_a_region_is_filled_between_its_markers_and_only_there(root, tmp_path):
    template = tmp_path / "summary.md"
    template.write_text('X: {{ value t3.csv recommender=X method=exact cell="{mean_pct:.1f}" }} %')
    doc = "intro\n<!-- begin summary: old -->\nstale\n<!-- end summary -->\noutro\n"
    out = fill_region(doc, "summary", template, root)
    assert out.startswith("intro\n<!-- begin summary: generated from ")
    assert out.endswith("-->\nX: 8.0 %\n<!-- end summary -->\noutro\n")
    assert fill_region(out, "summary", template, root) == out
    with pytest.raises(PageError, match="no region 'summary'"):
        fill_region("no markers", "summary", template, root)
    # a failing directive names its template, as in render_pages
    template.write_text('{{ value t3.csv method=mle cell="{mean}" }}')
    with pytest.raises(PageError, match=r"summary\.md: .*no row matches"):
        fill_region(doc, "summary", template, root)


def test_readme_summary_is_generated():
    readme = (ROOT / "README.md").read_text()
    assert ("<!-- begin summary: generated from workflow/report/readme.md by "
            "workflow/report/reproduction_pages.py -->") in readme


@pytest.mark.parametrize("template", [*sorted(TEMPLATES.glob("*.md")),
                                      TEMPLATES.parent / "readme.md"], ids=lambda p: p.name)
def test_templates_type_no_number_into_a_table(template):
    """Table rows of a template hold directives or words, never a typed number: the numbers
    of a reproduction page's tables all come from result files."""
    for line in template.read_text().splitlines():
        if line.startswith("|"):
            assert not re.search(r"\d", line), line


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SAMPLED_METRICS_RESULTS"),
                    reason="set SAMPLED_METRICS_RESULTS to a directory holding a full run's "
                           "results/ to check the committed pages against it")
def test_committed_pages_are_the_rendering_of_the_results():
    out = subprocess.run([sys.executable, "workflow/report/reproduction_pages.py", "--check",
                          "--root", os.environ["SAMPLED_METRICS_RESULTS"]],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
