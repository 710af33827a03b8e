"""Coverage of the recommended interval and of the other methods' intervals on a grid of
simulated evaluations whose true ranks are known (sampled_metrics.workflow.steps.interval_study).

    python workflow/validation/interval_coverage.py    # -> results/validation/interval_coverage.*

Not a rule of the workflow: about half an hour on 2 cores for the default grid (the MES and
MLE bootstraps take most of it).
"""
import argparse
import logging

from sampled_metrics.workflow.steps.interval_study import grid_options, option_cells, validation

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
grid_options(parser)
parser.add_argument("--bootstrap", type=int, default=100)
parser.add_argument("--processes", type=int, default=2)
parser.add_argument("--out", default="results/validation/interval_coverage")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
print(validation(option_cells(args), args.out, users=args.users, bootstrap=args.bootstrap,
                 seed=args.seed, processes=args.processes).to_string())
