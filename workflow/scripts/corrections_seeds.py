from sampled_metrics.logs import script_logging
from sampled_metrics.workflow.steps.kdd_study import correct_seeds

with script_logging(snakemake):
    p = snakemake.params
    paths = {}
    for (rec, seed), path in zip(p.fits, snakemake.input):
        paths.setdefault(rec, {})[seed] = path
    correct_seeds(snakemake.wildcards.dataset, paths, int(snakemake.wildcards.m), p.metrics,
                  p.corrections, n_mode=p.n_mode, out=snakemake.output[0],
                  processes=snakemake.threads)
