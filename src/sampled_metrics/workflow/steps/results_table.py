"""The study's results table: what ``sampled-metrics table`` gives on the workflow's rank files
of k recommenders (one repeat of sampled ranks at the study's m), with each model's exact
metric beside it, since the workflow knows the exact ranks.

Each model's row is the recommended full-ranking estimate M^ with its interval, the
uncorrected sampled metric mean_u M_{m+1}(r~_u), and the exact mean_u M(r_u) (AUC with n = n_u);
the pairs are compare's bias-aware paired verdicts with the family-wise error over all pairs
and metrics controlled (:func:`sampled_metrics.compare.table.results_table`). As the command
on these files, the corrections use n = |I|, the files' item count.
"""
from __future__ import annotations

import logging

from ...compare.layout import results_document
from ...compare.table import results_table
from ...evaluation.rankfile import read_rank_files
from ...intervals.recommended import RECOMMENDED
from ...metrics import parse_metrics
from ..figures import results_figure
from ..tables import atomic_write_text, write_csv

__all__ = ["TABLE_CORRECTIONS", "study_results_table"]

log = logging.getLogger(__name__)

#: the rows per model: the headline answer and the uncorrected sampled metric
TABLE_CORRECTIONS = [RECOMMENDED, "sampled"]


def study_results_table(rank_paths: dict, m: int, metrics, outputs: dict, title: str, *,
                        repeat: int = 0, level: float = 0.95, familywise: str = "maxstat",
                        bootstrap: int | None = None, seed: int = 0, processes: int = 1):
    """Write the results table of the recommenders ``rank_paths`` ({name: rank file}).

    ``outputs``: ``csv`` (the models' rows, :data:`~sampled_metrics.compare.table.MODEL_COLUMNS`
    and ``exact``), ``pairs`` (the pairs' rows), ``md``, ``tex``, ``html`` (the table as
    pasted, :func:`~sampled_metrics.compare.layout.results_document`), ``figure`` (the stem
    of the PDF and PNG of :func:`~sampled_metrics.workflow.figures.results_figure`, headed
    ``title``). Returns the
    :class:`~sampled_metrics.compare.table.ResultsTable`.
    """
    files = read_rank_files(rank_paths)
    first = next(iter(files.values()))
    ranks = {name: f.sampled_ranks(m, repeat) for name, f in files.items()}
    table = results_table(ranks, metrics, TABLE_CORRECTIONS, n=first.n_items, m=m,
                          sampling=first.sampling, familywise=familywise, level=level,
                          bootstrap=bootstrap, seed=seed, processes=processes)
    exact = {(name, x.name): x.mean(f.exact, f.n_u)
             for name, f in files.items() for x in parse_metrics(metrics)}
    models = table.models.copy()
    models.insert(models.columns.get_loc("value") + 1, "exact",
                  [exact[(a, x)] for a, x in zip(models.model, models.metric)])
    models.insert(3, "repeat", repeat)
    write_csv(models, outputs["csv"])
    write_csv(table.pairs, outputs["pairs"])
    for form, key in (("markdown", "md"), ("latex", "tex"), ("html", "html")):
        atomic_write_text(outputs[key], results_document(table, form))
    heads = models[models.correction == RECOMMENDED]
    results_figure(heads, outputs["figure"], title)
    log.info("results table: %d models, %d pairs; intervals containing the exact value: "
             "%d of %d", models.model.nunique(), len(table.pairs),
             int(((heads.ci_low <= heads.exact) & (heads.exact <= heads.ci_high)).sum()),
             len(heads))
    return table._replace(models=models)

