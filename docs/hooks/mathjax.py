"""MkDocs hook: the site serves MathJax itself (no CDN: the site works offline). The script
and its licence come from the installed ``django-static-mathjax`` package (the `docs` extra;
MathJax 3.2.2's own build, no Django needed), copied into the site at build time; mkdocs.yml
loads the configuration (docs/javascripts/mathjax.js) and then this script."""
from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

TARGET = "assets/mathjax"
# one file with every TeX extension built in, SVG output: nothing else to fetch at run time
SCRIPT = "tex-svg-full.js"


def on_files(files, config, **kwargs):
    try:
        import mathjax
    except ImportError:
        raise PluginError("MathJax is missing: pip install -e '.[docs]' "
                          "(it brings django-static-mathjax)") from None
    root = Path(mathjax.__file__).parent / "static" / "mathjax"
    for src, dest in ((root / "es5" / SCRIPT, SCRIPT), (root / "LICENSE", "LICENSE")):
        files.append(File.generated(config, f"{TARGET}/{dest}", abs_src_path=str(src)))
    return files
