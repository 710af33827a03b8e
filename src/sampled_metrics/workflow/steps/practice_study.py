"""The practice study: sampled evaluations as practice runs them, on a dataset with our
recommenders, where the exact metrics are known.

Splits: ``last`` (leave-last-out, one positive per user) and ``holdout`` (a random fraction
of each user's items, :mod:`sampled_metrics.multipositive.holdout`). Protocols
(:mod:`sampled_metrics.multipositive.laws`):

``per_user``        M_u = m distinct uniform negatives per user (KDD'20; hypergeometric)
``per_positive``    m uniform negatives per positive, with replacement (RecBole uni<m>);
                    M_u = m k_u, binomial
``pop<alpha>``      m negatives per positive drawn ∝ popularity^alpha among the user's N_u
                    non-relevant items (RecBole pop<m>), with replacement; popularity = the
                    item's training interactions (items with none are never drawn)

Simulation. Each recommender is fitted once per split and every user scored once, ranked
by :mod:`sampled_metrics.evaluation.several` under the run's tie policy (``study.tie``);
a protocol's draws are simulated as counts of negatives in prefixes of the ranking
(:mod:`sampled_metrics.multipositive.draws`), which also gives, under popularity draws,
the weighted estimate x^_i = (1/M) sum over draws above of 1/q. Draws are keyed by (seed,
dataset, split, protocol, recommender, repeat, draw block): each recommender gets its own
negatives (a harder test of orderings than shared negatives, which correlate the
recommenders' errors).

Outputs a tidy frame: split, protocol, recommender, metric, method, repeat, value (mean over
users; ``exact`` has repeat -1).
"""
from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ...compare.verdicts import orders_like_exact
from ...datasets import load_split
from ...evaluation.several import rank_positives
from ..figures import practice_figure
from ...multipositive.holdout import SPLITS, leave_last_out_positives, random_holdout
from ...multipositive.positives import PositiveTable, correct_positives, multi_positive_metric
from ...multipositive.weighted import weighted_corrected_metric
from ...recommenders import make_recommender
from ...registry import resolve_name
from ...seeds import derive_seed, generator
from ..tables import atomic_write_text, percent, render_markdown, write_csv

__all__ = ["practice_runs", "practice_table", "ordering_agreement", "write_runs",
           "write_outputs"]

log = logging.getLogger(__name__)


def practice_runs(split_path, split_kind: str, recommenders: dict, *, dataset: str,
                  seed: int, fraction: float, m: int, repeats: int, alphas,
                  popularity_repeats: int, metrics, corrections, tie: str,
                  processes: int = 1) -> pd.DataFrame:
    """The tidy frame of the module docstring for one split of one dataset."""
    split_kind = resolve_name("split", split_kind, SPLITS)
    split = load_split(split_path)
    base = derive_seed(seed, dataset, "practice", split_kind)
    pos = (leave_last_out_positives(split) if split_kind == "last"
           else random_holdout(split, fraction, derive_seed(seed, dataset)))
    N_u = pos.n_nonrelevant()
    bounds = np.cumsum(pos.k)[:-1]        # positives are by user: per-user lists
    pop = np.asarray(pos.train.sum(axis=0)).ravel()
    out = []
    for rec, spec in recommenders.items():
        spec = dict(spec)
        model = make_recommender(spec.pop("model"), **spec)
        start = time.perf_counter()
        model.fit(pos.train)
        ranked = rank_positives(model, pos, tie, derive_seed(base, "ties"))
        log.info("%s %s: fitted and ranked in %.1f s (%d users, %d positives)", split_kind,
                 rec, time.perf_counter() - start, pos.users.size, ranked.row.size)
        exact = np.split(ranked.exact_positions(), bounds)
        out += [(split_kind, "exact", rec, mt, "exact", -1,
                 multi_positive_metric(mt, exact, N_u).mean()) for mt in metrics]
        protocols = [("per_user", np.full(pos.users.size, m), False, repeats),
                     ("per_positive", m * pos.k, True, repeats)]
        for name, M_u, replace, reps in protocols:
            sampling = "binomial" if replace else "hypergeometric"
            for j in range(reps):
                positions = ranked.uniform_positions(M_u, replace, _streams(base, name, rec, j))
                table = PositiveTable.from_long(ranked.row, positions, N_u, M_u,
                                                dense_users=True)
                values = correct_positives(table, metrics, corrections, sampling,
                                           processes=processes)
                out += [(split_kind, name, rec, mt, lab, j, v.mean())
                        for (mt, lab), v in values.items()]
            log.info("%s %s %s: %d repeats done", split_kind, rec, name, reps)
        for alpha in alphas:
            name, M_u = f"pop{alpha:g}", m * pos.k
            for j in range(popularity_repeats):
                positions, xhat = ranked.popularity_positions(M_u, pop, alpha,
                                                              _streams(base, name, rec, j))
                table = PositiveTable.from_long(ranked.row, positions, N_u, M_u,
                                                dense_users=True)
                plain = correct_positives(table, metrics, ["sampled"], "binomial")
                lists = np.split(positions, bounds)
                for mt in metrics:
                    out.append((split_kind, name, rec, mt, "sampled", j,
                                plain[(mt, "sampled")].mean()))
                    out.append((split_kind, name, rec, mt, "weighted_rank_estimate", j,
                                weighted_corrected_metric(mt, lists, N_u, xhat).mean()))
            log.info("%s %s %s: %d repeats done", split_kind, rec, name, popularity_repeats)
    return pd.DataFrame(out, columns=["split", "protocol", "recommender", "metric", "method",
                                      "repeat", "value"])


def _streams(base, protocol, rec, repeat):
    """The draw streams of one repeat of a protocol for one recommender, by draw block."""
    return lambda block: generator(base, protocol, rec, repeat, block)


def ordering_agreement(runs: pd.DataFrame, min_gap: float = 0.05) -> pd.DataFrame:
    """Per (split, protocol, metric, method, pair of recommenders with exact relative gap >=
    min_gap): repeats whose order agrees with the exact one, out of the repeats."""
    exact = runs[runs.method == "exact"].set_index(["split", "recommender", "metric"]).value
    rows = []
    sampled = runs[runs.method != "exact"]
    for (split, protocol, metric, method), g in sampled.groupby(
            ["split", "protocol", "metric", "method"], sort=False):
        wide = g.pivot(index="repeat", columns="recommender", values="value")
        recs = list(wide.columns)
        for i, r1 in enumerate(recs):
            for r2 in recs[i + 1:]:
                e1, e2 = exact[(split, r1, metric)], exact[(split, r2, metric)]
                gap = abs(e1 - e2) / max(e1, e2)
                if gap < min_gap:
                    continue
                agree = int(orders_like_exact(wide[r1], wide[r2], e1, e2).sum())
                rows.append((split, protocol, metric, method, f"{r1} vs {r2}", gap, agree,
                             len(wide)))
    return pd.DataFrame(rows, columns=["split", "protocol", "metric", "method", "pair",
                                       "exact_gap", "agree", "repeats"])


def practice_table(runs: pd.DataFrame, min_gap: float = 0.05) -> pd.DataFrame:
    """Mean and std over repeats, relative error of the mean vs exact, and the fewest
    agreeing repeats over the pairs with an exact gap >= 5 % (NaN if none)."""
    exact = runs[runs.method == "exact"].set_index(["split", "recommender", "metric"]).value
    stats = (runs[runs.method != "exact"]
             .groupby(["split", "protocol", "recommender", "metric", "method"], sort=False)
             .value.agg(["mean", "std", "count"]).reset_index())
    stats["exact"] = [exact[(s, r, m)] for s, r, m in
                      zip(stats.split, stats.recommender, stats.metric)]
    stats["rel_error"] = (stats["mean"] - stats["exact"]) / stats["exact"]
    agree = ordering_agreement(runs, min_gap)
    worst = agree.groupby(["split", "protocol", "metric", "method"]).agree.min()
    stats["min_agree"] = [worst.get((s, p, m, me), np.nan) for s, p, m, me in
                          zip(stats.split, stats.protocol, stats.metric, stats.method)]
    return stats.rename(columns={"count": "repeats"})


# ----------------------------------------------------------------------------- artefacts

def write_runs(split_path, split_kind, recommenders: dict, out, **options) -> None:
    """Rule ``practice_runs``: the tidy runs CSV of one split."""
    write_csv(practice_runs(split_path, split_kind, recommenders, **options), out)


def write_outputs(run_paths, outputs: dict, dataset: str, min_gap: float = 0.05) -> None:
    """Rule ``practice_table``: table (CSV, md), ordering CSV and figure (pdf, png), at the
    rule's named ``outputs`` (``table``, ``table_md``, ``ordering``, ``pdf``, ``png``)."""
    runs = pd.concat([pd.read_csv(p) for p in run_paths], ignore_index=True)
    table = practice_table(runs, min_gap)
    write_csv(table, outputs["table"])
    write_csv(ordering_agreement(runs, min_gap), outputs["ordering"])
    shown = table.assign(
        value=[percent(m, s) for m, s in zip(table["mean"], table["std"])],
        exact=[percent(e) for e in table["exact"]],
        rel_error=[f"{100 * e:+.1f}%" for e in table["rel_error"]],
        min_agree=["" if np.isnan(v) else f"{int(v)}/{r}" for v, r in
                   zip(table["min_agree"], table["repeats"])])
    atomic_write_text(outputs["table_md"], render_markdown(
        shown[["split", "protocol", "recommender", "metric", "method", "value", "exact",
               "rel_error", "min_agree"]],
        title=f"Practice study on {dataset} (values in %, mean±std over repeats)",
        note=f"min_agree: fewest repeats, over the recommender pairs whose exact gap is >= "
             f"{100 * min_gap:g} %, that order the pair as the exact metric does."))
    practice_figure(table, Path(outputs["pdf"]).with_suffix(""))
