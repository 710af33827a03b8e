"""The convex shape validated: coverage and width of the recommended interval under the convex
and the non-increasing P(r), and the likelihood-ratio check's rejections, on simulated
evaluations whose true ranks are known (sampled_metrics.workflow.steps.shape_study).

    python workflow/validation/convex_coverage.py    # -> results/validation/convex_coverage.*

Not a rule of the workflow: about 45 minutes on 2 cores for the default grid (9 shapes,
n = 3,706; one n for all users at m = 100 and 1,000, five draws per cell; one n_u per user at
m = 100, five draws; several positives per user at m = 100, three draws).
"""
import argparse
import logging

import pandas as pd

from sampled_metrics.workflow.steps.interval_study import SHAPES, grid_cells, grid_options
from sampled_metrics.workflow.steps.shape_study import shape_validation

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
grid_options(parser)
parser.set_defaults(n=[3706], m=[100, 1000], sampling="binomial", shapes=",".join(SHAPES),
                    draws=5)
parser.add_argument("--per-user-m", default="100",
                    help="comma-separated m of the cells with one n_u per user")
parser.add_argument("--several-m", default="100",
                    help="comma-separated m of the several-positives cells")
parser.add_argument("--several-draws", type=int, default=3,
                    help="draws per several-positives cell")
parser.add_argument("--processes", type=int, default=2)
parser.add_argument("--out", default="results/validation/convex_coverage")
parser.add_argument("--summary-only", action="store_true",
                    help="redo the summary from <out>_per_repeat.csv, no cell again")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
shapes, samplings = args.shapes.split(","), args.sampling.split(",")
cells = grid_cells(args.n, args.m, samplings, shapes, args.draws)
for pool, ms, draws, options in (
        ("per_user", args.per_user_m, args.draws, {"per_user_n": args.per_user_n}),
        ("several", args.several_m, args.several_draws, {"several_n": args.several_n})):
    cells += [c for c in grid_cells(args.n, [int(x) for x in ms.split(",")], samplings,
                                    shapes, draws, **options) if c["pool"] == pool]
per_cell = pd.read_csv(f"{args.out}_per_repeat.csv") if args.summary_only else None
print(shape_validation(cells, args.out, users=args.users, seed=args.seed,
                       processes=args.processes, per_cell=per_cell).to_string())
