"""The recommended interval on the ML-1M study's recommenders and a sequential one, whose
exact ranks are known (sampled_metrics.workflow.steps.interval_models; needs their rank files).

    snakemake --cores all results/ml-1m/ranks/{X,Y,Z,EASE,NeuMF,MultiVAE}.npz \
        results/ml-1m-all/ranks/{X,Z,EASE,NeuMF,MultiVAE}.npz
    python workflow/validation/sequential_ranks.py --archive ml-1m.zip
    python workflow/validation/interval_coverage_ml1m.py    # -> results/validation/interval_models.*

(add the dataset's local archive config, e.g. config/offline.yaml, to the snakemake line).
Every recommender of each folder, at the first of --m its file holds (the study's m = 100,
else Jin et al.'s m = 99), each user's own n_u and the file's sampling law. Not a rule of the
workflow.
"""
import argparse
import logging
from pathlib import Path

from sampled_metrics.workflow.steps.interval_models import validation

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ranks-dirs", default="results/ml-1m/ranks,results/ml-1m-all/ranks,results/ml-1m-sequential/ranks")
parser.add_argument("--m", default="100,99", help="sample sizes, in order of preference")
parser.add_argument("--repeats", type=int, default=100)
parser.add_argument("--processes", type=int, default=2)
parser.add_argument("--out", default="results/validation/interval_models")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
files = {(Path(d).parent.name, p.stem): str(p) for d in args.ranks_dirs.split(",")
         for p in sorted(Path(d).glob("*.npz"))}
print(validation(files, [int(x) for x in args.m.split(",")], args.out, repeats=range(args.repeats),
                 processes=args.processes).to_string())
