from sampled_metrics.datasets import prepare_archive
from sampled_metrics.logs import script_logging

with script_logging(snakemake):
    prepare_archive(snakemake.wildcards.dataset, snakemake.params.spec, snakemake.output[0])
