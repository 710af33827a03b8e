"""Adaptive sampling and MN on ML-1M against exact, beside KDD'20's and Jin et al.'s methods
at equal numbers of sampled items (needs the workflow's rank files, as compare_ml1m.py).

    python workflow/validation/adaptive_ml1m.py     # -> results/ml-1m/adaptive_equal_budget.*
"""
import argparse
import logging

from sampled_metrics.workflow.steps.adaptive_study import equal_budget

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ranks-dir", default="results/ml-1m/ranks")
parser.add_argument("--recommenders", default="X,Y,Z")
parser.add_argument("--sizes", default="100,200,400,800",
                    help="cumulative sizes (ML-1M: every user has >= 1,393 candidates)")
parser.add_argument("--repeats", type=int, default=10)
parser.add_argument("--metric", default="recall@1,recall@10,ndcg@10")
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--out", default="results/ml-1m/adaptive_equal_budget")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
equal_budget({r: f"{args.ranks_dir}/{r}.npz" for r in args.recommenders.split(",")},
             [int(s) for s in args.sizes.split(",")], args.repeats, args.metric.split(","),
             args.out, seed=args.seed)
