"""Fit time and exact full-ranking quality of the neural recommenders on a split.

    python workflow/benchmarks/bench_neural.py [--split data/ml-1m/split.npz] [--threads 2]
        [--model neumf multivae] [--epochs N] [--batch-size B] [--lr LR]

The split is the workflow's (``snakemake --configfile config/offline.yaml
data/ml-1m/split.npz``: ML-1M, leave-last-out). For each model: its default hyper-parameters
(``recommenders/neural.py`` names their sources) unless ``--epochs``, ``--batch-size`` or
``--lr`` override them (the default config's NeuMF: ``--epochs 6 --batch-size 8192 --lr
0.002``; its MultiVAE: ``--epochs 30``), fitted once; wall seconds of the fit; exact
Recall@10 and NDCG@10 over all evaluated users (candidates: the items outside the user's
training set, random tie-breaking).
"""
import argparse
import time

import numpy as np

from sampled_metrics.datasets import load_split
from sampled_metrics.evaluation import evaluate
from sampled_metrics.metrics import metric_value
from sampled_metrics.recommenders import make_recommender


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="data/ml-1m/split.npz")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--model", nargs="+", default=["neumf", "multivae"])
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--batch-size", type=int)
    parser.add_argument("--lr", type=float)
    args = parser.parse_args()
    split = load_split(args.split)
    for kind in args.model:
        params = {"threads": args.threads}
        for key in ("epochs", "batch_size", "lr"):
            if getattr(args, key) is not None:
                params[key] = getattr(args, key)
        model = make_recommender(kind, **params)
        start = time.perf_counter()
        model.fit(split.train)
        fit = time.perf_counter() - start
        result = evaluate(model, split, {}, tie="random_per_ranking", seed=0)
        ranks, n_u = result.ranks, result.n_u
        recall = float(np.mean(metric_value("recall@10", ranks, n_u)))
        ndcg = float(np.mean(metric_value("ndcg@10", ranks, n_u)))
        print(f"{model!r}: fit {fit:.0f} s on {args.threads} threads; exact Recall@10 "
              f"{100 * recall:.2f} %, NDCG@10 {100 * ndcg:.2f} % over {ranks.size} users")


if __name__ == "__main__":
    main()
