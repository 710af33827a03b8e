from pathlib import Path

from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.jin import figure

with script_logging(snakemake):
    fig = snakemake.params.fig
    figure(snakemake.wildcards.dataset, dict(snakemake.input), fig["estimators"],
           Path(snakemake.output.pdf).with_suffix(""), snakemake.output.data,
           top=fig["top"], title=snakemake.params.title)
