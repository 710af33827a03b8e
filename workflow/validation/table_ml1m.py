"""Validate `sampled-metrics table` on the ML-1M study (exact ranks known).

    snakemake --cores all results/ml-1m/results_table.csv --configfile config/offline.yaml
    python workflow/validation/table_ml1m.py             # -> results/ml-1m/table_validation.*

Not a rule of the workflow (about half an hour on two cores for 100 repeats).
"""
import argparse
import logging

from sampled_metrics.workflow.steps.compare_study import table_validation

VARIANTS = "bv_0.1/maxstat,bv_0.1/holm,mes/maxstat,sampled/maxstat"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ranks-dir", default="results/ml-1m/ranks")
parser.add_argument("--recommenders", default="X,Y,Z,EASE,NeuMF,MultiVAE")
parser.add_argument("--m", type=int, default=100)
parser.add_argument("--metric", default="recall@10,ndcg@10,ap,auc")
parser.add_argument("--variants", default=VARIANTS,
                    help="verdict method/family-wise procedure, comma-separated")
parser.add_argument("--repeats", type=int, help="first N repeats only")
parser.add_argument("--processes", type=int, default=2)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--out", default="results/ml-1m/table_validation")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
table_validation({r: f"{args.ranks_dir}/{r}.npz" for r in args.recommenders.split(",")},
                 args.m, args.metric.split(","),
                 [tuple(v.split("/")) for v in args.variants.split(",")], args.out,
                 seed=args.seed, processes=args.processes,
                 repeats=None if args.repeats is None else range(args.repeats))
