from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.ranks import rank_shard

with script_logging(snakemake):
    p, wc = snakemake.params, snakemake.wildcards
    rank_shard(snakemake.input.split, snakemake.input.model, wc.recommender, snakemake.output[0],
               dataset=wc.dataset, seed=p.seed, sample_sizes=p.sample_sizes, tie=p.tie,
               sampling=p.sampling, candidates=p.candidates, fixed_negatives=p.fixed_negatives,
               shard=int(wc.shard), users_per_shard=p.users_per_shard)
