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
        dataset=alternatives(PLAN.fitted_datasets()),
    params:
        # only what the fit depends on, so that editing m or a table refits nothing
        model=fit_spec,
    threads: 1
    resources:
        dense_fit=lambda wc: dense_fit(wc.recommender),
    priority: lambda wc: fit_priority(wc.recommender)
    conda:
        model_env
    log:
        "logs/{dataset}/fit_{recommender}.log",
    benchmark:
        "logs/benchmarks/{dataset}/fit_{recommender}.tsv"
    script:
        "../scripts/fit.py"


rule ranks_shard:
    input:
        split=get_split,
        model=get_model,
    output:
        temp("data/{dataset}/shards/{recommender}/{shard}.npz"),
    params:
        sample_sizes=shard_sample_sizes,
        tie=lookup(dpath="study/tie", within=config),
        sampling=lambda wc: PLAN.dataset_protocol(wc.dataset)["sampling"],
        candidates=lambda wc: PLAN.dataset_protocol(wc.dataset)["candidates"],
        fixed_negatives=lookup(dpath="study/fixed_negatives", within=config, default=False),
        seed=lookup(dpath="seed", within=config),
        users_per_shard=PLAN.users_per_shard,
    threads: 1
    priority: 10
    conda:
        model_env
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
    conda:
        ENV
    log:
        "logs/{dataset}/ranks_{recommender}.log",
    script:
        "../scripts/ranks.py"


# Model seeds (study.model_seeds): the same three steps once per (dataset, recommender, seed)
# for a recommender with a seed, each seed's fit saved once; only Table 3's m is ranked. A
# seed equal to the catalogue's own is the default fit above; item-kNN and EASE draw nothing
# and are never refitted.
use rule fit as fit_seed with:
    output:
        "data/{dataset}/models/{recommender}/seed{seed}.pkl",
    wildcard_constraints:
        dataset=alternatives(PLAN.fitted_datasets()),
        recommender=alternatives(PLAN.seeded_recommenders()),
    log:
        "logs/{dataset}/seed{seed}/fit_{recommender}.log",
    benchmark:
        "logs/benchmarks/{dataset}/seed{seed}/fit_{recommender}.tsv"


use rule ranks_shard as ranks_shard_seed with:
    output:
        temp("data/{dataset}/shards/{recommender}/seed{seed}/{shard}.npz"),
    log:
        "logs/{dataset}/seed{seed}/ranks_{recommender}_{shard}.log",
    benchmark:
        "logs/benchmarks/{dataset}/seed{seed}/ranks_shard_{recommender}_{shard}.tsv"


use rule ranks as ranks_seed with:
    output:
        "results/{dataset}/ranks/{recommender}/seed{seed}.npz",
    log:
        "logs/{dataset}/seed{seed}/ranks_{recommender}.log",
