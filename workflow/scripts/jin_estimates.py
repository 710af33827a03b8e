from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import jin_recommender

with script_logging(snakemake):
    jin, study = snakemake.params.jin, snakemake.params.study
    jin_recommender(snakemake.wildcards.dataset, snakemake.wildcards.recommender,
                    snakemake.input[0], metrics=jin["metrics"],
                    distributions=jin["distributions"], sampling=study["sampling"],
                    options=jin.get("options"), out_csv=snakemake.output.csv,
                    out_npz=snakemake.output.pmf)
