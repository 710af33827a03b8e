# Fit once, score once: one job per (dataset, recommender) fits the model and writes the exact
# rank, n_u and the sampled ranks of every (m, repeat) any table or figure asks for (negatives
# shared by all recommenders of a dataset within a repeat). A dataset with views (config
# dataset_protocols with `of`) has its own rule, whose job also writes each view's rank file
# from the same fit. The ranks jobs start first (everything else waits on them), the long
# fits (neural recommenders) before the others: each rule below exists once per tier. All of
# them take the resources a profile (or --set-resources) gives rule `ranks`.

for _suffix, _recs, _priority in ranks_tiers():

    rule:
        name:
            f"ranks{_suffix}"
        input:
            rules.split.output.split,
        output:
            "results/{dataset}/ranks/{recommender}.npz",
        wildcard_constraints:
            dataset=alternatives([d for d in config.get("datasets", {}) if not views_of(d)]),
            recommender=alternatives(_recs),
        params:
            dataset=lambda wc: wc.dataset,
            views={},
            # only what the ranks depend on, so that editing a table setting refits nothing
            model=lambda wc: recommender_spec(wc.recommender),
            sample_sizes=lambda wc: sample_sizes(wc.recommender, wc.dataset),
            tie=lookup(dpath="study/tie", within=config),
            sampling=lambda wc: dataset_protocol(wc.dataset)["sampling"],
            candidates=lambda wc: dataset_protocol(wc.dataset)["candidates"],
            fixed_negatives=lookup(dpath="study/fixed_negatives", within=config, default=False),
            seed=config["seed"],
        threads: 1
        resources:
            **ranks_resources(),
        priority: _priority
        conda:
            ENV
        log:
            "logs/{dataset}/ranks_{recommender}.log",
        benchmark:
            "logs/benchmarks/{dataset}/ranks_{recommender}.tsv"
        script:
            "../scripts/ranks.py"

    for _base in [d for d in config.get("datasets", {}) if views_of(d)]:

        rule:
            name:
                f"ranks_{re.sub(r'[^A-Za-z0-9_]', '_', _base)}{_suffix}"
            input:
                f"data/{_base}/split.npz",
            output:
                f"results/{_base}/ranks/{{recommender}}.npz",
                **{v: f"results/{v}/ranks/{{recommender}}.npz" for v in views_of(_base)},
            wildcard_constraints:
                recommender=alternatives(_recs),
            params:
                dataset=_base,
                views=view_protocols(_base),
                model=lambda wc: recommender_spec(wc.recommender),
                sample_sizes=sample_sizes_of(_base),
                tie=lookup(dpath="study/tie", within=config),
                sampling=dataset_protocol(_base)["sampling"],
                candidates=dataset_protocol(_base)["candidates"],
                fixed_negatives=lookup(
                    dpath="study/fixed_negatives", within=config, default=False
                ),
                seed=config["seed"],
            threads: 1
            resources:
                **ranks_resources(),
            priority: _priority
            conda:
                ENV
            log:
                f"logs/{_base}/ranks_{{recommender}}.log",
            benchmark:
                f"logs/benchmarks/{_base}/ranks_{{recommender}}.tsv"
            script:
                "../scripts/ranks.py"
