"""Validate `sampled-metrics compare` on the ML-1M study (exact ranks known).

    snakemake --cores 1 results/ml-1m/ranks/X.npz results/ml-1m/ranks/Y.npz \
        results/ml-1m/ranks/Z.npz --configfile config/offline.yaml
    python workflow/validation/compare_ml1m.py            # -> results/ml-1m/compare_validation.*

Not a rule of the workflow (a few minutes on one core for 100 repeats).
"""
import argparse
import logging

from sampled_metrics.workflow.steps.compare_study import validation

METHODS = "sampled,rank_estimate,cls,bv_1,bv_0.1,bv_0.01,bv_0.001,mn,mes"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ranks-dir", default="results/ml-1m/ranks")
parser.add_argument("--recommenders", default="X,Y,Z")
parser.add_argument("--m", type=int, default=100)
parser.add_argument("--metric", default="recall@10,ndcg@10,ap,auc")
parser.add_argument("--method", default=METHODS)
parser.add_argument("--bootstrap", type=int, default=1000)
parser.add_argument("--repeats", type=int, help="first N repeats only")
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--out", default="results/ml-1m/compare_validation")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
validation({r: f"{args.ranks_dir}/{r}.npz" for r in args.recommenders.split(",")}, args.m,
           args.metric.split(","), args.method.split(","), args.out, seed=args.seed,
           repeats=None if args.repeats is None else range(args.repeats),
           bootstrap=args.bootstrap)
