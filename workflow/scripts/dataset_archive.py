from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import prepare_archive

with script_logging(snakemake):
    prepare_archive(snakemake.wildcards.dataset, snakemake.params.spec, snakemake.output[0])
