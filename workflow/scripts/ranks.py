from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.gather import gather_ranks

with script_logging(snakemake):
    gather_ranks(list(snakemake.input), snakemake.output[0])
