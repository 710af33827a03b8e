from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import study_tables

with script_logging(snakemake):
    study = snakemake.params.study
    study_tables(snakemake.wildcards.dataset, dict(snakemake.input), study["metrics"],
                 study["estimators"], sampling=study["sampling"], n_mode=study["n_mode"],
                 outputs=dict(snakemake.output), processes=snakemake.threads)
