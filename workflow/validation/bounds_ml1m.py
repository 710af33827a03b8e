"""Validate `sampled-metrics bound` on the ML-1M study (exact ranks known).

    snakemake --cores 2 results/ml-1m/ranks/X.npz results/ml-1m/ranks/Y.npz \
        results/ml-1m/ranks/Z.npz results/ml-1m-all/ranks/X.npz results/ml-1m-all/ranks/Z.npz \
        --configfile config/offline.yaml
    python workflow/validation/bounds_ml1m.py       # -> results/ml-1m/bounds_validation.*
    python workflow/validation/bounds_ml1m.py --ranks-dir results/ml-1m-all/ranks \
        --recommenders X,Z --m 99 --out results/ml-1m-all/bounds_validation

For every recommender and repeat, the sampled means of growing sets of metrics (hr@10; + ndcg@10;
+ @1, @5; + @20; + ndcg, mrr) give an interval for the exact Recall@10 and NDCG@10, with and
without the non-increasing shape (sampled_metrics.workflow.steps.bounds_study). Not a rule of the
workflow (a few minutes on one core for 100 repeats).
"""
import argparse
import logging

from sampled_metrics.workflow.steps.bounds_study import validation

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ranks-dir", default="results/ml-1m/ranks")
parser.add_argument("--dataset", help="label of the rows (default: the ranks folder's parent)")
parser.add_argument("--recommenders", default="X,Y,Z")
parser.add_argument("--m", type=int, default=100)
parser.add_argument("--repeats", type=int, help="first N repeats only")
parser.add_argument("--level", type=float, default=0.95)
parser.add_argument("--out", default="results/ml-1m/bounds_validation")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
dataset = args.dataset or args.ranks_dir.rstrip("/").split("/")[-2]
validation({r: f"{args.ranks_dir}/{r}.npz" for r in args.recommenders.split(",")}, args.m,
           args.out, dataset=dataset, level=args.level,
           repeats=None if args.repeats is None else range(args.repeats))
