"""Which family-wise procedure keeps more power for the results table: Holm on the pairs'
bootstrap p-values, or the max-statistic paired bootstrap (both step-down;
``sampled_metrics.compare.familywise``)? Simulated evaluations with known truth.

    python workflow/ablations/familywise_power.py [--repeats 100] [--bootstrap 4000]

Each repeat draws U users' true ranks for k recommenders (n = 3,706 items, ML-1M's size):
user u's rank under recommender i is ceil(n F_i^-1(Phi(rho z_u + sqrt(1 - rho^2) e_ui))),
F_i the Beta(0.5, b_i) law, z_u a user's shared difficulty (rho = 0.7: the recommenders
find the same users easy, as real ones do), so Recall@10 grows with b_i; equal b_i make
pairs whose exact difference is only the users' noise (the hardest case for the family-wise
error). The sampled ranks are drawn at m = 100 with replacement. Every pair and metric is
judged as ``compare`` judges it (the verdict method's interval, the bias hull), each at the
level its procedure sets; a verdict is wrong when confident against the sign of the exact
difference of the same users. Printed per scenario, verdict method and procedure: the
family-wise error (share of repeats with any confidently wrong verdict, with its binomial
standard error), the power (share of the pairs and metrics of unequal b_i found in the
direction of the exact difference) and the mean level of the first step. ``none`` reads every
comparison at the nominal level alone (no family-wise control), for reference.
"""
from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from scipy import stats
from threadpoolctl import threadpool_limits

from sampled_metrics.compare.familywise import familywise_levels, hull_confident
from sampled_metrics.compare.paired import rank_draws
from sampled_metrics.design import Design
from sampled_metrics.metrics import parse_metrics
from sampled_metrics.sampling import draw_sampled_ranks
from sampled_metrics.seeds import generator

N_ITEMS, M, RHO = 3706, 100, 0.7
SCENARIOS = {
    "six, two tied pairs": [3.0, 3.0, 3.5, 4.0, 5.0, 5.0],
    "ten, two tied pairs": [3.0, 3.0, 3.4, 3.8, 4.2, 4.2, 4.6, 5.0, 5.5, 6.0],
    "six, all tied": [4.0] * 6,
}
PROCEDURES = ("none", "holm", "maxstat")


def true_ranks(b, users: int, rng) -> np.ndarray:
    """(k, users) true ranks (module docstring)."""
    z = rng.standard_normal(users)
    e = rng.standard_normal((len(b), users))
    t = stats.norm.cdf(RHO * z + np.sqrt(1 - RHO ** 2) * e)
    x = stats.beta.ppf(t, 0.5, np.asarray(b)[:, None])
    return np.clip(np.ceil(N_ITEMS * x), 1, N_ITEMS).astype(np.int64)


def one_repeat(b, metric_list, method: str, users: int, bootstrap: int, level: float,
               rng) -> dict:
    """Per procedure: (any wrong, right verdicts, ordered comparisons, first level)."""
    r = true_ranks(b, users, rng)
    names = [f"R{i}" for i in range(len(b))]
    sampled = {x: draw_sampled_ranks(r[i], N_ITEMS, M, rng=rng) for i, x in enumerate(names)}
    draws = rank_draws(sampled, Design(N_ITEMS, M), metric_list, [method],
                       bootstrap=bootstrap, rng=rng)
    exact = np.array([[x.weights(N_ITEMS)[r[i] - 1].mean() for x in metric_list]
                      for i in range(len(b))])                              # (k, K)
    reps, truth, ordered = [], [], []
    for i, j in itertools.combinations(range(len(b)), 2):
        diff, bias = draws.pair(names[i], names[j])
        reps.append(np.stack([diff[1:, :, 0], diff[1:, :, 0] - bias[1:, :, 0]], axis=-1))
        truth.append(np.sign(exact[i] - exact[j]))
        ordered += [b[i] != b[j]] * len(metric_list)
    X = np.concatenate(reps, axis=1)                                       # (B, P*K, 2)
    truth, ordered = np.concatenate(truth), np.array(ordered)
    sign = np.sign(np.median(X[:, :, 0], axis=0))
    out = {}
    for procedure in PROCEDURES:
        if procedure == "none":
            levels, sure = np.full(truth.size, level), hull_confident(X, level)
        else:
            levels, sure = familywise_levels(X, level, procedure)
        wrong = sure & (sign != truth)
        right = sure & (sign == truth) & ordered
        out[procedure] = (bool(wrong.any()), int(right.sum()), int(ordered.sum()),
                          float(levels.min()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=100)
    ap.add_argument("--users", type=int, default=6040)
    ap.add_argument("--bootstrap", type=int, default=4000)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--metric", default="recall@10,ndcg@10")
    ap.add_argument("--method", default="mes,bv_0.1")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenario", action="append", choices=list(SCENARIOS),
                    help="run this scenario (repeatable; default all)")
    args = ap.parse_args()
    metric_list = parse_metrics(args.metric.split(","))
    print(f"{'scenario':20s} {'method':7s} {'procedure':9s} {'FWER':>6s} {'+-se':>5s} "
          f"{'power':>6s} {'level':>7s}")
    for scenario in args.scenario or SCENARIOS:
        b = SCENARIOS[scenario]
        for method in args.method.split(","):
            start = time.perf_counter()
            rng = generator(args.seed, "familywise", scenario, method)
            runs = [one_repeat(b, metric_list, method, args.users, args.bootstrap,
                               args.level, rng) for _ in range(args.repeats)]
            for procedure in PROCEDURES:
                wrong = np.mean([x[procedure][0] for x in runs])
                se = np.sqrt(wrong * (1 - wrong) / len(runs))
                ordered = sum(x[procedure][2] for x in runs)
                power = sum(x[procedure][1] for x in runs) / ordered if ordered else np.nan
                level = np.mean([x[procedure][3] for x in runs])
                print(f"{scenario:20s} {method:7s} {procedure:9s} {wrong:6.3f} {se:5.3f} "
                      f"{power:6.3f} {level:7.4f}")
            print(f"  ({args.repeats} repeats in {time.perf_counter() - start:.0f} s)",
                  flush=True)


if __name__ == "__main__":
    with threadpool_limits(1):
        main()
