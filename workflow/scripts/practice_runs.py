from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.practice_study import write_runs

with script_logging(snakemake):
    p, c = snakemake.params, snakemake.params.practice
    write_runs(snakemake.input[0], snakemake.wildcards.split, p.recommenders, snakemake.output[0],
               dataset=snakemake.wildcards.dataset, seed=p.seed, fraction=c["holdout_fraction"],
               m=c["m"], repeats=c["repeats"], alphas=c["popularity_alphas"],
               popularity_repeats=c["popularity_repeats"], metrics=c["metrics"],
               corrections=c["corrections"], tie=p.tie, processes=snakemake.threads)
