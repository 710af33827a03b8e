from sampled_metrics.workflow.steps import toy
from sampled_metrics.logs import script_logging

with script_logging(snakemake):
    toy.table1(snakemake.output.csv, snakemake.output.md, snakemake.output.tex,
               n=snakemake.params.n, html=snakemake.output.html)
