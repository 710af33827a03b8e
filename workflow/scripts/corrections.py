from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.kdd_study import correct_repeats

with script_logging(snakemake):
    plan = snakemake.params.plan
    correct_repeats(snakemake.wildcards.dataset, dict(snakemake.input), int(snakemake.wildcards.m),
                    plan["metrics"], plan["corrections"], n_mode=snakemake.params.n_mode,
                    out=snakemake.output[0], processes=snakemake.threads)
