from sampled_metrics.logs import script_logging
from sampled_metrics.pipeline import jin_recommender

with script_logging(snakemake):
    jin, study = snakemake.params.jin, snakemake.params.study
    main_m = int(snakemake.wildcards.m) == int(jin["m"])
    jin_recommender(snakemake.wildcards.dataset, snakemake.wildcards.recommender,
                    snakemake.input[0], metrics=jin["metrics"],
                    # the KDD'20 corrections only enter the tables, which use jin.m
                    corrections=jin["corrections"] if main_m else [],
                    distributions=jin["distributions"], sampling=study["sampling"],
                    n_mode=study["n_mode"], options=jin.get("options"),
                    out_csv=snakemake.output.csv, out_npz=snakemake.output.pmf,
                    processes=snakemake.threads)
