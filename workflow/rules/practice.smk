# The practice study: sampled protocols as practice runs them (several positives per user,
# negatives per positive, popularity sampling) against exact, on a dataset with our
# recommenders.


rule practice_runs:
    input:
        rules.split.output.split,
    output:
        "results/{dataset}/practice/runs_{split}.csv",
    params:
        recommenders=lambda wc: {r: PLAN.recommender_spec(r) for r in PLAN.practice["recommenders"]},
        practice=lookup(dpath="practice", within=config),
        seed=lookup(dpath="seed", within=config),
        tie=lookup(dpath="study/tie", within=config),
    threads: 1
    conda:
        ENV
    log:
        "logs/{dataset}/practice_runs_{split}.log",
    benchmark:
        "logs/benchmarks/{dataset}/practice_runs_{split}.tsv"
    script:
        "../scripts/practice_runs.py"


rule practice_table:
    input:
        get_practice_runs,
    output:
        table=report("results/{dataset}/practice.csv", caption="../report/practice.rst", category="Practice", subcategory="{dataset}"),
        table_md="results/{dataset}/practice.md",
        ordering="results/{dataset}/practice_ordering.csv",
        pdf="figures/{dataset}/practice.pdf",
        png="figures/{dataset}/practice.png",
    params:
        min_gap=lookup(dpath="practice/min_gap", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/practice_table.log",
    script:
        "../scripts/practice_table.py"


rule practice:
    input:
        practice_targets(force=True),
