from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.jin import estimate_repeats

with script_logging(snakemake):
    p = snakemake.params
    estimate_repeats(snakemake.wildcards.dataset, snakemake.wildcards.recommender,
                     snakemake.input[0], int(snakemake.wildcards.m), metrics=p.metrics,
                     estimators=p.estimators, options=p.options, out_csv=snakemake.output.csv,
                     out_npz=snakemake.output.pmf, processes=snakemake.threads)
