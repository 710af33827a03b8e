# Jin et al. (AAAI'21): metric@K from estimated rank distributions (Tables 2 and 4, Figures 2
# and 3), on the recommenders' rank files, beside the per-repeat KDD'20 corrections.


rule estimates:
    input:
        rules.ranks.output,
    output:
        csv="results/{dataset}/m{m}/estimates/{recommender}.csv",
        pmf="results/{dataset}/m{m}/estimates/{recommender}_pmf.npz",
    params:
        metrics=lookup(dpath="jin/metrics", within=config),
        estimators=lookup(dpath="jin/estimators", within=config),
        options=lookup(dpath="jin/options", within=config, default={}),
    # one process per job: they run side by side (a two-process job for m = 499 waited for
    # both cores to be free, at the end of the run)
    threads: 1
    # after the ranks jobs, before the tables and figures; the larger m (the longer job) first
    priority: lambda wc: estimates_priority(wc.m)
    conda:
        ENV
    log:
        "logs/{dataset}/estimates_m{m}_{recommender}.log",
    benchmark:
        "logs/benchmarks/{dataset}/estimates_m{m}_{recommender}.tsv"
    script:
        "../scripts/jin_estimates.py"


rule jin_tables:
    input:
        corrections=lambda wc: expand(rules.corrections.output, dataset=wc.dataset, m=PLAN.jin["m"]),
        estimates=lambda wc: get_estimates("csv", PLAN.jin["m"], PLAN.jin["recommenders"])(wc).values(),
    output:
        table2="results/{dataset}/jin_table2.csv",
        table2_md="results/{dataset}/jin_table2.md",
        table2_tex="results/{dataset}/jin_table2.tex",
        table2_html=report("results/{dataset}/jin_table2.html", caption="../report/jin_table2.rst", category="Jin et al.", subcategory="{dataset}"),
        table4="results/{dataset}/jin_table4.csv",
        table4_md="results/{dataset}/jin_table4.md",
        table4_tex="results/{dataset}/jin_table4.tex",
        table4_html=report("results/{dataset}/jin_table4.html", caption="../report/jin_table4.rst", category="Jin et al.", subcategory="{dataset}"),
    params:
        recommenders=lookup(dpath="jin/recommenders", within=config),
        metrics=lookup(dpath="jin/metrics", within=config),
        table2_metrics=lookup(dpath="jin/table2_metrics", within=config),
        corrections=lookup(dpath="jin/corrections", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/jin_tables.log",
    benchmark:
        "logs/benchmarks/{dataset}/jin_tables.tsv"
    script:
        "../scripts/jin_tables.py"


rule jin_figure:
    # Jin et al.'s Figure {i}: 1 the P(R) of jin.figure1's recommender, 2 of every Jin
    # recommender (at jin.m), 3 of jin.figure3's recommender at each of its m
    input:
        unpack(get_jin_figure_pmfs),
    output:
        pdf="figures/{dataset}/jin_figure{i}.pdf",
        png=report("figures/{dataset}/jin_figure{i}.png", caption="../report/jin_figure.rst", category="Jin et al.", subcategory="{dataset}"),
        data="results/{dataset}/jin_figure{i}.csv",
    wildcard_constraints:
        i="[123]",
    params:
        fig=lookup(dpath="jin/figure{i}", within=config),
        title=jin_figure_title,
    conda:
        ENV
    log:
        "logs/{dataset}/jin_figure{i}.log",
    benchmark:
        "logs/benchmarks/{dataset}/jin_figure{i}.tsv"
    script:
        "../scripts/jin_figure.py"
