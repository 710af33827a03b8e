"""What correcting under the wrong law costs, on the ML-1M study's X, Y and Z and the
sequential Markov chain (sampled_metrics.workflow.steps.evaluator_cost; needs their rank files):

    snakemake --cores all results/ml-1m/ranks/{X,Y,Z}.npz
    python workflow/validation/sequential_ranks.py --archive ml-1m.zip
    python workflow/validation/evaluator_cost_ml1m.py   # -> results/validation/evaluator_cost.*

Each evaluator's sampled evaluation of every user is simulated from the user's exact rank and
pool, then corrected under the evaluator's own law and under the generic binomial law. Not a
rule of the workflow.
"""
import argparse
import logging
from pathlib import Path

from sampled_metrics.workflow.steps.evaluator_cost import cost_validation

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--rank-files", default="X=results/ml-1m/ranks/X.npz,"
                    "Y=results/ml-1m/ranks/Y.npz,Z=results/ml-1m/ranks/Z.npz,"
                    "MarkovChain=results/ml-1m-sequential/ranks/MarkovChain.npz",
                    help="comma-separated name=path of rank files")
parser.add_argument("--repeats", type=int, default=20)
parser.add_argument("--processes", type=int, default=2)
parser.add_argument("--out", default="results/validation/evaluator_cost")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
files = dict(item.split("=", 1) for item in args.rank_files.split(","))
missing = [path for path in files.values() if not Path(path).is_file()]
if missing:
    parser.error(f"no rank file {missing[0]} (see the commands above)")
print(cost_validation(files, args.out, repeats=range(args.repeats),
                      processes=args.processes).to_string())
