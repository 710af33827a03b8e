from pathlib import Path

from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.results_table import study_results_table

with script_logging(snakemake):
    outputs = {**dict(snakemake.output), "figure": Path(snakemake.output.pdf).with_suffix("")}
    table = snakemake.params.table
    study_results_table(dict(snakemake.input), snakemake.params.m, snakemake.params.metrics,
                        outputs, f"{snakemake.wildcards.dataset}: results table",
                        level=table["level"], familywise=table["familywise"],
                        seed=snakemake.params.seed,
                        processes=snakemake.threads)
