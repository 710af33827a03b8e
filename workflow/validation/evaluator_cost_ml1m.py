"""What correcting under the wrong law costs, on the ML-1M study's X, Y and Z
(sampled_metrics.steps.evaluator_cost; needs their rank files):

    snakemake --cores all results/ml-1m/ranks/{X,Y,Z}.npz
    python workflow/validation/evaluator_cost_ml1m.py   # -> results/validation/evaluator_cost.*

Each evaluator's sampled evaluation of every user is simulated from the user's exact rank and
pool, then corrected under the evaluator's own law and under the generic binomial law. Not a
rule of the workflow.
"""
import argparse
import logging
from pathlib import Path

from sampled_metrics.steps.evaluator_cost import cost_validation

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ranks-dir", default="results/ml-1m/ranks")
parser.add_argument("--recommenders", default="X,Y,Z")
parser.add_argument("--repeats", type=int, default=20)
parser.add_argument("--processes", type=int, default=2)
parser.add_argument("--out", default="results/validation/evaluator_cost")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
files = {rec: str(Path(args.ranks_dir) / f"{rec}.npz") for rec in args.recommenders.split(",")}
print(cost_validation(files, args.out, repeats=range(args.repeats),
                      processes=args.processes).to_string())
