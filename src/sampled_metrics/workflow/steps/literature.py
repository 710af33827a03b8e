"""Published sampled results and the full-ranking intervals they imply (:mod:`..bounds`).

Input: a hand-curated long CSV, one row per published value (columns ``INPUT_COLUMNS``: the
paper, its table, dataset, n, m, sampler, recommender (the published model), metric, value
as printed, source, whether the value and the protocol were read in the paper's text, a
note, and the evaluator whose code produced it, where known). Output:

* :func:`literature_frame`: per (paper, table, dataset, recommender), target and shape, the
  interval of the full-ranking target consistent with all the recommender's published values
  (their printed digits set the tolerance), or the values that contradict each other;
* :func:`orderings_frame`: per pair of recommenders of one table, the published ordering (by
  the HR@10, else the first metric both report) and whether the intervals confirm it (the
  better recommender's lower end above the other's upper end).

Only uniform samplers have the law the bounds use; other rows get no interval. A row tagged
with an evaluator (:mod:`sampled_metrics.evaluators`) is bounded under the law of the rank
that evaluator reports (its self-draws, duplicates and ties); an untagged one under the
generic binomial law.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd

from ...bounds import InconsistentObservations, bound_full_metrics
from ...evaluators import get_evaluator
from ..tables import atomic_write_text, render_markdown, write_csv

__all__ = ["INPUT_COLUMNS", "read_published", "literature_frame", "orderings_frame",
           "literature_tables"]

INPUT_COLUMNS = ["paper", "table", "dataset", "n", "m", "sampler", "recommender", "metric",
                 "value", "source", "value_verified", "protocol_verified", "note", "evaluator"]
GROUP = ["paper", "table", "dataset", "n", "m", "sampler", "evaluator"]
TARGETS = ("recall@10", "ndcg@10")
SHAPES = (None, "non-increasing")


def read_published(path) -> pd.DataFrame:
    """The curated CSV, values kept as printed text (their digits set the tolerance)."""
    frame = pd.read_csv(path, dtype={"value": str}, keep_default_na=False)
    missing = [c for c in INPUT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    return frame


def _conflict(observed: dict, n: int, m: int, evaluator: str | None) -> str:
    """'consistent', or the published values that contradict each other."""
    try:
        bound_full_metrics(observed, n, m, ["recall@10"], evaluator=evaluator)
    except InconsistentObservations as err:
        return "inconsistent: " + ", ".join(err.conflict)
    return "consistent"


def literature_frame(published: pd.DataFrame, targets=TARGETS, shapes=SHAPES) -> pd.DataFrame:
    """One row per (paper, table, dataset, recommender, target, shape): the values used (the
    recommender's published @10 values, HR@10 and NDCG@10 being the classic pair; all of them
    if none is @10), low, high (NaN when they contradict each other or the sampler is not
    uniform), a status, and whether all the recommender's published values are consistent."""
    rows = []
    for key, group in published.groupby(GROUP + ["recommender"], sort=False):
        info = dict(zip(GROUP + ["recommender"], key))
        everything = dict(zip(group.metric, group.value))
        used = {k: v for k, v in everything.items() if k.endswith("@10")} or everything
        m = int(info["m"])
        n = int(info["n"]) if str(info["n"]).strip() else None
        evaluator = info["evaluator"] or None
        verified = ("yes" if (group.value_verified == "yes").all() else "no") + " / " + \
            ("yes" if (group.protocol_verified == "yes").all() else "no")
        skip = (f"sampler {info['sampler']}: not the uniform law"
                if info["sampler"] != "uniform" else
                "n not known" if n is None else
                f"evaluator {evaluator}: no correction" if evaluator is not None
                and get_evaluator(evaluator).sampling is None else None)
        base = {**info, "observed": ", ".join(f"{k}={v}" for k, v in used.items()),
                "verified": verified, "source": group.source.iloc[0],
                "all_values": "n.a." if skip else _conflict(everything, n, m, evaluator)}
        for shape in shapes:
            row = {**base, "shape": shape or "none"}
            nan = {"low": float("nan"), "high": float("nan")}
            if skip:
                rows += [{**row, "target": t, **nan, "status": skip} for t in targets]
                continue
            try:
                found = bound_full_metrics(used, n, m, list(targets), shape=shape,
                                           evaluator=evaluator)
            except InconsistentObservations as err:
                rows += [{**row, "target": t, **nan,
                          "status": "inconsistent: " + ", ".join(err.conflict)}
                         for t in targets]
                continue
            rows += [{**row, "target": t, "low": lo, "high": hi, "status": "ok"}
                     for t, lo, hi in found]
    return pd.DataFrame(rows)


def orderings_frame(published: pd.DataFrame, lit: pd.DataFrame) -> pd.DataFrame:
    """Per pair of recommenders of one (paper, table, dataset), target and shape: the published
    ordering by HR@10 (else the first metric both report) and whether the intervals confirm
    it."""
    rows = []
    for key, group in published.groupby(GROUP, sort=False):
        info = dict(zip(GROUP, key))
        values = group.pivot_table(index="recommender", columns="metric", values="value",
                                   aggfunc="first", sort=False)
        for a, b in itertools.combinations(values.index, 2):
            shared = [x for x in group.metric.unique()
                      if values.loc[a, x] != "" and values.loc[b, x] != ""
                      and not pd.isna(values.loc[a, x]) and not pd.isna(values.loc[b, x])]
            if not shared:
                continue
            metric = "hr@10" if "hr@10" in shared else shared[0]
            better, worse = (a, b) if float(values.loc[a, metric]) > float(
                values.loc[b, metric]) else (b, a)
            for (target, shape), part in lit[
                    (lit.paper == info["paper"]) & (lit.table == info["table"])
                    & (lit.dataset == info["dataset"])].groupby(["target", "shape"],
                                                                sort=False):
                iv = part.set_index("recommender")
                hi_w, lo_b = iv.loc[worse, "high"], iv.loc[better, "low"]
                verdict = ("n.a." if pd.isna(hi_w) or pd.isna(lo_b) else
                           "confirmed" if lo_b > hi_w else "not confirmed")
                rows.append({**info, "published": f"{better} > {worse} ({metric} "
                             f"{values.loc[better, metric]} vs {values.loc[worse, metric]})",
                             "target": target, "shape": shape, "verdict": verdict})
    return pd.DataFrame(rows)


def literature_tables(published_path, results_dir, docs_page) -> tuple[pd.DataFrame,
                                                                       pd.DataFrame]:
    """Write ``<results_dir>/literature.csv``, ``<results_dir>/orderings.csv`` and the docs
    page ``docs_page`` (Markdown rendered from them)."""
    published = read_published(published_path)
    lit = literature_frame(published)
    orders = orderings_frame(published, lit)
    out = Path(results_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(lit, out / "literature.csv")
    write_csv(orders, out / "orderings.csv")
    atomic_write_text(docs_page, _page(published, lit, orders))
    return lit, orders


def _page(published, lit, orders) -> str:
    shown = lit.assign(
        interval=[f"[{lo:.3f}, {hi:.3f}]" if st == "ok" else st
                  for lo, hi, st in zip(lit.low, lit.high, lit.status)])
    wide = shown.pivot_table(index=["paper", "table", "dataset", "n", "m", "evaluator",
                                    "recommender", "observed", "verified", "all_values"],
                             columns=["target", "shape"], values="interval",
                             aggfunc="first", sort=False)
    wide.columns = [f"{t} ({s})" for t, s in wide.columns]
    counts = orders.groupby(["target", "shape", "verdict"]).size().unstack(fill_value=0)
    # one row per published ordering not confirmed under every target and shape, a column each
    open_pairs = orders.groupby(["paper", "table", "dataset", "published"], sort=False).verdict \
        .transform(lambda v: (v != "confirmed").any())
    unconfirmed = orders[open_pairs].pivot_table(
        index=["paper", "dataset", "published"], columns=["target", "shape"], values="verdict",
        aggfunc="first", sort=False)
    unconfirmed.columns = [f"{t} ({s})" for t, s in unconfirmed.columns]
    sources = published.drop_duplicates(["paper", "table"])[["paper", "table", "source",
                                                             "note"]]
    parts = [
        "# Published sampled results: what they say about the full-ranking metric\n",
        "Generated by `workflow/literature/literature_table.py` from the curated values in "
        "`workflow/literature/published_sampled.csv` (tables in `results/literature/`); do "
        "not edit by hand.\n",
        "Each interval is the range of the full-ranking metric over every distribution of "
        "true ranks P(r) on 1..n that gives all the recommender's published sampled values to "
        "their printed digits (`sampled_metrics.bound_full_metric`): `none` assumes nothing "
        "about P, `non-increasing` assumes P(1) >= P(2) >= ... (`sampled-metrics bound "
        "--help`). `verified` says whether the values / the protocol (n, m, sampler) were "
        "read in the paper's own text (`no`: taken from elsewhere or assumed, see the "
        "notes). `evaluator` names the code that produced the values, whose own law of the "
        "reported rank the bounds then use (`sampled-metrics evaluators`; blank: the generic "
        "binomial law). `inconsistent` names published values that no ranking of one held-out item "
        "per user can produce together (`all_values`: all the recommender's published values "
        "checked together; the intervals use its @10 values).\n",
        render_markdown(wide.reset_index()),
        "## Published orderings the intervals cannot confirm\n",
        "A published ordering A > B (by HR@10) is confirmed when A's interval lies wholly "
        "above B's. Counts of the orderings, then those not confirmed for some target and "
        "shape (the verdict for each):\n",
        render_markdown(counts.reset_index()),
        render_markdown(unconfirmed.reset_index()),
        "## Sources\n",
        render_markdown(sources),
    ]
    return "\n".join(parts)
