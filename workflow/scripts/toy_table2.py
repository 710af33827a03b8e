from sampled_metrics.workflow.steps import toy
from sampled_metrics.logs import script_logging

with script_logging(snakemake):
    cfg = snakemake.params.cfg
    toy.table2(snakemake.output.csv, snakemake.output.md, snakemake.output.tex, m=cfg["m"],
               repeats=cfg["repeats"], seed=snakemake.params.seed, sampling=cfg["sampling"], html=snakemake.output.html)
