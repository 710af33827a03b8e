from pathlib import Path

from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import study_figure5

with script_logging(snakemake):
    study_figure5(snakemake.wildcards.dataset, dict(snakemake.input), snakemake.params.edges,
                  Path(snakemake.output.pdf).with_suffix(""), snakemake.output.data,
                  snakemake.output.facts)
