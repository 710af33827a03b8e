from sampled_metrics.logs import script_logging
from sampled_metrics.steps.ranks import rank_recommender

with script_logging(snakemake):
    p = snakemake.params
    views = {v: {**protocol, "out": snakemake.output[v]} for v, protocol in p.views.items()}
    rank_recommender(snakemake.input[0], snakemake.wildcards.recommender, p.model,
                     snakemake.output[0], dataset=p.dataset, seed=p.seed, views=views,
                     sample_sizes=p.sample_sizes, tie=p.tie, sampling=p.sampling,
                     fixed_negatives=p.fixed_negatives, threads=snakemake.threads,
                     candidates=p.candidates)
