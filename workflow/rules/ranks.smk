# Fit once, then score in shards: one job per (dataset, recommender) fits the model and saves
# it; one job per (dataset or view, recommender, shard of ranks.users_per_shard users) loads
# it, scores its users once and writes their exact rank, n_u and the sampled ranks of every
# (m, repeat) any table or figure asks for (negatives keyed by draw block, so shared by all
# recommenders of a dataset and the same whatever the shard size); a local job gathers the
# shards into the rank file. A view (config dataset_protocols with `of`) ranks its dataset's
# fits. The long fits (neural recommenders, dense items x items models) start first.


rule fit:
    input:
        rules.split.output.split,
    output:
        "data/{dataset}/models/{recommender}.pkl",
    wildcard_constraints:
        dataset=alternatives(fitted_datasets()),
    params:
        # only what the fit depends on, so that editing m or a table refits nothing
        model=lambda wc: recommender_spec(wc.recommender),
    threads: 1
    resources:
        dense_fit=lambda wc: dense_fit(wc.recommender),
    priority: lambda wc: fit_priority(wc.recommender)
    conda:
        ENV
    log:
        "logs/{dataset}/fit_{recommender}.log",
    benchmark:
        "logs/benchmarks/{dataset}/fit_{recommender}.tsv"
    script:
        "../scripts/fit.py"


rule ranks_shard:
    input:
        split=lambda wc: f"data/{base_of(wc.dataset)}/split.npz",
        model=lambda wc: f"data/{base_of(wc.dataset)}/models/{wc.recommender}.pkl",
    output:
        temp("data/{dataset}/shards/{recommender}/{shard}.npz"),
    params:
        sample_sizes=lambda wc: sample_sizes(wc.recommender, wc.dataset),
        tie=lookup(dpath="study/tie", within=config),
        sampling=lambda wc: dataset_protocol(wc.dataset)["sampling"],
        candidates=lambda wc: dataset_protocol(wc.dataset)["candidates"],
        fixed_negatives=lookup(dpath="study/fixed_negatives", within=config, default=False),
        seed=config["seed"],
        users_per_shard=USERS_PER_SHARD,
    threads: 1
    priority: 10
    conda:
        ENV
    log:
        "logs/{dataset}/ranks_{recommender}_{shard}.log",
    benchmark:
        "logs/benchmarks/{dataset}/ranks_shard_{recommender}_{shard}.tsv"
    script:
        "../scripts/ranks_shard.py"


rule ranks:
    input:
        get_rank_shards,
    output:
        "results/{dataset}/ranks/{recommender}.npz",
    localrule: True
    conda:
        ENV
    log:
        "logs/{dataset}/ranks_{recommender}.log",
    script:
        "../scripts/ranks.py"
