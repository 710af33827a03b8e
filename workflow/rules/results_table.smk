# The study's results table: `sampled-metrics table` on the rank files of
# study.results_table.recommenders at study.m (repeat 0), the exact metric beside.


rule results_table:
    input:
        unpack(get_rank_files(PLAN.table_recommenders())),
    output:
        csv="results/{dataset}/results_table.csv",
        pairs="results/{dataset}/results_table_pairs.csv",
        md="results/{dataset}/results_table.md",
        tex="results/{dataset}/results_table.tex",
        html=report("results/{dataset}/results_table.html", caption="../report/results_table.rst", category="Results table", subcategory="{dataset}"),
        pdf="figures/{dataset}/results_table.pdf",
        png=report("figures/{dataset}/results_table.png", caption="../report/results_table_figure.rst", category="Results table", subcategory="{dataset}"),
    params:
        table=lookup(dpath="study/results_table", within=config),
        m=lookup(dpath="study/m", within=config),
        metrics=lookup(dpath="study/metrics", within=config),
        seed=lookup(dpath="seed", within=config),
    threads: 2
    conda:
        ENV
    log:
        "logs/{dataset}/results_table.log",
    benchmark:
        "logs/benchmarks/{dataset}/results_table.tsv"
    script:
        "../scripts/results_table.py"
