# Recommenders: fit on the training set, exact ranks of the held-out items and sampled ranks
# for every repeat (negatives shared by all recommenders of a dataset).


rule ranks:
    input:
        "data/{dataset}/split.npz",
    output:
        "results/{dataset}/ranks/m{m}/{recommender}.npz",
    params:
        model=lambda wc: recommender_spec(wc.recommender),
        study=config["study"],
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
