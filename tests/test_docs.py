"""The documentation site builds with no warning (strict), its command-line page shows the
program's own help, every page in the navigation exists, the API pages show no raw
reStructuredText and no formula left in ASCII, and in a browser (headless Chromium) its
maths, the API pages' too, is typeset and its figures load. The site is built once for all
of them."""
import json
import os
import re
import shutil
import subprocess
import sys
from html import unescape

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow
pytest.importorskip("mkdocs", reason="the docs extra (mkdocs) is not installed")

REQUIRE_CHROMIUM = "SAMPLED_METRICS_REQUIRE_CHROMIUM"
#: what the API pages must not show: a reST role or a reST literal's double backticks
REST_MARKUP = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj):|``")
#: a docstring formula left in ASCII: r~, M^(, A^T, sum_r
ASCII_FORMULA = re.compile(r"\b[A-Za-z]~|\b[A-Za-z]\^[(_ ]|\^T\b|\bsum_")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", COLUMNS="100")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_site_builds_strictly(site):
    cli = (site / "cli" / "index.html").read_text()
    for command in ("correct", "estimate", "plan", "compare", "table", "bound"):
        assert f"sampled-metrics {command}" in cli, command
    assert (site / "assets" / "mathjax" / "tex-svg-full.js").stat().st_size > 1_000_000


def test_api_pages_show_no_rest_markup(site):
    pages = sorted((site / "api").glob("*/index.html"))
    assert len(pages) >= 10
    for page in pages:
        html = page.read_text()
        found = [html[max(0, m.start() - 80):m.end() + 40] for m in REST_MARKUP.finditer(html)]
        assert not found, f"{page.parent.name}: {found[:3]}"
    compare = (site / "api" / "compare" / "index.html").read_text()
    assert "<dt><code>difference</code></dt>" in compare           # an aligned term list
    metrics = (site / "api" / "metrics" / "index.html").read_text()
    assert r'<th>needs <span class="arithmatex">\(n\)</span></th>' in metrics  # a reST table
    assert 'class="autorefs autorefs-internal"' in metrics          # a role made a link
    for section in ("Parameters:", "Returns:", "Examples:"):
        assert f'<span class="doc-section-title">{section}</span>' in unescape(
            (site / "api" / "intervals" / "index.html").read_text()), section


def _prose(html: str) -> str:
    """The text of a page's article outside code, preformatted blocks and formulas."""
    html = re.sub(r'(?s)<(script|pre|code)\b.*?</\1>|<span class="arithmatex">.*?</span>',
                  " ", html)
    return unescape(re.sub(r"<[^>]+>", "", html[html.find("<article"):html.find("</article>")]))


def test_api_pages_typeset_their_formulas(site):
    """The docstrings' ASCII formulas reach the API pages as TeX for MathJax, as the guide's
    formulas do: none is left in the prose, and the notation reads as the papers write it."""
    for page in sorted((site / "api").glob("*/index.html")):
        html = page.read_text()
        left = [m.string[max(0, m.start() - 60):m.end() + 40]
                for m in ASCII_FORMULA.finditer(_prose(html))]
        assert not left, f"{page.parent.name}: {left[:3]}"
        assert html.count('<span class="arithmatex">') >= 10, page.parent.name
    formulas = re.findall(r'<span class="arithmatex">\\\((.*?)\\\)</span>',
                          unescape((site / "api" / "corrections" / "index.html").read_text()))
    for tex in (r"\hat{M}(\tilde{r})", r"(A^\top A)^{+} A^\top b", r"\sum_{r} p(r)"):
        assert any(tex in f for f in formulas), tex


def test_ascii_formulas_become_tex():
    """The notation of the docstrings as TeX (docs/hooks/ascii_math.py), and the words and
    names around it left alone."""
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    try:
        from ascii_math import typeset
    finally:
        sys.path.remove(str(ROOT / "docs" / "hooks"))
    cases = {
        "the sampled rank r~": r"the sampled rank $\tilde{r}$",
        "M^(r~) = M_{m+1}(r~)": r"$\hat{M}(\tilde{r}) = M_{m + 1}(\tilde{r})$",
        "A^T A is singular": r"$A^\top A$ is singular",
        "E[M(r~) | r] = sum_{r~=1}^{m+1} p(r~ | r)":
            r"$\mathbb{E}[M(\tilde{r}) \mid r] = \sum_{\tilde{r} = 1}^{m + 1} p(\tilde{r} \mid r)$",
        "theta_r^(r~-1), gamma -> 0": r"$\theta_{r}^{\tilde{r} - 1}, \gamma \to 0$",
        "r~ in 1..m+1 (eq. 8)": r"$\tilde{r} \in 1,\ldots,m + 1$ (eq. 8)",
        "A correction is a vector": "A correction is a vector",
        "top-K of n_values[j], e.g. recall@10": "top-K of n_values[j], e.g. recall@10",
        "see sampled_metrics.corrections.mapping": "see sampled_metrics.corrections.mapping",
    }
    assert {text: typeset(text) for text in cases} == cases


# After MathJax has typeset the page (or failed to load), the probe writes what the page shows
# into <body data-probe>, which `chromium --dump-dom` prints.
PROBE = """<script>
window.addEventListener("load", () => {
  const done = () => { document.body.dataset.probe = JSON.stringify({
    math: document.querySelectorAll("mjx-container").length,
    errors: document.querySelectorAll("mjx-merror").length,
    images: Array.from(document.images, (i) => [i.getAttribute("src"), i.naturalWidth])}); };
  (window.MathJax && MathJax.startup ? MathJax.startup.promise : Promise.resolve())
    .then(done, done);
});
</script>"""
#: the pages shown: (page, needs typeset maths, needs a figure)
PAGES = [("", True, False), ("guide/correcting", True, False),
         ("reproduction/ml-1m-study", True, True), ("api/compare", True, False),
         ("api/corrections", True, False), ("design", True, False)]


def _chromium():
    browser = shutil.which("chromium")
    if browser is None:
        reason = "no chromium on PATH (Debian: apt-get install chromium)"
        if os.environ.get(REQUIRE_CHROMIUM) == "1":
            pytest.fail(f"{REQUIRE_CHROMIUM}=1 but {reason}")
        pytest.skip(reason)
    return browser


def _run(browser, tmp_path, *args) -> str:
    # --no-sandbox: CI runs as root; the profile in tmp_path keeps the runs independent
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                           "--hide-scrollbars", "--virtual-time-budget=15000", *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.parametrize("page, maths, figure", PAGES, ids=[p or "home" for p, _, _ in PAGES])
def test_page_in_chromium(site, tmp_path, page, maths, figure):
    browser = _chromium()
    html = site / page / "index.html"
    probe = html.with_name("probe.html")              # beside the page: same relative links
    probe.write_text(html.read_text().replace("</body>", PROBE + "</body>"))
    shot = tmp_path / f"{page.replace('/', '_') or 'home'}.png"
    dom = _run(browser, tmp_path, "--window-size=1280,2000", f"--screenshot={shot}",
               "--dump-dom", probe.as_uri())
    found = re.search(r'data-probe="([^"]*)"', dom)
    assert found, f"{page}: the probe did not run"
    shown = json.loads(unescape(found.group(1)))
    assert shot.stat().st_size > 20_000, "a blank screenshot"
    assert shown["errors"] == 0, f"{page}: {shown['errors']} TeX errors"
    if maths:
        assert shown["math"] > 0, f"{page}: no formula typeset"
    assert all(width > 0 for _, width in shown["images"]), f"{page}: {shown['images']}"
    if figure:
        assert any("figures/" in src for src, _ in shown["images"]), shown["images"]
