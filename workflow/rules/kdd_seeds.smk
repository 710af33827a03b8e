# KDD'20 Table 3 over model seeds (study.model_seeds; their fits and rank files are in
# ranks.smk): the per-repeat corrections of every fit (one per seed of a recommender with a
# seed, the single fit of one without), then Table 3 as mean and sd over the fits. Table 3
# itself stays the one-seed table of kdd_study.smk. A target of `all` only with model seeds.


rule corrections_seeds:
    input:
        get_seed_rank_files,
    output:
        "results/{dataset}/m{m}/per_seed.csv",
    params:
        fits=PLAN.seed_plan(),
        metrics=lookup(dpath="study/metrics", within=config),
        corrections=lookup(dpath="study/corrections", within=config),
        n_mode=lookup(dpath="study/n_mode", within=config),
    threads: 1
    conda:
        ENV
    log:
        "logs/{dataset}/corrections_seeds_m{m}.log",
    benchmark:
        "logs/benchmarks/{dataset}/corrections_seeds_m{m}.tsv"
    script:
        "../scripts/corrections_seeds.py"


rule table3_seeds:
    input:
        expand(rules.corrections_seeds.output, m=PLAN.study["m"], allow_missing=True),
    output:
        table="results/{dataset}/table3_seeds.csv",
        table_md="results/{dataset}/table3_seeds.md",
        table_tex="results/{dataset}/table3_seeds.tex",
        table_html=report("results/{dataset}/table3_seeds.html", caption="../report/table3_seeds.rst", category="KDD'20 study", subcategory="{dataset}"),
    params:
        recommenders=lookup(dpath="study/recommenders", within=config),
        metrics=lookup(dpath="study/metrics", within=config),
        corrections=lookup(dpath="study/corrections", within=config),
        m=lookup(dpath="study/m", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/table3_seeds.log",
    benchmark:
        "logs/benchmarks/{dataset}/table3_seeds.tsv"
    script:
        "../scripts/table3_seeds.py"
