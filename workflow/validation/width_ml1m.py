"""Width against m: the recommended interval's expected width for the ML-1M study's
recommenders, whose exact ranks are known (sampled_metrics.workflow.steps.width_study; needs
their rank files).

    snakemake --cores all results/ml-1m/ranks/{X,Y,Z}.npz
    python workflow/validation/width_ml1m.py    # -> results/validation/width_by_m.csv

(add the dataset's local archive config, e.g. config/offline.yaml, to the snakemake line).
Not a rule of the workflow: about ten minutes on one core.
"""
import argparse
import logging
from pathlib import Path

from sampled_metrics.workflow.steps.width_study import width_frame
from sampled_metrics.workflow.tables import write_csv

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--ranks-dir", default="results/ml-1m/ranks")
parser.add_argument("--recommenders", default="X,Y,Z")
parser.add_argument("--m", default="20,50,100,200,500,1000,2000", help="sample sizes")
parser.add_argument("--metrics", default="recall@10,ndcg@10")
parser.add_argument("--repeats", type=int, default=5,
                    help="the file's sampled evaluations whose median width is the check")
parser.add_argument("--out", default="results/validation/width_by_m.csv")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
files = {x: Path(args.ranks_dir) / f"{x}.npz" for x in args.recommenders.split(",")}
frame = width_frame(files, [int(x) for x in args.m.split(",")], args.metrics.split(","),
                    args.repeats)
Path(args.out).parent.mkdir(parents=True, exist_ok=True)
write_csv(frame, args.out)
print(frame.to_string())
