from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import study_tables

with script_logging(snakemake):
    p = snakemake.params
    study_tables(snakemake.wildcards.dataset, dict(snakemake.input), p.metrics, p.estimators,
                 sampling=p.sampling, n_mode=p.n_mode, outputs=dict(snakemake.output),
                 processes=snakemake.threads)
