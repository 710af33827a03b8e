from pathlib import Path

from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.plots import toy_figure

with script_logging(snakemake):
    toy_figure(int(snakemake.wildcards.i), Path(snakemake.output.pdf).with_suffix(""),
               data_csv=snakemake.output.data, n=snakemake.params.n, **snakemake.params.cfg)
