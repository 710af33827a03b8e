from sampled_metrics.artifacts import toy_table1
from sampled_metrics.logs import script_logging

with script_logging(snakemake):
    toy_table1(snakemake.output.csv, snakemake.output.md, snakemake.output.tex,
               n=snakemake.params.n)
