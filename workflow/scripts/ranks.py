from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import rank_recommender

with script_logging(snakemake):
    p = snakemake.params
    rank_recommender(snakemake.input[0], snakemake.wildcards.recommender, p.model,
                     snakemake.output[0], seed=p.seed, dataset=snakemake.wildcards.dataset,
                     m=int(snakemake.wildcards.m), repeats=p.repeats, tie=p.tie,
                     sampling=p.sampling, threads=snakemake.threads,
                     fixed_negatives=p.fixed_negatives)
