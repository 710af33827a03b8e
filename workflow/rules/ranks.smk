# Fit once, score once: one job per (dataset, recommender) fits the model and writes the exact
# rank, n_u and the sampled ranks of every (m, repeat) any table or figure asks for (negatives
# shared by all recommenders of a dataset within a repeat).


rule ranks:
    input:
        rules.split.output.split,
    output:
        "results/{dataset}/ranks/{recommender}.npz",
    params:
        # only what the ranks depend on, so that editing a table setting refits nothing
        model=lambda wc: recommender_spec(wc.recommender),
        sample_sizes=lambda wc: sample_sizes(wc.recommender),
        tie=lookup(dpath="study/tie", within=config),
        sampling=lambda wc: dataset_protocol(wc.dataset)["sampling"],
        candidates=lambda wc: dataset_protocol(wc.dataset)["candidates"],
        fixed_negatives=lookup(dpath="study/fixed_negatives", within=config, default=False),
        seed=config["seed"],
    threads: 1
    priority: 10  # the longest jobs, on which everything else waits: start them first
    conda:
        ENV
    log:
        "logs/{dataset}/ranks_{recommender}.log",
    benchmark:
        "logs/benchmarks/{dataset}/ranks_{recommender}.tsv"
    script:
        "../scripts/ranks.py"
