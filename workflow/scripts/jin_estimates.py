from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import jin_recommender

with script_logging(snakemake):
    p = snakemake.params
    jin_recommender(snakemake.wildcards.dataset, snakemake.wildcards.recommender,
                    snakemake.input[0], metrics=p.metrics, distributions=p.distributions,
                    sampling=p.sampling, options=p.options, out_csv=snakemake.output.csv,
                    out_npz=snakemake.output.pmf, processes=snakemake.threads)
