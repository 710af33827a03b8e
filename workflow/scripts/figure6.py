from pathlib import Path

from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import study_figure6

with script_logging(snakemake):
    cfg = snakemake.params.cfg
    study_figure6(snakemake.wildcards.dataset, dict(snakemake.input), cfg["metric"],
                  cfg["points"], cfg["estimators"], Path(snakemake.output.pdf).with_suffix(""),
                  snakemake.output.data, sampling=snakemake.params.sampling)
