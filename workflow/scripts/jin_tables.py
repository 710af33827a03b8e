from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import jin_tables

with script_logging(snakemake):
    jin_tables(snakemake.wildcards.dataset, list(snakemake.input), snakemake.params.metrics,
               dict(snakemake.output))
