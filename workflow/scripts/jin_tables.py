from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.jin import tables

with script_logging(snakemake):
    p = snakemake.params
    tables(snakemake.wildcards.dataset, snakemake.input.corrections[0],
           list(snakemake.input.estimates), p.recommenders, p.metrics, p.table2_metrics,
           p.corrections, dict(snakemake.output))
