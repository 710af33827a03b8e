#!/usr/bin/env python
"""Ablation of the open readings of eq. 27-30 (recommenders Y, Z) and of iALS sweeps (X).

Loads ML-1M, makes the leave-last-out split and reports exact Recall@10, NDCG@10, AP and AUC
(per-user AUC with n_u candidates), in %, averaged over users, for

* Y (q=3, k=k'=None) and Z (q=1, k'=10) under every combination of diagonal {keep, exclude},
  neighbours {literal, column}, norm {l2, l1}, denominator {True, False} and tie
  {pessimistic, optimistic, average, random (seed 0)};
* X (iALS, d=16, λ=10, α=0.2) after several numbers of sweeps, with the paper's loss per
  sweep, fit time and ranking time.

Usage (``--archive`` defaults to ``$SAMPLED_METRICS_ML1M``; a relative path is taken from the
current directory)::

    python workflow/ablations/ablation_itemknn.py --archive path/to/ml-1m.zip \
        --out results/ablation
"""
from __future__ import annotations

import argparse
import itertools
import logging
import os
import time
from pathlib import Path

import pandas as pd

from sampled_metrics.datasets import index_interactions, leave_last_out, read_movielens
from sampled_metrics.evaluation import mean_metrics, rank_all
from sampled_metrics.recommenders import IALS, ItemKNN

METRICS = ("recall@10", "ndcg@10", "ap", "auc")
PAPER = {"X": (7.60, 3.76, 3.75, 89.13), "Y": (8.84, 4.59, 4.32, 85.33),
         "Z": (9.42, 4.79, 4.44, 74.73)}
#: the project root (this file is workflow/ablations/ablation_itemknn.py)
ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ARCHIVE = os.environ.get("SAMPLED_METRICS_ML1M")
ITEMKNN = {"Y": dict(q=3, k=None, k_prime=None), "Z": dict(q=1, k=None, k_prime=10)}
TIES = ("pessimistic", "optimistic", "average", "random")


def load_split(archive: str):
    interactions, user_ids, item_ids = index_interactions(read_movielens(archive, "ml-1m"))
    return leave_last_out(interactions, len(user_ids), len(item_ids))


def exact_metrics(model, split, tie: str) -> dict[str, float]:
    ranks, n_u = rank_all(model, split, tie=tie, seed=0)
    values = mean_metrics(ranks, n_u, METRICS)
    return {name: round(100 * values[name], 2) for name in METRICS}


def with_gap(row: dict, recommender: str) -> dict:
    """Add the largest absolute difference to the paper's Table 3 (percentage points)."""
    row["max_abs_diff"] = round(max(abs(row[m] - t) for m, t in
                                    zip(METRICS, PAPER[recommender])), 2)
    return row


def itemknn_ablation(split) -> pd.DataFrame:
    rows = []
    for name, base in ITEMKNN.items():
        for diagonal, neighbours, norm in itertools.product(
                ("keep", "exclude"), ("literal", "column"), ("l2", "l1")):
            model = ItemKNN(**base, diagonal=diagonal, neighbours=neighbours,
                            norm=norm).fit(split.train)
            for denominator, tie in itertools.product((True, False), TIES):
                model.denominator = denominator
                config = dict(recommender=name, diagonal=diagonal, neighbours=neighbours,
                              norm=norm, denominator=denominator, tie=tie)
                rows.append(with_gap({**config, **exact_metrics(model, split, tie)}, name))
                logging.info("%s", rows[-1])
    return pd.DataFrame(rows)


def ials_sweeps(split, iterations, seeds) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, losses = [], []
    for n_iter, seed in itertools.product(iterations, seeds):
        model = IALS(iterations=n_iter, seed=seed).fit(split.train)
        start = time.perf_counter()
        metrics = exact_metrics(model, split, "random")
        rank_seconds = time.perf_counter() - start
        rows.append(with_gap(dict(recommender="X", iterations=n_iter, seed=seed, **metrics,
                                  fit_seconds=round(model.fit_seconds_, 2),
                                  rank_seconds=round(rank_seconds, 2),
                                  final_loss=round(model.loss_history_[-1], 1)), "X"))
        losses += [dict(iterations=n_iter, seed=seed, sweep=i + 1, loss=loss)
                   for i, loss in enumerate(model.loss_history_)]
        logging.info("%s", rows[-1])
    return pd.DataFrame(rows), pd.DataFrame(losses)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--archive", default=DEFAULT_ARCHIVE, type=Path,
                        help="the MovieLens-1M zip (default: %(default)s)")
    parser.add_argument("--out", default="results/ablation", type=Path,
                        help="directory for itemknn.csv, ials.csv, ials_loss.csv")
    parser.add_argument("--ials-iterations", default="5,10,15,20,30")
    parser.add_argument("--ials-seeds", default="0")
    parser.add_argument("--skip-itemknn", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    split = load_split(args.archive)
    pd.set_option("display.width", 200, "display.max_rows", 200)
    if not args.skip_itemknn:
        table = itemknn_ablation(split)
        table.to_csv(args.out / "itemknn.csv", index=False)
        print(table.sort_values(["recommender", "max_abs_diff"]).to_string(index=False))
    parse = lambda text: [int(x) for x in text.split(",") if x]  # noqa: E731
    ials, loss = ials_sweeps(split, parse(args.ials_iterations), parse(args.ials_seeds))
    ials.to_csv(args.out / "ials.csv", index=False)
    loss.to_csv(args.out / "ials_loss.csv", index=False)
    print(ials.to_string(index=False))


if __name__ == "__main__":
    main()
