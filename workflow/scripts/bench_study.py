"""Benchmark of the MovieLens branch (run by hand, not by the workflow or the tests).

    python workflow/scripts/bench_study.py --archive ../shared/data/ml-1m/ml-1m.zip

Reports the time of our exact evaluation (ranks of all held-out items among all candidates,
4 metrics follow from the ranks) against ``implicit.evaluation.ranking_metrics_at_k`` (top-10
metrics only) on the same iALS model and test set, and of our sampled evaluation.
For the whole branch, time `snakemake --cores 2 --configfile config/offline.yaml` instead
(see the README's Performance section).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--archive", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.evaluation import ranking_metrics_at_k

    from sampled_metrics.datasets import index_interactions, leave_last_out, read_movielens
    from sampled_metrics.evaluation import draw_negatives, evaluate, mean_metrics
    from sampled_metrics.recommenders import IALS

    df, _, _ = index_interactions(read_movielens(args.archive, "ml-1m"))
    split = leave_last_out(df, int(df.user.max()) + 1, int(df.item.max()) + 1)
    model = IALS(iterations=20, seed=0, num_threads=2).fit(split.train)
    test = sp.csr_matrix((np.ones(split.users.size), (split.users, split.test_items)),
                         shape=split.train.shape)
    # an implicit model holding the same factors, for implicit's own evaluation
    other = AlternatingLeastSquares(factors=16, dtype=np.float64)
    other.user_factors, other.item_factors = model.user_factors_, model.item_factors_

    def best(fn):
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t)
        return min(times), out

    t_ours, ev = best(lambda: evaluate(model, split, (), "random", 1024, 0))
    ours = mean_metrics(ev.ranks, ev.n_candidates, ["recall@10", "ndcg@10", "ap", "auc"])
    t_impl, theirs = best(lambda: ranking_metrics_at_k(other, split.train, test, K=10,
                                                       show_progress=False, num_threads=2))
    negs = [draw_negatives(split, 100, j, 1) for j in range(20)]
    t_sampled, _ = best(lambda: evaluate(model, split, negs, "random", 1024, 0))
    t_draw, _ = best(lambda: [draw_negatives(split, 100, j, 1) for j in range(20)])
    print(f"users {split.users.size}, items {split.n_items}")
    print(f"ours, exact ranks of all users (-> any metric): {t_ours:.3f} s  {ours}")
    print(f"implicit.evaluation.ranking_metrics_at_k (K=10): {t_impl:.3f} s  "
          f"precision {theirs['precision']:.4f} ndcg {theirs['ndcg']:.4f} auc {theirs['auc']:.4f}")
    print(f"ours, exact + 20 sampled repeats (m=100) in one pass: {t_sampled:.3f} s; "
          f"drawing those negatives: {t_draw:.3f} s")


if __name__ == "__main__":
    main()
