from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import rank_recommender

with script_logging(snakemake):
    study = snakemake.params.study
    rank_recommender(snakemake.input[0], snakemake.wildcards.recommender,
                     snakemake.params.model, snakemake.output[0], seed=snakemake.params.seed,
                     dataset=snakemake.wildcards.dataset, m=int(snakemake.wildcards.m),
                     repeats=study["repeats"], tie=study["tie"], sampling=study["sampling"],
                     threads=snakemake.threads,
                     fixed_negatives=study.get("fixed_negatives", False))
