# Recommenders: fit on the training set, exact ranks of the held-out items and sampled ranks
# for every repeat (negatives shared by all recommenders of a dataset).


rule ranks:
    input:
        "data/{dataset}/split.npz",
    output:
        "results/{dataset}/ranks/{recommender}.npz",
    params:
        model=lambda wc: recommender_spec(wc.recommender),
        study=config["study"],
        seed=config["seed"],
    threads: 2
    log:
        "logs/{dataset}/ranks_{recommender}.log",
    benchmark:
        "logs/benchmarks/{dataset}/ranks_{recommender}.tsv"
    script:
        "../scripts/ranks.py"
