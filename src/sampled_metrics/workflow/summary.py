"""The few lines printed at the end of a successful ``snakemake`` run: where the tables,
figures, report and logs are, and the headline of the study's Table 3, read from what the
run wrote (a file that is absent is not mentioned)."""
from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from .configuration.check import LOCAL_CONFIG
from .configuration.fanout import PAPER_DATASET, FanOut

__all__ = ["run_summary", "print_run_summary"]

#: the correction shown beside the exact and sampled metric, the first of these in Table 3
HEADLINE_CORRECTIONS = ("bv_0.1", "cls", "rank_estimate")


def run_summary(config: Mapping, configfiles: Sequence = (), directory=".") -> list[str]:
    """The lines of the end-of-run summary of a run of ``config`` in ``directory``.

    ``configfiles``: the run's config files; those the Snakefile does not read by itself
    (``config/config.yaml``, ``config/local.yaml``) are repeated in the report command. The
    headline is Table 3 of ml-1m if the run has one, else of the study's first dataset that
    has one: per recommender its first metric exact, sampled and corrected (BV 0.1, else the
    first correction), in %.
    """
    root = Path(directory)
    plan = FanOut(config)
    names = ["toy", *plan.study_datasets(), *plan.jin_datasets(), *plan.practice_datasets()]
    tables = [d for d in dict.fromkeys(names) if (root / "results" / d).is_dir()]
    figures = [d for d in dict.fromkeys(names) if (root / "figures" / d).is_dir()]
    lines = ["sampled-metrics: the run is complete."]
    if tables:
        lines.append(f"  tables   results/<name>/ for {', '.join(tables)} (CSV; .md, .tex and "
                     f".html beside)")
    if (root / "figures").is_dir():
        per = f" and figures/<name>/ for {', '.join(figures)}" if figures else ""
        lines.append(f"  figures  figures/{per} (PDF and PNG)")
    read_anyway = {(root / "config" / "config.yaml").resolve(), (root / LOCAL_CONFIG).resolve()}
    extra = [_shown(f, root) for f in configfiles if Path(root, f).resolve() not in read_anyway]
    with_config = f" --configfile {' '.join(extra)}" if extra else ""
    lines.append(f"  report   snakemake --report report.html{with_config} (every table and "
                 f"figure, captioned)")
    if (root / "logs").is_dir():
        lines.append("  logs     logs/ (one per job; timings in logs/benchmarks/)")
    ordered = sorted(plan.study_datasets(), key=lambda d: d != PAPER_DATASET)
    for dataset in ordered:
        if (root / "results" / dataset / "table3.csv").is_file():
            lines += _headline(root, f"results/{dataset}/table3.csv", config)
            break
    return lines


def _shown(path, root: Path) -> str:
    """A config file as the user would type it: relative to the run's directory if below."""
    full = Path(root, path).resolve()
    return (full.relative_to(root.resolve()).as_posix()
            if full.is_relative_to(root.resolve()) else str(path))


def _headline(root: Path, path: str, config: Mapping) -> list[str]:
    """Per recommender: the first metric's exact, sampled and corrected mean, in %."""
    table = pd.read_csv(root / path)
    metric = table["metric"].iloc[0]
    rows = table[table["metric"] == metric]
    methods = list(dict.fromkeys(rows["method"]))
    correction = next((c for c in HEADLINE_CORRECTIONS if c in methods),
                      next((c for c in methods if c not in ("exact", "sampled")), None))
    shown = [c for c in ("exact", "sampled", correction) if c in methods]
    study = config.get("study") or {}
    lines = [f"  headline {path}: {metric} in %, mean over {study.get('repeats')} repeats "
             f"of m = {study.get('m')} sampled items"]
    means = {(r, c): v for r, c, v in zip(rows["recommender"], rows["method"], rows["mean"])}
    for recommender in dict.fromkeys(rows["recommender"]):
        cells = ", ".join(f"{c} {100 * means[(recommender, c)]:.2f}" for c in shown
                          if (recommender, c) in means)
        lines.append(f"    {recommender}: {cells}")
    return lines


def print_run_summary(config: Mapping, configfiles: Sequence = (), directory=".",
                      file=None) -> None:
    """Print :func:`run_summary` (the Snakefile's ``onsuccess``); whatever goes wrong in it,
    a line saying so instead: it never fails the run."""
    file = sys.stdout if file is None else file
    try:
        lines = run_summary(config, configfiles, directory)
    except Exception as err:  # noqa: BLE001 - a summary must not fail a finished run
        lines = [f"sampled-metrics: the run is complete (no summary: {type(err).__name__}: "
                 f"{str(err)[:120]})"]
    print("\n".join(lines), file=file, flush=True)
