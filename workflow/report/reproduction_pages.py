"""The reproduction pages of the documentation, generated from the result files.

    python workflow/report/reproduction_pages.py            # -> docs/reproduction/*.md
    python workflow/report/reproduction_pages.py --check    # exit 1 if a page is stale

A page's figures ({{ figure figures/NAME.png }}) are copied from the run to
docs/reproduction/figures/ and checked byte for byte with the pages.

The README's headline numbers (between its "summary" markers) come from
workflow/report/readme.md the same way.

Each template in workflow/report/pages/ is Markdown whose numbers are directives over files
in results/ (sampled_metrics.workflow.steps.pages). The files come from, in this order:

    snakemake --cores all --configfile config/reproduction.yaml
    snakemake --cores all --configfile config/reproduction.yaml config/jin-as-run.yaml
    python workflow/validation/compare_ml1m.py      (and bounds_ml1m, mapping_ml1m,
    python workflow/ablations/ablation_itemknn.py    adaptive_ml1m, recbole_law,
                                                     interval_coverage, interval_coverage_ml1m)

(add the dataset's local archive config, e.g. config/offline.yaml, to both snakemake lines).
"""
import argparse
import sys
from pathlib import Path

from sampled_metrics.workflow.steps.pages import PageError, fill_region, render_pages
from sampled_metrics.workflow.tables import atomic_write_text

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--templates", default="workflow/report/pages", type=Path)
parser.add_argument("--out", default="docs/reproduction", type=Path)
parser.add_argument("--root", default=".", type=Path,
                    help="the directory the templates' result paths are relative to")
parser.add_argument("--readme", default="README.md", type=Path)
parser.add_argument("--readme-template", default="workflow/report/readme.md", type=Path)
parser.add_argument("--check", action="store_true",
                    help="write nothing; list the pages that differ from a fresh rendering")
args = parser.parse_args()
templates = sorted(args.templates.glob("*.md"))
try:
    readme = args.readme.read_text()
    summary = fill_region(readme, "summary", args.readme_template, args.root)
    pages = render_pages(templates, args.out, args.root, check=args.check)
except PageError as err:
    sys.exit(f"reproduction_pages: {err}")
if summary != readme:
    if args.check:
        pages.append(args.readme)
    else:
        atomic_write_text(args.readme, summary)
if args.check:
    for page in pages:
        print(f"stale: {page}")
    sys.exit(1 if pages else 0)
print(f"{len(pages)} pages -> {args.out}; {args.readme}: summary "
      f"{'updated' if summary != readme else 'unchanged'}")
