"""The literature table: published sampled results and their implied full-ranking intervals.

    python workflow/literature/literature_table.py
        # -> results/literature/{literature,orderings}.csv and docs/literature.md

Reads the curated values in workflow/literature/published_sampled.csv (one row per
published value, with its source and whether value and protocol were read in the paper's
text) and calls sampled_metrics.workflow.steps.literature.literature_tables.
"""
import argparse

from sampled_metrics.workflow.steps.literature import literature_tables

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--published", default="workflow/literature/published_sampled.csv")
parser.add_argument("--results", default="results/literature")
parser.add_argument("--docs", default="docs/literature.md")
args = parser.parse_args()
lit, orders = literature_tables(args.published, args.results, args.docs)
print(f"{lit.groupby(['paper', 'dataset', 'recommender']).ngroups} published results, "
      f"{len(orders)} ordering checks -> {args.results}, {args.docs}")
