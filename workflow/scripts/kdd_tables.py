from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.kdd_study import tables

with script_logging(snakemake):
    p = snakemake.params
    tables(snakemake.wildcards.dataset, snakemake.input[0], p.recommenders, p.metrics,
           p.corrections, m=p.m, outputs=dict(snakemake.output))
