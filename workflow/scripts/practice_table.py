from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.practice_study import write_outputs

with script_logging(snakemake):
    write_outputs(list(snakemake.input), dict(snakemake.output), snakemake.wildcards.dataset,
                  snakemake.params.min_gap)
