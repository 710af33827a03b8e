from pathlib import Path

from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.plots import figure6

with script_logging(snakemake):
    cfg = snakemake.params.cfg
    figure6(snakemake.wildcards.dataset, dict(snakemake.input), cfg["metric"], cfg["points"],
            cfg["corrections"], Path(snakemake.output.pdf).with_suffix(""),
            snakemake.output.data, sampling=snakemake.params.sampling,
            max_m=cfg.get("max_m"))
