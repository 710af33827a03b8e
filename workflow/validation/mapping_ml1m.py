"""Li et al.'s mapping beside KDD'20's corrections on the ML-1M study (exact ranks known).

    python workflow/validation/mapping_ml1m.py     # -> results/ml-1m/mapping_comparison.{csv,md}

Table 3's layout (mean and standard deviation over the repeats, per recommender and metric)
for the exact metric, the uncorrected sampled one, rank_estimate, cls, bv_0.1 and mapping,
each correction for each user's own n_u (as Table 3), from the study's rank files
(results/ml-1m/ranks/X,Y,Z.npz, see bounds_ml1m.py for the snakemake command). Not a rule.
"""
import argparse
import logging

from sampled_metrics.evaluation.rankfile import read_rank_file
from sampled_metrics.workflow.steps.kdd_study import per_repeat_frame, table3_frame
from sampled_metrics.workflow.tables import atomic_write_text, percent, render_markdown, write_csv

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ranks-dir", default="results/ml-1m/ranks")
parser.add_argument("--recommenders", default="X,Y,Z")
parser.add_argument("--m", type=int, default=100)
parser.add_argument("--metric", default="recall@10,ndcg@10,ap,auc")
parser.add_argument("--correction", default="sampled,rank_estimate,cls,bv_0.1,mapping")
parser.add_argument("--out", default="results/ml-1m/mapping_comparison")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
files = {r: read_rank_file(f"{args.ranks_dir}/{r}.npz") for r in args.recommenders.split(",")}
table = table3_frame(per_repeat_frame("ml-1m", files, args.m, args.metric.split(","),
                                      args.correction.split(",")))
write_csv(table, f"{args.out}.csv")
cells = table.assign(cell=[percent(a, b) for a, b in zip(table["mean"], table["std"])])
wide = cells.pivot_table(index=["metric", "recommender"], columns="method", values="cell",
                         aggfunc="first", sort=False).reset_index()
atomic_write_text(f"{args.out}.md", render_markdown(
    wide, note=f"Percent, mean ± sd over the repeats (m = {args.m}, per-user n_u)."))
