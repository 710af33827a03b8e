"""Coverage of the recommended interval and of the other methods' intervals on a grid of
simulated evaluations whose true ranks are known (sampled_metrics.workflow.steps.interval_study).

    python workflow/validation/interval_coverage.py    # -> results/validation/interval_coverage.*

Not a rule of the workflow: about half an hour on 2 cores for the default grid (the MES and
MLE bootstraps take most of it).
"""
import argparse
import logging

from sampled_metrics.workflow.steps.interval_study import SHAPES, grid_cells, validation


def numbers(text):
    return [int(x) for x in text.split(",")]


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=numbers, default=[1000, 3706, 30000], help="items")
parser.add_argument("--m", type=numbers, default=[50, 100, 1000], help="negatives")
parser.add_argument("--sampling", default="binomial,hypergeometric")
parser.add_argument("--shapes", default=",".join(SHAPES))
parser.add_argument("--draws", type=int, default=3, help="independent draws per cell")
parser.add_argument("--per-user-n", type=numbers, default=[3706],
                    help="the n whose cells also run with one n_u per user")
parser.add_argument("--several-n", type=numbers, default=[3706],
                    help="the n whose cells also run with 1-4 positives per user")
parser.add_argument("--users", type=int, default=6040)
parser.add_argument("--bootstrap", type=int, default=100)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--processes", type=int, default=2)
parser.add_argument("--out", default="results/validation/interval_coverage")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
cells = grid_cells(args.n, args.m, args.sampling.split(","), args.shapes.split(","),
                   args.draws, args.per_user_n, args.several_n)
print(validation(cells, args.out, users=args.users, bootstrap=args.bootstrap, seed=args.seed,
                 processes=args.processes).to_string())
