from pathlib import Path

from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.plots import jin_figure

with script_logging(snakemake):
    fig = snakemake.params.fig
    jin_figure(snakemake.wildcards.dataset, dict(snakemake.input), fig["estimators"],
               Path(snakemake.output.pdf).with_suffix(""), snakemake.output.data,
               top=fig["top"], title=snakemake.params.title)
