# KDD'20 Sec. 6: per-repeat corrections (once per (dataset, m), shared with Jin et al.'s
# tables), Tables 3-4 and Figures 5-6 from the rank files.


rule corrections:
    input:
        unpack(get_corrections_ranks),
    output:
        "results/{dataset}/m{m}/per_repeat.csv",
    params:
        plan=lambda wc: PLAN.correction_plan(int(wc.m), wc.dataset),
        n_mode=lookup(dpath="study/n_mode", within=config),
    threads: 1
    conda:
        ENV
    log:
        "logs/{dataset}/corrections_m{m}.log",
    benchmark:
        "logs/benchmarks/{dataset}/corrections_m{m}.tsv"
    script:
        "../scripts/corrections.py"


rule kdd_tables:
    input:
        expand(rules.corrections.output, m=PLAN.study["m"], allow_missing=True),
    output:
        table3="results/{dataset}/table3.csv",
        table3_md="results/{dataset}/table3.md",
        table3_tex="results/{dataset}/table3.tex",
        table3_html=report("results/{dataset}/table3.html", caption="../report/table3.rst", category="KDD'20 study", subcategory="{dataset}"),
        table4="results/{dataset}/table4.csv",
        table4_md="results/{dataset}/table4.md",
        table4_tex="results/{dataset}/table4.tex",
        table4_html=report("results/{dataset}/table4.html", caption="../report/table4.rst", category="KDD'20 study", subcategory="{dataset}"),
    params:
        recommenders=lookup(dpath="study/recommenders", within=config),
        metrics=lookup(dpath="study/metrics", within=config),
        corrections=lookup(dpath="study/corrections", within=config),
        m=lookup(dpath="study/m", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/kdd_tables.log",
    benchmark:
        "logs/benchmarks/{dataset}/kdd_tables.tsv"
    script:
        "../scripts/kdd_tables.py"


rule figure5:
    input:
        unpack(get_rank_files(PLAN.study["recommenders"])),
    output:
        pdf="figures/{dataset}/figure5.pdf",
        png=report("figures/{dataset}/figure5.png", caption="../report/figure5.rst", category="KDD'20 study", subcategory="{dataset}"),
        data="results/{dataset}/figure5.csv",
        facts="results/{dataset}/rank_facts.csv",
    params:
        edges=lookup(dpath="study/figure5/edges", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/figure5.log",
    benchmark:
        "logs/benchmarks/{dataset}/figure5.tsv"
    script:
        "../scripts/figure5.py"


rule figure6:
    input:
        unpack(get_rank_files(PLAN.study["recommenders"])),
    # one of the run's longest jobs (a correction vector at each of its m up to n - 1): as
    # soon as the rank files are there, with the estimates
    priority: 6
    output:
        pdf="figures/{dataset}/figure6.pdf",
        png=report("figures/{dataset}/figure6.png", caption="../report/figure6.rst", category="KDD'20 study", subcategory="{dataset}"),
        data="results/{dataset}/figure6.csv",
    params:
        cfg=lookup(dpath="study/figure6", within=config),
        sampling=lookup(dpath="study/sampling", within=config),
    conda:
        ENV
    log:
        "logs/{dataset}/figure6.log",
    benchmark:
        "logs/benchmarks/{dataset}/figure6.tsv"
    script:
        "../scripts/figure6.py"


rule paper_figure:
    # The papers' MovieLens figures: figures/figure5.pdf is a copy of figures/ml-1m/figure5.pdf,
    # made only when the run has ml-1m (FanOut.paper_figures), never from another dataset;
    # same for 6 and Jin's.
    input:
        "figures/{paper}/{name}.{ext}".format(paper=PAPER_DATASET, name="{name}", ext="{ext}"),
    output:
        "figures/{name}.{ext}",
    wildcard_constraints:
        name=alternatives(PLAN.paper_figures()),
        ext="pdf|png",
    conda:
        ENV
    log:
        "logs/{name}_{ext}.log",
    shell:
        "cp {input} {output} 2> {log}"
