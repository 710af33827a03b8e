from sampled_metrics.datasets import prepare_archive
from sampled_metrics.logs import script_logging

with script_logging(snakemake):
    dataset = snakemake.wildcards.dataset
    prepare_archive(dataset, snakemake.config["datasets"][dataset], snakemake.output[0])
