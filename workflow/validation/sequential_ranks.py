"""The rank file of a sequential recommender (a first-order Markov chain on each user's items
in time order; sampled_metrics.workflow.steps.sequential_ranks), for the intervals' validation:

    python workflow/validation/sequential_ranks.py --archive ml-1m.zip
    python workflow/validation/interval_coverage_ml1m.py    # reads results/ml-1m-sequential/ranks

Its next item is ranked among the user's unseen items, and 100 repeats of m = 100 negatives
are drawn with replacement from them, as SASRec's own evaluation draws. Not a rule of the
workflow (the split it builds keeps the users' order, which the workflow's does not).
"""
import argparse
import logging

from sampled_metrics.workflow.steps.sequential_ranks import sequential_rank_file

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--archive", required=True, help="the dataset archive (e.g. ml-1m.zip)")
parser.add_argument("--format", default="ml-1m", help="its format (config's datasets.<name>.format)")
parser.add_argument("--dataset", default="ml-1m-sequential", help="the rank file's dataset name")
parser.add_argument("--m", type=int, default=100)
parser.add_argument("--repeats", type=int, default=100)
parser.add_argument("--sampling", default="binomial", choices=["binomial", "hypergeometric"])
parser.add_argument("--alpha", type=float, default=10.0, help="popularity pseudo-counts")
parser.add_argument("--out", help="default results/<dataset>/ranks/MarkovChain.npz")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
out = args.out or f"results/{args.dataset}/ranks/MarkovChain.npz"
ranks = sequential_rank_file(args.archive, args.format, out, dataset=args.dataset, m=args.m,
                             repeats=args.repeats, sampling=args.sampling, alpha=args.alpha)
print(f"{out}: {ranks.users.size} users, hit@10 {(ranks.exact <= 10).mean():.4f} (exact)")
