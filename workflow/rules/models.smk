# Recommenders: fit on the training set, exact ranks of the held-out items and sampled ranks
# for every repeat (negatives shared by all recommenders of a dataset).


rule ranks:
    input:
        "data/{dataset}/split.npz",
    output:
        "results/{dataset}/ranks/m{m}/{recommender}.npz",
    params:
        # only what the ranks depend on, so that editing a table setting refits nothing
        model=lambda wc: recommender_spec(wc.recommender),
        repeats=config["study"]["repeats"],
        tie=config["study"]["tie"],
        sampling=config["study"]["sampling"],
        fixed_negatives=config["study"].get("fixed_negatives", False),
        seed=config["seed"],
    wildcard_constraints:
        m=r"\d+",
    threads: 2
    conda:
        ENV
    log:
        "logs/{dataset}/ranks_m{m}_{recommender}.log",
    benchmark:
        "logs/benchmarks/{dataset}/ranks_m{m}_{recommender}.tsv"
    script:
        "../scripts/ranks.py"
