from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import jin_corrections

with script_logging(snakemake):
    p = snakemake.params
    jin_corrections(snakemake.wildcards.dataset, dict(snakemake.input), metrics=p.metrics,
                    corrections=p.corrections, sampling=p.sampling, n_mode=p.n_mode,
                    out_csv=snakemake.output[0], processes=snakemake.threads)
