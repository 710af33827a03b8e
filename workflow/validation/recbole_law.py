"""Which sampling law does RecBole's uni100 follow? Measured with RecBole itself on ML-1M.

    pip install -e ".[test,recbole]"        # in RecBole's own virtualenv (numpy < 2)
    python workflow/validation/recbole_law.py --archive ml-1m.zip   # -> results/recbole/law.csv

Leave-one-out by time, RecBole's own trainer and evaluator. Each model is trained once and
its test users ranked once in full (the exact positions, captured) and then ``--repeats``
times under ``uni100`` with seeds 0, 1, ...; per repeat the table holds RecBole's sampled
metric and its expectation from the exact positions under the two readings of
:func:`sampled_metrics.integrations.recbole.law_expectations` (without replacement at the
distinct negatives D_u, with replacement at the 100 draws). ``law_summary.csv`` averages the
repeats. Not a rule of the workflow (RecBole's pins clash with the main environment).
"""
import argparse
import logging
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from recbole.config import Config
from recbole.data import create_dataset, data_preparation
from recbole.utils import get_model, get_trainer, init_seed

from sampled_metrics.integrations.recbole import capture, law_expectations

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--archive", required=True, help="the MovieLens-1M zip (ml-1m.zip)")
parser.add_argument("--models", default="BPR,ItemKNN,Pop")
parser.add_argument("--mode", default="uni100")
parser.add_argument("--metrics", default="recall@10,ndcg@10,hit@10,mrr@10")
parser.add_argument("--repeats", type=int, default=10)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--out", default="results/recbole/law")
args = parser.parse_args()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("recbole_law")
metrics = args.metrics.split(",")
ALIASES = {"ap@10": "map@10"}


def atomic_file(archive: str, root: Path) -> None:
    """ratings.dat of the archive as RecBole's atomic ml-1m.inter."""
    with zipfile.ZipFile(archive) as zf:
        text = zf.read("ml-1m/ratings.dat").decode("latin-1")
    rows = [line.split("::") for line in text.splitlines() if line]
    frame = pd.DataFrame(rows, columns=["user_id:token", "item_id:token", "rating:float",
                                        "timestamp:float"])
    (root / "ml-1m").mkdir(parents=True)
    frame.to_csv(root / "ml-1m" / "ml-1m.inter", sep="\t", index=False)


def config(model: str, root: Path, test_mode: str) -> Config:
    return Config(model=model, dataset="ml-1m", config_dict={
        "data_path": str(root), "epochs": args.epochs, "eval_step": 0, "topk": [10],
        "metrics": ["Recall", "NDCG", "Hit", "MRR"], "metric_decimal_place": 10,
        "eval_args": {"split": {"LS": "valid_and_test"}, "order": "TO", "group_by": "user",
                      "mode": {"valid": "full", "test": test_mode}},
        "load_col": {"inter": ["user_id", "item_id", "timestamp"]}, "use_gpu": False,
        "show_progress": False, "state": "ERROR", "checkpoint_dir": str(root / "saved"),
        "log_wandb": False})


rows = []
with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)
    atomic_file(args.archive, root)
    for model_name in args.models.split(","):
        full_config = config(model_name, root, "full")
        init_seed(full_config["seed"], full_config["reproducibility"])
        train, _, test_full = data_preparation(full_config, create_dataset(full_config))
        model = get_model(model_name)(full_config, train._dataset).to("cpu")
        trainer = get_trainer(full_config["MODEL_TYPE"], model_name)(full_config, model)
        log.info("%s: training %d epochs", model_name, args.epochs)
        trainer.fit(train, None, saved=False, show_progress=False)
        record = capture(trainer)
        full = trainer.evaluate(test_full, load_best_model=False)
        exact = record.frame()
        sampled_config = config(model_name, root, args.mode)
        _, _, test = data_preparation(sampled_config, create_dataset(sampled_config))
        for repeat in range(args.repeats):
            np.random.seed(repeat)                   # RecBole's sampler draws from numpy
            result = trainer.evaluate(test, load_best_model=False)
            frame = record.frame()
            for metric in metrics:
                laws = law_expectations(exact, frame, metric)
                rows.append(dict(model=model_name, metric=metric, repeat=repeat,
                                 recbole=result[ALIASES.get(metric, metric)],
                                 expected_distinct=laws["hypergeometric"],
                                 expected_draws=laws["binomial"],
                                 full=full[ALIASES.get(metric, metric)],
                                 mean_distinct_negatives=frame.n_negatives.mean()))
            log.info("%s repeat %d: recall@10 %.4f", model_name, repeat,
                     result["recall@10"])
        record.stop()

table = pd.DataFrame(rows)
out = Path(args.out)
out.parent.mkdir(parents=True, exist_ok=True)
table.to_csv(f"{out}.csv", index=False, float_format="%.6f")
summary = table.groupby(["model", "metric"], sort=False).agg(
    recbole=("recbole", "mean"), recbole_se=("recbole", lambda v: v.std(ddof=1) / len(v) ** .5),
    expected_distinct=("expected_distinct", "mean"), expected_draws=("expected_draws", "mean"),
    full=("full", "first"), mean_distinct_negatives=("mean_distinct_negatives", "mean"),
    repeats=("repeat", "size")).reset_index()
summary.to_csv(f"{out}_summary.csv", index=False, float_format="%.6f")
print(summary.to_string(index=False))
