from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.ranks import fit_recommender

with script_logging(snakemake):
    fit_recommender(snakemake.input[0], snakemake.wildcards.recommender,
                    snakemake.params.model, snakemake.output[0], threads=snakemake.threads)
