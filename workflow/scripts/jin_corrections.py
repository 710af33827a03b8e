from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import jin_corrections

with script_logging(snakemake):
    jin, study = snakemake.params.jin, snakemake.params.study
    jin_corrections(snakemake.wildcards.dataset, dict(snakemake.input), metrics=jin["metrics"],
                    corrections=jin["corrections"], sampling=study["sampling"],
                    n_mode=study["n_mode"], out_csv=snakemake.output[0],
                    processes=snakemake.threads)
