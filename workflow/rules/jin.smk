# Jin et al. (AAAI'21): metric@K from estimated rank distributions (Tables 2 and 4, Figures 2
# and 3), on the recommenders' rank files, beside the per-repeat KDD'20 corrections.


rule estimates:
    input:
        rules.ranks.output,
    output:
        csv="results/{dataset}/m{m}/estimates/{recommender}.csv",
        pmf="results/{dataset}/m{m}/estimates/{recommender}_pmf.npz",
    params:
        metrics=JIN.get("metrics"),
        estimators=JIN.get("estimators"),
        options=JIN.get("options", {}),
    # one process per job: they run side by side (a two-process job for m = 499 waited for
    # both cores to be free, at the end of the run)
    threads: 1
    priority: 5  # after the ranks jobs, before the tables and figures
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
        corrections=expand(rules.corrections.output, m=JIN.get("m", 0), allow_missing=True),
        estimates=lambda wc: get_estimates("csv", JIN["m"], JIN["recommenders"])(wc).values(),
    output:
        table2=report("results/{dataset}/jin_table2.csv", caption="../report/jin_table2.rst", category="Jin et al.", subcategory="{dataset}"),
        table2_md="results/{dataset}/jin_table2.md",
        table2_tex="results/{dataset}/jin_table2.tex",
        table4=report("results/{dataset}/jin_table4.csv", caption="../report/jin_table4.rst", category="Jin et al.", subcategory="{dataset}"),
        table4_md="results/{dataset}/jin_table4.md",
        table4_tex="results/{dataset}/jin_table4.tex",
    params:
        recommenders=JIN.get("recommenders"),
        metrics=JIN.get("metrics"),
        table2_metrics=JIN.get("table2_metrics"),
        corrections=JIN.get("corrections"),
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
        fig=lambda wc: JIN.get(f"figure{wc.i}"),
        title=jin_figure_title,
    conda:
        ENV
    log:
        "logs/{dataset}/jin_figure{i}.log",
    benchmark:
        "logs/benchmarks/{dataset}/jin_figure{i}.tsv"
    script:
        "../scripts/jin_figure.py"
