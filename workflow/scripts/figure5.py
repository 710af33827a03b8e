from pathlib import Path

from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.plots import figure5

with script_logging(snakemake):
    figure5(snakemake.wildcards.dataset, dict(snakemake.input), snakemake.params.edges,
            Path(snakemake.output.pdf).with_suffix(""), snakemake.output.data,
            snakemake.output.facts)
