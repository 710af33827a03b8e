from sampled_metrics.datasets import make_split
from sampled_metrics.logs import script_logging
from sampled_metrics.tables import write_json

with script_logging(snakemake):
    info = make_split(snakemake.input[0], snakemake.params.spec, snakemake.output.split,
                      snakemake.wildcards.dataset)
    write_json(info, snakemake.output.info)
