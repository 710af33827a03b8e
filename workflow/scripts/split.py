from sampled_metrics.datasets import make_split
from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.configuration.fanout import FanOut
from sampled_metrics.workflow.tables import write_json

with script_logging(snakemake):
    dataset = snakemake.wildcards.dataset
    info = make_split(snakemake.input[0], snakemake.config["datasets"][dataset],
                      snakemake.output.split, dataset,
                      **FanOut(snakemake.config).split_options(dataset))
    write_json(info, snakemake.output.info)
