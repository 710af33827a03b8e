from sampled_metrics.logs import script_logging
from sampled_metrics.steps.practice_study import write_outputs

with script_logging(snakemake):
    out = dict(snakemake.output)
    out["figure"] = snakemake.output.figure[0].rsplit(".", 1)[0]
    write_outputs(list(snakemake.input), out, snakemake.wildcards.dataset,
                  snakemake.params.min_gap)
